#pragma once

#include <ATen/core/TensorBody.h>
#include <ATen/native/DispatchStub.h>

namespace at {
namespace native {

// result = max(self, 0); result may be self (in-place).
using relu_fn = void (*)(const Tensor& result, const Tensor& self);

DECLARE_DISPATCH(relu_fn, relu_stub);

} // namespace native
} // namespace at
