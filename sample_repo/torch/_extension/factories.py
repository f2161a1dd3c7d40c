"""Tensor factories that native_functions.yaml of the sample does not declare.

torch.empty is an operator (aten::empty.memory_format) and reaches its kernel
through the dispatcher. The others (zeros, ones, full, rand, randn, tensor,
arange, *_like) are built here from the native utilities: allocate through
aten::empty, then fill. manual_seed reseeds the default CPU and CUDA generators.

All of them take ``dtype=`` and ``device=``, and ``requires_grad=``.
"""

from __future__ import annotations

import builtins
import ctypes
import math
import numbers
from typing import Any, List, Optional, Sequence, Tuple

from torch._extension import runtime
from torch._extension.core import Size, backend_device_override, bool_, device, dtype, dtype_code, float32, int64
from torch._extension.tensor import TensorBase, wrap

__all__ = [
    "empty",
    "zeros",
    "ones",
    "full",
    "rand",
    "randn",
    "tensor",
    "arange",
    "zeros_like",
    "ones_like",
    "empty_like",
    "full_like",
    "manual_seed",
    "initial_seed",
    "is_grad_enabled",
]


def _size(size: Sequence[Any]) -> List[int]:
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = size[0]
    result = []
    for s in size:
        if isinstance(s, bool) or not isinstance(s, numbers.Integral) and not isinstance(s, TensorBase):
            raise TypeError(f"size must be a sequence of ints, got {type(s).__name__}")
        result.append(int(s))
    return result


def _device(value: Any) -> device:
    override = backend_device_override()
    if override is not None:
        return override
    if value is None:
        return device("cpu")
    return value if isinstance(value, device) else device(value)


def _new(sizes: Sequence[int], dt: Optional[dtype], dev: Any, fill: Optional[float] = None) -> TensorBase:
    d = _device(dev)
    dims = runtime.int64_array(sizes)
    index = -1 if d.index is None else d.index
    code = dtype_code(dt or float32)
    if fill is None:
        handle = runtime.call_returning_handle("THPTensor_new_empty", dims, len(sizes), d.type_code, index, code)
    else:
        handle = runtime.call_returning_handle(
            "THPTensor_new_full", dims, len(sizes), d.type_code, index, code, ctypes.c_double(fill)
        )
    return wrap(handle)


def _finish(t: TensorBase, requires_grad: bool) -> TensorBase:
    if requires_grad:
        t.requires_grad = True
    return t


def empty(*size: Any, dtype: Optional[dtype] = None, device: Any = None, requires_grad: bool = False,
          **kwargs: Any) -> TensorBase:
    from torch._extension.bindings import variable_functions

    return variable_functions().empty(_size(size), dtype=dtype, device=device, requires_grad=requires_grad, **kwargs)


def zeros(*size: Any, dtype: Optional[dtype] = None, device: Any = None, requires_grad: bool = False) -> TensorBase:
    return _finish(_new(_size(size), dtype, device, 0.0), requires_grad)


def ones(*size: Any, dtype: Optional[dtype] = None, device: Any = None, requires_grad: bool = False) -> TensorBase:
    return _finish(_new(_size(size), dtype, device, 1.0), requires_grad)


def full(size: Sequence[int], fill_value: Any, *, dtype: Optional[dtype] = None, device: Any = None,
         requires_grad: bool = False) -> TensorBase:
    if dtype is None:
        dtype = bool_ if isinstance(fill_value, bool) else int64 if isinstance(fill_value, numbers.Integral) else float32
    return _finish(_new(_size((size,)), dtype, device, float(fill_value)), requires_grad)


def rand(*size: Any, dtype: Optional[dtype] = None, device: Any = None, requires_grad: bool = False,
         generator: Any = None) -> TensorBase:
    """U[0, 1) from the default CPU generator (for every device)."""
    return _finish(_new(_size(size), dtype, device).uniform_(0.0, 1.0), requires_grad)


def randn(*size: Any, dtype: Optional[dtype] = None, device: Any = None, requires_grad: bool = False,
          generator: Any = None) -> TensorBase:
    """N(0, 1) from the default CPU generator (for every device)."""
    return _finish(_new(_size(size), dtype, device).normal_(0.0, 1.0), requires_grad)


def _flatten(data: Any) -> Tuple[List[int], List[Any]]:
    """Shape and row-major values of nested lists/tuples (or a tensor, or a number)."""
    if isinstance(data, TensorBase):
        return list(data.size()), data.reshape(-1).tolist() if data.dim() else [data.item()]
    if isinstance(data, (list, tuple)):
        if not data:
            return [0], []
        shapes, values = [], []
        for item in data:
            shape, flat = _flatten(item)
            shapes.append(shape)
            values.extend(flat)
        if any(s != shapes[0] for s in shapes):
            raise ValueError(f"expected sequence of length {shapes[0]} at every level, got ragged nested lists")
        return [len(data)] + shapes[0], values
    if isinstance(data, numbers.Number):
        if isinstance(data, complex):
            raise TypeError("complex numbers are not supported by the bundled runtime")
        return [], [data]
    raise TypeError(f"Could not infer dtype of {type(data).__name__}")


