#pragma once

#include <c10/core/DeviceType.h>

#include <cstdint>
#include <ostream>

namespace c10 {

using DeviceIndex = int8_t;

// A device kind plus an ordinal (-1 = "current device").
struct Device {
  /*implicit*/ constexpr Device(DeviceType type, DeviceIndex index = -1)
      : type_(type), index_(index) {}

  constexpr DeviceType type() const { return type_; }
  constexpr DeviceIndex index() const { return index_; }
  constexpr bool has_index() const { return index_ >= 0; }
  constexpr bool is_cuda() const { return type_ == DeviceType::CUDA; }
  constexpr bool is_cpu() const { return type_ == DeviceType::CPU; }

  bool operator==(const Device& o) const { return type_ == o.type_ && index_ == o.index_; }
  bool operator!=(const Device& o) const { return !(*this == o); }

 private:
  DeviceType type_;
  DeviceIndex index_;
};

inline std::ostream& operator<<(std::ostream& os, const Device& d) {
  os << d.type();
  if (d.has_index()) os << ":" << static_cast<int>(d.index());
  return os;
}

} // namespace c10

namespace at {
using c10::Device;
} // namespace at
