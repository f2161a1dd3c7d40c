#include <ATen/EmptyTensor.h>

#include <memory>

namespace at {
namespace detail {

int64_t compute_numel_checked(IntArrayRef size) {
  int64_t n = 1;
  for (int64_t s : size) {
    TORCH_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", size);
    n *= s;
  }
  return n;
}

Tensor make_contiguous_tensor(c10::Storage storage, IntArrayRef size, ScalarType dtype) {
  auto impl = std::make_shared<c10::TensorImpl>(
      std::move(storage), dtype, size.vec(), c10::TensorImpl::contiguous_strides(size), 0);
  return Tensor(std::move(impl));
}

Tensor empty_cpu(IntArrayRef size, std::optional<ScalarType> dtype_opt,
                 std::optional<bool> pin_memory_opt,
                 std::optional<MemoryFormat> memory_format_opt) {
  TORCH_CHECK(!pin_memory_opt.value_or(false), "pinned memory needs a CUDA build");
  TORCH_CHECK(memory_format_opt.value_or(MemoryFormat::Contiguous) != MemoryFormat::ChannelsLast,
              "channels_last is not supported by the sample tree");
  const int64_t numel = compute_numel_checked(size);
  const size_t nbytes = static_cast<size_t>(numel) * sizeof(float);
  // value-initialized so fresh tensors never expose garbage
  float* data = new float[numel > 0 ? numel : 1]();
  auto storage = std::make_shared<c10::StorageImpl>(
      data, nbytes, Device(DeviceType::CPU), [](void* p) { delete[] static_cast<float*>(p); });
  return make_contiguous_tensor(c10::Storage(std::move(storage)), size,
                                dtype_opt.value_or(ScalarType::Float));
}

} // namespace detail
} // namespace at
