"""From facts to constraints: one scope's statements (in one context) turned into the solver's
nodes, edges and handlers, as Python runs them (parsers/python_flow.py lists the facts)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING

from explorer.flow_schema import Fact
from explorer.resolve.flow.builtin_models import BUILTINS, instances_of, iterate
from explorer.resolve.flow.calls import Arguments, Call, OpenSite, ScopeKey, binds, is_made
from explorer.resolve.flow.facts import Scope
from explorer.resolve.flow.values import (
    TENSOR,
    Builtin,
    Class,
    Constant,
    Container,
    External,
    Function,
    Instance,
    Module,
    SuperObject,
    TensorValue,
)

if TYPE_CHECKING:
    from explorer.resolve.flow.solver import Solver  # which runs this module's code


class Compiler:
    """Turns one scope's statements (in one context) into nodes, edges and handlers."""

    def __init__(self, solver: Solver, scope: Scope, key: ScopeKey) -> None:
        self.solver = solver
        self.scope = scope
        self.key = key
        self.containers = 0
        self.rebound: frozenset[str] | None = None  # see _rebound_inside

    def statements(self, body: Sequence[Fact]) -> None:
        """A scope's statements (their shapes: flow_schema.py's Stmt)."""
        solver = self.solver
        for statement in body:
            match statement:
                case ["bind", target, value, _]:
                    if self.scope.kind == "module" and target[0] == "local" and value[0] == "call":
                        self._name_call(target[1], value)
                    self.bind(target, self.expr(value))
                case ["eval", value]:
                    self.expr(value)
                case ["return", value]:
                    solver.copy(self.expr(value), solver.node(("return", self.key)))
                case ["yield", value]:
                    solver.copy(self.expr(value), solver.node(("yield", self.key)))
                case ["raise", value, line]:
                    raised = self.expr(value)
                    solver.on(raised, functools.partial(self._raised, site=(line, 0)))
                case ["guard", name, truth, first, last]:
                    guards = solver.guards.setdefault(self.key, [])
                    guards.append((self.expr(name), bool(truth), first, last))
                case ["enter", value, line, column]:
                    held = self.expr(value)
                    for method_name in ("__enter__", "__exit__"):
                        method = solver.fresh()
                        solver.on(held, functools.partial(self._protocol, name=method_name, target=method))
                        solver.on(method, functools.partial(self._call_protocol, site=(line, column)))
                # star_import: what it binds is read where a name is looked up (solver.global_)

    def _name_call(self, name: str, call: Fact) -> None:
        """`name = factory(...)` at a module's top level: the closure the call makes is known
        by the module's name for it. Not a decorated def (`@d def name`), which keeps its own."""
        qname = f"{self.scope.module}.{name}"
        inner = call
        while inner[0] == "call" and len(inner[2]) == 1:
            inner = inner[2][0]
        if inner[0] in ("def", "class") and inner[1] == qname:
            return
        self.solver.named_calls[(self.key, (call[4], call[5]))] = qname

    def _call_protocol(self, value: object, site: tuple[int, int]) -> None:
        self.solver.invoke(self.key, site, value, Arguments(), self.solver.fresh(), "method")

    def _raised(self, value: object, site: tuple[int, int]) -> None:
        if isinstance(value, Class):
            self.solver.construct(self.key, site, value.qname, Arguments(), self.solver.fresh())

    def _protocol(self, value: object, name: str, target: int) -> None:
        if isinstance(value, Instance):
            found = self.solver.class_attribute(value.cls, name)
            if found is not None:
                self.solver.on(found, lambda member: self._bound_into(member, value, target))

    def _bound_into(self, member: object, instance: Instance, target: int) -> None:
        bound = self.solver.bind(member, instance)
        if bound is not None:
            self.solver.add(target, [bound])

    # -- targets ---------------------------------------------------------------------------

    def bind(self, target: Fact, value: int) -> None:
        """An assignment's target (its shapes: flow_schema.py's Target) takes `value`."""
        solver = self.solver
        match target:
            case ["local", name, ident]:
                solver.copy(value, self.local(name, ident))
            case ["free", name]:
                solver.copy(value, self.free_target(name))
            case ["attr", obj, name, *place]:
                holder = self.expr(obj)
                site = (place[0], place[1]) if place else (0, 0)
                solver.on(holder, lambda held: self._store_attribute(held, name, value, site))
            case ["item", obj, key, *_]:
                holder = self.expr(obj)
                site, index = self._subscript(target)
                solver.on(holder, lambda held: self._store_item(held, key, value, site, index))

    def _store_attribute(self, obj: object, name: str, value: int, site: tuple[int, int]) -> None:
        solver = self.solver
        if isinstance(obj, Instance):
            solver.copy(value, solver.node(("field", obj.cls, name)))
            setter = solver.class_attribute(obj.cls, "__setattr__")
            if setter is not None:
                # `self.conv = Conv2d(...)` on an nn.Module runs Module.__setattr__, which
                # files the value in a registry (`_modules`) that iteration reads
                key = self._key_node(name)
                solver.on(
                    setter, lambda member: self._call_member(member, obj, Arguments((key, value)), site, "operator")
                )
        elif isinstance(obj, Class):
            solver.copy(value, solver.node(("class", obj.qname, name)))
        elif isinstance(obj, Module):
            solver.copy(value, solver.node(("global", obj.name, name)))

    def _subscript(self, item: Fact) -> tuple[tuple[int, int], int | None]:
        """Where an item the source writes is (its `[`), and the node of its index; (0, 0)
        and None for one it does not write (unpacking)."""
        if len(item) <= 3:
            return (0, 0), None
        return (item[3], item[4]), self.expr(item[5])

    def _store_item(
        self, obj: object, key: str | int | None, value: int, site: tuple[int, int], index: int | None
    ) -> None:
        solver = self.solver
        if isinstance(obj, Container):
            solver.copy(value, solver.field(obj, key))
            if obj.kind == "dict" and isinstance(key, str):
                solver.add(solver.node(("keys", obj)), [Constant("str", key)])
        elif isinstance(obj, (Instance, TensorValue)):
            # `obj[key] = value` runs obj.__setitem__(key, value)
            key_node = self._key_node(key) if key is not None or index is None else index
            solver.run_operator(self.key, site, obj, "__setitem__", Arguments((key_node, value)), solver.fresh())

    def _call_member(
        self,
        member: object,
        instance: Instance,
        arguments: Arguments,
        site: tuple[int, int] = (0, 0),
        kind: str = "method",
    ) -> None:
        bound = self.solver.bind(member, instance)
        if bound is not None:
            self.solver.invoke(self.key, site, bound, arguments, self.solver.fresh(), kind)

    def local(self, name: str, ident: int) -> int:
        """A definition of a local: in a module it is also the global, in a class body the
        class attribute, in a function what closures inside it read."""
        solver = self.solver
        node = solver.node(("v", self.key, name, ident))
        kind = self.scope.kind
        if kind == "module":
            solver.copy(node, solver.node(("global", self.scope.module, name)))
        elif kind == "class":
            solver.copy(node, solver.node(("class", self.scope.qname, name)))
        else:
            solver.copy(node, solver.closure(self.scope.qname, name, self.key[2]))
        return node

    def free_target(self, name: str) -> int:
        """A `global` or `nonlocal` name assigned: the module's global, or the enclosing
        function's variable."""
        for scope in self._enclosing_functions():
            if binds(scope, name):
                return self._enclosing(scope, name)
        return self.solver.node(("global", self.scope.module, name))

    def _enclosing(self, scope: Scope, name: str) -> int:
        """The node of an enclosing function's local: as the factory's call this closure was
        made by bound it, where the function ran in that call."""
        context = self.key[2]
        if context is not None and is_made(context) and self.solver.is_active((scope.qname, scope.line, context)):
            return self.solver.closure(scope.qname, name, context)
        return self.solver.node(("closure", scope.qname, name))

    def _rebound_inside(self) -> frozenset[str]:
        """This function's locals that functions nested in it assign (`nonlocal`)."""
        if self.rebound is None:
            function = self.scope.kind in ("function", "lambda")
            self.rebound = self.solver.nonlocally_assigned(self.scope) if function else frozenset()
        return self.rebound

    def _enclosing_functions(self) -> list[Scope]:
        found = []
        qname = self.scope.qname
        while "." in qname:
            qname = qname.rpartition(".")[0]
            if qname == self.scope.module:
                break
            scopes = [s for s in self.solver.facts.scopes(qname) if s.kind in ("function", "lambda")]
            found.extend(scopes[-1:])
        return found

    # -- expressions -----------------------------------------------------------------------

    def expr(self, expression: Fact) -> int:
        """The node of an expression's values (its shapes: flow_schema.py's Expr)."""
        solver = self.solver
        match expression:
            case ["name", name, defs]:
                return self.name(name, defs)
            case ["attr", obj, name, *place]:
                # a property's getter, or `__getattr__`, runs where the name is read
                site = (place[0], place[1]) if place else (0, 0)
                return self.attribute(self.expr(obj), name, site)
            case ["call", *_]:
                return self.call(expression)
            case ["item", obj, key, *_]:
                holder = self.expr(obj)
                site, index = self._subscript(expression)
                result = solver.fresh()
                solver.on(holder, lambda value: self._load_item(value, key, result, site, index))
                return result
            case ["binop", left, right, method, reflected, line, column]:
                left_node, right_node, result = self.expr(left), self.expr(right), solver.fresh()
                self._binary(left_node, right_node, method, reflected, (line, column), result)
                return result
            case ["unop", operand, method, line, column]:
                operand_node, result = self.expr(operand), solver.fresh()
                site = (line, column)
                solver.on(operand_node, lambda value: self._run_operator(value, method, Arguments(), site, result))
                return result
            case ["dict", pairs]:
                container, result = self._container("dict")
                for key, value in pairs:
                    solver.copy(self.expr(value), solver.field(container, key))
                    if isinstance(key, str):
                        solver.add(solver.node(("keys", container)), [Constant("str", key)])
                return result
            case ["list" | "tuple" | "set" as kind, elements]:
                container, result = self._container(kind)
                for index, element in enumerate(elements):
                    at = index if kind == "tuple" and element[0] != "elem" else None  # *x: no one index
                    solver.copy(self.expr(element), solver.field(container, at))
                return result
            case ["const", kind, *value]:
                result = solver.fresh()
                solver.add(result, [Constant(kind, value[0] if value else None)])
                return result
            case ["def" | "lambda", qname, line]:
                result = solver.fresh()
                made = self.key[2] if self.key[2] is not None and is_made(self.key[2]) else None
                solver.add(result, [Function(qname, line, made)])
                self._defaults(qname, line)
                return result
            case ["class", qname, line]:
                result = solver.fresh()
                solver.add(result, [Class(qname, line)])
                return result
            case ["import", dotted]:
                return self.imported(dotted)
            case ["any", parts]:
                result = solver.fresh()
                for part in parts:
                    solver.copy(self.expr(part), result)
                return result
            case ["elem", iterable, line, column]:
                iterable_node, result = self.expr(iterable), solver.fresh()
                iterate(solver, self.key, (line, column), iterable_node, result)
                return result
            case ["super", line, column]:
                return self.super_(line, column)
            case ["augmented", target, value, method, line, column, binary, reflected]:
                target_node, value_node, result = self.expr(target), self.expr(value), solver.fresh()
                site = (line, column)
                solver.on(
                    target_node,
                    lambda held: self._in_place(held, method, value_node, site, result, (binary, reflected)),
                )
                return result
            case ["caught", caught]:
                caught_node, result = self.expr(caught), solver.fresh()
                solver.on(caught_node, functools.partial(instances_of, solver, result=result))
                return result
            case ["star", inner]:
                return self.expr(inner)
        return solver.fresh()  # unknown

    def _container(self, kind: str) -> tuple[Container, int]:
        """A new dict, list, tuple or set the scope's code makes, and the node holding it."""
        self.containers += 1
        container = Container(kind, (self.key, self.containers))
        result = self.solver.fresh()
        self.solver.add(result, [container])
        return container, result

    def _in_place(
        self,
        value: object,
        method: str,
        right: int,
        site: tuple[int, int],
        result: int,
        binary: tuple[str, str | None],
    ) -> None:
        """`value op= right`: value's in-place operator method runs (an instance's, a
        tensor's `__iadd__`); where it has none, `value op right` runs; a list or set takes
        right's elements; anything else stays."""
        solver = self.solver
        if solver.run_operator(self.key, site, value, method, Arguments((right,)), result):
            return
        held = solver.fresh()
        solver.add(held, [value])
        self._binary(held, right, binary[0], binary[1], site, result)
        solver.add(result, [value])
        if isinstance(value, Container) and value.kind in ("list", "set"):
            iterate(solver, self.key, site, right, solver.field(value, None))
        elif not isinstance(value, (Instance, Container, TensorValue)):
            solver.copy(right, result)  # `total = None; total += f`: whichever it is

    def _run_operator(
        self, value: object, method: str, arguments: Arguments, site: tuple[int, int], result: int
    ) -> None:
        self.solver.run_operator(self.key, site, value, method, arguments, result)

    def _binary(
        self, left: int, right: int, method: str, reflected: str | None, site: tuple[int, int], result: int
    ) -> None:
        """`left op right`: each value of left runs its method with right; for a value that has
        none (a number, `1 - x`), each value of right runs its reflected method with left.
        A comparison no method answers is a bool."""
        solver = self.solver
        reflecting: list[bool] = []

        def each_left(value: object) -> None:
            if solver.run_operator(self.key, site, value, method, Arguments((right,)), result):
                return
            if method in COMPARISONS:
                solver.add(result, [Constant("bool")])
            if not reflects(value, method):
                return
            if reflected is not None and not reflecting:
                reflecting.append(True)
                solver.on(right, lambda other: self._run_operator(other, reflected, Arguments((left,)), site, result))

        solver.on(left, each_left)

    def _defaults(self, qname: str, line: int) -> None:
        """A def's parameter defaults and annotations are evaluated where the def runs."""
        scope = self.solver.facts.scope(qname, line)
        if scope is None:
            return
        for param in scope.params:
            if param[2] is not None:
                self.solver.copy(self.expr(param[2]), self.solver.node(("default", qname, line, param[0])))
            if len(param) > 4 and param[4] is not None:
                self.solver.copy(self.expr(param[4]), self.solver.node(("annotation", qname, line, param[0])))
        if scope.returns is not None:
            self.solver.copy(self.expr(tuple(scope.returns)), self.solver.node(("returns", qname, line)))

    def name(self, name: str, definitions: Sequence[int] | None) -> int:
        solver = self.solver
        if definitions is not None:
            if self.scope.kind == "module":
                solver.compile_global(self.scope, name)  # a module's locals are its globals
            rebound = name in self._rebound_inside()
            if len(definitions) == 1 and not rebound:
                return solver.node(("v", self.key, name, definitions[0]))
            result = solver.fresh()
            for ident in definitions:
                solver.copy(solver.node(("v", self.key, name, ident)), result)
            if rebound:  # a nested function's `nonlocal name` assigns it: any call may have
                solver.copy(solver.closure(self.scope.qname, name, self.key[2]), result)
            return result
        for scope in self._enclosing_functions():
            if binds(scope, name):
                return self._enclosing(scope, name)
        result = solver.fresh()
        if not solver.add_global(self.scope.module, name, result, guess=name not in BUILTINS) and name in BUILTINS:
            solver.add(result, [Builtin(name)])
        return result

    def imported(self, dotted: str) -> int:
        solver = self.solver
        result = solver.fresh()
        if solver.facts.exists(dotted):
            solver.add(result, [Module(dotted)])
            return result
        module, _, name = dotted.rpartition(".")
        # a name the index knows only from stubs or bindings (torch._C, torch.conv2d) is from
        # outside, even where a module of the tree re-exports it
        if (
            module
            and solver.facts.exists(module)
            and not solver.known_outside(dotted)
            and not self._imports_itself(module, name, dotted)
        ):
            solver.add_global(module, name, result)
        else:
            solver.add(result, [External(dotted)])
        return result

    def _imports_itself(self, module: str, name: str, dotted: str) -> bool:
        """`from . import _C as _C` in torch/__init__.py, with no torch/_C.py: the global is
        bound only by importing itself, so it names something outside the tree."""
        scope = self.solver.facts.module_scope(module)
        bindings = scope.bindings(name) if scope else []
        return bool(bindings) and all(list(s[2]) == ["import", dotted] for s in bindings)

    def super_(self, line: int, column: int) -> int:
        """`super()` in a method: the class the method is defined in, and its first argument."""
        solver = self.solver
        result = solver.fresh()
        solver.record(self.key, Call(line, column, Builtin("super"), "call"))
        scope = self.scope
        cls = scope.qname.rpartition(".")[0]
        if not scope.params or not [s for s in solver.facts.scopes(cls) if s.kind == "class"]:
            return result
        first = solver.node(("v", self.key, scope.params[0][0], scope.params[0][3]))
        solver.on(
            first,
            lambda value: (
                solver.add(result, [SuperObject(cls, value)]) if isinstance(value, (Instance, Class)) else None
            ),
        )
        return result

    def attribute(self, holder: int, name: str, site: tuple[int, int]) -> int:
        solver = self.solver
        result = solver.fresh()
        solver.on(holder, lambda value: solver.load_attribute(self.key, site, value, name, result))
        return result

    def call(self, expression: Fact) -> int:
        solver = self.solver
        _, function, positional, keywords, line, column = expression
        site = (line, column)
        if function[0] == "attr":
            callee = self.attribute(self.expr(function[1]), function[2], site)
        else:
            callee = self.expr(function)
        arguments = Arguments(
            tuple(self.expr(a) for a in positional if a[0] != "star"),
            tuple((name, self.expr(value)) for name, value in keywords if name is not None),
            tuple(self.expr(a[1]) for a in positional if a[0] == "star"),
            tuple(self.expr(value) for name, value in keywords if name is None),
        )
        result = solver.fresh()
        solver.on(callee, lambda value: solver.invoke(self.key, site, value, arguments, result))
        solver.open_sites.setdefault(self.key, []).append(OpenSite(line, column, callee))
        return result

    def _key_node(self, key: str | int | None) -> int:
        """A node holding the constant subscript handed to `__getitem__`/`__setitem__`."""
        node = self.solver.fresh()
        if key is not None:
            self.solver.add(node, [Constant("str" if isinstance(key, str) else "int", str(key))])
        return node

    def _load_item(
        self, value: object, key: str | int | None, result: int, site: tuple[int, int], index: int | None
    ) -> None:
        """`value[key]`: a container's element; an instance's `__getitem__` (a tensor's, when
        the source writes the item: `x[i]`)."""
        solver = self.solver
        if isinstance(value, Container):
            solver.copy(solver.field(value, key) if key is not None else solver.elements(value), result)
        elif index is not None and isinstance(value, (Instance, TensorValue)):
            key_node = self._key_node(key) if key is not None else index
            solver.run_operator(self.key, site, value, "__getitem__", Arguments((key_node,)), result)
        elif isinstance(value, Instance):  # unpacking
            found = solver.class_attribute(value.cls, "__getitem__")
            if found is not None:
                key_node = self._key_node(key)
                solver.on(found, lambda member: self._item_call(member, value, key_node, result))
            elif solver.is_tensor_class(value.cls):
                solver.add(result, [TENSOR])
        elif isinstance(value, TensorValue):
            solver.add(result, [TENSOR])

    def _item_call(self, member: object, instance: Instance, key_node: int, result: int) -> None:
        bound = self.solver.bind(member, instance)
        if bound is not None:
            self.solver.invoke(self.key, (0, 0), bound, Arguments((key_node,)), result, "method")


def reflects(value: object, method: str) -> bool:
    """Whether `value op other` may run other's reflected method: value is a number, a
    container, an object from outside or an instance without the operator (`1 - x`, `[1] +
    x`), not a str formatting (`"%d" % x`) nor what no operator applies to (None, a function,
    NotImplemented)."""
    if isinstance(value, Constant):
        return value.type in ("int", "float", "bool") or (value.type == "str" and method != "__mod__")
    return isinstance(value, (Container, External, Instance))


# operators whose result, where no method of an operand runs, is a bool
COMPARISONS = frozenset({"__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__", "__contains__"})
