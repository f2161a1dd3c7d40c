#include <ATen/Config.h>
#include <ATen/Context.h>
#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#include <ATen/core/Tensor.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <ATen/native/ConvUtils.h>

#include <limits>

namespace {

using at::native::ConvBackend;
using at::native::ConvParams;

const char* conv_backend_name(ConvBackend backend) {
  switch (backend) {
    case ConvBackend::Cudnn:
      return "Cudnn";
    case ConvBackend::CudnnTranspose:
      return "CudnnTranspose";
    case ConvBackend::Empty:
      return "Empty";
    case ConvBackend::Mkldnn:
      return "Mkldnn";
    case ConvBackend::Slow2d:
      return "Slow2d";
    case ConvBackend::SlowDilated2d:
      return "SlowDilated2d";
  }
  return "Unknown";
}

// Checks every backend relies on before touching data.
void check_input_shape_forward(const at::Tensor& input, const at::Tensor& weight,
                               const at::Tensor& bias, const ConvParams& params) {
  const int64_t k = input.dim();
  TORCH_CHECK(weight.dim() == k, "Expected ", weight.dim(), "-dimensional input for ",
              weight.dim(), "-dimensional weight ", weight.sizes(), ", but got ", k,
              "-dimensional input of size ", input.sizes());
  TORCH_CHECK(!params.is_padding_neg(), "negative padding is not supported");
  TORCH_CHECK(!params.is_stride_nonpos(), "non-positive stride is not supported");
  TORCH_CHECK(params.groups > 0, "non-positive groups is not supported");
  TORCH_CHECK(!params.transposed, "transposed convolution is not part of the sample tree");
  TORCH_CHECK(input.size(1) == weight.size(1) * params.groups, "Given groups=", params.groups,
              ", weight of size ", weight.sizes(), ", expected input", input.sizes(), " to have ",
              weight.size(1) * params.groups, " channels, but got ", input.size(1),
              " channels instead");
  TORCH_CHECK(weight.size(0) % params.groups == 0, "out_channels must be divisible by groups");
  if (bias.defined()) {
    TORCH_CHECK(bias.dim() == 1 && bias.size(0) == weight.size(0), "Given weight of size ",
                weight.sizes(), ", expected bias to be 1-dimensional with ", weight.size(0),
                " elements, but got bias of size ", bias.sizes(), " instead");
  }
  for (int64_t d = 2; d < k; ++d) {
    const int64_t dil = params.dilation[d - 2];
    const int64_t padded = input.size(d) + 2 * params.padding[d - 2];
    TORCH_CHECK(padded >= dil * (weight.size(d) - 1) + 1, "Calculated padded input size ",
                padded, " is smaller than the kernel extent ", dil * (weight.size(d) - 1) + 1);
  }
}

// Slice group g out of dimension `dim` and make it dense.
at::Tensor subtensor(const at::Tensor& t, int64_t dim, int64_t groups, int64_t g) {
  if (!t.defined()) return t;
  const int64_t n = t.size(dim) / groups;
  return t.narrow(dim, n * g, n).contiguous();
}

} // namespace

