#include <ATen/cuda/CUDAConfig.h>

// Builds without cuDNN still have to provide the kernels that
// native_functions.yaml names, so they exist here and fail loudly.
#if !AT_CUDNN_ENABLED()

#include <ATen/NativeFunctions.h>
#include <ATen/core/Tensor.h>

namespace at {
namespace native {

Tensor cudnn_convolution(const Tensor& input, const Tensor& weight, IntArrayRef padding,
                         IntArrayRef stride, IntArrayRef dilation, int64_t groups, bool benchmark,
                         bool deterministic, bool allow_tf32) {
  (void)input;
  (void)weight;
  (void)padding;
  (void)stride;
  (void)dilation;
  (void)groups;
  (void)benchmark;
  (void)deterministic;
  (void)allow_tf32;
  AT_ERROR("cudnn_convolution: ATen not compiled with cuDNN support");
}

} // namespace native
} // namespace at

#endif // !AT_CUDNN_ENABLED()
