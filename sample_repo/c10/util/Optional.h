#pragma once

#include <optional>

namespace c10 {
// The sample tree uses std::optional directly; keep the old spelling too.
template <typename T>
using optional = std::optional<T>;
using std::nullopt;
} // namespace c10
