// Full reductions on the device: reduce_kernel folds every element of its input into one
// output element with a reduction functor (SumOps<float>{}, see ATen/native/SharedReduceOps.h):
// ops.identity(), ops.combine(a, b), ops.project(a). The launch is written in the .cu files
// (the emulation translates the `<<<...>>>` of .cu files only).
#pragma once

#include <c10/macros/Macros.h>

#include <cuda_runtime.h>

#include <cstdint>

namespace at::native {

// Threads of the one block of a full reduction: a warp for small inputs, four otherwise.
struct ReduceBlockSize {
  int operator()(int64_t n) const {
    return n <= C10_WARP_SIZE ? C10_WARP_SIZE : 4 * C10_WARP_SIZE;
  }
};

// One block: each thread folds a strided slice, then thread 0 folds the partial results.
template <int block_size, typename ops_t>
C10_LAUNCH_BOUNDS_1(block_size)
__global__ void reduce_kernel(const float* in, float* out, int64_t n, ops_t ops) {
  __shared__ float partial[block_size];
  float acc = ops.identity();
  for (int64_t i = threadIdx.x; i < n; i += block_size) {
    acc = ops.combine(acc, in[i]);
  }
  partial[threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = ops.identity();
    for (int t = 0; t < block_size; ++t) {
      total = ops.combine(total, partial[t]);
    }
    out[0] = ops.project(total);
  }
}

} // namespace at::native
