#pragma once

// Hand-written stand-in for the generated ATen/NativeFunctions.h: the
// at::native kernels named under `dispatch:` in native_functions.yaml.
// Kernel names ending in _symint take SymInt arguments; the others get ints.

#include <ATen/NativeMetaFunctions.h>
#include <ATen/core/TensorBody.h>
#include <c10/core/Layout.h>
#include <c10/core/MemoryFormat.h>

#include <optional>
#include <string_view>
#include <tuple>

namespace at {
namespace native {

// convolution
TORCH_API Tensor conv2d_symint(const Tensor& input, const Tensor& weight,
                               const std::optional<Tensor>& bias, c10::SymIntArrayRef stride,
                               c10::SymIntArrayRef padding, c10::SymIntArrayRef dilation,
                               c10::SymInt groups);
TORCH_API Tensor conv2d_padding_symint(const Tensor& input, const Tensor& weight,
                                       const std::optional<Tensor>& bias,
                                       c10::SymIntArrayRef stride, std::string_view padding,
                                       c10::SymIntArrayRef dilation, c10::SymInt groups);
TORCH_API Tensor convolution(const Tensor& input, const Tensor& weight,
                             const std::optional<Tensor>& bias, IntArrayRef stride,
                             IntArrayRef padding, IntArrayRef dilation, bool transposed,
                             IntArrayRef output_padding, int64_t groups);
TORCH_API Tensor _convolution(const Tensor& input, const Tensor& weight,
                              const std::optional<Tensor>& bias, IntArrayRef stride,
                              IntArrayRef padding, IntArrayRef dilation, bool transposed,
                              IntArrayRef output_padding, int64_t groups, bool benchmark,
                              bool deterministic, bool cudnn_enabled, bool allow_tf32);
TORCH_API Tensor cudnn_convolution(const Tensor& self, const Tensor& weight, IntArrayRef padding,
                                   IntArrayRef stride, IntArrayRef dilation, int64_t groups,
                                   bool benchmark, bool deterministic, bool allow_tf32);
TORCH_API Tensor mkldnn_convolution(const Tensor& self, const Tensor& weight,
                                    const std::optional<Tensor>& bias, IntArrayRef padding,
                                    IntArrayRef stride, IntArrayRef dilation, int64_t groups);
TORCH_API Tensor slow_conv2d_forward_cpu(const Tensor& self, const Tensor& weight,
                                         IntArrayRef kernel_size,
                                         const std::optional<Tensor>& bias, IntArrayRef stride,
                                         IntArrayRef padding);
TORCH_API Tensor slow_conv2d_forward_cuda(const Tensor& self, const Tensor& weight,
                                          IntArrayRef kernel_size,
                                          const std::optional<Tensor>& bias, IntArrayRef stride,
                                          IntArrayRef padding);

// linear algebra
TORCH_API Tensor linear(const Tensor& input, const Tensor& weight,
                        const std::optional<Tensor>& bias);
TORCH_API Tensor t(const Tensor& self);

struct TORCH_API structured_addmm_out_cpu : public at::meta::structured_addmm {
  void impl(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
            const Scalar& alpha, const Tensor& out);
};
struct TORCH_API structured_addmm_out_cuda : public at::meta::structured_addmm {
  void impl(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
            const Scalar& alpha, const Tensor& out);
};

// normalization
TORCH_API Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight,
                            const std::optional<Tensor>& bias,
                            const std::optional<Tensor>& running_mean,
                            const std::optional<Tensor>& running_var, bool training,
                            double momentum, double eps, bool cudnn_enabled);
TORCH_API std::tuple<Tensor, Tensor, Tensor, Tensor, int64_t> _batch_norm_impl_index(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    bool training, double momentum, double eps, bool cudnn_enabled);
TORCH_API std::tuple<Tensor, Tensor, Tensor, Tensor> cudnn_batch_norm(
    const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    bool training, double exponential_average_factor, double epsilon);
TORCH_API std::tuple<Tensor, Tensor, Tensor> batch_norm_cpu(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    bool train, double momentum, double eps);
TORCH_API std::tuple<Tensor, Tensor, Tensor> batch_norm_cuda(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    bool train, double momentum, double eps);

// activations
TORCH_API Tensor relu(const Tensor& self);
TORCH_API Tensor& relu_(Tensor& self);

// softmax
TORCH_API Tensor softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype);

