"""torch._C.TensorBase: the Python object around a native at::Tensor handle.

Everything here that is not an operator of native_functions.yaml (geometry,
views, copies, fills, element access) goes to the hand-written utilities of
torch/csrc/autograd/python_variable.cpp. The operator methods (relu, add,
softmax, ...) are attached by bindings.py from the manifest.
"""

from __future__ import annotations

import builtins
import ctypes
import math
import sys
from typing import Any, Iterator, List, Optional, Sequence, Tuple, Union

from torch._extension import runtime
from torch._extension.core import (
    Size,
    backend_device_override,
    device,
    dtype,
    dtype_code,
    dtype_from_code,
    float32,
    int64,
    bool_,
)

__all__ = ["TensorBase", "wrap", "tensor_class", "parse_to_arguments"]


def tensor_class() -> type:
    """torch.Tensor once torch/_tensor.py has defined it; TensorBase before that."""
    torch = sys.modules.get("torch")
    cls = getattr(torch, "Tensor", None) if torch is not None else None
    return cls if isinstance(cls, type) and issubclass(cls, TensorBase) else TensorBase


def wrap(handle: int, cls: Optional[type] = None) -> "TensorBase":
    """A new Python tensor owning `handle` (an at::Tensor* from the native library)."""
    obj = object.__new__(cls or tensor_class())
    obj._cdata = handle
    obj.requires_grad = False
    obj.grad = None
    obj._backward_hooks = None
    return obj


def _as_size(args: Sequence[Any]) -> List[int]:
    """`reshape(2, 3)` and `reshape((2, 3))` alike."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    return [int(a) for a in args]


def _resolve_device(value: Any) -> Optional[device]:
    if value is None:
        return None
    target = value if isinstance(value, device) else device(value)
    override = backend_device_override()
    return override if override is not None else target


def parse_to_arguments(args: Sequence[Any], kwargs: dict) -> Tuple[Optional[device], Optional[dtype], bool, bool]:
    """Tensor.to's flexible arguments: (device, dtype, non_blocking, copy)."""
    kwargs = dict(kwargs)
    dev = kwargs.pop("device", None)
    dt = kwargs.pop("dtype", None)
    non_blocking = bool(kwargs.pop("non_blocking", False))
    copy = bool(kwargs.pop("copy", False))
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
    positional = list(args)
    if positional and isinstance(positional[0], TensorBase):
        other = positional.pop(0)
        dev, dt = other.device, other.dtype
    elif positional and isinstance(positional[0], dtype):
        dt = positional.pop(0)
    elif positional and (positional[0] is None or isinstance(positional[0], (device, str, int))) and not isinstance(positional[0], bool):
        dev = positional.pop(0)
        if positional and (positional[0] is None or isinstance(positional[0], dtype)):
            dt = positional.pop(0)
    if positional and isinstance(positional[0], bool):
        non_blocking = positional.pop(0)
    if positional and isinstance(positional[0], bool):
        copy = positional.pop(0)
    if positional:
        raise TypeError(f"to() received an invalid combination of arguments: {args!r}")
    if dt is not None and not isinstance(dt, dtype):
        raise TypeError(f"to(): dtype must be a torch.dtype, not {type(dt).__name__}")
    return _resolve_device(dev), dt, non_blocking, copy


