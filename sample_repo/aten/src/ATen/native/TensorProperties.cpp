#include <ATen/Context.h>
#include <ATen/NativeFunctions.h>
#include <ATen/core/Tensor.h>
#include <ATen/detail/CUDAHooksInterface.h>

namespace at::native {

// Whether cuDNN may be used for this tensor at all (device, dtype, build,
// user switch). Individual ops add their own shape conditions on top.
bool cudnn_is_acceptable(const Tensor& self) {
  if (!globalContext().userEnabledCuDNN()) return false;
  if (!self.is_cuda()) return false;
  const ScalarType st = self.scalar_type();
  if (st != kFloat && st != kDouble) return false;
  if (!detail::getCUDAHooks().compiledWithCuDNN()) return false;
  return true;
}

} // namespace at::native
