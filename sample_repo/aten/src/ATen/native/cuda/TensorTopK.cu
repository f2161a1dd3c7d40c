// The k largest of each slice, launched as PyTorch's TensorTopK.cu launches: nested
// function-local macros, one of whose arguments is the function to call (RUN_K's
// LAUNCH_FUNCTION_NAME is mbtopk::launch or sbtopk::launch).
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAStream.h>

#include <cuda_runtime.h>

#include <cstdint>

namespace at::native {

namespace sbtopk { // one block per slice

// The first k elements of each slice (the selection itself is left out).
template <typename T, typename IndexType, int Dim>
__global__ void gatherTopK(const T* input, IndexType slice_size, IndexType k, T* values) {
  const IndexType slice = blockIdx.x;
  for (IndexType i = threadIdx.x; i < k; i += blockDim.x) {
    values[slice * k + i] = input[slice * slice_size + i];
  }
}

template <typename T, typename IndexType, int Dim>
void launch(const T* input, IndexType slice_size, IndexType k, IndexType num_slices, T* values,
            cudaStream_t stream) {
  gatherTopK<T, IndexType, Dim><<<static_cast<unsigned int>(num_slices), 32, 0, stream>>>(input, slice_size, k, values);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

} // namespace sbtopk

namespace mbtopk { // several blocks per slice

template <typename T, typename IndexType, int Dim>
__global__ void radixFindKthValues(const T* input, IndexType slice_size, IndexType k, T* values) {
  const IndexType slice = blockIdx.x / 4;
  const IndexType part = blockIdx.x % 4;
  for (IndexType i = part * blockDim.x + threadIdx.x; i < k; i += 4 * blockDim.x) {
    values[slice * k + i] = input[slice * slice_size + i];
  }
}

template <typename T, typename IndexType, int Dim>
void launch(const T* input, IndexType slice_size, IndexType k, IndexType num_slices, T* values,
            cudaStream_t stream) {
  radixFindKthValues<T, IndexType, Dim><<<static_cast<unsigned int>(num_slices * 4), 32, 0, stream>>>(
      input, slice_size, k, values);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

} // namespace mbtopk

bool should_use_multiblock(int64_t num_slices, int64_t slice_size) {
  return num_slices <= 20 && slice_size >= 20000;
}

void launch_gather_topk_kernel(const float* input, int64_t slice_size, int64_t k, int64_t num_slices,
                               int dims, float* values) {
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream().stream();
#define RUN_K(INDEX_T, DIM, LAUNCH_FUNCTION_NAME)                                 \
  LAUNCH_FUNCTION_NAME<float, INDEX_T, DIM>(                                     \
      input, static_cast<INDEX_T>(slice_size), static_cast<INDEX_T>(k),          \
      static_cast<INDEX_T>(num_slices), values, stream);

#define RUN_MB(INDEX_T, DIM)                                  \
  if (should_use_multiblock(num_slices, slice_size)) {        \
    RUN_K(INDEX_T, DIM, mbtopk::launch);                      \
  } else {                                                    \
    RUN_K(INDEX_T, DIM, sbtopk::launch);                      \
  }

#define RUN_DIM(INDEX_T) \
  if (dims == 1) {       \
    RUN_MB(INDEX_T, 1);  \
  } else {               \
    RUN_MB(INDEX_T, -1); \
  }

  if (slice_size * num_slices <= static_cast<int64_t>(UINT32_MAX)) {
    RUN_DIM(uint32_t);
  } else {
    RUN_DIM(uint64_t);
  }
#undef RUN_DIM
#undef RUN_MB
#undef RUN_K
}

} // namespace at::native