namespace at::native {

bool ConvParams::is_strided() const {
  for (int64_t s : stride) {
    if (s != 1) return true;
  }
  return false;
}

bool ConvParams::is_dilated() const {
  for (int64_t d : dilation) {
    if (d != 1) return true;
  }
  return false;
}

bool ConvParams::is_padded() const {
  for (int64_t p : padding) {
    if (p != 0) return true;
  }
  return false;
}

bool ConvParams::is_padding_neg() const {
  for (int64_t p : padding) {
    if (p < 0) return true;
  }
  return false;
}

bool ConvParams::is_stride_nonpos() const {
  for (int64_t s : stride) {
    if (s <= 0) return true;
  }
  return false;
}

// Treat a 1-d convolution as 2-d with a unit height.
void ConvParams::view1d_as_2d() {
  if (stride.size() == 1) {
    stride.insert(stride.begin(), 1);
    padding.insert(padding.begin(), 0);
    dilation.insert(dilation.begin(), 1);
    output_padding.insert(output_padding.begin(), 0);
  }
}

// cuDNN indexes with int; huge tensors must go through the batch splitter.
bool ConvParams::needs_64bit_indexing_no_split(const Tensor& input, const Tensor& weight) const {
  constexpr int64_t int_max = std::numeric_limits<int>::max();
  const int64_t numel_input = input.numel();
  if (numel_input == 0) return false;
  const int64_t n = input.size(0);
  // one sample already overflows: splitting the batch cannot help
  if (numel_input / n > int_max) return true;
  const int64_t outsize = conv_output_size(input.sizes(), weight.sizes(), padding, stride,
                                           dilation)[1] * (numel_input / n / input.size(1));
  return outsize > int_max;
}

bool ConvParams::use_cudnn(const Tensor& input, const Tensor& weight) const {
  if (needs_64bit_indexing_no_split(input, weight)) return false;
  if (!detail::getCUDAHooks().compiledWithCuDNN()) return false;
  if (!input.is_cuda() || !cudnn_enabled) return false;
  if (input.scalar_type() != weight.scalar_type()) return false;
  if (is_padding_neg() || is_stride_nonpos()) return false;
  return !transposed;
}

bool ConvParams::use_mkldnn(const Tensor& input, const Tensor& weight) const {
#if AT_MKLDNN_ENABLED()
  if (!at::globalContext().userEnabledMkldnn()) return false;
  if (transposed || !input.is_cpu() || input.scalar_type() != kFloat) return false;
  if (input.dim() != 4 || weight.dim() != 4 || is_padding_neg()) return false;
  // oneDNN pays off for big batches, grouped or dilated kernels; small
  // problems stay on the im2col path.
  return input.size(0) >= 16 || groups > 1 || is_dilated();
#else
  (void)input;
  (void)weight;
  return false;
#endif
}

ConvBackend select_conv_backend(const Tensor& input, const Tensor& weight,
                                const ConvParams& params) {
  if (input.numel() == 0 || weight.numel() == 0) {
    return ConvBackend::Empty;
  }
  if (params.use_cudnn(input, weight)) {
    return params.transposed ? ConvBackend::CudnnTranspose : ConvBackend::Cudnn;
  }
  if (params.use_mkldnn(input, weight)) {
    return ConvBackend::Mkldnn;
  }
  if (input.dim() == 4 && !params.transposed) {
    return params.is_dilated() ? ConvBackend::SlowDilated2d : ConvBackend::Slow2d;
  }
  AT_ERROR("unable to find an engine to execute this convolution");
}

Tensor conv2d_symint(const Tensor& input_, const Tensor& weight, const std::optional<Tensor>& bias,
                     c10::SymIntArrayRef stride, c10::SymIntArrayRef padding,
                     c10::SymIntArrayRef dilation, c10::SymInt groups) {
  TORCH_CHECK(input_.dim() == 3 || input_.dim() == 4,
              "conv2d: Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of "
              "size: ",
              input_.sizes());
  const bool is_batched = input_.dim() == 4;
  Tensor input = is_batched ? input_ : input_.reshape({1, input_.size(0), input_.size(1),
                                                       input_.size(2)});
  Tensor output = at::convolution_symint(input, weight, bias, stride, padding, dilation,
                                         /*transposed=*/false, {c10::SymInt(0)}, groups);
  return is_batched ? output : output.reshape({output.size(1), output.size(2), output.size(3)});
}

Tensor conv2d_padding_symint(const Tensor& input, const Tensor& weight,
                             const std::optional<Tensor>& bias, c10::SymIntArrayRef stride,
                             std::string_view padding, c10::SymIntArrayRef dilation,
                             c10::SymInt groups) {
  if (padding == "valid") {
    return at::conv2d_symint(input, weight, bias, stride, c10::SymInt(0), dilation, groups);
  }
  TORCH_CHECK(padding == "same", "Invalid padding string: '", padding, "'");
  for (const c10::SymInt& s : stride) {
    TORCH_CHECK(s.expect_int() == 1, "padding='same' is not supported for strided convolutions");
  }
  const std::vector<c10::SymInt> dil = expand_param_if_needed(dilation, "dilation", 2);
  std::vector<c10::SymInt> sym_pad(2);
  std::vector<int64_t> trailing_pad(4, 0); // constant_pad_nd order: (W_l, W_r, H_l, H_r)
  bool asymmetric = false;
  for (int64_t d = 0; d < 2; ++d) {
    const int64_t total = dil[d].expect_int() * (weight.size(d + 2) - 1);
    const int64_t left = total / 2;
    sym_pad[d] = left;
    if (total - 2 * left != 0) {
      asymmetric = true;
      trailing_pad[2 * (1 - d) + 1] = total - 2 * left;
    }
  }
  // An odd total padding cannot be split evenly; pad the extra element on
  // the right/bottom explicitly, then run with the symmetric part.
  Tensor padded = asymmetric ? at::constant_pad_nd(input, trailing_pad, 0) : input;
  return at::conv2d_symint(padded, weight, bias, stride, sym_pad, dilation, groups);
}

Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                   IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
                   IntArrayRef output_padding, int64_t groups) {
  auto& ctx = at::globalContext();
  const bool deterministic = ctx.deterministicCuDNN();
  return at::_convolution(input, weight, bias, stride, padding, dilation, transposed,
                          output_padding, groups, ctx.benchmarkCuDNN(), deterministic,
                          ctx.userEnabledCuDNN(), ctx.allowTF32CuDNN());
}

