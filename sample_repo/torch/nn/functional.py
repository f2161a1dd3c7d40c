"""Stateless functional versions of the nn layers.

Some entries are the native operators themselves with a docstring attached
(``conv2d``, ``linear``, ``pad``); the rest are small Python wrappers that
check arguments and then call into ``torch``, ``torch._C._nn`` or ``_VF``.
"""

import warnings
from typing import List, Optional, Tuple

import torch
from torch import Tensor, _VF
from torch._C import _add_docstr
from torch._jit_internal import boolean_dispatch
from torch.overrides import (
    handle_torch_function,
    has_torch_function_unary,
    has_torch_function_variadic,
)
from torch.types import _dtype as DType

__all__ = [
    "conv2d",
    "linear",
    "pad",
    "batch_norm",
    "relu",
    "relu_",
    "softmax",
    "max_pool2d",
    "max_pool2d_with_indices",
    "dropout",
    "embedding",
]


conv2d = _add_docstr(
    torch.conv2d,
    r"""
conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor

2D convolution over an input of shape (minibatch, in_channels, iH, iW).

Args:
    input: input tensor.
    weight: filters of shape (out_channels, in_channels / groups, kH, kW).
    bias: optional bias of shape (out_channels). Default: None
    stride: step of the kernel, an int or a (sH, sW) pair. Default: 1
    padding: implicit zero padding, an int, a (padH, padW) pair, or one of
      the strings 'valid' (no padding) and 'same' (output as large as the
      input; only for stride 1). Default: 0
    dilation: spacing between kernel taps. Default: 1
    groups: number of blocked connections from input to output channels;
      both channel counts must be divisible by it. Default: 1
""",
)

linear = _add_docstr(
    torch._C._nn.linear,
    r"""
linear(input, weight, bias=None) -> Tensor

Affine map y = x A^T + b.

Shapes: input (*, in_features), weight (out_features, in_features),
bias (out_features) or None; the output is (*, out_features).
""",
)

pad = _add_docstr(
    torch._C._nn.pad,
    r"""
pad(input, pad, mode="constant", value=None) -> Tensor

Pad a tensor. ``pad`` lists (left, right) amounts starting from the last
dimension and moving forward, so (1, 1, 2, 0) pads the last dimension by one
on both sides and the second-to-last by two at the front.

mode is one of 'constant', 'reflect', 'replicate' or 'circular'; value is
the fill for 'constant' padding (default 0).
""",
)


def _verify_batch_size(size: List[int]) -> None:
    """Training-mode batch norm needs more than one value per channel."""
    size_prods = size[0]
    for i in range(len(size) - 2):
        size_prods *= size[i + 2]
    if size_prods == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {size}"
        )


