"""The building blocks of the net: a helper that returns a layer, a residual block, and a
custom autograd Function."""

import torch
from torch import nn


def conv3x3(in_channels: int, out_channels: int) -> nn.Conv2d:
    """A 3x3 convolution that keeps the spatial size; batch norm follows it, so no bias."""
    return nn.Conv2d(in_channels, out_channels, 3, padding=1, bias=False)


class SoftExp(torch.autograd.Function):
    """exp(x), with the result saved for backward (d/dx exp = exp)."""

    @staticmethod
    def forward(ctx, x):
        y = torch.exp(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y


class BasicBlock(nn.Module):
    """Two convolutions with batch norm, and the input added back before the last ReLU."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = conv3x3(channels, channels)
        self.bn1 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU()
        self.conv2 = conv3x3(channels, channels)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + x)
