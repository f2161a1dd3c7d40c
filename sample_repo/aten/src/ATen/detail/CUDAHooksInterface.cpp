#include <ATen/detail/CUDAHooksInterface.h>

namespace at {
namespace detail {

namespace {
// Constant-initialized, so registration from other static initializers is safe.
const CUDAHooksInterface* registered_hooks = nullptr;
} // namespace

const CUDAHooksInterface& getCUDAHooks() {
  static const CUDAHooksInterface fallback;
  return registered_hooks ? *registered_hooks : fallback;
}

void setCUDAHooks(const CUDAHooksInterface* hooks) {
  registered_hooks = hooks;
}

} // namespace detail
} // namespace at
