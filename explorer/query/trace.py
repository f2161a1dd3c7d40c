"""Call trees and paths from one definition: `explorer trace`.

Without a target the tree shows everything reachable within `max_depth`, each definition
expanded once (later occurrences say "shown above"), cycles cut where they close.
With a target (`--to NAME|REGEX`, see patterns.py) the paths from the start to a match are
listed best first: the cheapest by hop_cost, where an uncertain hop costs more than an exact
one and a name-only hop more than twenty, so the first path is the one a reader of the code
would call the chain, not the shortest. Paths that differ only in which overload or
specialisation one hop reaches fold into one.
"""

from __future__ import annotations

import heapq
import itertools
import math
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from explorer.errors import UsageError
from explorer.index.reader import IndexReader
from explorer.model import CallEdge, CallNode, EdgeKind, Resolution, Symbol, SymbolKind
from explorer.query.backends import BACKENDS
from explorer.query.bindings import is_out_overload
from explorer.query.graph import CallGraph
from explorer.query.lookup import resolve
from explorer.query.notes import UnreadableDefinition
from explorer.query.limits import DEFAULT_DEPTH, DEFAULT_DEPTH_TO, DEFAULT_PATHS
from explorer.query.patterns import VENDOR_TARGET, TargetPattern, target_pattern

_PATHS_CONSIDERED = 1000  # enumerated best first, before paths that differ only in overloads fold
# Partial paths tried while enumerating. Costs to a match ignore that a path may not visit a
# node twice, so around cycles the search can try many extensions that end nowhere: this
# bounds that work (a few tenths of a second); the paths found by then are the cheapest, in
# order, and the count says "at least".
_EXTENSIONS_ALLOWED = 30_000

_Item = TypeVar("_Item")


class _Queue(Generic[_Item]):
    """A priority queue that orders by priority alone. Each entry is (priority, how many
    pushes came before it, item): equal priorities go to the entry pushed first, and the items
    are never compared (a node key holds None where another holds a str: the same method
    reached with and without a known class of `self`). A priority must be totally ordered by
    itself: numbers and strings, never None."""

    def __init__(self) -> None:
        self._heap: list[tuple[tuple[float | str, ...], int, _Item]] = []
        self._pushed = itertools.count()

    def __bool__(self) -> bool:
        return bool(self._heap)

    def push(self, priority: tuple[float | str, ...], item: _Item) -> None:
        heapq.heappush(self._heap, (priority, next(self._pushed), item))

    def pop(self) -> _Item:
        return heapq.heappop(self._heap)[2]


@dataclass(frozen=True, slots=True)
class TraceNode:
    node: CallNode
    edge: CallEdge | None  # None for the start
    children: tuple[TraceNode, ...] = ()
    stop: str | None = None  # why the branch ends here: cycle, depth limit, shown above
    matched: bool = False  # the node matches `--to`


@dataclass(frozen=True, slots=True)
class Trace:
    # Without a target: the call tree. With one: the listed paths merged into one tree.
    tree: TraceNode
    paths: list[list[TraceNode]] | None  # with a target: paths from the start to a match, best first
    deepest: list[TraceNode]  # with a target and no path: the farthest nodes reached
    paths_found: int = 0  # how many distinct paths there are (after folding; up to what was enumerated)
    paths_capped: bool = False  # enumeration stopped early: there may be more than paths_found
    # With a target: every edge out of each node on the listed paths, by node key, so that a
    # diagram can show what else a hop calls (the branch not taken) beside the path.
    branches: dict[tuple, tuple[CallEdge, ...]] = field(default_factory=dict)
    # For each listed path, how many enumerated paths it stands for: paths that differ from it
    # only in which overload, specialisation or same-named definition a hop reaches.
    variants: list[int] = field(default_factory=list)


