#include <ATen/cuda/CUDAConfig.h>

#if AT_CUDNN_ENABLED()

#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/ConvUtils.h>
#include <ATen/native/cudnn/ConvShared.h>

#include <vector>

namespace at {
namespace native {

namespace {

void check_same_device(const Tensor& a, const char* a_name, const Tensor& b, const char* b_name,
                       const char* checked_from) {
  TORCH_CHECK(a.device() == b.device(), checked_from, ": expected ", a_name, " and ", b_name,
              " on the same device, got ", a.device(), " and ", b.device());
}

// cuDNN wants plain int arrays.
std::vector<int> to_int_vector(IntArrayRef values) {
  return std::vector<int>(values.begin(), values.end());
}

} // namespace

void setConvolutionDescriptors(ConvolutionArgs& args, IntArrayRef padding, IntArrayRef stride,
                               IntArrayRef dilation, int64_t groups, bool allow_tf32) {
  args.idesc.set(args.input);
  args.wdesc.set(args.weight);
  args.odesc.set(args.output);
  const std::vector<int> pad = to_int_vector(padding);
  const std::vector<int> str = to_int_vector(stride);
  const std::vector<int> dil = to_int_vector(dilation);
  args.cdesc.set(getCudnnDataType(args.input), static_cast<int>(pad.size()), pad.data(),
                 str.data(), dil.data(), static_cast<int>(groups), allow_tf32);
}

void cudnn_convolution_forward_out(const Tensor& output, const char* checked_from,
                                   const Tensor& input, const Tensor& weight, IntArrayRef padding,
                                   IntArrayRef stride, IntArrayRef dilation, int64_t groups,
                                   bool benchmark, bool deterministic, bool allow_tf32) {
  check_same_device(input, "input", weight, "weight", checked_from);
  check_same_device(input, "input", output, "output", checked_from);
  TORCH_CHECK(input.scalar_type() == weight.scalar_type(), checked_from,
              ": input and weight must have the same dtype");
  TORCH_CHECK(input.dim() == weight.dim(), checked_from, ": input is ", input.dim(),
              "-d but weight is ", weight.dim(), "-d");
  TORCH_CHECK(output.sizes().equals(conv_output_size(input.sizes(), weight.sizes(), padding,
                                                     stride, dilation)),
              checked_from, ": output has the wrong shape ", output.sizes());
  if (output.numel() == 0) return;

  // cuDNN is handed dense NCHW buffers only.
  const Tensor input_c = input.contiguous();
  const Tensor weight_c = weight.contiguous();
  raw_cudnn_convolution_forward_out(output, input_c, weight_c, padding, stride, dilation, groups,
                                    benchmark, deterministic, allow_tf32);
}

Tensor cudnn_convolution(const Tensor& input, const Tensor& weight, IntArrayRef padding,
                         IntArrayRef stride, IntArrayRef dilation, int64_t groups, bool benchmark,
                         bool deterministic, bool allow_tf32) {
  TORCH_CHECK(input.is_cuda(), "cudnn_convolution: expected a CUDA input");
  Tensor output = at::empty(conv_output_size(input.sizes(), weight.sizes(), padding, stride,
                                             dilation),
                            input.options());
  cudnn_convolution_forward_out(output, "cudnn_convolution", input, weight, padding, stride,
                                dilation, groups, benchmark, deterministic, allow_tf32);
  return output;
}

} // namespace native
} // namespace at

#endif // AT_CUDNN_ENABLED()
