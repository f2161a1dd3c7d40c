"""The Python-level Tensor class.

Most methods live on ``torch._C.TensorBase`` and are generated from
native_functions.yaml; this file only adds what is easier to write in Python.
"""

import functools
from collections import OrderedDict
from typing import Any, Callable, Optional, Tuple

import torch
from torch import _C
from torch.overrides import (
    _disable_subclass_dispatch,
    handle_torch_function,
    has_torch_function,
    has_torch_function_unary,
)
from torch.utils.hooks import RemovableHandle

__all__ = ["Tensor"]


def _handle_torch_function_and_wrap_type_error_to_not_implemented(f: Callable) -> Callable:
    """Decorator for reflected operators.

    Returns ``NotImplemented`` on TypeError so that Python can try the other
    operand, and routes overridden arguments through ``__torch_function__``.
    """

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        try:
            if has_torch_function(args):
                return handle_torch_function(wrapped, args, *args, **kwargs)
            return f(*args, **kwargs)
        except TypeError:
            return NotImplemented

    return wrapped


class Tensor(_C.TensorBase):
    """A multi-dimensional array living on a device, with autograd support."""

    def __repr__(self) -> str:
        if has_torch_function_unary(self):
            return handle_torch_function(Tensor.__repr__, (self,), self)
        parts = [f"size={tuple(self.size())}", f"dtype={self.dtype}"]
        if self.is_cuda:
            parts.append(f"device='{self.device}'")
        if self.requires_grad:
            parts.append("requires_grad=True")
        return f"tensor(..., {', '.join(parts)})"

    def backward(
        self,
        gradient: Optional["Tensor"] = None,
        retain_graph: Optional[bool] = None,
        create_graph: bool = False,
        inputs: Optional[Tuple["Tensor", ...]] = None,
    ) -> None:
        """Accumulate d(self)/d(leaf) into the ``.grad`` of every graph leaf."""
        if has_torch_function_unary(self):
            return handle_torch_function(
                Tensor.backward,
                (self,),
                self,
                gradient=gradient,
                retain_graph=retain_graph,
                create_graph=create_graph,
                inputs=inputs,
            )
        torch.autograd.backward(
            self, gradient, retain_graph, create_graph, inputs=inputs
        )

    def register_hook(self, hook: Callable[["Tensor"], Optional["Tensor"]]) -> RemovableHandle:
        """Call ``hook(grad)`` each time the gradient of this tensor is computed."""
        if has_torch_function_unary(self):
            return handle_torch_function(Tensor.register_hook, (self,), self, hook)
        if not self.requires_grad:
            raise RuntimeError(
                "cannot register a hook on a tensor that doesn't require gradient"
            )
        if self._backward_hooks is None:
            self._backward_hooks = OrderedDict()
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def __len__(self) -> int:
        if has_torch_function_unary(self):
            return handle_torch_function(Tensor.__len__, (self,), self)
        if self.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.size(0)

    def __format__(self, format_spec: str) -> str:
        if has_torch_function_unary(self):
            return handle_torch_function(Tensor.__format__, (self,), self, format_spec)
        if self.dim() == 0:
            return self.item().__format__(format_spec)
        return object.__format__(self, format_spec)

    @_handle_torch_function_and_wrap_type_error_to_not_implemented
    def __rsub__(self, other: Any) -> "Tensor":
        # other - self, expressed with the add operator and a negative alpha
        return _C._VariableFunctions.add(other, self, alpha=-1)

    @_handle_torch_function_and_wrap_type_error_to_not_implemented
    def __radd__(self, other: Any) -> "Tensor":
        return self.add(other)

    def __hash__(self) -> int:
        return id(self)

    @property
    def is_shared(self) -> bool:
        return False

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """Default override: run ``func`` when every type is a Tensor subclass."""
        if kwargs is None:
            kwargs = {}
        if not all(issubclass(cls, t) for t in types):
            return NotImplemented
        with _disable_subclass_dispatch():
            return func(*args, **kwargs)
