"""A user project that depends on the mini_ops extension."""

from .model import App, run

__all__ = ["App", "run"]
