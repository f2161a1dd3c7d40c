"""Small helpers shared by the language parsers."""

from __future__ import annotations

import bisect
import re

from explorer.model import Symbol

_WHITESPACE = re.compile(r"\s+")


def source_order(symbol: Symbol) -> tuple[int, str, str]:
    """Symbols of a file in the order they appear (then by kind and name: deterministic)."""
    return (symbol.line or 0, symbol.kind.value, symbol.qname)


def module_name(path: str) -> str:
    """`torch/nn/modules/conv.py` -> `torch.nn.modules.conv`; a package's `__init__` is the package."""
    stem = path.rsplit(".", 1)[0]
    parts = stem.split("/")
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def expand(dotted: str, bindings: dict[str, str]) -> str:
    """Rewrite the first segment of a dotted name through the file's bindings."""
    head, _, rest = dotted.partition(".")
    bound = bindings.get(head)
    if bound is None:
        return dotted
    return f"{bound}.{rest}" if rest else bound


def collapse(text: str) -> str:
    """One line, single spaces: how signatures and callee expressions are stored."""
    if "  " not in text and "\n" not in text and "\t" not in text and "\r" not in text:
        return text.strip()  # the usual case, without the regular expression
    return _WHITESPACE.sub(" ", text).strip()


class ScopeMap:
    """Maps a byte offset to the innermost definition that contains it.

    Definitions nest but never overlap partially. Sorted by start, each interval keeps the
    index of its container, so a lookup bisects to the latest interval starting at or before
    the offset and climbs containers until one holds the offset: O(depth), not O(n).
    A parser adds definitions and asks about offsets in turn, mostly in the file's order: an
    interval that sorts after all the others extends the sorted state as it comes (the stack
    of intervals still open is kept for that); only one that sorts earlier has the whole
    sorted again, at the next lookup. (Sorting again at every lookup made a file of 40,000
    kernels on one line take minutes.)
    """

    def __init__(self, outermost: str) -> None:
        self.outermost = outermost
        self._intervals: list[tuple[int, int, str]] = []
        self._starts: list[int] = []
        self._containers: list[int] = []
        self._open: list[int] = []  # intervals containing the last one's start, outermost first
        self._sorted = True

    def add(self, start: int, end: int, qname: str) -> None:
        if self._sorted and (not self._intervals or (start, -end) >= _order(self._intervals[-1])):
            self._extend(start, end, qname)
        else:
            self._intervals.append((start, end, qname))
            self._sorted = False

    def _extend(self, start: int, end: int, qname: str) -> None:
        while self._open and self._intervals[self._open[-1]][1] <= start:
            self._open.pop()
        self._containers.append(self._open[-1] if self._open else -1)
        self._starts.append(start)
        self._open.append(len(self._intervals))
        self._intervals.append((start, end, qname))

    def _prepare(self) -> None:
        intervals = sorted(self._intervals, key=_order)
        self._intervals, self._starts, self._containers, self._open = [], [], [], []
        for interval in intervals:
            self._extend(*interval)
        self._sorted = True

    def innermost(self, offset: int) -> str:
        if not self._sorted:
            self._prepare()
        index = bisect.bisect_right(self._starts, offset) - 1
        while index >= 0:
            start, end, qname = self._intervals[index]
            if start <= offset < end:
                return qname
            index = self._containers[index]
        return self.outermost


def _order(interval: tuple[int, int, str]) -> tuple[int, int]:
    """By start, the longer first: a container before what it contains."""
    return interval[0], -interval[1]


_TEMPLATE_ARGS = re.compile(r"<[^<>]*>")
_SPACED_SCOPE = re.compile(r"\s*::\s*")


def strip_template_args(name: str) -> str:
    """`at::cuda::blas::gemm<scalar_t>` -> `at::cuda::blas::gemm` (nested arguments too)."""
    if "<" not in name or name.startswith("operator"):
        return name
    previous = None
    while previous != name:
        previous, name = name, _TEMPLATE_ARGS.sub("", name)
    # `zabs <float> (...)`, `Policy< N>:: prepack`: the spaces the arguments stood between
    return _SPACED_SCOPE.sub("::", name).strip() if " " in name else name


def parenthesised_items(text: str, templates: bool = False) -> list[str] | None:
    """The top-level comma-separated items inside the first `(...)` of `text` (a signature's
    parameters, a schema's arguments): `f(a, g(b, c), d) -> x` -> ["a", " g(b, c)", " d"];
    None where there is no `(`. Brackets nest; an unclosed list runs to the end. `templates`:
    a comma inside `<...>` (`std::map<K, V> m`, a C++ parameter) does not split either."""
    start = text.find("(")
    if start < 0:
        return None
    depth = 0
    for offset in range(start + 1, len(text)):
        char = text[offset]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                return _items(text[start + 1 : offset], templates)
            depth -= 1
    return _items(text[start + 1 :], templates)


def _items(text: str, templates: bool) -> list[str]:
    opening, closing = ("<([{", ">)]}") if templates else ("([{", ")]}")
    return [item for _, item in split_top_level(text, opening, closing)]


def split_top_level(text: str, opening: str = "({[", closing: str = ")}]") -> list[tuple[int, str]]:
    """`a, f(b, c), d` -> its comma-separated items outside brackets, each with its offset."""
    items, depth, begun = [], 0, 0
    for offset, character in enumerate(text):
        if character in opening:
            depth += 1
        elif character in closing:
            depth -= 1
        elif character == "," and depth == 0:
            items.append((begun, text[begun:offset]))
            begun = offset + 1
    if text[begun:].strip():
        items.append((begun, text[begun:]))
    return items


def enclosing_candidates(written: str, scope: str) -> list[str]:
    """The qualified names a C++ name written `written` in namespace `scope` may mean, as
    unqualified lookup tries them: each enclosing namespace, innermost first, then the global
    one; a name written from the global namespace (`::f`) means only that."""
    if written.startswith("::"):
        return [written[2:]]
    parts = scope.split("::") if scope else []
    return [*("::".join([*parts[:depth], written]) for depth in range(len(parts), 0, -1)), written]
