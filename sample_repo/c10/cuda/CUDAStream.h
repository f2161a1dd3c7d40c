#pragma once

#include <c10/core/Device.h>
#include <c10/macros/Export.h>

#include <cuda_runtime.h>

namespace c10 {
namespace cuda {

// Thin value wrapper over a cudaStream_t bound to one device.
class C10_API CUDAStream {
 public:
  CUDAStream(cudaStream_t stream, DeviceIndex device) : stream_(stream), device_(device) {}

  cudaStream_t stream() const { return stream_; }
  operator cudaStream_t() const { return stream_; }
  Device device() const { return Device(DeviceType::CUDA, device_); }
  void synchronize() const;

 private:
  cudaStream_t stream_;
  DeviceIndex device_;
};

C10_API CUDAStream getCurrentCUDAStream(DeviceIndex device_index = -1);
C10_API void setCurrentCUDAStream(CUDAStream stream);
C10_API DeviceIndex current_device();

} // namespace cuda
} // namespace c10
