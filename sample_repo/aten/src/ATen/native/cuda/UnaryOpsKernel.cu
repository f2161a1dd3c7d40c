#include <ATen/TensorIterator.h>
#include <ATen/native/UnaryOps.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/macros/Macros.h>

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

// elementwise_kernel, num_threads() and block_work_size() become at::native's.
namespace at::native {
#include <ATen/native/cuda/Loops.cuh>
} // namespace at::native

namespace at::native {

// Applies f (usually a GPU_LAMBDA) to every element of iter's input into iter's output: one
// launch of elementwise_kernel over the whole tensor, the functor copied into its arguments.
template <typename func_t>
void gpu_kernel(TensorIteratorBase& iter, const func_t& f) {
  const int64_t n = iter.numel();
  if (n == 0) {
    return;
  }
  const int64_t blocks = (n + block_work_size() - 1) / block_work_size();
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream().stream();
  elementwise_kernel<func_t><<<static_cast<unsigned int>(blocks), num_threads(), 0, stream>>>(
      n, f, iter.output().data_ptr<float>(), iter.input().data_ptr<float>());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

namespace {

// The lambda is the whole per-element body; gpu_kernel launches it over the tensor.
// cpu/UnaryOpsKernel.cpp has a file-local exp_kernel too; each file registers its own.
void exp_kernel(TensorIteratorBase& iter) {
  gpu_kernel(iter, [] GPU_LAMBDA (float x) -> float { return std::exp(x); });
}

} // namespace

REGISTER_DISPATCH(exp_stub, &exp_kernel);

} // namespace at::native
