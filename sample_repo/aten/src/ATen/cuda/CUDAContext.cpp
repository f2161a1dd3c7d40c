#include <ATen/Context.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/Exceptions.h>

#include <vector>

namespace at {
namespace cuda {

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}

const cudaDeviceProp* getCurrentDeviceProperties() {
  static std::vector<cudaDeviceProp> props;
  const int device = c10::cuda::current_device();
  if (props.empty()) {
    props.resize(static_cast<size_t>(device_count()));
    for (int i = 0; i < static_cast<int>(props.size()); ++i) {
      AT_CUDA_CHECK(cudaGetDeviceProperties(&props[i], i));
    }
  }
  TORCH_CHECK(device >= 0 && device < static_cast<int>(props.size()), "invalid device ", device);
  return &props[device];
}

cublasHandle_t getCurrentCUDABlasHandle() {
  thread_local cublasHandle_t handle = nullptr;
  if (handle == nullptr) {
    TORCH_CUDABLAS_CHECK(cublasCreate_v2(&handle));
  }
  TORCH_CUDABLAS_CHECK(cublasSetStream_v2(handle, getCurrentCUDAStream().stream()));
  const bool tf32 = at::globalContext().allowTF32CuDNN();
  TORCH_CUDABLAS_CHECK(
      cublasSetMathMode(handle, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
  return handle;
}

} // namespace cuda
} // namespace at
