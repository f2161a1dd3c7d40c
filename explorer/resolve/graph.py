"""The cross-language call graph, computed from the index one node at a time.

A node is a definition (CallNode); its edges are what it calls, resolved by the rules of its
layer: the value-flow solver (flow/) for Python functions with source, python_edges.py for
the rest of Python and the torch._C bindings, native_edges.py for operators and C++/CUDA. Edges into definitions that serve another backend than the one asked for are
dropped here (backends.py), as are edges from production code into the tree's tests unless
asked for (test_code.py), and several calls of one definition from one caller are one edge
(at the first call's line). Each node's edges are computed once per graph; those the C++
rules give (operators, C++/CUDA definitions) are kept between runs where a workspace hands over its KeptEdges
(index/kept_edges.py says why only those).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from explorer.index import IndexReader, KeptEdges, node_key_text
from explorer.model import CallEdge, CallNode, Key, Layer, Symbol, SymbolKind
from explorer.names import hidden_as_test
from explorer.resolve.backends import node_allowed
from explorer.resolve.native_edges import NativeEdges
from explorer.resolve.nodes import layer_of
from explorer.resolve.notes import UnreadableDefinition, UnreadableDefinitions
from explorer.resolve.python_edges import PythonEdges
from explorer.resolve.sources import SourceLines

if TYPE_CHECKING:
    from explorer.resolve.flow.edges import FlowEdges

_TOO_DEEP = "values flow through code nested past Python's stack; its calls are found by name"
_TOO_MUCH = "its values flow through more code than one query follows ({}); its calls are found by name"


class CallGraph:
    def __init__(
        self,
        reader: IndexReader,
        root: str,
        backend: str = "cuda",
        tests: bool = False,
        kept: KeptEdges | None = None,
    ) -> None:
        self.store = reader
        self.backend = backend
        self.tests = tests  # follow edges from production code into the tree's tests (test_code.py)
        sources = SourceLines(root)
        self.python = PythonEdges(reader, sources)
        self.native = NativeEdges(reader, backend, sources)
        self._edges: dict[Key, list[CallEdge]] = {}
        self.kept = kept
        self.unreadable = UnreadableDefinitions()  # the definitions the solver could not finish

    @functools.cached_property
    def flow(self) -> FlowEdges:
        """The value-flow solver, loaded when a Python node is first met: a walk that stays in
        C++ (the callers of a kernel) never needs it."""
        from explorer.resolve.flow.edges import FlowEdges

        return FlowEdges(self.store, self.python)

    def node(self, symbol: Symbol) -> CallNode:
        """A starting node: a class stands for calling its instances, so `self` is that class;
        a module's name a factory's call made (`max_pool2d = boolean_dispatch(...)`) stands
        for the closure it holds, under the name, at the closure's definition."""
        if symbol.kind is SymbolKind.VARIABLE and symbol.lang == "python":
            closure = self.flow.named_closure(symbol)
            if closure is not None:
                return closure
        return CallNode(symbol, layer_of(symbol), symbol.qname if symbol.kind is SymbolKind.CLASS else None)

    def read_ahead(self, nodes: list[CallNode]) -> None:
        """Say which nodes' edges are asked for next, so that those kept are read together."""
        if self.kept is not None:
            self.kept.read_ahead(
                [
                    node_key_text(node, self.backend, self.tests)
                    for node in nodes
                    if node.layer not in (Layer.PYTHON, Layer.BINDING) and node.key not in self._edges
                ]
            )

    def edges_by_site(self, node: CallNode) -> list[CallEdge]:
        """Every call the node makes: an edge per definition and call, where `edges` keeps a
        definition's first call alone (`self.relu(...)` twice is two, `g(1) + g(2)` too: the
        editor and SCIP place a reference at each; `callees` lists a line once). Worked out
        afresh, never kept."""
        return self._worked_out(node, by_site=True)

    def _worked_out(self, node: CallNode, by_site: bool) -> list[CallEdge]:
        source = self.python if node.layer in (Layer.PYTHON, Layer.BINDING) else self.native
        computed = self._flow_edges(node) if node.layer is Layer.PYTHON else None
        found: list[CallEdge] = []
        seen: set[Key] = set()
        for edge in computed if computed is not None else source.edges(node):
            if not node_allowed(edge.target, self.backend):
                continue
            if not self.tests and hidden_as_test(node.symbol.path, edge.target.symbol.path):
                continue
            place = edge.site.with_column if by_site and edge.site is not None else None
            identity = (edge.target.key, edge.kind, edge.dispatch_key, place)
            if identity not in seen:
                seen.add(identity)
                found.append(edge)
        return found

    def _flow_edges(self, node: CallNode) -> list[CallEdge] | None:
        """The solver's edges of a Python node. Where its values flow through code nested past
        Python's stack, or through more code than one start may read (a benchmark script
        reaching dynamo, FSDP and inductor), the solver is dropped (it would keep half the
        facts of what it was part way through) and the node is answered by the name rules,
        with a note."""
        from explorer.resolve.flow.solver import WorkLimitReached

        try:
            return self.flow.edges(node)
        except (RecursionError, WorkLimitReached) as stopped:
            del self.flow  # a fresh solver for the next node
            symbol = node.symbol
            reason = _TOO_DEEP if isinstance(stopped, RecursionError) else _TOO_MUCH.format(stopped)
            self.unreadable.add(UnreadableDefinition(symbol.qname, symbol.path or "", symbol.line or 0, reason))
            return None

    def edges(self, node: CallNode) -> list[CallEdge]:
        cached = self._edges.get(node.key)
        if cached is not None:
            return cached
        source = self.python if node.layer in (Layer.PYTHON, Layer.BINDING) else self.native
        kept_as = (
            node_key_text(node, self.backend, self.tests) if self.kept is not None and source is self.native else None
        )
        if kept_as is not None and self.kept is not None and (kept := self.kept.get(kept_as)) is not None:
            self._edges[node.key] = kept
            return kept
        found = self._worked_out(node, by_site=False)
        self._edges[node.key] = found
        if kept_as is not None and self.kept is not None:
            self.kept.put(kept_as, found)
        return found
