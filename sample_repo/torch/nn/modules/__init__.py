from .module import Module
from .activation import ReLU, Softmax
from .batchnorm import BatchNorm1d, BatchNorm2d
from .container import ModuleList, Sequential
from .conv import Conv1d, Conv2d
from .dropout import Dropout
from .linear import Identity, Linear
from .pooling import MaxPool2d
from .rnn import LSTM, RNNBase
from .sparse import Embedding

__all__ = [
    "BatchNorm1d",
    "BatchNorm2d",
    "Conv1d",
    "Conv2d",
    "Dropout",
    "Embedding",
    "Identity",
    "LSTM",
    "Linear",
    "MaxPool2d",
    "Module",
    "ModuleList",
    "RNNBase",
    "ReLU",
    "Sequential",
    "Softmax",
]
