"""Call trees and paths from one definition: `explorer trace`.

Without a target the tree shows everything reachable within `max_depth`, each definition
expanded once (later occurrences say "shown above"), cycles cut where they close.
With a target (`--to REGEX`, matched against qualified names) only the branches that reach a
match are kept, each node is explored once (its result reused wherever it appears again),
and every path from the start to a match is listed in order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from explorer.errors import UsageError
from explorer.index.store import IndexStore
from explorer.model import CallEdge, CallNode, Symbol, SymbolKind
from explorer.query.backends import BACKENDS
from explorer.query.graph import CallGraph
from explorer.query.lookup import resolve

_MAX_PATHS = 20  # shown, shortest first
_PATHS_CONSIDERED = 2000  # enumerated before sorting; a DAG of shared subtrees can hold many


@dataclass(frozen=True, slots=True)
class TraceNode:
    node: CallNode
    edge: CallEdge | None  # None for the start
    children: tuple[TraceNode, ...] = ()
    stop: str | None = None  # why the branch ends here: cycle, depth limit, shown above
    matched: bool = False  # the node matches `--to`


@dataclass(frozen=True, slots=True)
class Trace:
    tree: TraceNode
    paths: list[list[TraceNode]] | None  # with a target: paths from the start to a match
    deepest: list[TraceNode]  # with a target and no path: the farthest nodes reached
    paths_found: int = 0  # how many paths there are (up to _PATHS_CONSIDERED); `paths` has the shortest
    paths_capped: bool = False  # there may be more than paths_found
    # With a target: every edge out of each node on the listed paths, by node key, so that a
    # diagram can show what else a hop calls (the branch not taken) beside the path.
    branches: dict[tuple, tuple[CallEdge, ...]] = field(default_factory=dict)


def trace(graph: CallGraph, start: CallNode, *, max_depth: int, target: re.Pattern[str] | None = None) -> Trace:
    if target is None:
        return Trace(_Explorer(graph, max_depth).tree(start, None, 0, frozenset()), None, [])
    searcher = _Searcher(graph, max_depth, target)
    found = searcher.reach(start, None, 0, frozenset())
    if found is None:
        return Trace(TraceNode(start, None), [], searcher.deepest())
    paths = _paths(found)
    shown = paths[:_MAX_PATHS]
    # The searcher asked for these edges already: the graph answers from its memo.
    branches = {hop.node.key: tuple(graph.edges(hop.node)) for path in shown for hop in path if not hop.matched}
    return Trace(found, shown, [], len(paths), len(paths) >= _PATHS_CONSIDERED, branches)


class _Explorer:
    def __init__(self, graph: CallGraph, max_depth: int) -> None:
        self.graph = graph
        self.max_depth = max_depth
        self.expanded: set[tuple] = set()

    def tree(self, node: CallNode, edge: CallEdge | None, depth: int, above: frozenset[tuple]) -> TraceNode:
        key = node.key
        if key in above:
            return TraceNode(node, edge, stop="cycle")
        edges = self.graph.edges(node)
        if not edges:
            return TraceNode(node, edge)
        if key in self.expanded:
            return TraceNode(node, edge, stop="shown above")
        if depth >= self.max_depth:
            return TraceNode(node, edge, stop="depth limit")
        self.expanded.add(key)
        inside = above | {key}
        children = tuple(self.tree(e.target, e, depth + 1, inside) for e in edges)
        return TraceNode(node, edge, children)


class _Searcher:
    def __init__(self, graph: CallGraph, max_depth: int, target: re.Pattern[str]) -> None:
        self.graph = graph
        self.max_depth = max_depth
        self.target = target
        self.reaching: dict[tuple, tuple[TraceNode, ...] | None] = {}
        self.farthest: tuple[int, list[CallNode]] = (0, [])

    def reach(self, node: CallNode, edge: CallEdge | None, depth: int, above: frozenset[tuple]) -> TraceNode | None:
        if edge is not None and self.target.search(node.symbol.qname):
            return TraceNode(node, edge, matched=True)
        key = node.key
        if key in above:
            return None
        self._note_depth(depth, node)
        if key in self.reaching:
            children = self.reaching[key]
            return TraceNode(node, edge, children) if children else None
        if depth >= self.max_depth:
            return None
        inside = above | {key}
        found = []
        for next_edge in self.graph.edges(node):
            child = self.reach(next_edge.target, next_edge, depth + 1, inside)
            if child is not None:
                found.append(child)
        self.reaching[key] = tuple(found) or None
        return TraceNode(node, edge, tuple(found)) if found else None

    def _note_depth(self, depth: int, node: CallNode) -> None:
        best, nodes = self.farthest
        if depth > best:
            self.farthest = (depth, [node])
        elif depth == best and len(nodes) < 5 and node not in nodes:
            nodes.append(node)

    def deepest(self) -> list[TraceNode]:
        return [TraceNode(node, None) for node in self.farthest[1]]


def _paths(tree: TraceNode) -> list[list[TraceNode]]:
    """Paths to the matches, shortest first, then those with the fewest uncertain hops.

    Subtrees are shared, so a tree can hold far more paths than are worth listing. The walk
    takes children nearest to a match first: the paths it meets first are the shortest, and
    the ones kept when it stops early."""
    distance: dict[int, int] = {}

    def to_match(node: TraceNode) -> int:
        known = distance.get(id(node))
        if known is None:
            known = 0 if node.matched else 1 + min((to_match(child) for child in node.children), default=1 << 20)
            distance[id(node)] = known
        return known

    found: list[list[TraceNode]] = []

    def walk(node: TraceNode, path: list[TraceNode]) -> None:
        if len(found) >= _PATHS_CONSIDERED:
            return
        path = [*path, node]
        if node.matched:
            found.append(path)
            return
        for child in sorted(node.children, key=to_match):
            walk(child, path)

    walk(tree, [])
    return sorted(found, key=lambda path: (len(path), sum(_uncertain(hop) for hop in path)))


def _uncertain(hop: TraceNode) -> int:
    return int(hop.edge is not None and hop.edge.resolution != "exact")


@dataclass(frozen=True, slots=True)
class TraceReport:
    query: str
    backend: str
    start: CallNode
    trace: Trace
    other_matches: list[Symbol]  # further definitions the query named, not traced
    to: str | None = None  # the --to regex, as given


def trace_symbol(
    store: IndexStore, root: str, query: str, *, backend: str = "cuda", max_depth: int | None = None, to: str | None = None
) -> TraceReport:
    """`explorer trace`: resolve the query, then trace from the definition it names (an
    operator or a Python definition before a C++ one of the same name)."""
    if backend not in BACKENDS:
        raise UsageError(f"unknown backend {backend!r}; one of: {', '.join(BACKENDS)}")
    target = None
    if to is not None:
        try:
            target = re.compile(to)
        except re.error as error:
            raise UsageError(f"--to {to!r} is not a regular expression: {error}") from None
    depth = max_depth if max_depth is not None else (DEFAULT_DEPTH_TO if target is not None else DEFAULT_DEPTH)
    if depth < 1:
        raise UsageError("--max-depth must be at least 1")
    symbols = sorted(resolve(store, query).symbols, key=_start_preference)
    graph = CallGraph(store, root, backend)
    start = graph.node(symbols[0])
    return TraceReport(query, backend, start, trace(graph, start, max_depth=depth, target=target), symbols[1:], to)


DEFAULT_DEPTH = 6  # a whole tree this deep is already long on a real tree
DEFAULT_DEPTH_TO = 40  # a path from nn.Conv2d to cuDNN is about 25 hops on PyTorch 2.4


def _start_preference(symbol: Symbol) -> int:
    if symbol.kind is SymbolKind.OPERATOR:
        return 0
    if symbol.lang == "python":
        return 1
    return 2 if symbol.kind is not SymbolKind.EXTERNAL else 3
