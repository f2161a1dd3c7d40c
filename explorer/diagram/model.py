"""The records of a call-graph diagram: what the renderers (DOT, SVG, PNG, HTML) draw.

A diagram is built from a trace or a callers/callees report (`diagram.build`), shaped to stay
readable (`diagram.fold`), then rendered (`render.dot`, `render.html`). Nodes carry ids that
depend only on the order the report lists them in, so one trace always renders the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from explorer.model import Layer, Location


class Emphasis(StrEnum):
    NORMAL = "normal"  # no --to: every node and edge is drawn alike
    PATH = "path"  # on a path to a --to match: highlighted
    CONTEXT = "context"  # beside the paths (what else a hop calls): drawn faint


# Kinds of diagram node that stand for more than one definition.
MORE = "more"  # "+N more": a folded subtree (--max-nodes)
FILE = "file"  # the definitions of one file, or one vendor library (--collapse)


@dataclass(frozen=True, slots=True)
class DiagramNode:
    id: str  # n0, n1, ... in the order the report lists definitions; m0.. and f0.. for folds
    name: str  # the short name drawn on the node
    qname: str  # the full qualified name (tooltip, side panel)
    layer: Layer
    kind: str  # a SymbolKind value, or MORE / FILE
    path: str | None
    line: int | None
    end_line: int | None = None
    emphasis: Emphasis = Emphasis.NORMAL
    start: bool = False  # the traced definition
    matched: bool = False  # matches --to
    note: str | None = None  # "depth limit", "3 definitions", ...
    members: tuple[str, ...] = ()  # for MORE and FILE nodes: the qualified names folded in
    spine: bool = False  # on the first listed path: drawn as a straight line down the middle


@dataclass(frozen=True, slots=True)
class DiagramEdge:
    source: str  # node ids, in the direction of the call (caller -> callee)
    target: str
    kind: str  # how the call is made, as shown: the CallEdge's label (call, method, dispatch:CUDA, fnptr...) or a run's reach
    emphasis: Emphasis = Emphasis.NORMAL
    site: Location | None = None  # the call that makes this edge
    uncertain: bool = False  # ambiguous, or matched by name only
    spine: bool = False  # a hop of the first listed path


@dataclass(frozen=True, slots=True)
class Diagram:
    title: str
    nodes: tuple[DiagramNode, ...]
    edges: tuple[DiagramEdge, ...]
    root: str  # id of the node the report started from
    # The report was discovered against the arrows (callers): the root is where edges end.
    upward: bool = False

    def node(self, node_id: str) -> DiagramNode:
        return next(node for node in self.nodes if node.id == node_id)
