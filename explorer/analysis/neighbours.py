"""`explorer callers` and `explorer callees`: who calls a definition, and what it calls, to a
depth, across every layer.

Callees follow the graph's edges. Callers are found by reversing them: candidates come from
the index (the call sites that name the definition, the dispatch rows that name a kernel, the
aliases that end in its name, the methods of the classes along a method's MRO), and each
candidate is kept only if its own forward edges, at those sites, reach the definition. For
C++ those are the edges `trace` follows. For Python they are the name rules the value-flow
solver hands names to, with a local taken for what the flow facts say it is assigned from:
solving every candidate, as `trace` solves what it walks, measured 4 to 30 times slower on
PyTorch (0.35 s to 1.6 s for `callers torch.nn.functional.conv2d`, 0.22 s to 6.6 s for
relu), and found the same callers but for receivers the solver knows are no tensors.
"""

from __future__ import annotations

import builtins
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

from explorer.errors import UsageError
from explorer.flow_schema import attributes_used, scope_texts
from explorer.index import IndexReader
from explorer.model import (
    LAMBDA_MARK,
    CallEdge,
    CallNode,
    CallSite,
    EdgeKind,
    Key,
    Language,
    Layer,
    Symbol,
    SymbolKind,
    last_name,
)
from explorer.names import MAX_QUERY_LENGTH, PERIPHERAL_PATH, binding_symbol, look_up
from explorer.resolve import CallGraph, UnreadableDefinition, defining_stub, definition_lines, layer_of

_BUILTINS = frozenset(dir(builtins))  # bare names that are never a local holding a method
_LAMBDA_NAME = "<lambda at line "  # how a C++ lambda is named (resolve/native_edges.py)
_MAX_CANDIDATE_CALLERS = 400  # distinct calling definitions examined per node (a name like `add` has thousands)
_MAX_RESULTS = 200  # definitions listed; a deep search from a popular name reaches much of a tree


@dataclass(frozen=True, slots=True)
class Neighbour:
    depth: int
    node: CallNode
    edge: CallEdge  # callees: how `node` is reached from `via`; callers: how `node` reaches `via`
    via: CallNode


@dataclass(frozen=True, slots=True)
class NeighbourReport:
    query: str
    direction: str  # "callers" or "callees"
    start: CallNode
    found: list[Neighbour]
    truncated: bool  # some name had more callers than were examined
    unreadable: tuple[UnreadableDefinition, ...] = ()  # definitions the solver could not finish


def neighbours_of(
    reader: IndexReader, root: str, query: str, direction: str, depth: int = 1, tests: bool = False
) -> NeighbourReport:
    if depth < 1:
        raise UsageError("--depth must be at least 1")
    symbols = look_up(reader, query).symbols
    symbol = sorted(symbols, key=lambda s: (s.kind is not SymbolKind.OPERATOR, s.lang != "python"))[0]
    graph = CallGraph(reader, root, backend="all", tests=tests)
    start = graph.node(symbol) if direction == "callees" else called_node(graph, symbol)
    reverse = _Callers(graph) if direction == "callers" else None
    found: list[Neighbour] = []
    seen = {_identity(start)}
    frontier = [start]
    truncated = False
    for level in range(1, depth + 1):
        if not frontier:
            break  # everything reachable is found: `--depth 1000000000` ends here
        next_frontier = []
        for node in frontier:
            if len(found) >= _MAX_RESULTS:
                truncated = True
                break
            # callees: each call the node makes (a sub-module called twice is listed twice);
            # callers: each definition that calls it. Either way a definition is followed once.
            steps = (
                reverse.of(node) if reverse is not None else ((edge.target, edge) for edge in graph.edges_by_site(node))
            )
            listed: set[tuple[object, ...]] = set()
            for other, edge in steps:
                if _identity(other) in seen and (
                    reverse is not None or (_identity(other), edge.site) in listed or level > 1
                ):
                    continue
                listed.add((_identity(other), edge.site))
                found.append(Neighbour(level, other, edge, node))
                if _identity(other) not in seen:
                    seen.add(_identity(other))
                    next_frontier.append(other)
        frontier = next_frontier
    truncated = truncated or (reverse is not None and reverse.truncated)
    return NeighbourReport(query, direction, start, found, truncated, graph.unreadable.records())


def _identity(node: CallNode) -> tuple[object, ...]:
    return (node.symbol.qname, node.symbol.path, node.symbol.line, node.self_class)


def _same_definition(a: CallNode, b: CallNode) -> bool:
    return (a.symbol.qname, a.symbol.path, a.symbol.line) == (b.symbol.qname, b.symbol.path, b.symbol.line)