def tensor(data: Any, dtype: Optional[dtype] = None, device: Any = None, requires_grad: bool = False) -> TensorBase:
    """A new tensor holding `data` (nested lists of numbers). Integer data gives
    int64, booleans bool, anything else float32, unless `dtype` says otherwise."""
    sizes, values = _flatten(data)
    if dtype is None:
        if values and all(isinstance(v, bool) for v in values):
            dtype = bool_
        elif values and all(isinstance(v, numbers.Integral) for v in values):
            dtype = int64
        elif isinstance(data, TensorBase):
            dtype = data.dtype
        else:
            dtype = float32
    t = _new(sizes, dtype, "cpu")
    if values:
        buf = (ctypes.c_float * len(values))(*[float(v) for v in values])
        runtime.call("THPTensor_write", t._cdata, buf, len(values))
    target = _device(device)
    return _finish(t.to(target) if target != t.device else t, requires_grad)


def arange(start: Any, end: Any = None, step: Any = 1, *, dtype: Optional[dtype] = None, device: Any = None,
           requires_grad: bool = False) -> TensorBase:
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    count = max(0, math.ceil((end - start) / step))
    values = [start + k * step for k in range(count)]
    if dtype is None:
        integral = all(isinstance(v, numbers.Integral) for v in (start, end, step))
        dtype = int64 if integral else float32
    return tensor(values if values else [], dtype=dtype, device=device, requires_grad=requires_grad).reshape(count)


def _like(t: TensorBase, dtype: Optional[dtype], device: Any) -> Tuple[List[int], dtype, Any]:
    return list(t.size()), dtype or t.dtype, device if device is not None else t.device


def empty_like(input: TensorBase, *, dtype: Optional[dtype] = None, device: Any = None,
               requires_grad: bool = False) -> TensorBase:
    sizes, dt, dev = _like(input, dtype, device)
    return _finish(_new(sizes, dt, dev), requires_grad)


def zeros_like(input: TensorBase, *, dtype: Optional[dtype] = None, device: Any = None,
               requires_grad: bool = False) -> TensorBase:
    sizes, dt, dev = _like(input, dtype, device)
    return _finish(_new(sizes, dt, dev, 0.0), requires_grad)


def ones_like(input: TensorBase, *, dtype: Optional[dtype] = None, device: Any = None,
              requires_grad: bool = False) -> TensorBase:
    sizes, dt, dev = _like(input, dtype, device)
    return _finish(_new(sizes, dt, dev, 1.0), requires_grad)


def full_like(input: TensorBase, fill_value: Any, *, dtype: Optional[dtype] = None, device: Any = None,
              requires_grad: bool = False) -> TensorBase:
    sizes, dt, dev = _like(input, dtype, device)
    return _finish(_new(sizes, dt, dev, float(fill_value)), requires_grad)


class Generator:
    """The default generator torch.manual_seed returns (seed bookkeeping only)."""

    def __init__(self, seed: int) -> None:
        self._seed = seed

    def initial_seed(self) -> int:
        return self._seed

    def manual_seed(self, seed: int) -> "Generator":
        return manual_seed(seed)

    def __repr__(self) -> str:
        return f"<torch._C.Generator seed={self._seed}>"


def manual_seed(seed: int) -> Generator:
    """Reseed the default CPU and CUDA generators: the following random draws
    (rand, randn, uniform_, normal_, dropout) repeat for the same seed."""
    seed = int(seed)
    if not -0x8000_0000_0000_0000 <= seed <= 0xFFFF_FFFF_FFFF_FFFF:
        raise RuntimeError(f"Overflow when unpacking long: {seed}")
    seed &= 0xFFFF_FFFF_FFFF_FFFF
    runtime.lib().THPModule_manualSeed(seed)
    return Generator(seed)


def initial_seed() -> int:
    return runtime.lib().THPModule_initialSeed()


def is_grad_enabled() -> builtins.bool:
    return bool(runtime.lib().THPModule_isGradEnabled())


def _rebuild_tensor(values: Any, dtype_name: str, device_name: str, requires_grad: bool) -> TensorBase:
    from torch._extension.core import DTYPES

    return tensor(values, dtype=DTYPES[dtype_name], device=device_name, requires_grad=requires_grad)
