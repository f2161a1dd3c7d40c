#include <ATen/NativeFunctions.h>
#include <ATen/NativeMetaFunctions.h>
#include <ATen/TensorMeta.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/BinaryOps.h>

#include <algorithm>
#include <vector>

namespace at {
namespace meta {

// Shape both operands broadcast to (trailing dims aligned, 1 stretches).
static std::vector<int64_t> infer_size(IntArrayRef a, IntArrayRef b) {
  const size_t ndim = std::max(a.size(), b.size());
  std::vector<int64_t> out(ndim);
  for (size_t i = 0; i < ndim; ++i) {
    const int64_t da = i < ndim - a.size() ? 1 : a[i - (ndim - a.size())];
    const int64_t db = i < ndim - b.size() ? 1 : b[i - (ndim - b.size())];
    TORCH_CHECK(da == db || da == 1 || db == 1, "The size of tensor a (", da,
                ") must match the size of tensor b (", db, ") at non-singleton dimension ", i);
    out[i] = da == 1 ? db : da;
  }
  return out;
}

TORCH_META_FUNC2(add, Tensor)(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  (void)alpha;
  TORCH_CHECK(self.device() == other.device(), "Expected all tensors to be on the same device, ",
              "but found ", self.device(), " and ", other.device());
  device_type_ = self.device().type();
  set_output_raw_strided(0, infer_size(self.sizes(), other.sizes()), {}, self.options());
}

} // namespace meta

namespace native {

DEFINE_DISPATCH(add_stub);

BroadcastOffsets make_broadcast_offsets(const Tensor& out, const Tensor& a, const Tensor& b) {
  BroadcastOffsets bo;
  bo.ndim = static_cast<int>(out.dim());
  TORCH_CHECK(bo.ndim <= BroadcastOffsets::kMaxDims, "too many dimensions for add: ", bo.ndim);
  for (int d = 0; d < bo.ndim; ++d) {
    bo.sizes[d] = out.size(d);
    const int64_t ad = d - (bo.ndim - a.dim());
    const int64_t bd = d - (bo.ndim - b.dim());
    bo.a_strides[d] = (ad >= 0 && a.size(ad) != 1) ? a.stride(ad) : 0;
    bo.b_strides[d] = (bd >= 0 && b.size(bd) != 1) ? b.stride(bd) : 0;
  }
  return bo;
}

TORCH_IMPL_FUNC(add_out)(const Tensor& self, const Tensor& other, const Scalar& alpha,
                         const Tensor& result) {
  add_stub(device_type(), result, self, other, alpha);
}

} // namespace native
} // namespace at
