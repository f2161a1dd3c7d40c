"""Lays a run's call tree over the static call graph.

Every caller -> callee pair of the run whose two ends are definitions of the index is looked
up among the static edges of the caller (the same CallGraph that `trace` walks):
- confirmed: a static edge leads there, directly or through aliases (`F.conv2d` is
  `torch.conv2d`: the run goes straight to the binding the alias names);
- dynamic only: no static edge does. Each is a call the static analysis missed;
- not taken: static edges of a caller that ran but never made that call in this run, listed
  with the calls it made instead (the branch taken).
Frames entered implicitly (a property, __getattr__, an operator) and import frames are not
compared: no call expression in the source stands for them.

The bundled runtime records every native call. Real PyTorch (`run --python`) records only
operators, CUDA API calls and kernels: there a native caller's callee is confirmed when the
static graph reaches it through C++ definitions the profiler could not see (at::native::
sign_out -> ... -> a launch of vectorized_elementwise_kernel), within a bounded search, and
static edges to such definitions are not listed as not taken. A CUDA API call it records
beneath an operator may be made by the operator's code or inside a vendor library that code
calls (cuDNN sets itself up with some forty): one that no static edge reaches is kept apart as
unattributed, not counted as a call the static analysis missed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from explorer.analysis import TraceReport
from explorer.index import IndexReader
from explorer.model import CallEdge, CallNode, EdgeKind, Language, Layer, Location, Symbol, SymbolKind
from explorer.resolve import CallGraph, SourceLines
from explorer.runtime.launcher import UNTRACED_FILES
from explorer.runtime.model import Reach, RunFrame
from explorer.runtime.naming import special_member

_UNCOMPARED = (Reach.IMPLICIT, Reach.IMPORT)
# Hops a run passes through without a frame: an alias; a structured operator's `.out`
# delegate, whose kernel the structured kernel runs directly (no dispatch, so no operator event).
_TRANSPARENT_KINDS = (EdgeKind.ALIAS, EdgeKind.STRUCTURED)
_ALIAS_DEPTH = 4
_CONSTRUCTORS = ("__new__", "__init__")
# How far a callee is looked for through definitions a profiler does not record: a kernel
# launch lies 8-12 C++ calls below an operator's kernel on PyTorch 2.4.
_UNRECORDED_DEPTH = 14
_UNRECORDED_NODES = 4000
_FACTORY_VALUE = re.compile(r"=\s*([A-Za-z_]\w*)\(")


@dataclass(frozen=True, slots=True)
class RunEdge:
    caller: RunFrame
    callee: RunFrame
    static_label: str | None  # the static edge's label (CallEdge.label) when confirmed


@dataclass(frozen=True, slots=True)
class NotTaken:
    caller: RunFrame
    edge: CallEdge  # the static edge the run did not take
    taken: tuple[str, ...]  # what the caller called instead, by name


@dataclass(frozen=True, slots=True)
class Comparison:
    backend: str
    confirmed: tuple[RunEdge, ...]
    dynamic_only: tuple[RunEdge, ...]
    not_taken: tuple[NotTaken, ...]
    unindexed: tuple[str, ...]  # frames of the run the index has no definition for
    # a profiled run's API calls under an operator that no static edge reaches: the operator's
    # code or a vendor library it calls made them, the profiler does not say which
    unattributed: tuple[RunEdge, ...] = ()


def compare_run(
    reader: IndexReader, root: str, tree: RunFrame, backend: str = "all", every_native_call: bool = True
) -> Comparison:
    """Walk the run from the program down, each frame matched to a graph node in the context
    its caller reached it with (the class of `self`, the functions passed to it), as a static
    trace would have it. `every_native_call`: the run recorded every C++ call (the bundled
    runtime), not only operators, CUDA API calls and kernels (a profiler)."""
    graph = CallGraph(reader, root, backend)
    matcher = _Matcher(reader, graph, root, every_native_call)
    confirmed: list[RunEdge] = []
    dynamic_only: list[RunEdge] = []
    not_taken: list[NotTaken] = []
    unattributed: list[RunEdge] = []
    seen: set[tuple[object, ...]] = set()
    checked: set[tuple[object, ...]] = set()
    # each frame, the node its caller's static edge reached it as, and its caller's node
    stack: list[tuple[RunFrame, CallNode | None, CallNode | None]] = [
        (child, None, None) for child in reversed(tree.children)
    ]
    while stack:
        frame, reached, caller_node = stack.pop()
        if frame.reach is Reach.IMPORT:
            continue
        called = [c for c in frame.children if _compared(c) and matcher.node(c) is not None]
        node = reached or matcher.node(frame)
        if node is None:
            stack.extend((child, None, None) for child in reversed(frame.children))
            continue
        node = matcher.with_receiver(node, frame) or matcher.receiver_node(node, called)
        if node.layer is Layer.BINDING:
            # What a binding runs besides the operators it binds is the extension module's own
            # code (a number made a tensor, Tensor.size, Tensor.to), which no edge links to.
            method = node.symbol.qname.rpartition(".")[2]
            called = [
                c for c in called if c.layer is Layer.YAML and c.name.removeprefix("aten::").split(".")[0] == method
            ]
        onward: dict[int, CallNode | None] = {}
        for callee in called:
            if not matcher.made_in_body(node, callee):
                continue  # made by a destructor or a deleter run on the caller's behalf
            static = matcher.static_edge(node, callee) or matcher.passed_in(caller_node, callee)
            identity = (node.key, callee.name)
            if identity not in seen:
                seen.add(identity)
                if static is not None:
                    confirmed.append(RunEdge(frame, callee, static.label))
                elif not every_native_call and callee.layer is Layer.VENDOR and callee.reach is Reach.PROFILED:
                    unattributed.append(RunEdge(frame, callee, None))
                else:
                    dynamic_only.append(RunEdge(frame, callee, None))
            onward[id(callee)] = (
                matcher.onward(node, static, callee)
                if static is not None and static.target.symbol.qname == callee.name
                else None
            )
        # A kernel's body runs once per emulated thread and is not recorded (the launcher
        # reports the launch alone): what it calls cannot be told from the run.
        if node.key not in checked and node.symbol.kind is not SymbolKind.KERNEL:
            checked.add(node.key)
            names = {callee.name for callee in called}
            # `with`, a property, a for loop: the run enters these without a call expression,
            # yet a static edge stands for them, and they were taken
            entered = called + [c for c in frame.children if c.reach is Reach.IMPLICIT and matcher.node(c) is not None]
            for edge in graph.edges(node):
                if _unobservable(edge.target.symbol) or matcher.unrecorded(edge.target):
                    continue
                if not any(matcher.leads_to(edge, callee) for callee in entered):
                    not_taken.append(NotTaken(frame, edge, tuple(sorted(names))))
        stack.extend((child, onward.get(id(child)), node) for child in reversed(frame.children))
    return Comparison(
        backend,
        tuple(confirmed),
        tuple(dynamic_only),
        tuple(not_taken),
        tuple(sorted(matcher.unindexed)),
        tuple(unattributed),
    )


class _Matcher:
    def __init__(self, reader: IndexReader, graph: CallGraph, root: str, every_native_call: bool = True) -> None:
        self.store = reader
        self.graph = graph
        self.every_native_call = every_native_call
        self.unindexed: set[str] = set()
        self._nodes: dict[tuple[str, str | None, int | None], CallNode | None] = {}
        self._macros: dict[str, str] = {}
        self._classes: dict[str, bool] = {}  # receiver class -> whether the index has it
        self.sources = SourceLines(root)

    def node(self, frame: RunFrame) -> CallNode | None:
        identity = (frame.name, frame.path, frame.line)
        if identity not in self._nodes:
            symbol = self._symbol(frame)
            if symbol is None:
                self.unindexed.add(frame.name)
            self._nodes[identity] = self.graph.node(symbol) if symbol else None
        return self._nodes[identity]

    def _symbol(self, frame: RunFrame) -> Symbol | None:
        found = [s for s in self.store.symbols_with_qname(frame.name) if s.kind is not SymbolKind.CLASS]
        if frame.layer is Layer.VENDOR:
            return (
                found[0]
                if found
                else Symbol(frame.name, frame.name, SymbolKind.EXTERNAL, Language.VENDOR, None, None, None)
            )
        exact = [s for s in found if s.path == frame.path and s.line == frame.line]
        same_file = [s for s in found if s.path == frame.path]
        chosen = exact or same_file or found
        return chosen[0] if chosen else None

    def with_receiver(self, node: CallNode, frame: RunFrame) -> CallNode | None:
        """The method in the context of the class its `self` was of in this run, when the run
        recorded it and the index has that class."""
        if frame.receiver is None or node.layer is not Layer.PYTHON or node.symbol.kind is not SymbolKind.METHOD:
            return None
        if frame.receiver not in self._classes:
            self._classes[frame.receiver] = any(
                s.kind is SymbolKind.CLASS for s in self.store.symbols_with_qname(frame.receiver)
            )
        return CallNode(node.symbol, node.layer, frame.receiver) if self._classes[frame.receiver] else None

    def receiver_node(self, plain: CallNode, called: list[RunFrame]) -> CallNode:
        """The caller with the class its `self` was in this run, when that explains more of
        its calls: `Module._call_impl` calling `Conv2d.forward` ran on a Conv2d, and the
        static graph resolves `self.forward` for a known class."""
        if plain.layer is not Layer.PYTHON:
            return plain
        best, best_count = plain, self._explained(plain, called)
        if best_count == len(called):
            return best
        for owner in sorted({callee.name.rpartition(".")[0] for callee in called if callee.layer is Layer.PYTHON}):
            if not any(s.kind is SymbolKind.CLASS for s in self.store.symbols_with_qname(owner)):
                continue
            candidate = CallNode(plain.symbol, plain.layer, owner)
            count = self._explained(candidate, called)
            if count > best_count:
                best, best_count = candidate, count
        return best

    def onward(self, caller: CallNode, static: CallEdge, callee: RunFrame) -> CallNode:
        """The node a callee ran as: of the caller's edges to it in several contexts
        (`module._apply(fn)` over children of several classes), the one whose edges explain
        most of what this run of it called."""
        targets = [edge.target for edge in self.graph.edges(caller) if edge.target.symbol.qname == callee.name]
        if len({target.self_class for target in targets}) <= 1:
            return static.target
        called = [c for c in callee.children if _compared(c) and self.node(c) is not None]
        return max(targets, key=lambda target: self._explained(target, called))

    def _explained(self, node: CallNode, called: list[RunFrame]) -> int:
        return sum(self.static_edge(node, callee) is not None for callee in called)

    def made_in_body(self, caller: CallNode, callee: RunFrame) -> bool:
        """Whether a native call was made by the caller's own code: its call site lies in the
        caller's definition (calls from destructors and deleters the caller triggered, and
        from code the compiler inlined into it, lie elsewhere)."""
        symbol = caller.symbol
        if callee.layer is Layer.PYTHON or callee.site is None or symbol.lang not in ("cpp", "cuda"):
            return True
        path, line = callee.site.path, callee.site.line
        if path.startswith("<generated>"):
            # The caller was inlined into a generated wrapper: the site is the wrapper's, and
            # what ran there may be the caller's epilogue (destructors) as well as its calls.
            return False
        if symbol.path is None or symbol.line is None or symbol.end_line is None:
            return True
        # The closing brace's line is where locals are destroyed: calls there are destructors'.
        return path == symbol.path and symbol.line <= line < symbol.end_line

    def macro_body(self, macro: Symbol) -> str:
        if macro.qname not in self._macros:
            self._macros[macro.qname] = self.sources.of_definition(macro) if macro.path else ""
        return self._macros[macro.qname]

    def static_edge(self, caller: CallNode, callee: RunFrame) -> CallEdge | None:
        edges = self.graph.edges(caller)
        if callee.key is not None:
            # `CPU, CUDA: sum` is one edge per key to the same kernel: the run names its key
            wanted = callee.key
            edges = sorted(edges, key=lambda edge: edge.kind is not EdgeKind.DISPATCH or edge.dispatch_key != wanted)
        for edge in edges:
            if self.leads_to(edge, callee):
                return edge
        return (
            self._through_macro(caller, callee)
            or self._member_call(caller, callee)
            or self._through_unrecorded(caller, callee)
        )

    def unrecorded(self, node: CallNode) -> bool:
        """A definition whose calls the run could not have recorded: a plain C++ function,
        under a profiler."""
        return (
            not self.every_native_call
            and node.layer in (Layer.CPP, Layer.CUDA)
            and node.symbol.kind is not SymbolKind.KERNEL
        )

    def _through_unrecorded(self, caller: CallNode, callee: RunFrame) -> CallEdge | None:
        """Under a profiler, the static edge that reaches the callee from the caller through
        C++ definitions in between, which the profiler does not record; breadth first, bounded.
        The caller is C++, or a binding whose C++ function is the tree's own (a method table
        entry written by hand: `x.to(...)` runs THPVariable_to, then dispatch_to, then aten::to)."""
        bound = caller.symbol.kind in (SymbolKind.METHOD_TABLE, SymbolKind.PYBIND)
        if (
            self.every_native_call
            or (caller.layer not in (Layer.CPP, Layer.CUDA) and not bound)
            or callee.layer is Layer.PYTHON
        ):
            return None
        frontier, seen = [caller], {caller.key}
        for _ in range(_UNRECORDED_DEPTH):
            following: list[CallNode] = []
            for node in frontier:
                for edge in self.graph.edges(node):
                    if self.leads_to(edge, callee, budget=0):
                        return edge
                    if edge.target.key not in seen and self.unrecorded(edge.target):
                        seen.add(edge.target.key)
                        following.append(edge.target)
                if len(seen) > _UNRECORDED_NODES:
                    return None
            frontier = following
        return None

    def _member_call(self, caller: CallNode, callee: RunFrame) -> CallEdge | None:
        """`args.idesc.set(...)` ran TensorDescriptor::set: the static index has that call
        site, on the run's call line, naming the member; only the type of the object it is
        called on is unknown statically, so the call graph (rightly) has no edge for it. The
        same for a plain name the graph could not place (`getCurrentCUDAStream()` in
        at::cuda, brought there from c10::cuda by a using-declaration in a header)."""
        symbol = caller.symbol
        member = callee.name.rpartition("::")[2]
        if (
            callee.site is None
            or symbol.path != callee.site.path
            or symbol.lang not in ("cpp", "cuda")
            or "::" not in callee.name
        ):
            return None
        call_line = callee.site.line
        lines = (symbol.line, symbol.end_line) if symbol.line and symbol.end_line else None
        # the call's own line first; then anywhere in the caller, since a call inside a macro's
        # argument (AT_DISPATCH_FLOATING_TYPES(..., [&] {...})) is placed on the macro's line
        sites = sorted(self.store.calls_in(symbol.qname, symbol.path, lines), key=lambda s: s.line != call_line)
        for site in sites:
            written = site.callee
            if re.split(r"\.|->|::", written)[-1] == member:
                return CallEdge(
                    self.node(callee) or caller, EdgeKind.METHOD_BY_NAME, site=Location(symbol.path, site.line)
                )
        return None

    def passed_in(self, grandparent: CallNode | None, callee: RunFrame) -> CallEdge | None:
        """`self._apply(convert)`: the function passed in is called by `_apply`, and the
        static graph has that call as an edge of the one that passed it."""
        if grandparent is None or callee.layer is not Layer.PYTHON:
            return None
        for edge in self.graph.edges(grandparent):
            if edge.target.symbol.qname == callee.name and edge.target.symbol.kind is SymbolKind.FUNCTION:
                return edge
        if callee.name.rpartition(".")[0] == grandparent.symbol.qname:
            # a function defined inside the grandparent and handed down (`_apply(convert)`)
            nested = [s for s in self.store.symbols_with_qname(callee.name) if s.kind is SymbolKind.FUNCTION]
            if nested:
                where = (
                    Location(grandparent.symbol.path, callee.line) if grandparent.symbol.path and callee.line else None
                )
                return CallEdge(CallNode(nested[0], Layer.PYTHON), EdgeKind.PASSED, site=where)
        return None

    def _through_macro(self, caller: CallNode, callee: RunFrame) -> CallEdge | None:
        """`C10_CUDA_KERNEL_LAUNCH_CHECK();` calls cudaGetLastError: a call site of the caller,
        on the run's call line, names a function-like macro whose body makes the call."""
        symbol = caller.symbol
        if callee.site is None or symbol.path != callee.site.path or symbol.lang not in ("cpp", "cuda"):
            return None
        for site in self.store.calls_in(symbol.qname, symbol.path, (callee.site.line, callee.site.line)):
            for macro in self.store.symbols_with_qname(site.callee):
                if macro.kind is SymbolKind.MACRO and re.search(
                    rf"\b{re.escape(callee.name.rpartition(':')[2])}\s*\(", self.macro_body(macro)
                ):
                    return CallEdge(CallNode(macro, Layer.CPP), EdgeKind.MACRO, site=Location(symbol.path, site.line))
        return None

    def leads_to(self, edge: CallEdge, callee: RunFrame, budget: int = _ALIAS_DEPTH) -> bool:
        target = edge.target.symbol
        name = callee.name
        if target.qname == name or name in edge.candidates or any(c.startswith(name + " (") for c in edge.candidates):
            return True
        if target.kind is SymbolKind.CLASS and name.rpartition(".")[0] == target.qname:
            return name.rpartition(".")[2] in _CONSTRUCTORS  # calling a class runs its __new__/__init__
        if callee.layer is Layer.BINDING and target.kind is SymbolKind.OPERATOR:
            # `x.relu()`: the static side goes from the call straight to the operator the
            # Tensor method binds; the run passes through the binding on the way.
            method = name.rpartition(".")[2]
            return target.qname.removeprefix("aten::").split(".")[0] == method
        if target.kind is SymbolKind.MACRO:
            # `C10_CUDA_KERNEL_LAUNCH_CHECK()`: the macro's body makes the call
            return re.search(rf"\b{re.escape(name.rpartition(':')[2])}\s*\(", self.macro_body(target)) is not None
        if target.kind is SymbolKind.VARIABLE and target.path:
            factory = _FACTORY_VALUE.search(target.signature)
            # `_pair = _ntuple(2)`: calling _pair runs the function _ntuple made (_ntuple.parse)
            if factory and name.rpartition(".")[0].endswith(f".{factory[1]}"):
                return True
        # A DispatchStub is an object whose call the run records as its `choose`, then the
        # kernel: the static hop through the stub is looked through.
        if budget <= 0 or (
            edge.kind not in _TRANSPARENT_KINDS and target.kind not in (SymbolKind.ALIAS, SymbolKind.DISPATCH_STUB)
        ):
            return False
        return any(self.leads_to(onward, callee, budget - 1) for onward in self.graph.edges(edge.target))


def _compared(frame: RunFrame) -> bool:
    """Whether a call expression in the tree can stand for the frame: not for one entered
    implicitly or by an import, nor for device work of a library the tree does not hold (a
    copy, a fill, a cuDNN or CUB kernel, launched from inside that library)."""
    return frame.reach not in _UNCOMPARED and not (frame.reach is Reach.LAUNCH and frame.layer is Layer.VENDOR)


def _unobservable(symbol: Symbol) -> bool:
    """Defined where the instrumented build records no calls (accessors, the dispatcher), or
    a member the run's naming folds away (a functor's operator(), a constructor): whether
    the run made such a call cannot be told, so it is not listed as not taken."""
    if symbol.lang in ("cpp", "cuda") and special_member(symbol.qname):
        return True
    return symbol.path is not None and any(part in symbol.path for part in UNTRACED_FILES)


def trace_nodes(report: TraceReport) -> set[str]:
    """The qualified names a static trace shows (its tree, or its paths with --to)."""
    names: set[str] = set()
    stack = [report.trace.tree]
    while stack:
        hop = stack.pop()
        names.add(hop.node.symbol.qname)
        stack.extend(hop.children)
    return names
