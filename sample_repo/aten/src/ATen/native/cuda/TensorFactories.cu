#include <ATen/NativeFunctions.h>
#include <ATen/core/Tensor.h>
#include <ATen/cuda/EmptyTensor.h>

namespace at {
namespace native {

Tensor empty_cuda(IntArrayRef size, std::optional<ScalarType> dtype_opt,
                  std::optional<Layout> layout_opt, std::optional<Device> device_opt,
                  std::optional<bool> pin_memory_opt,
                  std::optional<MemoryFormat> memory_format_opt) {
  TORCH_CHECK(layout_opt.value_or(Layout::Strided) == Layout::Strided,
              "empty_cuda: only strided tensors are supported");
  TORCH_CHECK(!pin_memory_opt.value_or(false), "Only dense CPU tensors can be pinned");
  return at::detail::empty_cuda(size, dtype_opt, device_opt, memory_format_opt);
}

} // namespace native
} // namespace at