class _Callers:
    def __init__(self, graph: CallGraph) -> None:
        self.graph = graph
        self.store = graph.store
        self.truncated = False
        self._bases_written: dict[str, str] = {}  # a class's bases, as its definition writes them

    def of(self, node: CallNode, every_call: bool = False) -> Iterator[tuple[CallNode, CallEdge]]:
        """Each definition whose forward edges reach `node`, with the edge of its first call;
        with `every_call`, with each of its calls (two on one line are two): where an editor's
        references and incoming calls place a range."""
        reported: set[tuple[object, ...]] = set()
        for candidate, sites in self._candidates(node):
            key = _identity(candidate)
            if key in reported:
                continue
            calls: set[Key] = set()
            for edge in self._edges(candidate, sites, every_call):
                if _reaches(self._as_called(edge.target), node) or _constructs(edge.target, node):
                    if not every_call:
                        reported.add(key)
                        yield candidate, edge
                        break
                    place = edge.site.with_column if edge.site is not None else ()
                    if place not in calls:
                        calls.add(place)
                        yield candidate, edge
                    continue
                if any(p.qname == node.symbol.qname and p.path == node.symbol.path for p in edge.target.passed):
                    # passed as an argument: called by the function it was passed to
                    holder = edge.target
                    if _identity(holder) not in reported:
                        reported.add(_identity(holder))
                        yield holder, CallEdge(node, EdgeKind.FNPTR, site=holder.passed_at)
            if calls:
                reported.add(key)

    def _edges(self, candidate: CallNode, sites: list[CallSite] | None, every_call: bool) -> Iterator[CallEdge]:
        """The candidate's edges (a callee's first call, or each call), or those of the call
        sites that matter, by the name rules (resolving every call of every function that
        mentions `add` would take minutes; the value-flow solver, which `trace` asks, would
        take as long for each)."""
        if sites is None:
            yield from self.graph.edges_by_site(candidate) if every_call else self.graph.edges(candidate)
        elif candidate.layer is Layer.PYTHON:
            for site in sites:
                yield from self._python_site(candidate, site)
        else:
            for site in sites:
                yield from self.graph.native.call_targets(candidate.symbol, site)

    def _python_site(self, candidate: CallNode, site: CallSite) -> Iterator[CallEdge]:
        """A call of a local is taken for a call of each name the flow facts say it is
        assigned from (`fn = F.relu`, then `fn(x)`); of its member, for the member of each
        class that made it (`opt = SGD(...)`, then `opt.zero_grad()`)."""
        python = self.graph.python
        head, _, member = site.callee.partition(".")
        assigned = head.isidentifier() and python.may_assign(candidate.symbol, head)
        if assigned and member and "." not in member:
            types = self.graph.flow.builtin_types_held(candidate.symbol, head)
            if types and all(hasattr(held, member) for held in types):
                return  # `seen = set()`, then `seen.add(x)`: the set's method, no tensor's
        held = self.graph.flow.local_values(candidate.symbol, head) if assigned else ()
        if not held:
            yield from python.call_targets(candidate, site)
        elif not member:  # a local called: each name it holds (what a call made it, no name says)
            for value in held:
                if not value.endswith("()"):
                    yield from python.value_targets(candidate, site, value)
        else:
            made_by = [value[:-2] for value in held if value.endswith("()")] if "." not in member else []
            classes = [c for value in made_by if (c := python.class_made_by(candidate.symbol, value)) is not None]
            for class_qname in classes:
                yield from python.member_targets(candidate, site, class_qname, member)
            if not classes:  # made by a function (`scores = q @ k`), or a name: what the names say
                yield from python.call_targets(candidate, site)

    def _as_called(self, target: CallNode) -> CallNode:
        """A module's name a factory made, reached by name, as the closure it stands for
        (`F.max_pool2d` is the closure boolean_dispatch made), as `trace` reaches it."""
        if target.symbol.kind is SymbolKind.VARIABLE and target.layer is Layer.PYTHON:
            return self.graph.node(target.symbol)
        return target

    def _candidates(self, node: CallNode) -> Iterator[tuple[CallNode, list[CallSite] | None]]:
        symbol = node.symbol
        yield from ((candidate, None) for candidate in self._dispatching(symbol))
        yield from self._from_call_sites(node)
        if (symbol.lang == "python" or node.layer is Layer.BINDING) and len(symbol.name) <= MAX_QUERY_LENGTH:
            # (a longer name, from generated code, would make too long a LIKE pattern for SQLite)
            for alias in self.store.aliases_ending_in(symbol.name):
                yield CallNode(alias, layer_of(alias), node.self_class if "." in alias.qname else None), None
        if node.layer is Layer.YAML:
            yield from ((binding, None) for binding in self._bindings_of(symbol))
        if node.layer is Layer.PYTHON and symbol.kind in (SymbolKind.METHOD, SymbolKind.ALIAS):
            yield from self._same_object_callers(node)
        if node.layer is Layer.PYTHON and symbol.kind is SymbolKind.FUNCTION:
            yield from ((variable, None) for variable in self._passing_variables(symbol))
        if node.layer is Layer.PYTHON and symbol.kind is SymbolKind.METHOD and self._is_property(symbol):
            yield from ((reader, None) for reader in self._using_the_attribute(symbol))
        if symbol.name.startswith(_LAMBDA_NAME) and symbol.path is not None and symbol.line is not None:
            yield from self._handing_the_lambda(symbol.path, symbol.line)

    def _dispatching(self, symbol: Symbol) -> Iterator[CallNode]:
        """The operators whose dispatch table names a kernel, the operators delegating to a
        structured one, the stubs a kernel is registered with."""
        if symbol.kind is SymbolKind.OPERATOR:
            for operator in self.store.operators_delegating_to(symbol.qname):
                yield from (CallNode(s, Layer.YAML) for s in self.store.symbols_with_qname(operator))
            return
        registered = self.store.registrations_naming(symbol.name) if symbol.lang in ("cpp", "cuda") else []
        for entry in [*self.store.operators_with_kernel(symbol.qname), *registered]:
            yield from (CallNode(s, Layer.YAML) for s in self.store.symbols_with_qname(entry.operator))
        for registration in self.store.symbols_targeting(symbol.qname):
            if registration.kind is SymbolKind.PYBIND:
                yield from (
                    CallNode(named, Layer.BINDING) for named in self.graph.python.extensions.python_names(registration)
                )
            if registration.kind is SymbolKind.METHOD_TABLE:
                yield CallNode(registration, Layer.BINDING)
            if registration.kind is SymbolKind.DISPATCH_REGISTRATION:
                stubs = [
                    s for s in self.store.symbols_with_qname(registration.qname) if s.kind is SymbolKind.DISPATCH_STUB
                ]
                if stubs:
                    stub = defining_stub(stubs)
                    yield CallNode(stub, layer_of(stub))

    def _bindings_of(self, operator: Symbol) -> Iterator[CallNode]:
        info = self.store.operator_info(operator.qname)
        if info is None:
            return
        name = operator.qname.removeprefix("aten::").partition(".")[0]
        if "function" in info.variants:
            module = f"torch._C._{info.python_module}" if info.python_module else "torch._C._VariableFunctions"
            stub = binding_symbol(self.store, f"{module}.{name}" if info.python_module else f"torch.{name}", [operator])
            yield CallNode(stub, Layer.BINDING)
        if "method" in info.variants:
            yield CallNode(binding_symbol(self.store, f"torch.Tensor.{name}", [operator]), Layer.BINDING)

    def _from_call_sites(self, node: CallNode) -> Iterator[tuple[CallNode, list[CallSite]]]:
        """Definitions with a call site naming the node (`at::foo_symint(...)`, `x.foo()`,
        `foo_stub(...)`), or passing it as an argument, with those sites."""
        symbol = node.symbol
        # an operator by its name (aten::add.Tensor, pyg::fps: `x.add(...)`, `torch.ops.pyg.fps(...)`)
        name = symbol.qname.partition("::")[2].partition(".")[0] if symbol.kind is SymbolKind.OPERATOR else symbol.name
        names = [name]
        if symbol.kind is SymbolKind.OPERATOR and symbol.qname.startswith("aten::"):
            names += [f"{name}_symint", f"{name}_out", f"{name}_outf", "call"]
        if name == "forward" and "AutogradContext" in symbol.signature:
            names.append("apply")  # a C++ autograd Function's forward runs from `F::apply(...)`
        # a Python constructor: `Conv2d(...)` runs Conv2d.__init__
        made = symbol.qname.rsplit(".", 2)[-2] if symbol.lang == Language.PYTHON and name in _CONSTRUCTORS else None
        names += [made] if made else []
        callers: dict[tuple[str, str], list[CallSite]] = {}
        for spelling in names:
            for path, site in self.store.call_sites_of(spelling):
                if spelling == "call" and f"::{name}::" not in site.callee:
                    continue
                callers.setdefault((path, site.caller), []).append(site)
        if len(callers) > _MAX_CANDIDATE_CALLERS:
            self.truncated = True
        # Which to examine, when a name has too many callers: of thousands of calls spelt
        # `__init__`, those likeliest to run this class's first; library code before tests; for
        # a Python definition, the code nearest its file (its module's own uses). Those
        # examined are listed library code first, in path order.
        home = symbol.path if symbol.lang == Language.PYTHON else None

        def rank(item: tuple[tuple[str, str], list[CallSite]]) -> tuple[object, ...]:
            path = item[0][0]
            unlikely = made is not None and not any(self._may_construct(site, made) for site in item[1])
            return (unlikely, bool(PERIPHERAL_PATH.search(path)), -_nearness(path, home), item[0])

        examined = sorted(callers.items(), key=rank)[:_MAX_CANDIDATE_CALLERS]
        ordered = sorted(examined, key=lambda item: (bool(PERIPHERAL_PATH.search(item[0][0])), item[0]))
        for (path, caller), sites in ordered:
            for definition in self._definitions_at(path, caller, sites):
                inside = [
                    s
                    for s in sites
                    if (definition.line or 0) <= s.line <= (definition.end_line or definition.line or 0)
                ]
                node_of = (
                    self.graph.node(definition)
                    if definition.kind is not SymbolKind.CLASS
                    else CallNode(definition, layer_of(definition))
                )
                yield node_of, inside

    def _is_property(self, method: Symbol) -> bool:
        """`@property`, `@cached_property`, `@x.setter`: a method run by reading (or
        assigning) an attribute rather than by a call."""
        return any(
            last_name(text[1:].split("(", 1)[0]) in _PROPERTY_DECORATORS
            for _, text in self.graph.python.sources.decorators(method)
        )

    def _using_the_attribute(self, prop: Symbol) -> Iterator[CallNode]:
        """The definitions (module code, classes, functions) whose flow facts read or assign
        an attribute named as the property other than to call it, each to be solved: library code
        before tests, those nearest the property's file first (its file, its folder, the
        folder above), at most _MAX_PROPERTY_USERS of them (`mean` is read in hundreds of
        files)."""
        name, quoted = prop.name, json.dumps(prop.name)
        using: list[tuple[str, str]] = []
        for module in self.store.python_scopes():
            path = module.path
            if module.kind is not SymbolKind.MODULE or not path or path.endswith(".pyi"):
                continue
            text = self.store.python_flow(path)
            if text is None or quoted not in text:
                continue
            for scope, body in scope_texts(text):
                if quoted in body and next(attributes_used(json.loads(body), name), None) is not None:
                    using.append((path, scope.qname.split(".<lambda", 1)[0]))  # a lambda's code is its definition's
        ranked = sorted(
            dict.fromkeys(using),
            key=lambda item: (bool(PERIPHERAL_PATH.search(item[0])), -_nearness(item[0], prop.path), item),
        )
        if len(ranked) > _MAX_PROPERTY_USERS:
            self.truncated = True
        for path, qname in ranked[:_MAX_PROPERTY_USERS]:
            for definition in self.store.symbols_with_qname(qname):
                if definition.path == path:
                    yield self.graph.node(definition)

    def _may_construct(self, site: CallSite, class_name: str) -> bool:
        """Whether a call likely runs the __init__ of a class named `class_name`: it names the
        class (`Conv2d(...)`, `Conv2d.__init__(self, ...)`), or is super().__init__ in a class
        whose bases name it (a subclass of a subclass reaches it too, through a base without
        an __init__ of its own: less likely, not ruled out)."""
        head = site.callee.rpartition(".")[0]
        if last_name(site.callee) == class_name or head.rpartition(".")[2] == class_name:
            return True
        if not head.startswith("super("):
            return False
        owner = site.caller.rpartition(".")[0]
        if owner not in self._bases_written:
            classes = [s for s in self.store.symbols_with_qname(owner) if s.kind is SymbolKind.CLASS]
            self._bases_written[owner] = " ".join(s.signature.partition("(")[2] for s in classes)
        return re.search(rf"\b{re.escape(class_name)}\b", self._bases_written[owner]) is not None

    def _handing_the_lambda(self, path: str, line: int) -> Iterator[tuple[CallNode, list[CallSite]]]:
        """The definitions with a call that hands on the C++ lambda written at `line`
        (`try_all([&](...) {...})`): the function handed it calls it."""
        mark = f"{LAMBDA_MARK}{line}"
        for caller, sites in self.store.calls_in_file(path).items():
            handing = [site for site in sites if mark in site.name_args]
            if not handing:
                continue
            for definition in self._definitions_at(path, caller, handing):
                inside = [
                    s
                    for s in handing
                    if (definition.line or 0) <= s.line <= (definition.end_line or definition.line or 0)
                ]
                yield self.graph.node(definition), inside

    def _passing_variables(self, function: Symbol) -> Iterator[CallNode]:
        """Module-level names built by passing the function to a call in the same module
        (`max_pool2d = boolean_dispatch(if_true=max_pool2d_with_indices, ...)`)."""
        module = function.qname.rsplit(".", 1)[0]
        for variable in self.store.symbols_in_module(module, SymbolKind.VARIABLE):
            if function.name in variable.signature:
                yield self.graph.node(variable)

    def _definitions_at(self, path: str, qname: str, sites: list[CallSite]) -> list[Symbol]:
        """The definitions named `qname` in `path` that hold some of the sites."""
        return [
            symbol
            for symbol in self.store.symbols_with_qname(qname)
            if symbol.path == path
            and symbol.kind is not SymbolKind.MODULE
            and any((symbol.line or 0) <= s.line <= (symbol.end_line or symbol.line or 0) for s in sites)
        ]

    def _same_object_callers(self, node: CallNode) -> Iterator[tuple[CallNode, list[CallSite] | None]]:
        """`self.m()` anywhere along the MRO of the class whose object it is, directly or
        through a local (`forward_call = self.forward`); a class's own `__call__` is reached
        by calling its instances."""
        owner = node.self_class or node.symbol.qname.rsplit(".", 1)[0]
        name = node.symbol.name
        for klass in self.graph.python.mro(owner):
            for member in self.store.symbols_in_class(klass):
                # in its own class, `self` needs no saying: the node is the plain definition
                candidate = CallNode(member, layer_of(member), owner if klass != owner else None)
                if member.kind is SymbolKind.ALIAS:
                    yield candidate, None
                    continue
                sites = [
                    site
                    for site in self.store.calls_in(member.qname, member.path or "", definition_lines(member))
                    if site.callee in (f"self.{name}", f"cls.{name}", f"super().{name}")
                    or ("." not in site.callee and site.qualified == site.callee and site.callee not in _BUILTINS)
                ]
                if sites:
                    yield candidate, sites
        if name in ("__call__", "__init__"):
            for instance_class in self.store.symbols_with_qname(owner):
                if instance_class.kind is SymbolKind.CLASS:
                    yield self.graph.node(instance_class), None


