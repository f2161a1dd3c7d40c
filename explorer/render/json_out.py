"""JSON views of explorer's records. Keys are stable: scripts and tests rely on them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from json.encoder import encode_basestring
from typing import TYPE_CHECKING

from rich.console import Console
from rich.highlighter import JSONHighlighter
from rich.text import Text

from explorer.index import RefreshReport
from explorer.model import CallEdge, CallNode, Key, Symbol, Tree

if TYPE_CHECKING:  # only annotations: a command imports the query layer it runs, no more
    from explorer.analysis import Entry, NeighbourReport, Overload, SymbolDetails, TraceNode, TraceReport
    from explorer.names import SearchHit


def dumps(value: object) -> str:
    """`json.dumps(value, indent=2, ensure_ascii=False)`, the same text, written with a stack
    of its own: json's encoder recurses once per level and a trace tree may nest thousands."""
    return "".join(_json_text(value))


def write_json(console: Console, text: str) -> None:
    """JSON text as it is, one document: coloured on a terminal, never wrapped or
    re-parsed (rich's print_json parses it again, and recursion limits that)."""
    if console.is_terminal:
        console.print(JSONHighlighter()(Text(text)), soft_wrap=True)
    else:
        console.file.write(text + "\n")


@dataclass(slots=True)
class _Open:
    """A list or dict being written: what is left of it, and how deep it is."""

    items: Iterator[tuple[str | None, object]]  # (key, value); no key in a list
    level: int
    closing: str
    first: bool = True


def _json_text(value: object) -> Iterator[str]:
    stack: list[_Open] = []
    yield _open_or_scalar(value, 1, stack)
    while stack:
        container = stack[-1]
        entry = next(container.items, None)
        if entry is None:
            stack.pop()
            yield "\n" + "  " * (container.level - 1) + container.closing
            continue
        yield ("\n" if container.first else ",\n") + "  " * container.level
        container.first = False
        key, item = entry
        if key is not None:
            yield encode_basestring(key) + ": "
        yield _open_or_scalar(item, container.level + 1, stack)


def _open_or_scalar(value: object, level: int, stack: list[_Open]) -> str:
    """A scalar's text, or the opening of a non-empty container (pushed to be written)."""
    if isinstance(value, dict):
        if not value:
            return "{}"
        stack.append(_Open(((str(key), item) for key, item in value.items()), level, "}"))
        return "{"
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        stack.append(_Open(((None, item) for item in value), level, "]"))
        return "["
    if isinstance(value, str):
        return encode_basestring(value)
    return json.dumps(value)


def symbol_json(symbol: Symbol) -> dict[str, object]:
    return {
        "symbol": symbol.qname,
        "name": symbol.name,
        "kind": symbol.kind.value,
        "lang": symbol.lang.value,
        "file": symbol.path,
        "line": symbol.line,
        "end_line": symbol.end_line,
        "signature": symbol.signature,
    }


def search_json(hits: list[SearchHit]) -> list[dict[str, object]]:
    return [{**symbol_json(hit.symbol), "match": hit.tier.name.lower()} for hit in hits]


def details_json(details: SymbolDetails) -> dict[str, object]:
    out: dict[str, object] = symbol_json(details.symbol)
    if details.symbol.target is not None:
        out["target"] = details.symbol.target
    if details.snippet is not None:
        out["snippet"] = details.snippet.text
        out["snippet_lines_left_out"] = details.snippet.lines_left_out
    if details.operator is not None:
        info = details.operator
        out["operator"] = {
            "variants": list(info.variants),
            "python_module": info.python_module,
            "structured": info.structured,
            "structured_delegate": info.structured_delegate,
            "autogen": list(info.autogen),
        }
        out["dispatch"] = [
            {
                "key": row.key,
                "kernel": row.kernel,
                "line": row.line,
                "via": row.via,
                "definitions": [{"file": s.path, "line": s.line} for s in row.definitions],
            }
            for row in details.kernels
        ]
        out["test_kernels_left_out"] = details.test_kernels
    if details.operator is not None:
        out["derivatives"] = [
            {"file": path, "line": entry.line, "formulas": [{"gradients": g, "formula": f} for g, f in entry.formulas]}
            for path, entry in details.derivatives
        ]
    if details.resolves_to:
        out["resolves_to"] = [symbol_json(s) for s in details.resolves_to]
    if details.first_call_site is not None:
        out["call_sites"] = details.call_sites
        out["first_call_site"] = {"file": details.first_call_site.path, "line": details.first_call_site.line}
    return out


