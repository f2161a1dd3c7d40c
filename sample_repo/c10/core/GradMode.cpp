#include <c10/core/GradMode.h>

namespace c10 {

namespace {
thread_local bool grad_mode_enabled = true;
} // namespace

bool GradMode::is_enabled() {
  return grad_mode_enabled;
}

void GradMode::set_enabled(bool enabled) {
  grad_mode_enabled = enabled;
}

} // namespace c10
