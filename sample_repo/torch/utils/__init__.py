"""Assorted helpers used across the package."""

from torch.utils import hooks

__all__ = ["hooks"]
