#pragma once

#include <ATen/core/TensorBody.h>
#include <ATen/native/DispatchStub.h>

#include <utility>

namespace at::native {

using max_pool2d_fn = void (*)(const Tensor& output, const Tensor& indices, const Tensor& input,
                               int kW, int kH, int dW, int dH, int padW, int padH,
                               int dilationW, int dilationH);

DECLARE_DISPATCH(max_pool2d_fn, max_pool2d_kernel);

// Output extent of one pooled dimension (floor or ceil mode). In ceil mode the
// last window must still start inside the input or the left padding.
template <typename T>
inline T pooling_output_shape(T input_size, T kernel_size, T pad, T stride, T dilation,
                              bool ceil_mode) {
  TORCH_CHECK(stride != 0, "stride should not be zero");
  const T span = input_size + 2 * pad - dilation * (kernel_size - 1) - 1;
  T out = (span + (ceil_mode ? stride - 1 : 0)) / stride + 1;
  if (ceil_mode && (out - 1) * stride >= input_size + pad) {
    --out;
  }
  return out;
}

// Resolve a (kH, kW)-style argument given as 1 or 2 ints; `fallback` is used
// when the list is empty (stride defaults to the kernel size).
inline std::pair<int, int> pool_pair(IntArrayRef values, const char* name,
                                     std::pair<int, int> fallback) {
  if (values.empty()) return fallback;
  TORCH_CHECK(values.size() == 1 || values.size() == 2, "max_pool2d: ", name,
              " must either be a single int, or a tuple of two ints");
  const int first = static_cast<int>(values[0]);
  return {first, values.size() == 1 ? first : static_cast<int>(values[1])};
}

} // namespace at::native
