"""Everything `explorer show` says about one definition, gathered from the index and the file."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from explorer.errors import UnknownSymbolError
from explorer.index import IndexReader, source_lines
from explorer.model import DerivativeEntry, Language, Location, OperatorInfo, Symbol, SymbolKind, last_name
from explorer.names import binding_operators, hidden_as_test, look_up
from explorer.resolve import REGISTRABLE_KINDS, dispatch_kernels, registered_functions


@dataclass(frozen=True, slots=True)
class Snippet:
    path: str
    first_line: int
    text: str
    lines_left_out: int = 0  # of the definition, after the last line shown


@dataclass(frozen=True, slots=True)
class KernelRow:
    """One dispatch key of an operator, the kernel it names, and where that kernel is defined."""

    key: str
    kernel: str
    line: int  # of the key in the YAML file
    definitions: list[Symbol]
    via: str | None = None  # the structured_delegate op this row comes from
    registered_in: str | None = None  # the file that registers it


@dataclass(frozen=True, slots=True)
class SymbolDetails:
    symbol: Symbol
    snippet: Snippet | None
    operator: OperatorInfo | None = None
    kernels: list[KernelRow] = field(default_factory=list)
    derivatives: list[tuple[str, DerivativeEntry]] = field(default_factory=list)  # (file, entry)
    resolves_to: list[Symbol] = field(default_factory=list)  # an alias's or registration's target
    call_sites: int = 0  # for vendor APIs: how many calls the tree makes
    first_call_site: Location | None = None
    test_kernels: int = 0  # dispatch rows the tree's tests register, left out (test_code.py)


DEFAULT_SNIPPET_LINES = 15


def describe(
    reader: IndexReader, root: str, symbol: Symbol, snippet_lines: int = DEFAULT_SNIPPET_LINES, tests: bool = False
) -> SymbolDetails:
    """`tests`: also the kernels the tree's tests register for a production operator."""
    snippet = read_snippet(root, symbol, snippet_lines)
    if symbol.kind is SymbolKind.OPERATOR:
        info = reader.operator_info(symbol.qname)
        kernels = _kernel_rows(reader, symbol.qname)
        if not kernels and info is not None and info.structured_delegate:
            kernels = _kernel_rows(reader, info.structured_delegate, via=info.structured_delegate)
        shown = kernels if tests else [row for row in kernels if not hidden_as_test(symbol.path, row.registered_in)]
        return SymbolDetails(
            symbol,
            snippet,
            operator=info,
            kernels=shown,
            derivatives=reader.derivatives_of(symbol.qname),
            test_kernels=len(kernels) - len(shown),
        )
    if symbol.kind is SymbolKind.EXTERNAL:
        calls = sorted(
            Location(path, site.line, site.column)
            for path, site in reader.call_sites_of(symbol.name)
            if last_name(site.callee) == symbol.name
        )
        return SymbolDetails(symbol, None, call_sites=len(calls), first_call_site=calls[0] if calls else None)
    if symbol.target is not None:
        return SymbolDetails(symbol, snippet, resolves_to=_targets(reader, symbol.target, symbol))
    return SymbolDetails(symbol, snippet)


def _kernel_rows(reader: IndexReader, operator: str, via: str | None = None) -> list[KernelRow]:
    rows = []
    for entry in reader.dispatch_of(operator):
        kernels = dispatch_kernels(reader, entry)
        # a C++ registration's kernel is stored with the namespaces around it: named as found
        named = kernels[0].qname if kernels and len({k.qname for k in kernels}) == 1 else entry.kernel
        rows.append(KernelRow(entry.key, named, entry.line, kernels, via, entry.path))
    return rows


_REGISTERED_KINDS = REGISTRABLE_KINDS | {SymbolKind.FIELD}


def _targets(reader: IndexReader, target: str, symbol: Symbol) -> list[Symbol]:
    # A C++ registration's target is looked up as C++ does from where it is written (a
    # binding's `<lambda at line 851>` is its own file's, not another file's of that line)
    if symbol.lang in (Language.CPP, Language.CUDA):
        registered = registered_functions(reader, target, symbol.path, _REGISTERED_KINDS)
        if registered:
            return registered
    # Bindings first: `torch.conv2d` also reaches a .pyi stub through torch's star import,
    # but what it runs is the operator.
    operators = binding_operators(reader, target)
    if operators:
        return operators
    try:
        return look_up(reader, target).symbols
    except UnknownSymbolError:
        return []


def read_snippet(root: str, symbol: Symbol, max_lines: int) -> Snippet | None:
    if symbol.path is None or symbol.line is None:
        return None
    lines = source_lines(os.path.join(root, symbol.path))
    if not lines:
        return None
    end = min(symbol.end_line or symbol.line, len(lines))
    last = min(end, symbol.line + max_lines - 1)
    return Snippet(symbol.path, symbol.line, "\n".join(lines[symbol.line - 1 : last]), end - last)