def trace(
    graph: CallGraph, start: CallNode, *, max_depth: int, target: TargetPattern | None = None, paths: int = DEFAULT_PATHS
) -> Trace:
    if target is None:
        return Trace(_Explorer(graph, max_depth).tree(start), None, [])
    reachable = _Reachable(graph, start, max_depth, target)
    if not reachable.matches:
        return Trace(TraceNode(start, None), [], reachable.deepest())
    ranked, capped = _ranked_paths(reachable, start, max_depth)
    folded = _fold_variants(ranked)
    shown = [path for path, _ in folded[:paths]]
    # The search asked for these edges already: the graph answers from its memo.
    branches = {hop.node.key: tuple(graph.edges(hop.node)) for path in shown for hop in path if not hop.matched}
    return Trace(_merged(shown), shown, [], len(folded), capped, branches, [count for _, count in folded[:paths]])
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



class _Reachable:
    """What a trace with a target can use: every node within `max_depth` hops of the start,
    found breadth first (so each node is met at its least depth, whatever order the edges come
    in), the edges among them, and the nodes matching the target (not expanded: a path ends at
    the first match). Then, backwards from the matches, each node's cheapest cost and fewest
    hops to a match: the nodes with none are off every path. Nothing here depends on the
    order of a node's edges, so neither do the paths."""

    def __init__(self, graph: CallGraph, start: CallNode, max_depth: int, target: TargetPattern) -> None:
        self.edges: dict[tuple, list[CallEdge]] = {}
        self.depth: dict[tuple, int] = {start.key: 0}
        self.nodes: dict[tuple, CallNode] = {start.key: start}
        self.matches: set[tuple] = set()
        self._steps: dict[tuple, list[tuple[CallEdge, tuple, float]]] = {}
        frontier = [start]
        for depth in range(1, max_depth + 1):
            following: list[CallNode] = []
            for node in frontier:
                edges = self.edges[node.key] = graph.edges(node)
                for edge in edges:
                    key = edge.target.key
                    if key in self.depth:
                        continue
                    self.depth[key] = depth
                    self.nodes[key] = edge.target
                    if target.matches_symbol(edge.target.symbol):
                        self.matches.add(key)
                    else:
                        following.append(edge.target)
            frontier = following
        self.cost_to_match, self.hops_to_match = self._backwards()

    def _backwards(self) -> tuple[dict[tuple, float], dict[tuple, int]]:
        callers: dict[tuple, list[tuple[tuple, float]]] = {}
        for key, edges in self.edges.items():
            for edge in edges:
                callers.setdefault(edge.target.key, []).append((key, hop_cost(edge)))
        cost = {key: 0.0 for key in self.matches}
        queue: _Queue[tuple[float, tuple]] = _Queue()
        for key in sorted(self.matches, key=repr):
            queue.push((0.0,), (0.0, key))
        while queue:  # Dijkstra from the matches, along edges reversed
            reached, key = queue.pop()
            if reached > cost[key]:
                continue
            for caller, step in callers.get(key, ()):
                if caller in self.matches:
                    continue  # a match ends its path
                if reached + step < cost.get(caller, math.inf):
                    cost[caller] = reached + step
                    queue.push((reached + step,), (reached + step, caller))
        hops = {key: 0 for key in self.matches}
        level = list(self.matches)
        while level:
            following = []
            for key in level:
                for caller, _ in callers.get(key, ()):
                    if caller not in hops and caller not in self.matches:
                        hops[caller] = hops[key] + 1
                        following.append(caller)
            level = following
        return cost, hops

    def steps(self, key: tuple) -> list[tuple[CallEdge, tuple, float]]:
        """The edges out of a node with their targets' keys and their costs, worked out once."""
        found = self._steps.get(key)
        if found is None:
            found = self._steps[key] = [(edge, edge.target.key, hop_cost(edge)) for edge in self.edges.get(key, ())]
        return found

    def deepest(self) -> list[TraceNode]:
        """Up to five of the nodes farthest from the start, in name order."""
        farthest = max(self.depth.values())
        nodes = sorted((node for key, node in self.nodes.items() if self.depth[key] == farthest),
                       key=lambda node: (node.symbol.qname, node.symbol.path or "", node.symbol.line or 0))
        return [TraceNode(node, None) for node in nodes[:5]]


