#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#include <ATen/core/Tensor.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAStream.h>

#include <cuda_runtime.h>

#include <tuple>

namespace at {
namespace native {

namespace {

constexpr int kBNThreads = 256;

// One block per channel: batch mean / invstd, plus the running-stat update.
template <typename scalar_t, typename accscalar_t>
__global__ void batch_norm_collect_statistics_kernel(
    const scalar_t* input, int64_t N, int64_t C, int64_t S, accscalar_t eps,
    accscalar_t momentum, scalar_t* save_mean, scalar_t* save_invstd, scalar_t* running_mean,
    scalar_t* running_var) {
  __shared__ accscalar_t shared_sum[kBNThreads];
  __shared__ accscalar_t shared_sq[kBNThreads];
  const int64_t c = blockIdx.x;
  const int64_t count = N * S;

  accscalar_t sum = 0;
  accscalar_t sq = 0;
  for (int64_t i = threadIdx.x; i < count; i += blockDim.x) {
    const int64_t n = i / S;
    const int64_t s = i % S;
    const accscalar_t v = static_cast<accscalar_t>(input[(n * C + c) * S + s]);
    sum += v;
    sq += v * v;
  }
  shared_sum[threadIdx.x] = sum;
  shared_sq[threadIdx.x] = sq;
  __syncthreads();
  for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) {
      shared_sum[threadIdx.x] += shared_sum[threadIdx.x + stride];
      shared_sq[threadIdx.x] += shared_sq[threadIdx.x + stride];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const accscalar_t mean = shared_sum[0] / count;
    const accscalar_t var = shared_sq[0] / count - mean * mean;
    save_mean[c] = static_cast<scalar_t>(mean);
    save_invstd[c] = static_cast<scalar_t>(rsqrt(var + eps));
    if (running_mean != nullptr) {
      running_mean[c] = static_cast<scalar_t>(momentum * mean + (1 - momentum) * running_mean[c]);
    }
    if (running_var != nullptr) {
      const accscalar_t unbiased = count > 1 ? var * count / (count - 1) : var;
      running_var[c] = static_cast<scalar_t>(momentum * unbiased + (1 - momentum) * running_var[c]);
    }
  }
}

// y = (x - mean) * invstd * w + b. With `stats_are_var` the second buffer
// holds a variance (eval mode) and invstd is derived from it here.
template <typename scalar_t, typename accscalar_t>
__global__ void batch_norm_transform_input_kernel(
    const scalar_t* input, scalar_t* output, const scalar_t* mean, const scalar_t* stat,
    bool stats_are_var, const scalar_t* weight, const scalar_t* bias, accscalar_t eps,
    int64_t C, int64_t S, int64_t total) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= total) return;
  const int64_t c = (i / S) % C;
  const accscalar_t invstd = stats_are_var
      ? rsqrt(static_cast<accscalar_t>(stat[c]) + eps)
      : static_cast<accscalar_t>(stat[c]);
  const accscalar_t w = weight != nullptr ? static_cast<accscalar_t>(weight[c]) : accscalar_t(1);
  const accscalar_t b = bias != nullptr ? static_cast<accscalar_t>(bias[c]) : accscalar_t(0);
  output[i] = static_cast<scalar_t>(
      (static_cast<accscalar_t>(input[i]) - static_cast<accscalar_t>(mean[c])) * invstd * w + b);
}

float* optional_data(const Tensor& t) {
  return t.defined() ? t.data_ptr<float>() : nullptr;
}

} // namespace

std::tuple<Tensor, Tensor, Tensor> batch_norm_cuda(
    const Tensor& self, const std::optional<Tensor>& weight_opt,
    const std::optional<Tensor>& bias_opt, const std::optional<Tensor>& running_mean_opt,
    const std::optional<Tensor>& running_var_opt, bool train, double momentum, double epsilon) {
  const Tensor weight = weight_opt.value_or(Tensor());
  const Tensor bias = bias_opt.value_or(Tensor());
  const Tensor running_mean = running_mean_opt.value_or(Tensor());
  const Tensor running_var = running_var_opt.value_or(Tensor());
  TORCH_CHECK(self.is_cuda(), "batch_norm_cuda: expected a CUDA input");
  TORCH_CHECK(train || (running_mean.defined() && running_var.defined()),
              "running_mean and running_var must be defined in evaluation mode");

  const Tensor input = self.contiguous();
  const int64_t N = input.size(0);
  const int64_t C = input.size(1);
  const int64_t S = input.numel() / (N * C > 0 ? N * C : 1);
  Tensor output = at::empty(input.sizes(), input.options());
  Tensor save_mean = at::empty({train ? C : 0}, input.options());
  Tensor save_invstd = at::empty({train ? C : 0}, input.options());
  if (input.numel() == 0) return std::make_tuple(output, save_mean, save_invstd);

  cudaStream_t stream = c10::cuda::getCurrentCUDAStream().stream();
  if (train) {
    const dim3 stats_grid(static_cast<unsigned int>(C)); // one block per channel
    batch_norm_collect_statistics_kernel<float, float><<<stats_grid, kBNThreads, 0, stream>>>(
        input.data_ptr<float>(), N, C, S, static_cast<float>(epsilon),
        static_cast<float>(momentum), save_mean.data_ptr<float>(),
        save_invstd.data_ptr<float>(), optional_data(running_mean), optional_data(running_var));
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  }

  const int64_t total = input.numel();
  const dim3 block(kBNThreads);
  const dim3 grid(static_cast<unsigned int>((total + kBNThreads - 1) / kBNThreads));
  const Tensor& mean = train ? save_mean : running_mean;
  const Tensor& stat = train ? save_invstd : running_var;
  batch_norm_transform_input_kernel<float, float><<<grid, block, 0, stream>>>(
      input.data_ptr<float>(), output.data_ptr<float>(), mean.data_ptr<float>(),
      stat.data_ptr<float>(), /*stats_are_var=*/!train, optional_data(weight),
      optional_data(bias), static_cast<float>(epsilon), C, S, total);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return std::make_tuple(output, save_mean, save_invstd);
}

} // namespace native
} // namespace at