class TensorBase:
    """A tensor living on a device (cpu, or cuda: the emulated CUDA device).

    Storage is float32 for every dtype; the dtype is a tag the kernels check
    (int64 tensors hold integral float values), as in the sample's TensorImpl.
    """

    _cdata: int
    requires_grad: bool
    grad: Optional["TensorBase"]
    _backward_hooks: Optional[dict]

    def __new__(cls, *args: Any, **kwargs: Any) -> "TensorBase":
        # torch.Tensor(2, 3): an uninitialized float tensor (the legacy constructor)
        from torch._extension import factories

        if kwargs:
            raise TypeError("torch.Tensor() takes sizes only; use torch.tensor(data) or torch.empty(...)")
        if len(args) == 1 and isinstance(args[0], (list, tuple)) and not isinstance(args[0], Size):
            return factories.tensor(args[0], dtype=float32)._as_subclass(cls)
        return factories.empty(*(args or (0,)))._as_subclass(cls)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass  # built by __new__, wrap() or _make_subclass()

    def __del__(self) -> None:
        handle = self.__dict__.get("_cdata")
        if handle:
            try:
                runtime.lib().THPTensor_free(handle)
            except Exception:  # interpreter shutdown
                pass
            self._cdata = 0

    def _as_subclass(self, cls: type) -> "TensorBase":
        if type(self) is cls:
            return self
        return wrap(runtime.lib().THPTensor_alias(self._cdata), cls)

    @staticmethod
    def _make_subclass(cls: type, data: "TensorBase", require_grad: bool = False) -> "TensorBase":
        """An instance of `cls` sharing `data`'s storage (used by nn.Parameter)."""
        if not isinstance(data, TensorBase):
            raise TypeError(f"_make_subclass(): data must be a Tensor, not {type(data).__name__}")
        obj = wrap(runtime.lib().THPTensor_alias(data._cdata), cls)
        obj.requires_grad = bool(require_grad)
        return obj

    # ------------------------------------------------------------ autograd bookkeeping
    # The bundled runtime runs forward only: these are plain attributes.

    @property
    def grad_fn(self) -> None:
        return None

    @property
    def is_leaf(self) -> bool:
        return True

    def requires_grad_(self, requires_grad: bool = True) -> "TensorBase":
        self.requires_grad = bool(requires_grad)
        return self

    def detach(self) -> "TensorBase":
        return wrap(runtime.lib().THPTensor_alias(self._cdata))

    def detach_(self) -> "TensorBase":
        self.requires_grad = False
        return self

    @property
    def data(self) -> "TensorBase":
        return self.detach()

    @data.setter
    def data(self, value: "TensorBase") -> None:
        old, self._cdata = self._cdata, runtime.lib().THPTensor_alias(value._cdata)
        runtime.lib().THPTensor_free(old)

    # ------------------------------------------------------------ geometry

    def dim(self) -> int:
        return runtime.lib().THPTensor_dim(self._cdata)

    ndimension = dim

    @property
    def ndim(self) -> int:
        return self.dim()

    def _sizes(self) -> List[int]:
        n = self.dim()
        buf = (ctypes.c_int64 * max(1, n))()
        runtime.lib().THPTensor_sizes(self._cdata, buf)
        return list(buf[:n])

    def size(self, dim: Optional[int] = None) -> Union[Size, int]:
        sizes = self._sizes()
        if dim is None:
            return Size(sizes)
        return sizes[self._wrap_dim(dim)]

    @property
    def shape(self) -> Size:
        return Size(self._sizes())

    def stride(self, dim: Optional[int] = None) -> Union[Tuple[int, ...], int]:
        n = self.dim()
        buf = (ctypes.c_int64 * max(1, n))()
        runtime.lib().THPTensor_strides(self._cdata, buf)
        strides = tuple(buf[:n])
        return strides if dim is None else strides[self._wrap_dim(dim)]

    def storage_offset(self) -> int:
        return runtime.lib().THPTensor_storage_offset(self._cdata)

    def numel(self) -> int:
        return runtime.lib().THPTensor_numel(self._cdata)

    nelement = numel

    def is_contiguous(self, memory_format: Any = None) -> bool:
        return bool(runtime.lib().THPTensor_is_contiguous(self._cdata))

    def element_size(self) -> int:
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        return runtime.lib().THPTensor_data_ptr(self._cdata) or 0

    def _wrap_dim(self, dim: int) -> int:
        n = max(1, self.dim())
        if not -n <= dim < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
        return dim % n

    # ------------------------------------------------------------ device and dtype

    @property
    def device(self) -> device:
        kind, index = ctypes.c_int64(), ctypes.c_int64()
        runtime.lib().THPTensor_device(self._cdata, ctypes.byref(kind), ctypes.byref(index))
        return device.from_codes(kind.value, index.value)

    @property
    def dtype(self) -> dtype:
        return dtype_from_code(runtime.lib().THPTensor_dtype(self._cdata))

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    @property
    def is_cpu(self) -> bool:
        return self.device.type == "cpu"

    @property
    def is_meta(self) -> bool:
        return False

    @property
    def layout(self):
        from torch._extension.core import strided

        return strided

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def type(self, dtype: Any = None) -> Any:
        if dtype is None:
            names = {"float32": "FloatTensor", "float64": "DoubleTensor", "int64": "LongTensor", "bool": "BoolTensor"}
            prefix = "torch.cuda." if self.is_cuda else "torch."
            return prefix + names[self.dtype.name]
        return self.to(dtype)

    def to(self, *args: Any, **kwargs: Any) -> "TensorBase":
        target_device, target_dtype, _non_blocking, copy = parse_to_arguments(args, kwargs)
        current_device, current_dtype = self.device, self.dtype
        if target_device is not None and target_device.type == "cuda" and target_device.index is None:
            target_device = device("cuda", 0)
        new_device = target_device if target_device is not None else current_device
        new_dtype = target_dtype if target_dtype is not None else current_dtype
        if new_device == current_device and new_dtype is current_dtype and not copy:
            return self
        handle = runtime.call_returning_handle(
            "THPTensor_to",
            self._cdata,
            new_device.type_code,
            -1 if new_device.index is None else new_device.index,
            dtype_code(new_dtype),
        )
        return wrap(handle)

    def cuda(self, device: Any = None, non_blocking: bool = False) -> "TensorBase":
        if device is None:
            target = "cuda"
        elif isinstance(device, int) and not isinstance(device, bool):
            target = f"cuda:{device}"
        else:
            target = device
        return self.to(target, non_blocking=non_blocking)

    def cpu(self) -> "TensorBase":
        return self.to("cpu")

    def float(self) -> "TensorBase":
        return self.to(float32)

    def long(self) -> "TensorBase":
        return self.to(int64)

    def bool(self) -> "TensorBase":
        return self.to(bool_)

    # ------------------------------------------------------------ views and copies

    def as_strided(self, size: Sequence[int], stride: Sequence[int], storage_offset: Optional[int] = None) -> "TensorBase":
        size, stride = list(size), list(stride)
        if len(size) != len(stride):
            raise RuntimeError(f"mismatch in length of strides and shape: {len(stride)} vs {len(size)}")
        offset = self.storage_offset() if storage_offset is None else storage_offset
        handle = runtime.call_returning_handle(
            "THPTensor_as_strided", self._cdata, runtime.int64_array(size), runtime.int64_array(stride),
            len(size), offset,
        )
        return wrap(handle)

    def contiguous(self, memory_format: Any = None) -> "TensorBase":
        if self.is_contiguous():
            return self
        return wrap(runtime.call_returning_handle("THPTensor_contiguous", self._cdata))

    def clone(self, memory_format: Any = None) -> "TensorBase":
        return wrap(runtime.call_returning_handle("THPTensor_clone", self._cdata))

    def reshape(self, *shape: Any) -> "TensorBase":
        sizes = _as_size(shape)
        return wrap(runtime.call_returning_handle("THPTensor_reshape", self._cdata, runtime.int64_array(sizes), len(sizes)))

    def view(self, *shape: Any) -> "TensorBase":
        if len(shape) == 1 and isinstance(shape[0], dtype):
            raise RuntimeError("view(dtype) is not supported by the bundled runtime")
        sizes = _as_size(shape)
        numel = self.numel()
        if sizes.count(-1) > 1:
            raise RuntimeError("only one dimension can be inferred")
        if -1 in sizes:
            known = math.prod(s for s in sizes if s != -1)
            if known == 0 or numel % known:
                raise RuntimeError(f"shape '{list(sizes)}' is invalid for input of size {numel}")
            sizes[sizes.index(-1)] = numel // known
        if math.prod(sizes) != numel:
            raise RuntimeError(f"shape '{list(sizes)}' is invalid for input of size {numel}")
        if not self.is_contiguous():
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one dimension "
                "spans across two contiguous subspaces). Use .reshape(...) instead."
            )
        strides, running = [0] * len(sizes), 1
        for i in range(len(sizes) - 1, -1, -1):
            strides[i] = running
            running *= max(sizes[i], 1)
        return self.as_strided(sizes, strides, self.storage_offset())

    def view_as(self, other: "TensorBase") -> "TensorBase":
        return self.view(other.size())

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> "TensorBase":
        sizes = self._sizes()
        if not sizes:
            return self.reshape(1)
        start, end = self._wrap_dim(start_dim), self._wrap_dim(end_dim)
        merged = math.prod(sizes[start:end + 1])
        return self.reshape(sizes[:start] + [merged] + sizes[end + 1:])

    def unsqueeze(self, dim: int) -> "TensorBase":
        sizes, strides = self._sizes(), list(self.stride())
        n = len(sizes) + 1
        if not -n <= dim < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
        dim %= n
        inner = strides[dim] * sizes[dim] if dim < len(sizes) else 1
        return self.as_strided(sizes[:dim] + [1] + sizes[dim:], strides[:dim] + [inner] + strides[dim:])

    def squeeze(self, dim: Optional[int] = None) -> "TensorBase":
        sizes, strides = self._sizes(), list(self.stride())
        keep = [i for i, s in enumerate(sizes) if not (s == 1 and (dim is None or i == self._wrap_dim(dim)))]
        return self.as_strided([sizes[i] for i in keep], [strides[i] for i in keep])

    def permute(self, *dims: Any) -> "TensorBase":
        order = [self._wrap_dim(d) for d in _as_size(dims)]
        if sorted(order) != list(range(self.dim())):
            raise RuntimeError("permute(): dims must be a permutation of the dimensions")
        sizes, strides = self._sizes(), list(self.stride())
        return self.as_strided([sizes[d] for d in order], [strides[d] for d in order])

    def transpose(self, dim0: int, dim1: int) -> "TensorBase":
        order = list(range(self.dim()))
        a, b = self._wrap_dim(dim0), self._wrap_dim(dim1)
        order[a], order[b] = order[b], order[a]
        return self.permute(order)

    def select(self, dim: int, index: int) -> "TensorBase":
        return self[(slice(None),) * self._wrap_dim(dim) + (index,)]

    def narrow(self, dim: int, start: int, length: int) -> "TensorBase":
        return self[(slice(None),) * self._wrap_dim(dim) + (slice(start, start + length),)]

    def copy_(self, src: Any, non_blocking: bool = False) -> "TensorBase":
        if not isinstance(src, TensorBase):
            return self.fill_(src)
        if src.numel() == 1 and self.numel() != 1:
            return self.fill_(src.item())
        runtime.call("THPTensor_copy_", self._cdata, src._cdata)
        return self

    def __getitem__(self, index: Any) -> "TensorBase":
        sizes, strides, offset = self._sizes(), list(self.stride()), self.storage_offset()
        items = index if isinstance(index, tuple) else (index,)
        if any(isinstance(i, TensorBase) for i in items):
            raise IndexError("indexing with tensors is not supported by the bundled runtime; use index_select")
        if sum(1 for i in items if i is Ellipsis) > 1:
            raise IndexError("an index can only have a single ellipsis ('...')")
        consumed = sum(1 for i in items if i is not None and i is not Ellipsis)
        if consumed > len(sizes):
            raise IndexError(f"too many indices for tensor of dimension {len(sizes)}")
        expanded: List[Any] = []
        for i in items:
            if i is Ellipsis:
                expanded.extend([slice(None)] * (len(sizes) - consumed))
            else:
                expanded.append(i)
        new_sizes: List[int] = []
        new_strides: List[int] = []
        dim = 0
        for i in expanded:
            if i is None:
                new_sizes.append(1)
                new_strides.append(strides[dim] * sizes[dim] if dim < len(sizes) else 1)
                continue
            if isinstance(i, bool) or not isinstance(i, (int, slice)) and not hasattr(i, "__index__"):
                raise IndexError(f"unsupported index {i!r}")
            if isinstance(i, slice):
                start, stop, step = i.indices(sizes[dim])
                if step <= 0:
                    raise ValueError("step must be greater than zero")
                length = max(0, (stop - start + step - 1) // step)
                offset += start * strides[dim] if length else 0
                new_sizes.append(length)
                new_strides.append(strides[dim] * step)
            else:
                k = int(i.__index__())
                if not -sizes[dim] <= k < sizes[dim]:
                    raise IndexError(f"index {k} is out of bounds for dimension {dim} with size {sizes[dim]}")
                offset += (k % sizes[dim]) * strides[dim]
            dim += 1
        new_sizes += sizes[dim:]
        new_strides += strides[dim:]
        return self.as_strided(new_sizes, new_strides, offset)

    def __setitem__(self, index: Any, value: Any) -> None:
        self[index].copy_(value)

    # ------------------------------------------------------------ fills

    def fill_(self, value: Any) -> "TensorBase":
        if isinstance(value, TensorBase):
            value = value.item()
        runtime.call("THPTensor_fill_", self._cdata, ctypes.c_double(float(value)))
        return self

    def zero_(self) -> "TensorBase":
        return self.fill_(0)

    def uniform_(self, from_: float = 0, to: float = 1, generator: Any = None) -> "TensorBase":
        runtime.call("THPTensor_uniform_", self._cdata, ctypes.c_double(from_), ctypes.c_double(to))
        return self

    def normal_(self, mean: float = 0, std: float = 1, generator: Any = None) -> "TensorBase":
        runtime.call("THPTensor_normal_", self._cdata, ctypes.c_double(mean), ctypes.c_double(std))
        return self

    # ------------------------------------------------------------ values

    def _values(self) -> List[float]:
        n = self.numel()
        buf = (ctypes.c_float * max(1, n))()
        runtime.call("THPTensor_read", self._cdata, buf, n)
        return list(buf[:n])

    def _convert(self, value: float) -> Union[int, float, builtins.bool]:
        dt = self.dtype
        if dt is bool_:
            return value != 0
        if not dt.is_floating_point:
            return int(value)
        return value

    def item(self) -> Union[int, float, builtins.bool]:
        n = self.numel()
        if n != 1:
            raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
        return self._convert(self._values()[0])

    def tolist(self) -> Any:
        values = [self._convert(v) for v in self._values()]
        sizes = self._sizes()
        if not sizes:
            return values[0]

        def nest(flat: List[Any], dims: List[int]) -> List[Any]:
            if len(dims) == 1:
                return flat
            step = len(flat) // dims[0] if dims[0] else 0
            return [nest(flat[k * step:(k + 1) * step], dims[1:]) for k in range(dims[0])]

        return nest(values, sizes)

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __bool__(self) -> builtins.bool:
        if self.numel() != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __index__(self) -> int:
        if self.dtype.is_floating_point or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __iter__(self) -> Iterator["TensorBase"]:
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[k] for k in range(self.size(0)))

    def __len__(self) -> int:
        if self.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.size(0)

    # ------------------------------------------------------------ arithmetic through aten::add

    def __add__(self, other: Any) -> "TensorBase":
        return self.add(other)

    def __radd__(self, other: Any) -> "TensorBase":
        return self.add(other)

    def __iadd__(self, other: Any) -> "TensorBase":
        from torch._extension.bindings import variable_functions

        return variable_functions().add(self, other, out=self)

    def __sub__(self, other: Any) -> "TensorBase":
        return self.add(other, alpha=-1)

    def __rsub__(self, other: Any) -> "TensorBase":
        from torch._extension.bindings import variable_functions

        return variable_functions().add(other, self, alpha=-1)

    def __neg__(self) -> "TensorBase":
        return self.add(self, alpha=-2)

    def __pos__(self) -> "TensorBase":
        return self

    def __repr__(self) -> str:
        return f"tensor({self.tolist()!r}, dtype={self.dtype}, device='{self.device}')"

    __hash__ = object.__hash__

    def __reduce_ex__(self, protocol: int):
        from torch._extension import factories

        return (factories._rebuild_tensor, (self.tolist(), self.dtype.name, str(self.device), self.requires_grad))
