"""explorer: source exploration and cross-language call tracing for PyTorch-style trees."""

__version__ = "0.1.0"
