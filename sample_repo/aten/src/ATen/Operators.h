#pragma once

// Hand-written stand-in for the generated ATen/Operators.h: one struct per
// entry of native_functions.yaml. `call` goes through c10::Dispatcher, which
// picks the kernel named under `dispatch:` for the tensor's device; torchgen
// generates the definitions of `call` (Operators.cpp) when the library is built.

#include <ATen/core/TensorBody.h>
#include <c10/core/Layout.h>
#include <c10/core/MemoryFormat.h>

#include <optional>
#include <string_view>
#include <tuple>

namespace at {
namespace _ops {

struct TORCH_API conv2d {
  static constexpr const char* name = "aten::conv2d";
  static constexpr const char* overload_name = "";
  static Tensor call(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                     c10::SymIntArrayRef stride, c10::SymIntArrayRef padding,
                     c10::SymIntArrayRef dilation, c10::SymInt groups);
};

struct TORCH_API conv2d_padding {
  static constexpr const char* name = "aten::conv2d";
  static constexpr const char* overload_name = "padding";
  static Tensor call(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                     c10::SymIntArrayRef stride, std::string_view padding,
                     c10::SymIntArrayRef dilation, c10::SymInt groups);
};

struct TORCH_API convolution {
  static constexpr const char* name = "aten::convolution";
  static constexpr const char* overload_name = "";
  static Tensor call(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                     c10::SymIntArrayRef stride, c10::SymIntArrayRef padding,
                     c10::SymIntArrayRef dilation, bool transposed,
                     c10::SymIntArrayRef output_padding, c10::SymInt groups);
};

struct TORCH_API _convolution {
  static constexpr const char* name = "aten::_convolution";
  static constexpr const char* overload_name = "";
  static Tensor call(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                     c10::SymIntArrayRef stride, c10::SymIntArrayRef padding,
                     c10::SymIntArrayRef dilation, bool transposed,
                     c10::SymIntArrayRef output_padding, c10::SymInt groups, bool benchmark,
                     bool deterministic, bool cudnn_enabled, bool allow_tf32);
};

struct TORCH_API cudnn_convolution {
  static constexpr const char* name = "aten::cudnn_convolution";
  static constexpr const char* overload_name = "";
  static Tensor call(const Tensor& self, const Tensor& weight, c10::SymIntArrayRef padding,
                     c10::SymIntArrayRef stride, c10::SymIntArrayRef dilation, c10::SymInt groups,
                     bool benchmark, bool deterministic, bool allow_tf32);
};

struct TORCH_API mkldnn_convolution {
  static constexpr const char* name = "aten::mkldnn_convolution";
  static constexpr const char* overload_name = "";
  static Tensor call(const Tensor& self, const Tensor& weight, const std::optional<Tensor>& bias,
                     c10::SymIntArrayRef padding, c10::SymIntArrayRef stride,
                     c10::SymIntArrayRef dilation, c10::SymInt groups);
};

struct TORCH_API _slow_conv2d_forward {
  static constexpr const char* name = "aten::_slow_conv2d_forward";
  static constexpr const char* overload_name = "";
  static Tensor call(const Tensor& self, const Tensor& weight, c10::SymIntArrayRef kernel_size,
                     const std::optional<Tensor>& bias, c10::SymIntArrayRef stride,
                     c10::SymIntArrayRef padding);
};

struct TORCH_API linear {
  static constexpr const char* name = "aten::linear";
  static constexpr const char* overload_name = "";
  static Tensor call(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias);
};

struct TORCH_API t {
  static constexpr const char* name = "aten::t";
  static constexpr const char* overload_name = "";
  static Tensor call(const Tensor& self);
};

struct TORCH_API addmm {
  static constexpr const char* name = "aten::addmm";
  static constexpr const char* overload_name = "";
  static Tensor call(const Tensor& self, const Tensor& mat1, const Tensor& mat2,
                     const Scalar& beta, const Scalar& alpha);
};

struct TORCH_API addmm_out {
  static constexpr const char* name = "aten::addmm";
  static constexpr const char* overload_name = "out";
  static Tensor& call(const Tensor& self, const Tensor& mat1, const Tensor& mat2,
                      const Scalar& beta, const Scalar& alpha, Tensor& out);
};

struct TORCH_API batch_norm {
  static constexpr const char* name = "aten::batch_norm";
  static constexpr const char* overload_name = "";
  static Tensor call(const Tensor& input, const std::optional<Tensor>& weight,
                     const std::optional<Tensor>& bias, const std::optional<Tensor>& running_mean,
                     const std::optional<Tensor>& running_var, bool training, double momentum,
                     double eps, bool cudnn_enabled);
};

struct TORCH_API _batch_norm_impl_index {
  static constexpr const char* name = "aten::_batch_norm_impl_index";
  static constexpr const char* overload_name = "";
  static std::tuple<Tensor, Tensor, Tensor, Tensor, int64_t> call(
      const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
      const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
      bool training, double momentum, double eps, bool cudnn_enabled);
};

struct TORCH_API cudnn_batch_norm {
  static constexpr const char* name = "aten::cudnn_batch_norm";
  static constexpr const char* overload_name = "";
  static std::tuple<Tensor, Tensor, Tensor, Tensor> call(
      const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
      const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
      bool training, double exponential_average_factor, double epsilon);
};

struct TORCH_API native_batch_norm {
  static constexpr const char* name = "aten::native_batch_norm";
  static constexpr const char* overload_name = "";
  static std::tuple<Tensor, Tensor, Tensor> call(
      const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
      const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
      bool training, double momentum, double eps);
};

struct TORCH_API relu {
  static constexpr const char* name = "aten::relu";
  static constexpr const char* overload_name = "";
  static Tensor call(const Tensor& self);
};

struct TORCH_API relu_ {
  static constexpr const char* name = "aten::relu_";
  static constexpr const char* overload_name = "";
  static Tensor& call(Tensor& self);
};

struct TORCH_API softmax_int {
  static constexpr const char* name = "aten::softmax";
  static constexpr const char* overload_name = "int";
  static Tensor call(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype);
};

struct TORCH_API _softmax {
  static constexpr const char* name = "aten::_softmax";
  static constexpr const char* overload_name = "";
  static Tensor call(const Tensor& self, int64_t dim, bool half_to_float);
};

struct TORCH_API _softmax_out {
  static constexpr const char* name = "aten::_softmax";
  static constexpr const char* overload_name = "out";
  static Tensor& call(const Tensor& self, int64_t dim, bool half_to_float, Tensor& out);
};

struct TORCH_API max_pool2d {
  static constexpr const char* name = "aten::max_pool2d";
  static constexpr const char* overload_name = "";
  static Tensor call(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                     IntArrayRef padding, IntArrayRef dilation, bool ceil_mode);
};

struct TORCH_API max_pool2d_with_indices {
  static constexpr const char* name = "aten::max_pool2d_with_indices";
  static constexpr const char* overload_name = "";
  static std::tuple<Tensor, Tensor> call(const Tensor& self, IntArrayRef kernel_size,
                                         IntArrayRef stride, IntArrayRef padding,
                                         IntArrayRef dilation, bool ceil_mode);
};

struct TORCH_API max_pool2d_with_indices_out {
  static constexpr const char* name = "aten::max_pool2d_with_indices";
  static constexpr const char* overload_name = "out";
  static std::tuple<Tensor&, Tensor&> call(const Tensor& self, IntArrayRef kernel_size,
                                           IntArrayRef stride, IntArrayRef padding,
                                           IntArrayRef dilation, bool ceil_mode, Tensor& out,
                                           Tensor& indices);
};

struct TORCH_API dropout {
  static constexpr const char* name = "aten::dropout";
  static constexpr const char* overload_name = "";
  static Tensor call(const Tensor& input, double p, bool train);
};

struct TORCH_API dropout_ {
  static constexpr const char* name = "aten::dropout_";
  static constexpr const char* overload_name = "";
  static Tensor& call(Tensor& self, double p, bool train);
};

struct TORCH_API native_dropout {
  static constexpr const char* name = "aten::native_dropout";
  static constexpr const char* overload_name = "";
  static std::tuple<Tensor, Tensor> call(const Tensor& input, double p, std::optional<bool> train);
};

struct TORCH_API embedding {
  static constexpr const char* name = "aten::embedding";
  static constexpr const char* overload_name = "";
  static Tensor call(const Tensor& weight, const Tensor& indices, c10::SymInt padding_idx,
                     bool scale_grad_by_freq, bool sparse);
};

struct TORCH_API index_select {
  static constexpr const char* name = "aten::index_select";
  static constexpr const char* overload_name = "";
  static Tensor call(const Tensor& self, int64_t dim, const Tensor& index);
};

struct TORCH_API lstm_input {
  static constexpr const char* name = "aten::lstm";
  static constexpr const char* overload_name = "input";
  static std::tuple<Tensor, Tensor, Tensor> call(const Tensor& input, TensorList hx,
                                                 TensorList params, bool has_biases,
                                                 int64_t num_layers, double dropout, bool train,
                                                 bool bidirectional, bool batch_first);
};

struct TORCH_API _cudnn_rnn {
  static constexpr const char* name = "aten::_cudnn_rnn";
  static constexpr const char* overload_name = "";
  static std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> call(
      const Tensor& input, TensorList weight, int64_t weight_stride0,
      const std::optional<Tensor>& weight_buf, const Tensor& hx, const std::optional<Tensor>& cx,
      int64_t mode, c10::SymInt hidden_size, c10::SymInt proj_size, int64_t num_layers,
      bool batch_first, double dropout, bool train, bool bidirectional,
      c10::SymIntArrayRef batch_sizes, const std::optional<Tensor>& dropout_state);
};

struct TORCH_API cudnn_is_acceptable {
  static constexpr const char* name = "aten::cudnn_is_acceptable";
  static constexpr const char* overload_name = "";
  static bool call(const Tensor& self);
};

struct TORCH_API add_Tensor {
  static constexpr const char* name = "aten::add";
  static constexpr const char* overload_name = "Tensor";
  static Tensor call(const Tensor& self, const Tensor& other, const Scalar& alpha);
};

struct TORCH_API add_out {
  static constexpr const char* name = "aten::add";
  static constexpr const char* overload_name = "out";
  static Tensor& call(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out);
};

struct TORCH_API pad {
  static constexpr const char* name = "aten::pad";
  static constexpr const char* overload_name = "";
  static Tensor call(const Tensor& self, c10::SymIntArrayRef pad, std::string_view mode,
                     std::optional<double> value);
};

struct TORCH_API constant_pad_nd {
  static constexpr const char* name = "aten::constant_pad_nd";
  static constexpr const char* overload_name = "";
  static Tensor call(const Tensor& self, c10::SymIntArrayRef pad, const Scalar& value);
};

struct TORCH_API empty_memory_format {
  static constexpr const char* name = "aten::empty";
  static constexpr const char* overload_name = "memory_format";
  static Tensor call(c10::SymIntArrayRef size, std::optional<ScalarType> dtype,
                     std::optional<Layout> layout, std::optional<Device> device,
                     std::optional<bool> pin_memory, std::optional<MemoryFormat> memory_format);
};

struct TORCH_API mm {
  static constexpr const char* name = "aten::mm";
  static constexpr const char* overload_name = "";
  static Tensor call(const Tensor& self, const Tensor& mat2);
};

struct TORCH_API exp {
  static constexpr const char* name = "aten::exp";
  static constexpr const char* overload_name = "";
  static Tensor call(const Tensor& self);
};

struct TORCH_API exp_out {
  static constexpr const char* name = "aten::exp";
  static constexpr const char* overload_name = "out";
  static Tensor& call(const Tensor& self, Tensor& out);
};

struct TORCH_API sum {
  static constexpr const char* name = "aten::sum";
  static constexpr const char* overload_name = "";
  static Tensor call(const Tensor& self, std::optional<ScalarType> dtype);
};

} // namespace _ops
} // namespace at
