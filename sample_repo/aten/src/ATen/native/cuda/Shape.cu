// Concatenation copies, launched as PyTorch's Shape.cu launches them: two sibling
// function-local macros in one function, one per kernel, each invoked in a switch.
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAStream.h>

#include <cuda_runtime.h>

#include <cstdint>

namespace at::native {
namespace {

template <typename T, int Dims>
__global__ void CatArrayBatchedCopy(const T* input, T* output, int64_t n, int64_t offset) {
  for (int64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    output[offset + i] = input[i];
  }
}

// The same copy for inputs aligned to 16 bytes (a wider load on a real device).
template <typename T, int Dims>
__global__ void CatArrayBatchedCopy_aligned16(const T* input, T* output, int64_t n, int64_t offset) {
  for (int64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    output[offset + i] = input[i];
  }
}

} // namespace

void parallel_cat(const float* input, float* output, int64_t n, int64_t offset, int dims, bool aligned) {
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream().stream();
  const unsigned int blocks = static_cast<unsigned int>((n + 127) / 128);
#define HANDLE_CASE_ALIGNED(DIMS) \
  CatArrayBatchedCopy_aligned16<float, DIMS><<<blocks, 128, 0, stream>>>(input, output, n, offset);
#define HANDLE_CASE(DIMS) \
  CatArrayBatchedCopy<float, DIMS><<<blocks, 128, 0, stream>>>(input, output, n, offset);
  if (aligned) {
    switch (dims) {
      case 1:
        HANDLE_CASE_ALIGNED(1);
        break;
      default:
        HANDLE_CASE_ALIGNED(2);
        break;
    }
  } else {
    switch (dims) {
      case 1:
        HANDLE_CASE(1);
        break;
      default:
        HANDLE_CASE(2);
        break;
    }
  }
#undef HANDLE_CASE
#undef HANDLE_CASE_ALIGNED
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

} // namespace at::native
