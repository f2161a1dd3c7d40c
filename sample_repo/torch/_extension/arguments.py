"""Overload resolution and argument conversion for the operator bindings.

The role of PythonArgParser in the real tree: every overload of an operator
(from the manifest torchgen writes) becomes a PythonSignature; a call tries
them in order and the first whose parameters accept the given arguments wins.
The winner's arguments are converted into the tagged THPArg structs of the C
calling convention (torch/csrc/utils/python_arg_parser.h), in schema order.

Python signatures follow the real bindings: a function's `self` is called
`input`; the outputs of an out= variant form one keyword argument `out`
(a tuple when there are several); factories take `requires_grad`; the first
int-list argument of a factory can be given as varargs (`torch.empty(2, 3)`);
Python numbers are accepted where `add` expects a tensor.
"""

from __future__ import annotations

import ctypes
import numbers
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from torch._extension.core import Size, backend_device_override, device, dtype, dtype_code, layout, memory_format

__all__ = ["THPArg", "THPResult", "PythonSignature", "ArgumentMismatch", "parse_type", "format_invalid_arguments"]

# THPTag values (torch/csrc/utils/python_arg_parser.h)
THP_NONE, THP_TENSOR, THP_INT, THP_FLOAT, THP_BOOL, THP_STRING = 0, 1, 2, 3, 4, 5
THP_INT_LIST, THP_TENSOR_LIST, THP_SCALAR_TYPE, THP_LAYOUT, THP_DEVICE, THP_MEMORY_FORMAT = 6, 7, 8, 9, 10, 11


class THPArg(ctypes.Structure):
    _fields_ = [
        ("tag", ctypes.c_int64),
        ("i", ctypes.c_int64),
        ("j", ctypes.c_int64),
        ("f", ctypes.c_double),
        ("p", ctypes.c_void_p),
    ]


class THPResult(ctypes.Structure):
    _fields_ = [
        ("tag", ctypes.c_int64),
        ("i", ctypes.c_int64),
        ("f", ctypes.c_double),
        ("p", ctypes.c_void_p),
    ]


# Operators whose Tensor arguments also take Python numbers (as the real
# parser's should_allow_numbers_as_tensors): the number becomes a 0-dim
# tensor on the device, and with the dtype, of the call's first tensor.
NUMBERS_AS_TENSORS = frozenset({"add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod"})


class ArgumentMismatch(Exception):
    """One overload does not accept the arguments (the reason is the message)."""


# ------------------------------------------------------------------ schema types


@dataclass(frozen=True)
class ArgType:
    base: str  # Tensor, SymInt, int, float, bool, str, Scalar, ScalarType, Layout, Device, MemoryFormat
    optional: bool
    is_list: bool
    size: Optional[int]  # int[2]

    def python_name(self) -> str:
        names = {
            "Tensor": "Tensor", "SymInt": "int", "int": "int", "float": "float", "bool": "bool", "str": "str",
            "Scalar": "Number", "ScalarType": "torch.dtype", "Layout": "torch.layout", "Device": "torch.device",
            "MemoryFormat": "torch.memory_format",
        }
        name = names[self.base]
        if self.is_list:
            name = f"tuple of {name}s" if self.base != "Tensor" else "tuple of Tensors"
        return name


_TYPE = re.compile(r"^(?P<base>\w+)(?P<list>\[(?P<size>\d*)\])?(?P<opt>\?)?$")


def parse_type(text: str) -> ArgType:
    match = _TYPE.match(text)
    if match is None:
        raise ValueError(f"unsupported schema type {text!r}")
    size = match["size"]
    return ArgType(match["base"], bool(match["opt"]), bool(match["list"]), int(size) if size else None)


def parse_default(text: Optional[str]) -> Any:
    """Schema default text -> Python value (`None`, `1`, `[]`, `"valid"`, `False`, `1e-5`)."""
    if text is None:
        return _REQUIRED
    if text == "None":
        return None
    if text in ("True", "False"):
        return text == "True"
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip()
        return [parse_default(part.strip()) for part in inner.split(",")] if inner else []
    if text.startswith("torch."):
        return text
    try:
        return int(text)
    except ValueError:
        return float(text)


class _Required:
    def __repr__(self) -> str:
        return "<required>"


_REQUIRED = _Required()


# ------------------------------------------------------------------ type checks


