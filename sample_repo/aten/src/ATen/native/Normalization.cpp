#include <ATen/Dispatch.h>
#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#include <ATen/core/Tensor.h>
#include <ATen/detail/CUDAHooksInterface.h>

#include <cmath>
#include <tuple>
#include <vector>

namespace at {
namespace native {

static void check_dims_match_num_input_features(const char* arg_name, int64_t expected,
                                                int64_t actual) {
  TORCH_CHECK(actual == expected, arg_name, " should contain ", expected,
              " elements not ", actual);
}

// Geometry shared by the CPU loops: input viewed as [N, C, S] with S the
// product of the spatial dims.
struct BatchNormShape {
  int64_t n;
  int64_t c;
  int64_t s;
};

static BatchNormShape bn_shape(const Tensor& input) {
  int64_t s = 1;
  for (int64_t d = 2; d < input.dim(); ++d) s *= input.size(d);
  return {input.size(0), input.size(1), s};
}

// y = (x - mean) * invstd * w + b per channel. In eval mode the statistics
// come from the running buffers instead of the batch.
template <typename scalar_t, typename param_t>
static void batch_norm_cpu_transform_input_template(
    const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& save_mean,
    const Tensor& save_invstd, const Tensor& running_mean, const Tensor& running_var,
    bool train, double eps, const Tensor& output) {
  const BatchNormShape sh = bn_shape(input);
  const scalar_t* in = input.data_ptr<scalar_t>();
  scalar_t* out = output.data_ptr<scalar_t>();
  for (int64_t c = 0; c < sh.c; ++c) {
    param_t mean;
    param_t invstd;
    if (train) {
      mean = save_mean.data_ptr<param_t>()[c];
      invstd = save_invstd.data_ptr<param_t>()[c];
    } else {
      mean = running_mean.data_ptr<param_t>()[c];
      invstd = param_t(1) / std::sqrt(running_var.data_ptr<param_t>()[c] + static_cast<param_t>(eps));
    }
    const param_t w = weight.defined() ? weight.data_ptr<param_t>()[c] : param_t(1);
    const param_t b = bias.defined() ? bias.data_ptr<param_t>()[c] : param_t(0);
    // fold into one multiply-add per element
    const param_t alpha = invstd * w;
    const param_t beta = b - mean * alpha;
    for (int64_t n = 0; n < sh.n; ++n) {
      const int64_t base = (n * sh.c + c) * sh.s;
      for (int64_t i = 0; i < sh.s; ++i) {
        out[base + i] = static_cast<scalar_t>(in[base + i] * alpha + beta);
      }
    }
  }
}

// Batch mean and 1/sqrt(var + eps) per channel; also moves the running
// buffers toward the batch statistics (unbiased variance, as PyTorch does).
template <typename scalar_t, typename param_t>
static std::tuple<Tensor, Tensor> batch_norm_cpu_update_stats_template(
    const Tensor& input, const Tensor& running_mean, const Tensor& running_var, double momentum,
    double eps) {
  const BatchNormShape sh = bn_shape(input);
  const int64_t count = sh.n * sh.s;
  TORCH_CHECK(count > 1 || !running_var.defined(),
              "Expected more than 1 value per channel when training, got input size ",
              input.sizes());
  Tensor save_mean = at::empty({sh.c}, input.options());
  Tensor save_invstd = at::empty({sh.c}, input.options());
  const scalar_t* in = input.data_ptr<scalar_t>();
  for (int64_t c = 0; c < sh.c; ++c) {
    double sum = 0;
    for (int64_t n = 0; n < sh.n; ++n) {
      const scalar_t* p = in + (n * sh.c + c) * sh.s;
      for (int64_t i = 0; i < sh.s; ++i) sum += p[i];
    }
    const double mean = sum / static_cast<double>(count);
    double var_sum = 0;
    for (int64_t n = 0; n < sh.n; ++n) {
      const scalar_t* p = in + (n * sh.c + c) * sh.s;
      for (int64_t i = 0; i < sh.s; ++i) var_sum += (p[i] - mean) * (p[i] - mean);
    }
    save_mean.data_ptr<param_t>()[c] = static_cast<param_t>(mean);
    save_invstd.data_ptr<param_t>()[c] =
        static_cast<param_t>(1.0 / std::sqrt(var_sum / static_cast<double>(count) + eps));
    if (running_mean.defined()) {
      param_t& rm = running_mean.data_ptr<param_t>()[c];
      rm = static_cast<param_t>(momentum * mean + (1 - momentum) * rm);
    }
    if (running_var.defined()) {
      param_t& rv = running_var.data_ptr<param_t>()[c];
      const double unbiased = var_sum / static_cast<double>(count - 1);
      rv = static_cast<param_t>(momentum * unbiased + (1 - momentum) * rv);
    }
  }
  return std::make_tuple(save_mean, save_invstd);
}

std::tuple<Tensor, Tensor, Tensor> batch_norm_cpu(
    const Tensor& self, const std::optional<Tensor>& weight_opt,
    const std::optional<Tensor>& bias_opt, const std::optional<Tensor>& running_mean_opt,
    const std::optional<Tensor>& running_var_opt, bool train, double momentum, double eps) {
  const Tensor weight = weight_opt.value_or(Tensor());
  const Tensor bias = bias_opt.value_or(Tensor());
  const Tensor running_mean = running_mean_opt.value_or(Tensor());
  const Tensor running_var = running_var_opt.value_or(Tensor());
  TORCH_CHECK(self.dim() >= 2, "batch_norm: input must have at least 2 dims");
  TORCH_CHECK(train || (running_mean.defined() && running_var.defined()),
              "running_mean and running_var must be defined in evaluation mode");

  const Tensor input = self.contiguous();
  Tensor output = at::empty(input.sizes(), input.options());
  return AT_DISPATCH_FLOATING_TYPES(input.scalar_type(), "batch_norm_cpu", [&] {
    Tensor save_mean;
    Tensor save_invstd;
    if (train) {
      std::tie(save_mean, save_invstd) = batch_norm_cpu_update_stats_template<scalar_t, scalar_t>(
          input, running_mean, running_var, momentum, eps);
    } else {
      save_mean = at::empty({0}, input.options());
      save_invstd = at::empty({0}, input.options());
    }
    batch_norm_cpu_transform_input_template<scalar_t, scalar_t>(
        input, weight, bias, save_mean, save_invstd, running_mean, running_var, train, eps,
        output);
    return std::make_tuple(output, save_mean, save_invstd);
  });
}

std::tuple<Tensor, Tensor, Tensor, Tensor, int64_t> _batch_norm_impl_index(
    const Tensor& input, const std::optional<Tensor>& weight_opt,
    const std::optional<Tensor>& bias_opt, const std::optional<Tensor>& running_mean_opt,
    const std::optional<Tensor>& running_var_opt, bool training, double momentum, double eps,
    bool cudnn_enabled) {
  const Tensor weight = weight_opt.value_or(Tensor());
  const Tensor bias = bias_opt.value_or(Tensor());
  const Tensor running_mean = running_mean_opt.value_or(Tensor());
  const Tensor running_var = running_var_opt.value_or(Tensor());

  const int64_t num_features = input.dim() > 1 ? input.size(1) : 1;
  if (weight.defined()) check_dims_match_num_input_features("weight", num_features, weight.numel());
  if (bias.defined()) check_dims_match_num_input_features("bias", num_features, bias.numel());
  if (running_mean.defined()) {
    check_dims_match_num_input_features("running_mean", num_features, running_mean.numel());
  }
  if (running_var.defined()) {
    check_dims_match_num_input_features("running_var", num_features, running_var.numel());
  }

  const bool stats_ok = (running_mean.defined() && running_var.defined()) ||
                        (!running_mean.defined() && !running_var.defined() && training);
  const bool use_cudnn = input.is_cuda() && input.scalar_type() == kFloat && weight.defined() &&
                         bias.defined() && stats_ok && input.dim() >= 3 &&
                         detail::getCUDAHooks().compiledWithCuDNN() && eps >= 1e-5 &&
                         cudnn_enabled && input.size(0) <= 880801;

  if (use_cudnn) {
    const Tensor input_c = input.contiguous();
    const Tensor weight_c = weight.contiguous();
    const Tensor bias_c = bias.contiguous();
    return std::tuple_cat(at::cudnn_batch_norm(input_c, weight_c, bias_c, running_mean,
                                               running_var, training, momentum, eps),
                          std::make_tuple(int64_t(1)));
  }

  Tensor reserve = at::empty({0}, input.options());
  return std::tuple_cat(at::native_batch_norm(input, weight, bias, running_mean, running_var,
                                              training, momentum, eps),
                        std::make_tuple(reserve, int64_t(0)));
}

Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, const std::optional<Tensor>& running_mean,
                  const std::optional<Tensor>& running_var, bool training, double momentum,
                  double eps, bool cudnn_enabled) {
  return std::get<0>(at::_batch_norm_impl_index(input, weight, bias, running_mean, running_var,
                                                training, momentum, eps, cudnn_enabled));
}

} // namespace native
} // namespace at
