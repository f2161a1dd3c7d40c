#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#include <ATen/core/Tensor.h>

#include <vector>

namespace at::native {

Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias_opt) {
  const Tensor bias = bias_opt.value_or(Tensor());
  TORCH_CHECK(input.dim() >= 1, "linear: input must have at least one dimension");
  TORCH_CHECK(weight.dim() == 2, "linear: weight must be 2-D, got ", weight.dim(), "-D");
  TORCH_CHECK(input.size(-1) == weight.size(1), "linear: mat1 and mat2 shapes cannot be ",
              "multiplied (in_features ", input.size(-1), " vs weight ", weight.sizes(), ")");

  if (input.dim() == 2 && bias.defined()) {
    // Fused bias add: out = bias + input @ weight^T.
    return at::addmm(bias, input, weight.t());
  }

  // Fold leading dims into rows, multiply, then restore the batch shape.
  const Tensor input2d = input.reshape({-1, input.size(-1)});
  Tensor bias_or_zero = bias;
  Scalar beta = 1;
  if (!bias_or_zero.defined()) {
    bias_or_zero = at::empty({weight.size(0)}, input.options());
    bias_or_zero.zero_();
    beta = 0;
  }
  const Tensor out2d = at::addmm(bias_or_zero, input2d, weight.t(), beta);
  std::vector<int64_t> out_sizes = input.sizes().vec();
  out_sizes.back() = weight.size(0);
  return out2d.reshape(out_sizes);
}

} // namespace at::native
