#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/Activation.h>

namespace at {
namespace native {

DEFINE_DISPATCH(relu_stub);

Tensor relu(const Tensor& self) {
  TORCH_CHECK(self.scalar_type() != at::kBool, "Boolean inputs not supported for relu");
  Tensor result = at::empty(self.sizes(), self.options());
  relu_stub(self.device().type(), result, self.contiguous());
  return result;
}

Tensor& relu_(Tensor& self) {
  TORCH_CHECK(self.scalar_type() != at::kBool, "Boolean inputs not supported for relu_");
  if (self.is_contiguous()) {
    relu_stub(self.device().type(), self, self);
  } else {
    // kernels walk dense memory; compute densely and write back
    Tensor tmp = self.contiguous();
    relu_stub(self.device().type(), tmp, tmp);
    self.copy_(tmp);
  }
  return self;
}

} // namespace native
} // namespace at
