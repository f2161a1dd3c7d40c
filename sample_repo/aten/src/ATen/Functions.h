#pragma once

// Hand-written stand-in for the generated ATen/Functions.h: the public
// at::op(...) entry points. at::op takes plain ints for SymInt arguments;
// ops that composite kernels call with SymInts also get at::op_symint.
// Both spellings land in at::_ops::<op>::call.

#include <ATen/Operators.h>
#include <ATen/core/TensorBody.h>

namespace at {

// ---- convolution ----
inline Tensor conv2d(const Tensor& input, const Tensor& weight,
                     const std::optional<Tensor>& bias = std::nullopt, IntArrayRef stride = 1,
                     IntArrayRef padding = 0, IntArrayRef dilation = 1, int64_t groups = 1) {
  return at::_ops::conv2d::call(input, weight, bias, c10::fromIntArrayRefSlow(stride),
                                c10::fromIntArrayRefSlow(padding),
                                c10::fromIntArrayRefSlow(dilation), groups);
}
inline Tensor conv2d_symint(const Tensor& input, const Tensor& weight,
                            const std::optional<Tensor>& bias = std::nullopt,
                            c10::SymIntArrayRef stride = c10::SymInt(1),
                            c10::SymIntArrayRef padding = c10::SymInt(0),
                            c10::SymIntArrayRef dilation = c10::SymInt(1),
                            c10::SymInt groups = 1) {
  return at::_ops::conv2d::call(input, weight, bias, stride, padding, dilation, groups);
}
inline Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                     IntArrayRef stride, std::string_view padding, IntArrayRef dilation = 1,
                     int64_t groups = 1) {
  return at::_ops::conv2d_padding::call(input, weight, bias, c10::fromIntArrayRefSlow(stride),
                                        padding, c10::fromIntArrayRefSlow(dilation), groups);
}
inline Tensor conv2d_symint(const Tensor& input, const Tensor& weight,
                            const std::optional<Tensor>& bias, c10::SymIntArrayRef stride,
                            std::string_view padding,
                            c10::SymIntArrayRef dilation = c10::SymInt(1),
                            c10::SymInt groups = 1) {
  return at::_ops::conv2d_padding::call(input, weight, bias, stride, padding, dilation, groups);
}

inline Tensor convolution(const Tensor& input, const Tensor& weight,
                          const std::optional<Tensor>& bias, IntArrayRef stride,
                          IntArrayRef padding, IntArrayRef dilation, bool transposed,
                          IntArrayRef output_padding, int64_t groups) {
  return at::_ops::convolution::call(input, weight, bias, c10::fromIntArrayRefSlow(stride),
                                     c10::fromIntArrayRefSlow(padding),
                                     c10::fromIntArrayRefSlow(dilation), transposed,
                                     c10::fromIntArrayRefSlow(output_padding), groups);
}
inline Tensor convolution_symint(const Tensor& input, const Tensor& weight,
                                 const std::optional<Tensor>& bias, c10::SymIntArrayRef stride,
                                 c10::SymIntArrayRef padding, c10::SymIntArrayRef dilation,
                                 bool transposed, c10::SymIntArrayRef output_padding,
                                 c10::SymInt groups) {
  return at::_ops::convolution::call(input, weight, bias, stride, padding, dilation, transposed,
                                     output_padding, groups);
}

inline Tensor _convolution(const Tensor& input, const Tensor& weight,
                           const std::optional<Tensor>& bias, IntArrayRef stride,
                           IntArrayRef padding, IntArrayRef dilation, bool transposed,
                           IntArrayRef output_padding, int64_t groups, bool benchmark,
                           bool deterministic, bool cudnn_enabled, bool allow_tf32) {
  return at::_ops::_convolution::call(input, weight, bias, c10::fromIntArrayRefSlow(stride),
                                      c10::fromIntArrayRefSlow(padding),
                                      c10::fromIntArrayRefSlow(dilation), transposed,
                                      c10::fromIntArrayRefSlow(output_padding), groups,
                                      benchmark, deterministic, cudnn_enabled, allow_tf32);
}

inline Tensor cudnn_convolution(const Tensor& self, const Tensor& weight, IntArrayRef padding,
                                IntArrayRef stride, IntArrayRef dilation, int64_t groups,
                                bool benchmark, bool deterministic, bool allow_tf32) {
  return at::_ops::cudnn_convolution::call(self, weight, c10::fromIntArrayRefSlow(padding),
                                           c10::fromIntArrayRefSlow(stride),
                                           c10::fromIntArrayRefSlow(dilation), groups, benchmark,
                                           deterministic, allow_tf32);
}

