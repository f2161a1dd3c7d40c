#include <ATen/core/Tensor.h>
#include <ATen/native/BinaryOps.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAStream.h>

#include <cuda_runtime.h>

namespace at::native {

namespace {

constexpr int kAddThreads = 256;

template <typename scalar_t>
__global__ void add_broadcast_kernel(int64_t n, BroadcastOffsets offsets, const scalar_t* a,
                                     const scalar_t* b, scalar_t alpha, scalar_t* out) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int64_t ao = 0;
  int64_t bo = 0;
  offsets.get(i, &ao, &bo);
  out[i] = a[ao] + alpha * b[bo];
}

void add_kernel_cuda(const Tensor& out, const Tensor& self, const Tensor& other,
                     const Scalar& alpha) {
  const int64_t n = out.numel();
  if (n == 0) return;
  TORCH_CHECK(out.is_contiguous(), "add_kernel_cuda: out must be contiguous");
  // A broadcast input sharing memory with `out` would be overwritten while
  // other threads still read it; copy such an input first.
  auto unalias = [&](const Tensor& t) {
    return (t.data_ptr() == out.data_ptr() && t.numel() != n) ? t.clone() : t;
  };
  const Tensor a = unalias(self);
  const Tensor b = unalias(other);
  const BroadcastOffsets offsets = make_broadcast_offsets(out, a, b);
  const dim3 block(kAddThreads);
  const dim3 grid(static_cast<unsigned int>((n + kAddThreads - 1) / kAddThreads));
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream().stream();
  add_broadcast_kernel<float><<<grid, block, 0, stream>>>(
      n, offsets, a.data_ptr<float>(), b.data_ptr<float>(), alpha.toFloat(),
      out.data_ptr<float>());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

} // namespace

REGISTER_DISPATCH(add_stub, &add_kernel_cuda);

} // namespace at::native
