#pragma once

#include <ATen/core/TensorBody.h>
#include <ATen/native/DispatchStub.h>
#include <c10/macros/Macros.h>

namespace at {
namespace native {

// out = self + alpha * other, with numpy-style broadcasting.
using structured_binary_fn_alpha = void (*)(const Tensor& out, const Tensor& self,
                                            const Tensor& other, const Scalar& alpha);

DECLARE_DISPATCH(structured_binary_fn_alpha, add_stub);

// Maps a linear output index to the element offsets of two broadcast
// inputs. Plain data, so it can be passed by value into a CUDA kernel.
struct BroadcastOffsets {
  static constexpr int kMaxDims = 8;
  int ndim = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t a_strides[kMaxDims] = {};
  int64_t b_strides[kMaxDims] = {};

  C10_HOST_DEVICE void get(int64_t linear, int64_t* a_off, int64_t* b_off) const {
    int64_t a = 0;
    int64_t b = 0;
    for (int d = ndim - 1; d >= 0; --d) {
      const int64_t idx = linear % sizes[d];
      linear /= sizes[d];
      a += idx * a_strides[d];
      b += idx * b_strides[d];
    }
    *a_off = a;
    *b_off = b;
  }
};

// Broadcast strides of `a` and `b` against the shape of `out`.
TORCH_API BroadcastOffsets make_broadcast_offsets(const Tensor& out, const Tensor& a,
                                                  const Tensor& b);

} // namespace native
} // namespace at
