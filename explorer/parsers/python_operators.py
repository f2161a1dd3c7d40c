"""Python's data model: the method each operator runs. Read by the Python flow facts (`a + b`
runs `a.__add__(b)`, `x -= 1` runs `x.__isub__(1)`) and by pybind11's operator bindings
(`.def(py::self + py::self)` binds `__add__`), which name the same methods."""

from __future__ import annotations

# operator -> the method it runs on its left operand; the reflected one, run on its right
# operand where the left has none (`1 - x` is `x.__rsub__(1)`); the in-place one of its
# augmented assignment (`x -= 1` is `x.__isub__(1)`)
BINARY: dict[str, tuple[str, str, str]] = {
    operator: (f"__{name}__", f"__r{name}__", f"__i{name}__")
    for operator, name in (
        ("+", "add"),
        ("-", "sub"),
        ("*", "mul"),
        ("@", "matmul"),
        ("/", "truediv"),
        ("//", "floordiv"),
        ("%", "mod"),
        ("**", "pow"),
        ("<<", "lshift"),
        (">>", "rshift"),
        ("&", "and"),
        ("|", "or"),
        ("^", "xor"),
    )
}

# a comparison's reflection is the mirrored comparison (`a < b` tries `b.__gt__(a)`)
COMPARISON: dict[str, tuple[str, str]] = {
    "<": ("__lt__", "__gt__"),
    "<=": ("__le__", "__ge__"),
    ">": ("__gt__", "__lt__"),
    ">=": ("__ge__", "__le__"),
    "==": ("__eq__", "__eq__"),
    "!=": ("__ne__", "__ne__"),
}

UNARY: dict[str, str] = {"-": "__neg__", "+": "__pos__", "~": "__invert__"}
