#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#include <ATen/core/Tensor.h>

#include <cstring>
#include <vector>

namespace at {
namespace native {

// Copies slices of `self` along `dim` in the order given by `index`.
static Tensor& index_select_out_cpu_(const Tensor& self, int64_t dim, const Tensor& index,
                                     Tensor& result) {
  const Tensor src = self.contiguous();
  const Tensor idx = index.contiguous();
  const int64_t n_index = idx.numel();
  const int64_t dim_size = src.dim() == 0 ? 1 : src.size(dim);

  int64_t outer = 1;
  int64_t inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= src.size(d);
  for (int64_t d = dim + 1; d < src.dim(); ++d) inner *= src.size(d);

  // Index values are integral but live in the float buffer of this tree.
  const float* index_data = idx.data_ptr<float>();
  const float* in = src.data_ptr<float>();
  float* out = result.data_ptr<float>();
  for (int64_t i = 0; i < n_index; ++i) {
    const int64_t k = static_cast<int64_t>(index_data[i]);
    TORCH_CHECK(k >= 0 && k < dim_size, "index out of range in self: index ", k,
                " for dimension of size ", dim_size);
  }
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < n_index; ++i) {
      const int64_t k = static_cast<int64_t>(index_data[i]);
      std::memcpy(out + (o * n_index + i) * inner, in + (o * dim_size + k) * inner,
                  static_cast<size_t>(inner) * sizeof(float));
    }
  }
  return result;
}

Tensor index_select_cpu_(const Tensor& self, int64_t dim, const Tensor& index) {
  TORCH_CHECK(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  TORCH_CHECK(index.scalar_type() == kLong, "index_select(): Expected dtype int64 for index");
  dim = c10::maybe_wrap_dim(dim, self.dim());
  std::vector<int64_t> out_sizes = self.sizes().vec();
  if (!out_sizes.empty()) out_sizes[dim] = index.numel();
  Tensor result = at::empty(out_sizes, self.options());
  return index_select_out_cpu_(self, dim, index, result);
}

} // namespace native
} // namespace at
