#pragma once

#include <cstdint>
#include <ostream>
#include <type_traits>

namespace c10 {

// A number passed by value into an op (alpha, beta, fill value...).
// Everything is held as double; integral-ness is remembered for printing.
class Scalar {
 public:
  Scalar() : Scalar(int64_t(0)) {}

  template <typename T, typename std::enable_if_t<std::is_arithmetic<T>::value, int> = 0>
  /*implicit*/ Scalar(T v) : v_(static_cast<double>(v)), is_integral_(std::is_integral<T>::value) {}

  double toDouble() const { return v_; }
  float toFloat() const { return static_cast<float>(v_); }
  int64_t toLong() const { return static_cast<int64_t>(v_); }
  bool isIntegral() const { return is_integral_; }

  template <typename T>
  T to() const {
    return static_cast<T>(v_);
  }

  bool equal(double other) const { return v_ == other; }

 private:
  double v_;
  bool is_integral_;
};

inline std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  if (s.isIntegral()) return os << s.toLong();
  return os << s.toDouble();
}

} // namespace c10

namespace at {
using c10::Scalar;
} // namespace at
