"""A points-to solver for Python, discovering the call graph as values flow.

Inclusion-based (Andersen style), on demand: it starts from the functions a query asks
about and reads only what values reach from there. Each node of the constraint graph
(a local's definition, an instance field, a function's return, a container's element, an
expression's value) holds a set of abstract values (values.py). Values move along copy
edges; where what an expression does depends on its operand (an attribute load, a call, an
index), a handler runs for each value the operand gains, and may add nodes, edges and
values of its own. The solver stops when no set grows.

Context: a method reached through an instance runs once per class of receiver (its
`self` is that class's instance), so `Module._call_impl` called on a Conv2d reaches
Conv2d.forward and not every forward of the tree. Functions called plainly have one
context, but for a factory (a function that returns a closure: a decorator's wrapper,
boolean_dispatch): each call of it runs in a context of its own, as does the closure it makes,
so that `max_pool2d = boolean_dispatch(...)` calls only what that call passed. Instances are
one per class, containers one per expression and context.

Operators are calls of their operand's methods, as Python's data model makes them: `a + b`
runs `a.__add__(b)`, or, where a has none, `b.__radd__(a)`; `x[i]`, `x += 1`, `-x` and
comparisons likewise. On a tensor, torch/_tensor.py's Python comes first, then the method of
the C++ base class (a TensorMethod, whose operators python_edges.py finds).

What it records is the calls: from each (function, context), at each line, to a function
of the tree in a context, a name outside what it reads (a binding, another package), a
builtin or a tensor method. A call whose callee it knows nothing about is kept as a site,
for the caller to resolve by name.
"""

from __future__ import annotations

import functools
import re
from collections import deque
from collections.abc import Callable, Collection, Iterable

from explorer.flow_schema import Fact
from explorer.model import Key
from explorer.names import TORCH_AUTOGRAD_FUNCTIONS, TORCH_MODULE_CLASSES
from explorer.resolve.flow.builtin_models import (
    CONTAINER_METHODS,
    VALUE_TYPES,
    builtin_call,
    builtin_method_result,
    container_method,
    iterate,
    setattr_call,
)
from explorer.resolve.flow.calls import Arguments, Call, Context, OpenSite, ScopeKey, argument_for, binds, is_made
from explorer.resolve.flow.compiler import Compiler
from explorer.resolve.flow.facts import FlowFacts, Scope
from explorer.resolve.flow.values import (
    IDENTITY,
    TENSOR,
    AutogradApply,
    BoundMethod,
    Builtin,
    BuiltinMethod,
    Class,
    ClassMethod,
    Constant,
    Container,
    ContainerMethod,
    External,
    Function,
    Generator,
    Instance,
    Module,
    ObjectSetattr,
    Partial,
    Property,
    StaticMethod,
    SuperObject,
    TensorMethod,
    TensorValue,
)

TENSOR_CLASSES = frozenset({"torch._tensor.Tensor", "torch.Tensor", "torch._C.TensorBase", "torch._C._TensorBase"})
# torch.Tensor as the tree's Python defines it (torch/_tensor.py): its own methods (backward,
# __rsub__, `__neg__ = _C.TensorBase.neg`) come before those the C++ base class binds
PYTHON_TENSOR = "torch._tensor.Tensor"
TENSOR_BASES = frozenset({"torch._C.TensorBase", "torch._C._TensorBase"})
_AUTOGRAD_FUNCTION = "autograd.function.Function"
# torch's classes as a tree without torch's source names them
_DICT_MAKERS = frozenset({"collections.OrderedDict", "collections.defaultdict", "typing.OrderedDict"})
# Functions from outside that return their first argument: PyTorch's docstring attacher
# (`conv2d = _add_docstr(torch.conv2d, "...")` is torch.conv2d).
_RETURNS_FIRST_ARGUMENT = frozenset({"torch._C._add_docstr", "torch._add_docstr"})
_WRAPS = frozenset({"functools.wraps"})
# torch.utils.cpp_extension's builders, which give back the module they compile
_BUILDS_EXTENSION = frozenset({"torch.utils.cpp_extension.load", "torch.utils.cpp_extension.load_inline"})
_DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_NOTHING: frozenset[object] = frozenset()
_NAMING_ATTRIBUTES = frozenset(
    {"__name__", "__qualname__", "__module__", "__doc__"}
)  # str on functions, classes, modules
_MAX_VALUES = 64  # a set larger than this is capped: more values would be noise, not answers
# Steps (values offered to a node) one start may take. The starts of a trace to cuDNN, or of
# the export of torch/nn, take up to 320,000 on PyTorch 2.4 (a second or two); a benchmark
# script's run_model, whose values reach dynamo, FSDP and inductor, took 1.8 million in a
# minute without an end in sight.
STEPS_PER_START = 500_000
# Steps per scope of a whole tree solved at once (`explorer callgraph`): PyTorch 2.4's 97,888
# scopes take 20.4 million (208 a scope, three and a half minutes), five times less than this.
STEPS_PER_SCOPE = 1_000


class WorkLimitReached(Exception):
    """A start took more steps than its budget (STEPS_PER_START): the solver is left part way
    through, and must not be asked again."""