_UNLIKELY = 20.0  # as much as twenty exact hops: any path that avoids such a hop comes first


def hop_cost(edge: CallEdge) -> float:
    """What a hop costs a path: one, plus more the less certain it is. An ambiguous hop costs
    more the more candidates it had (an #if with two sides, less than a name with twelve
    definitions). A name-only hop (a method of an object of unknown type), and an `out=`
    overload taken by a binding or method call that is not known to pass `out=`, cost
    _UNLIKELY (a name-only hop with several candidates, more again as an ambiguous one)."""
    if edge.resolution is Resolution.NAME:
        return _UNLIKELY + (math.log2(max(2, candidate_count(edge))) if edge.candidates else 0.0)
    if edge.kind in (EdgeKind.BINDING, EdgeKind.METHOD) and edge.target.symbol.kind is SymbolKind.OPERATOR and is_out_overload(edge.target.symbol):
        return _UNLIKELY
    if edge.resolution is Resolution.AMBIGUOUS:
        # a specialisation the call's types did not choose: after the general definition
        return 1.0 + math.log2(max(2, candidate_count(edge))) + (0.5 if edge.specialised else 0.0)
    return 1.0


def candidate_count(edge: CallEdge) -> int:
    """How many definitions an ambiguous edge had (fan_out lists a dozen, then "... and N more")."""
    count = len(edge.candidates)
    if edge.candidates and edge.candidates[-1].startswith("... and "):
        count += int(edge.candidates[-1].split()[2]) - 1
    return count


@dataclass(frozen=True, slots=True)
class _Partial:
    """A path being extended, as a link to the path it extends: thousands share prefixes."""

    node: CallNode
    key: tuple  # node.key, computed once: the walk below compares it many times
    edge: CallEdge | None
    before: _Partial | None
    hops: int
    cost: float

    def visits(self, key: tuple) -> bool:
        partial: _Partial | None = self
        while partial is not None:
            if partial.key == key:
                return True
            partial = partial.before
        return False

    def hops_list(self, reachable: _Reachable) -> list[TraceNode]:
        found: list[TraceNode] = []
        partial: _Partial | None = self
        while partial is not None:
            found.append(TraceNode(partial.node, partial.edge, matched=partial.node.key in reachable.matches))
            partial = partial.before
        return found[::-1]


def _ranked_paths(reachable: _Reachable, start: CallNode, max_depth: int) -> tuple[list[list[TraceNode]], bool]:
    """Paths from the start to a match, cheapest first (A*, with each node's exact cost to a
    match as the estimate, so paths come out in order of cost and the first ones are found
    first), no node twice on one path, none longer than `max_depth`. Ties go to the path
    with fewer hops, then to the order of names, so the order is the same on every run.
    Returns the paths and whether enumeration stopped before running out of them."""
    cost_to_match, hops_to_match = reachable.cost_to_match, reachable.hops_to_match
    if start.key not in cost_to_match:
        return [], False
    queue: _Queue[_Partial] = _Queue()
    queue.push((cost_to_match[start.key], 0, ""), _Partial(start, start.key, None, None, 0, 0.0))
    found: list[list[TraceNode]] = []
    extensions = 0
    while queue and len(found) < _PATHS_CONSIDERED and extensions < _EXTENSIONS_ALLOWED:
        partial = queue.pop()
        if partial.key in reachable.matches:
            found.append(partial.hops_list(reachable))
            continue
        for edge, key, step in reachable.steps(partial.key):
            if key not in cost_to_match or partial.hops + 1 + hops_to_match[key] > max_depth or partial.visits(key):
                continue
            extensions += 1
            cost = partial.cost + step
            order = (round(cost + cost_to_match[key], 6), partial.hops + 1 + hops_to_match[key], edge.target.symbol.qname)
            queue.push(order, _Partial(edge.target, key, edge, partial, partial.hops + 1, cost))
    return found, bool(queue)


