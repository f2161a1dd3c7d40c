#pragma once

#include <cstdint>

namespace c10 {

enum class Layout : int8_t { Strided = 0, Sparse = 1, Mkldnn = 2 };
constexpr Layout kStrided = Layout::Strided;

} // namespace c10

namespace at {
using c10::Layout;
using c10::kStrided;
} // namespace at
