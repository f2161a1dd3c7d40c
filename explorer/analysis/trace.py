"""Call trees and paths from one definition: `explorer trace`.

Without a target the tree shows everything reachable within `max_depth`, each definition
expanded once (later occurrences say "shown above"), cycles cut where they close.
With a target (`--to NAME|REGEX`, see patterns.py) the paths from the start to a match are
listed best first: the cheapest by hop_cost, where an uncertain hop costs more than an exact
one and a name-only hop more than twenty, so the first path is the one a reader of the code
would call the chain, not the shortest. Paths that differ only in which overload or
specialisation one hop reaches fold into one.

A name with several overloads (`torch.add`, whose binding runs one of `aten::add.Tensor`,
`aten::add.Scalar` and `aten::add.out`; a C++ function overloaded; a Python name defined in
several places) is one entry: the trace starts from the name, each overload a starting point
below it, and the paths from the overload a plain call takes come first (Entry).
"""

from __future__ import annotations

import heapq
import itertools
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from explorer.analysis.limits import DEFAULT_DEPTH, DEFAULT_DEPTH_TO, DEFAULT_PATHS
from explorer.errors import UsageError
from explorer.index import IndexReader
from explorer.model import CallEdge, CallNode, EdgeKind, Key, Layer, Location, Resolution, Symbol, SymbolKind
from explorer.names import (
    VENDOR_TARGET,
    NameMatch,
    TargetPattern,
    binding_operators,
    binding_symbol,
    is_out_overload,
    look_up,
    matches_nothing,
    plain_call_order,
    suggestions,
    target_pattern,
)
from explorer.resolve import BACKENDS, CallGraph, UnreadableDefinition, layer_of

if TYPE_CHECKING:
    from explorer.index import KeptEdges

