#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#include <ATen/core/Tensor.h>

#include <vector>

namespace at::native {

Tensor embedding_symint(const Tensor& weight, const Tensor& indices, c10::SymInt padding_idx,
                        bool scale_grad_by_freq, bool sparse) {
  // padding_idx / scale_grad_by_freq / sparse only change the backward pass
  (void)padding_idx;
  (void)scale_grad_by_freq;
  (void)sparse;
  TORCH_CHECK(weight.dim() == 2, "'weight' must be 2-D");
  TORCH_CHECK(indices.scalar_type() == kLong, "Expected tensor for argument #1 'indices' to have ",
              "scalar type Long; but got ", indices.scalar_type(), " instead");

  if (indices.dim() == 1) {
    return weight.index_select(0, indices);
  }
  std::vector<int64_t> size = indices.sizes().vec();
  for (int64_t d : weight.sizes().slice(1)) {
    size.push_back(d);
  }
  return weight.index_select(0, indices.reshape(-1)).reshape(size);
}

} // namespace at::native