_CONSTRUCTORS = ("__init__", "__new__")
_PROPERTY_DECORATORS = frozenset({"property", "cached_property", "setter", "getter", "deleter"})
_MAX_PROPERTY_USERS = 50  # definitions solved for the readers of a property (each a solver run)


def _nearness(path: str, home: str | None) -> int:
    """How near a file is to `home`: the parts of their paths they share from the start (the
    same file shares all of them, a file of the same folder all but the last)."""
    if home is None:
        return 0
    parts, home_parts = path.split("/"), home.split("/")
    return next((i for i, (a, b) in enumerate(zip(parts, home_parts)) if a != b), min(len(parts), len(home_parts)))


def _constructs(target: CallNode, node: CallNode) -> bool:
    """Whether a call that runs `target` makes an instance of the Python class `node`: it runs
    the class's own __init__ or __new__, or an inherited one on its behalf."""
    symbol = target.symbol
    if node.symbol.kind is not SymbolKind.CLASS or symbol.name not in _CONSTRUCTORS:
        return False
    return symbol.qname.rsplit(".", 1)[0] == node.symbol.qname or target.self_class == node.symbol.qname


def _reaches(target: CallNode, node: CallNode) -> bool:
    if not _same_definition(target, node):
        return False
    if node.self_class is not None and target.self_class != node.self_class:
        return False
    return not node.passed or [p.qname for p in target.passed] == [p.qname for p in node.passed]


def called_node(graph: CallGraph, symbol: Symbol) -> CallNode:
    """The node whose callers are a definition's: a module's name a factory's call made
    (`_pair = _ntuple(2)`, `max_pool2d = boolean_dispatch(...)`) stands for the closure it
    holds, where calls of the name arrive; any other definition as itself, reached from any
    object."""
    return graph.node(symbol) if symbol.kind is SymbolKind.VARIABLE else CallNode(symbol, layer_of(symbol))


def callers_of(graph: CallGraph, node: CallNode, every_call: bool = False) -> list[tuple[CallNode, CallEdge]]:
    """Each definition that calls `node`, with the edge of its first call: one step of
    `callers`; with `every_call`, an edge for each of its calls (an editor's references and
    incoming calls)."""
    return list(_Callers(graph).of(node, every_call))
