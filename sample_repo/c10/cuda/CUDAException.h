#pragma once

#include <c10/util/Exception.h>

#include <cuda_runtime.h>

// Turn a failing cudaError_t into a c10::Error.
#define C10_CUDA_CHECK(EXPR)                                            \
  do {                                                                  \
    const cudaError_t __err = (EXPR);                                   \
    TORCH_CHECK(__err == cudaSuccess, "CUDA error: ",                   \
                cudaGetErrorString(__err));                             \
  } while (0)

// Placed right after every <<<...>>> launch.
#define C10_CUDA_KERNEL_LAUNCH_CHECK() C10_CUDA_CHECK(cudaGetLastError())
