#pragma once

// Helpers the generated Register<Key>.cpp wrappers call before running a
// backend kernel: every tensor argument of a CUDA kernel must live on the
// same device (unless native_functions.yaml says `device_check: NoCheck`).

#include <ATen/core/TensorBody.h>
#include <c10/core/Device.h>
#include <c10/util/Exception.h>

#include <optional>

namespace c10 {
namespace impl {

[[noreturn]] inline void common_device_check_failure(Device common_device, const at::Tensor& tensor,
                                                     const char* methodName,
                                                     const char* argName) {
  throw Error(str("Expected all tensors to be on the same device, but found at least two devices, ",
                  common_device, " and ", tensor.device(), "! (when checking argument for argument ",
                  argName, " in method ", methodName, ")"),
              __FILE__, __LINE__);
}

inline void check_and_update_common_device(std::optional<Device>& common_device,
                                           const at::Tensor& tensor, const char* methodName,
                                           const char* argName) {
  if (!tensor.defined()) return;
  if (!common_device.has_value()) {
    common_device = tensor.device();
    return;
  }
  if (C10_UNLIKELY(*common_device != tensor.device())) {
    common_device_check_failure(*common_device, tensor, methodName, argName);
  }
}

inline void check_and_update_common_device(std::optional<Device>& common_device,
                                           const std::optional<at::Tensor>& tensor,
                                           const char* methodName, const char* argName) {
  if (tensor.has_value()) check_and_update_common_device(common_device, *tensor, methodName, argName);
}

inline void check_and_update_common_device(std::optional<Device>& common_device,
                                           at::TensorList tensors, const char* methodName,
                                           const char* argName) {
  for (const at::Tensor& tensor : tensors) {
    check_and_update_common_device(common_device, tensor, methodName, argName);
  }
}

} // namespace impl
} // namespace c10
