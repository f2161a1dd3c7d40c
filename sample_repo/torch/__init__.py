"""A miniature tensor library with autograd and neural-network building blocks.

The native operators live in the extension module ``torch._C``; the loop
further down republishes every entry of ``torch._C._VariableFunctions`` as a
top-level ``torch.<op>`` function.
"""

import builtins
import sys
from typing import TYPE_CHECKING, Any, List

__all__: List[str] = [
    "Tensor",
    "is_tensor",
    "typename",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
]

if sys.version_info < (3, 8):
    raise RuntimeError("this torch requires Python 3.8 or later")

################################################################################
# Load the extension module (torch._extension builds it on first import)
################################################################################
_C = __import__("torch._extension", fromlist=["install"]).install()
from torch import _C as _C
from torch._C import *  # noqa: F403
from torch._C import (
    Size as Size,
    TensorBase as TensorBase,
    device as device,
    dtype as dtype,
    is_grad_enabled as is_grad_enabled,
)

################################################################################
# Tensor class and a few helpers
################################################################################

from torch._tensor import Tensor


def is_tensor(obj: Any) -> builtins.bool:
    """True if ``obj`` is a Tensor (including subclasses such as Parameter)."""
    return isinstance(obj, Tensor)


def typename(obj: Any) -> str:
    """Short, human-readable name of the type of ``obj``."""
    if isinstance(obj, Tensor):
        return f"torch.Tensor[{obj.dtype}]"
    module = getattr(type(obj), "__module__", "")
    name = type(obj).__qualname__
    return name if module in ("", "builtins") else f"{module}.{name}"


################################################################################
# Expose the generated operators as torch.<name>
################################################################################

# Type checkers cannot follow the loop below; show them the stub instead.
if TYPE_CHECKING:
    from torch._C._VariableFunctions import *  # noqa: F403

# Helper ops that must stay reachable only through torch._C.
PRIVATE_OPS = ("unique_dim",)

__name, __obj = "", None
for __name in dir(_C._VariableFunctions):
    if __name.startswith("__") or __name in PRIVATE_OPS:
        continue
    __obj = getattr(_C._VariableFunctions, __name)
    __obj.__module__ = __name__
    globals()[__name] = __obj
    if not __name.startswith("_"):
        __all__.append(__name)

del __name, __obj

################################################################################
# Submodules
################################################################################

from torch.autograd import enable_grad, no_grad, set_grad_enabled
from torch import autograd as autograd
from torch import backends as backends
from torch import overrides as overrides
from torch import types as types
from torch import utils as utils
from torch import nn as nn
from torch import _VF as _VF
