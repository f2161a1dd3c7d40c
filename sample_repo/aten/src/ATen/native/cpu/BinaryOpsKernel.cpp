#include <ATen/core/Tensor.h>
#include <ATen/native/BinaryOps.h>

#include <algorithm>
#include <vector>

namespace at::native {

namespace {

void add_kernel(const Tensor& out, const Tensor& self, const Tensor& other,
                const Scalar& alpha) {
  const BroadcastOffsets offsets = make_broadcast_offsets(out, self, other);
  const float* a = self.data_ptr<float>();
  const float* b = other.data_ptr<float>();
  const float alpha_v = alpha.toFloat();
  const int64_t n = out.numel();
  // Stage first: out may alias self or other (add_out(x, x, y)).
  std::vector<float> staged(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t ao = 0;
    int64_t bo = 0;
    offsets.get(i, &ao, &bo);
    staged[i] = a[ao] + alpha_v * b[bo];
  }
  float* dst = out.data_ptr<float>();
  if (out.is_contiguous()) {
    std::copy(staged.begin(), staged.end(), dst);
  } else {
    Tensor tmp = out.clone();
    std::copy(staged.begin(), staged.end(), tmp.data_ptr<float>());
    out.copy_(tmp);
  }
}

} // namespace

REGISTER_DISPATCH(add_stub, &add_kernel);

} // namespace at::native
