#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#include <ATen/TensorIterator.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/ReduceOps.h>

namespace at {
namespace native {

DEFINE_DISPATCH(sum_stub);

// The sum of all elements, as a 0-dim tensor on self's device.
Tensor sum(const Tensor& self, std::optional<ScalarType> dtype) {
  TORCH_CHECK(self.scalar_type() == kFloat && (!dtype.has_value() || *dtype == kFloat),
              "sum: the bundled runtime supports float tensors only");
  Tensor result = at::empty({}, self.options());
  const Tensor input = self.contiguous();
  TensorIterator iter = TensorIterator::reduce_op(result, input);
  sum_stub(input.device().type(), iter);
  return result;
}

} // namespace native
} // namespace at
