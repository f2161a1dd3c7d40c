"""JSON views of a traced run and of its comparison with the static call graph."""

from __future__ import annotations

from explorer.runtime.compare import Comparison, NotTaken, RunEdge
from explorer.runtime.model import RunFrame, RunTrace


def frame_json(frame: RunFrame) -> dict[str, object]:
    document: dict[str, object] = {
        "name": frame.name,
        "layer": frame.layer.value,
        "path": frame.path,
        "line": frame.line,
        "reach": frame.reach.value,
    }
    if frame.key is not None:
        document["key"] = frame.key
    if frame.site is not None:
        document["site"] = {"path": frame.site.path, "line": frame.site.line}
    if frame.calls > 1:
        document["calls"] = frame.calls
    document["children"] = [frame_json(child) for child in frame.children]
    return document


def run_json(trace: RunTrace, shown: RunFrame) -> dict[str, object]:
    return {
        "command": trace.command,
        "runtime": trace.runtime,
        "device": trace.device,
        "exit_code": trace.exit_code,
        "python_events": trace.python_events,
        "native_events": trace.native_events,
        "notes": list(trace.notes),
        "tree": frame_json(shown),
    }


def _edge(edge: RunEdge) -> dict[str, object]:
    document: dict[str, object] = {
        "caller": edge.caller.name,
        "callee": edge.callee.name,
        "callee_layer": edge.callee.layer.value,
        "site": {"path": edge.callee.site.path, "line": edge.callee.site.line} if edge.callee.site else None,
    }
    if edge.static_label is not None:
        document["static_kind"] = edge.static_label
    return document


def _not_taken(item: NotTaken) -> dict[str, object]:
    site = item.edge.site
    return {
        "caller": item.caller.name,
        "callee": item.edge.target.symbol.qname,
        "kind": item.edge.label,
        "site": {"path": site.path, "line": site.line} if site else None,
        "taken": list(item.taken),
    }


def comparison_json(comparison: Comparison) -> dict[str, object]:
    return {
        "backend": comparison.backend,
        "confirmed": [_edge(edge) for edge in comparison.confirmed],
        "dynamic_only": [_edge(edge) for edge in comparison.dynamic_only],
        "unattributed": [_edge(edge) for edge in comparison.unattributed],
        "not_taken": [_not_taken(item) for item in comparison.not_taken],
        "unindexed": list(comparison.unindexed),
    }