def _is_int(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, numbers.Integral):
        return True
    return _is_tensor(value) and value.dim() == 0 and not value.dtype.is_floating_point and value.dtype.name != "bool"


def _is_tensor(value: Any) -> bool:
    from torch._extension.tensor import TensorBase

    return isinstance(value, TensorBase)


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, complex)


def check_value(value: Any, ty: ArgType, allow_numbers: bool) -> Any:
    """The value, normalized for conversion, or ArgumentMismatch."""
    if value is None:
        if ty.optional:
            return None
        raise ArgumentMismatch("None is not allowed")
    if ty.is_list:
        if ty.base == "Tensor":
            if isinstance(value, (list, tuple)) and all(_is_tensor(v) for v in value):
                return list(value)
            raise ArgumentMismatch(f"expected a tuple of Tensors, got {type(value).__name__}")
        if _is_int(value) and ty.size is not None:
            return [int(value)] * ty.size
        if isinstance(value, (list, tuple, Size)) and all(_is_int(v) for v in value):
            return [int(v) for v in value]
        raise ArgumentMismatch(f"expected a tuple of ints, got {type(value).__name__}")
    base = ty.base
    if base == "Tensor":
        if _is_tensor(value):
            return value
        if allow_numbers and _is_number(value):
            return _WrappedNumber(value)
        raise ArgumentMismatch(f"expected Tensor, got {type(value).__name__}")
    if base in ("int", "SymInt"):
        if _is_int(value):
            return int(value)
        raise ArgumentMismatch(f"expected int, got {type(value).__name__}")
    if base == "float":
        if _is_number(value) or (_is_tensor(value) and value.numel() == 1):
            return float(value)
        raise ArgumentMismatch(f"expected float, got {type(value).__name__}")
    if base == "bool":
        if isinstance(value, bool):
            return value
        raise ArgumentMismatch(f"expected bool, got {type(value).__name__}")
    if base == "str":
        if isinstance(value, str):
            return value
        raise ArgumentMismatch(f"expected str, got {type(value).__name__}")
    if base == "Scalar":
        if _is_number(value):
            return value
        if _is_tensor(value) and value.numel() == 1:
            return value.item()
        raise ArgumentMismatch(f"expected Number, got {type(value).__name__}")
    if base == "ScalarType":
        if isinstance(value, dtype):
            return value
        raise ArgumentMismatch(f"expected torch.dtype, got {type(value).__name__}")
    if base == "Layout":
        if isinstance(value, layout):
            return value
        raise ArgumentMismatch(f"expected torch.layout, got {type(value).__name__}")
    if base == "Device":
        if isinstance(value, device):
            return value
        if isinstance(value, str) or _is_int(value):
            try:
                return device(value)
            except (RuntimeError, TypeError) as error:
                raise ArgumentMismatch(str(error)) from None
        raise ArgumentMismatch(f"expected torch.device, got {type(value).__name__}")
    if base == "MemoryFormat":
        if isinstance(value, memory_format):
            return value
        raise ArgumentMismatch(f"expected torch.memory_format, got {type(value).__name__}")
    raise ArgumentMismatch(f"unsupported type {base}")


