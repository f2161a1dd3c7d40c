"""Module-level functions of torch._C (see torch/_C/__init__.pyi): grad mode,
backend switches, build facts, docstrings, and the __torch_function__ helpers."""

from __future__ import annotations

import ctypes
from typing import Any, Callable, Iterable, Optional, Tuple

from torch._extension import runtime

# ------------------------------------------------------------------ grad mode


def is_grad_enabled() -> bool:
    return bool(runtime.lib().THPModule_isGradEnabled())


def _set_grad_enabled(enabled: bool) -> None:
    if not isinstance(enabled, bool):
        raise TypeError("enabled must be a bool (got {})".format(type(enabled).__name__))
    runtime.lib().THPModule_setGradEnabled(int(enabled))


# ------------------------------------------------------------------ backend switches (at::Context)


def _switch(getter: str, setter: str) -> Tuple[Callable[[], bool], Callable[[bool], None]]:
    def get() -> bool:
        return bool(getattr(runtime.lib(), getter)())

    def set_(enabled: bool) -> None:
        getattr(runtime.lib(), setter)(1 if enabled else 0)

    return get, set_


_get_cudnn_enabled, _set_cudnn_enabled = _switch("THPModule_userEnabledCuDNN", "THPModule_setUserEnabledCuDNN")
_get_cudnn_benchmark, _set_cudnn_benchmark = _switch("THPModule_benchmarkCuDNN", "THPModule_setBenchmarkCuDNN")
_get_cudnn_deterministic, _set_cudnn_deterministic = _switch(
    "THPModule_deterministicCuDNN", "THPModule_setDeterministicCuDNN"
)
_get_cudnn_allow_tf32, _set_cudnn_allow_tf32 = _switch("THPModule_allowTF32CuDNN", "THPModule_setAllowTF32CuDNN")
_get_mkldnn_enabled, _set_mkldnn_enabled = _switch("THPModule_userEnabledMkldnn", "THPModule_setUserEnabledMkldnn")


# ------------------------------------------------------------------ build facts


def _cudnn_version() -> int:
    version = ctypes.c_int64()
    runtime.call("THPModule_cudnnVersion", ctypes.byref(version))
    return version.value


def _cuda_getDeviceCount() -> int:
    return int(runtime.lib().THPModule_getDeviceCount())


def _cuda_isAvailable() -> bool:
    return _cuda_getDeviceCount() > 0


# ------------------------------------------------------------------ docstrings and tracing


def _add_docstr(obj: Any, doc: str) -> Any:
    """Attach `doc` to a binding, as the real _add_docstr does for builtins."""
    if getattr(obj, "__doc__", None) and getattr(obj, "_docstr_added", False):
        raise RuntimeError(f"function '{getattr(obj, '__name__', obj)}' already has a docstring")
    obj.__doc__ = doc
    try:
        obj._docstr_added = True
    except AttributeError:
        pass
    return obj


def _get_tracing_state() -> None:
    return None


def _log_api_usage_once(event: str) -> None:
    return None


# ------------------------------------------------------------------ __torch_function__


def _has_torch_function(args: Iterable[Any]) -> bool:
    from torch.overrides import has_torch_function

    return has_torch_function(args)


def _has_torch_function_unary(arg: Any) -> bool:
    from torch.overrides import has_torch_function_unary

    return has_torch_function_unary(arg)


def _has_torch_function_variadic(*args: Any) -> bool:
    from torch.overrides import has_torch_function

    return has_torch_function(args)


class _DisabledTorchFunctionImpl:
    """torch._C._disabled_torch_function_impl: run `func` as if no override existed.

    An instance rather than a function, so that assigning it as a class
    attribute (``__torch_function__ = _disabled_torch_function_impl``, as
    nn.Parameter does) does not turn it into a method, like the builtin.
    """

    __name__ = "_disabled_torch_function_impl"

    def __call__(self, func: Callable[..., Any], types: Iterable[type], args: Tuple = (), kwargs: Optional[dict] = None) -> Any:
        from torch.overrides import _disable_subclass_dispatch

        with _disable_subclass_dispatch():
            return func(*args, **(kwargs or {}))

    def __repr__(self) -> str:
        return "<built-in function _disabled_torch_function_impl>"


_disabled_torch_function_impl = _DisabledTorchFunctionImpl()


# ------------------------------------------------------------------ autograd engine


class _FunctionBase:
    """The native base of torch.autograd.Function. apply makes the context (an instance of the
    Function class, so its FunctionCtx methods are there) and runs forward on it; the
    bundled runtime records no graph for backward."""

    @classmethod
    def apply(cls, *args: Any) -> Any:
        ctx = object.__new__(cls)
        return cls.forward(ctx, *args)


class _ImperativeEngine:
    """The autograd engine. The bundled runtime runs forward only."""

    def run_backward(self, tensors: Tuple[Any, ...], grad_tensors: Tuple[Any, ...], keep_graph: bool,
                     create_graph: bool, inputs: Tuple[Any, ...], allow_unreachable: bool,
                     accumulate_grad: bool) -> Tuple[Any, ...]:
        raise RuntimeError(
            "the bundled runtime runs forward only: autograd (backward, torch.autograd.grad) is not implemented"
        )
