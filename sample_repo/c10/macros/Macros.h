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
