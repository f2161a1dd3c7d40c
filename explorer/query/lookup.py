"""Turning a name a user types into the definitions it means.

A reader writes names the way the code uses them, not where they are defined:
`torch.nn.Conv2d` (a re-export of `torch.nn.modules.conv.Conv2d`), `nn.Conv2d` and
`F.conv2d` (import aliases the tree itself uses), `conv2d.padding` (an operator overload),
`cudnn_convolution` (a bare name). Resolution tries, in order:
1. the qualified name as stored (`at::native::cudnn_convolution`, `aten::conv2d.padding`);
2. an operator overload without its namespace (`conv2d.padding` -> `aten::conv2d.padding`);
3. a Python path followed through modules, re-exports (`from .conv import Conv2d`, star
   imports) and the import aliases the tree uses for its first part (`F`, `nn`);
4. a Python binding of an operator (`torch.conv2d` -> `aten::conv2d`, see bindings.py);
5. a bare name, matched exactly (all definitions of it, when there are several).
Anything else is an UnknownSymbolError carrying the closest matches from search.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from explorer.errors import UnknownSymbolError, UsageError
from explorer.index.reader import IndexReader
from explorer.model import Symbol, SymbolKind
from explorer.query.bindings import binding_operators
from explorer.query.extensions import ExtensionModules, registered_operators
from explorer.query.patterns import checked_query
from explorer.query.search import search

_MAX_HOPS = 12  # re-export chains are short; this only stops cycles
_PATH_SEPARATOR = re.compile(r"::|\.")


@dataclass(frozen=True, slots=True)
class Resolution:
    query: str
    symbols: list[Symbol]
    via: list[str] = field(default_factory=list)  # the hops taken, for display


def resolve(store: IndexReader, query: str) -> Resolution:
    """What `query` names, or UnknownSymbolError with the closest names."""
    found = find(store, query)
    if found is None:
        raise UnknownSymbolError(query.strip(), suggestions(store, query.strip()))
    return found


def find(store: IndexReader, query: str) -> Resolution | None:
    """What `query` names, or None; no suggestions are worked out (an editor asks of every
    word under the cursor, `self` and `x` included)."""
    query = checked_query(query.strip(), "symbol name")
    if not query:
        raise UsageError("give a symbol name")
    found = store.symbols_with_qname(query)
    if found:
        return Resolution(query, _ordered(found))
    if "." in query and "::" not in query:  # an overload: conv2d.padding
        found = store.symbols_with_qname(f"aten::{query}")
        if found:
            return Resolution(query, found, [f"{query} -> aten::{query}"])
    if "." in query:
        path = PythonPaths(store)
        target = path.resolve(query)
        if target is not None:
            return Resolution(query, _ordered(store.symbols_with_qname(target)), path.hops)
        operators = binding_operators(store, path.expand_alias(query))
        if operators:
            return Resolution(query, operators, [f"{query} -> Python binding of {', '.join(s.qname for s in operators)}"])
        bound = ExtensionModules(store).python_bindings(query) or registered_operators(store, query)
        if bound:  # `mini_ops._C.scale` (pybind11), `torch.ops.pyg.fps`
            return Resolution(query, bound)
    found = named_exactly(store, query)
    return Resolution(query, _ordered(found)) if found else None


def suggestions(store: IndexReader, query: str, count: int = 5) -> list[str]:
    """Qualified names to offer for a name that resolved to nothing: close spellings of its
    last part first (a typo: `conv2dd` -> conv2d), then what search ranks best."""
    import difflib  # only when a name is not found

    name = _PATH_SEPARATOR.split(query)[-1]
    pool = store.names_with_prefix(name[:2].lower(), 20_000) if len(name) >= 2 else []
    close = difflib.get_close_matches(name, pool, n=count, cutoff=0.75)
    offered = []
    for spelling in close:
        qnames = sorted({s.qname for s in named_exactly(store, spelling)}, key=lambda qname: (len(qname), qname))
        offered += qnames[:2]
    offered += [hit.symbol.qname for hit in search(store, query, limit=count)]
    return list(dict.fromkeys(offered))[:count]


def named_exactly(store: IndexReader, name: str) -> list[Symbol]:
    """Every definition whose own name is `name`, case included."""
    return [symbol for symbol in store.symbols_named(name.lower()) if symbol.name == name]


def _ordered(symbols: list[Symbol]) -> list[Symbol]:
    return sorted(symbols, key=lambda s: (s.path is None, s.path or "", s.line or 0, s.qname))


class PythonPaths:
    """Follows a dotted Python name through modules, classes and import bindings."""

    def __init__(self, store: IndexReader) -> None:
        self.store = store
        self.hops: list[str] = []

    def expand_alias(self, dotted: str) -> str:
        """`F.conv2d` -> `torch.nn.functional.conv2d` when `F` is no module of the tree but
        the tree imports something as `F` (the most common target wins)."""
        head, _, rest = dotted.partition(".")
        if self._is_defined(head):
            return dotted
        targets = self.store.import_alias_targets(head)
        if not targets:
            return dotted
        expanded = f"{targets[0][0]}.{rest}" if rest else targets[0][0]
        self.hops.append(f"{head} -> {targets[0][0]} (import alias used in the tree)")
        return expanded

    def resolve(self, dotted: str) -> str | None:
        dotted = self.expand_alias(dotted)
        return self._resolve(dotted, _MAX_HOPS)

    def _is_defined(self, qname: str) -> bool:
        return bool(self.store.symbols_with_qname(qname))

    def _resolve(self, dotted: str, budget: int) -> str | None:
        if budget <= 0:
            return None
        symbols = self.store.symbols_with_qname(dotted)
        if symbols:
            return dotted
        parent, _, name = dotted.rpartition(".")
        if not parent:
            return None
        owner = self._resolve(parent, budget - 1)
        if owner is None:
            return None
        return self._member(owner, name, budget - 1)

    def _member(self, owner: str, name: str, budget: int) -> str | None:
        if budget <= 0:
            return None
        candidate = f"{owner}.{name}"
        if self.store.symbols_with_qname(candidate):
            return candidate
        owner_symbols = self.store.symbols_with_qname(owner)
        if not any(symbol.kind is SymbolKind.MODULE for symbol in owner_symbols):
            return None
        star_sources = []
        for binding in self.store.import_bindings(owner):
            if binding.name == name:
                self.hops.append(f"{owner}.{name} -> {binding.target} (import)")
                return self._resolve(binding.target, budget - 1)
            if binding.name == "*":
                star_sources.append(binding.target)
        for source in star_sources:
            found = self._member(source, name, budget - 1)
            if found is not None:
                self.hops.append(f"{owner}.{name} -> {found} (star import from {source})")
                return found
        return None