inline Tensor mkldnn_convolution(const Tensor& self, const Tensor& weight,
                                 const std::optional<Tensor>& bias, IntArrayRef padding,
                                 IntArrayRef stride, IntArrayRef dilation, int64_t groups) {
  return at::_ops::mkldnn_convolution::call(self, weight, bias, c10::fromIntArrayRefSlow(padding),
                                            c10::fromIntArrayRefSlow(stride),
                                            c10::fromIntArrayRefSlow(dilation), groups);
}

inline Tensor _slow_conv2d_forward(const Tensor& self, const Tensor& weight,
                                   IntArrayRef kernel_size, const std::optional<Tensor>& bias,
                                   IntArrayRef stride, IntArrayRef padding) {
  return at::_ops::_slow_conv2d_forward::call(self, weight, c10::fromIntArrayRefSlow(kernel_size),
                                              bias, c10::fromIntArrayRefSlow(stride),
                                              c10::fromIntArrayRefSlow(padding));
}

// ---- linear algebra ----
inline Tensor linear(const Tensor& input, const Tensor& weight,
                     const std::optional<Tensor>& bias = std::nullopt) {
  return at::_ops::linear::call(input, weight, bias);
}

inline Tensor t(const Tensor& self) {
  return at::_ops::t::call(self);
}

inline Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2,
                    const Scalar& beta = 1, const Scalar& alpha = 1) {
  return at::_ops::addmm::call(self, mat1, mat2, beta, alpha);
}
inline Tensor& addmm_out(Tensor& out, const Tensor& self, const Tensor& mat1, const Tensor& mat2,
                         const Scalar& beta = 1, const Scalar& alpha = 1) {
  return at::_ops::addmm_out::call(self, mat1, mat2, beta, alpha, out);
}

// ---- normalization ----
inline Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight,
                         const std::optional<Tensor>& bias,
                         const std::optional<Tensor>& running_mean,
                         const std::optional<Tensor>& running_var, bool training,
                         double momentum, double eps, bool cudnn_enabled) {
  return at::_ops::batch_norm::call(input, weight, bias, running_mean, running_var, training,
                                    momentum, eps, cudnn_enabled);
}
inline std::tuple<Tensor, Tensor, Tensor, Tensor, int64_t> _batch_norm_impl_index(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    bool training, double momentum, double eps, bool cudnn_enabled) {
  return at::_ops::_batch_norm_impl_index::call(input, weight, bias, running_mean, running_var,
                                                training, momentum, eps, cudnn_enabled);
}
inline std::tuple<Tensor, Tensor, Tensor, Tensor> cudnn_batch_norm(
    const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    bool training, double exponential_average_factor, double epsilon) {
  return at::_ops::cudnn_batch_norm::call(input, weight, bias, running_mean, running_var,
                                          training, exponential_average_factor, epsilon);
}
inline std::tuple<Tensor, Tensor, Tensor> native_batch_norm(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    bool training, double momentum, double eps) {
  return at::_ops::native_batch_norm::call(input, weight, bias, running_mean, running_var,
                                           training, momentum, eps);
}

// ---- activations / softmax ----
inline Tensor relu(const Tensor& self) {
  return at::_ops::relu::call(self);
}
inline Tensor& relu_(Tensor& self) {
  return at::_ops::relu_::call(self);
}

inline Tensor softmax(const Tensor& self, int64_t dim,
                      std::optional<ScalarType> dtype = std::nullopt) {
  return at::_ops::softmax_int::call(self, dim, dtype);
}
inline Tensor _softmax(const Tensor& self, int64_t dim, bool half_to_float) {
  return at::_ops::_softmax::call(self, dim, half_to_float);
}
inline Tensor& _softmax_out(Tensor& out, const Tensor& self, int64_t dim, bool half_to_float) {
  return at::_ops::_softmax_out::call(self, dim, half_to_float, out);
}

// ---- pooling / dropout ----
inline Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                         IntArrayRef padding = 0, IntArrayRef dilation = 1,
                         bool ceil_mode = false) {
  return at::_ops::max_pool2d::call(self, kernel_size, stride, padding, dilation, ceil_mode);
}
inline std::tuple<Tensor, Tensor> max_pool2d_with_indices(
    const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
    IntArrayRef padding = 0, IntArrayRef dilation = 1, bool ceil_mode = false) {
  return at::_ops::max_pool2d_with_indices::call(self, kernel_size, stride, padding, dilation,
                                                 ceil_mode);
}
inline std::tuple<Tensor&, Tensor&> max_pool2d_with_indices_out(
    Tensor& out, Tensor& indices, const Tensor& self, IntArrayRef kernel_size,
    IntArrayRef stride = {}, IntArrayRef padding = 0, IntArrayRef dilation = 1,
    bool ceil_mode = false) {
  return at::_ops::max_pool2d_with_indices_out::call(self, kernel_size, stride, padding, dilation,
                                                     ceil_mode, out, indices);
}

