#pragma once

#include <ATen/core/TensorBody.h>
#include <c10/util/irange.h>

#include <vector>

namespace at::native {

// Which kernel family runs a given convolution.
enum class ConvBackend {
  Cudnn,
  CudnnTranspose,
  Empty,
  Mkldnn,
  Slow2d,
  SlowDilated2d,
};

constexpr int input_batch_size_dim = 0;
constexpr int input_channels_dim = 1;
constexpr int output_channels_dim = 1;
constexpr int weight_output_channels_dim = 0;
constexpr int weight_input_channels_dim = 1;

// Normalized convolution arguments plus the backend predicates.
struct TORCH_API ConvParams {
  std::vector<int64_t> stride;
  std::vector<int64_t> padding;
  std::vector<int64_t> dilation;
  bool transposed = false;
  std::vector<int64_t> output_padding;
  int64_t groups = 1;
  bool benchmark = false;
  bool deterministic = false;
  bool cudnn_enabled = false;
  bool allow_tf32 = false;

  bool is_strided() const;
  bool is_dilated() const;
  bool is_padded() const;
  bool is_padding_neg() const;
  bool is_stride_nonpos() const;
  void view1d_as_2d();
  bool needs_64bit_indexing_no_split(const Tensor& input, const Tensor& weight) const;
  bool use_cudnn(const Tensor& input, const Tensor& weight) const;
  bool use_mkldnn(const Tensor& input, const Tensor& weight) const;
};

TORCH_API ConvBackend select_conv_backend(const Tensor& input, const Tensor& weight,
                                          const ConvParams& params);

// Output spatial size of a (non-transposed) convolution: NCHW in, NCHW out.
inline std::vector<int64_t> conv_output_size(IntArrayRef input_size, IntArrayRef weight_size,
                                             IntArrayRef padding, IntArrayRef stride,
                                             IntArrayRef dilation = IntArrayRef()) {
  const bool has_dilation = !dilation.empty();
  const size_t dim = input_size.size();
  std::vector<int64_t> output_size(dim);
  output_size[0] = input_size[input_batch_size_dim];
  output_size[1] = weight_size[weight_output_channels_dim];
  for (size_t d = 2; d < dim; ++d) {
    const int64_t dil = has_dilation ? dilation[d - 2] : 1;
    const int64_t kernel = dil * (weight_size[d] - 1) + 1;
    output_size[d] = (input_size[d] + 2 * padding[d - 2] - kernel) / stride[d - 2] + 1;
  }
  return output_size;
}

// Broadcast a one-element list ("stride=2") to `expected_dim` entries.
template <typename T>
std::vector<T> expand_param_if_needed(ArrayRef<T> list_param, const char* param_name,
                                      int64_t expected_dim) {
  if (list_param.size() == 1) {
    return std::vector<T>(static_cast<size_t>(expected_dim), list_param[0]);
  }
  TORCH_CHECK(static_cast<int64_t>(list_param.size()) == expected_dim, "expected ", param_name,
              " to be a single integer value or a list of ", expected_dim,
              " values to match the convolution dimensions, but got ", param_name, "=",
              list_param);
  return list_param.vec();
}

} // namespace at::native
