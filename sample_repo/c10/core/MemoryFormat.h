#pragma once

#include <cstdint>

namespace c10 {

enum class MemoryFormat : int8_t { Contiguous = 0, Preserve = 1, ChannelsLast = 2 };

} // namespace c10

namespace at {
using c10::MemoryFormat;
} // namespace at
