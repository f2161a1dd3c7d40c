#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#include <ATen/NativeMetaFunctions.h>
#include <ATen/TensorMeta.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/cpu/SoftmaxKernel.h>

namespace at {
namespace meta {

TORCH_META_FUNC(_softmax)(const Tensor& input, int64_t dim, bool half_to_float) {
  TORCH_CHECK(!half_to_float, "softmax with half to float conversion is not supported on CPU");
  (void)c10::maybe_wrap_dim(dim, input.dim()); // range check only
  set_output_raw_strided(0, input.sizes(), {}, input.options());
}

} // namespace meta

namespace native {

DEFINE_DISPATCH(softmax_lastdim_kernel);
DEFINE_DISPATCH(softmax_kernel);

TORCH_IMPL_FUNC(softmax_cpu_out)(const Tensor& input, int64_t dim, bool half_to_float,
                                 const Tensor& output) {
  (void)half_to_float;
  if (input.numel() == 0) return;
  const Tensor input_c = input.contiguous();
  if (input_c.dim() == 0) {
    output.fill_(1);
    return;
  }
  dim = c10::maybe_wrap_dim(dim, input_c.dim());
  if (dim == input_c.dim() - 1) {
    softmax_lastdim_kernel(kCPU, output, input_c);
  } else {
    softmax_kernel(kCPU, output, input_c, dim);
  }
}

Tensor softmax(const Tensor& input_, int64_t dim, std::optional<ScalarType> dtype) {
  // Only float storage exists here, so `dtype` can only restate it.
  TORCH_CHECK(!dtype.has_value() || *dtype == input_.scalar_type(),
              "softmax: dtype conversion is not supported in the sample tree");
  return at::_softmax(input_, dim, /*half_to_float=*/false);
}

} // namespace native
} // namespace at