struct TORCH_API structured_softmax_cpu_out : public at::meta::structured__softmax {
  void impl(const Tensor& self, int64_t dim, bool half_to_float, const Tensor& out);
};
struct TORCH_API structured_softmax_cuda_out : public at::meta::structured__softmax {
  void impl(const Tensor& self, int64_t dim, bool half_to_float, const Tensor& out);
};

// pooling
TORCH_API Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                            IntArrayRef padding, IntArrayRef dilation, bool ceil_mode);

struct TORCH_API structured_max_pool2d_with_indices_out_cpu
    : public at::meta::structured_max_pool2d_with_indices {
  void impl(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
            IntArrayRef dilation, bool ceil_mode, const Tensor& out, const Tensor& indices);
};
struct TORCH_API structured_max_pool2d_with_indices_out_cuda
    : public at::meta::structured_max_pool2d_with_indices {
  void impl(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
            IntArrayRef dilation, bool ceil_mode, const Tensor& out, const Tensor& indices);
};

// dropout
TORCH_API Tensor dropout(const Tensor& input, double p, bool train);
TORCH_API Tensor& dropout_(Tensor& input, double p, bool train);
TORCH_API std::tuple<Tensor, Tensor> native_dropout_cpu(const Tensor& input, double p,
                                                        std::optional<bool> train);
TORCH_API std::tuple<Tensor, Tensor> native_dropout_cuda(const Tensor& input, double p,
                                                         std::optional<bool> train);

// embedding / indexing
TORCH_API Tensor embedding_symint(const Tensor& weight, const Tensor& indices,
                                  c10::SymInt padding_idx, bool scale_grad_by_freq, bool sparse);
TORCH_API Tensor index_select_cpu_(const Tensor& self, int64_t dim, const Tensor& index);
TORCH_API Tensor index_select_cuda(const Tensor& self, int64_t dim, const Tensor& index);

// recurrent
TORCH_API std::tuple<Tensor, Tensor, Tensor> lstm(const Tensor& input, TensorList hx,
                                                  TensorList params, bool has_biases,
                                                  int64_t num_layers, double dropout, bool train,
                                                  bool bidirectional, bool batch_first);
TORCH_API std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> _cudnn_rnn(
    const Tensor& input, TensorList weight, int64_t weight_stride0,
    const std::optional<Tensor>& weight_buf, const Tensor& hx, const std::optional<Tensor>& cx,
    int64_t mode, int64_t hidden_size, int64_t proj_size, int64_t num_layers, bool batch_first,
    double dropout, bool train, bool bidirectional, IntArrayRef batch_sizes,
    const std::optional<Tensor>& dropout_state);
TORCH_API bool cudnn_is_acceptable(const Tensor& self);

// pointwise
struct TORCH_API structured_add_out : public at::meta::structured_add_Tensor {
  void impl(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out);
};

// padding
TORCH_API Tensor pad_symint(const Tensor& self, c10::SymIntArrayRef pad, std::string_view mode,
                            std::optional<double> value);
TORCH_API Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& value);

// factories
TORCH_API Tensor empty_cpu(IntArrayRef size, std::optional<ScalarType> dtype,
                           std::optional<Layout> layout, std::optional<Device> device,
                           std::optional<bool> pin_memory,
                           std::optional<MemoryFormat> memory_format);
TORCH_API Tensor empty_cuda(IntArrayRef size, std::optional<ScalarType> dtype,
                            std::optional<Layout> layout, std::optional<Device> device,
                            std::optional<bool> pin_memory,
                            std::optional<MemoryFormat> memory_format);


// element-wise, reductions, products
TORCH_API Tensor exp(const Tensor& self);
TORCH_API Tensor& exp_out(const Tensor& self, Tensor& out);
TORCH_API Tensor sum(const Tensor& self, std::optional<ScalarType> dtype);
TORCH_API Tensor mm_cuda(const Tensor& self, const Tensor& mat2);

} // namespace native
} // namespace at