Tensor _convolution(const Tensor& input_r, const Tensor& weight_r,
                    const std::optional<Tensor>& bias_r_opt, IntArrayRef stride_,
                    IntArrayRef padding_, IntArrayRef dilation_, bool transposed_,
                    IntArrayRef output_padding_, int64_t groups_, bool benchmark,
                    bool deterministic, bool cudnn_enabled, bool allow_tf32) {
  const Tensor bias_r = bias_r_opt.value_or(Tensor());
  const int64_t dim = weight_r.dim() - 2;
  TORCH_CHECK(dim == 2, "the sample tree implements 2-d convolution only; weight has ",
              weight_r.dim(), " dims");

  ConvParams params;
  params.stride = expand_param_if_needed(stride_, "stride", dim);
  params.padding = expand_param_if_needed(padding_, "padding", dim);
  params.dilation = expand_param_if_needed(dilation_, "dilation", dim);
  params.transposed = transposed_;
  params.output_padding = expand_param_if_needed(output_padding_, "output_padding", dim);
  params.groups = groups_;
  params.benchmark = benchmark;
  params.deterministic = deterministic;
  params.cudnn_enabled = cudnn_enabled;
  params.allow_tf32 = allow_tf32;

  check_input_shape_forward(input_r, weight_r, bias_r, params);

  const Tensor input = input_r.contiguous();
  const Tensor weight = weight_r.contiguous();
  const ConvBackend backend = select_conv_backend(input, weight, params);

  Tensor output;
  switch (backend) {
    case ConvBackend::Cudnn:
      output = at::cudnn_convolution(input, weight, params.padding, params.stride,
                                     params.dilation, params.groups, params.benchmark,
                                     params.deterministic, params.allow_tf32);
      if (bias_r.defined()) {
        // cuDNN's forward has no bias term; broadcast-add it per channel.
        output = at::add(output, bias_r.reshape({1, bias_r.numel(), 1, 1}));
      }
      break;
    case ConvBackend::Mkldnn:
      output = at::mkldnn_convolution(input, weight, bias_r, params.padding, params.stride,
                                      params.dilation, params.groups);
      break;
    case ConvBackend::Slow2d: {
      const std::vector<int64_t> kernel_size = {weight.size(2), weight.size(3)};
      if (params.groups == 1) {
        output = at::_slow_conv2d_forward(input, weight, kernel_size, bias_r, params.stride,
                                          params.padding);
      } else {
        // The im2col kernel knows nothing about groups: run it per group.
        output = at::empty(conv_output_size(input.sizes(), weight.sizes(), params.padding,
                                            params.stride),
                           input.options());
        const int64_t out_per_group = weight.size(0) / params.groups;
        for (int64_t g = 0; g < params.groups; ++g) {
          Tensor out_g = at::_slow_conv2d_forward(
              subtensor(input, 1, params.groups, g), subtensor(weight, 0, params.groups, g),
              kernel_size, subtensor(bias_r, 0, params.groups, g), params.stride,
              params.padding);
          output.narrow(1, g * out_per_group, out_per_group).copy_(out_g);
        }
      }
      break;
    }
    case ConvBackend::Empty: {
      output = at::empty(conv_output_size(input.sizes(), weight.sizes(), params.padding,
                                          params.stride, params.dilation),
                         input.options());
      output.zero_();
      break;
    }
    case ConvBackend::CudnnTranspose:
    case ConvBackend::SlowDilated2d:
      AT_ERROR("convolution backend ", conv_backend_name(backend),
               " is not implemented in the sample tree");
  }
  return output;
}

} // namespace at::native
