#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAStream.h>

namespace c10 {
namespace cuda {

namespace {
// Per-thread current stream; nullptr means the legacy default stream.
thread_local cudaStream_t tls_current_stream = nullptr;
} // namespace

void CUDAStream::synchronize() const {
  C10_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

DeviceIndex current_device() {
  int device = 0;
  C10_CUDA_CHECK(cudaGetDevice(&device));
  return static_cast<DeviceIndex>(device);
}

CUDAStream getCurrentCUDAStream(DeviceIndex device_index) {
  if (device_index < 0) device_index = current_device();
  return CUDAStream(tls_current_stream, device_index);
}

void setCurrentCUDAStream(CUDAStream stream) {
  tls_current_stream = stream.stream();
}

} // namespace cuda
} // namespace c10
