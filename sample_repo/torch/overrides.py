"""Support for the ``__torch_function__`` protocol.

Functions of torch.nn.functional start with a cheap check
(``has_torch_function_*``). When some argument is a Tensor subclass or a
duck-typed object that overrides ``__torch_function__``, the call is routed
through :func:`handle_torch_function` instead of the native op.
"""

import contextlib
import threading
from typing import Any, Callable, Iterable, Iterator, List, Tuple

import torch

__all__ = [
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "handle_torch_function",
    "is_tensor_like",
]

# Set while a default __torch_function__ runs the real op, so that the op does
# not bounce straight back into the override.
_state = threading.local()


@contextlib.contextmanager
def _disable_subclass_dispatch() -> Iterator[None]:
    previous = getattr(_state, "disabled", False)
    _state.disabled = True
    try:
        yield
    finally:
        _state.disabled = previous


def _is_overridden(obj: Any) -> bool:
    """True when ``obj``'s type brings its own ``__torch_function__``."""
    if getattr(_state, "disabled", False):
        return False
    cls = type(obj)
    if cls is torch.Tensor or isinstance(obj, (int, float, bool, str, type(None))):
        return False
    impl = getattr(cls, "__torch_function__", None)
    if impl is None:
        return False
    disabled = getattr(torch._C, "_disabled_torch_function_impl", None)
    return getattr(impl, "__func__", impl) is not disabled


def has_torch_function(relevant_args: Iterable[Any]) -> bool:
    """Check an iterable of arguments for ``__torch_function__`` overrides."""
    return any(_is_overridden(arg) for arg in relevant_args)


def has_torch_function_unary(arg: Any) -> bool:
    """Single-argument form of :func:`has_torch_function`; avoids a tuple."""
    return _is_overridden(arg)


def has_torch_function_variadic(*args: Any) -> bool:
    """Variadic form of :func:`has_torch_function`."""
    return has_torch_function(args)


def _get_overloaded_args(relevant_args: Iterable[Any]) -> List[Any]:
    """Collect overriding arguments, subclasses ahead of their parents."""
    overloaded_types: List[type] = []
    overloaded_args: List[Any] = []
    for arg in relevant_args:
        arg_type = type(arg)
        if arg_type in overloaded_types or not _is_overridden(arg):
            continue
        index = len(overloaded_args)
        for i, old_arg in enumerate(overloaded_args):
            if issubclass(arg_type, type(old_arg)):
                index = i
                break
        overloaded_types.append(arg_type)
        overloaded_args.insert(index, arg)
    return overloaded_args


def handle_torch_function(
    public_api: Callable, relevant_args: Iterable[Any], *args: Any, **kwargs: Any
) -> Any:
    """Give each overriding argument a chance to implement ``public_api``.

    The first ``__torch_function__`` that returns something other than
    ``NotImplemented`` wins; if none does, a TypeError is raised.
    """
    overloaded_args = _get_overloaded_args(relevant_args)
    types: Tuple[type, ...] = tuple(type(a) for a in overloaded_args)

    for overloaded_arg in overloaded_args:
        torch_func_method = overloaded_arg.__torch_function__
        result = torch_func_method(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result

    func_name = f"{public_api.__module__}.{public_api.__name__}"
    raise TypeError(
        f"no implementation found for '{func_name}' on types that implement "
        f"__torch_function__: {[type(arg) for arg in overloaded_args]}"
    )


def is_tensor_like(inp: Any) -> bool:
    """True for Tensors and for objects that implement ``__torch_function__``."""
    return type(inp) is torch.Tensor or hasattr(inp, "__torch_function__")
