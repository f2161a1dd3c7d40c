"""A small ResNet-style classifier for 8x8 images."""

from torch import nn

from .layers import BasicBlock, SoftExp, conv3x3


class Net(nn.Module):
    def __init__(self, channels: int = 4, blocks: int = 2, classes: int = 3) -> None:
        super().__init__()
        self.stem = nn.Sequential(conv3x3(3, channels), nn.BatchNorm2d(channels), nn.ReLU())
        self.blocks = nn.ModuleList([BasicBlock(channels) for _ in range(blocks)])
        self.pool = nn.MaxPool2d(8)
        self.fc = nn.Linear(channels, classes)
        # the heads by name, in a plain dict: forward picks one by its key
        self.heads = {"logits": self.fc}

    def forward(self, x):
        x = self.stem(x)
        for block in self.blocks:
            x = block(x)
        x = SoftExp.apply(x)
        x = self.pool(x).flatten(1)
        return self.heads["logits"](x)
