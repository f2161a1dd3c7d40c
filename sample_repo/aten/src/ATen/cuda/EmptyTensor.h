#pragma once

#include <ATen/core/TensorBody.h>
#include <c10/core/MemoryFormat.h>

#include <optional>

namespace at {
namespace detail {

TORCH_API Tensor empty_cuda(IntArrayRef size, std::optional<ScalarType> dtype_opt,
                            std::optional<Device> device_opt,
                            std::optional<MemoryFormat> memory_format_opt);

} // namespace detail
} // namespace at
