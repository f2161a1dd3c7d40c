#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/RNN.h>

#include <cmath>
#include <tuple>
#include <vector>

namespace at {
namespace native {

namespace {

// One layer's weights in PyTorch order; biases may be undefined.
struct CellParams {
  Tensor w_ih;
  Tensor w_hh;
  Tensor b_ih;
  Tensor b_hh;
};

std::vector<CellParams> gather_params(TensorList params, bool has_biases) {
  const size_t stride = has_biases ? 4 : 2;
  TORCH_CHECK(params.size() % stride == 0, "got an incorrect number of RNN parameters");
  std::vector<CellParams> result;
  for (size_t i = 0; i < params.size(); i += stride) {
    CellParams p{params[i], params[i + 1], Tensor(), Tensor()};
    if (has_biases) {
      p.b_ih = params[i + 2];
      p.b_hh = params[i + 3];
    }
    result.push_back(p);
  }
  return result;
}

std::optional<Tensor> maybe(const Tensor& t) {
  return t.defined() ? std::optional<Tensor>(t) : std::nullopt;
}

inline float sigmoid(float x) {
  return 1.0f / (1.0f + std::exp(-x));
}

// (B, A, F) <-> (A, B, F) as a dense copy.
Tensor swap_time_batch(const Tensor& x) {
  const Tensor src = x.contiguous();
  const int64_t a = src.size(0);
  const int64_t b = src.size(1);
  const int64_t f = src.size(2);
  Tensor out = at::empty({b, a, f}, src.options());
  const float* in = src.data_ptr<float>();
  float* dst = out.data_ptr<float>();
  for (int64_t i = 0; i < a; ++i) {
    for (int64_t j = 0; j < b; ++j) {
      for (int64_t k = 0; k < f; ++k) dst[(j * a + i) * f + k] = in[(i * b + j) * f + k];
    }
  }
  return out;
}

// One time step: gates = x W_ih^T + b_ih + h W_hh^T + b_hh, split i|f|g|o.
std::tuple<Tensor, Tensor> LSTMCell(const Tensor& input, const Tensor& hx, const Tensor& cx,
                                    const CellParams& p) {
  const Tensor gates = at::add(at::linear(input, p.w_ih, maybe(p.b_ih)),
                               at::linear(hx, p.w_hh, maybe(p.b_hh)))
                           .contiguous();
  const int64_t batch = gates.size(0);
  const int64_t hidden = gates.size(1) / 4;
  const Tensor cx_c = cx.contiguous();
  Tensor hy = at::empty({batch, hidden}, gates.options());
  Tensor cy = at::empty({batch, hidden}, gates.options());
  const float* g = gates.data_ptr<float>();
  const float* c_prev = cx_c.data_ptr<float>();
  float* h_out = hy.data_ptr<float>();
  float* c_out = cy.data_ptr<float>();
  for (int64_t b = 0; b < batch; ++b) {
    const float* row = g + b * 4 * hidden;
    for (int64_t j = 0; j < hidden; ++j) {
      const float ig = sigmoid(row[j]);
      const float fg = sigmoid(row[hidden + j]);
      const float cg = std::tanh(row[2 * hidden + j]);
      const float og = sigmoid(row[3 * hidden + j]);
      const float c = fg * c_prev[b * hidden + j] + ig * cg;
      c_out[b * hidden + j] = c;
      h_out[b * hidden + j] = og * std::tanh(c);
    }
  }
  return std::make_tuple(hy, cy);
}

// Layer-by-layer, step-by-step reference LSTM on (T, B, F) input.
std::tuple<Tensor, Tensor, Tensor> _lstm_impl(const Tensor& input,
                                              const std::vector<CellParams>& params,
                                              const Tensor& hx, const Tensor& cx,
                                              int64_t num_layers, double dropout_p, bool train,
                                              bool batch_first) {
  TORCH_CHECK(static_cast<int64_t>(params.size()) == num_layers,
              "lstm: expected parameters for ", num_layers, " layers, got ", params.size());
  Tensor layer_input = batch_first ? swap_time_batch(input) : input;
  const int64_t seq_len = layer_input.size(0);
  const int64_t batch = layer_input.size(1);
  const int64_t hidden = hx.size(2);
  Tensor hy = at::empty(hx.sizes(), hx.options());
  Tensor cy = at::empty(cx.sizes(), cx.options());

  for (int64_t layer = 0; layer < num_layers; ++layer) {
    Tensor h = hx.select(0, layer);
    Tensor c = cx.select(0, layer);
    Tensor layer_output = at::empty({seq_len, batch, hidden}, layer_input.options());
    for (int64_t t = 0; t < seq_len; ++t) {
      std::tie(h, c) = LSTMCell(layer_input.select(0, t), h, c, params[layer]);
      layer_output.select(0, t).copy_(h);
    }
    hy.select(0, layer).copy_(h);
    cy.select(0, layer).copy_(c);
    // dropout applies between layers, never after the last one
    if (dropout_p != 0 && train && layer < num_layers - 1) {
      layer_output = at::dropout(layer_output, dropout_p, train);
    }
    layer_input = layer_output;
  }
  Tensor output = batch_first ? swap_time_batch(layer_input) : layer_input;
  return std::make_tuple(output, hy, cy);
}

} // namespace

DEFINE_DISPATCH(lstm_cudnn_stub);

std::tuple<Tensor, Tensor, Tensor> lstm(const Tensor& _input, TensorList hx, TensorList _params,
                                        bool has_biases, int64_t num_layers, double dropout_p,
                                        bool train, bool bidirectional, bool batch_first) {
  TORCH_CHECK(hx.size() == 2, "lstm expects two hidden states");
  TORCH_CHECK(_input.dim() == 3, "lstm: expected a 3-D input, got ", _input.dim(), "-D");
  if (at::cudnn_is_acceptable(_input)) {
    Tensor output, hy, cy;
    lstm_cudnn_stub(_input.device().type(), output, hy, cy, _input, hx, _params, has_biases,
                    num_layers, dropout_p, train, bidirectional, batch_first);
    return std::make_tuple(std::move(output), std::move(hy), std::move(cy));
  }
  TORCH_CHECK(!bidirectional, "bidirectional LSTM is not implemented on the CPU path of the "
                              "sample tree");
  const std::vector<CellParams> params = gather_params(_params, has_biases);
  return _lstm_impl(_input, params, hx[0], hx[1], num_layers, dropout_p, train, batch_first);
}

} // namespace native
} // namespace at
