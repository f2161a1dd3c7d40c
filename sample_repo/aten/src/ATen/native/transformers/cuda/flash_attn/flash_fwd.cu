// An attention forward pass launched as PyTorch's flash_fwd_launch_template.h launches it: the
// kernel is defined by a macro with variadic template parameters, and launched through a
// local pointer inside lambdas handed to BOOL_SWITCH (static_switch.h).
#include <ATen/native/transformers/cuda/flash_attn/static_switch.h>
#include <c10/cuda/CUDAException.h>

#include <cuda_runtime.h>

namespace pytorch_flash {

struct Flash_fwd_params {
  const float* q;
  float* o;
  int seqlen;
  bool is_causal;
  float p_dropout;
};

struct Kernel_traits_hdim64 {
  static constexpr int kBlockM = 64;
  static constexpr int kNThreads = 64;
};

// One query row per thread (the attention itself is left out).
template <typename Kernel_traits, bool Is_dropout, bool Is_causal>
__device__ void compute_attn(const Flash_fwd_params& params) {
  const int row = blockIdx.x * Kernel_traits::kBlockM + threadIdx.x;
  if (row < params.seqlen) {
    params.o[row] = Is_dropout ? params.q[row] * (1.0f - params.p_dropout) : params.q[row];
  }
}

// Use a macro to clean up kernel definitions
#define DEFINE_FLASH_FORWARD_KERNEL(kernelName, ...) \
  template <typename Kernel_traits, __VA_ARGS__>     \
  __global__ void kernelName(const Flash_fwd_params params)

DEFINE_FLASH_FORWARD_KERNEL(flash_fwd_kernel, bool Is_dropout, bool Is_causal) {
  compute_attn<Kernel_traits, Is_dropout, Is_causal>(params);
}

template <typename Kernel_traits, bool Is_dropout>
void run_flash_fwd(Flash_fwd_params& params, cudaStream_t stream) {
  const int num_m_block = (params.seqlen + Kernel_traits::kBlockM - 1) / Kernel_traits::kBlockM;
  BOOL_SWITCH(params.is_causal, Is_causal, [&] {
    auto kernel = &flash_fwd_kernel<Kernel_traits, Is_dropout, Is_causal>;
    kernel<<<num_m_block, Kernel_traits::kNThreads, 0, stream>>>(params);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

void run_mha_fwd_hdim64(Flash_fwd_params& params, cudaStream_t stream) {
  BOOL_SWITCH(params.p_dropout > 0.0f, Is_dropout, [&] {
    run_flash_fwd<Kernel_traits_hdim64, Is_dropout>(params, stream);
  });
}

} // namespace pytorch_flash
