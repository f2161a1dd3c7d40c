#pragma once

#include <ATen/core/TensorBody.h>
#include <c10/core/DeviceType.h>
#include <c10/util/Exception.h>

#include <cstdint>
#include <utility>

namespace at {

// The bundled tree's TensorIterator, cut down to what its kernels use: the operands, the
// device to dispatch on and the number of elements, for two shapes of work over contiguous
// float tensors, an element-wise op (output and input of one size) and a full reduction
// (a one-element output). No broadcasting, no strides, no type promotion.
class TensorIteratorBase {
 public:
  const Tensor& output() const { return out_; }
  const Tensor& input() const { return in_; }
  int64_t numel() const { return in_.numel(); }
  c10::DeviceType device_type() const { return in_.device().type(); }

 protected:
  TensorIteratorBase(const Tensor& out, const Tensor& in) : out_(out), in_(in) {}

 private:
  Tensor out_;
  Tensor in_;
};

// The builders, as on the real TensorIterator; kernels take the base.
class TensorIterator final : public TensorIteratorBase {
 public:
  static TensorIterator unary_op(const Tensor& out, const Tensor& a) {
    TORCH_CHECK(out.numel() == a.numel(), "unary_op: output has ", out.numel(),
                " elements, input ", a.numel());
    TORCH_CHECK(out.is_contiguous() && a.is_contiguous(), "unary_op: expected contiguous tensors");
    return TensorIterator(out, a);
  }

  static TensorIterator reduce_op(const Tensor& out, const Tensor& a) {
    TORCH_CHECK(out.numel() == 1, "reduce_op: a full reduction has a one-element output");
    TORCH_CHECK(a.is_contiguous(), "reduce_op: expected a contiguous input");
    return TensorIterator(out, a);
  }

 private:
  TensorIterator(const Tensor& out, const Tensor& in) : TensorIteratorBase(out, in) {}
};

} // namespace at
