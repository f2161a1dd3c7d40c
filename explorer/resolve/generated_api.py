"""The C++ names torchgen generates for the operators of native_functions.yaml.

torchgen writes these headers at build time, so no tree holds their definitions; a call of one
is a call of the operator. From an operator `add.Tensor` (base `add`, overload `Tensor`) it
names (torchgen/api/cpp.py, torchgen/gen.py):
- `at::add`, `at::add_symint` (SymInt arguments): the functional overloads; `at::add_out`,
  `at::add_outf` (arguments in schema order), `at::add_symint_out`...: the out= overloads;
- `at::_ops::add_Tensor::call` and `::redispatch`: exactly one overload;
- the per-backend fast paths `at::cpu::add`, `at::cuda::add`, `at::meta::add`,
  `at::compositeexplicitautograd::add`, ... (the kernel of that key, without the dispatcher;
  shown here as the operator, whose dispatch table names that kernel);
- Tensor methods (`t.add(...)`), looked up by the caller (native_edges.py).
A name written without `at::` (`_foo_symint(...)` inside `at::native`) is found by C++ name
lookup: each enclosing namespace, innermost first (`at::native::_foo_symint`, then
`at::_foo_symint`), the first generated name that names an operator.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# the dispatch keys torchgen writes a fast-path namespace for (lower-cased key names)
FAST_PATHS = frozenset(
    (
        "cpu",
        "cuda",
        "meta",
        "mps",
        "xpu",
        "quantizedcpu",
        "sparsecpu",
        "sparsecuda",
        "compositeexplicitautograd",
        "compositeexplicitautogradnonfunctional",
        "compositeimplicitautograd",
        "compositeimplicitautogradnestedtensor",
    )
)
_OPS = re.compile(r"^(?:at|torch)::_ops::(\w+)::(?:call|redispatch)$")
_FUNCTION = re.compile(r"^(?:at|torch)::(?:(\w+)::)?(\w+)$")
_OUT_SUFFIXES = ("_symint_outf", "_symint_out", "_outf", "_out")


@dataclass(frozen=True, slots=True)
class GeneratedName:
    """What a generated name says of the operator it calls."""

    base: str  # the operator's base name: `add` for at::add_out
    overload: str | None  # at::_ops names one overload (`add_Tensor` -> base add, overload Tensor)
    out: bool  # the out= overloads (at::add_out) rather than the functional ones
    fast_path: str | None  # at::cpu::add -> "cpu"
    symint: bool  # at::conv2d_symint


def generated(qname: str) -> list[GeneratedName]:
    """Every reading of `qname` as a generated name, most likely first (`at::add_out` is the
    out= form of `add`, or an operator named `add_out`)."""
    ops = _OPS.match(qname)
    if ops is not None:
        # `add_Tensor`: the base and the overload are split at the last underscore that leaves an
        # operator; which one is for the index to say, so each split is a reading
        written = ops.group(1)
        readings = [
            GeneratedName(written[:at], written[at + 1 :], False, None, False)
            for at in range(len(written) - 1, 0, -1)
            if written[at] == "_"
        ]
        return [*readings, GeneratedName(written, "", False, None, False)]
    function = _FUNCTION.match(qname)
    if function is None:
        return []
    namespace, name = function.group(1), function.group(2)
    if namespace is not None and namespace not in FAST_PATHS:
        return []
    readings = []
    for suffix in _OUT_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            readings.append(GeneratedName(name.removesuffix(suffix), None, True, namespace, "symint" in suffix))
    if name.endswith("_symint"):
        readings.append(GeneratedName(name.removesuffix("_symint"), None, False, namespace, True))
    readings.append(GeneratedName(name, None, False, namespace, False))
    return readings
