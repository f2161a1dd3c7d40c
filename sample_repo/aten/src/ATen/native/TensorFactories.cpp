#include <ATen/EmptyTensor.h>
#include <ATen/NativeFunctions.h>
#include <ATen/core/Tensor.h>

namespace at {
namespace native {

Tensor empty_cpu(IntArrayRef size, std::optional<ScalarType> dtype_opt,
                 std::optional<Layout> layout_opt, std::optional<Device> device_opt,
                 std::optional<bool> pin_memory_opt,
                 std::optional<MemoryFormat> memory_format_opt) {
  TORCH_CHECK(layout_opt.value_or(Layout::Strided) == Layout::Strided,
              "empty_cpu: only strided tensors are supported");
  TORCH_CHECK(!device_opt.has_value() || device_opt->is_cpu(), "empty_cpu: got device ",
              *device_opt);
  return at::detail::empty_cpu(size, dtype_opt, pin_memory_opt, memory_format_opt);
}

} // namespace native
} // namespace at
