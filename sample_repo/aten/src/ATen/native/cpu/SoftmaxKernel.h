#pragma once

#include <ATen/core/TensorBody.h>
#include <ATen/native/DispatchStub.h>

namespace at {
namespace native {

// Softmax over the last dim of a contiguous input.
using forward_fn = void (*)(const Tensor& result, const Tensor& self);
// Softmax over an arbitrary dim of a contiguous input.
using forward_fn_with_dim = void (*)(const Tensor& result, const Tensor& self, int64_t dim);

DECLARE_DISPATCH(forward_fn, softmax_lastdim_kernel);
DECLARE_DISPATCH(forward_fn_with_dim, softmax_kernel);

} // namespace native
} // namespace at
