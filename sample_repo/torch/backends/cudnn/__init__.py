"""cuDNN controls.

``enabled`` is read by torch.nn.functional.batch_norm and passed down to the
native op, which only takes the cuDNN path when it is true and the input
lives on a CUDA device.
"""

from contextlib import contextmanager
from typing import Iterator, Optional

import torch

__all__ = ["enabled", "benchmark", "deterministic", "is_available", "version", "flags"]

enabled = True
benchmark = False
deterministic = False

_cached_version: Optional[int] = None


def is_available() -> bool:
    """True when this build of torch was compiled against cuDNN."""
    return bool(torch._C._has_cudnn)


def version() -> Optional[int]:
    """cuDNN version as an integer (e.g. 8902), or None without cuDNN."""
    global _cached_version
    if not is_available():
        return None
    if _cached_version is None:
        _cached_version = torch._C._cudnn_version()
    return _cached_version


def is_acceptable(tensor: "torch.Tensor") -> bool:
    """Whether cuDNN may be used for ``tensor`` under the current flags."""
    if not enabled or not tensor.is_cuda:
        return False
    return is_available()


def set_flags(
    _enabled: Optional[bool] = None,
    _benchmark: Optional[bool] = None,
    _deterministic: Optional[bool] = None,
):
    """Update the module flags; returns the previous values as a tuple."""
    global enabled, benchmark, deterministic
    previous = (enabled, benchmark, deterministic)
    if _enabled is not None:
        enabled = _enabled
        torch._C._set_cudnn_enabled(_enabled)
    if _benchmark is not None:
        benchmark = _benchmark
        torch._C._set_cudnn_benchmark(_benchmark)
    if _deterministic is not None:
        deterministic = _deterministic
        torch._C._set_cudnn_deterministic(_deterministic)
    return previous


@contextmanager
def flags(
    enabled: bool = False, benchmark: bool = False, deterministic: bool = False
) -> Iterator[None]:
    """Temporarily set the cuDNN flags inside a ``with`` block."""
    previous = set_flags(enabled, benchmark, deterministic)
    try:
        yield
    finally:
        set_flags(*previous)