_PATHS_CONSIDERED = 1000  # enumerated best first, before paths that differ only in overloads fold
# Partial paths tried while enumerating. Costs to a match ignore that a path may not visit a
# node twice, so around cycles the search can try many extensions that end nowhere: this
# bounds that work (a few tenths of a second); the paths found by then are the cheapest, in
# order, and the count says "at least".
_EXTENSIONS_ALLOWED = 30_000
_OVERLOADS_FOLLOWED = 12  # as many as an ambiguous call follows (nodes.fan_out): `main` is defined in hundreds of files

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
    branches: dict[Key, tuple[CallEdge, ...]] = field(default_factory=dict)
    # For each listed path, how many enumerated paths it stands for: paths that differ from it
    # only in which overload, specialisation or same-named definition a hop reaches.
    variants: list[int] = field(default_factory=list)
    # For each listed path, those other paths themselves (variants[i] - 1 of them).
    variant_paths: list[list[list[TraceNode]]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Overload:
    """One starting point of an entry: an overload, where it stands, and why."""

    edge: CallEdge  # from the entry's root to the overload
    rank: int  # 1-based place in the entry's order
    why: str  # the rule that places it ("a plain call takes it", "out= only"); "" where nothing ranks them
    tier: int  # paths from a lower tier come first; equal tiers rank by cost alone

    @property
    def node(self) -> CallNode:
        return self.edge.target


@dataclass(frozen=True, slots=True)
class Entry:
    """A name with several overloads, traced as one: its root and each overload below it.

    - The operators a torch._C binding runs (`torch.add`, typed as the user calls it): the
      root is the binding (its `.pyi` stub where the tree has one, else the generated binding),
      its `binding` edges the overloads, in the order a plain call tries them
      (lookup.plain_call_order); paths from the first, the overload a plain call takes, come
      first, then those from the second, and so on.
    - Operators of one name typed as such (`conv2d`, `add`): the root is the operator name
      (`aten::conv2d`, what torch.ops calls the overload packet), ranked the same way.
    - One qualified name defined several times (C++ overloads, a Python name defined on both
      sides of an `if`): the root is the name; with no call to choose by, nothing ranks one
      overload before another, and their paths rank by cost alone. The root is no definition
      (it has no location): `call` edges lead from it to each.
    At most _OVERLOADS_FOLLOWED overloads are followed, the first in the order; `count` says
    how many there are."""

    root: CallNode
    overloads: tuple[Overload, ...]
    count: int
    ranked: bool  # the order says which overload a plain call takes (operators)
    made: bool  # the root was made for the entry (no definition of its own): its hop adds to --max-depth
    noun: str = "overload"  # "definition" for a Python name defined several times

    def overload_of(self, path: list[TraceNode]) -> Overload | None:
        """The overload a path (or a hop below the root) starts from."""
        if len(path) < 2:
            return None
        key = path[1].node.key
        return next((overload for overload in self.overloads if overload.node.key == key), None)

    def at(self, node: CallNode) -> Overload | None:
        return next((overload for overload in self.overloads if overload.node.key == node.key), None)


class _Edges(Protocol):
    def edges(self, node: CallNode) -> list[CallEdge]: ...

    def read_ahead(self, nodes: list[CallNode]) -> None: ...


class _EntryGraph:
    """The call graph with the entry's root leading to its overloads, in their order."""

    def __init__(self, graph: _Edges, entry: Entry) -> None:
        self.graph = graph
        self.root = entry.root.key
        self.starts = [overload.edge for overload in entry.overloads]

    def edges(self, node: CallNode) -> list[CallEdge]:
        return list(self.starts) if node.key == self.root else self.graph.edges(node)

    def read_ahead(self, nodes: list[CallNode]) -> None:
        self.graph.read_ahead(nodes)


def trace(
    graph: _Edges,
    start: CallNode,
    *,
    max_depth: int,
    target: TargetPattern | None = None,
    paths: int = DEFAULT_PATHS,
    entry: Entry | None = None,
) -> Trace:
    """The tree or the paths from `start`; with an entry, `start` is its root and the walk
    goes from the root to each overload, the paths ranked by the overload they start from."""
    if entry is not None:
        graph = _EntryGraph(graph, entry)
    if target is None:
        return Trace(_Explorer(graph, max_depth).tree(start), None, [])
    reachable = _Reachable(graph, start, max_depth, target)
    if not reachable.matches:
        return Trace(TraceNode(start, None), [], reachable.deepest())
    tiers = {overload.node.key: overload.tier for overload in entry.overloads} if entry is not None else {}
    ranked, capped = _ranked_paths(reachable, start, max_depth, tiers)
    folded = _fold_variants(ranked, by_start=entry is not None)
    shown = [group[0] for group in folded[:paths]]
    # The search asked for these edges already: the graph answers from its memo.
    branches = {hop.node.key: tuple(graph.edges(hop.node)) for path in shown for hop in path if not hop.matched}
    return Trace(
        _merged(shown),
        shown,
        [],
        len(folded),
        capped,
        branches,
        [len(group) for group in folded[:paths]],
        [group[1:] for group in folded[:paths]],
    )


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
    def __init__(self, graph: _Edges, max_depth: int) -> None:
        self.graph = graph
        self.max_depth = max_depth
        self.expanded: set[Key] = set()

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

    def _leaf(
        self, node: CallNode, edge: CallEdge | None, depth: int, above: set[Key]
    ) -> tuple[TraceNode | None, list[CallEdge]]:
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

    def __init__(self, graph: _Edges, start: CallNode, max_depth: int, target: TargetPattern) -> None:
        self.edges: dict[Key, list[CallEdge]] = {}
        self.depth: dict[Key, int] = {start.key: 0}
        self.nodes: dict[Key, CallNode] = {start.key: start}
        self.matches: set[Key] = set()
        self._steps: dict[Key, list[tuple[CallEdge, Key, float]]] = {}
        frontier = [start]
        for depth in range(1, max_depth + 1):
            if not frontier:
                break  # all within reach is found: a --max-depth of 10**23 ends here too
            following: list[CallNode] = []
            graph.read_ahead(frontier)
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

    def _backwards(self) -> tuple[dict[Key, float], dict[Key, int]]:
        callers: dict[Key, list[tuple[Key, float]]] = {}
        for key, edges in self.edges.items():
            for edge in edges:
                callers.setdefault(edge.target.key, []).append((key, hop_cost(edge)))
        cost = dict.fromkeys(self.matches, 0.0)
        queue: _Queue[tuple[float, Key]] = _Queue()
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
        hops = dict.fromkeys(self.matches, 0)
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

    def steps(self, key: Key) -> list[tuple[CallEdge, Key, float]]:
        """The edges out of a node with their targets' keys and their costs, worked out once."""
        found = self._steps.get(key)
        if found is None:
            found = self._steps[key] = [(edge, edge.target.key, hop_cost(edge)) for edge in self.edges.get(key, ())]
        return found

    def deepest(self) -> list[TraceNode]:
        """Up to five of the nodes farthest from the start, in name order."""
        farthest = max(self.depth.values())
        nodes = sorted(
            (node for key, node in self.nodes.items() if self.depth[key] == farthest),
            key=lambda node: (node.symbol.qname, node.symbol.path or "", node.symbol.line or 0),
        )
        return [TraceNode(node, None) for node in nodes[:5]]


_UNLIKELY = 20.0  # as much as twenty exact hops: any path that avoids such a hop comes first
_OFF_DEFAULT = 6.0  # a branch taken only when asked: after the default one, unless that is far longer


def hop_cost(edge: CallEdge) -> float:
    """What a hop costs a path: one, plus more the less certain it is. An ambiguous hop costs
    more the more candidates it had (an #if with two sides, less than a name with twelve
    definitions). A name-only hop (a method of an object of unknown type), and an `out=`
    overload taken by a binding or method call that is not known to pass `out=`, cost
    _UNLIKELY (a name-only hop with several candidates, more again as an ambiguous one). A
    factory-made function's branch that a plain call does not take costs _OFF_DEFAULT."""
    if edge.off_default:
        return _OFF_DEFAULT
    if edge.resolution is Resolution.NAME:
        return _UNLIKELY + (math.log2(max(2, candidate_count(edge))) if edge.candidates else 0.0)
    if (
        edge.kind in (EdgeKind.BINDING, EdgeKind.METHOD)
        and edge.target.symbol.kind is SymbolKind.OPERATOR
        and is_out_overload(edge.target.symbol)
    ):
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
    key: Key  # node.key, computed once: the walk below compares it many times
    edge: CallEdge | None
    before: _Partial | None
    hops: int
    cost: float

    def visits(self, key: Key) -> bool:
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


def _ranked_paths(
    reachable: _Reachable, start: CallNode, max_depth: int, tiers: dict[Key, int] | None = None
) -> tuple[list[list[TraceNode]], bool]:
    """Paths from the start to a match, cheapest first (A*, with each node's exact cost to a
    match as the estimate, so paths come out in order of cost and the first ones are found
    first), no node twice on one path, none longer than `max_depth`. Ties go to the path
    with fewer hops, then to the order of names, so the order is the same on every run.
    With an entry, `tiers` gives each overload's tier (by the key of its node, the first
    hop): every path from a lower tier comes before any path from a higher one, and within a
    tier they come by cost. Each tier is searched in turn with an equal share of what is left
    of the budgets (paths and extensions), so that a tier whose search ends nowhere (around
    cycles) leaves the next ones their turn.
    Returns the paths and whether enumeration stopped before running out of them."""
    if start.key not in reachable.cost_to_match:
        return [], False
    if not tiers or len(set(tiers.values())) < 2:
        found, capped, _ = _search(reachable, start, max_depth, None, _PATHS_CONSIDERED, _EXTENSIONS_ALLOWED)
        return found, capped
    order = sorted(set(tiers.values()))
    found, capped = [], False
    paths_left, extensions_left = _PATHS_CONSIDERED, _EXTENSIONS_ALLOWED
    for number, tier in enumerate(order):
        share = len(order) - number
        first = {key for key, value in tiers.items() if value == tier}
        more, stopped, used = _search(reachable, start, max_depth, first, paths_left // share, extensions_left // share)
        found += more
        capped = capped or stopped
        paths_left -= len(more)
        extensions_left -= used
    return found, capped


def _search(
    reachable: _Reachable,
    start: CallNode,
    max_depth: int,
    first: set[Key] | None,
    paths: int,
    extensions_allowed: int,
) -> tuple[list[list[TraceNode]], bool, int]:
    """The A* of _ranked_paths, its first hop kept to `first` (None: any): the paths, whether
    it stopped before running out of them, and the extensions it tried."""
    cost_to_match, hops_to_match = reachable.cost_to_match, reachable.hops_to_match
    queue: _Queue[_Partial] = _Queue()
    queue.push((cost_to_match[start.key], 0, ""), _Partial(start, start.key, None, None, 0, 0.0))
    found: list[list[TraceNode]] = []
    extensions = 0
    while queue and len(found) < paths and extensions < extensions_allowed:
        partial = queue.pop()
        if partial.key in reachable.matches:
            found.append(partial.hops_list(reachable))
            continue
        for edge, key, step in reachable.steps(partial.key):
            if key not in cost_to_match or partial.hops + 1 + hops_to_match[key] > max_depth or partial.visits(key):
                continue
            if first is not None and partial.before is None and key not in first:
                continue
            extensions += 1
            cost = partial.cost + step
            order = (
                round(cost + cost_to_match[key], 6),
                partial.hops + 1 + hops_to_match[key],
                edge.target.symbol.qname,
            )
            queue.push(order, _Partial(edge.target, key, edge, partial, partial.hops + 1, cost))
    return found, bool(queue), extensions


def _fold_variants(paths: list[list[TraceNode]], by_start: bool = False) -> list[list[list[TraceNode]]]:
    """Paths that name the same definitions by the same kinds of hop, differing only in which
    overload, template specialisation or same-named definition a hop reaches, are one group,
    the best of them first (the one listed). `by_start`: the first hop is an entry's overload,
    and paths from different overloads stay apart, whatever their names."""
    folded: dict[Key, list[list[TraceNode]]] = {}
    for path in paths:
        first = path[1].node.key if by_start and len(path) > 1 else None
        shape = (first, *((hop.node.symbol.qname, hop.edge.label if hop.edge else None) for hop in path))
        folded.setdefault(shape, []).append(path)
    return list(folded.values())


def _merged(paths: list[list[TraceNode]]) -> TraceNode:
    """The listed paths as one tree: shared prefixes once, each path a branch."""
    children: dict[int, dict[Key, int]] = {}  # node index -> child key -> node index
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
        built[index] = TraceNode(
            hop.node, hop.edge, tuple(built[child] for child in below[index]), hop.stop, hop.matched
        )
    return built[0]


@dataclass(frozen=True, slots=True)
class TraceReport:
    query: str
    backend: str
    start: CallNode
    trace: Trace
    other_matches: list[Symbol]  # further definitions the query named, not traced
    to: str | None = None  # the --to name or regex, as given
    unreadable: tuple[UnreadableDefinition, ...] = ()  # definitions the solver could not finish
    entry: Entry | None = None  # the query names several overloads: `start` is their root
    # --to names nothing in the trees: the names closest to it, and no walk was made
    target_closest: list[str] | None = None


def trace_symbol(
    reader: IndexReader,
    root: str,
    query: str,
    *,
    backend: str = "cuda",
    max_depth: int | None = None,
    to: str | None = None,
    paths: int = DEFAULT_PATHS,
    to_vendor: bool = False,
    tests: bool = False,
    kept: KeptEdges | None = None,
) -> TraceReport:
    """`explorer trace`: resolve the query, then trace from the definition it names (an
    operator or a Python definition before a C++ one of the same name), or from all the
    overloads of that name as one entry (Entry). `to_vendor`: the
    paths to any vendor API call (an editor's "trace to vendor call"). `tests`: follow edges
    from production code into the tree's tests too (test_code.py)."""
    if backend not in BACKENDS:
        raise UsageError(f"unknown backend {backend!r}; one of: {', '.join(BACKENDS)}")
    target = VENDOR_TARGET if to_vendor else target_pattern(reader, to) if to is not None else None
    depth = max_depth if max_depth is not None else (DEFAULT_DEPTH_TO if target is not None else DEFAULT_DEPTH)
    if depth < 1:
        raise UsageError("--max-depth must be at least 1")
    if paths < 1:
        raise UsageError("--paths must be at least 1")
    graph = CallGraph(reader, root, backend, tests, kept)
    named = look_up(reader, query)
    # an `@overload` declaration has no body to trace: the implementation beside it does
    symbols = sorted(graph.python.implementations(named.symbols), key=_start_preference)
    entry, others = _entry(reader, graph, named, symbols)
    start = entry.root if entry is not None else graph.node(symbols[0])
    if entry is not None and entry.made:
        depth += 1  # the root is no definition: --max-depth counts from the overloads
    if target is not None and to is not None and matches_nothing(reader, target):
        nothing = Trace(TraceNode(start, None), [], [])
        return TraceReport(query, backend, start, nothing, others, to, (), entry, suggestions(reader, to))
    found = trace(graph, start, max_depth=depth, target=target, paths=paths, entry=entry)
    return TraceReport(query, backend, start, found, others, to, graph.unreadable.records(), entry)


# What has overloads: a definition a call runs. A dispatch stub's DECLARE_DISPATCH and
# DEFINE_DISPATCH lines share its name and are one stub; a struct's specialisations are no call.
_OVERLOADABLE = frozenset(
    {
        SymbolKind.FUNCTION,
        SymbolKind.METHOD,
        SymbolKind.CLASS,
        SymbolKind.ALIAS,
        SymbolKind.KERNEL,
        SymbolKind.STRUCTURED_KERNEL,
    }
)


def _entry(
    reader: IndexReader, graph: CallGraph, named: NameMatch, symbols: list[Symbol]
) -> tuple[Entry | None, list[Symbol]]:
    """The entry the query names, if it names several overloads of one name (Entry), and the
    definitions it names besides, not traced."""
    first = symbols[0]
    if named.binding is not None and all(s.kind is SymbolKind.OPERATOR for s in symbols):
        # the generated binding of the operators: `torch.add` on a tree without torch/_C stubs
        root = CallNode(binding_symbol(reader, named.binding, symbols), Layer.BINDING)
        return _binding_entry(root, symbols), []
    if (
        layer_of(first) is Layer.BINDING
        and first.lang == "python"
        and first.kind not in (SymbolKind.PYBIND, SymbolKind.METHOD_TABLE)
    ):
        # a torch._C stub (its `@overload` declarations are one binding): the operators it runs
        operators = binding_operators(reader, first.qname)
        others = [s for s in symbols if s.qname != first.qname]
        return _binding_entry(graph.node(first), operators), others
    if first.kind is SymbolKind.OPERATOR:
        name = first.qname.split(".")[0]  # aten::add.Tensor -> aten::add
        group = [s for s in symbols if s.kind is SymbolKind.OPERATOR and s.qname.split(".")[0] == name]
    elif first.kind in _OVERLOADABLE:
        name = first.qname
        group = [s for s in symbols if s.qname == name and s.kind in _OVERLOADABLE]
    else:  # a dispatch stub's DECLARE and DEFINE lines, a macro: one thing written in several places
        group = [first]
    if len(group) < 2:
        return None, symbols[1:]
    others = [s for s in symbols if s not in group]
    noun = "definition" if first.lang == "python" else "overload"
    made = Symbol(
        name,
        name.rpartition("::")[2].rpartition(".")[2],
        first.kind,
        first.lang,
        None,
        None,
        None,
        f"{len(group)} {noun}s",
    )
    root = CallNode(made, layer_of(first))
    if first.kind is SymbolKind.OPERATOR:
        ordered = plain_call_order(group)
        ranked = True
    else:  # nothing chooses between them without a call: source order, one tier
        ordered = [(symbol, "") for symbol in group]
        ranked = False
    followed = ordered[:_OVERLOADS_FOLLOWED]
    candidates = _candidates([symbol for symbol, _ in followed], len(group))
    overloads = tuple(
        Overload(
            CallEdge(graph.node(symbol), EdgeKind.CALL, Resolution.AMBIGUOUS, candidates),
            number,
            why,
            number if ranked else 0,
        )
        for number, (symbol, why) in enumerate(followed, start=1)
    )
    return Entry(root, overloads, len(group), ranked, True, noun), others


def _binding_entry(root: CallNode, operators: list[Symbol]) -> Entry | None:
    """The overloads a binding runs, as PyTorch's argument parser tries them for a plain call."""
    if len(operators) < 2:
        return None
    site = Location(root.symbol.path, root.symbol.line or 0) if root.symbol.path is not None else None
    followed = plain_call_order(operators)[:_OVERLOADS_FOLLOWED]
    candidates = _candidates([operator for operator, _ in followed], len(operators))
    overloads = tuple(
        Overload(
            CallEdge(CallNode(operator, Layer.YAML), EdgeKind.BINDING, Resolution.AMBIGUOUS, candidates, site),
            number,
            why,
            number,
        )
        for number, (operator, why) in enumerate(followed, start=1)
    )
    return Entry(root, overloads, len(operators), True, False)


def _candidates(symbols: list[Symbol], count: int) -> tuple[str, ...]:
    """An ambiguous edge's candidates, written as nodes.fan_out writes them."""
    named = tuple(f"{s.qname} ({s.path}:{s.line})" if s.path else s.qname for s in symbols)
    return named + ((f"... and {count - len(symbols)} more",) if count > len(symbols) else ())


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
