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
        for statement in body:
            tag = statement[0]
            if tag == "bind":
                if self.scope.kind == "module" and statement[1][0] == "local" and statement[2][0] == "call":
                    self._name_call(statement[1][1], statement[2])
                self.bind(statement[1], self.expr(statement[2]))
            elif tag == "eval":
                self.expr(statement[1])
            elif tag == "return":
                self.solver.copy(self.expr(statement[1]), self.solver.node(("return", self.key)))
            elif tag == "yield":
                self.solver.copy(self.expr(statement[1]), self.solver.node(("yield", self.key)))
            elif tag == "raise":
                raised = self.expr(statement[1])
                site = (statement[2], 0)
                self.solver.on(raised, functools.partial(self._raised, site=site))
            elif tag == "guard":
                guards = self.solver.guards.setdefault(self.key, [])
                guards.append((self.expr(statement[1]), bool(statement[2]), statement[3], statement[4]))
            elif tag == "enter":
                held = self.expr(statement[1])
                site = (statement[2], statement[3])
                for name in ("__enter__", "__exit__"):
                    method = self.solver.fresh()
                    self.solver.on(held, functools.partial(self._protocol, name=name, target=method))
                    self.solver.on(method, functools.partial(self._call_protocol, site=site))

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
        solver = self.solver
        tag = target[0]
        if tag == "local":
            solver.copy(value, self.local(target[1], target[2]))
        elif tag == "free":
            solver.copy(value, self.free_target(target[1]))
        elif tag == "attr":
            holder = self.expr(target[1])
            name = target[2]
            site = (target[3], target[4]) if len(target) > 4 else (0, 0)
            solver.on(holder, lambda obj: self._store_attribute(obj, name, value, site))
        elif tag == "item":
            holder = self.expr(target[1])
            key = target[2]
            site, index = self._subscript(target)
            solver.on(holder, lambda obj: self._store_item(obj, key, value, site, index))

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
        solver = self.solver
        tag = expression[0]
        if tag == "name":
            return self.name(expression[1], expression[2])
        if tag == "attr":
            # a property's getter, or `__getattr__`, runs where the name is read
            site = (expression[3], expression[4]) if len(expression) > 4 else (0, 0)
            return self.attribute(self.expr(expression[1]), expression[2], site)
        if tag == "call":
            return self.call(expression)
        if tag == "item":
            holder = self.expr(expression[1])
            key = expression[2]
            site, index = self._subscript(expression)
            result = solver.fresh()
            solver.on(holder, lambda value: self._load_item(value, key, result, site, index))
            return result
        if tag == "binop":
            left, right, result = self.expr(expression[1]), self.expr(expression[2]), solver.fresh()
            self._binary(left, right, expression[3], expression[4], (expression[5], expression[6]), result)
            return result
        if tag == "unop":
            operand, result = self.expr(expression[1]), solver.fresh()
            method, site = expression[2], (expression[3], expression[4])
            solver.on(operand, lambda value: self._run_operator(value, method, Arguments(), site, result))
            return result
        if tag in ("dict", "list", "tuple", "set"):
            self.containers += 1
            container = Container(tag, (self.key, self.containers))
            result = solver.fresh()
            solver.add(result, [container])
            if tag == "dict":
                for key, value in expression[1]:
                    element = self.expr(value)
                    solver.copy(element, solver.field(container, key))
                    if isinstance(key, str):
                        solver.add(solver.node(("keys", container)), [Constant("str", key)])
            else:
                for index, item in enumerate(expression[1]):
                    if item[0] == "elem":
                        solver.copy(self.expr(item), solver.field(container, None))
                    else:
                        solver.copy(self.expr(item), solver.field(container, index if tag == "tuple" else None))
            return result
        if tag == "const":
            result = solver.fresh()
            solver.add(result, [Constant(expression[1], expression[2] if len(expression) > 2 else None)])
            return result
        if tag == "def" or tag == "lambda":
            result = solver.fresh()
            made = self.key[2] if self.key[2] is not None and is_made(self.key[2]) else None
            solver.add(result, [Function(expression[1], expression[2], made)])
            self._defaults(expression[1], expression[2])
            return result
        if tag == "class":
            result = solver.fresh()
            solver.add(result, [Class(expression[1], expression[2])])
            return result
        if tag == "import":
            return self.imported(expression[1])
        if tag == "any":
            result = solver.fresh()
            for part in expression[1]:
                solver.copy(self.expr(part), result)
            return result
        if tag == "elem":
            iterable = self.expr(expression[1])
            result = solver.fresh()
            iterate(solver, self.key, (expression[2], expression[3]), iterable, result)
            return result
        if tag == "super":
            return self.super_(expression[1], expression[2])
        if tag == "augmented":
            left, right, result = self.expr(expression[1]), self.expr(expression[2]), solver.fresh()
            site, method = (expression[4], expression[5]), expression[3]
            binary = expression[6:8] if len(expression) > 7 else None
            solver.on(left, lambda value: self._in_place(value, method, right, site, result, binary))
            return result
        if tag == "caught":
            caught, result = self.expr(expression[1]), solver.fresh()
            solver.on(caught, functools.partial(instances_of, solver, result=result))
            return result
        if tag == "star":
            return self.expr(expression[1])
        return solver.fresh()  # unknown

    def _in_place(
        self,
        value: object,
        method: str,
        right: int,
        site: tuple[int, int],
        result: int,
        binary: Fact | None,
    ) -> None:
        """`value op= right`: value's in-place operator method runs (an instance's, a
        tensor's `__iadd__`); where it has none, `value op right` runs; a list or set takes
        right's elements; anything else stays."""
        solver = self.solver
        if solver.run_operator(self.key, site, value, method, Arguments((right,)), result):
            return
        if binary is not None:
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