class _WrappedNumber:
    """A Python number given where a tensor is expected; materialized once the
    call's tensors are known (same device and dtype as the first of them)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


# ------------------------------------------------------------------ signatures


@dataclass(frozen=True)
class PythonParameter:
    name: str  # as Python callers spell it
    schema_names: Tuple[str, ...]  # schema arguments it fills (several for a grouped `out`)
    type: Optional[ArgType]  # None for `out` groups and `requires_grad`
    default: Any
    kwarg_only: bool

    def render(self) -> str:
        if self.name == "out" and self.type is None:
            text = "Tensor out" if len(self.schema_names) == 1 else "tuple of Tensors out"
        elif self.type is None:
            text = f"bool {self.name}"
        else:
            text = f"{self.type.python_name()}{'?' if self.type.optional else ''} {self.name}"
        if self.default is not _REQUIRED:
            text += f" = {self.default!r}"
        return text


_TENSOR_OPTIONS = {"dtype": "ScalarType", "layout": "Layout", "device": "Device", "pin_memory": "bool"}


class PythonSignature:
    """One overload as Python sees it (see the module docstring)."""

    def __init__(self, entry: Dict[str, Any], method: bool) -> None:
        self.entry = entry
        self.name = entry["name"]
        self.method = method
        self.allow_numbers = entry["name"].rstrip("_") in NUMBERS_AS_TENSORS
        self.schema_args: List[Dict[str, Any]] = entry["arguments"]
        self.schema_types = {a["name"]: parse_type(a["type"]) for a in self.schema_args}
        params: List[PythonParameter] = []
        self.self_name: Optional[str] = None
        outs = [a for a in self.schema_args if a["is_out"]]
        kwarg_names = {a["name"] for a in self.schema_args if a["kwarg_only"]}
        is_factory = all(
            name in kwarg_names and self.schema_types[name].base == base for name, base in _TENSOR_OPTIONS.items()
        )
        for a in self.schema_args:
            if a["is_out"]:
                continue
            ty = self.schema_types[a["name"]]
            if method and self.self_name is None and a["name"] == "self" and ty.base == "Tensor" and not ty.is_list:
                self.self_name = "self"
                continue
            python_name = "input" if a["name"] == "self" and not method else a["name"]
            default = parse_default(a["default"])
            if is_factory and a["name"] == "pin_memory" and default is None:
                default = False
            params.append(PythonParameter(python_name, (a["name"],), ty, default, a["kwarg_only"]))
        if outs:
            params.append(PythonParameter("out", tuple(a["name"] for a in outs), None, _REQUIRED, True))
        if is_factory:
            params.append(PythonParameter("requires_grad", (), None, False, True))
        self.params = params
        self.by_name = {p.name: p for p in params}
        positional = [p for p in params if not p.kwarg_only]
        self.positional = positional
        self.allow_varargs_intlist = (
            len(positional) == 1 and positional[0].type is not None and positional[0].type.is_list
            and positional[0].type.base in ("int", "SymInt")
        )
        self.is_factory = is_factory

    def render(self) -> str:
        parts = []
        star = False
        for p in self.params:
            if p.kwarg_only and not star:
                parts.append("*")
                star = True
            parts.append(p.render())
        return f"({', '.join(parts)})"

    def bind(self, args: Sequence[Any], kwargs: Dict[str, Any]) -> Dict[str, Any]:
        """Python parameter name -> checked value; ArgumentMismatch when this overload does not apply."""
        args = list(args)
        if self.allow_varargs_intlist and args and all(_is_int(a) for a in args):
            args = [args]
        if len(args) > len(self.positional):
            raise ArgumentMismatch(
                f"takes {len(self.positional)} positional arguments but {len(args)} were given"
            )
        given: Dict[str, Any] = {p.name: a for p, a in zip(self.positional, args)}
        for key, value in kwargs.items():
            if key not in self.by_name:
                raise ArgumentMismatch(f"got an unexpected keyword argument '{key}'")
            if key in given:
                raise ArgumentMismatch(f"got multiple values for argument '{key}'")
            given[key] = value
        checked: Dict[str, Any] = {}
        for p in self.params:
            if p.name in given:
                value = given[p.name]
            elif p.default is _REQUIRED:
                raise ArgumentMismatch(f"missing required argument '{p.name}'")
            else:
                value = list(p.default) if isinstance(p.default, list) else p.default
            try:
                checked[p.name] = self._check(p, value)
            except ArgumentMismatch as mismatch:
                raise ArgumentMismatch(f"argument '{p.name}': {mismatch}") from None
        return checked

    def _check(self, p: PythonParameter, value: Any) -> Any:
        if p.name == "requires_grad" and p.type is None:
            if not isinstance(value, bool):
                raise ArgumentMismatch("requires_grad must be a bool")
            return value
        if p.type is None:  # the out group
            outs = value if len(p.schema_names) > 1 else (value,)
            if not isinstance(outs, (tuple, list)) or len(outs) != len(p.schema_names) or not all(
                _is_tensor(o) for o in outs
            ):
                raise ArgumentMismatch(f"out must be {'a Tensor' if len(p.schema_names) == 1 else 'a tuple of Tensors'}")
            return tuple(outs)
        return check_value(value, p.type, self.allow_numbers)

    def schema_values(self, self_value: Any, checked: Dict[str, Any]) -> List[Any]:
        """The checked values in schema order (what the entry point receives)."""
        by_schema: Dict[str, Any] = {}
        if self.self_name is not None:
            by_schema["self"] = self_value
        for p in self.params:
            if p.type is None and p.name == "out":
                by_schema.update(zip(p.schema_names, checked["out"]))
            elif p.schema_names:
                by_schema[p.schema_names[0]] = checked[p.name]
        values = [by_schema[a["name"]] for a in self.schema_args]
        if any(isinstance(v, _WrappedNumber) for v in values):
            values = _materialize_numbers(values)
        return values


def _materialize_numbers(values: List[Any]) -> List[Any]:
    from torch._extension import factories
    from torch._extension.core import bool_, float32, int64

    reference = next((v for v in values if _is_tensor(v)), None)
    result = []
    for v in values:
        if isinstance(v, _WrappedNumber):
            if reference is not None:
                dt, dev = reference.dtype, reference.device
            else:
                dt = bool_ if isinstance(v.value, bool) else int64 if isinstance(v.value, numbers.Integral) else float32
                dev = None
            v = factories.full((), v.value, dtype=dt, device=dev)
        result.append(v)
    return result


# ------------------------------------------------------------------ conversion to THPArg


def to_thparg(slot: THPArg, value: Any, ty: ArgType, keepalive: List[Any]) -> None:
    if value is None:
        if ty.base == "Device" and backend_device_override() is not None:
            value = backend_device_override()
        else:
            slot.tag = THP_NONE
            return
    if ty.is_list:
        if ty.base == "Tensor":
            handles = (ctypes.c_void_p * max(1, len(value)))(*[t._cdata for t in value])
            keepalive.append(handles)
            slot.tag, slot.i, slot.p = THP_TENSOR_LIST, len(value), ctypes.cast(handles, ctypes.c_void_p)
        else:
            array = (ctypes.c_int64 * max(1, len(value)))(*value)
            keepalive.append(array)
            slot.tag, slot.i, slot.p = THP_INT_LIST, len(value), ctypes.cast(array, ctypes.c_void_p)
        return
    base = ty.base
    if base == "Tensor":
        slot.tag, slot.p = THP_TENSOR, value._cdata
    elif base in ("int", "SymInt"):
        slot.tag, slot.i = THP_INT, value
    elif base == "float":
        slot.tag, slot.f = THP_FLOAT, value
    elif base == "bool":
        slot.tag, slot.i = THP_BOOL, int(value)
    elif base == "str":
        data = value.encode("utf-8")
        buffer = ctypes.create_string_buffer(data, len(data) + 1)
        keepalive.append(buffer)
        slot.tag, slot.i, slot.p = THP_STRING, len(data), ctypes.cast(buffer, ctypes.c_void_p)
    elif base == "Scalar":
        if isinstance(value, bool):
            slot.tag, slot.i = THP_BOOL, int(value)
        elif isinstance(value, numbers.Integral):
            slot.tag, slot.i = THP_INT, int(value)
        else:
            slot.tag, slot.f = THP_FLOAT, float(value)
    elif base == "ScalarType":
        slot.tag, slot.i = THP_SCALAR_TYPE, dtype_code(value)
    elif base == "Layout":
        slot.tag, slot.i = THP_LAYOUT, value.code
    elif base == "Device":
        override = backend_device_override()
        if override is not None:
            value = override
        slot.tag, slot.i, slot.j = THP_DEVICE, value.type_code, -1 if value.index is None else value.index
    elif base == "MemoryFormat":
        slot.tag, slot.i = THP_MEMORY_FORMAT, value.code
    else:
        raise TypeError(f"cannot pass a {base} to the native library")


# ------------------------------------------------------------------ errors


def _describe(value: Any) -> str:
    if _is_tensor(value):
        return "Tensor"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_describe(v) for v in value)
        return f"{type(value).__name__} of [{inner}]" if len(value) <= 4 else f"{type(value).__name__}"
    return type(value).__name__


def format_invalid_arguments(name: str, signatures: Sequence[PythonSignature], args: Sequence[Any],
                             kwargs: Dict[str, Any], reasons: Sequence[str]) -> str:
    got = [_describe(a) for a in args] + [f"{k}={_describe(v)}" for k, v in kwargs.items()]
    lines = [f"{name}() received an invalid combination of arguments - got ({', '.join(got)}), but expected one of:"]
    for signature, reason in zip(signatures, reasons):
        lines.append(f" * {signature.render()}")
        lines.append(f"      didn't match because it {reason}" if reason.startswith(("takes", "got", "missing"))
                     else f"      didn't match because of {reason}")
    return "\n".join(lines)
