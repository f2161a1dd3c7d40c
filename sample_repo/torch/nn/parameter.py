"""Parameter: a Tensor that Module registers automatically."""

from collections import OrderedDict
from typing import Any, Optional

import torch
from torch._C import _disabled_torch_function_impl

__all__ = ["Parameter", "is_parameter"]


class Parameter(torch.Tensor):
    """A Tensor flagged as a module parameter.

    Assigning one as a Module attribute adds it to ``parameters()``. It
    requires grad unless told otherwise.
    """

    def __new__(cls, data: Optional[torch.Tensor] = None, requires_grad: bool = True):
        if data is None:
            data = torch.empty(0)
        if type(data) is torch.Tensor or type(data) is Parameter:
            return torch.Tensor._make_subclass(cls, data, requires_grad)

        # A custom tensor subclass: keep its type but tag it as a parameter.
        t = data.detach().requires_grad_(requires_grad)
        if type(t) is not type(data):
            raise RuntimeError(
                f"Creating a Parameter from an instance of type {type(data).__name__} "
                "requires that detach() returns an instance of the same type, but "
                f"return type {type(t).__name__} was found instead."
            )
        t._is_param = True  # type: ignore[attr-defined]
        return t

    def __deepcopy__(self, memo: dict) -> "Parameter":
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.detach(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, proto: Any):
        hooks: "OrderedDict[int, Any]" = OrderedDict()
        return (_rebuild_parameter, (self.detach(), self.requires_grad, hooks))

    # Parameters behave like plain tensors under __torch_function__.
    __torch_function__ = _disabled_torch_function_impl  # type: ignore[assignment]


def _rebuild_parameter(data: torch.Tensor, requires_grad: bool, backward_hooks: dict) -> Parameter:
    param = Parameter(data, requires_grad)
    param._backward_hooks = backward_hooks
    return param


def is_parameter(obj: Any) -> bool:
    return isinstance(obj, Parameter) or getattr(obj, "_is_param", False)
