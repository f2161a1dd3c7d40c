#pragma once

#include <cstdint>
#include <ostream>

namespace c10 {

// Element types known to the sample tree. Storage is always float; the tag is
// kept so dtype checks and dispatch macros read like the real thing.
enum class ScalarType : int8_t {
  Float = 0,
  Double = 1,
  Long = 2,
  Bool = 3,
};

constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kBool = ScalarType::Bool;

inline const char* toString(ScalarType t) {
  switch (t) {
    case ScalarType::Float:
      return "Float";
    case ScalarType::Double:
      return "Double";
    case ScalarType::Long:
      return "Long";
    case ScalarType::Bool:
      return "Bool";
  }
  return "Undefined";
}

inline bool isFloatingType(ScalarType t) {
  return t == ScalarType::Float || t == ScalarType::Double;
}

inline std::ostream& operator<<(std::ostream& os, ScalarType t) {
  return os << toString(t);
}

} // namespace c10

namespace at {
using c10::ScalarType;
using c10::kFloat;
using c10::kDouble;
using c10::kLong;
using c10::kBool;
} // namespace at
