#include <ATen/cuda/CUDAConfig.h>

#if AT_CUDNN_ENABLED()

#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/Exceptions.h>
#include <ATen/cudnn/Handle.h>

namespace at {
namespace native {

namespace {

struct HandleOwner {
  cudnnHandle_t handle = nullptr;
  ~HandleOwner() {
    // Destroying during process exit can race the driver teardown; the real
    // library skips it too, so leak on purpose.
  }
};

} // namespace

cudnnHandle_t getCudnnHandle() {
  thread_local HandleOwner owner;
  if (owner.handle == nullptr) {
    AT_CUDNN_CHECK(cudnnCreate(&owner.handle));
  }
  AT_CUDNN_CHECK(cudnnSetStream(owner.handle, at::cuda::getCurrentCUDAStream().stream()));
  return owner.handle;
}

} // namespace native
} // namespace at

#endif // AT_CUDNN_ENABLED()
