"""What a name at a place in a file is: the definitions an editor's "go to definition",
"references" and "call hierarchy" start from.

In order, the first that answers:
1. a definition of that name written on that line (the cursor on `def forward`, on a C++
   function's name, on a `- func:` entry of native_functions.yaml);
2. a call written on that line inside a definition: the call graph's edges from that
   definition whose call site is that line and whose target has that name, so that
   `F.conv2d(...)` leads to what the value flow says it runs, a dispatch line of the YAML to
   its kernel, a `m.def("f", &fn)` line to `fn`; else, the cursor on the name a call is
   made through (`fn(x)` after `fn = F.relu`, `self.conv1(x)`), what that call runs: the
   function the name holds, or for an object called, the object's class (`self.conv1(x)`
   runs Module.__call__ on a Conv2d: Conv2d);
3. the name as written (`torch.nn.Conv2d`, `at::native::conv2d`), looked up as `show` does.
Lines are 1-based and columns are indexes into the line's characters (the language server
converts its UTF-16 positions to these, in one place).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from explorer.errors import ExplorerError
from explorer.index import IndexReader
from explorer.model import (
    CallEdge,
    CallSite,
    EdgeKind,
    Key,
    Language,
    Layer,
    Location,
    Symbol,
    SymbolKind,
    byte_column,
    character_index,
)
from explorer.names import find
from explorer.parsers import language_of
from explorer.resolve import CallGraph, layer_of

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# a name written with its qualifiers: torch.nn.Conv2d, at::native::conv2d, torch.ops.ns.op
_QUALIFIED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)*")
# kinds that enclose other code, innermost first by their extent
_SCOPES = frozenset(
    {
        SymbolKind.MODULE,
        SymbolKind.CLASS,
        SymbolKind.FUNCTION,
        SymbolKind.METHOD,
        SymbolKind.KERNEL,
        SymbolKind.STRUCTURED_KERNEL,
        SymbolKind.META_FUNCTION,
        SymbolKind.OPERATOR,
        SymbolKind.STRUCT,
    }
)


@dataclass(frozen=True, slots=True)
class Word:
    name: str  # the identifier under the cursor
    written: str  # with the qualifiers around it, up to the identifier (`torch.nn.Conv2d` on Conv2d)


def word_at(text: str, column: int) -> Word | None:
    """The identifier at (or just before) `column` of a line, and how it is qualified."""
    for match in _QUALIFIED.finditer(text):
        if match.start() <= column <= match.end():
            for part in _WORD.finditer(text, match.start(), match.end()):
                if part.start() <= column <= part.end():
                    return Word(part.group(), text[match.start() : part.end()])
    return None


def enclosing(reader: IndexReader, path: str, line: int) -> Symbol | None:
    """The innermost definition of a file whose lines hold `line`."""
    holding = [
        s
        for s in reader.symbols_in_file(path)
        if s.kind in _SCOPES and s.line is not None and s.line <= line <= (s.end_line or s.line)
    ]
    return min(holding, key=lambda s: ((s.end_line or s.line or 0) - (s.line or 0), -(s.line or 0)), default=None)


def calls_on_line(graph: CallGraph, reader: IndexReader, path: str, line: int) -> list[CallEdge]:
    """The call graph's edges made by the calls written on one line (each call, though the
    definition calls the same function on an earlier line)."""
    scope = enclosing(reader, path, line)
    if scope is None:
        return []
    return [edge for edge in graph.edges_by_site(graph.node(scope)) if edge.site == Location(path, line)]


def symbols_at(graph: CallGraph, reader: IndexReader, path: str, line: int, text: str, column: int) -> list[Symbol]:
    """The definitions the name at (line, column) of `path` stands for; [] for none."""
    word = word_at(text, column)
    if word is None:
        return []
    defined = [s for s in reader.symbols_in_file(path) if s.line == line and s.name == word.name]
    if defined:
        return defined
    on_line = calls_on_line(graph, reader, path, line)
    called = _unique(
        edge.target.symbol
        for edge in on_line
        if edge.target.symbol.name == word.name or _named_last(edge.target.symbol.qname, word.name)
    )
    if called:
        return called
    run = _unique(
        symbol
        for edge in on_line
        if edge.site is not None and _calls_through(text, edge.site.column, column, word)
        for symbol in _what_runs(graph, edge)
    )
    if run:
        return run
    language = language_of(path)
    named = _NAMED_FROM.get(language) if language is not None else None
    for name in dict.fromkeys((word.written, word.name)):
        try:
            found = find(reader, name)
        except ExplorerError:  # a name the lookup refuses outright
            continue
        kept = [s for s in found.symbols if named is None or layer_of(s) in named] if found is not None else []
        if kept:
            return kept
    return []


# What a name written in a file of each language can name, looked up by the name alone: Python
# reaches C++ only through a binding (`self.dropout` is no C++ data member named dropout), and
# C++ never names a Python definition. YAML names both sides.
_NAMED_FROM = {
    Language.PYTHON: frozenset({Layer.PYTHON, Layer.BINDING, Layer.YAML}),
    Language.CPP: frozenset({Layer.CPP, Layer.CUDA, Layer.VENDOR, Layer.YAML}),
    Language.CUDA: frozenset({Layer.CPP, Layer.CUDA, Layer.VENDOR, Layer.YAML}),
}


def symbols_called_at(reader: IndexReader, sites: list[CallSite], line: int, text: str, column: int) -> list[Symbol]:
    """What a call written at (line, column) names, from call sites parsed out of text the
    index has not seen (an editor's unsaved buffer): the callee as the file's own imports
    expand it (`G.relu` after `from torch.nn import functional as G`); [] for none."""
    word = word_at(text, column)
    if word is None:
        return []
    at_byte = byte_column(text, column)  # a site's column counts the line's bytes
    for site in sites:
        written = site.callee.replace("->", ".").replace("::", ".")
        if site.line != line or not (site.column <= at_byte <= site.column + len(site.callee.encode("utf-8"))):
            continue
        if written.rsplit(".", 1)[-1] != word.name:
            continue
        try:
            found = find(reader, site.qualified)
        except ExplorerError:
            continue
        if found is not None and found.symbols:
            return found.symbols
    return []


def _calls_through(text: str, call_column: int | None, column: int, word: Word) -> bool:
    """Whether the call starting at byte `call_column` of the line is made through the word at
    `column`: the callee written from the call's start up to the word is a dotted name, and
    the call's parenthesis follows it (`self.conv1(x)`, the cursor on conv1)."""
    if call_column is None:
        return False
    start = character_index(text, call_column)
    end = text.find(word.name, max(start, column - len(word.name)))
    return (
        start <= column
        and end >= 0
        and re.fullmatch(r"[A-Za-z0-9_.]*", text[start:end]) is not None
        and text[end + len(word.name) :].lstrip().startswith("(")
    )


def _what_runs(graph: CallGraph, edge: CallEdge) -> list[Symbol]:
    """What a call made through a name runs, for an editor: an object's class where the call
    runs the class's `__call__` (an nn.Module's is `_wrapped_call_impl`), else the definition
    the edge leads to (a function the name holds, a bound method)."""
    cls = edge.target.self_class
    if cls is not None and _dunder_call(graph, cls) == edge.target.symbol.qname:
        classes = [s for s in graph.store.symbols_with_qname(cls) if s.kind is SymbolKind.CLASS]
        if classes:
            return classes
    return [edge.target.symbol]


def _dunder_call(graph: CallGraph, cls: str) -> str | None:
    """What `__call__` is on a class, by its method resolution order: the method, or what a
    class attribute names (`__call__ = _wrapped_call_impl`)."""
    for owner in graph.python.mro(cls):
        for symbol in graph.store.symbols_with_qname(f"{owner}.__call__"):
            return symbol.target if symbol.kind in (SymbolKind.ALIAS, SymbolKind.VARIABLE) else symbol.qname
    return None


def _named_last(qname: str, name: str) -> bool:
    """`aten::relu` and `torch.relu` end in the name `relu`; `torch.nn.functional.leaky_relu` does not."""
    return qname == name or qname.endswith((f".{name}", f"::{name}"))


def _unique(symbols: Iterable[Symbol]) -> list[Symbol]:
    seen: dict[Key, Symbol] = {}
    for symbol in symbols:
        seen.setdefault((symbol.qname, symbol.path, symbol.line), symbol)
    return list(seen.values())


# Edges that cross from a name to what implements it rather than call something else.
_TOWARD_IMPLEMENTATION = frozenset(
    {
        EdgeKind.ALIAS,
        EdgeKind.BINDING,
        EdgeKind.PYBIND,
        EdgeKind.OP_REGISTRATION,
        EdgeKind.METHOD_TABLE,
        EdgeKind.DISPATCH,
        EdgeKind.STRUCTURED,
        EdgeKind.STUB,
        EdgeKind.AUTOGRAD,
    }
)
_IMPLEMENTATION_STEPS = 8


def implementations(graph: CallGraph, symbols: list[Symbol]) -> list[Symbol]:
    """The C++/CUDA definitions that implement `symbols`, across the language boundary: a
    Python binding to its operator's kernels, an operator to its kernels (every dispatch key),
    a dispatch stub to its registered kernels, a pybind11 or registered name to its function.
    A C++ definition implements itself."""
    found: list[Symbol] = []
    frontier = [graph.node(s) for s in symbols]
    seen: set[Key] = set()
    for _ in range(_IMPLEMENTATION_STEPS):
        following = []
        for node in frontier:
            if node.layer in (Layer.CPP, Layer.CUDA) and node.symbol.kind is not SymbolKind.DISPATCH_STUB:
                found.append(node.symbol)
                continue
            for edge in graph.edges(node):
                if edge.kind in _TOWARD_IMPLEMENTATION and edge.target.key not in seen:
                    seen.add(edge.target.key)
                    following.append(edge.target)
        frontier = following
        if not frontier:
            break
    return _unique(s for s in found if s.path is not None)
