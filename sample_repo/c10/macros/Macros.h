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

// Launch bounds of a kernel: at most this many threads per block (and, with two arguments,
// at least this many blocks per multiprocessor). The CPU emulation ignores them.
#define C10_LAUNCH_BOUNDS_1(max_threads) __launch_bounds__(max_threads)
#define C10_LAUNCH_BOUNDS_2(max_threads, min_blocks) __launch_bounds__(max_threads, min_blocks)
