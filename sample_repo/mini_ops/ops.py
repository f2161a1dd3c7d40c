"""The Python API of the extension: one function per way of reaching native code.

scale goes through the pybind11 module _C; clamp_add through the TORCH_LIBRARY operator
mini_ops::clamp_add; soft_square through the operator that RegisterOperators registers
under mini_ops_legacy."""

import torch

from mini_ops import _C


def scale(x, factor):
    """x * factor, on the device of x."""
    return _C.scale(x, factor)


def clamp_add(x, y):
    """x + y, clamped to [-1, 1]."""
    return torch.ops.mini_ops.clamp_add(x, y)


def soft_square(x):
    """x * x / (1 + |x|), differentiable through its C++ autograd Function."""
    return torch.ops.mini_ops_legacy.soft_square(x)


class ScaleFn(torch.autograd.Function):
    """scale as an autograd operation: the gradient is the incoming one times factor."""

    @staticmethod
    def forward(ctx, x, factor):
        ctx.factor = factor
        return _C.scale(x, factor)

    @staticmethod
    def backward(ctx, grad):
        return _C.scale(grad, ctx.factor), None
