"""Custom differentiable operations: subclass Function, write forward and backward.

`MyFn.apply(x)` runs `MyFn.forward(ctx, x)` through the native _FunctionBase.apply, which
records the node whose backward the engine later calls with the saved context.
"""

from typing import Any, Tuple

import torch
from torch import _C

__all__ = ["Function", "FunctionCtx"]


class FunctionCtx:
    """What forward and backward share: tensors saved for backward, and anything else set on it."""

    def save_for_backward(self, *tensors: torch.Tensor) -> None:
        self.to_save = tensors

    @property
    def saved_tensors(self) -> Tuple[torch.Tensor, ...]:
        return self.to_save

    def mark_non_differentiable(self, *args: torch.Tensor) -> None:
        self.non_differentiable = args


class Function(_C._FunctionBase, FunctionCtx):
    """Base class of custom autograd operations; call them through `apply`, never directly."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("Function objects are not callable: use the class's apply()")

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("a Function subclass must implement forward")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("a Function subclass must implement backward to be differentiated")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise TypeError("Function.apply takes positional arguments only")
        return super().apply(*args)
