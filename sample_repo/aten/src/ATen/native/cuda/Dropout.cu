#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#include <ATen/core/Tensor.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/macros/Macros.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <tuple>

namespace at {
namespace native {

#include <ATen/native/cuda/LaunchGeometry.cuh>

namespace {

// Counter-based generator: each (seed, offset, element) triple maps to one
// uniform draw, so results do not depend on the launch shape.
__device__ __forceinline__ float uniform_from_counter(uint64_t seed, uint64_t counter) {
  uint64_t z = seed + counter * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) * (1.0f / 16777216.0f); // [0, 1)
}

template <typename scalar_t, typename accscalar_t, typename IndexType>
C10_LAUNCH_BOUNDS_1(256)
__global__ void fused_dropout_kernel(const scalar_t* a, scalar_t* b, scalar_t* mask,
                                     IndexType total, accscalar_t p_keep, uint64_t seed,
                                     uint64_t offset) {
  const accscalar_t scale = p_keep > 0 ? accscalar_t(1) / p_keep : accscalar_t(0);
  for (IndexType i = blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += blockDim.x * gridDim.x) {
    const bool keep = uniform_from_counter(seed, offset + i) < p_keep;
    b[i] = keep ? static_cast<scalar_t>(static_cast<accscalar_t>(a[i]) * scale) : scalar_t(0);
    mask[i] = keep ? scalar_t(1) : scalar_t(0);
  }
}

// The probability of keeping an element: in eval mode everything is kept.
struct KeepProbability {
  float operator()(double p, std::optional<bool> train) const {
    return (!train.has_value() || *train) ? static_cast<float>(1.0 - p) : 1.0f;
  }
};

// Blocks for n elements, capped: Indexing.cu has a file-local helper of the same name.
static unsigned int blocks_for(int64_t n, int threads) {
  const int64_t wanted = (n + threads - 1) / threads;
  return static_cast<unsigned int>(wanted < 4096 ? wanted : 4096);
}

// Each launch reserves a disjoint range of counters of the default generator.
uint64_t reserve_offsets(uint64_t count) {
  CUDAGeneratorImpl& gen = at::cuda::detail::getDefaultCUDAGenerator();
  return gen.philox_offset_increment(count);
}

} // namespace

std::tuple<Tensor, Tensor> native_dropout_cuda(const Tensor& self, double p,
                                               std::optional<bool> train) {
  TORCH_CHECK(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
  const Tensor input = self.contiguous();
  Tensor output = at::empty(input.sizes(), input.options());
  Tensor mask = at::empty(input.sizes(), input.options().dtype(kBool));
  const int64_t n = input.numel();
  if (n == 0) return std::make_tuple(output, mask);

  // eval mode keeps everything (p_keep = 1, scale = 1)
  const float p_keep = KeepProbability{}(p, train);
  const int threads = at::native::elementwise_threads();
  const unsigned int blocks = blocks_for(n, threads);
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream().stream();
  const uint64_t seed = at::cuda::detail::getDefaultCUDAGenerator().current_seed();
  const uint64_t offset = reserve_offsets(static_cast<uint64_t>(n));
  // One launch, written once for both index widths.
#define LAUNCH_FUSED_DROPOUT(INDEX_T)                                              \
  fused_dropout_kernel<float, float, INDEX_T><<<blocks, threads, 0, stream>>>(     \
      input.data_ptr<float>(), output.data_ptr<float>(), mask.data_ptr<float>(),   \
      static_cast<INDEX_T>(n), p_keep, seed, offset)
  if (n <= INT32_MAX) {
    LAUNCH_FUSED_DROPOUT(uint32_t);
  } else {
    LAUNCH_FUSED_DROPOUT(uint64_t);
  }
#undef LAUNCH_FUSED_DROPOUT
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return std::make_tuple(output, mask);
}

} // namespace native
} // namespace at
