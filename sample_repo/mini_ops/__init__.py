"""mini_ops: a small CUDA extension package in the style of those built beside PyTorch."""

from .layers import ScaledClamp
from .ops import ScaleFn, clamp_add, scale, soft_square

__all__ = ["ScaleFn", "ScaledClamp", "clamp_add", "scale", "soft_square"]
