#include <ATen/cuda/CUDAConfig.h>

#if AT_CUDNN_ENABLED()

#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#include <ATen/core/Tensor.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/Exceptions.h>
#include <ATen/cudnn/Descriptors.h>
#include <ATen/cudnn/Handle.h>
#include <ATen/native/RNN.h>

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

namespace at { namespace native {

namespace {

int64_t bytes_to_float_elems(size_t bytes) {
  return static_cast<int64_t>((bytes + sizeof(float) - 1) / sizeof(float));
}

// Pack every parameter into one device buffer: per layer, w_ih | w_hh |
// b_ih | b_hh, which is the order the sample's cuDNN shim reads back.
Tensor flatten_weights(TensorList weight, const Tensor& like, size_t min_bytes) {
  int64_t total = 0;
  for (const Tensor& w : weight) total += w.numel();
  total = std::max<int64_t>(total, bytes_to_float_elems(min_bytes));
  Tensor buf = at::empty({total}, like.options());
  cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
  int64_t offset = 0;
  for (const Tensor& w : weight) {
    const Tensor w_c = w.contiguous();
    AT_CUDA_CHECK(cudaMemcpyAsync(buf.data_ptr<float>() + offset, w_c.data_ptr(),
                                  static_cast<size_t>(w_c.numel()) * sizeof(float),
                                  cudaMemcpyDeviceToDevice, stream));
    offset += w_c.numel();
  }
  return buf;
}

} // namespace

std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> _cudnn_rnn(
    const Tensor& input, TensorList weight, int64_t weight_stride0,
    const std::optional<Tensor>& weight_buf_opt, const Tensor& hx,
    const std::optional<Tensor>& cx_opt, int64_t mode, int64_t hidden_size, int64_t proj_size,
    int64_t num_layers, bool batch_first, double dropout, bool train, bool bidirectional,
    IntArrayRef batch_sizes, const std::optional<Tensor>& dropout_state_opt) {
  const Tensor cx = cx_opt.value_or(Tensor());
  const Tensor dropout_state = dropout_state_opt.value_or(Tensor());
  TORCH_CHECK(batch_sizes.empty(), "_cudnn_rnn: packed sequences are not supported here");
  TORCH_CHECK(proj_size == 0, "_cudnn_rnn: LSTM projections are not supported here");
  TORCH_CHECK(input.is_cuda() && hx.is_cuda(), "_cudnn_rnn: expected CUDA tensors");
  TORCH_CHECK(input.dim() == 3, "_cudnn_rnn: expected 3-D input");
  TORCH_CHECK(mode != CUDNN_LSTM || cx.defined(), "_cudnn_rnn: LSTM needs a cell state");

  const Tensor x = input.contiguous();
  const int64_t seq_length = batch_first ? x.size(1) : x.size(0);
  const int64_t mini_batch = batch_first ? x.size(0) : x.size(1);
  const int64_t input_size = x.size(2);
  const int64_t num_directions = bidirectional ? 2 : 1;
  const cudnnDataType_t dtype = getCudnnDataType(x);
  const cudnnRNNDataLayout_t layout = batch_first ? CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED
                                                  : CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED;
  const cudnnForwardMode_t fwd_mode = train ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE;
  cudnnHandle_t handle = getCudnnHandle();

  DropoutDescriptor dropout_desc;
  if (train && dropout > 0 && dropout_state.defined()) {
    dropout_desc.set(handle, static_cast<float>(dropout), dropout_state);
  } else {
    dropout_desc.set_no_dropout(handle);
  }
  RNNDescriptor rnn_desc;
  rnn_desc.set(static_cast<cudnnRNNMode_t>(mode), input_size, hidden_size, num_layers,
               /*has_biases=*/weight_stride0 == 4, bidirectional, dtype, dropout_desc);

  size_t weight_space_bytes = 0;
  AT_CUDNN_CHECK(cudnnGetRNNWeightSpaceSize(handle, rnn_desc.desc(), &weight_space_bytes));
  const Tensor weight_buf = weight_buf_opt.has_value() && weight_buf_opt->defined()
                                ? *weight_buf_opt
                                : flatten_weights(weight, x, weight_space_bytes);

  // cuDNN wants the per-sample lengths both on the host and on the device.
  const std::vector<int> seq_lengths(static_cast<size_t>(mini_batch),
                                     static_cast<int>(seq_length));
  static_assert(sizeof(int) == sizeof(float), "length slots reuse a float buffer");
  Tensor dev_seq_lengths = at::empty({mini_batch}, x.options());
  AT_CUDA_CHECK(cudaMemcpyAsync(dev_seq_lengths.data_ptr(), seq_lengths.data(),
                                seq_lengths.size() * sizeof(int), cudaMemcpyHostToDevice,
                                at::cuda::getCurrentCUDAStream().stream()));

  RNNDataDescriptor x_desc;
  RNNDataDescriptor y_desc;
  x_desc.set(dtype, layout, seq_length, mini_batch, input_size, seq_lengths.data());
  y_desc.set(dtype, layout, seq_length, mini_batch, hidden_size * num_directions,
             seq_lengths.data());
  TensorDescriptor h_desc;
  const std::vector<int64_t> h_sizes = {num_layers * num_directions, mini_batch, hidden_size};
  const std::vector<int64_t> h_strides = {mini_batch * hidden_size, hidden_size, 1};
  h_desc.set(dtype, h_sizes, h_strides, 3);

  size_t workspace_bytes = 0;
  size_t reserve_bytes = 0;
  AT_CUDNN_CHECK(cudnnGetRNNTempSpaceSizes(handle, rnn_desc.desc(), fwd_mode, x_desc.desc(),
                                           &workspace_bytes, &reserve_bytes));
  Tensor workspace = at::empty({std::max<int64_t>(bytes_to_float_elems(workspace_bytes), 1)},
                               x.options());
  Tensor reserve = at::empty({bytes_to_float_elems(reserve_bytes)}, x.options());

  std::vector<int64_t> out_sizes = x.sizes().vec();
  out_sizes[2] = hidden_size * num_directions;
  Tensor output = at::empty(out_sizes, x.options());
  Tensor hy = at::empty(hx.sizes(), hx.options());
  Tensor cy = cx.defined() ? at::empty(cx.sizes(), cx.options()) : Tensor();

  AT_CUDNN_CHECK(cudnnRNNForward(
      handle, rnn_desc.desc(), fwd_mode, static_cast<const int32_t*>(dev_seq_lengths.data_ptr()),
      x_desc.desc(), x.data_ptr(), y_desc.desc(), output.data_ptr(), h_desc.desc(),
      hx.contiguous().data_ptr(), hy.data_ptr(), h_desc.desc(),
      cx.defined() ? cx.contiguous().data_ptr() : nullptr,
      cy.defined() ? cy.data_ptr() : nullptr, weight_space_bytes, weight_buf.data_ptr(),
      workspace_bytes, workspace.data_ptr(), reserve_bytes,
      reserve_bytes ? reserve.data_ptr() : nullptr));

  return std::make_tuple(output, hy, cy, reserve, weight_buf);
}

namespace {

// Shared by the LSTM / GRU / RNN entry points of the real file; only LSTM
// is wired up in the sample tree.
std::pair<Tensor, std::tuple<Tensor, Tensor>> _cudnn_impl(
    const Tensor& input, const std::tuple<Tensor, Tensor>& hidden, TensorList params,
    bool has_biases, cudnnRNNMode_t mode, int64_t num_layers, double dropout_p, bool train,
    bool bidirectional, bool batch_first) {
  const Tensor& hx = std::get<0>(hidden);
  const Tensor& cx = std::get<1>(hidden);
  const int64_t hidden_size = hx.size(2);
  auto result = at::_cudnn_rnn(input, params, has_biases ? 4 : 2, /*weight_buf=*/std::nullopt,
                               hx, cx, static_cast<int64_t>(mode), hidden_size,
                               /*proj_size=*/0, num_layers, batch_first, dropout_p, train,
                               bidirectional, /*batch_sizes=*/{}, /*dropout_state=*/std::nullopt);
  return {std::get<0>(result), std::make_tuple(std::get<1>(result), std::get<2>(result))};
}

void lstm_cudnn(Tensor& output, Tensor& hy, Tensor& cy, const Tensor& input, TensorList hx,
                TensorList params, bool has_biases, int64_t num_layers, double dropout_p,
                bool train, bool bidirectional, bool batch_first) {
  auto result = _cudnn_impl(input, std::make_tuple(hx[0], hx[1]), params, has_biases, CUDNN_LSTM,
                            num_layers, dropout_p, train, bidirectional, batch_first);
  output = result.first;
  hy = std::get<0>(result.second);
  cy = std::get<1>(result.second);
}

} // namespace

REGISTER_CUDA_DISPATCH(lstm_cudnn_stub, &lstm_cudnn);

}} // namespace at::native

#endif // AT_CUDNN_ENABLED()