inline Tensor dropout(const Tensor& input, double p, bool train) {
  return at::_ops::dropout::call(input, p, train);
}
inline Tensor& dropout_(Tensor& self, double p, bool train) {
  return at::_ops::dropout_::call(self, p, train);
}
inline std::tuple<Tensor, Tensor> native_dropout(const Tensor& input, double p,
                                                 std::optional<bool> train) {
  return at::_ops::native_dropout::call(input, p, train);
}

// ---- embedding / indexing ----
inline Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx = -1,
                        bool scale_grad_by_freq = false, bool sparse = false) {
  return at::_ops::embedding::call(weight, indices, padding_idx, scale_grad_by_freq, sparse);
}
inline Tensor embedding_symint(const Tensor& weight, const Tensor& indices,
                               c10::SymInt padding_idx = -1, bool scale_grad_by_freq = false,
                               bool sparse = false) {
  return at::_ops::embedding::call(weight, indices, padding_idx, scale_grad_by_freq, sparse);
}

inline Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  return at::_ops::index_select::call(self, dim, index);
}

// ---- recurrent ----
inline std::tuple<Tensor, Tensor, Tensor> lstm(const Tensor& input, TensorList hx,
                                               TensorList params, bool has_biases,
                                               int64_t num_layers, double dropout, bool train,
                                               bool bidirectional, bool batch_first) {
  return at::_ops::lstm_input::call(input, hx, params, has_biases, num_layers, dropout, train,
                                    bidirectional, batch_first);
}

inline std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> _cudnn_rnn(
    const Tensor& input, TensorList weight, int64_t weight_stride0,
    const std::optional<Tensor>& weight_buf, const Tensor& hx, const std::optional<Tensor>& cx,
    int64_t mode, int64_t hidden_size, int64_t proj_size, int64_t num_layers, bool batch_first,
    double dropout, bool train, bool bidirectional, IntArrayRef batch_sizes,
    const std::optional<Tensor>& dropout_state) {
  return at::_ops::_cudnn_rnn::call(input, weight, weight_stride0, weight_buf, hx, cx, mode,
                                    hidden_size, proj_size, num_layers, batch_first, dropout,
                                    train, bidirectional, c10::fromIntArrayRefSlow(batch_sizes),
                                    dropout_state);
}

inline bool cudnn_is_acceptable(const Tensor& self) {
  return at::_ops::cudnn_is_acceptable::call(self);
}

// ---- pointwise ----
inline Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha = 1) {
  return at::_ops::add_Tensor::call(self, other, alpha);
}
inline Tensor& add_out(Tensor& out, const Tensor& self, const Tensor& other,
                       const Scalar& alpha = 1) {
  return at::_ops::add_out::call(self, other, alpha, out);
}

// ---- padding ----
inline Tensor pad(const Tensor& self, IntArrayRef pad, std::string_view mode = "constant",
                  std::optional<double> value = std::nullopt) {
  return at::_ops::pad::call(self, c10::fromIntArrayRefSlow(pad), mode, value);
}
inline Tensor pad_symint(const Tensor& self, c10::SymIntArrayRef pad,
                         std::string_view mode = "constant",
                         std::optional<double> value = std::nullopt) {
  return at::_ops::pad::call(self, pad, mode, value);
}

inline Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& value = 0) {
  return at::_ops::constant_pad_nd::call(self, c10::fromIntArrayRefSlow(pad), value);
}
inline Tensor constant_pad_nd_symint(const Tensor& self, c10::SymIntArrayRef pad,
                                     const Scalar& value = 0) {
  return at::_ops::constant_pad_nd::call(self, pad, value);
}

// ---- factories ----
inline Tensor empty(IntArrayRef size, TensorOptions options = {},
                    std::optional<MemoryFormat> memory_format = std::nullopt) {
  return at::_ops::empty_memory_format::call(c10::fromIntArrayRefSlow(size), options.dtype_opt(),
                                             options.layout_opt(), options.device_opt(),
                                             std::nullopt, memory_format);
}
inline Tensor empty(IntArrayRef size, std::optional<ScalarType> dtype,
                    std::optional<Layout> layout, std::optional<Device> device,
                    std::optional<bool> pin_memory, std::optional<MemoryFormat> memory_format) {
  return at::_ops::empty_memory_format::call(c10::fromIntArrayRefSlow(size), dtype, layout,
                                             device, pin_memory, memory_format);
}


// ---- element-wise, reductions, products ----
inline Tensor exp(const Tensor& self) {
  return at::_ops::exp::call(self);
}
inline Tensor& exp_out(Tensor& out, const Tensor& self) {
  return at::_ops::exp_out::call(self, out);
}
inline Tensor sum(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt) {
  return at::_ops::sum::call(self, dtype);
}
inline Tensor mm(const Tensor& self, const Tensor& mat2) {
  return at::_ops::mm::call(self, mat2);
}

} // namespace at