def batch_norm(
    input: Tensor,
    running_mean: Optional[Tensor],
    running_var: Optional[Tensor],
    weight: Optional[Tensor] = None,
    bias: Optional[Tensor] = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise each channel over the batch; see :class:`torch.nn.BatchNorm2d`."""
    if has_torch_function_variadic(input, running_mean, running_var, weight, bias):
        return handle_torch_function(
            batch_norm,
            (input, running_mean, running_var, weight, bias),
            input,
            running_mean,
            running_var,
            weight=weight,
            bias=bias,
            training=training,
            momentum=momentum,
            eps=eps,
        )
    if training:
        _verify_batch_size(list(input.size()))

    return torch.batch_norm(
        input,
        weight,
        bias,
        running_mean,
        running_var,
        training,
        momentum,
        eps,
        torch.backends.cudnn.enabled,
    )


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    r"""relu(input, inplace=False) -> Tensor

    Elementwise max(0, x).
    """
    if has_torch_function_unary(input):
        return handle_torch_function(relu, (input,), input, inplace=inplace)
    if inplace:
        result = torch.relu_(input)
    else:
        result = torch.relu(input)
    return result


relu_ = _add_docstr(
    torch.relu_,
    r"""
relu_(input) -> Tensor

In-place version of :func:`relu`.
""",
)


def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    """Pick the legacy implicit dimension for softmax-like calls (with a warning)."""
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. "
        "Change the call to include dim=X as an argument.",
        stacklevel=stacklevel,
    )
    if ndim == 0 or ndim == 1 or ndim == 3:
        ret = 0
    else:
        ret = 1
    return ret


def softmax(
    input: Tensor,
    dim: Optional[int] = None,
    _stacklevel: int = 3,
    dtype: Optional[DType] = None,
) -> Tensor:
    r"""Rescale ``input`` along ``dim`` so that the slices are positive and sum to 1.

    ``dtype``, when given, casts the input before the operation (useful to
    avoid overflow with half precision).
    """
    if has_torch_function_unary(input):
        return handle_torch_function(
            softmax, (input,), input, dim=dim, _stacklevel=_stacklevel, dtype=dtype
        )
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    if dtype is None:
        ret = input.softmax(dim)
    else:
        ret = input.softmax(dim, dtype=dtype)
    return ret


def max_pool2d_with_indices(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Tuple[Tensor, Tensor]:
    r"""2D max pooling over an input of shape (N, C, H, W) or (C, H, W).

    Args:
        kernel_size: pooling window, an int or a (kH, kW) pair.
        stride: window step; defaults to ``kernel_size``.
        padding: implicit negative-infinity padding on both sides.
        dilation: spacing between elements of the window.
        ceil_mode: use ceil instead of floor to compute the output shape.
        return_indices: also return the argmax positions (for unpooling).
    """
    if has_torch_function_unary(input):
        return handle_torch_function(
            max_pool2d_with_indices,
            (input,),
            input,
            kernel_size,
            stride=stride,
            padding=padding,
            dilation=dilation,
            ceil_mode=ceil_mode,
            return_indices=return_indices,
        )
    if stride is None:
        stride = []
    return torch._C._nn.max_pool2d_with_indices(
        input, kernel_size, stride, padding, dilation, ceil_mode
    )


def _max_pool2d(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Tensor:
    if has_torch_function_unary(input):
        return handle_torch_function(
            max_pool2d,
            (input,),
            input,
            kernel_size,
            stride=stride,
            padding=padding,
            dilation=dilation,
            ceil_mode=ceil_mode,
            return_indices=return_indices,
        )
    if stride is None:
        stride = []
    return torch.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


max_pool2d = boolean_dispatch(
    arg_name="return_indices",
    arg_index=6,
    default=False,
    if_true=max_pool2d_with_indices,
    if_false=_max_pool2d,
    module_name=__name__,
    func_name="max_pool2d",
)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    r"""Zero each element with probability ``p`` while training.

    Surviving elements are scaled by 1 / (1 - p) so that the expected value
    is unchanged; outside training the input is returned as is.
    """
    if has_torch_function_unary(input):
        return handle_torch_function(
            dropout, (input,), input, p=p, training=training, inplace=inplace
        )
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    return _VF.dropout_(input, p, training) if inplace else _VF.dropout(input, p, training)


def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: Optional[int] = None,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    r"""Look up rows of ``weight`` at the integer positions in ``input``.

    Rows at ``padding_idx`` receive no gradient. With ``sparse=True`` the
    gradient w.r.t. ``weight`` is a sparse tensor.
    """
    if has_torch_function_variadic(input, weight):
        return handle_torch_function(
            embedding,
            (input, weight),
            input,
            weight,
            padding_idx=padding_idx,
            scale_grad_by_freq=scale_grad_by_freq,
            sparse=sparse,
        )
    if padding_idx is not None:
        num_embeddings = weight.size(0)
        if padding_idx > 0:
            if padding_idx >= num_embeddings:
                raise ValueError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -num_embeddings:
                raise ValueError("Padding_idx must be within num_embeddings")
            padding_idx = num_embeddings + padding_idx
    else:
        padding_idx = -1
    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)
