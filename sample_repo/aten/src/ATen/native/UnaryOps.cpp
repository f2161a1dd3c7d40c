#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#include <ATen/TensorIterator.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/UnaryOps.h>

namespace at {
namespace native {

DEFINE_DISPATCH(exp_stub);

// exp.out: writes into `result`, which must already have self's shape and device.
Tensor& exp_out(const Tensor& self, Tensor& result) {
  TORCH_CHECK(self.scalar_type() == kFloat && result.scalar_type() == kFloat,
              "exp: the bundled runtime supports float tensors only");
  TORCH_CHECK(result.device() == self.device(), "exp: out is on ", result.device(),
              " but input is on ", self.device());
  TORCH_CHECK(result.dim() == self.dim() && result.numel() == self.numel(),
              "exp: out must have the input's shape");
  const Tensor input = self.contiguous();
  if (result.is_contiguous()) {
    TensorIterator iter = TensorIterator::unary_op(result, input);
    exp_stub(input.device().type(), iter);
  } else {
    // kernels walk dense memory; compute densely and write back
    Tensor dense = at::empty(input.sizes(), input.options());
    TensorIterator iter = TensorIterator::unary_op(dense, input);
    exp_stub(input.device().type(), iter);
    result.copy_(dense);
  }
  return result;
}

// exp: a fresh result, filled by the out= variant.
Tensor exp(const Tensor& self) {
  Tensor result = at::empty(self.sizes(), self.options());
  at::native::exp_out(self, result);
  return result;
}

} // namespace native
} // namespace at
