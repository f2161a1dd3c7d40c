#pragma once

#include <c10/macros/Export.h>

// Functions that must compile for both host code and CUDA kernels.
#if defined(__CUDACC__) || defined(CUDA_EMULATION)
#define C10_HOST_DEVICE __host__ __device__
#define C10_DEVICE __device__
#else
#define C10_HOST_DEVICE
#define C10_DEVICE
#endif

#define C10_WARP_SIZE 32

// Launch bounds of a kernel, written before its `__global__`: at most this many threads per
// block (and, with two arguments, at least this many resident blocks per multiprocessor), so
// nvcc can budget registers. A bound above the hardware's limit falls back to 256 threads.
// The CPU emulation (a host compiler, CUDA_EMULATION) has no registers to budget: there the
// macros expand to nothing, and their argument (often a constexpr call such as
// num_threads()) is never evaluated.
#define C10_MAX_THREADS_PER_BLOCK(val) (((val) <= 1024) ? (val) : 256)
#if defined(__CUDACC__) && !defined(CUDA_EMULATION)
#define C10_LAUNCH_BOUNDS_0 __launch_bounds__(256, 4)
#define C10_LAUNCH_BOUNDS_1(max_threads_per_block) \
  __launch_bounds__((C10_MAX_THREADS_PER_BLOCK((max_threads_per_block))))
#define C10_LAUNCH_BOUNDS_2(max_threads_per_block, min_blocks_per_sm) \
  __launch_bounds__((C10_MAX_THREADS_PER_BLOCK((max_threads_per_block))), (min_blocks_per_sm))
#else
#define C10_LAUNCH_BOUNDS_0
#define C10_LAUNCH_BOUNDS_1(max_threads_per_block)
#define C10_LAUNCH_BOUNDS_2(max_threads_per_block, min_blocks_per_sm)
#endif
