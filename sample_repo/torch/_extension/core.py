"""The small value types of torch._C: dtype, device, Size, memory_format, layout.

Their codes match the C++ enums of c10/core (ScalarType, DeviceType,
MemoryFormat, Layout), which is what crosses the C boundary.
"""

from __future__ import annotations

import builtins
import os
from typing import Any, Dict, Iterable, Optional, Tuple, Union

__all__ = [
    "dtype",
    "device",
    "Size",
    "memory_format",
    "layout",
    "DTYPES",
    "dtype_from_code",
    "backend_device_override",
]


class dtype:
    """An element type. ``code`` is its c10::ScalarType, or None for the types the
    sample's native library does not implement (float16, int32)."""

    __slots__ = ("name", "code", "is_floating_point", "is_signed", "itemsize")

    def __init__(self, name: str, code: Optional[int], is_floating_point: bool, is_signed: bool, itemsize: int) -> None:
        self.name = name
        self.code = code
        self.is_floating_point = is_floating_point
        self.is_signed = is_signed
        self.itemsize = itemsize

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))

    @property
    def is_complex(self) -> bool:
        return False


float32 = dtype("float32", 0, True, True, 4)
float64 = dtype("float64", 1, True, True, 8)
int64 = dtype("int64", 2, False, True, 8)
bool_ = dtype("bool", 3, False, False, 1)
float16 = dtype("float16", None, True, True, 2)
int32 = dtype("int32", None, False, True, 4)

# torch.<name> -> dtype, aliases included (torch.float is torch.float32, ...).
DTYPES: Dict[str, dtype] = {
    "float32": float32,
    "float": float32,
    "float64": float64,
    "double": float64,
    "float16": float16,
    "half": float16,
    "int64": int64,
    "long": int64,
    "int32": int32,
    "int": int32,
    "bool": bool_,
}

_BY_CODE = {d.code: d for d in (float32, float64, int64, bool_)}


def _dtype_by_name(name: str) -> dtype:
    return DTYPES[name]


def dtype_from_code(code: int) -> dtype:
    return _BY_CODE[code]


def dtype_code(d: dtype) -> int:
    if d.code is None:
        raise TypeError(f"{d} is not supported by the bundled runtime (its tensors hold float32, "
                        "float64, int64 or bool)")
    return d.code


# ------------------------------------------------------------------ devices

_DEVICE_TYPES = {"cpu": 0, "cuda": 1, "meta": 2}
_DEVICE_NAMES = {code: name for name, code in _DEVICE_TYPES.items()}


class device:
    """A device kind plus an optional index: ``device('cuda:0')``, ``device('cpu')``,
    ``device('cuda', 1)``, ``device(0)`` (CUDA device 0)."""

    __slots__ = ("type", "index")

    def __init__(self, type: Union["device", str, int], index: Optional[int] = None) -> None:  # noqa: A002
        if isinstance(type, device):
            if index is not None:
                raise TypeError("device(device, index) is not supported")
            kind, idx = type.type, type.index
        elif isinstance(type, builtins.bool):
            raise TypeError(f"device() received an invalid argument: {type!r}")
        elif isinstance(type, builtins.int):
            if type < 0:
                raise RuntimeError(f"Device index must not be negative, got {type}")
            kind, idx = "cuda", type
        elif isinstance(type, str):
            kind, sep, idx_text = type.strip().partition(":")
            if kind not in _DEVICE_TYPES:
                raise RuntimeError(
                    f"Expected one of cpu, cuda, meta device type at start of device string: {type}"
                )
            idx = None
            if sep:
                if not idx_text.isdigit():
                    raise RuntimeError(f"Invalid device string: '{type}'")
                idx = builtins.int(idx_text)
        else:
            raise TypeError(f"device() received an invalid argument of type {builtins.type(type).__name__}")
        if index is not None:
            if idx is not None:
                raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: {type}")
            if index < 0:
                raise RuntimeError(f"Device index must not be negative, got {index}")
            idx = index
        if kind == "cpu" and idx not in (None, 0):
            raise RuntimeError(f"CPU device index must be -1 or zero, got {idx}")
        object.__setattr__(self, "type", kind)
        object.__setattr__(self, "index", idx)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("device objects are immutable")

    @property
    def type_code(self) -> int:
        return _DEVICE_TYPES[self.type]

    @staticmethod
    def from_codes(type_code: int, index: int) -> "device":
        return device(_DEVICE_NAMES[type_code], index if index >= 0 else None)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self) -> builtins.int:
        return hash((self.type, self.index))

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __reduce__(self):
        return (device, (self.type, self.index))


def backend_device_override() -> Optional[device]:
    """$TORCH_BACKEND_DEVICE ('cpu' or 'cuda'): when set, every device a tensor is
    created on or moved to becomes this one (explorer run --backend-device)."""
    value = os.environ.get("TORCH_BACKEND_DEVICE", "").strip()
    return device(value) if value else None


# ------------------------------------------------------------------ sizes, formats


class Size(tuple):
    """The shape of a tensor: a tuple of ints."""

    def __new__(cls, sizes: Iterable[builtins.int] = ()) -> "Size":
        return super().__new__(cls, (builtins.int(s) for s in sizes))

    def numel(self) -> builtins.int:
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, index):  # type: ignore[override]
        result = super().__getitem__(index)
        return Size(result) if isinstance(index, slice) else result

    def __add__(self, other: Tuple) -> "Size":  # type: ignore[override]
        return Size(tuple(self) + tuple(other))

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    def __reduce__(self):
        return (Size, (tuple(self),))


class memory_format:
    __slots__ = ("name", "code")

    def __init__(self, name: str, code: builtins.int) -> None:
        self.name = name
        self.code = code

    def __repr__(self) -> str:
        return f"torch.{self.name}"


contiguous_format = memory_format("contiguous_format", 0)
preserve_format = memory_format("preserve_format", 1)
channels_last = memory_format("channels_last", 2)


class layout:
    __slots__ = ("name", "code")

    def __init__(self, name: str, code: builtins.int) -> None:
        self.name = name
        self.code = code

    def __repr__(self) -> str:
        return f"torch.{self.name}"


strided = layout("strided", 0)
