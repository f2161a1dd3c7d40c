"""Call trees and paths from one definition: `explorer trace`.

Without a target the tree shows everything reachable within `max_depth`, each definition
expanded once (later occurrences say "shown above"), cycles cut where they close.
With a target (`--to NAME|REGEX`, see patterns.py) only the branches that reach a match are
kept, each node is explored once (its result reused wherever it appears again, and shown
once in the tree), and every path from the start to a match is listed in order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from explorer.errors import UsageError
from explorer.index.store import IndexStore
from explorer.model import CallEdge, CallNode, Symbol, SymbolKind
from explorer.query.backends import BACKENDS
from explorer.query.graph import CallGraph
from explorer.query.lookup import resolve
from explorer.query.notes import UnreadableDefinition
from explorer.query.patterns import TargetPattern, target_pattern

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


def trace(graph: CallGraph, start: CallNode, *, max_depth: int, target: TargetPattern | None = None) -> Trace:
    if target is None:
        return Trace(_Explorer(graph, max_depth).tree(start), None, [])
    searcher = _Searcher(graph, max_depth, target)
    found = searcher.reach(start)
    if found is None:
        return Trace(TraceNode(start, None), [], searcher.deepest())
    paths = _paths(found)
    shown = paths[:_MAX_PATHS]
    # The searcher asked for these edges already: the graph answers from its memo.
    branches = {hop.node.key: tuple(graph.edges(hop.node)) for path in shown for hop in path if not hop.matched}
    return Trace(_unshared(found), shown, [], len(paths), len(paths) >= _PATHS_CONSIDERED, branches)


# Every walk below keeps its own stack: `--max-depth 5000` on a chain of 5,000 functions must
# not need 5,000 Python frames.


@dataclass(slots=True)
class _Frame:
    """A node being expanded: its edges, how many of them are done, what they gave."""

    node: CallNode
    edge: CallEdge | None
    edges: list[CallEdge]
    children: list[TraceNode] = field(default_factory=list)
    next_edge: int = 0


class _Explorer:
    def __init__(self, graph: CallGraph, max_depth: int) -> None:
        self.graph = graph
        self.max_depth = max_depth
        self.expanded: set[tuple] = set()

    def tree(self, start: CallNode) -> TraceNode:
        """Depth first, each definition expanded where it is first met."""
        leaf, edges = self._leaf(start, None, 0, set())
        if leaf is not None:
            return leaf
        self.expanded.add(start.key)
        stack = [_Frame(start, None, edges)]
        above = {start.key}  # the keys of the frames on the stack: a cycle closes there
        while True:
            frame = stack[-1]
            if frame.next_edge < len(frame.edges):
                edge = frame.edges[frame.next_edge]
                frame.next_edge += 1
                leaf, edges = self._leaf(edge.target, edge, len(stack), above)
                if leaf is not None:
                    frame.children.append(leaf)
                else:
                    self.expanded.add(edge.target.key)
                    above.add(edge.target.key)
                    stack.append(_Frame(edge.target, edge, edges))
                continue
            stack.pop()
            above.discard(frame.node.key)
            done = TraceNode(frame.node, frame.edge, tuple(frame.children))
            if not stack:
                return done
            stack[-1].children.append(done)

    def _leaf(self, node: CallNode, edge: CallEdge | None, depth: int, above: set[tuple]) -> tuple[TraceNode | None, list[CallEdge]]:
        """The node as a leaf, if the branch ends there, else None and the edges to follow."""
        key = node.key
        if key in above:
            return TraceNode(node, edge, stop="cycle"), []
        edges = self.graph.edges(node)
        if not edges:
            return TraceNode(node, edge), []
        if key in self.expanded:
            return TraceNode(node, edge, stop="shown above"), []
        if depth >= self.max_depth:
            return TraceNode(node, edge, stop="depth limit"), []
        return None, edges


class _Searcher:
    """Depth first from the start, keeping only the branches that reach the target. What a
    node reaches is worked out once and shared by every place it occurs, so the result is a
    tree whose subtrees may be shared."""

    def __init__(self, graph: CallGraph, max_depth: int, target: TargetPattern) -> None:
        self.graph = graph
        self.max_depth = max_depth
        self.target = target
        self.reaching: dict[tuple, tuple[TraceNode, ...] | None] = {}
        self.farthest: tuple[int, list[CallNode]] = (0, [])

    def reach(self, start: CallNode) -> TraceNode | None:
        above: set[tuple] = set()
        known = self._known(start, None, 0, above)
        if not isinstance(known, _Expand):
            return known
        stack = [_Frame(start, None, self.graph.edges(start))]
        above.add(start.key)
        while True:
            frame = stack[-1]
            if frame.next_edge < len(frame.edges):
                edge = frame.edges[frame.next_edge]
                frame.next_edge += 1
                known = self._known(edge.target, edge, len(stack), above)
                if isinstance(known, _Expand):
                    above.add(edge.target.key)
                    stack.append(_Frame(edge.target, edge, self.graph.edges(edge.target)))
                elif known is not None:
                    frame.children.append(known)
                continue
            stack.pop()
            above.discard(frame.node.key)
            self.reaching[frame.node.key] = tuple(frame.children) or None
            done = TraceNode(frame.node, frame.edge, tuple(frame.children)) if frame.children else None
            if not stack:
                return done
            if done is not None:
                stack[-1].children.append(done)

    def _known(self, node: CallNode, edge: CallEdge | None, depth: int, above: set[tuple]) -> TraceNode | None | _Expand:
        """What the node reaches, if that is known without expanding it; else _EXPAND."""
        if edge is not None and self.target.matches(node.symbol.qname):
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
        return _EXPAND

    def _note_depth(self, depth: int, node: CallNode) -> None:
        best, nodes = self.farthest
        if depth > best:
            self.farthest = (depth, [node])
        elif depth == best and len(nodes) < 5 and node not in nodes:
            nodes.append(node)

    def deepest(self) -> list[TraceNode]:
        return [TraceNode(node, None) for node in self.farthest[1]]


class _Expand:
    """_Searcher._known's answer when only expanding the node can tell what it reaches."""


