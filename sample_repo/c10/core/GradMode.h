#pragma once

#include <c10/macros/Export.h>

namespace c10 {

// Whether operations record gradients (torch.no_grad() switches it off).
// Thread-local, like the real flag: each Python thread has its own mode.
// The sample runtime runs forward only, so the flag is only kept and reported.
struct C10_API GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

// RAII guard: set the mode for a scope, restore it afterwards.
struct C10_API AutoGradMode {
  explicit AutoGradMode(bool enabled) : prev_mode(GradMode::is_enabled()) {
    GradMode::set_enabled(enabled);
  }
  ~AutoGradMode() { GradMode::set_enabled(prev_mode); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

  const bool prev_mode;
};

} // namespace c10
