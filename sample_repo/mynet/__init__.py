"""A user's own model, kept beside the miniature torch/ the way a project sits beside an
installed PyTorch: the net, its blocks, and a custom autograd operation."""

from .net import Net

__all__ = ["Net"]
