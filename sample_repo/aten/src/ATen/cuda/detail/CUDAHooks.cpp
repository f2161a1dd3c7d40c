#include <ATen/cuda/CUDAConfig.h>
#include <ATen/detail/CUDAHooksInterface.h>

#include <cuda_runtime.h>
#if AT_CUDNN_ENABLED()
#include <cudnn.h>
#endif

namespace at {
namespace cuda {
namespace detail {

// The CUDA build's answers to CUDAHooksInterface.
struct CUDAHooks : public at::detail::CUDAHooksInterface {
  int getNumGPUs() const override {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
      (void)cudaGetLastError(); // clear the sticky error
      return 0;
    }
    return count;
  }
  bool hasCUDA() const override { return getNumGPUs() > 0; }
  bool compiledWithCuDNN() const override { return AT_CUDNN_ENABLED(); }
  bool hasCuDNN() const override { return compiledWithCuDNN() && hasCUDA(); }
  long versionCuDNN() const override {
#if AT_CUDNN_ENABLED()
    return static_cast<long>(cudnnGetVersion());
#else
    return 0;
#endif
  }
};

namespace {
struct RegisterCUDAHooks {
  RegisterCUDAHooks() {
    static CUDAHooks hooks;
    at::detail::setCUDAHooks(&hooks);
  }
};
RegisterCUDAHooks register_cuda_hooks;
} // namespace

} // namespace detail
} // namespace cuda
} // namespace at
