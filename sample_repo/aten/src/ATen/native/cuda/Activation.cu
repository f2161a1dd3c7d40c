#include <ATen/core/Tensor.h>
#include <ATen/native/Activation.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAStream.h>

#include <cuda_runtime.h>

namespace at {
namespace native {

__global__ void relu_cuda_kernel(const float* in, float* out, int64_t n) {
  // grid-stride loop so any launch size covers n
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const float v = in[i];
    out[i] = v < 0.0f ? 0.0f : v;
  }
}

static void relu_kernel_cuda(const Tensor& result, const Tensor& self) {
  const int64_t n = self.numel();
  if (n == 0) return;
  const int threads = 256;
  const int64_t wanted = (n + threads - 1) / threads;
  const int blocks = static_cast<int>(wanted < 65535 ? wanted : 65535);
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream().stream();
  relu_cuda_kernel<<<blocks, threads, 0, stream>>>(self.data_ptr<float>(),
                                                   result.data_ptr<float>(), n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

REGISTER_DISPATCH(relu_stub, &relu_kernel_cuda);

} // namespace native
} // namespace at
