"""Turning a name a user types into the definitions it means.

A reader writes names the way the code uses them, not where they are defined:
`torch.nn.Conv2d` (a re-export of `torch.nn.modules.conv.Conv2d`), `nn.Conv2d` and
`F.conv2d` (import aliases the tree itself uses), `conv2d.padding` (an operator overload),
`cudnn_convolution` (a bare name). Looking up tries, in order:
1. the qualified name as stored (`at::native::cudnn_convolution`, `aten::conv2d.padding`);
2. an operator overload without its namespace (`conv2d.padding` -> `aten::conv2d.padding`);
3. a Python path followed through modules, re-exports (`from .conv import Conv2d`, star
   imports) and the import aliases the tree uses for its first part (`F`, `nn`);
4. a Python binding of an operator (`torch.conv2d` -> `aten::conv2d`, see bindings.py);
5. a bare name, matched exactly (all definitions of it, when there are several).
Anything else is an UnknownSymbolError carrying the closest matches from search.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from explorer.errors import UnknownSymbolError, UsageError
from explorer.index import IndexReader
from explorer.model import Symbol, SymbolKind
from explorer.names.bindings import binding_operators, bound_in_another_module, inherited_bindings, is_out_overload
from explorer.names.extensions import extension_modules, registered_operators
from explorer.names.patterns import checked_query
from explorer.names.search import search_symbols
from explorer.names.test_code import is_test_code
from explorer.parsers.common import parenthesised_items

_MAX_HOPS = 12  # re-export chains are short; this only stops cycles
_PATH_SEPARATOR = re.compile(r"::|\.")


@dataclass(frozen=True, slots=True)
class NameMatch:
    """What a query names: its definitions, and the hops taken to them."""

    query: str
    symbols: list[Symbol]
    via: list[str] = field(default_factory=list)  # the hops taken, for display
    # Step 4: the Python name (import aliases expanded) whose generated torch._C binding the
    # operators are (`torch.add`): a trace starts from that binding, as a call of it does.
    binding: str | None = None


def look_up(reader: IndexReader, query: str) -> NameMatch:
    """What `query` names, or UnknownSymbolError with the closest names."""
    found = find(reader, query)
    if found is None:
        raise UnknownSymbolError(query.strip(), suggestions(reader, query.strip()))
    return found


def find(reader: IndexReader, query: str) -> NameMatch | None:
    """What `query` names, or None; no suggestions are worked out (an editor asks of every
    word under the cursor, `self` and `x` included)."""
    query = checked_query(query.strip(), "symbol name")
    if not query:
        raise UsageError("give a symbol name")
    found = reader.symbols_with_qname(query)
    if "." in query and all((s.path or "").endswith((".pyi", ".pyi.in")) for s in found):
        owner, _, name = query.rpartition(".")
        inherited = inherited_bindings(reader, owner, name)  # the stub declares it, C++ binds it on a base
        if inherited:
            return NameMatch(
                query,
                [*_ordered(inherited), *_ordered(found)],
                [f"{query} -> {inherited[0].qname} (bound on a base class)"],
            )
        elsewhere = (
            bound_in_another_module(reader, query, any(s.kind is SymbolKind.METHOD for s in found)) if found else None
        )
        if elsewhere is not None:  # the stub names another module than the one C++ binds it in
            return NameMatch(
                query, [elsewhere, *_ordered(found)], [f"{query} -> {elsewhere.qname} (bound in another module)"]
            )
    if found:
        return NameMatch(query, _ordered(found))
    if "." in query and "::" not in query:  # an overload: conv2d.padding
        found = reader.symbols_with_qname(f"aten::{query}")
        if found:
            return NameMatch(query, found, [f"{query} -> aten::{query}"])
    if "." in query:
        path = PythonPaths(reader)
        target = path.resolve(query)
        if target is not None:
            return NameMatch(query, _ordered(reader.symbols_with_qname(target)), path.hops)
        expanded = path.expand_alias(query)
        operators = binding_operators(reader, expanded)
        if operators:
            named = ", ".join(s.qname for s in operators)
            return NameMatch(query, operators, [f"{query} -> Python binding of {named}"], binding=expanded)
        bound = extension_modules(reader).python_bindings(query) or registered_operators(reader, query)
        if bound:  # `mini_ops._C.scale` (pybind11), `torch.ops.pyg.fps`
            return NameMatch(query, bound)
        # a name only a stub the index does not hold declares (torch/_C/__init__.pyi.in's
        # `Def.name`), bound in another module of the extension: a method's class and name, else
        # a function's or class's name
        elsewhere = bound_in_another_module(reader, query, True) or bound_in_another_module(reader, query, False)
        if elsewhere is not None:
            return NameMatch(query, [elsewhere], [f"{query} -> {elsewhere.qname} (bound in another module)"])
    found = named_exactly(reader, query)
    return NameMatch(query, _ordered(found)) if found else None


def suggestions(reader: IndexReader, query: str, count: int = 5) -> list[str]:
    """Qualified names to offer for a name that resolved to nothing: close spellings of its
    last part first (a typo: `conv2dd` -> conv2d), then what search ranks best; the project's
    own definitions before other trees' (its paths are relative), and production code before
    tests, each group in that order."""
    import difflib  # only when a name is not found

    name = _PATH_SEPARATOR.split(query)[-1]
    # spellings sharing the first letter (`nrom` -> norm: a slip of the second letter too)
    pool = reader.names_with_prefix(name[:1].lower(), 20_000) if len(name) >= 2 else []
    close = difflib.get_close_matches(name, pool, n=count, cutoff=0.75)
    qualifier = query[: len(query) - len(name)]  # `app.model.` of app.model.nrom: its own module first
    offered: list[Symbol] = []
    for spelling in close:
        named = {
            symbol.qname: symbol for symbol in sorted(named_exactly(reader, spelling), key=_owned_first, reverse=True)
        }
        offered += sorted(
            named.values(), key=lambda s: (not s.qname.startswith(qualifier), *_owned_first(s), len(s.qname), s.qname)
        )[:2]
    offered += [hit.symbol for hit in search_symbols(reader, query, limit=count)]
    ranked = sorted(
        offered, key=lambda symbol: (not symbol.qname.startswith(qualifier), *_owned_first(symbol))
    )  # stable
    return list(dict.fromkeys(symbol.qname for symbol in ranked))[:count]


def _owned_first(symbol: Symbol) -> tuple[bool, bool]:
    return bool(symbol.path) and os.path.isabs(symbol.path or ""), is_test_code(symbol.path)


def named_exactly(reader: IndexReader, name: str) -> list[Symbol]:
    """Every definition whose own name is `name`, case included."""
    return [symbol for symbol in reader.symbols_named(name.lower()) if symbol.name == name]


def plain_call_order(operators: list[Symbol]) -> list[tuple[Symbol, str]]:
    """The overloads of one operator in the order a plain call of their Python binding tries
    them, each with the reason it stands where it does. A plain call is the name called with a
    tensor for each parameter that needs a value and nothing else: `torch.add(x, y)`,
    `x.sum()`. PyTorch's Python argument parser takes the first overload whose schema the
    call's arguments fit (where a call's arguments are known, python_edges.py keeps the
    overloads they fit, by fits_schema); with no call to read (the user typed `torch.add`), the
    order is, rule by rule:
    1. not an `out=` overload (is_out_overload): a call that passes no `out=` never takes one;
    2. not in-place (its schema writes its `self`: `Tensor(a!) self`);
    3. every parameter without a default takes a tensor (`Tensor`, `Tensor?`, `Tensor[]`),
       before overloads that need another value: a Scalar (`add.Scalar`'s `other`), a
       dimension (`sum.dim_IntList`'s `int[1]? dim`), a keyword (`div.Tensor_mode`'s
       `rounding_mode`); torchgen's sort_overloads too tries a Tensor parameter before a
       Scalar one, so a tensor argument takes the Tensor overload;
    4. the order native_functions.yaml declares them in (`conv2d` before `conv2d.padding`,
       whose `str padding` has a default: both fit).
    The first is the overload a plain call takes; each other one is given the first rule that
    puts it after the one before it in the order."""

    def placing(operator: Symbol) -> tuple[bool, bool, bool, str, int, str]:
        return (
            is_out_overload(operator),
            _writes_self(operator),
            _needs_other_than_tensors(operator) is not None,
            operator.path or "",
            operator.line or 0,
            operator.qname,
        )

    ordered = sorted(operators, key=placing)
    placed: list[tuple[Symbol, str]] = []
    for number, operator in enumerate(ordered):
        needs = _needs_other_than_tensors(operator)
        if number == 0:
            why = "a plain call takes it"
        elif is_out_overload(operator):
            why = "out= only"
        elif _writes_self(operator):
            why = "in-place"
        elif needs is not None:
            why = f"needs {needs}"
        else:
            why = "a plain call fits it too; declared later"
        placed.append((operator, why))
    return placed


def _schema_parameters(schema: str) -> list[tuple[str, str, bool]]:
    """(type, name, has a default) of each parameter of an operator schema, `*` left out."""
    parts = parenthesised_items(schema) or []
    found = []
    for part in (p.strip() for p in parts):
        declared, equals, _ = part.partition("=")
        words = declared.split()
        if part and part != "*" and len(words) >= 2:
            found.append((" ".join(words[:-1]), words[-1], bool(equals)))
    return found


def _writes_self(operator: Symbol) -> bool:
    return any(name == "self" and "!" in kind for kind, name, _ in _schema_parameters(operator.signature))


def _needs_other_than_tensors(operator: Symbol) -> str | None:
    """The first parameter without a default that takes something other than a tensor
    (`Scalar other`), or None."""
    for kind, name, defaulted in _schema_parameters(operator.signature):
        if not defaulted and not kind.startswith("Tensor"):
            return f"{kind} {name}"
    return None


def _ordered(symbols: list[Symbol]) -> list[Symbol]:
    return sorted(symbols, key=lambda s: (s.path is None, s.path or "", s.line or 0, s.qname))


class PythonPaths:
    """Follows a dotted Python name through modules, classes and import bindings."""

    def __init__(self, reader: IndexReader) -> None:
        self.store = reader
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
