#include <c10/util/Exception.h>

namespace c10 {

Error::Error(const std::string& msg, const char* file, int line)
    : std::runtime_error(str(msg, " (", file, ":", line, ")")), msg_(msg) {}

namespace detail {

void torchCheckFail(const char* func, const char* file, int line, const std::string& msg) {
  throw ::c10::Error(str(func, ": ", msg), file, line);
}

} // namespace detail
} // namespace c10
