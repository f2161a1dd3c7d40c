#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/CPUBlas.h>
#include <ATen/native/ConvUtils.h>

namespace at::native {

namespace {

struct Conv2dGeometry {
  int64_t n, c, h, w;          // input
  int64_t out_c, out_h, out_w; // output
  int64_t kH, kW, dH, dW, padH, padW;
};

Conv2dGeometry slow_conv2d_shape_check(const Tensor& input, const Tensor& weight,
                                       IntArrayRef kernel_size, IntArrayRef stride,
                                       IntArrayRef padding) {
  TORCH_CHECK(kernel_size.size() == 2 && stride.size() == 2 && padding.size() == 2,
              "slow_conv2d: kernel_size, stride and padding must have two values");
  TORCH_CHECK(input.dim() == 4, "slow_conv2d: expected 4-D input, got ", input.dim(), "-D");
  TORCH_CHECK(weight.dim() == 4 && weight.size(1) == input.size(1),
              "slow_conv2d: weight ", weight.sizes(), " does not match input ", input.sizes());
  Conv2dGeometry g{};
  g.n = input.size(0);
  g.c = input.size(1);
  g.h = input.size(2);
  g.w = input.size(3);
  g.kH = kernel_size[0];
  g.kW = kernel_size[1];
  g.dH = stride[0];
  g.dW = stride[1];
  g.padH = padding[0];
  g.padW = padding[1];
  TORCH_CHECK(g.dH > 0 && g.dW > 0, "slow_conv2d: stride must be positive");
  g.out_c = weight.size(0);
  g.out_h = (g.h + 2 * g.padH - g.kH) / g.dH + 1;
  g.out_w = (g.w + 2 * g.padW - g.kW) / g.dW + 1;
  TORCH_CHECK(g.out_h > 0 && g.out_w > 0, "slow_conv2d: computed output size ", g.out_h, "x",
              g.out_w, " is too small");
  return g;
}

// im2col for one image: columns is [C*kH*kW, out_h*out_w], zero outside.
template <typename scalar_t>
void unfold2d(const scalar_t* input, scalar_t* columns, const Conv2dGeometry& g) {
  const int64_t L = g.out_h * g.out_w;
  for (int64_t c = 0; c < g.c; ++c) {
    for (int64_t ki = 0; ki < g.kH; ++ki) {
      for (int64_t kj = 0; kj < g.kW; ++kj) {
        scalar_t* row = columns + ((c * g.kH + ki) * g.kW + kj) * L;
        for (int64_t oh = 0; oh < g.out_h; ++oh) {
          const int64_t ih = oh * g.dH - g.padH + ki;
          for (int64_t ow = 0; ow < g.out_w; ++ow) {
            const int64_t iw = ow * g.dW - g.padW + kj;
            const bool inside = ih >= 0 && ih < g.h && iw >= 0 && iw < g.w;
            row[oh * g.out_w + ow] = inside ? input[(c * g.h + ih) * g.w + iw] : scalar_t(0);
          }
        }
      }
    }
  }
}

// output_frame[O, L] = bias + weight2d[O, K] @ columns[K, L]
template <typename scalar_t>
void slow_conv2d_update_output_frame(const scalar_t* input_frame, scalar_t* output_frame,
                                     const scalar_t* weight2d, const scalar_t* bias,
                                     scalar_t* columns, const Conv2dGeometry& g) {
  unfold2d(input_frame, columns, g);
  const int64_t L = g.out_h * g.out_w;
  const int64_t K = g.c * g.kH * g.kW;
  for (int64_t o = 0; o < g.out_c; ++o) {
    const scalar_t b = bias != nullptr ? bias[o] : scalar_t(0);
    for (int64_t l = 0; l < L; ++l) output_frame[o * L + l] = b;
  }
  // Row-major product expressed as column-major: out^T = columns^T @ weight2d^T.
  cpublas::gemm(cpublas::TransposeType::NoTranspose, cpublas::TransposeType::NoTranspose, L,
                g.out_c, K, scalar_t(1), columns, L, weight2d, K, scalar_t(1), output_frame, L);
}

void slow_conv2d_forward_out_cpu_template(const Tensor& output, const Tensor& input,
                                          const Tensor& weight, const Tensor& bias,
                                          const Conv2dGeometry& g) {
  const int64_t K = g.c * g.kH * g.kW;
  const int64_t L = g.out_h * g.out_w;
  Tensor columns = at::empty({K, L}, input.options());
  const float* in = input.data_ptr<float>();
  float* out = output.data_ptr<float>();
  const float* b = bias.defined() ? bias.data_ptr<float>() : nullptr;
  for (int64_t n = 0; n < g.n; ++n) {
    slow_conv2d_update_output_frame<float>(in + n * g.c * g.h * g.w, out + n * g.out_c * L,
                                           weight.data_ptr<float>(), b,
                                           columns.data_ptr<float>(), g);
  }
}

} // namespace

Tensor slow_conv2d_forward_cpu(const Tensor& self, const Tensor& weight, IntArrayRef kernel_size,
                               const std::optional<Tensor>& bias_opt, IntArrayRef stride,
                               IntArrayRef padding) {
  const Tensor bias = bias_opt.value_or(Tensor());
  const Conv2dGeometry g = slow_conv2d_shape_check(self, weight, kernel_size, stride, padding);
  const Tensor input = self.contiguous();
  const Tensor weight_c = weight.contiguous();
  const Tensor bias_c = bias.defined() ? bias.contiguous() : bias;
  Tensor output = at::empty({g.n, g.out_c, g.out_h, g.out_w}, input.options());
  slow_conv2d_forward_out_cpu_template(output, input, weight_c, bias_c, g);
  return output;
}

} // namespace at::native
