#pragma once

#include <ATen/core/TensorBody.h>
#include <c10/core/MemoryFormat.h>

#include <optional>

namespace at {
namespace detail {

// Build a fresh contiguous tensor over an already allocated Storage.
TORCH_API Tensor make_contiguous_tensor(c10::Storage storage, IntArrayRef size,
                                        ScalarType dtype);

TORCH_API int64_t compute_numel_checked(IntArrayRef size);

TORCH_API Tensor empty_cpu(IntArrayRef size, std::optional<ScalarType> dtype_opt,
                           std::optional<bool> pin_memory_opt,
                           std::optional<MemoryFormat> memory_format_opt);

} // namespace detail
} // namespace at
