"""From explorer's records to the protocol's types and back: a place in a document to the
definitions there, a symbol to its location, item, information and hover text. Positions
themselves are converted in positions.py, and only there."""

from __future__ import annotations

import re
from typing import assert_never

from lsprotocol import types as lsp

from explorer.analysis import (
    callers_of,
    describe,
    hop_cost,
    symbols_at,
    symbols_called_at,
)
from explorer.lsp.hierarchy import node_data, node_of
from explorer.lsp.positions import call_range, column_of, line_range, path_of, span_range, uri_of
from explorer.lsp.session import Session
from explorer.model import CallEdge, CallNode, Key, Layer, Location, Resolution, Symbol, SymbolKind
from explorer.resolve import (
    FlowEdges,  # noqa: F401 - loaded with the server, not by its first request
    layer_of,
)


def lsp_symbol_kind(kind: SymbolKind) -> lsp.SymbolKind:
    """How an editor shows a definition of `kind` (every kind has one: a match over all of them)."""
    match kind:
        case SymbolKind.MODULE:
            return lsp.SymbolKind.Module
        case SymbolKind.CLASS | SymbolKind.BOUND_CLASS:
            return lsp.SymbolKind.Class
        case (
            SymbolKind.FUNCTION
            | SymbolKind.KERNEL
            | SymbolKind.STRUCTURED_KERNEL
            | SymbolKind.META_FUNCTION
            | SymbolKind.PYBIND
            | SymbolKind.METHOD_TABLE
            | SymbolKind.EXTERNAL
        ):
            return lsp.SymbolKind.Function
        case SymbolKind.METHOD:
            return lsp.SymbolKind.Method
        case SymbolKind.VARIABLE | SymbolKind.ALIAS | SymbolKind.DISPATCH_STUB:
            return lsp.SymbolKind.Variable
        case SymbolKind.NAMESPACE:
            return lsp.SymbolKind.Namespace
        case SymbolKind.STRUCT:
            return lsp.SymbolKind.Struct
        case SymbolKind.ENUM:
            return lsp.SymbolKind.Enum
        case SymbolKind.FIELD:
            return lsp.SymbolKind.Field
        case SymbolKind.DISPATCH_REGISTRATION:
            return lsp.SymbolKind.Event
        case SymbolKind.MACRO:
            return lsp.SymbolKind.Constant
        case SymbolKind.EXTENSION:
            return lsp.SymbolKind.Package
        case SymbolKind.OPERATOR:
            return lsp.SymbolKind.Operator
        case _:
            assert_never(kind)


_HOVER_HOPS = 8


def symbols_at_position(session: Session, uri: str, position: lsp.Position) -> list[Symbol]:
    path = path_of(uri, session.root)
    if path is None:
        return []
    line = position.line + 1
    buffer = session.buffer(path)
    if buffer is None:
        text = session.sources.line(path, line)
        return symbols_at(session.graph, session.reader, path, line, text, column_of(text, position.character))
    # a line the saved file also has is read in the index at its saved number; one only the
    # buffer has by the calls its text makes, else by the name under the cursor (line 0
    # holds nothing in the index)
    text = buffer.line(line)
    column = column_of(text, position.character)
    saved = buffer.map.saved_line(line)
    if saved is None:
        called = symbols_called_at(session.reader, buffer.calls(path), line, text, column)
        if called:
            return called
    return symbols_at(session.graph, session.reader, path, saved or 0, text, column)


def in_buffer(session: Session, path: str, place: lsp.Range) -> lsp.Range:
    """A range of the file as saved, moved to the lines of its open buffer, if it has one."""
    buffer = session.buffer(path)
    if buffer is None:
        return place
    start, end = buffer.map.buffer_line(place.start.line + 1) - 1, buffer.map.buffer_line(place.end.line + 1) - 1
    return lsp.Range(lsp.Position(start, place.start.character), lsp.Position(max(start, end), place.end.character))


def definitions_at(session: Session | None, uri: str, position: lsp.Position) -> list[lsp.Location]:
    if session is None:
        return []
    return [
        location
        for symbol in symbols_at_position(session, uri, position)
        if (location := location_of(session, symbol)) is not None
    ]


def location_of(session: Session, symbol: Symbol) -> lsp.Location | None:
    if symbol.path is None or symbol.line is None:
        return None
    return lsp.Location(uri_of(symbol.path, session.root), in_buffer(session, symbol.path, name_range(session, symbol)))


def name_range(session: Session, symbol: Symbol) -> lsp.Range:
    """The definition's name on its first line (the whole line if it is not written there)."""
    text = session.sources.line(symbol.path or "", symbol.line or 1)
    at = _name_column(text, symbol.name)
    return (
        line_range(symbol.line or 1, text, at, at + len(symbol.name)) if at >= 0 else line_range(symbol.line or 1, text)
    )


def _name_column(text: str, name: str) -> int:
    """Where `name` is written on a line as a whole identifier, or -1."""
    found = re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text)
    return found.start() if found is not None else -1


def site_location(session: Session, site: Location | None, called: str = "") -> lsp.Location | None:
    """The call at a site, up to the name of the definition it runs (`called`) where the line
    writes it (its line, where no column is known), or None where there is no call: no site,
    or a site in a file at no line (line 0: a call Python makes that no line writes, such as
    unpacking's `__getitem__`)."""
    if site is None or site.line < 1:
        return None
    text = session.sources.line(site.path, site.line)
    return lsp.Location(
        uri_of(site.path, session.root), in_buffer(session, site.path, call_range(site.line, text, site.column, called))
    )