def report_json(report: RefreshReport) -> dict[str, object]:
    return {
        "index": str(report.index_path),
        "files": report.stats.files,
        "parsed_files": report.stats.parsed,
        "symbols": report.stats.symbols,
        "calls": report.stats.calls,
        "reparsed": report.parsed,
        "unchanged": report.unchanged,
        "removed": report.removed,
        "seconds": round(report.seconds, 3),
        "skipped": [{"file": d.path, "reason": d.reason} for d in report.skipped],
        "partial": [{"file": d.path, "reason": d.reason} for d in report.partial],
        "left_out": [{"folder": d.path, "rule": d.reason} for d in report.left_out],
    }


def node_json(node: CallNode, edge: CallEdge | None) -> dict[str, object]:
    """One hop of a chain, in the shape `trace`, `callers` and `callees` share."""
    symbol = node.symbol
    out: dict[str, object] = {
        "symbol": symbol.qname,
        "layer": node.layer.value,
        "kind": symbol.kind.value,
        "file": symbol.path,
        "line": symbol.line,
        "edge": edge.label if edge is not None else None,
        "resolution": edge.resolution.value if edge is not None else "exact",
        "site": f"{edge.site.path}:{edge.site.line}" if edge is not None and edge.site is not None else None,
    }
    if edge is not None and edge.candidates:
        out["candidates"] = list(edge.candidates)
    return out


def trace_node_json(hop: TraceNode, entry: Entry | None = None) -> dict[str, object]:
    """The tree under `hop`, nested as it is, built with a stack: a tree may be thousands deep.
    With an entry, `hop` is its root and each child says which overload it is (`overload`)."""
    top = _one_trace_node(hop)
    pending = [(child, top, True) for child in reversed(hop.children)]
    while pending:
        child, parent, below_root = pending.pop()
        out = _one_trace_node(child, entry.at(child.node) if entry is not None and below_root else None)
        parent["children"].append(out)  # type: ignore[attr-defined]
        pending += [(grandchild, out, False) for grandchild in reversed(child.children)]
    return top


def _one_trace_node(hop: TraceNode, overload: Overload | None = None) -> dict[str, object]:
    out = node_json(hop.node, hop.edge)
    if overload is not None:
        out["overload"] = overload.rank
    if hop.stop is not None:
        out["stop"] = hop.stop
    out["children"] = []
    return out


def entry_json(report: TraceReport) -> dict[str, object] | None:
    """The overloads the query names, in their order (`trace`'s Entry), or None for one
    definition. `ranked`: the order says which a plain call takes (the first); else nothing
    ranks them and their paths rank by cost alone."""
    entry = report.entry
    if entry is None:
        return None
    return {
        "name": report.query,
        "root": entry.root.symbol.qname,
        "count": entry.count,
        "noun": entry.noun,
        "ranked": entry.ranked,
        "plain_call": entry.overloads[0].node.symbol.qname if entry.ranked else None,
        "overloads": [
            {
                "rank": overload.rank,
                "symbol": overload.node.symbol.qname,
                "file": overload.node.symbol.path,
                "line": overload.node.symbol.line,
                "why": overload.why,
            }
            for overload in entry.overloads
        ],
    }


TRACE_SCHEMA = "explorer.trace/2"


