// CUDA kernels of mini_ops and their host launchers; also registers the CUDA
// kernel of the mini_ops::clamp_add operator.
#include <torch/extension.h>
#include <c10/cuda/CUDAException.h>

#include <cuda_runtime.h>

#include "kernels.h"

namespace mini_ops {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;

__global__ void scale_kernel(const float* in, float* out, float factor, int64_t n) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    out[i] = in[i] * factor;
  }
}

__global__ void clamp_add_kernel(const float* a, const float* b, float* out, int64_t n) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const float v = a[i] + b[i];
    out[i] = v < kClampLow ? kClampLow : (v > kClampHigh ? kClampHigh : v);
  }
}

__global__ void soft_square_kernel(const float* in, float* out, int64_t n) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const float v = in[i];
    const float a = v < 0.0f ? -v : v;
    out[i] = v * v / (1.0f + a);
  }
}

at::Tensor scale_cuda(const at::Tensor& x, double factor) {
  TORCH_CHECK(x.is_cuda(), "scale_cuda: x must be a CUDA tensor");
  const at::Tensor input = x.contiguous();
  at::Tensor out = at::empty(input.sizes(), input.options());
  const int64_t n = input.numel();
  if (n == 0) return out;
  const int threads = kThreads;
  const int64_t wanted = (n + threads - 1) / threads;
  const int blocks = static_cast<int>(wanted < kMaxBlocks ? wanted : kMaxBlocks);
  scale_kernel<<<blocks, threads>>>(input.data_ptr<float>(), out.data_ptr<float>(),
                                    static_cast<float>(factor), n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

at::Tensor clamp_add_cuda(const at::Tensor& x, const at::Tensor& y) {
  TORCH_CHECK(x.is_cuda() && y.is_cuda(), "clamp_add_cuda: inputs must be CUDA tensors");
  TORCH_CHECK(x.numel() == y.numel(), "clamp_add_cuda: inputs must have the same size");
  const at::Tensor a = x.contiguous();
  const at::Tensor b = y.contiguous();
  at::Tensor out = at::empty(a.sizes(), a.options());
  const int64_t n = a.numel();
  if (n == 0) return out;
  const int threads = kThreads;
  const int64_t wanted = (n + threads - 1) / threads;
  const int blocks = static_cast<int>(wanted < kMaxBlocks ? wanted : kMaxBlocks);
  clamp_add_kernel<<<blocks, threads>>>(a.data_ptr<float>(), b.data_ptr<float>(),
                                        out.data_ptr<float>(), n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

at::Tensor soft_square_cuda(const at::Tensor& x) {
  TORCH_CHECK(x.is_cuda(), "soft_square_cuda: x must be a CUDA tensor");
  const at::Tensor input = x.contiguous();
  at::Tensor out = at::empty(input.sizes(), input.options());
  const int64_t n = input.numel();
  if (n == 0) return out;
  const int threads = kThreads;
  const int64_t wanted = (n + threads - 1) / threads;
  const int blocks = static_cast<int>(wanted < kMaxBlocks ? wanted : kMaxBlocks);
  soft_square_kernel<<<blocks, threads>>>(input.data_ptr<float>(), out.data_ptr<float>(), n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

TORCH_LIBRARY_IMPL(mini_ops, CUDA, m) {
  m.impl("clamp_add", &clamp_add_cuda);
}

} // namespace mini_ops
