"""Switches that steer which native backend an operator picks."""

from torch.backends import cudnn

__all__ = ["cudnn", "disable_global_flags", "flags_frozen"]

_flags_frozen = False


def disable_global_flags() -> None:
    """Forbid assigning backend flags directly; use the ``flags()`` managers."""
    global _flags_frozen
    _flags_frozen = True


def flags_frozen() -> bool:
    return _flags_frozen
