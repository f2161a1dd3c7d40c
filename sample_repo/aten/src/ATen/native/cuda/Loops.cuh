// The device side of element-wise ops: the kernel that applies a functor to every element,
// and the launch geometry it assumes. Like LaunchGeometry.cuh it names no namespace of its
// own: .cu files include it inside `namespace at::native { ... }`, after the headers it
// relies on (c10/macros/Macros.h, cuda_runtime.h), so everything here is at::native's. The
// launch itself (gpu_kernel) is written in the .cu file: the emulation translates the
// `<<<...>>>` of .cu files only.
#pragma once

// A lambda that runs on the device (an nvcc extended lambda; device code on the emulation).
#define GPU_LAMBDA __host__ __device__

// Threads per block, and elements per thread, of every element-wise launch.
C10_HOST_DEVICE constexpr int num_threads() {
  return C10_WARP_SIZE * 4;
}

C10_HOST_DEVICE constexpr int thread_work_size() {
  return 4;
}

C10_HOST_DEVICE constexpr int block_work_size() {
  return thread_work_size() * num_threads();
}

// Each block covers block_work_size() consecutive elements, each thread thread_work_size()
// of them, num_threads() apart.
template <typename func_t>
C10_LAUNCH_BOUNDS_1(num_threads())
__global__ void elementwise_kernel(int64_t n, func_t f, float* out, const float* in) {
  const int64_t base = static_cast<int64_t>(blockIdx.x) * block_work_size() + threadIdx.x;
  for (int i = 0; i < thread_work_size(); ++i) {
    const int64_t index = base + static_cast<int64_t>(i) * num_threads();
    if (index < n) {
      out[index] = f(in[index]);
    }
  }
}
