#pragma once

#include <c10/core/Device.h>
#include <c10/core/Layout.h>
#include <c10/core/ScalarType.h>

#include <optional>

namespace c10 {

// Builder-style bundle of dtype / device / layout used by factory functions.
struct TensorOptions {
  TensorOptions() = default;
  /*implicit*/ TensorOptions(Device d) : device_(d) {}
  /*implicit*/ TensorOptions(DeviceType t) : device_(Device(t)) {}
  /*implicit*/ TensorOptions(ScalarType s) : dtype_(s) {}

  TensorOptions device(Device d) const {
    TensorOptions r = *this;
    r.device_ = d;
    return r;
  }
  TensorOptions dtype(ScalarType s) const {
    TensorOptions r = *this;
    r.dtype_ = s;
    return r;
  }
  TensorOptions layout(Layout l) const {
    TensorOptions r = *this;
    r.layout_ = l;
    return r;
  }

  Device device() const { return device_; }
  ScalarType dtype() const { return dtype_; }
  Layout layout() const { return layout_; }
  DeviceType device_type() const { return device_.type(); }

  std::optional<Device> device_opt() const { return device_; }
  std::optional<ScalarType> dtype_opt() const { return dtype_; }
  std::optional<Layout> layout_opt() const { return layout_; }

 private:
  Device device_ = Device(DeviceType::CPU);
  ScalarType dtype_ = ScalarType::Float;
  Layout layout_ = Layout::Strided;
};

inline TensorOptions device(Device d) {
  return TensorOptions(d);
}
inline TensorOptions dtype(ScalarType s) {
  return TensorOptions(s);
}

} // namespace c10

namespace at {
using c10::TensorOptions;
} // namespace at