class Solver:
    def __init__(
        self,
        facts: FlowFacts,
        mro: Callable[[str], list[str]],
        binds_operator: Callable[[str], bool],
        known_outside: Callable[[str], bool],
        outside_bases: Callable[[str], Collection[str]],
        contexts: bool = True,
        outside_class: Callable[[str], bool] = lambda dotted: False,
    ) -> None:
        self.facts = facts
        # a method solved once per receiver class (a trace), or once for all (a call graph)
        self.contexts = contexts
        self._mro = mro  # a class's MRO as qualified names (from the index)
        self._binds_operator = binds_operator  # whether a dotted name is a torch binding
        self.known_outside = known_outside  # whether the index knows a name only from stubs or bindings
        # whether a name from outside is a class (of the stubs, or bound from C++): calling it
        # makes an instance, whose methods are looked up on it (`w = torch._C.PyTorchFileWriter(f)`)
        self._outside_class = outside_class
        # a class's bases along its MRO that the tree has no class for, as dotted names:
        # `torch.nn.Module` where torch is outside the tree (an extension's or a user's tree)
        self._outside_bases = outside_bases
        self._keys: dict[Key, int] = {}
        # Per node, each of these is None (nothing yet), one item, or several: most of the
        # million nodes a whole-tree call graph makes hold one value, feed one node and have
        # one handler, and a dict or list for each would be most of its memory. Several
        # values are a dict as an ordered set, in the order they arrived, so that what a
        # capped node keeps, and every result, is the same from run to run (sets iterate
        # by hash).
        self._values: list[object | dict[object, None] | None] = []
        self._copies: list[int | list[int] | None] = []
        self._handlers: list[Callable[[object], None] | list[Callable[[object], None]] | None] = []
        self._interned: dict[object, object] = {}  # one object for equal values
        self._fields: dict[Container, list[int]] = {}  # the field nodes of each container, as made
        self._queue: deque[tuple[int, list[object]]] = deque()
        # scopes made reachable, compiled by solve(): compiling one from inside another's
        # handler would recurse as deep as the call chain is long
        self._to_compile: deque[tuple[Scope, ScopeKey, Fact | None]] = deque()  # None: the whole body
        self.capped: set[int] = set()  # nodes whose values were capped
        self.calls: dict[ScopeKey, set[Call]] = {}
        self.open_sites: dict[ScopeKey, list[OpenSite]] = {}
        self._active: set[ScopeKey] = set()
        self._compiled_classes: set[str] = set()
        self._compiled_modules: set[str] = set()
        self._compiled_globals: set[tuple[str, str]] = set()  # (module, name) whose bindings are compiled
        self._instances: set[str] = set()
        self._free_assigned: dict[str, dict[str, set[str]]] = {}  # per module: see nonlocally_assigned
        # (module scope, call site) of `name = factory(...)` at a module's top level, to its
        # public name (`torch.nn.functional.max_pool2d`)
        self.named_calls: dict[tuple[ScopeKey, tuple[int, int]], str] = {}
        # per scope, its guards: (the node of the guarding name, the truth its lines run on,
        # first line, last line)
        self.guards: dict[ScopeKey, list[tuple[int, bool, int, int]]] = {}
        self.steps = 0  # calls of add(), in all
        self._budget = STEPS_PER_START
        self._step_limit = STEPS_PER_START

    # -- the constraint graph --------------------------------------------------------------

    def node(self, key: Key) -> int:
        found = self._keys.get(key)
        if found is None:
            found = self._keys[key] = self.fresh()
        return found

    def fresh(self) -> int:
        """A node no key names (an expression's value)."""
        self._values.append(None)
        self._copies.append(None)
        self._handlers.append(None)
        return len(self._values) - 1

    def values(self, node: int) -> Collection[object]:
        held = self._values[node]
        if held is None:
            return _NOTHING
        return held if isinstance(held, dict) else (held,)

    def add(self, node: int, values: Iterable[object]) -> None:
        self.steps += 1
        held = self._values[node]
        if held is None:
            count, new = 0, list(dict.fromkeys(values))
        elif isinstance(held, dict):
            count, new = len(held), [value for value in dict.fromkeys(values) if value not in held]
        else:
            count, new = 1, [value for value in dict.fromkeys(values) if value != held]
        if not new:
            return
        room = max(0, _MAX_VALUES - count)
        if len(new) > room:
            new = self._past_cap(node, held, new, room)
            if not new:
                return
        interned = self._interned
        new = [interned.setdefault(value, value) for value in new]
        if held is None and len(new) == 1:
            self._values[node] = new[0]
        else:
            if not isinstance(held, dict):
                held = self._values[node] = {} if held is None else {held: None}
            held.update(dict.fromkeys(new))
        self._queue.append((node, new))

    def _past_cap(self, node: int, held: object, new: list[object], room: int) -> list[object]:
        """What of `new` a node with `room` left keeps: a constant past the cap is kept as its
        type (a table of a hundred names still holds strs, whose methods are no operators);
        anything else past it is dropped, and the node counted as capped."""
        kept, rest = new[:room], new[room:]
        if any(not isinstance(value, Constant) for value in rest):
            self.capped.add(node)
        widened = dict.fromkeys(Constant(value.type) for value in rest if isinstance(value, Constant))
        holds = held if isinstance(held, dict) else (held,)
        return kept + [value for value in widened if value not in holds and value not in kept]

    def copy(self, source: int, target: int) -> None:
        if source == target:
            return
        targets = self._copies[source]
        if targets is None:
            self._copies[source] = target
        elif isinstance(targets, int):
            self._copies[source] = [targets, target]
        else:
            targets.append(target)
        if self._values[source] is not None:
            self.add(target, list(self.values(source)))

    def on(self, node: int, handler: Callable[[object], None]) -> None:
        handlers = self._handlers[node]
        if handlers is None:
            self._handlers[node] = handler
        elif isinstance(handlers, list):
            handlers.append(handler)
        else:
            self._handlers[node] = [handlers, handler]
        for value in list(self.values(node)):
            handler(value)

    def solve(self) -> None:
        while self._queue or self._to_compile:
            if self.steps > self._step_limit:
                raise WorkLimitReached(f"more than {self._budget:,} steps")
            if self._to_compile:
                scope, key, statements = self._to_compile.popleft()
                Compiler(self, scope, key).statements(scope.body if statements is None else statements)
                continue
            node, new = self._queue.popleft()
            targets = self._copies[node]
            if targets is not None:
                for target in [targets] if isinstance(targets, int) else list(targets):
                    self.add(target, new)
            handlers = self._handlers[node]
            if handlers is not None:
                for handler in list(handlers) if isinstance(handlers, list) else [handlers]:
                    for value in new:
                        handler(value)

    # -- entry points ----------------------------------------------------------------------

    def allow(self, steps: int) -> None:
        """Let the next solving take this many steps before it gives up (WorkLimitReached)."""
        self._budget = steps
        self._step_limit = self.steps + steps

    def start(self, qname: str, line: int, context: Context) -> ScopeKey | None:
        """Make a function reachable, as called from outside (its parameters know nothing
        but `self`, which is an instance of `context`), and solve."""
        scope = self.facts.scope(qname, line)
        if scope is None or scope.kind not in ("function", "lambda"):
            return None
        receiver = Instance(context) if context and not is_made(context) else None
        self.allow(STEPS_PER_START)
        key = self.activate(scope, context, receiver)
        self.solve()
        return key

    def activate(self, scope: Scope, context: Context, receiver: Instance | Class | None = None) -> ScopeKey:
        if not self.contexts:
            context = None
        key: ScopeKey = (scope.qname, scope.line, context)
        if key in self._active:
            if receiver is not None and scope.params:
                self.add(self._param(key, scope.params[0]), [receiver])
            return key
        self._active.add(key)
        if receiver is not None and scope.params:
            self.add(self._param(key, scope.params[0]), [receiver])
        if context is not None and not is_made(context):
            self.instance_made(context)
        if scope.returns is not None:
            # `def _get_default_group() -> ProcessGroup`: a class C++ binds, which the body may
            # not show (it returns a global set elsewhere)
            declared = self.node(("returns", scope.qname, scope.line))
            self.on(declared, functools.partial(self._declared_return, self.node(("return", key))))
            self._define(scope)
        for param in scope.params:
            if param[2] is not None:
                self.copy(self.node(("default", scope.qname, scope.line, param[0])), self._param(key, param))
            if len(param) > 4 and param[4] is not None:
                # `input: Tensor`: what the parameter is declared to be, whoever calls
                declared = self.node(("annotation", scope.qname, scope.line, param[0]))
                self.on(declared, functools.partial(self._declared, self._param(key, param)))
                self._define(scope)
            # what a closure inside reads of it (`fn` in a decorator's wrapper)
            self.copy(self._param(key, param), self.closure(scope.qname, param[0], context))
        self._to_compile.append((scope, key, None))
        return key

    def closure(self, qname: str, name: str, context: Context) -> int:
        """The node of what function `qname`'s local `name` holds for the closures made inside
        it: in a factory's call (context "@..."), that call's alone, which also flows into
        what any call's closures see."""
        every = self.node(("closure", qname, name))
        if context is None or not is_made(context):
            return every
        key = ("closure", qname, name, context)
        if key not in self._keys:
            self.copy(self.node(key), every)
        return self.node(key)

    def factory_context(self, caller: ScopeKey, site: tuple[int, int]) -> str:
        """The context of a factory's call: the public name the caller's module binds its
        result to, else the call's place."""
        named = self.named_calls.get((caller, site))
        return f"@{named}" if named else f"@{caller[0]}:{site[0]}:{site[1]}"

    def _declared(self, parameter: int, declared_type: object) -> None:
        is_tensor = (
            self.is_tensor_class(declared_type.qname)
            if isinstance(declared_type, Class)
            else (isinstance(declared_type, External) and declared_type.dotted in TENSOR_CLASSES)
        )
        if is_tensor:
            self.add(parameter, [TENSOR])

    def _declared_return(self, returned: int, declared_type: object) -> None:
        """A function declared to return a class the tree has no source for but C++ binds or a
        stub declares returns an instance of it."""
        if isinstance(declared_type, External) and self._outside_class(declared_type.dotted):
            self.add(returned, [Instance(declared_type.dotted)])

    def _define(self, function: Scope) -> None:
        """Run the statement that defines a function (its parameters' defaults and declared
        types are worked out there), when the function is reached other than through it: the
        start of a trace."""
        outer = self.facts.scope_around(function)
        if outer is None:
            return
        if outer.kind == "module":
            self.compile_global(outer, function.qname.rpartition(".")[2])
        elif outer.kind == "class":
            self.compile_class(outer)

    def nonlocally_assigned(self, function: Scope) -> frozenset[str]:
        if function.module not in self._free_assigned:
            # per module, once: the names each scope's nested scopes assign as free
            by_outer: dict[str, set[str]] = {}
            for inner in (self.facts.module(function.module) or {}).values():
                free = set(inner.free)
                outer = inner.qname
                while free and "." in outer:
                    outer = outer.rpartition(".")[0]
                    by_outer.setdefault(outer, set()).update(free)
            self._free_assigned[function.module] = by_outer
        free = self._free_assigned[function.module].get(function.qname, set())
        return frozenset(name for name in free if binds(function, name))

    def is_active(self, key: ScopeKey) -> bool:
        return key in self._active

    def off_default(self, key: ScopeKey, line: int) -> bool:
        """Whether a line of a scope runs only where a guarding name is other than its default
        makes it: under `if flag:` where `flag = default` holds False (every value the
        definitions made outside any branch give it is a bool or None of the other truth)."""
        for node, truth, first, last in self.guards.get(key, ()):
            if first <= line <= last:
                values = self.values(node)
                if values and all(truth_of(value) is (not truth) for value in values):
                    return True
        return False

    def existing(self, key: Key) -> int | None:
        """The node a key names, where one was made."""
        return self._keys.get(key)

    def _param(self, key: ScopeKey, param: Fact) -> int:
        return self.node(("v", key, param[0], param[3]))

    # -- what values do --------------------------------------------------------------------

    def record(self, caller: ScopeKey, call: Call) -> None:
        self.calls.setdefault(caller, set()).add(call)

    def invoke(
        self,
        caller: ScopeKey,
        site: tuple[int, int],
        callee: object,
        arguments: Arguments,
        result: int,
        kind: str = "call",
    ) -> None:
        """Call `callee` (one value) with `arguments`, its result into `result`."""
        line, column = site
        if isinstance(callee, Function):
            self._invoke_function(caller, site, callee, None, None, arguments, result, kind)
        elif isinstance(callee, BoundMethod):
            receiver = callee.receiver
            context = receiver.cls if isinstance(receiver, Instance) else receiver.qname
            self._invoke_function(caller, site, callee.function, context, receiver, arguments, result, "method")
        elif isinstance(callee, Class):
            self.construct(caller, site, callee.qname, arguments, result)
        elif isinstance(callee, Instance):
            call = self.class_attribute(callee.cls, "__call__")
            if call is None and not TORCH_MODULE_CLASSES.isdisjoint(self._outside_bases(callee.cls)):
                call = self.class_attribute(callee.cls, "forward")  # as Module.__call__ does
            if call is not None:
                node = self.fresh()
                self.on(node, lambda value: self._call_bound(caller, site, value, callee, arguments, result))
                self.copy(call, node)
        elif isinstance(callee, External):
            self.record(caller, Call(line, column, callee, kind))
            self._external_result(callee.dotted, arguments, result)
        elif isinstance(callee, Builtin):
            self.record(caller, Call(line, column, callee, kind))
            builtin_call(self, caller, site, callee.name, arguments, result)
        elif isinstance(callee, TensorMethod):
            self.record(caller, Call(line, column, callee, "method"))
            self.add(result, [TENSOR])
        elif callee is IDENTITY and arguments.positional:
            self.copy(arguments.positional[0], result)
        elif isinstance(callee, Partial):
            self.invoke(caller, site, callee.function, arguments, result)
        elif isinstance(callee, ContainerMethod):
            if callee.container.site[0] != "external":  # an OrderedDict's methods are not dict's
                self.record(caller, Call(line, column, Builtin(f"{callee.container.kind}.{callee.name}"), "method"))
            container_method(self, callee, arguments, result)
        elif isinstance(callee, BuiltinMethod):
            self.record(caller, Call(line, column, Builtin(f"{callee.type}.{callee.name}"), "method"))
            builtin_method_result(self, callee, result)
        elif isinstance(callee, ObjectSetattr):
            # Inside a class's own __setattr__, forwarding to object's stores what `obj.x = v`
            # stored already (a field per name); its parameters hold every name and value
            # assigned anywhere, which would cross every field with every value
            if caller[0].rpartition(".")[2] != "__setattr__":
                setattr_call(self, callee.receiver, arguments)
        elif isinstance(callee, AutogradApply):
            forward = self.class_attribute(callee.cls, "forward")
            if forward is not None:
                ctx = self.fresh()  # the ctx the engine makes: an instance of the class, a FunctionCtx
                self.add(ctx, [Instance(callee.cls)])
                shifted = Arguments(
                    (ctx, *arguments.positional), arguments.keywords, arguments.star, arguments.double_star
                )
                node = self.fresh()
                self.on(
                    node,
                    lambda value: self.invoke(
                        caller,
                        site,
                        value.function if isinstance(value, StaticMethod) else value,
                        shifted,
                        result,
                        "call",
                    ),
                )
                self.copy(forward, node)
        elif isinstance(callee, StaticMethod):
            self.invoke(caller, site, callee.function, arguments, result, kind)

    def run_operator(
        self,
        caller: ScopeKey,
        site: tuple[int, int],
        value: object,
        method: str,
        arguments: Arguments,
        result: int,
    ) -> bool:
        """`value.method(*arguments)` where an operator runs it (`a + b` is `a.__add__(b)`,
        `x[i]` is `x.__getitem__(i)`): the method of value's class in the tree, else, on a
        tensor, Tensor's. Whether value has the method (where not, Python tries the other
        operand's reflected method)."""
        if isinstance(value, Instance):
            found = self.class_attribute(value.cls, method)
            if found is not None:
                self.on(
                    found, lambda member: self._call_bound(caller, site, member, value, arguments, result, "operator")
                )
                return True
            if not self.is_tensor_class(value.cls):
                return False
        elif not isinstance(value, TensorValue):
            return False
        found = self.python_tensor_attribute(method)
        if found is None:
            self._tensor_method_call(caller, site, method, result)
        else:
            receiver = Instance(PYTHON_TENSOR)
            self.on(found, lambda member: self._tensor_member_call(caller, site, member, receiver, arguments, result))
        return True

    def python_tensor_attribute(self, name: str) -> int | None:
        """The node of Tensor's attribute `name` where the tree's torch/_tensor.py defines it."""
        if self.facts.class_scope(PYTHON_TENSOR) is None:
            return None
        return self.class_attribute(PYTHON_TENSOR, name)

    def _tensor_member_call(
        self,
        caller: ScopeKey,
        site: tuple[int, int],
        member: object,
        receiver: Instance,
        arguments: Arguments,
        result: int,
    ) -> None:
        """Tensor's own operator method: a method of the tree's Python, or a method of the C++
        base it names (`__neg__ = _C.TensorBase.neg` runs the neg operator on the tensor)."""
        if isinstance(member, External) and member.dotted.rpartition(".")[0] in TENSOR_BASES:
            self._tensor_method_call(caller, site, member.dotted.rpartition(".")[2], result)
        else:
            self._call_bound(caller, site, member, receiver, arguments, result, "operator")

    def _tensor_method_call(self, caller: ScopeKey, site: tuple[int, int], name: str, result: int) -> None:
        self.record(caller, Call(site[0], site[1], TensorMethod(name), "operator"))
        self.add(result, [TENSOR])

    def _call_bound(
        self,
        caller: ScopeKey,
        site: tuple[int, int],
        value: object,
        receiver: Instance,
        arguments: Arguments,
        result: int,
        kind: str = "method",
    ) -> None:
        bound = self.bind(value, receiver)
        if isinstance(bound, BoundMethod):
            self._invoke_function(caller, site, bound.function, receiver.cls, receiver, arguments, result, kind)
        elif bound is not None:
            self.invoke(caller, site, bound, arguments, result, kind)

    def _invoke_function(
        self,
        caller: ScopeKey,
        site: tuple[int, int],
        function: Function,
        context: Context,
        receiver: Instance | Class | None,
        arguments: Arguments,
        result: int,
        kind: str,
    ) -> None:
        scope = self.facts.scope(function.qname, function.line)
        if scope is None:
            return
        if function.made is not None and self.contexts:
            context = function.made  # a closure runs in the call of the factory that made it
        elif receiver is None and self.contexts and scope.makes_closure:
            context = self.factory_context(caller, site)
        key = self.activate(scope, context, receiver)
        self.record(caller, Call(site[0], site[1], key, kind))
        parameters = list(scope.params)
        if receiver is not None and parameters:
            parameters = parameters[1:]
        self._bind_arguments(key, parameters, arguments)
        if scope.generator:
            self.add(result, [Generator(function, context)])
            return
        returned = scope.returned_parameter
        passed = argument_for(parameters, arguments, returned) if returned is not None else None
        if passed is not None:
            # `def deco(fn): ...; return fn`: this call gives back what this call passed,
            # not what every call of it passed (each decorated method stays itself)
            self.copy(passed, result)
        else:
            self.copy(self.node(("return", key)), result)

    def _bind_arguments(self, key: ScopeKey, parameters: list[Fact], arguments: Arguments) -> None:
        positional = [p for p in parameters if p[1] == "pos"]
        by_name = {p[0]: p for p in parameters if p[1] in ("pos", "kwonly")}
        star = next((p for p in parameters if p[1] == "star"), None)
        double_star = next((p for p in parameters if p[1] == "starstar"), None)
        for index, argument in enumerate(arguments.positional):
            if index < len(positional):
                self.copy(argument, self._param(key, positional[index]))
            elif star is not None:
                self._into_container(self._param(key, star), ("args", key), "tuple", argument)
        for spread in arguments.star:  # f(*xs): any element may be any remaining parameter
            element = self.fresh()
            iterate(self, key, (0, 0), spread, element)
            for parameter in positional[len(arguments.positional) :]:
                self.copy(element, self._param(key, parameter))
            if star is not None:
                self._into_container(self._param(key, star), ("args", key), "tuple", element)
        for name, argument in arguments.keywords:
            if name in by_name:
                self.copy(argument, self._param(key, by_name[name]))
            elif double_star is not None:
                self._into_container(self._param(key, double_star), ("kwargs", key), "dict", argument, name)
        for spread in arguments.double_star:
            element = self.fresh()
            self.on(spread, functools.partial(self._all_elements, target=element))
            for parameter in by_name.values():
                self.copy(element, self._param(key, parameter))
            if double_star is not None:
                self.copy(spread, self._param(key, double_star))

    def _into_container(self, holder: int, site: Key, kind: str, element: int, key: str | int | None = None) -> None:
        container = Container(kind, site)
        self.add(holder, [container])
        self.copy(element, self.field(container, key))

    def construct(self, caller: ScopeKey, site: tuple[int, int], cls: str, arguments: Arguments, result: int) -> None:
        """`C(...)`: an instance, initialised by the `__init__` its MRO finds."""
        instance = Instance(cls)
        self.add(result, [instance])
        if self.is_tensor_class(cls):
            self.add(result, [TENSOR])
        new = self.class_attribute(cls, "__new__")
        if new is not None:
            # __new__ runs first, given the class (it is a static method without the decorator)
            class_node = self.fresh()
            self.add(class_node, [Class(cls)])
            with_class = Arguments(
                (class_node, *arguments.positional), arguments.keywords, arguments.star, arguments.double_star
            )
            node = self.fresh()
            self.on(
                node,
                lambda value: (
                    self.invoke(caller, site, value, with_class, self.fresh(), "new")
                    if isinstance(value, Function)
                    else None
                ),
            )
            self.copy(new, node)
        init = self.class_attribute(cls, "__init__")
        if init is not None:
            node = self.fresh()
            # constructing is a call of the class: its __init__ is reached by "call"
            self.on(
                node, lambda value: self._call_bound(caller, site, value, instance, arguments, self.fresh(), "call")
            )
            self.copy(init, node)

    def instance_made(self, cls: str) -> None:
        """An instance of `cls` exists: its fields are those its `__init__` sets, run once
        with nothing known of its arguments (a trace may start past the construction)."""
        if cls in self._instances:
            return
        self._instances.add(cls)
        init = self.class_attribute(cls, "__init__")
        if init is not None:
            instance = Instance(cls)
            node = self.fresh()
            root: ScopeKey = ("<instance>", 0, cls)
            self.on(node, lambda value: self._initialise(root, value, instance))
            self.copy(init, node)

    def _initialise(self, root: ScopeKey, value: object, instance: Instance) -> None:
        bound = self.bind(value, instance)
        if isinstance(bound, BoundMethod):
            scope = self.facts.scope(bound.function.qname, bound.function.line)
            if scope is not None:
                self.activate(scope, instance.cls, instance)

    def _external_result(self, dotted: str, arguments: Arguments, result: int) -> None:
        if dotted in _DICT_MAKERS or dotted.rpartition(".")[2] == "OrderedDict":
            self.add(result, [Container("dict", ("external", dotted, result))])
        elif dotted in _RETURNS_FIRST_ARGUMENT and arguments.positional:
            self.copy(arguments.positional[0], result)
        elif dotted in _WRAPS:
            self.add(result, [IDENTITY])  # @functools.wraps(fn) gives back the wrapper it decorates
        elif dotted == "functools.partial" and arguments.positional:
            self.on(arguments.positional[0], lambda value: self.add(result, [Partial(value)]))
        elif self._binds_operator(dotted):
            self.add(result, [TENSOR])
        elif self._outside_class(dotted):
            self.add(result, [Instance(dotted)])
        elif dotted in _BUILDS_EXTENSION:
            # load(name="ext", ...) gives back the compiled module `ext`: its functions are the
            # bindings of that module (names/extensions.py), as `import ext` would give
            name = dict(arguments.keywords).get("name", arguments.positional[0] if arguments.positional else None)
            if name is not None:
                self.on(
                    name,
                    lambda value: (
                        self.add(result, [External(value.value)])
                        if isinstance(value, Constant) and value.value and _DOTTED_NAME.fullmatch(value.value)
                        else None
                    ),
                )

    # -- attributes ------------------------------------------------------------------------

    def load_attribute(self, caller: ScopeKey, site: tuple[int, int], value: object, name: str, result: int) -> None:
        if name in _NAMING_ATTRIBUTES and isinstance(value, (External, Function, Class, Module)):
            # `fn.__name__` is a str, not a member called `__name__` of what fn is
            self.add(result, [Constant("str")])
        elif isinstance(value, Instance) and name == "__dict__":
            self.add(result, [Container("dict", ("__dict__", value.cls))])
        elif isinstance(value, Instance):
            self.instance_made(value.cls)
            self.copy(self.node(("field", value.cls, name)), result)
            outside = self._outside_member(value.cls, name)
            found = self.class_attribute(value.cls, name) if outside is None else None
            if outside is not None:  # a bound base's method, before any Python base that has one
                self.add(result, [External(f"{outside}.{name}")])
            elif found is not None:
                node = self.fresh()
                self.on(node, lambda member: self._instance_member(caller, site, member, value, result))
                self.copy(found, node)
            elif self.is_tensor_class(value.cls):
                self.add(result, [TensorMethod(name)])
            elif (owner := self._stub_base(value.cls)) is not None:
                self.add(result, [External(f"{owner}.{name}")])
        elif isinstance(value, Class):
            found = self.class_attribute(value.qname, name)
            if found is None and name == "apply" and self._is_autograd_function(value.qname):
                # the tree has no source for Function.apply: it runs forward
                self.add(result, [AutogradApply(value.qname)])
                return
            if found is not None:
                node = self.fresh()
                self.on(node, lambda member: self.add(result, [self._class_member(member, value)]))
                self.copy(found, node)
            elif (owner := self._stub_base(value.qname)) is not None:
                # `torch.Tensor._make_subclass`: defined by a base the stubs declare
                self.add(result, [External(f"{owner}.{name}")])
        elif isinstance(value, Module):
            self.add_global(value.name, name, result)
        elif isinstance(value, External):
            # a member read off an instance of a bound class (`dev.device`) holds some value,
            # not a namespace: what is read off it in turn is unknown
            if not self._outside_class(value.dotted.rpartition(".")[0]):
                self.add(result, [External(f"{value.dotted}.{name}")])
        elif isinstance(value, TensorValue):
            found = self.python_tensor_attribute(name)
            if found is not None:
                tensor = Instance(PYTHON_TENSOR)
                node = self.fresh()
                self.on(node, lambda member: self._instance_member(caller, site, member, tensor, result))
                self.copy(found, node)
            else:
                self.add(result, [TensorMethod(name)])
        elif isinstance(value, SuperObject):
            cls = value.receiver.cls if isinstance(value.receiver, Instance) else value.receiver.qname
            outside = self._outside_member(cls, name, after=value.cls)
            found = self.class_attribute(cls, name, after=value.cls) if outside is None else None
            receiver = value.receiver
            if outside is not None:
                # `super().synchronize()` in torch.cuda.Event: _CudaEventBase's, which comes
                # before the abstract _EventBase.synchronize in the MRO
                self.add(result, [External(f"{outside}.{name}")])
            elif found is not None:
                node = self.fresh()
                if isinstance(receiver, Instance):
                    self.on(node, lambda member: self._instance_member(caller, site, member, receiver, result))
                else:
                    self.on(node, lambda member: self.add(result, [self._class_member(member, receiver)]))
                self.copy(found, node)
            elif name == "__setattr__":
                self.add(result, [ObjectSetattr(value.receiver if isinstance(value.receiver, Instance) else None)])
            elif name == "apply" and self._is_autograd_function(cls):
                # Function.apply's `super().apply(*args)`: the native base runs cls.forward
                self.add(result, [AutogradApply(cls)])
        elif isinstance(value, Container):
            if name in CONTAINER_METHODS[value.kind]:  # `args.softmax` is no tuple's: no value
                self.add(result, [ContainerMethod(value, name)])
        elif isinstance(value, Constant) and name in VALUE_TYPES.get(value.type, ()):
            self.add(result, [BuiltinMethod(value.type, name)])
        elif isinstance(value, Builtin) and value.name == "object" and name == "__setattr__":
            self.add(result, [ObjectSetattr(None)])

    def _instance_member(
        self, caller: ScopeKey, site: tuple[int, int], member: object, instance: Instance, result: int
    ) -> None:
        if isinstance(member, Property):
            getter = self.bind(member.getter, instance)
            if getter is not None:
                self.invoke(caller, site, getter, Arguments(), result, "method")
            return
        bound = self.bind(member, instance)
        if bound is not None:
            self.add(result, [bound])

    def bind(self, member: object, instance: Instance) -> object | None:
        """A class attribute read through an instance: a function becomes a bound method."""
        if isinstance(member, Function):
            return BoundMethod(member, instance)
        if isinstance(member, ClassMethod):
            return BoundMethod(member.function, Class(instance.cls)) if isinstance(member.function, Function) else None
        if isinstance(member, StaticMethod):
            return member.function
        return member

    def _class_member(self, member: object, cls: Class) -> object:
        if isinstance(member, ClassMethod) and isinstance(member.function, Function):
            return BoundMethod(member.function, cls)
        if isinstance(member, StaticMethod):
            return member.function
        return member

    def class_attribute(self, cls: str, name: str, after: str | None = None) -> int | None:
        """The node of `name` in the first class along `cls`'s MRO (after `after`) whose body
        binds it; None when no class of the tree does."""
        mro = self._mro(cls)
        if after is not None:
            mro = mro[mro.index(after) + 1 :] if after in mro else []
        for owner in mro:
            scope = self.facts.class_scope(owner)
            if scope is not None and scope.bindings(name):
                self.compile_class(scope)
                return self.node(("class", owner, name))
        return None

    def _outside_member(self, cls: str, name: str, after: str | None = None) -> str | None:
        """The class along `cls`'s MRO (after `after`) that the tree has no source for and that
        binds `name` (a C++ type object's method: torch._C._CudaEventBase.synchronize), when it
        comes before any class of the tree whose body binds the name; else None."""
        mro = self._mro(cls)
        if after is not None:
            mro = mro[mro.index(after) + 1 :] if after in mro else []
        for owner in mro:
            scope = self.facts.class_scope(owner)
            if scope is not None:
                if scope.bindings(name):
                    return None
            elif self.known_outside(owner) and self.known_outside(f"{owner}.{name}"):
                return owner
        return None

    def _stub_base(self, cls: str) -> str | None:
        """The first class along the MRO that the tree has no source for but the index knows
        (a class of the stubs, such as torch._C.TensorBase)."""
        for owner in self._mro(cls):
            if self.facts.class_scope(owner) is None and self.known_outside(owner):
                return owner
        return None

    def compile_class(self, scope: Scope) -> None:
        if scope.qname in self._compiled_classes:
            return
        self._compiled_classes.add(scope.qname)
        self._to_compile.append((scope, (scope.qname, scope.line, None), None))

    def is_tensor_class(self, cls: str) -> bool:
        return any(owner in TENSOR_CLASSES for owner in self._mro(cls))

    def _is_autograd_function(self, cls: str) -> bool:
        return any(
            owner.endswith(_AUTOGRAD_FUNCTION) for owner in self._mro(cls)[1:]
        ) or not TORCH_AUTOGRAD_FUNCTIONS.isdisjoint(self._outside_bases(cls))

    def add_global(
        self, module: str, name: str, result: int, seen: frozenset[str] = frozenset(), guess: bool = True
    ) -> bool:
        """`module.name`: a global the module binds (or one of its star imports does), a
        submodule, or, for a module outside the tree, a name from outside. Whether found."""
        scope = self.facts.module_scope(module)
        if scope is None:
            if self.facts.exists(f"{module}.{name}"):
                self.add(result, [Module(f"{module}.{name}")])
            else:
                self.add(result, [External(f"{module}.{name}")])
            return True
        if scope.bindings(name):
            self.compile_global(scope, name)
            self.copy(self.node(("global", module, name)), result)
            return True
        if self.facts.exists(f"{module}.{name}"):
            self.add(result, [Module(f"{module}.{name}")])
            return True
        if self.known_outside(f"{module}.{name}"):
            # a binding the module gets at run time (torch._VF.lstm, torch.conv2d)
            self.add(result, [External(f"{module}.{name}")])
            return True
        found = False
        outside = []
        for source in self._star_sources(scope):
            if source in seen:
                continue
            if self.facts.module_scope(source) is not None:
                found = self.add_global(source, name, result, seen | {module}, guess) or found
            else:
                outside.append(f"{source}.{name}")
        # of star imports from outside, those whose stubs declare the name; all of them when
        # none does (the name may come from any), unless the caller has a better guess (a
        # builtin of that name)
        known = [dotted for dotted in outside if self.known_outside(dotted)]
        if known or (outside and not found and guess):
            self.add(result, [External(dotted) for dotted in known or outside])
            found = True
        return found

    def _star_sources(self, scope: Scope) -> list[str]:
        return [statement[1] for statement in scope.body if statement[0] == "star_import"]

    def compile_module(self, scope: Scope) -> None:
        """All of a module's top-level code (a call graph runs every module)."""
        if scope.module in self._compiled_modules:
            return
        self._compiled_modules.add(scope.module)
        self._to_compile.append((scope, (scope.qname, scope.line, None), None))

    def compile_global(self, scope: Scope, name: str) -> None:
        """The statements of a module that bind `name`, when a value reads that global: a
        trace that reads `torch.nn.functional.conv2d` does not run all of torch's modules."""
        if scope.module in self._compiled_modules or (scope.module, name) in self._compiled_globals:
            return
        self._compiled_globals.add((scope.module, name))
        binding = tuple(scope.bindings(name))
        self._to_compile.append((scope, (scope.qname, scope.line, None), binding))

    def field(self, container: Container, key: str | int | None) -> int:
        """The node of one element of a container (key None: an element at no known key);
        every element also flows into the container's `all` node."""
        if container.site[0] == "__dict__" and isinstance(key, str):
            return self.node(("field", container.site[1], key))  # `obj.__dict__["x"]` is obj.x
        node_key = ("element", container, key)
        if node_key not in self._keys:
            node = self.node(node_key)
            self._fields.setdefault(container, []).append(node)
            whole = self._keys.get(("element", container, "<all>"))
            if whole is not None:
                self.copy(node, whole)
            if key is not None:
                self.copy(self.field(container, None), node)
            return node
        return self._keys[node_key]

    def elements(self, container: Container) -> int:
        """The node of every element of a container, made when first read: most containers
        are only read at constant keys, and merging all of a large table's fields where
        nothing reads them would cap a set for nothing."""
        key = ("element", container, "<all>")
        whole = self._keys.get(key)
        if whole is None:
            whole = self.node(key)
            for field in self._fields.get(container, ()):
                self.copy(field, whole)
        return whole

    def _all_elements(self, value: object, target: int) -> None:
        if isinstance(value, Container):
            self.copy(self.elements(value), target)


def truth_of(value: object) -> bool | None:
    """Whether a value is true, where a constant says (True, False, None); else None."""
    if isinstance(value, Constant) and value.type == "None":
        return False
    if isinstance(value, Constant) and value.type == "bool" and value.value in ("True", "False"):
        return value.value == "True"
    return None
