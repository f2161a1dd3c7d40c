#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#include <ATen/core/Tensor.h>
#include <ATen/cuda/CUDABlas.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAStream.h>

#include <cuda_runtime.h>

namespace at::native {

namespace {

constexpr int kThreads = 256;

inline unsigned int blocks_for(int64_t n) {
  return static_cast<unsigned int>((n + kThreads - 1) / kThreads);
}

// One thread per (channel, output pixel); writes the kH*kW column entries.
template <typename scalar_t>
__global__ void im2col_kernel(const int64_t n, const scalar_t* data_im, const int64_t height,
                              const int64_t width, const int64_t kernel_h, const int64_t kernel_w,
                              const int64_t pad_h, const int64_t pad_w, const int64_t stride_h,
                              const int64_t stride_w, const int64_t height_col,
                              const int64_t width_col, scalar_t* data_col) {
  const int64_t index = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index >= n) return;
  const int64_t w_out = index % width_col;
  const int64_t h_out = (index / width_col) % height_col;
  const int64_t channel = index / (width_col * height_col);
  const int64_t h_in = h_out * stride_h - pad_h;
  const int64_t w_in = w_out * stride_w - pad_w;
  scalar_t* col = data_col + (channel * kernel_h * kernel_w * height_col + h_out) * width_col + w_out;
  const scalar_t* im = data_im + channel * height * width;
  for (int64_t i = 0; i < kernel_h; ++i) {
    for (int64_t j = 0; j < kernel_w; ++j) {
      const int64_t h = h_in + i;
      const int64_t w = w_in + j;
      *col = (h >= 0 && w >= 0 && h < height && w < width) ? im[h * width + w] : scalar_t(0);
      col += height_col * width_col;
    }
  }
}

// out[o, l] = bias[o] (or 0), ahead of a beta=1 GEMM.
template <typename scalar_t>
__global__ void fill_bias_kernel(scalar_t* out, const scalar_t* bias, int64_t out_c, int64_t L) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= out_c * L) return;
  out[i] = bias != nullptr ? bias[i / L] : scalar_t(0);
}

} // namespace

Tensor slow_conv2d_forward_cuda(const Tensor& self, const Tensor& weight_, IntArrayRef kernel_size,
                                const std::optional<Tensor>& bias_opt, IntArrayRef stride,
                                IntArrayRef padding) {
  TORCH_CHECK(self.dim() == 4 && weight_.dim() == 4, "slow_conv2d_forward_cuda: expected 4-D");
  TORCH_CHECK(kernel_size.size() == 2 && stride.size() == 2 && padding.size() == 2,
              "slow_conv2d_forward_cuda: expected two values per parameter");
  const Tensor input = self.contiguous();
  const Tensor weight = weight_.contiguous();
  const Tensor bias_t = bias_opt.value_or(Tensor());
  const Tensor bias = bias_t.defined() ? bias_t.contiguous() : bias_t;

  const int64_t N = input.size(0), C = input.size(1), H = input.size(2), W = input.size(3);
  const int64_t kH = kernel_size[0], kW = kernel_size[1];
  const int64_t out_c = weight.size(0);
  const int64_t out_h = (H + 2 * padding[0] - kH) / stride[0] + 1;
  const int64_t out_w = (W + 2 * padding[1] - kW) / stride[1] + 1;
  TORCH_CHECK(out_h > 0 && out_w > 0, "slow_conv2d_forward_cuda: output size is too small");
  const int64_t L = out_h * out_w;
  const int64_t K = C * kH * kW;

  Tensor output = at::empty({N, out_c, out_h, out_w}, input.options());
  Tensor columns = at::empty({K, L}, input.options());
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream().stream();

  for (int64_t n = 0; n < N; ++n) {
    const float* in_n = input.data_ptr<float>() + n * C * H * W;
    float* out_n = output.data_ptr<float>() + n * out_c * L;
    im2col_kernel<float><<<blocks_for(C * L), kThreads, 0, stream>>>(
        C * L, in_n, H, W, kH, kW, padding[0], padding[1], stride[0], stride[1], out_h, out_w,
        columns.data_ptr<float>());
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    fill_bias_kernel<float><<<blocks_for(out_c * L), kThreads, 0, stream>>>(
        out_n, bias.defined() ? bias.data_ptr<float>() : nullptr, out_c, L);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    // out[O, L] += weight[O, K] @ columns[K, L], written column-major
    at::cuda::blas::gemm<float>('n', 'n', L, out_c, K, 1.0f, columns.data_ptr<float>(), L,
                                weight.data_ptr<float>(), K, 1.0f, out_n, L);
  }
  return output;
}

} // namespace at::native
