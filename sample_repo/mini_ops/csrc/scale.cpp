// mini_ops::scale picks the kernel by device; Counter's members.
#include "scale.h"

#include "kernels.h"

#include <c10/util/Exception.h>

namespace mini_ops {

at::Tensor scale_cpu(const at::Tensor& x, double factor) {
  TORCH_CHECK(x.is_cpu(), "scale_cpu: x must be a CPU tensor");
  const at::Tensor input = x.contiguous();
  at::Tensor out = at::empty(input.sizes(), input.options());
  const float* in = input.data_ptr<float>();
  float* dst = out.data_ptr<float>();
  const float f = static_cast<float>(factor);
  const int64_t n = input.numel();
  for (int64_t i = 0; i < n; ++i) {
    dst[i] = in[i] * f;
  }
  return out;
}

at::Tensor scale(const at::Tensor& x, double factor) {
  if (x.is_cuda()) {
    return scale_cuda(x, factor);
  }
  return scale_cpu(x, factor);
}

Counter::Counter(int start) : value_(start) {}

int Counter::step() {
  return value_++;
}

} // namespace mini_ops
