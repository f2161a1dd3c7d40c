#include <ATen/core/Tensor.h>
#include <ATen/native/Pool.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace at::native {

namespace {

// NCHW (or CHW) max pooling; each (n, c) plane is independent. Indices are
// flat positions inside the input plane, stored in the float buffer.
template <typename scalar_t>
void cpu_max_pool(const Tensor& output, const Tensor& indices, const Tensor& input, int kW,
                  int kH, int dW, int dH, int padW, int padH, int dilationW, int dilationH) {
  const int64_t in_h = input.size(-2);
  const int64_t in_w = input.size(-1);
  const int64_t out_h = output.size(-2);
  const int64_t out_w = output.size(-1);
  const int64_t planes = input.numel() / (in_h * in_w);
  const scalar_t* in = input.data_ptr<scalar_t>();
  scalar_t* out = output.data_ptr<scalar_t>();
  scalar_t* idx = indices.data_ptr<scalar_t>();

  for (int64_t p = 0; p < planes; ++p) {
    const scalar_t* plane = in + p * in_h * in_w;
    for (int64_t oh = 0; oh < out_h; ++oh) {
      for (int64_t ow = 0; ow < out_w; ++ow) {
        int64_t hstart = oh * dH - padH;
        int64_t wstart = ow * dW - padW;
        const int64_t hend = std::min(hstart + (kH - 1) * dilationH + 1, in_h);
        const int64_t wend = std::min(wstart + (kW - 1) * dilationW + 1, in_w);
        while (hstart < 0) hstart += dilationH;
        while (wstart < 0) wstart += dilationW;

        scalar_t best = -std::numeric_limits<scalar_t>::infinity();
        int64_t best_at = hstart * in_w + wstart;
        for (int64_t h = hstart; h < hend; h += dilationH) {
          for (int64_t w = wstart; w < wend; w += dilationW) {
            const scalar_t v = plane[h * in_w + w];
            // NaN wins, so it propagates like in the real kernel
            if (v > best || std::isnan(v)) {
              best = v;
              best_at = h * in_w + w;
            }
          }
        }
        const int64_t o = p * out_h * out_w + oh * out_w + ow;
        out[o] = best;
        idx[o] = static_cast<scalar_t>(best_at);
      }
    }
  }
}

void max_pool2d_kernel_impl(const Tensor& output, const Tensor& indices, const Tensor& input,
                            int kW, int kH, int dW, int dH, int padW, int padH, int dilationW,
                            int dilationH) {
  cpu_max_pool<float>(output, indices, input, kW, kH, dW, dH, padW, padH, dilationW, dilationH);
}

} // namespace

REGISTER_DISPATCH(max_pool2d_kernel, &max_pool2d_kernel_impl);

} // namespace at::native
