"""The project's index as a SCIP index: one document per file read, its definitions and the
references the call graph resolves exactly, each definition's information, and the edges
across languages as relationships.

- Occurrences: a definition at its name on its line; a reference at the callee's name on the
  line of a call the call graph resolves to one definition (an ambiguous or name-only call is
  left out: SCIP has no way to say a reference is uncertain). Ranges are [line, start, end],
  0-based, in UTF-8 bytes as the metadata says.
- Relationships, on the implementing symbol: an operator implements the Python bindings that
  bind it (`aten::conv2d` implements `torch._C._VariableFunctions.conv2d`), a kernel the
  operator whose dispatch table names it (`at::native::conv2d_symint` implements
  `aten::conv2d`); both are also references of the binding or operator.
- Definitions the index knows without a source (vendor APIs, bindings generated at build time)
  are external symbols.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from explorer import __version__
from explorer.index import IndexReader
from explorer.model import EdgeKind, Language, Layer, Resolution, Symbol, SymbolKind, byte_column, character_index
from explorer.resolve import CallGraph, SourceLines, UnreadableDefinition
from explorer.scip import scip_pb2
from explorer.scip.symbols import SymbolNamer

_LANGUAGES = {Language.PYTHON: "python", Language.CPP: "cpp", Language.CUDA: "cuda", Language.YAML: "yaml"}
_CALLERS = frozenset(
    {
        SymbolKind.FUNCTION,
        SymbolKind.METHOD,
        SymbolKind.KERNEL,
        SymbolKind.STRUCTURED_KERNEL,
        SymbolKind.META_FUNCTION,
        SymbolKind.MODULE,
        SymbolKind.CLASS,
        SymbolKind.OPERATOR,
        SymbolKind.ALIAS,
        SymbolKind.PYBIND,
        SymbolKind.METHOD_TABLE,
    }
)
_IMPLEMENTS = frozenset({EdgeKind.BINDING, EdgeKind.DISPATCH, EdgeKind.STRUCTURED})
# Files whose definitions one call graph answers before a fresh one is taken: the whole real
# tree through one graph grew past 12 GB
_FILES_PER_GRAPH = 200


@dataclass
class ScipCounts:
    documents: int = 0
    definitions: int = 0
    references: int = 0
    relationships: int = 0
    external_symbols: int = 0
    too_deep: int = 0  # definitions whose calls could not be followed (nested past the stack)
    # definitions read only in part (the solver stopped in them): their calls were found
    # by name, and the exact ones are references
    read_in_part: tuple[UnreadableDefinition, ...] = ()


@dataclass
class _Graph:
    """What the call graph says of each definition, gathered before documents are written
    (a relationship belongs to the implementing symbol, which may be in a file written first)."""

    # path -> (line, the column the call starts at (0 where unknown), the callee's name as
    # written, its SCIP symbol): names, not Symbols, since a whole tree has millions of references
    references: dict[str, list[tuple[int, int, str, str]]] = field(default_factory=dict)
    implements: dict[str, set[str]] = field(default_factory=dict)  # symbol -> symbols it implements
    external: dict[str, Symbol] = field(default_factory=dict)
    too_deep: int = 0


def scip_files(reader: IndexReader, under: str = "") -> list[str]:
    """The project's files an export writes: those under `under`, a folder, if given."""
    prefix = under.strip("/") + "/" if under.strip("/") else ""
    return [path for path in reader.project_files() if path.startswith(prefix)]


def scip_index(
    reader: IndexReader,
    graphs: Callable[[], CallGraph],
    root: str,
    package: str,
    paths: list[str],
    progress: Callable[[int], None] | None = None,
) -> tuple[scip_pb2.Index, ScipCounts]:
    """The SCIP index of the project's files `paths` (scip_files: all, or those under a folder).
    `graphs` makes a call graph; a fresh one is taken every _FILES_PER_GRAPH files, so that
    what a graph keeps (each node's edges, the solver's facts, the files' lines) stays
    bounded on a whole tree. A graph knows of a function's parameters what the callers it
    has read pass, so a call resolved only through what a caller read by another graph
    passes is not a reference; files go in path order, a folder's files together.
    `progress` is told how many files are done."""
    namer = SymbolNamer(reader, package)
    facts = _Graph()
    graph = graphs()
    read_in_part: list[UnreadableDefinition] = []
    for done, path in enumerate(paths, start=1):
        if done % _FILES_PER_GRAPH == 0:
            read_in_part += graph.unreadable.records()
            graph = graphs()
        for symbol in reader.symbols_in_file(path):
            if symbol.kind in _CALLERS:
                try:
                    _gather(graph, namer, symbol, path, facts)
                except (
                    RecursionError
                ):  # values flowing through calls nested past the stack: its references are left out
                    facts.too_deep += 1
        if progress is not None:
            progress(done)
    index = scip_pb2.Index()
    index.metadata.version = scip_pb2.UnspecifiedProtocolVersion
    index.metadata.tool_info.name = "explorer"
    index.metadata.tool_info.version = __version__
    index.metadata.project_root = Path(root).resolve().as_uri()
    index.metadata.text_document_encoding = scip_pb2.UTF8
    read_in_part += graph.unreadable.records()
    counts = ScipCounts(too_deep=facts.too_deep, read_in_part=tuple(read_in_part))
    for path in paths:
        index.documents.append(_document(reader, namer, SourceLines(root), path, facts, counts))
    for name, symbol in sorted(facts.external.items()):
        information = index.external_symbols.add()
        information.symbol = name
        information.display_name = symbol.name
        if symbol.signature:
            information.documentation.append(symbol.signature)
        counts.external_symbols += 1
    counts.documents = len(index.documents)
    return index, counts