_EXPAND = _Expand()


def _paths(tree: TraceNode) -> list[list[TraceNode]]:
    """Paths to the matches, shortest first, then those with the fewest uncertain hops.

    Subtrees are shared, so a tree can hold far more paths than are worth listing. The walk
    takes children nearest to a match first: the paths it meets first are the shortest, and
    the ones kept when it stops early. Every branch of the tree ends in a match, so the walk
    costs at most the length of the paths it keeps."""
    distance = _distances_to_match(tree)
    found: list[list[TraceNode]] = []
    path: list[TraceNode] = []
    stack = [(tree, 0)]
    while stack and len(found) < _PATHS_CONSIDERED:
        node, depth = stack.pop()
        del path[depth:]
        path.append(node)
        if node.matched:
            found.append(list(path))
            continue
        nearest_first = sorted(node.children, key=lambda child: distance[id(child)])
        stack += [(child, depth + 1) for child in reversed(nearest_first)]
    return sorted(found, key=lambda path: (len(path), sum(_uncertain(hop) for hop in path)))


def _distances_to_match(tree: TraceNode) -> dict[int, int]:
    """Hops from each node of the tree (by id: subtrees are shared) to its nearest match."""
    distance: dict[int, int] = {}
    stack = [tree]
    while stack:
        node = stack[-1]
        if id(node) in distance:
            stack.pop()
            continue
        unknown = [child for child in node.children if id(child) not in distance]
        if unknown:
            stack += unknown
            continue
        stack.pop()
        distance[id(node)] = 0 if node.matched else 1 + min((distance[id(child)] for child in node.children), default=1 << 20)
    return distance


def _unshared(tree: TraceNode) -> TraceNode:
    """The searcher's tree with each shared subtree written out once, where a depth-first
    walk meets it first, and marked "shown above" where it occurs again: written out in
    full, a ladder of forty diamonds would hold 2**40 nodes."""
    expanded: set[tuple] = set()
    stack: list[tuple[TraceNode, list[TraceNode]]] = [(tree, [])]
    expanded.add(tree.node.key)
    while True:
        hop, done = stack[-1]
        if len(done) < len(hop.children):
            child = hop.children[len(done)]
            if not child.children:
                done.append(child)
            elif child.node.key in expanded:
                done.append(TraceNode(child.node, child.edge, stop="shown above"))
            else:
                expanded.add(child.node.key)
                stack.append((child, []))
            continue
        stack.pop()
        rebuilt = TraceNode(hop.node, hop.edge, tuple(done), hop.stop, hop.matched)
        if not stack:
            return rebuilt
        stack[-1][1].append(rebuilt)


def _uncertain(hop: TraceNode) -> int:
    return int(hop.edge is not None and hop.edge.resolution != "exact")


@dataclass(frozen=True, slots=True)
class TraceReport:
    query: str
    backend: str
    start: CallNode
    trace: Trace
    other_matches: list[Symbol]  # further definitions the query named, not traced
    to: str | None = None  # the --to name or regex, as given
    unreadable: tuple[UnreadableDefinition, ...] = ()  # definitions whose locals libcst could not read


def trace_symbol(
    store: IndexStore, root: str, query: str, *, backend: str = "cuda", max_depth: int | None = None, to: str | None = None
) -> TraceReport:
    """`explorer trace`: resolve the query, then trace from the definition it names (an
    operator or a Python definition before a C++ one of the same name)."""
    if backend not in BACKENDS:
        raise UsageError(f"unknown backend {backend!r}; one of: {', '.join(BACKENDS)}")
    target = target_pattern(store, to) if to is not None else None
    depth = max_depth if max_depth is not None else (DEFAULT_DEPTH_TO if target is not None else DEFAULT_DEPTH)
    if depth < 1:
        raise UsageError("--max-depth must be at least 1")
    symbols = sorted(resolve(store, query).symbols, key=_start_preference)
    graph = CallGraph(store, root, backend)
    start = graph.node(symbols[0])
    found = trace(graph, start, max_depth=depth, target=target)
    return TraceReport(query, backend, start, found, symbols[1:], to, graph.python.unreadable.records())


DEFAULT_DEPTH = 6  # a whole tree this deep is already long on a real tree
DEFAULT_DEPTH_TO = 40  # a path from nn.Conv2d to cuDNN is about 25 hops on PyTorch 2.4


def _start_preference(symbol: Symbol) -> int:
    if symbol.kind is SymbolKind.OPERATOR:
        return 0
    if symbol.lang == "python":
        return 1
    return 2 if symbol.kind is not SymbolKind.EXTERNAL else 3
