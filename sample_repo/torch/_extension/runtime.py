"""The loaded native library and the plumbing every ctypes call shares."""

from __future__ import annotations

import ctypes
from typing import Any, Optional

from torch._extension.loader import NativeLibrary

_native: Optional[NativeLibrary] = None

ERROR_BUFFER_SIZE = 8192

# THPErrorCode (torch/csrc/utils/python_arg_parser.h) -> Python exception.
_EXCEPTIONS = {1: RuntimeError, 2: RuntimeError, 3: TypeError, 4: RuntimeError}


def set_native(native: NativeLibrary) -> None:
    global _native
    _native = native


def native() -> NativeLibrary:
    if _native is None:
        raise RuntimeError("the native library of torch._C is not loaded (import torch first)")
    return _native


def lib() -> ctypes.CDLL:
    return native().lib


def error_buffer() -> ctypes.Array:
    return ctypes.create_string_buffer(ERROR_BUFFER_SIZE)


def raise_error(code: int, buffer: ctypes.Array) -> None:
    message = buffer.value.decode("utf-8", errors="replace") or f"native call failed with code {code}"
    raise _EXCEPTIONS.get(code, RuntimeError)(message)


def call(name: str, *args: Any) -> None:
    """Call a fallible utility (its last two parameters are the error buffer and size)."""
    buffer = error_buffer()
    code = getattr(lib(), name)(*args, buffer, ERROR_BUFFER_SIZE)
    if code != 0:
        raise_error(code, buffer)


def call_returning_handle(name: str, *args: Any) -> int:
    """Call a fallible utility whose result is a new tensor handle."""
    out = ctypes.c_void_p()
    call(name, *args, ctypes.byref(out))
    if not out.value:
        raise RuntimeError(f"{name} returned no tensor")
    return out.value


def int64_array(values) -> ctypes.Array:
    values = list(values)
    return (ctypes.c_int64 * max(1, len(values)))(*values)
