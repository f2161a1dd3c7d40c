#include <ATen/Context.h>

namespace at {

Context& globalContext() {
  static Context ctx;
  return ctx;
}

} // namespace at
