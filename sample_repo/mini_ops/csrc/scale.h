// mini_ops::scale, the function the pybind11 module exposes as _C.scale, and
// Counter, the class it exposes as _C.Counter.
#pragma once

#include <ATen/ATen.h>

namespace mini_ops {

// x * factor, computed on x's device (scale_cuda or scale_cpu).
at::Tensor scale(const at::Tensor& x, double factor);

// The host loop behind scale for CPU tensors.
at::Tensor scale_cpu(const at::Tensor& x, double factor);

// A stateful object owned by Python: step() returns the next value.
struct Counter {
  explicit Counter(int start);
  int step();

 private:
  int value_;
};

} // namespace mini_ops
