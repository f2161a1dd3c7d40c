"""A user's model built on the mini_ops extension: a convolution, then the extension's
layer; and a helper that calls one of its operations directly."""

import torch

import mini_ops
from mini_ops.layers import ScaledClamp


class App(torch.nn.Module):
    def __init__(self, channels: int = 3, factor: float = 0.5) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(channels, channels, 3, padding=1)
        self.block = ScaledClamp(factor)

    def forward(self, x):
        x = self.conv(x)
        return self.block(x)


def run(x):
    return mini_ops.soft_square(x)
