"""Type aliases shared by the stubs and the Python frontend."""

from typing import List, Sequence, Tuple, Union

from torch._C import Size, device, dtype

_bool = bool
_int = int
_float = float
_str = str

_dtype = dtype
_device = device
_size = Union[Size, List[int], Tuple[int, ...]]

# Anything that a factory function accepts where a device is expected.
Device = Union[_device, str, int, None]

Number = Union[int, float, bool]

IntList = Sequence[int]

__all__ = ["Device", "Number", "IntList"]
