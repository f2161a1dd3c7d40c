#pragma once

#include <c10/macros/Export.h>

#include <sstream>
#include <stdexcept>
#include <string>

namespace c10 {

// Error type thrown by every failed TORCH_CHECK.
class C10_API Error : public std::runtime_error {
 public:
  Error(const std::string& msg, const char* file, int line);
  const std::string& what_without_location() const { return msg_; }

 private:
  std::string msg_;
};

namespace detail {

inline void append_all(std::ostringstream&) {}

template <typename T, typename... Rest>
void append_all(std::ostringstream& os, const T& first, const Rest&... rest) {
  os << first;
  append_all(os, rest...);
}

[[noreturn]] C10_API void torchCheckFail(const char* func, const char* file, int line,
                                         const std::string& msg);

} // namespace detail

// Glue any streamable values into one string.
template <typename... Args>
std::string str(const Args&... args) {
  std::ostringstream os;
  detail::append_all(os, args...);
  return os.str();
}

} // namespace c10

#define TORCH_CHECK(cond, ...)                                               \
  if (C10_UNLIKELY(!(cond))) {                                               \
    ::c10::detail::torchCheckFail(                                           \
        __func__, __FILE__, __LINE__,                                        \
        ::c10::str("Expected " #cond " to be true. ", ##__VA_ARGS__));       \
  }

#define TORCH_INTERNAL_ASSERT(cond, ...) \
  TORCH_CHECK(cond, "INTERNAL ASSERT FAILED. ", ##__VA_ARGS__)

#define TORCH_CHECK_NOT_IMPLEMENTED(cond, ...) \
  TORCH_CHECK(cond, "not implemented: ", ##__VA_ARGS__)

#define AT_ERROR(...) \
  ::c10::detail::torchCheckFail(__func__, __FILE__, __LINE__, ::c10::str(__VA_ARGS__))
