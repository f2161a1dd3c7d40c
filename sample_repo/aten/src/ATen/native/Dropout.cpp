#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#include <ATen/core/Tensor.h>

#include <tuple>
#include <type_traits>

namespace at {
namespace native {

namespace {

// The default CPU generator (torch.manual_seed reseeds it).
std::mt19937& cpu_generator() {
  CPUGeneratorImpl& gen = at::detail::getDefaultCPUGenerator();
  return gen.engine();
}

bool is_fused_kernel_acceptable(const Tensor& input, double p) {
  return input.is_cuda() && p > 0 && p < 1 && input.numel() > 0;
}

// Writes dst = src * keep / (1 - p), keep ~ Bernoulli(1 - p); returns mask.
Tensor apply_bernoulli_mask(const Tensor& src, const Tensor& dst, double p) {
  Tensor mask = at::empty(src.sizes(), src.options().dtype(kBool));
  std::bernoulli_distribution keep(1.0 - p);
  const float scale = static_cast<float>(1.0 / (1.0 - p));
  const float* in = src.data_ptr<float>();
  float* out = dst.data_ptr<float>();
  float* m = mask.data_ptr<float>();
  for (int64_t i = 0; i < src.numel(); ++i) {
    const bool k = keep(cpu_generator());
    m[i] = k ? 1.0f : 0.0f;
    out[i] = k ? in[i] * scale : 0.0f;
  }
  return mask;
}

template <bool inplace>
using Ctype = std::conditional_t<inplace, Tensor&, Tensor>;

template <bool inplace>
Ctype<inplace> _dropout_impl(std::conditional_t<inplace, Tensor&, const Tensor&> input,
                             double p, bool train) {
  TORCH_CHECK(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
  if (p == 0 || !train || input.numel() == 0) {
    return input;
  }
  if constexpr (inplace) {
    if (p == 1) {
      input.zero_();
      return input;
    }
    Tensor dense = input.contiguous();
    apply_bernoulli_mask(dense, dense, p);
    if (!input.is_contiguous()) input.copy_(dense);
    return input;
  } else {
    Tensor output = at::empty(input.sizes(), input.options());
    if (p == 1) {
      output.zero_();
      return output;
    }
    apply_bernoulli_mask(input.contiguous(), output, p);
    return output;
  }
}

} // namespace

std::tuple<Tensor, Tensor> native_dropout_cpu(const Tensor& input, double p,
                                              std::optional<bool> train) {
  const Tensor input_c = input.contiguous();
  Tensor output = at::empty(input_c.sizes(), input_c.options());
  if (input_c.numel() == 0) {
    return std::make_tuple(output, at::empty(input_c.sizes(), input_c.options().dtype(kBool)));
  }
  if (!train.has_value() || *train) {
    if (p >= 1) {
      output.zero_();
      Tensor mask = at::empty(input_c.sizes(), input_c.options().dtype(kBool));
      mask.zero_();
      return std::make_tuple(output, mask);
    }
    Tensor mask = apply_bernoulli_mask(input_c, output, p);
    return std::make_tuple(output, mask);
  }
  output.copy_(input_c);
  Tensor mask = at::empty(input_c.sizes(), input_c.options().dtype(kBool));
  mask.fill_(1);
  return std::make_tuple(output, mask);
}

Tensor dropout(const Tensor& input, double p, bool train) {
  auto result = [&]() {
    if (train && is_fused_kernel_acceptable(input, p)) {
      return std::get<0>(at::native_dropout(input, p, train));
    }
    return _dropout_impl<false>(input, p, train);
  }();
  return result;
}

Tensor& dropout_(Tensor& input, double p, bool train) {
  return _dropout_impl<true>(input, p, train);
}

} // namespace native
} // namespace at
