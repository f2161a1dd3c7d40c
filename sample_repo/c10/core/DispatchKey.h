#pragma once

#include <c10/core/DeviceType.h>

#include <cstdint>
#include <ostream>

namespace c10 {

// The keys a kernel can be registered under. Backend keys name a device;
// the Composite* keys are the "alias" keys of native_functions.yaml, used
// when no kernel exists for the backend itself:
//   CompositeExplicitAutograd: one kernel that works for every backend;
//   CompositeImplicitAutograd: a decomposition into other operators.
// The sample tree has no autograd keys: the runtime only runs forward.
enum class DispatchKey : uint8_t {
  Undefined = 0,
  CPU,
  CUDA,
  CompositeExplicitAutograd,
  CompositeImplicitAutograd,
  NumDispatchKeys, // not a key: the size of per-key tables
};

constexpr int kNumDispatchKeys = static_cast<int>(DispatchKey::NumDispatchKeys);

inline const char* toString(DispatchKey k) {
  switch (k) {
    case DispatchKey::Undefined:
      return "Undefined";
    case DispatchKey::CPU:
      return "CPU";
    case DispatchKey::CUDA:
      return "CUDA";
    case DispatchKey::CompositeExplicitAutograd:
      return "CompositeExplicitAutograd";
    case DispatchKey::CompositeImplicitAutograd:
      return "CompositeImplicitAutograd";
    case DispatchKey::NumDispatchKeys:
      break;
  }
  return "UNKNOWN_DISPATCH_KEY";
}

inline std::ostream& operator<<(std::ostream& os, DispatchKey k) {
  return os << toString(k);
}

// The backend key of tensors that live on `t`.
inline DispatchKey computeDispatchKeyFromDeviceType(DeviceType t) {
  switch (t) {
    case DeviceType::CPU:
      return DispatchKey::CPU;
    case DeviceType::CUDA:
      return DispatchKey::CUDA;
    case DeviceType::Meta:
      break;
  }
  return DispatchKey::Undefined;
}

inline bool isBackendDispatchKey(DispatchKey k) {
  return k == DispatchKey::CPU || k == DispatchKey::CUDA;
}

} // namespace c10
