#pragma once

#include <c10/macros/Export.h>

namespace at {
namespace detail {

// Lets CPU-only code ask about CUDA without linking against it. The CUDA
// side installs its implementation through setCUDAHooks() at load time.
struct TORCH_API CUDAHooksInterface {
  virtual ~CUDAHooksInterface() = default;
  virtual bool hasCUDA() const { return false; }
  virtual bool hasCuDNN() const { return false; }
  virtual bool compiledWithCuDNN() const { return false; }
  virtual long versionCuDNN() const { return 0; }
  virtual int getNumGPUs() const { return 0; }
};

TORCH_API const CUDAHooksInterface& getCUDAHooks();
TORCH_API void setCUDAHooks(const CUDAHooksInterface* hooks);

} // namespace detail
} // namespace at
