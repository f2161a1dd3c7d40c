#include <ATen/TensorIterator.h>
#include <ATen/native/ReduceOps.h>
#include <ATen/native/SharedReduceOps.h>
#include <ATen/native/cuda/Reduce.cuh>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAStream.h>

#include <cuda_runtime.h>

#include <cstdint>

namespace at::native {
namespace {

// Folds all of iter's input into its one-element output with `ops`, a reduction functor.
template <typename ops_t>
void gpu_reduce_kernel(TensorIteratorBase& iter, const ops_t& ops) {
  const int64_t n = iter.numel();
  const float* in = iter.input().data_ptr<float>();
  float* out = iter.output().data_ptr<float>();
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream().stream();
  const int block = ReduceBlockSize()(n);
  // The block size is a template argument of the kernel: one launch per size, written once.
#define LAUNCH_REDUCE_KERNEL(BLOCK_SIZE) \
  reduce_kernel<BLOCK_SIZE, ops_t><<<1, BLOCK_SIZE, 0, stream>>>(in, out, n, ops)
  if (block == C10_WARP_SIZE) {
    LAUNCH_REDUCE_KERNEL(C10_WARP_SIZE);
  } else {
    LAUNCH_REDUCE_KERNEL(4 * C10_WARP_SIZE);
  }
#undef LAUNCH_REDUCE_KERNEL
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// A full sum: the generic reduction, folding with the SumOps functor.
void sum_kernel_cuda(TensorIteratorBase& iter) {
  gpu_reduce_kernel(iter, SumOps<float>{});
}

} // namespace

REGISTER_DISPATCH(sum_stub, &sum_kernel_cuda);

} // namespace at::native