def _fold_variants(paths: list[list[TraceNode]]) -> list[tuple[list[TraceNode], int]]:
    """Paths that name the same definitions by the same kinds of hop, differing only in which
    overload, template specialisation or same-named definition a hop reaches, are one path
    (the best of them) and a count."""
    folded: dict[tuple, list] = {}
    for path in paths:
        shape = tuple((hop.node.symbol.qname, hop.edge.label if hop.edge else None) for hop in path)
        if shape in folded:
            folded[shape][1] += 1
        else:
            folded[shape] = [path, 1]
    return [(path, count) for path, count in folded.values()]


def _merged(paths: list[list[TraceNode]]) -> TraceNode:
    """The listed paths as one tree: shared prefixes once, each path a branch."""
    children: dict[int, dict[tuple, int]] = {}  # node index -> child key -> node index
    hops: list[TraceNode] = [paths[0][0]]
    below: list[list[int]] = [[]]
    for path in paths:
        at = 0
        for hop in path[1:]:
            key = (hop.node.key, hop.edge.label if hop.edge else None, hop.edge.site if hop.edge else None)
            index = children.setdefault(at, {}).get(key)
            if index is None:
                index = children[at][key] = len(hops)
                hops.append(hop)
                below.append([])
                below[at].append(index)
            at = index
    built: dict[int, TraceNode] = {}
    for index in range(len(hops) - 1, -1, -1):  # children always come after their parent
        hop = hops[index]
        built[index] = TraceNode(hop.node, hop.edge, tuple(built[child] for child in below[index]), hop.stop, hop.matched)
    return built[0]


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
    store: IndexReader, root: str, query: str, *, backend: str = "cuda", max_depth: int | None = None, to: str | None = None,
    paths: int = DEFAULT_PATHS, to_vendor: bool = False, tests: bool = False,
) -> TraceReport:
    """`explorer trace`: resolve the query, then trace from the definition it names (an
    operator or a Python definition before a C++ one of the same name). `to_vendor`: the
    paths to any vendor API call (an editor's "trace to vendor call"). `tests`: follow edges
    from production code into the tree's tests too (test_code.py)."""
    if backend not in BACKENDS:
        raise UsageError(f"unknown backend {backend!r}; one of: {', '.join(BACKENDS)}")
    target = VENDOR_TARGET if to_vendor else target_pattern(store, to) if to is not None else None
    depth = max_depth if max_depth is not None else (DEFAULT_DEPTH_TO if target is not None else DEFAULT_DEPTH)
    if depth < 1:
        raise UsageError("--max-depth must be at least 1")
    if paths < 1:
        raise UsageError("--paths must be at least 1")
    graph = CallGraph(store, root, backend, tests)
    # an `@overload` declaration has no body to trace: the implementation beside it does
    symbols = sorted(graph.python.implementations(resolve(store, query).symbols), key=_start_preference)
    start = graph.node(symbols[0])
    found = trace(graph, start, max_depth=depth, target=target, paths=paths)
    return TraceReport(query, backend, start, found, symbols[1:], to, graph.python.unreadable.records())




def _start_preference(symbol: Symbol) -> int:
    """Operators first, then Python, then C++ definitions that call something (a
    REGISTER_DISPATCH line or a macro names a stub or a kernel; it runs nothing itself)."""
    if symbol.kind is SymbolKind.OPERATOR:
        return 0
    if symbol.lang == "python":
        return 1
    if symbol.kind in (SymbolKind.DISPATCH_REGISTRATION, SymbolKind.MACRO, SymbolKind.NAMESPACE):
        return 3
    return 2 if symbol.kind is not SymbolKind.EXTERNAL else 4

