#include <ATen/EmptyTensor.h>
#include <ATen/cuda/EmptyTensor.h>
#include <ATen/cuda/Exceptions.h>
#include <c10/cuda/CUDAStream.h>

#include <memory>

namespace at {
namespace detail {

Tensor empty_cuda(IntArrayRef size, std::optional<ScalarType> dtype_opt,
                  std::optional<Device> device_opt,
                  std::optional<MemoryFormat> memory_format_opt) {
  const Device device = device_opt.value_or(Device(DeviceType::CUDA));
  TORCH_CHECK(device.is_cuda(), "empty_cuda: expected a CUDA device, got ", device);
  TORCH_CHECK(memory_format_opt.value_or(MemoryFormat::Contiguous) != MemoryFormat::ChannelsLast,
              "channels_last is not supported by the sample tree");
  const int64_t numel = compute_numel_checked(size);
  const size_t nbytes = static_cast<size_t>(numel > 0 ? numel : 1) * sizeof(float);
  if (device.has_index()) {
    AT_CUDA_CHECK(cudaSetDevice(device.index()));
  }
  void* data = nullptr;
  AT_CUDA_CHECK(cudaMalloc(&data, nbytes));
  const Device placed(DeviceType::CUDA, c10::cuda::current_device());
  auto storage = std::make_shared<c10::StorageImpl>(data, nbytes, placed,
                                                    [](void* p) { (void)cudaFree(p); });
  return make_contiguous_tensor(c10::Storage(std::move(storage)), size,
                                dtype_opt.value_or(ScalarType::Float));
}

} // namespace detail
} // namespace at
