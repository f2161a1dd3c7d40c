// The mini_ops::clamp_add operator: its schema, and its CPU kernel. The CUDA
// kernel is registered in kernels.cu.
#include <torch/library.h>

#include "kernels.h"

#include <c10/util/Exception.h>

namespace mini_ops {

// min(max(x + y, kClampLow), kClampHigh), elementwise.
at::Tensor clamp_add_cpu(const at::Tensor& x, const at::Tensor& y) {
  TORCH_CHECK(x.is_cpu() && y.is_cpu(), "clamp_add_cpu: inputs must be CPU tensors");
  TORCH_CHECK(x.numel() == y.numel(), "clamp_add_cpu: inputs must have the same size");
  const at::Tensor a = x.contiguous();
  const at::Tensor b = y.contiguous();
  at::Tensor out = at::empty(a.sizes(), a.options());
  const float* pa = a.data_ptr<float>();
  const float* pb = b.data_ptr<float>();
  float* dst = out.data_ptr<float>();
  const int64_t n = a.numel();
  for (int64_t i = 0; i < n; ++i) {
    const float v = pa[i] + pb[i];
    dst[i] = v < kClampLow ? kClampLow : (v > kClampHigh ? kClampHigh : v);
  }
  return out;
}

TORCH_LIBRARY(mini_ops, m) {
  m.def("clamp_add(Tensor x, Tensor y) -> Tensor");
}

TORCH_LIBRARY_IMPL(mini_ops, CPU, m) {
  m.impl("clamp_add", TORCH_FN(clamp_add_cpu));
}

} // namespace mini_ops
