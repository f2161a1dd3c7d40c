#include <ATen/core/Tensor.h>
#include <ATen/native/cpu/SoftmaxKernel.h>

#include <algorithm>
#include <cmath>

namespace at {
namespace native {

namespace {

// Numerically stable softmax of `size` elements spaced `step` apart.
template <typename scalar_t>
inline void softmax_strided(const scalar_t* in, scalar_t* out, int64_t size, int64_t step) {
  scalar_t max_v = in[0];
  for (int64_t i = 1; i < size; ++i) max_v = std::max(max_v, in[i * step]);
  scalar_t sum = 0;
  for (int64_t i = 0; i < size; ++i) {
    const scalar_t e = std::exp(in[i * step] - max_v);
    out[i * step] = e;
    sum += e;
  }
  const scalar_t inv = scalar_t(1) / sum;
  for (int64_t i = 0; i < size; ++i) out[i * step] *= inv;
}

void softmax_lastdim_kernel_impl(const Tensor& result, const Tensor& self) {
  const int64_t dim_size = self.size(-1);
  const int64_t rows = self.numel() / dim_size;
  const float* in = self.data_ptr<float>();
  float* out = result.data_ptr<float>();
  for (int64_t r = 0; r < rows; ++r) {
    softmax_strided<float>(in + r * dim_size, out + r * dim_size, dim_size, 1);
  }
}

void softmax_kernel_impl(const Tensor& result, const Tensor& self, int64_t dim) {
  int64_t outer = 1;
  int64_t inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= self.size(d);
  for (int64_t d = dim + 1; d < self.dim(); ++d) inner *= self.size(d);
  const int64_t dim_size = self.size(dim);
  const float* in = self.data_ptr<float>();
  float* out = result.data_ptr<float>();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * dim_size * inner + i;
      softmax_strided<float>(in + base, out + base, dim_size, inner);
    }
  }
}

} // namespace

REGISTER_DISPATCH(softmax_lastdim_kernel, &softmax_lastdim_kernel_impl);
REGISTER_DISPATCH(softmax_kernel, &softmax_kernel_impl);

} // namespace native
} // namespace at
