#include <ATen/cuda/CUDAConfig.h>

#if AT_CUDNN_ENABLED()

#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#include <ATen/core/Tensor.h>
#include <ATen/cuda/Exceptions.h>
#include <ATen/cudnn/Descriptors.h>
#include <ATen/cudnn/Handle.h>

#include <tuple>
#include <vector>

namespace at {
namespace native {

namespace {

cudnnBatchNormMode_t batchnorm_mode(const Tensor& input) {
  // 2-D input normalizes every feature separately; otherwise per channel
  return input.dim() == 2 ? CUDNN_BATCHNORM_PER_ACTIVATION : CUDNN_BATCHNORM_SPATIAL;
}

// Describe the per-channel parameters as (1, C, 1, ..., 1).
void set_param_descriptor(TensorDescriptor& desc, const Tensor& input) {
  std::vector<int64_t> sizes(static_cast<size_t>(input.dim()), 1);
  sizes[1] = input.size(1);
  std::vector<int64_t> strides(sizes.size(), 1);
  strides[0] = input.size(1);
  desc.set(getCudnnDataType(input), sizes, strides, 4);
}

} // namespace

std::tuple<Tensor, Tensor, Tensor, Tensor> cudnn_batch_norm(
    const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias_opt,
    const std::optional<Tensor>& running_mean_opt, const std::optional<Tensor>& running_var_opt,
    bool training, double exponential_average_factor, double epsilon) {
  const Tensor bias = bias_opt.value_or(Tensor());
  const Tensor running_mean = running_mean_opt.value_or(Tensor());
  const Tensor running_var = running_var_opt.value_or(Tensor());
  TORCH_CHECK(input.is_cuda() && weight.is_cuda() && bias.defined() && bias.is_cuda(),
              "cudnn_batch_norm: input, weight and bias must be CUDA tensors");
  TORCH_CHECK(input.dim() >= 2 && input.dim() <= 5, "cudnn_batch_norm: input must be 2-D to 5-D");
  TORCH_CHECK(training || (running_mean.defined() && running_var.defined()),
              "cudnn_batch_norm: running stats are required in evaluation mode");

  const int64_t num_features = input.size(1);
  const cudnnBatchNormMode_t mode = batchnorm_mode(input);
  Tensor output = at::empty(input.sizes(), input.options());

  TensorDescriptor idesc;
  TensorDescriptor odesc;
  TensorDescriptor wdesc;
  idesc.set(input);
  odesc.set(output);
  set_param_descriptor(wdesc, input);

  cudnnHandle_t handle = getCudnnHandle();
  const float one = 1.0f;
  const float zero = 0.0f;
  Tensor save_mean;
  Tensor save_var;

  if (training) {
    save_mean = at::empty({num_features}, weight.options());
    save_var = at::empty({num_features}, weight.options());
    AT_CUDNN_CHECK(cudnnBatchNormalizationForwardTraining(
        handle, mode, &one, &zero, idesc.desc(), input.data_ptr(), odesc.desc(),
        output.data_ptr(), wdesc.desc(), weight.data_ptr(), bias.data_ptr(),
        exponential_average_factor,
        running_mean.defined() ? running_mean.data_ptr() : nullptr,
        running_var.defined() ? running_var.data_ptr() : nullptr, epsilon,
        save_mean.data_ptr(), save_var.data_ptr()));
  } else {
    save_mean = at::empty({0}, weight.options());
    save_var = at::empty({0}, weight.options());
    AT_CUDNN_CHECK(cudnnBatchNormalizationForwardInference(
        handle, mode, &one, &zero, idesc.desc(), input.data_ptr(), odesc.desc(),
        output.data_ptr(), wdesc.desc(), weight.data_ptr(), bias.data_ptr(),
        running_mean.data_ptr(), running_var.data_ptr(), epsilon));
  }

  // The real op returns a cuDNN reserve buffer for backward; none is used here.
  Tensor reserve = at::empty({0}, input.options());
  return std::tuple<Tensor, Tensor, Tensor, Tensor>{output, save_mean, save_var, reserve};
}

} // namespace native
} // namespace at

#endif // AT_CUDNN_ENABLED()
