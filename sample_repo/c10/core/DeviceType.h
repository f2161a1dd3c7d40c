#pragma once

#include <cstdint>
#include <ostream>

namespace c10 {

enum class DeviceType : int8_t {
  CPU = 0,
  CUDA = 1,
  Meta = 2,
};

constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
constexpr DeviceType kMeta = DeviceType::Meta;

inline const char* DeviceTypeName(DeviceType t) {
  switch (t) {
    case DeviceType::CPU:
      return "cpu";
    case DeviceType::CUDA:
      return "cuda";
    case DeviceType::Meta:
      return "meta";
  }
  return "unknown";
}

inline std::ostream& operator<<(std::ostream& os, DeviceType t) {
  return os << DeviceTypeName(t);
}

} // namespace c10

namespace at {
using c10::DeviceType;
using c10::kCPU;
using c10::kCUDA;
} // namespace at
