"""A diagram of a traced run: each definition the run entered is one node, each caller ->
callee pair one edge, labelled with how the call was made (binding, dispatch:<Key>, launch).

With a comparison, the calls the static graph confirms are highlighted as the path, the
static edges the run did not take are drawn faint beside it (the branch not taken), and the
calls the static analysis missed are marked uncertain and labelled "dynamic only".
"""

from __future__ import annotations

from explorer.diagram.build import short_qname
from explorer.diagram.model import Diagram, DiagramEdge, DiagramNode, Emphasis
from explorer.model import Layer
from explorer.runtime.compare import Comparison
from explorer.runtime.model import RECORDED_TRACE, Reach, RunFrame, RunTrace


def run_diagram(trace: RunTrace, shown: RunFrame, comparison: Comparison | None = None) -> Diagram:
    nodes: dict[tuple[str, str | None, int | None], DiagramNode] = {}
    edges: dict[tuple[str, str], DiagramEdge] = {}
    confirmed = {(e.caller.name, e.callee.name) for e in comparison.confirmed} if comparison else set()
    missed = {(e.caller.name, e.callee.name) for e in comparison.dynamic_only} if comparison else set()

    def node_id(
        name: str, layer: Layer, path: str | None, line: int | None, kind: str, emphasis: Emphasis, start: bool = False
    ) -> str:
        identity = (name, path, line)
        if identity not in nodes:
            nodes[identity] = DiagramNode(
                id=f"n{len(nodes)}",
                name=short_qname(name, layer) if not start else name,
                qname=name,
                layer=layer,
                kind=kind,
                path=path,
                line=line,
                emphasis=emphasis,
                start=start,
            )
        return nodes[identity].id

    def walk(frame: RunFrame, frame_id: str) -> None:
        for child in frame.children:
            pair = (frame.name, child.name)
            emphasis = Emphasis.PATH if pair in confirmed else Emphasis.NORMAL
            child_id = node_id(child.name, child.layer, child.path, child.line, _kind(child), emphasis)
            label = f"dispatch:{child.key}" if child.reach is Reach.DISPATCH else child.reach.value
            if pair in missed:
                label = "dynamic only"
            if child.calls > 1:
                label += f" ×{child.calls}"
            edges.setdefault(
                (frame_id, child_id), DiagramEdge(frame_id, child_id, label, emphasis, child.site, pair in missed)
            )
            walk(child, child_id)

    root_id = node_id(
        shown.name,
        shown.layer,
        shown.path,
        shown.line,
        "module",
        Emphasis.PATH if comparison else Emphasis.NORMAL,
        start=True,
    )
    walk(shown, root_id)
    if comparison is not None:
        by_name = {diagram_node.qname: diagram_node.id for diagram_node in nodes.values()}
        for item in comparison.not_taken:
            source = by_name.get(item.caller.name)
            target = item.edge.target
            if source is None:
                continue
            target_id = node_id(
                target.symbol.qname,
                target.layer,
                target.symbol.path,
                target.symbol.line,
                target.symbol.kind.value,
                Emphasis.CONTEXT,
            )
            edges.setdefault(
                (source, target_id),
                DiagramEdge(source, target_id, f"not taken ({item.edge.label})", Emphasis.CONTEXT, item.edge.site),
            )
    title = (
        f"{trace.command} (a recorded profiler trace)"
        if trace.runtime == RECORDED_TRACE
        else f"{trace.command} ({trace.runtime} runtime, device {trace.device})"
    )
    return Diagram(title, tuple(nodes.values()), tuple(edges.values()), root_id)


def _kind(frame: RunFrame) -> str:
    if frame.reach is Reach.LAUNCH:
        return "kernel"
    if frame.layer.value == "yaml":
        return "operator"
    if frame.layer.value == "vendor":
        return "external"
    return "function"
