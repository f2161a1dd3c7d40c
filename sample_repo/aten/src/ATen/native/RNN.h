#pragma once

#include <ATen/core/TensorBody.h>
#include <ATen/native/DispatchStub.h>

namespace at::native {

// Full multi-layer LSTM forward; fills output / hy / cy.
using lstm_fn = void (*)(Tensor& output, Tensor& hy, Tensor& cy, const Tensor& input,
                         TensorList hx, TensorList params, bool has_biases, int64_t num_layers,
                         double dropout_p, bool train, bool bidirectional, bool batch_first);

DECLARE_DISPATCH(lstm_fn, lstm_cudnn_stub);

} // namespace at::native
