#pragma once

#include <c10/cuda/CUDAStream.h>
#include <c10/macros/Export.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>

namespace at {
namespace cuda {

using c10::cuda::CUDAStream;
using c10::cuda::getCurrentCUDAStream;

TORCH_API int device_count();
TORCH_API const cudaDeviceProp* getCurrentDeviceProperties();

// One cuBLAS handle per thread, re-bound to the current stream on each call.
TORCH_API cublasHandle_t getCurrentCUDABlasHandle();

} // namespace cuda
} // namespace at
