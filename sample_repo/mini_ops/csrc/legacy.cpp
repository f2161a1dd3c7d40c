// mini_ops_legacy::soft_square, registered the old way (RegisterOperators)
// and differentiated by a C++ autograd Function.
//
// soft_square(x) = x * x / (1 + |x|): quadratic near zero, linear far out.
#include <torch/library.h>

#include "kernels.h"

#include <c10/util/Exception.h>

namespace mini_ops {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

at::Tensor soft_square_cpu(const at::Tensor& x) {
  TORCH_CHECK(x.is_cpu(), "soft_square_cpu: x must be a CPU tensor");
  const at::Tensor input = x.contiguous();
  at::Tensor out = at::empty(input.sizes(), input.options());
  const float* in = input.data_ptr<float>();
  float* dst = out.data_ptr<float>();
  const int64_t n = input.numel();
  for (int64_t i = 0; i < n; ++i) {
    const float v = in[i];
    const float a = v < 0.0f ? -v : v;
    dst[i] = v * v / (1.0f + a);
  }
  return out;
}

struct SoftSquare : public torch::autograd::Function<SoftSquare> {
  static variable_list forward(AutogradContext* ctx, const at::Tensor& x) {
    if (ctx != nullptr) {
      ctx->save_for_backward({x});
    }
    if (x.is_cuda()) {
      return {soft_square_cuda(x)};
    }
    return {soft_square_cpu(x)};
  }

  // d/dx = x * (2 + |x|) / (1 + |x|)^2. Runs on the host: the sample's CUDA
  // memory is host memory.
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const at::Tensor x = ctx->get_saved_variables()[0].contiguous();
    const at::Tensor grad = grads[0].contiguous();
    at::Tensor grad_x = at::empty(x.sizes(), x.options());
    const float* px = x.data_ptr<float>();
    const float* pg = grad.data_ptr<float>();
    float* dst = grad_x.data_ptr<float>();
    const int64_t n = x.numel();
    for (int64_t i = 0; i < n; ++i) {
      const float v = px[i];
      const float a = v < 0.0f ? -v : v;
      dst[i] = pg[i] * v * (2.0f + a) / ((1.0f + a) * (1.0f + a));
    }
    return {grad_x};
  }
};

// The operator's kernel: one tensor in, one out.
at::Tensor soft_square_op(const at::Tensor& x) {
  return SoftSquare::apply(x)[0];
}

static auto registry =
    torch::RegisterOperators().op("mini_ops_legacy::soft_square(Tensor x) -> Tensor",
                                  &soft_square_op);

} // namespace mini_ops
