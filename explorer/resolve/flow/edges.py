"""Call edges of Python definitions from the value-flow solver, for the call graph.

A Python function the tree has source for is solved from the first one a query asks about:
what its calls reach is what values reach them. A call the solver resolved gives edges to
definitions (with the receiver's class as the callee's context), to the torch._C bindings
and stubs (through python_edges.py's rules for dotted names) and, on a value known to be a
tensor, to the operator of a tensor method, exactly; an operator on a tensor (`a + b`,
`x[i]`) to the operator its method binds. A closure a module's `name = factory(...)` made
is shown under that name, at the closure's definition. A call whose callee the solver knows
nothing about is resolved by python_edges.py's name rules, marked as they mark it; unless
its receiver is known and is not a tensor (`seen.add(x)` on a set is not `aten::add`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from explorer.flow_schema import Fact
from explorer.index import IndexReader
from explorer.model import (
    CallEdge,
    CallNode,
    CallShape,
    EdgeKind,
    Key,
    Layer,
    Location,
    Resolution,
    Symbol,
    SymbolKind,
)
from explorer.names import binding_operators, bound_stub, registered_operators
from explorer.resolve.arity import python_call_shape
from explorer.resolve.flow.calls import Call, ScopeKey, is_made
from explorer.resolve.flow.facts import FlowFacts, Scope, alternatives, dotted_values
from explorer.resolve.flow.solver import Solver
from explorer.resolve.flow.values import Builtin, External, Function, TensorMethod
from explorer.resolve.nodes import definition_lines, layer_of, module_of
from explorer.resolve.python_edges import PythonEdges

_MAX_LAMBDA_DEPTH = 8
# Python's own types a local may hold, by the name that makes one and by the display that
# writes one: their methods are never a tensor's
_BUILTIN_TYPES: dict[str, type] = {
    t.__name__: t for t in (dict, list, set, frozenset, tuple, str, bytes, bytearray, int, float, bool)
}
_DISPLAY_TYPES: dict[str, type] = {"dict": dict, "list": list, "tuple": tuple, "set": set}
_BINDING_KINDS = (SymbolKind.PYBIND, SymbolKind.METHOD_TABLE)
# What an operator hands its method, besides the operand it is called on (Python's data
# model): nothing to a unary one, the index and the value to `__setitem__`, else one operand
_OPERATOR_ARGUMENTS = {"__neg__": 0, "__pos__": 0, "__invert__": 0, "__abs__": 0, "__setitem__": 2}
# The solver's record of how a call was made, as the edge it makes
_EDGE_KINDS = {
    "call": EdgeKind.CALL,
    "new": EdgeKind.CALL,  # __new__ runs as the class is called
    "method": EdgeKind.METHOD,  # a bound method, or an implicit protocol call
    "operator": EdgeKind.OPERATOR,  # an operator's method (`a + b`, `x[i]`, `+=`); __setattr__ of `self.x = v`
}


class FlowEdges:
    def __init__(self, reader: IndexReader, python: PythonEdges, contexts: bool = True) -> None:
        self.store = reader
        self.python = python
        self.facts = FlowFacts(reader)
        self._torch_ops_files: dict[str, bool] = {}
        self._outside_classes: dict[str, bool] = {}
        self.solver = Solver(
            self.facts,
            python.mro,
            self._binds_operator,
            self._known_outside,
            python.outside_bases,
            contexts,
            self._outside_class,
        )

    def edges(self, node: CallNode) -> list[CallEdge] | None:
        """The node's edges, or None when the solver has no source for it (a stub, a class,
        an alias): python_edges.py answers those."""
        symbol = node.symbol
        if not (symbol.path or "").endswith(".py"):
            return None
        if symbol.kind is SymbolKind.VARIABLE:
            made = self._made_by_factory(symbol)
            return made if made is not None else self._passed_functions(symbol)
        if symbol.kind not in (SymbolKind.FUNCTION, SymbolKind.METHOD):
            return None
        if symbol.line is None or self.facts.scope(symbol.qname, symbol.line) is None:
            return None
        context = node.self_class
        if context is None and symbol.kind is SymbolKind.METHOD:
            context = self._own_class(symbol)  # `self` is at least an instance of its own class
        key: ScopeKey = (symbol.qname, symbol.line, context)
        if key not in self.solver.calls and key not in self.solver.open_sites:
            self.solver.start(symbol.qname, symbol.line, context)
        return list(self._edges_of(key, symbol, 0))

    def _made_by_factory(self, variable: Symbol) -> list[CallEdge] | None:
        """A module's `name = factory(...)` whose call returns a closure (`max_pool2d =
        boolean_dispatch(...)`): what the closure that call made calls. None where the name
        holds no such closure (python_edges.py answers)."""
        closures = self._closures(variable)
        if not closures:
            return None
        edges: list[CallEdge] = []
        made = f"@{variable.qname}"
        for closure in closures:
            symbol = self._symbol(closure.qname, closure.line)
            if symbol is None:
                continue
            key: ScopeKey = (closure.qname, closure.line, made)
            if key not in self.solver.calls and key not in self.solver.open_sites:
                self.solver.start(closure.qname, closure.line, made)
            # the branch a plain call does not take: `if flag: return if_true(...)` where the
            # factory's call started the flag False (`default=False`)
            edges += (
                dataclasses.replace(edge, off_default=True)
                if edge.site is not None and self.solver.off_default(key, edge.site.line)
                else edge
                for edge in self._edges_of(key, symbol, 0)
            )
        return edges

    def _passed_functions(self, variable: Symbol) -> list[CallEdge] | None:
        """A name assigned from a call that makes no closure (`hook = partial(f, 1)`): the
        functions the call is passed, taken for called when the name is. None where the
        facts hold no scope that binds the name."""
        owner = variable.qname.rpartition(".")[0]
        scope = self.facts.class_scope(owner) or self.facts.module_scope(owner)
        if scope is None or scope.qname != owner or variable.line is None:
            return None
        return list(self.python.passed_functions(variable, scope.passed_names(variable.name, variable.line)))

    def local_values(self, symbol: Symbol, name: str) -> tuple[str, ...]:
        """The names a local of the definition (or of a function it is nested in) is assigned
        from, as the flow facts have them (`fn = F.relu if fast else F.gelu`: F.relu and
        F.gelu; `opt = SGD(...)`: `SGD()`), each once: what `callers` takes a call of the
        local, or of its member, for. `trace` solves the
        definition instead; `callers`, asking about every definition that names its target,
        cannot afford to (4 to 30 times slower on PyTorch, measured). Empty for a name no
        such scope assigns."""
        assigned, _ = self._assignments(symbol, name)
        return tuple(dict.fromkeys(value for _, statement in assigned for value in dotted_values(statement[2])))

    def _assignments(self, symbol: Symbol, name: str) -> tuple[list[tuple[Scope, Fact]], bool]:
        """The statements that assign a local of the definition, or of a function it is nested
        in (innermost first, each with its scope), and whether a parameter of that name ends
        the walk (what the callers pass, which no statement of these says)."""
        scope = self.facts.scope(symbol.qname, symbol.line) if symbol.line is not None else None
        found: list[tuple[Scope, Fact]] = []
        while scope is not None and scope.kind in ("function", "lambda"):
            found += [(scope, statement) for statement in scope.bindings(name)]
            if any(param[0] == name for param in scope.params):
                return found, True
            scope = self.facts.scope_around(scope)
        return found, False

    def builtin_types_held(self, symbol: Symbol, name: str) -> frozenset[type]:
        """Python's own types a local of the definition (or of a function it is nested in)
        holds, where every value the flow facts assign to it is of one: a display (`{}`,
        `[]`), a constant, or a call of a builtin type no scope rebinds (`set()`, `dict(...)`);
        else empty. A method those types have (`seen.add(x)` on a set) is theirs, never a
        tensor's: trace, whose solver has the same values, finds no edge there, and neither
        may `callers` (local_values says why it reads the facts and does not solve)."""
        assigned, parameter = self._assignments(symbol, name)
        if parameter:
            return frozenset()
        held: set[type] = set()
        for scope, statement in assigned:
            for value in alternatives(statement[2]):
                found = self._builtin_type(value, scope)
                if found is None:
                    return frozenset()
                held.add(found)
        return frozenset(held)

    def _builtin_type(self, value: Fact, scope: Scope) -> type | None:
        if value[0] in _DISPLAY_TYPES:
            return _DISPLAY_TYPES[value[0]]
        if value[0] == "const":
            return _BUILTIN_TYPES.get(value[1])
        called = value[1] if value[0] == "call" else None
        if called is None or called[0] != "name" or called[1] not in _BUILTIN_TYPES or called[2] is not None:
            return None
        around: Scope | None = scope  # the name must be the builtin, bound by no scope around the call
        while around is not None:
            if around.bindings(called[1]):
                return None
            around = self.facts.scope_around(around) if around.kind != "module" else None
        return _BUILTIN_TYPES[called[1]]

    def named_closure(self, variable: Symbol) -> CallNode | None:
        """The node a module's `name = factory(...)` stands for where the call returns a
        closure: the closure under the name, at the closure's definition (a trace starting at
        `torch.nn.functional.max_pool2d` could start there, as a call of it arrives there)."""
        for closure in self._closures(variable):
            public = self._public(closure.qname, closure.line, f"@{variable.qname}")
            if public is not None:
                return CallNode(public, Layer.PYTHON)
        return None

    def _closures(self, variable: Symbol) -> list[Function]:
        if variable.kind is not SymbolKind.VARIABLE or not (variable.path or "").endswith(".py"):
            return []
        module, _, name = variable.qname.rpartition(".")
        scope = self.facts.module_scope(module)
        if scope is None or scope.qname != module or not scope.bindings(name):
            return []
        self.solver.compile_global(scope, name)
        self.solver.solve()
        found = self.solver.existing(("global", module, name))
        made = f"@{variable.qname}"
        return (
            [value for value in self.solver.values(found) if isinstance(value, Function) and value.made == made]
            if found is not None
            else []
        )

    def _public(self, qname: str, line: int, context: str) -> Symbol | None:
        """The module's name for a closure, where `context` is the factory's call that made it
        and the name holds it: the name's definition, placed at the closure's."""
        if not is_made(context) or ":" in context:
            return None
        public = context[1:]
        module, _, name = public.rpartition(".")
        found = self.solver.existing(("global", module, name))
        if found is None or Function(qname, line, context) not in self.solver.values(found):
            return None
        closure = self._symbol(qname, line)
        variables = [s for s in self.store.symbols_with_qname(public) if s.kind is SymbolKind.VARIABLE]
        if closure is None or not variables:
            return None
        return dataclasses.replace(variables[0], path=closure.path, line=closure.line, end_line=closure.end_line)

    def _own_class(self, method: Symbol) -> str | None:
        owner = method.qname.rpartition(".")[0]
        return owner if self.facts.class_scope(owner) is not None else None

    def _edges_of(self, key: ScopeKey, symbol: Symbol, depth: int) -> Iterator[CallEdge]:
        """Edges in the order the calls are written; of one call, the solver's targets or,
        when it found none, the name rules'."""
        by_site: dict[tuple[int, int], list[Call]] = {}
        for call in self.solver.calls.get(key, set()):
            by_site.setdefault((call.line, call.column), []).append(call)
        # A site the solver found no callee for: what reached its receiver lacks the member
        # (a parameter holding a tuple some caller passed cannot be what `input.softmax()` runs
        # on), or nothing reached it. The name rules answer, marked as name-only. A member the
        # receiver has (`seen.add` on a set) is a resolved call, and gets no guess.
        unresolved = {
            (site.line, site.column)
            for site in self.solver.open_sites.get(key, ())
            if (site.line, site.column) not in by_site and not self.solver.values(site.callee_node)
        }
        written = self._torch_ops_sites(symbol)
        if depth == 0:
            unresolved |= self._sites_never_run(key, symbol)
        # the calls the function makes with its defaults come first: of `if flag: return
        # a()` / `return b()`, where flag is False unless the call passes True, b() leads
        positions = sorted({*by_site, *unresolved, *written})
        for position in sorted(positions, key=lambda p: self.solver.off_default(key, p[0])):
            if position in written:
                # `torch.ops.ns.op(...)`: the operator registered under that name, whatever the
                # Python behind torch.ops (a __getattr__ chain) does with the name at run time
                yield from self._by_name(symbol, *position)
            elif position in by_site:
                found = sorted(by_site[position], key=_order)
                # several targets of one call are each a value that reaches it: each is exact
                for call in found:
                    yield from self._targets(call, symbol, depth)
            else:
                yield from self._by_name(symbol, *position)

    def _sites_never_run(self, key: ScopeKey, symbol: Symbol) -> set[tuple[int, int]]:
        """The calls of the definition's lambdas that the solver never reached: a lambda
        nothing it follows calls (`assertRaises(E, lambda: F.conv2d(x, w))`, `torch._check(c,
        lambda: f"...{t.dim()}")`, handed to code outside the tree). The index gives a lambda's
        calls to the definition it is written in; the name rules answer them, as they answer
        a call whose callee no value reached."""
        lambdas = [
            scope
            for scope in self.facts.lambdas_in(symbol.qname)
            if symbol.line is not None and symbol.line <= scope.line <= (symbol.end_line or symbol.line)
        ]
        if not lambdas:
            return set()
        reached: set[tuple[int, int]] = set()
        pending, seen = [key], set()
        while pending:
            current = pending.pop()
            if current in seen:
                continue
            seen.add(current)
            reached.update((site.line, site.column) for site in self.solver.open_sites.get(current, ()))
            for call in self.solver.calls.get(current, ()):
                reached.add((call.line, call.column))
                target = call.target
                if not isinstance(target, (Builtin, External, TensorMethod)) and "<lambda" in target[0]:
                    pending.append(target)  # a lambda it called: its calls were reached there
        return {position for scope in lambdas for position in scope.call_positions()} - reached

    def _targets(self, call: Call, caller: Symbol, depth: int) -> Iterator[CallEdge]:
        where = Location(caller.path or "", call.line, call.column)
        target = call.target
        if isinstance(target, Builtin):
            return
        if isinstance(target, TensorMethod):
            # `x.relu()` is a method call; `x + y` runs x.__add__(y), an operator's method
            operator = call.kind == "operator"
            shape = None
            if operator and target.name.startswith("__"):
                shape = CallShape(_OPERATOR_ARGUMENTS.get(target.name, 1), (), False)
            for edge in self.python.tensor_method_edges(target.name, receiver_known=True, shape=shape):
                if not operator:
                    node, kind = self._with_shape(edge.target, caller, call), edge.kind
                else:  # no call is written to read the arguments from: the operator's are known
                    node, kind = edge.target, EdgeKind.OPERATOR
                    if node.layer is Layer.BINDING and shape is not None:
                        node = dataclasses.replace(node, shape=shape)
                yield CallEdge(node, kind, edge.resolution, edge.candidates, where, dispatch_key=edge.dispatch_key)
            return
        if isinstance(target, External):
            # `F.conv2d(...)`, where `conv2d = _add_docstr(torch.conv2d, ...)`: the name rules
            # go through that alias, a hop the reader wants to see (functional.py:37)
            aliased = [
                edge
                for edge in self._by_name(caller, call.line, call.column)
                if edge.target.symbol.kind is SymbolKind.ALIAS
            ]
            if aliased:
                yield from aliased
                return
            for edge in self.python.dotted_name_edges(target.dotted, module_of(self.python.store, caller.path)):
                yield CallEdge(
                    self._with_shape(edge.target, caller, call),
                    edge.kind,
                    edge.resolution,
                    edge.candidates,
                    where,
                    dispatch_key=edge.dispatch_key,
                )
            return
        qname, line, context = target
        if "<lambda" in qname.rpartition(".")[2]:
            # the index has no node for a lambda: its calls are its caller's
            if depth < _MAX_LAMBDA_DEPTH:
                yield from self._edges_of(target, caller, depth + 1)
            return
        public = self._public(qname, line, context) if context is not None else None
        if public is not None:
            # `F.max_pool2d(...)`, where `max_pool2d = boolean_dispatch(...)`: the closure the
            # factory made, known by the name, at the closure's definition
            yield CallEdge(CallNode(public, Layer.PYTHON), _EDGE_KINDS[call.kind], Resolution.EXACT, (), where)
            return
        symbol = self._symbol(qname, line)
        if symbol is not None:
            yield CallEdge(
                CallNode(symbol, layer_of(symbol), context), _EDGE_KINDS[call.kind], Resolution.EXACT, (), where
            )

    def _with_shape(self, node: CallNode, caller: Symbol, call: Call) -> CallNode:
        if node.layer is not Layer.BINDING or caller.path is None:
            return node
        return dataclasses.replace(
            node, shape=python_call_shape(self.python.sources, caller.path, call.line, call.column)
        )

    def _by_name(self, symbol: Symbol, line: int, column: int) -> Iterator[CallEdge]:
        """A call the solver could not resolve, by python_edges.py's rules for that site."""
        node = CallNode(symbol, Layer.PYTHON)
        for site in self.store.calls_in(symbol.qname, symbol.path or "", (line, line)):
            if site.column == column or (site.line == line and column == 0):
                yield from self.python.call_targets(node, site)
                return

    def _torch_ops_sites(self, symbol: Symbol) -> set[tuple[int, int]]:
        """The positions of the calls in `symbol` written `torch.ops.ns.op(...)` (its calls are
        read only where its file has the text at all: this runs for every Python function)."""
        if symbol.path is None or symbol.line is None or not self._mentions_torch_ops(symbol.path):
            return set()
        return {
            (site.line, site.column)
            for site in self.store.calls_in(symbol.qname, symbol.path, definition_lines(symbol))
            if site.qualified.startswith("torch.ops.") and registered_operators(self.store, site.qualified)
        }

    def _mentions_torch_ops(self, path: str) -> bool:
        if path not in self._torch_ops_files:
            self._torch_ops_files[path] = any("torch.ops." in line for line in self.python.sources.of_file(path))
        return self._torch_ops_files[path]

    def _symbol(self, qname: str, line: int) -> Symbol | None:
        for symbol in self.store.symbols_with_qname(qname):
            if symbol.line == line and (symbol.path or "").endswith(".py"):
                return symbol
        return None

    def _binds_operator(self, dotted: str) -> bool:
        return bool(binding_operators(self.store, dotted))

    def _outside_class(self, dotted: str) -> bool:
        """A class the stubs declare (`torch._C.PyTorchFileWriter` in torch/_C/__init__.pyi) or
        C++ binds (a py::class_ chain, a type object added to a module)."""
        known = self._outside_classes.get(dotted)
        if known is None:
            known = self._outside_classes[dotted] = any(
                s.kind is SymbolKind.BOUND_CLASS or (s.kind is SymbolKind.CLASS and (s.path or "").endswith(".pyi"))
                for s in self.store.symbols_with_qname(dotted)
            )
        return known

    def _known_outside(self, dotted: str) -> bool:
        """A torch binding, a class or method C++ binds, or a name only stubs (`.pyi`) define."""
        if (
            binding_operators(self.store, dotted)
            or bound_stub(self.store, dotted) is not None
            or self._outside_class(dotted)
        ):
            return True
        return any(
            (s.path or "").endswith(".pyi") or s.kind in _BINDING_KINDS for s in self.store.symbols_with_qname(dotted)
        )


def _order(call: Call) -> Key:
    return (str(call.target),)