def information_of(session: Session, symbol: Symbol) -> lsp.SymbolInformation | None:
    location = location_of(session, symbol)
    if location is None:
        return None
    return lsp.SymbolInformation(
        name=symbol.qname, kind=lsp_symbol_kind(symbol.kind), location=location, container_name=layer_of(symbol).value
    )


def hierarchy_item(
    session: Session,
    node: CallNode,
    edge: CallEdge | None,
    site: Location | None,
    near: lsp.CallHierarchyItem | None = None,
) -> lsp.CallHierarchyItem:
    """A node of the call graph as a call hierarchy item. One without source (a vendor API, a
    kernel the tree lacks, a binding generated at build time) is placed at the call that
    reaches it, or where there is none at the item it was reached from (`near`), and its
    detail says so."""
    symbol = node.symbol
    detail = _detail(symbol, edge)
    if symbol.path is not None and symbol.line is not None:
        text = session.sources.of_file(symbol.path)
        last = min(symbol.end_line or symbol.line, max(len(text), symbol.line))
        whole = in_buffer(
            session, symbol.path, span_range(symbol.line, last, text[last - 1] if 0 < last <= len(text) else "")
        )
        uri, selection = (
            uri_of(symbol.path, session.root),
            in_buffer(session, symbol.path, name_range(session, symbol)),
        )
    elif (place := site_location(session, site, symbol.name)) is not None:
        uri, whole, selection = place.uri, place.range, place.range
    elif near is not None:
        uri, whole, selection = near.uri, near.selection_range, near.selection_range
    else:
        uri, whole, selection = uri_of(".", session.root), line_range(1, ""), line_range(1, "")
    return lsp.CallHierarchyItem(
        name=symbol.qname,
        kind=lsp_symbol_kind(symbol.kind),
        uri=uri,
        range=whole,
        selection_range=selection,
        detail=detail,
        data=node_data(node),
    )


def _detail(symbol: Symbol, edge: CallEdge | None) -> str:
    """The layer, how the hop is made and how certain it is: `cuda · dispatch:CUDA`,
    `cpp · call · ambiguous (2 candidates)`, `vendor · call`."""
    parts = [layer_of(symbol).value]
    if edge is not None:
        parts.append(edge.label)
        if edge.resolution is Resolution.AMBIGUOUS:
            parts.append(f"ambiguous ({len(edge.candidates)} candidates)")
        elif edge.resolution is Resolution.NAME:
            parts.append("by name only")
    if symbol.path is None and layer_of(symbol) is not Layer.VENDOR:
        parts.append(symbol.signature or "not defined in the tree")
    return " · ".join(parts)


def hierarchy_steps(
    session: Session | None, item: lsp.CallHierarchyItem, incoming: bool
) -> list[tuple[lsp.CallHierarchyItem, list[lsp.Range]]]:
    """One step of the call hierarchy from `item`: what it calls, or what calls it, each with
    the range of every call it stands for (in the caller's file, as LSP has it both ways). Outgoing calls
    come in the order trace ranks its hops: the more certain first, the source's order among
    equals."""
    node = node_of(session.reader, item.data, item.name) if session is not None else None
    if session is None or node is None:
        return []
    # each step with every call it stands for (`g(1) + g(2)`: two ranges)
    steps: dict[Key, tuple[CallNode, list[CallEdge]]] = {}
    if incoming:
        for calling, edge in callers_of(session.graph, node, every_call=True):
            steps.setdefault(calling.key, (calling, []))[1].append(edge)
    else:
        calls: dict[Key, list[CallEdge]] = {}
        for edge in session.graph.edges_by_site(node):
            calls.setdefault((edge.target.key, edge.kind, edge.dispatch_key), []).append(edge)
        for edge in sorted(session.graph.edges(node), key=hop_cost):
            hop = (edge.target.key, edge.kind, edge.dispatch_key)
            steps[hop] = (edge.target, calls.get(hop, [edge]))
    answered = []
    for other, edges in steps.values():
        other_item = hierarchy_item(session, other, edges[0], edges[0].site, near=item)
        # a hop without a call in the source (a generated binding to its operator): the range
        # is the caller item's own, so that editors show the hop
        caller = other_item if incoming else item
        ranges: list[lsp.Range] = []
        for edge in edges:
            place = site_location(session, edge.site, edge.target.symbol.name)
            found = place.range if place is not None else caller.selection_range
            if found not in ranges:
                ranges.append(found)
        answered.append((other_item, ranges))
    return answered


def hover_text(session: Session, symbol: Symbol) -> str:
    details = describe(session.reader, session.root, symbol, 0)
    where = f"{symbol.path}:{symbol.line}" if symbol.path is not None else "no source in the trees"
    lines = [f"**{symbol.qname}** · {symbol.kind.value} · {layer_of(symbol).value} · `{where}`"]
    if symbol.signature:
        lines += ["```", symbol.signature, "```"]
    for row in details.kernels:
        defined = ", ".join(f"{k.path}:{k.line}" for k in row.definitions[:2]) or "not defined in the tree"
        lines.append(f"- `{row.key}`: {row.kernel} ({defined})")
    for path, entry in details.derivatives[:1]:
        lines += [
            f"- autograd ({path}:{entry.line}): "
            + "; ".join(f"{grads}: {formula}" for grads, formula in entry.formulas[:3])
        ]
    hops = session.graph.edges(session.graph.node(symbol))[:_HOVER_HOPS]
    if hops:
        lines.append("")
        lines.append(
            "next: "
            + ", ".join(f"{edge.target.symbol.qname} ({edge.label}{_at_line(edge.target.symbol)})" for edge in hops)
        )
    return "\n".join(lines)


def _at_line(symbol: Symbol) -> str:
    return f", {symbol.path}:{symbol.line}" if symbol.path is not None else ""
