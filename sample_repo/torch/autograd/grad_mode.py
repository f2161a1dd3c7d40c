"""Context managers that switch gradient recording on and off."""

import functools
from typing import Any, Callable

import torch

__all__ = ["no_grad", "enable_grad", "set_grad_enabled"]


class _GradModeBase:
    """Shared plumbing: usable both as a context manager and as a decorator."""

    prev: bool = False

    def __call__(self, func: Callable) -> Callable:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.__class__():
                return func(*args, **kwargs)

        return wrapper

    def __enter__(self) -> None:
        raise NotImplementedError

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        torch._C._set_grad_enabled(self.prev)


class no_grad(_GradModeBase):
    """Disable gradient recording inside the block."""

    def __enter__(self) -> None:
        self.prev = torch._C.is_grad_enabled()
        torch._C._set_grad_enabled(False)


class enable_grad(_GradModeBase):
    """Enable gradient recording inside the block."""

    def __enter__(self) -> None:
        self.prev = torch._C.is_grad_enabled()
        torch._C._set_grad_enabled(True)


class set_grad_enabled(_GradModeBase):
    """Set gradient recording to ``mode``; takes effect immediately."""

    def __init__(self, mode: bool) -> None:
        self.prev = torch._C.is_grad_enabled()
        self.mode = mode
        torch._C._set_grad_enabled(mode)

    def __call__(self, func: Callable) -> Callable:
        torch._C._set_grad_enabled(self.prev)
        mode = self.mode

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with set_grad_enabled(mode):
                return func(*args, **kwargs)

        return wrapper

    def __enter__(self) -> None:
        torch._C._set_grad_enabled(self.mode)
