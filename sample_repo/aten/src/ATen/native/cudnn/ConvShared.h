#pragma once

#include <ATen/core/TensorBody.h>
#include <ATen/cuda/CUDAConfig.h>

#if AT_CUDNN_ENABLED()
#include <ATen/cudnn/Descriptors.h>
#endif

namespace at {
namespace native {

#if AT_CUDNN_ENABLED()

// Bundle of everything a single cuDNN convolution call reads.
struct ConvolutionArgs {
  cudnnHandle_t handle = nullptr;
  TensorDescriptor idesc;
  TensorDescriptor odesc;
  FilterDescriptor wdesc;
  ConvolutionDescriptor cdesc;
  const Tensor& input;
  const Tensor& output;
  const Tensor& weight;

  ConvolutionArgs(const Tensor& in, const Tensor& out, const Tensor& w)
      : input(in), output(out), weight(w) {}
};

// Fill args.{idesc,odesc,wdesc,cdesc} for one forward convolution.
void setConvolutionDescriptors(ConvolutionArgs& args, IntArrayRef padding, IntArrayRef stride,
                               IntArrayRef dilation, int64_t groups, bool allow_tf32);

#endif // AT_CUDNN_ENABLED()

// Checked entry used by at::native::cudnn_convolution (ConvShared.cpp).
void cudnn_convolution_forward_out(const Tensor& output, const char* checked_from,
                                   const Tensor& input, const Tensor& weight, IntArrayRef padding,
                                   IntArrayRef stride, IntArrayRef dilation, int64_t groups,
                                   bool benchmark, bool deterministic, bool allow_tf32);

// Unchecked launcher (Conv_v7.cpp): splits huge batches, then runs cuDNN.
void raw_cudnn_convolution_forward_out(const Tensor& output, const Tensor& input,
                                       const Tensor& weight, IntArrayRef padding,
                                       IntArrayRef stride, IntArrayRef dilation, int64_t groups,
                                       bool benchmark, bool deterministic, bool allow_tf32);

} // namespace native
} // namespace at
