"""Diagrams from what `trace`, `callers` and `callees` found.

- A trace without --to is drawn as its tree, with repeated definitions ("shown above", cycles)
  merged into one node, so the drawing is the call graph the tree unrolled.
- A trace with --to draws its listed paths highlighted, the first one marked as the spine
  (render/dot.py draws it as one straight line, the others beside it), and with --context,
  faint, whatever else each hop on a path calls: the branch not taken is where a reader looks next.
- callers and callees draw each definition found, with the edge that connects it.
"""

from __future__ import annotations

import dataclasses
import itertools

from explorer.analysis import NeighbourReport, TraceNode, TraceReport
from explorer.diagram.model import Diagram, DiagramEdge, DiagramNode, Emphasis
from explorer.model import CallEdge, CallNode, EdgeKind, Key, Layer, Resolution
from explorer.names import target_heading


def trace_diagram(report: TraceReport) -> Diagram:
    trace = report.trace
    builder = _Builder()
    builder.add(report.start, Emphasis.PATH if trace.paths else Emphasis.NORMAL, start=True, spine=bool(trace.paths))
    if trace.paths:
        for number, path in enumerate(trace.paths):
            for before, hop in itertools.pairwise(path):
                builder.add(hop.node, Emphasis.PATH, matched=hop.matched, spine=number == 0)
                builder.link(before.node, hop.node, hop.edge, Emphasis.PATH, spine=number == 0)
        for path in trace.paths:
            for hop in path:
                for edge in trace.branches.get(hop.node.key, ()):
                    builder.add(edge.target, Emphasis.CONTEXT)
                    builder.link(hop.node, edge.target, edge, Emphasis.CONTEXT)
        title = f"{report.start.symbol.qname} to {target_heading(report.to or '')} (backend {report.backend})"
    else:
        _add_tree(builder, trace.tree)
        title = f"{report.start.symbol.qname} (backend {report.backend})"
    return builder.diagram(title, report.start)


def _add_tree(builder: _Builder, top: TraceNode) -> None:
    """Each hop under `top`, depth first, with a stack: a tree may be thousands deep."""
    pending = [(top, child) for child in reversed(top.children)]
    while pending:
        parent, hop = pending.pop()
        note = "not expanded: depth limit" if hop.stop == "depth limit" else None
        builder.add(hop.node, Emphasis.NORMAL, note=note)
        builder.link(parent.node, hop.node, hop.edge, Emphasis.NORMAL)
        pending += [(hop, child) for child in reversed(hop.children)]


def neighbours_diagram(report: NeighbourReport) -> Diagram:
    builder = _Builder()
    builder.add(report.start, Emphasis.NORMAL, start=True)
    upward = report.direction == "callers"
    for found in report.found:
        builder.add(found.node, Emphasis.NORMAL)
        caller, callee = (found.node, found.via) if upward else (found.via, found.node)
        builder.link(caller, callee, found.edge, Emphasis.NORMAL)
    title = f"{report.direction} of {report.start.symbol.qname}"
    return builder.diagram(title, report.start, upward=upward)


def short_name(node: CallNode) -> str:
    """What a reader calls the definition: `Conv2d._conv_forward`, `aten::conv2d`,
    `cudnn_convolution`, `ConvolutionArgs::describe`."""
    return short_qname(node.symbol.qname, node.layer)


def short_qname(qname: str, layer: Layer) -> str:
    if layer in (Layer.YAML, Layer.VENDOR):
        return qname
    if layer in (Layer.PYTHON, Layer.BINDING):
        parts = qname.split(".")
        in_class = len(parts) >= 2 and parts[-2][:1].isupper()  # classes are CamelCase, modules not
        return ".".join(parts[-2:]) if in_class or layer is Layer.BINDING else parts[-1]
    parts = qname.split("::")
    if len(parts) >= 2 and parts[-2][:1].isupper():  # a method: keep its class
        return "::".join(parts[-2:])
    return parts[-1]


class _Builder:
    """Nodes and edges in first-seen order; a node met again is the same node, and an edge
    keeps the strongest emphasis it was added with."""

    def __init__(self) -> None:
        self.nodes: dict[Key, DiagramNode] = {}
        self.edges: dict[tuple[str, str, str], DiagramEdge] = {}

    def add(
        self,
        node: CallNode,
        emphasis: Emphasis,
        *,
        start: bool = False,
        matched: bool = False,
        note: str | None = None,
        spine: bool = False,
    ) -> None:
        key = node.key
        known = self.nodes.get(key)
        if known is not None:
            if (matched and not known.matched) or (spine and not known.spine):
                self.nodes[key] = dataclasses.replace(
                    known, matched=known.matched or matched, spine=known.spine or spine
                )
            return
        symbol = node.symbol
        self.nodes[key] = DiagramNode(
            id=f"n{len(self.nodes)}",
            name=short_name(node),
            qname=symbol.qname,
            layer=node.layer,
            kind=symbol.kind.value,
            path=symbol.path,
            line=symbol.line,
            end_line=symbol.end_line,
            emphasis=emphasis,
            start=start,
            matched=matched,
            note=note,
            spine=spine,
        )

    def link(
        self, caller: CallNode, callee: CallNode, edge: CallEdge | None, emphasis: Emphasis, *, spine: bool = False
    ) -> None:
        source, target = self.nodes[caller.key].id, self.nodes[callee.key].id
        kind = edge.label if edge is not None else EdgeKind.CALL
        key = (source, target, kind)
        if key in self.edges:
            if spine and not self.edges[key].spine:
                self.edges[key] = dataclasses.replace(self.edges[key], spine=True)
            return
        self.edges[key] = DiagramEdge(
            source=source,
            target=target,
            kind=kind,
            emphasis=emphasis,
            site=edge.site if edge is not None else None,
            uncertain=edge is not None and edge.resolution is not Resolution.EXACT,
            spine=spine,
        )

    def diagram(self, title: str, root: CallNode, *, upward: bool = False) -> Diagram:
        return Diagram(title, tuple(self.nodes.values()), tuple(self.edges.values()), self.nodes[root.key].id, upward)
