#pragma once

#include <c10/macros/Export.h>

#include <cudnn.h>

namespace at {
namespace native {

// Per-thread cuDNN handle, bound to the current CUDA stream.
TORCH_API cudnnHandle_t getCudnnHandle();

} // namespace native
} // namespace at