def trace_json(report: TraceReport, root: str, to: str | None, trees: list[Tree] | None = None) -> dict[str, object]:
    """`trace --json`, schema explorer.trace/2 (README, "JSON output"). `entry`: the overloads
    of a name with several (absent for one definition), each path's in `path_overloads`, and
    `overload` on each hop that is one. Its size is bounded by
    what the text shows: with --to, the listed paths and the tree they make; without, the
    tree, each definition expanded once. `graph` holds the same hops as nodes listed once, by
    id, and edges between ids. With trees joined to the project, `trees` lists them: a file
    outside the project is an absolute path under one of their roots."""
    trace = report.trace
    out: dict[str, object] = {
        "schema": TRACE_SCHEMA,
        "query": report.query,
        "root": root,
        "backend": report.backend,
        "start": node_json(report.start, None),
        "tree": trace_node_json(trace.tree, report.entry),
        "graph": _graph_json(trace.tree),
    }
    entry = entry_json(report)
    if entry is not None:  # as `trees`: only where there is something to say
        out["entry"] = entry
    if trees and len(trees) > 1:
        out["trees"] = [trees_json(tree) for tree in trees]
    if to is not None:
        out["to"] = to
        out["paths"] = [_path_json(path, report.entry) for path in trace.paths or []]
        out["paths_found"] = trace.paths_found
        out["paths_capped"] = trace.paths_capped
        out["path_variants"] = list(trace.variants)
        # the paths each listed one stands for besides itself (another specialisation at a hop)
        out["variant_paths"] = [
            [_path_json(variant, report.entry) for variant in variants] for variants in trace.variant_paths
        ]
        if report.entry is not None:  # the rank of the overload each listed path starts from
            out["path_overloads"] = [
                overload.rank if (overload := report.entry.overload_of(path)) else None for path in trace.paths or []
            ]
        if not trace.paths:
            out["deepest"] = [node_json(hop.node, None) for hop in trace.deepest]
        if report.target_closest is not None:  # --to names nothing in the trees
            out["target_closest"] = report.target_closest
    return out


def _path_json(path: list[TraceNode], entry: Entry | None) -> list[dict[str, object]]:
    hops = [node_json(hop.node, hop.edge) for hop in path]
    overload = entry.overload_of(path) if entry is not None else None
    if overload is not None:
        hops[1]["overload"] = overload.rank
    return hops


def _graph_json(tree: TraceNode) -> dict[str, list[dict[str, object]]]:
    """The tree's definitions once each (id: their order of first appearance) and its edges
    once each, between ids."""
    ids: dict[Key, int] = {}
    nodes: list[dict[str, object]] = []
    edges: list[dict[str, object]] = []
    seen_edges: set[Key] = set()

    def node_id(node: CallNode) -> int:
        if node.key not in ids:
            ids[node.key] = len(nodes)
            symbol = node.symbol
            nodes.append(
                {
                    "id": len(nodes),
                    "symbol": symbol.qname,
                    "layer": node.layer.value,
                    "kind": symbol.kind.value,
                    "file": symbol.path,
                    "line": symbol.line,
                }
            )
        return ids[node.key]

    node_id(tree.node)
    pending = [(tree, child) for child in reversed(tree.children)]
    while pending:
        parent, hop = pending.pop()
        source, target = node_id(parent.node), node_id(hop.node)
        edge = hop.edge
        identity = (source, target, edge.label if edge else None, edge.site if edge else None)
        if edge is not None and identity not in seen_edges:
            seen_edges.add(identity)
            out: dict[str, object] = {
                "from": source,
                "to": target,
                "kind": edge.label,
                "resolution": edge.resolution.value,
                "site": f"{edge.site.path}:{edge.site.line}" if edge.site is not None else None,
            }
            if edge.candidates:
                out["candidates"] = list(edge.candidates)
            edges.append(out)
        pending += [(hop, child) for child in reversed(hop.children)]
    return {"nodes": nodes, "edges": edges}


def neighbours_json(report: NeighbourReport) -> list[dict[str, object]]:
    """`callers` / `callees`: a list of the definitions found, each with its depth and the
    definition it connects to (`via`)."""
    return [
        {"depth": found.depth, **node_json(found.node, found.edge), "via": found.via.symbol.qname}
        for found in report.found
    ]


def trees_json(tree: Tree) -> dict[str, object]:
    found: dict[str, object] = {
        "name": tree.name,
        "kind": tree.kind.value,
        "root": tree.root,
        "version": tree.version,
        "packages": list(tree.only),
    }
    if tree.stubs_only:
        found["stubs_only"] = True
    return found
