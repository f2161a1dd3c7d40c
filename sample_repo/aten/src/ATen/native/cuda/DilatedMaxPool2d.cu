#include <ATen/NativeFunctions.h>
#include <ATen/TensorMeta.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/Pool.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAStream.h>

#include <cuda_runtime.h>

#include <cmath>

namespace at::native {

namespace {

// One thread per output element of an NCHW tensor.
template <typename scalar_t, typename accscalar_t>
__global__ void max_pool_forward_nchw(const int64_t nthreads, const scalar_t* bottom_data,
                                      const int64_t in_h, const int64_t in_w,
                                      const int64_t out_h, const int64_t out_w, int kH, int kW,
                                      int dH, int dW, int padH, int padW, int dilationH,
                                      int dilationW, scalar_t* top_data, scalar_t* top_mask) {
  const int64_t index = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index >= nthreads) return;
  const int64_t ow = index % out_w;
  const int64_t oh = (index / out_w) % out_h;
  const int64_t plane = index / (out_w * out_h);
  int64_t hstart = oh * dH - padH;
  int64_t wstart = ow * dW - padW;
  const int64_t hend = min(hstart + (kH - 1) * dilationH + 1, in_h);
  const int64_t wend = min(wstart + (kW - 1) * dilationW + 1, in_w);
  while (hstart < 0) hstart += dilationH;
  while (wstart < 0) wstart += dilationW;

  const scalar_t* src = bottom_data + plane * in_h * in_w;
  accscalar_t best = -INFINITY;
  int64_t best_at = hstart * in_w + wstart;
  for (int64_t h = hstart; h < hend; h += dilationH) {
    for (int64_t w = wstart; w < wend; w += dilationW) {
      const accscalar_t v = static_cast<accscalar_t>(src[h * in_w + w]);
      if (v > best || isnan(v)) {
        best = v;
        best_at = h * in_w + w;
      }
    }
  }
  top_data[index] = static_cast<scalar_t>(best);
  top_mask[index] = static_cast<scalar_t>(best_at);
}

} // namespace

TORCH_IMPL_FUNC(max_pool2d_with_indices_out_cuda)(const Tensor& input_, IntArrayRef kernel_size,
                                                  IntArrayRef stride, IntArrayRef padding,
                                                  IntArrayRef dilation, bool ceil_mode,
                                                  const Tensor& output, const Tensor& indices) {
  (void)ceil_mode;
  const auto [kH, kW] = pool_pair(kernel_size, "kernel_size", {0, 0});
  const auto [dH, dW] = pool_pair(stride, "stride", {kH, kW});
  const auto [padH, padW] = pool_pair(padding, "padding", {0, 0});
  const auto [dilationH, dilationW] = pool_pair(dilation, "dilation", {1, 1});

  const Tensor input = input_.contiguous();
  const int64_t count = output.numel();
  if (count == 0) return;
  const int threads = 256;
  const dim3 grid(static_cast<unsigned int>((count + threads - 1) / threads));
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream().stream();
  max_pool_forward_nchw<float, float><<<grid, threads, 0, stream>>>(
      count, input.data_ptr<float>(), input.size(-2), input.size(-1), output.size(-2),
      output.size(-1), kH, kW, dH, dW, padH, padW, dilationH, dilationW,
      output.data_ptr<float>(), indices.data_ptr<float>());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

} // namespace at::native
