"""Recurrent layers."""

import math
import numbers
import warnings
from typing import List, Optional, Tuple

import torch
from torch import Tensor, _VF
from torch.nn.parameter import Parameter

from .. import init
from .module import Module

__all__ = ["RNNBase", "LSTM"]

# number of stacked gate matrices per mode
_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _apply_permutation(tensor: Tensor, permutation: Tensor, dim: int = 1) -> Tensor:
    return tensor.index_select(dim, permutation)


def _zeros(shape: Tuple[int, ...], like: Tensor) -> Tensor:
    return torch.empty(shape, dtype=like.dtype, device=like.device).zero_()


class RNNBase(Module):
    """Weights and argument checks shared by the recurrent layers.

    Parameters are created per layer and direction as ``weight_ih_l{k}``,
    ``weight_hh_l{k}``, ``bias_ih_l{k}`` and ``bias_hh_l{k}`` (with a
    ``_reverse`` suffix for the backward direction). ``_flat_weights`` keeps
    them in the order the native kernels expect.
    """

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        device=None,
        dtype=None,
    ) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the "
                "probability of an element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout is applied between recurrent layers, so it has no effect "
                f"with num_layers=1 (got dropout={dropout})"
            )
        if not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ValueError("hidden_size must be a positive integer")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than or equal to 1")

        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        num_directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size

        self._flat_weights_names: List[str] = []
        for layer in range(num_layers):
            layer_input_size = input_size if layer == 0 else hidden_size * num_directions
            for direction in range(num_directions):
                suffix = "_reverse" if direction == 1 else ""
                shapes: List[Tuple[str, Tuple[int, ...]]] = [
                    (f"weight_ih_l{layer}{suffix}", (gate_size, layer_input_size)),
                    (f"weight_hh_l{layer}{suffix}", (gate_size, hidden_size)),
                ]
                if bias:
                    shapes += [
                        (f"bias_ih_l{layer}{suffix}", (gate_size,)),
                        (f"bias_hh_l{layer}{suffix}", (gate_size,)),
                    ]
                for name, shape in shapes:
                    setattr(self, name, Parameter(torch.empty(shape, **factory_kwargs)))
                    self._flat_weights_names.append(name)

        self._init_flat_weights()
        self.reset_parameters()

    def _init_flat_weights(self) -> None:
        self._flat_weights = [
            getattr(self, wn) if hasattr(self, wn) else None for wn in self._flat_weights_names
        ]

    def __setattr__(self, attr: str, value) -> None:
        # Keep _flat_weights in sync when a registered weight is replaced.
        if "_flat_weights" in self.__dict__ and attr in self._flat_weights_names:
            idx = self._flat_weights_names.index(attr)
            self._flat_weights[idx] = value
        super().__setattr__(attr, value)

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size)
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _apply(self, fn, recurse: bool = True):
        ret = super()._apply(fn, recurse)
        # Parameters were replaced: rebuild the cached list.
        self._init_flat_weights()
        return ret

    def check_input(self, input: Tensor) -> None:
        if input.dim() != 3:
            raise ValueError(f"input must have 3 dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise ValueError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                f"got {input.size(-1)}"
            )

    def get_expected_hidden_size(self, input: Tensor) -> Tuple[int, int, int]:
        mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_hidden_size(self, hx: Tensor, expected: Tuple[int, int, int], msg: str) -> None:
        if tuple(hx.size()) != expected:
            raise RuntimeError(msg.format(expected, list(hx.size())))

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        for name, default in (("num_layers", 1), ("bias", True), ("batch_first", False),
                              ("dropout", 0.0), ("bidirectional", False)):
            value = getattr(self, name)
            if value != default:
                s += f", {name}={value}"
        return s


class LSTM(RNNBase):
    """Multi-layer long short-term memory network.

    Takes ``input`` of shape (L, N, H_in) (or (N, L, H_in) with
    ``batch_first=True``) and an optional ``(h_0, c_0)`` pair; returns
    ``output, (h_n, c_n)``.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def check_forward_args(self, input: Tensor, hidden: Tuple[Tensor, Tensor]) -> None:
        self.check_input(input)
        expected = self.get_expected_hidden_size(input)
        self.check_hidden_size(hidden[0], expected, "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], expected, "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx: Tuple[Tensor, Tensor], permutation: Optional[Tensor]) -> Tuple[Tensor, Tensor]:
        if permutation is None:
            return hx
        return _apply_permutation(hx[0], permutation), _apply_permutation(hx[1], permutation)

    def forward(self, input: Tensor, hx: Optional[Tuple[Tensor, Tensor]] = None):
        sorted_indices: Optional[Tensor] = None
        if hx is None:
            shape = self.get_expected_hidden_size(input)
            hx = (_zeros(shape, input), _zeros(shape, input))
        else:
            # Reorder the caller's state to match a sorted batch, if any.
            hx = self.permute_hidden(hx, sorted_indices)

        self.check_forward_args(input, hx)
        result = _VF.lstm(
            input,
            hx,
            self._flat_weights,
            self.bias,
            self.num_layers,
            self.dropout,
            self.training,
            self.bidirectional,
            self.batch_first,
        )
        output = result[0]
        hidden = result[1:]
        return output, self.permute_hidden(hidden, sorted_indices)
