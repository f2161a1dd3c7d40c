#include <ATen/NativeFunctions.h>
#include <ATen/TensorMeta.h>
#include <ATen/core/Tensor.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAStream.h>

#include <cuda_runtime.h>

#include <cmath>

namespace at {
namespace native {

namespace {

constexpr int kSoftMaxThreads = 128;

// Block-wide reduction through shared memory; every thread gets the result.
template <typename accscalar_t, typename Op>
__device__ accscalar_t block_reduce(accscalar_t val, accscalar_t* smem, Op op) {
  smem[threadIdx.x] = val;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) smem[threadIdx.x] = op(smem[threadIdx.x], smem[threadIdx.x + s]);
    __syncthreads();
  }
  const accscalar_t out = smem[0];
  __syncthreads();
  return out;
}

struct MaxOp {
  template <typename T>
  __device__ T operator()(T a, T b) const { return a > b ? a : b; }
};
struct SumOp {
  template <typename T>
  __device__ T operator()(T a, T b) const { return a + b; }
};

// One block per row of a contiguous [rows, dim_size] view.
template <typename scalar_t, typename accscalar_t>
__global__ void cunn_SoftMaxForward(scalar_t* output, const scalar_t* input, int64_t dim_size) {
  extern __shared__ unsigned char smem_raw[];
  accscalar_t* smem = reinterpret_cast<accscalar_t*>(smem_raw);
  const scalar_t* in_row = input + static_cast<int64_t>(blockIdx.x) * dim_size;
  scalar_t* out_row = output + static_cast<int64_t>(blockIdx.x) * dim_size;

  accscalar_t local_max = -INFINITY;
  for (int64_t i = threadIdx.x; i < dim_size; i += blockDim.x) {
    local_max = max(local_max, static_cast<accscalar_t>(in_row[i]));
  }
  const accscalar_t row_max = block_reduce(local_max, smem, MaxOp());

  accscalar_t local_sum = 0;
  for (int64_t i = threadIdx.x; i < dim_size; i += blockDim.x) {
    local_sum += std::exp(static_cast<accscalar_t>(in_row[i]) - row_max);
  }
  const accscalar_t row_sum = block_reduce(local_sum, smem, SumOp());

  for (int64_t i = threadIdx.x; i < dim_size; i += blockDim.x) {
    out_row[i] = static_cast<scalar_t>(std::exp(static_cast<accscalar_t>(in_row[i]) - row_max) /
                                       row_sum);
  }
}

// Softmax over a non-last dim: one thread per (outer, inner) column.
template <typename scalar_t, typename accscalar_t>
__global__ void softmax_spatial_kernel(scalar_t* output, const scalar_t* input, int64_t outer,
                                       int64_t dim_size, int64_t inner) {
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= outer * inner) return;
  const int64_t base = (idx / inner) * dim_size * inner + idx % inner;
  accscalar_t m = -INFINITY;
  for (int64_t d = 0; d < dim_size; ++d) m = max(m, static_cast<accscalar_t>(input[base + d * inner]));
  accscalar_t sum = 0;
  for (int64_t d = 0; d < dim_size; ++d) sum += std::exp(static_cast<accscalar_t>(input[base + d * inner]) - m);
  for (int64_t d = 0; d < dim_size; ++d) {
    output[base + d * inner] =
        static_cast<scalar_t>(std::exp(static_cast<accscalar_t>(input[base + d * inner]) - m) / sum);
  }
}

} // namespace

TORCH_IMPL_FUNC(softmax_cuda_out)(const Tensor& input, int64_t dim, bool half_to_float,
                                  const Tensor& output) {
  (void)half_to_float;
  if (input.numel() == 0) return;
  const Tensor input_c = input.contiguous();
  if (input_c.dim() == 0) {
    output.fill_(1);
    return;
  }
  dim = c10::maybe_wrap_dim(dim, input_c.dim());
  const int64_t dim_size = input_c.size(dim);
  int64_t outer = 1;
  int64_t inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= input_c.size(d);
  for (int64_t d = dim + 1; d < input_c.dim(); ++d) inner *= input_c.size(d);
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream().stream();

  if (inner == 1) {
    const dim3 grid(static_cast<unsigned int>(outer));
    const dim3 block(kSoftMaxThreads);
    const size_t smem = kSoftMaxThreads * sizeof(float);
    cunn_SoftMaxForward<float, float><<<grid, block, smem, stream>>>(
        output.data_ptr<float>(), input_c.data_ptr<float>(), dim_size);
  } else {
    const int64_t columns = outer * inner;
    const dim3 block(kSoftMaxThreads);
    const dim3 grid(static_cast<unsigned int>((columns + kSoftMaxThreads - 1) / kSoftMaxThreads));
    softmax_spatial_kernel<float, float><<<grid, block, 0, stream>>>(
        output.data_ptr<float>(), input_c.data_ptr<float>(), outer, dim_size, inner);
  }
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

} // namespace native
} // namespace at