def _gather(graph: CallGraph, namer: SymbolNamer, symbol: Symbol, path: str, facts: _Graph) -> None:
    if symbol.lang in (Language.CPP, Language.CUDA):
        # the operators whose dispatch table names this kernel, wherever their YAML is (with
        # --under, outside the files written)
        for entry in graph.store.operators_with_kernel(symbol.qname):
            for operator in graph.store.symbols_with_qname(entry.operator):
                if operator.kind is SymbolKind.OPERATOR:
                    facts.implements.setdefault(namer.name(symbol), set()).add(namer.name(operator))
    node = graph.node(symbol)
    # a binding's operator, an operator's kernel; not a Python function's call of a binding,
    # whose edge has the binding's kind too
    implemented = node.layer in (Layer.BINDING, Layer.YAML)
    for edge in graph.edges_by_site(node):  # a reference at every call, not only the first of each callee
        target = edge.target.symbol
        if implemented and edge.kind in _IMPLEMENTS and edge.resolution is not Resolution.NAME:
            # the binding's operator, the operator's kernel: the target implements the source.
            # Every overload a binding binds, every definition a dispatch row names (both sides
            # of an #if) implements it, though a call reaches one: ambiguous edges count here.
            facts.implements.setdefault(namer.name(target), set()).add(namer.name(symbol))
        if edge.resolution is not Resolution.EXACT:
            continue
        if target.path is None:
            facts.external.setdefault(namer.name(target), target)
        if (
            edge.site is not None
            and edge.site.path == path
            and edge.kind not in (EdgeKind.DISPATCH, EdgeKind.STRUCTURED)
        ):
            facts.references.setdefault(path, []).append(
                (edge.site.line, edge.site.column or 0, target.name, sys.intern(namer.name(target)))
            )


def _document(
    reader: IndexReader, namer: SymbolNamer, sources: SourceLines, path: str, facts: _Graph, counts: ScipCounts
) -> scip_pb2.Document:
    document = scip_pb2.Document()
    document.relative_path = path
    symbols = reader.symbols_in_file(path)
    lang = symbols[0].lang if symbols else None
    document.language = _LANGUAGES.get(lang, "") if lang is not None else ""
    document.position_encoding = scip_pb2.UTF8CodeUnitOffsetFromLineStart
    for symbol in symbols:
        if symbol.line is None:
            continue
        name = namer.name(symbol)
        occurrence = document.occurrences.add()
        occurrence.range.extend(_name_range(sources.line(path, symbol.line), symbol.line, symbol.name))
        occurrence.symbol = name
        occurrence.symbol_roles = scip_pb2.Definition
        counts.definitions += 1
        information = document.symbols.add()
        information.symbol = name
        information.display_name = symbol.name
        if symbol.signature:
            information.documentation.append(symbol.signature)
        for implemented in sorted(facts.implements.get(name, ())):
            relationship = information.relationships.add()
            relationship.symbol = implemented
            relationship.is_implementation = True
            relationship.is_reference = True
            counts.relationships += 1
    # a call the graph reaches twice (as the binding's method and as the tensor's) is one reference
    placed: set[tuple[int, int, str]] = set()
    for line, column, written, scip_symbol in sorted(set(facts.references.get(path, ()))):
        text = sources.line(path, line)
        start = _column(text, written, column)
        if start < 0:
            continue  # the callee's name is not written on the line (a call through an alias): no range to give
        if (line, start, scip_symbol) in placed:
            continue
        placed.add((line, start, scip_symbol))
        occurrence = document.occurrences.add()
        occurrence.range.extend([line - 1, start, start + len(written.encode("utf-8"))])
        occurrence.symbol = scip_symbol
        counts.references += 1
    return document


def _name_range(text: str, line: int, name: str) -> list[int]:
    start = _column(text, name)
    if start < 0:
        return [line - 1, 0, len(text.encode("utf-8"))]
    return [line - 1, start, start + len(name.encode("utf-8"))]


def _column(text: str, name: str, from_byte: int = 0) -> int:
    """Where `name` is written on a line as a whole word, in UTF-8 bytes, from a byte on (the
    column a call starts at: `y = relu; F.relu(x)` is a reference at the second); -1 if it is
    not."""
    at = character_index(text, from_byte)
    while (at := text.find(name, at)) >= 0:
        before = text[at - 1] if at > 0 else " "
        after = text[at + len(name)] if at + len(name) < len(text) else " "
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            return byte_column(text, at)
        at += 1
    return -1
