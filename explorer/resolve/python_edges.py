"""What a Python definition calls, by the names its calls are written with, resolved to
definitions of the index. The value-flow solver (flow/) answers for every function with
source; these rules answer for what it leaves: a call no value reached the callee of,
`torch.ops.ns.op(...)`, what it has no facts of (an alias, a class, a binding, a module-level
name) and a definition it could not finish (said in a note).

Rules, in the order a call's callee is tried:
- `self.m()` / `cls.m()`: `m` looked up along the MRO of the class whose instance `self` is
  (the class a trace started from, when known, else the method's own class);
- `super().m()`: the same MRO, after the method's own class;
- a bare local name: nothing (what a local holds is the solver's to say);
- a dotted name, its first part expanded through the file's imports by the fast pass:
  the torch._C binding it names (torch.conv2d, _VF.lstm, torch._C._nn.linear), else the
  definition it reaches through modules, re-exports and star imports; a class called is its
  constructor (`__init__` along its MRO);
- `x.m()` on an object of unknown type: the operator with a Tensor method `m`, if there is one
  (resolution `name`: by name only).
Aliases (`conv2d = _add_docstr(torch.conv2d, ...)`, `__call__ = _wrapped_call_impl`) lead to
their targets, and a module-level name assigned from a call to the functions passed to it
(`max_pool2d = boolean_dispatch(if_true=..., if_false=...)` reaches both).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Sequence

from explorer.index import IndexReader
from explorer.model import (
    CallEdge,
    CallKind,
    CallNode,
    CallShape,
    CallSite,
    EdgeKind,
    Key,
    Layer,
    Location,
    Resolution,
    Symbol,
    SymbolKind,
)
from explorer.names import (
    TORCH_MODULE_CLASSES,
    PythonPaths,
    binding_operators,
    binding_symbol,
    bound_stub,
    extension_modules,
    inherited_bindings,
    is_method_binding,
    operators_for,
    registered_operators,
    stub_method,
)
from explorer.parsers.common import expand
from explorer.resolve.arity import fits_schema, python_call_shape
from explorer.resolve.cpp_classes import CLASS_KINDS, inherited_members, overrides
from explorer.resolve.nodes import (
    REGISTRABLE_KINDS,
    definition_lines,
    fan_out,
    layer_of,
    module_of,
    registered_functions,
    undefined_function,
    vendor_function,
)
from explorer.resolve.sources import SourceLines

_MAX_MRO = 32
# The operator methods torch._C.TensorBase gets from PyTorch's hand-written method table
# (tools/autograd/templates/python_variable_methods.cpp, `variable_methods`): each wraps the
# binding torchgen generates for a Tensor method (`__add__` is THPVariable_add, `__iadd__`
# THPVariable_add_), so it runs that method's operators; `__invert__` calls bitwise_not.
# Those native_functions.yaml names itself (`__and__`, `__lshift__`, `__ior__`) are
# operators of their own, and torch/_tensor.py defines the rest in Python (`__rsub__`,
# `__pow__`, `__neg__ = _C.TensorBase.neg`): the value-flow solver reads those there.
_TENSOR_BASE_OPERATORS = {
    "__add__": "add",
    "__radd__": "add",
    "__iadd__": "add_",
    "__mul__": "mul",
    "__rmul__": "mul",
    "__imul__": "mul_",
    "__sub__": "sub",
    "__isub__": "sub_",
    "__div__": "div",
    "__truediv__": "div",
    "__floordiv__": "floor_divide",
    "__idiv__": "div_",
    "__ifloordiv__": "floor_divide_",
    "__mod__": "remainder",
    "__imod__": "remainder_",
    "__eq__": "eq",
    "__ne__": "ne",
    "__lt__": "lt",
    "__le__": "le",
    "__gt__": "gt",
    "__ge__": "ge",
    "__rand__": "bitwise_and",
    "__ror__": "bitwise_or",
    "__rxor__": "bitwise_xor",
    "__matmul__": "matmul",
    "__invert__": "bitwise_not",
}
_TENSOR_BASES = ("torch._C.TensorBase", "torch._C._TensorBase")
# The Python binding torchgen generates for a Tensor method `name` (get_pycname in
# tools/autograd/gen_python_functions.py): generated at build time, absent from the tree
_GENERATED_BINDING = re.compile(r"\bTHPVariable_(\w+)")
_OVERLOAD_DECORATOR = re.compile(r"@([\w.]*\.)?_?overload(_method)?\b")
# What a binding may name: a function, or a data member (`.def_readwrite("name", &WorkerInfo::name_)`)
_BOUND_KINDS = REGISTRABLE_KINDS | {SymbolKind.FIELD}
_BINDING_KINDS = {SymbolKind.PYBIND, SymbolKind.METHOD_TABLE}
_CALLABLE_KINDS = {SymbolKind.FUNCTION, SymbolKind.METHOD, SymbolKind.CLASS, SymbolKind.ALIAS, SymbolKind.VARIABLE}
_MEMBER_KINDS = _CALLABLE_KINDS | _BINDING_KINDS  # what a class's member may be: a bound class's are bindings
# The names a definition's text writes before `=`, `:=` or `name: annotation =` (each of
# `a = b = c`): more than it assigns (keyword arguments, defaults) but never fewer of the
# assignments whose values are names or calls, so a name not among them holds no such value,
# and the flow facts of the definition's module need not be read to say so.
_ASSIGNED = re.compile(r"(?<![\w.])([^\W\d]\w*)\)*[ \t\\\n]*(?::[^\n]*?)?=(?!=)")


class PythonEdges:
    def __init__(self, reader: IndexReader, sources: SourceLines, tensor_methods: bool = True) -> None:
        self.store = reader
        self.sources = sources
        # `x.softmax()` on an unknown `x` taken for the Tensor method (PyTorch trees); off
        # for a plain Python call graph
        self.tensor_methods = tensor_methods
        self.extensions = extension_modules(reader)
        self._outside_bases: dict[str, frozenset[str]] = {}
        self._assigned: dict[tuple[str | None, int | None], frozenset[str]] = {}  # by _ASSIGNED, per definition
        self._around: dict[Key, list[Symbol]] = {}  # a definition -> the functions it is nested in
        self._mro: dict[str, list[str]] = {}

    # -- entry points ----------------------------------------------------------------------

    def edges(self, node: CallNode) -> Iterator[CallEdge]:
        symbol = node.symbol
        if symbol.kind in (SymbolKind.PYBIND, SymbolKind.METHOD_TABLE):
            yield from self._bound_function(node)
        elif symbol.kind is SymbolKind.BOUND_CLASS:
            yield from self._bound_constructor(symbol)
        elif node.layer is Layer.BINDING:
            yield from self._binding_edges(node)
        elif symbol.kind is SymbolKind.CLASS:
            yield from self._instance_call(symbol.qname)
        elif symbol.kind is SymbolKind.ALIAS and symbol.target:
            for edge in self.dotted_name_edges(symbol.target, module_of(self.store, symbol.path)):
                target = edge.target
                if target.symbol.kind is SymbolKind.METHOD:  # `__call__ = _wrapped_call_impl`: same instance
                    target = CallNode(target.symbol, target.layer, node.self_class)
                elif (
                    target.layer is Layer.BINDING and node.shape is not None
                ):  # `gelu = _add_docstr(torch._C._nn.gelu)`
                    target = dataclasses.replace(target, shape=node.shape)
                yield CallEdge(
                    target,
                    EdgeKind.ALIAS,
                    edge.resolution,
                    edge.candidates,
                    Location(symbol.path or "", symbol.line or 0),
                )
        elif symbol.kind in (SymbolKind.FUNCTION, SymbolKind.METHOD) and symbol.path is not None:
            yield from self._decorators(node)
            for site in self.store.calls_in(symbol.qname, symbol.path, definition_lines(symbol)):
                if site.kind is not CallKind.DECORATOR:
                    yield from self.call_targets(node, site)

    def call_targets(self, node: CallNode, site: CallSite) -> Iterator[CallEdge]:
        """The definitions one call site may run, by the name it is written with: what a
        local name holds is the value-flow solver's to say (flow/), so a call of a local
        (`fn()`, `a.m()` on a local `a`) is left to it; a call through a binding gets the
        call's shape, read from the source once."""
        symbol = node.symbol
        where = Location(symbol.path or "", site.line, site.column)
        shape: list[CallShape | None] = []
        for found in self._site_targets(node, site, where):
            if found.target.layer is Layer.BINDING or found.target.symbol.kind is SymbolKind.ALIAS:
                if not shape:
                    path = symbol.path
                    shape.append(python_call_shape(self.sources, path, site.line, site.column) if path else None)
                found = dataclasses.replace(found, target=dataclasses.replace(found.target, shape=shape[0]))
            yield found

    def may_assign(self, symbol: Symbol, name: str) -> bool:
        """Whether the text of the definition, or of the functions it is nested in, may
        assign `name` a value (see _ASSIGNED)."""
        outer = (self._functions_around(symbol) or [symbol])[-1]  # a closure reads its locals too
        key = (outer.path, outer.line)
        if key not in self._assigned:
            self._assigned[key] = frozenset(_ASSIGNED.findall(self.sources.of_definition(outer)))
        return name in self._assigned[key]

    def _functions_around(self, symbol: Symbol) -> list[Symbol]:
        """The functions the definition is nested in, innermost first; a class body ends the
        chain, as it ends the scopes Python looks a free name up in. Worked out once each."""
        key = (symbol.qname, symbol.path, symbol.line)
        if key not in self._around:
            around: list[Symbol] = []
            inner = symbol
            while True:
                owner = inner.qname.rpartition(".")[0]
                found = [
                    s
                    for s in self.store.symbols_with_qname(owner)
                    if s.kind in (SymbolKind.FUNCTION, SymbolKind.METHOD)
                    and s.path == symbol.path
                    and (s.line or 0) <= (symbol.line or 0) <= (s.end_line or 0)
                ]
                if not found:
                    break
                inner = found[0]
                around.append(inner)
            self._around[key] = around
        return self._around[key]

    def value_targets(self, node: CallNode, site: CallSite, value: str) -> Iterator[CallEdge]:
        """What a call of a local that holds `value` runs (`fn = F.relu`, then `fn(x)`)."""
        yield from self.call_targets(node, site._replace(callee=value, qualified=self._expand(node.symbol, value)))

    def class_made_by(self, symbol: Symbol, made_by: str) -> str | None:
        """The class of the index that calling `made_by`, written in `symbol`, makes an
        instance of (`torch.optim.SGD`), or None for a function or an unknown name."""
        target = PythonPaths(self.store).resolve(self._expand(symbol, made_by))
        if target is None or not any(s.kind is SymbolKind.CLASS for s in self.store.symbols_with_qname(target)):
            return None
        return target

    def member_targets(self, node: CallNode, site: CallSite, class_qname: str, member: str) -> Iterator[CallEdge]:
        """What `a.member(...)` runs on an instance of the class (`opt = torch.optim.SGD(...)`,
        then `opt.zero_grad()`): the member along the class's MRO."""
        yield from self._member_edges(
            class_qname, member, Location(node.symbol.path or "", site.line, site.column), class_qname
        )

    def _site_targets(self, node: CallNode, site: CallSite, where: Location) -> Iterator[CallEdge]:
        symbol = node.symbol
        own_class = symbol.qname.rsplit(".", 1)[0] if symbol.kind is SymbolKind.METHOD else None
        written = site.callee
        head, _, rest = written.partition(".")
        if head in ("self", "cls") and rest and "." not in rest and own_class is not None:
            context = node.self_class or own_class
            yield from self._member_edges(context, rest, where, context)
        elif written.startswith("super()."):
            name = written.removeprefix("super().")
            if own_class is not None and "." not in name:
                context = node.self_class or own_class
                yield from self._member_edges(context, name, where, context, after=own_class)
        elif not rest and (nested := self._nested(symbol, written)):
            # a function defined inside the caller (`def remove_from(...)` in __setattr__)
            yield from fan_out(nested, EdgeKind.CALL, None, where)
        elif not rest and site.qualified == written and not self._module_defines(symbol, written):
            return  # a local name, or a builtin: the solver knows what it holds
        else:
            found = list(self.dotted_name_edges(site.qualified, module_of(self.store, symbol.path)))
            if not found and rest and site.qualified == written and self.tensor_methods:
                found = list(self.tensor_method_edges(written.rsplit(".", 1)[-1], receiver_known=False))
            for edge in found:
                yield CallEdge(
                    edge.target, edge.kind, edge.resolution, edge.candidates, where, dispatch_key=edge.dispatch_key
                )

    # -- rules -----------------------------------------------------------------------------

    def _binding_edges(self, node: CallNode) -> Iterator[CallEdge]:
        """The operators a binding may run. Reached from a call whose arguments are known, the
        overloads those arguments fit, as PyTorch's argument parser picks them: `F.gelu(x)`
        passes no `out=`, so `gelu.out` is not among them."""
        symbol = node.symbol
        operators = binding_operators(self.store, symbol.qname)
        owner, _, name = symbol.qname.rpartition(".")
        if not operators and owner in _TENSOR_BASES and name in _TENSOR_BASE_OPERATORS:
            # `torch._C.TensorBase.__add__` as a stub declares it: the method table's binding of add
            operators = operators_for(self.store, _TENSOR_BASE_OPERATORS[name], variant="method")
        operators = self._fitted(operators, node.shape, is_method_binding(symbol.qname))
        yield from fan_out(
            operators,
            EdgeKind.BINDING,
            Layer.YAML,
            Location(symbol.path or "", symbol.line or 0) if symbol.path else None,
        )

    @staticmethod
    def _fitted(operators: list[Symbol], shape: CallShape | None, method: bool) -> list[Symbol]:
        """Of several overloads, those a call of this shape fits (all, where it fits none)."""
        if shape is None or len(operators) < 2:
            return operators
        if method:  # `x.add(y)`: x is the schema's `self`
            shape = shape._replace(positional=shape.positional + 1)
        return [s for s in operators if fits_schema(s.signature, shape)] or operators

    def _decorators(self, node: CallNode) -> Iterator[CallEdge]:
        """A decorated function is called through what its decorators made of it: `@d` and
        `@d(...)` on the lines above its `def` are calls made when it is called."""
        symbol = node.symbol
        decorators = self.sources.decorators(symbol)
        if not decorators or symbol.path is None or symbol.line is None:
            return
        scope = symbol.qname.rsplit(".", 1)[0]  # the fast pass gives decorators to the scope around the def
        outer = CallNode(dataclasses.replace(symbol, qname=scope, kind=SymbolKind.MODULE), Layer.PYTHON)
        written = dict(decorators)
        for site in self.store.calls_in(scope, symbol.path, (decorators[-1][0], symbol.line - 1)):
            if site.kind is CallKind.DECORATOR or written.get(site.line, "").startswith(f"@{site.callee}"):
                yield from self.call_targets(outer, site)

    def implementations(self, definitions: list[Symbol]) -> list[Symbol]:
        """Of several definitions of one name, those that are not `@overload` declarations
        (typing's, or TorchScript's `_overload_method`): only the last definition runs. A
        stub's (`parameter.pyi`) beside the module's own (`parameter.py`) declares what the
        module defines: the module's runs."""
        if len(definitions) < 2:
            return definitions
        modules = [d for d in definitions if d.lang == "python" and not (d.path or "").endswith((".pyi", ".pyi.in"))]
        if modules and len(modules) < len(definitions):
            definitions = [d for d in definitions if d.lang != "python" or d in modules]
        bodies = [
            d for d in definitions if not any(_OVERLOAD_DECORATOR.match(text) for _, text in self.sources.decorators(d))
        ]
        return bodies or definitions

    def _instance_call(self, class_qname: str) -> Iterator[CallEdge]:
        """Calling an instance runs `__call__` (`forward`, for a torch.nn.Module whose source is
        outside the tree); a class without one is being constructed: its `__new__` (a Python
        class's own, or a bound base's tp_new: torch.cuda.Stream), then its `__init__`."""
        names = ("__call__", "forward") if self.is_outside_module(class_qname) else ("__call__",)
        for name in names:
            found = list(self._member_edges(class_qname, name, None, class_qname))
            if found:
                yield from (
                    CallEdge(edge.target, EdgeKind.METHOD, edge.resolution, edge.candidates, None) for edge in found
                )
                return
        for name in ("__new__", "__init__"):
            for edge in self._member_edges(class_qname, name, None, class_qname):
                yield CallEdge(edge.target, EdgeKind.METHOD, edge.resolution, edge.candidates, None)

    def is_outside_module(self, class_qname: str) -> bool:
        """A subclass of torch.nn.Module, where torch is not in the tree (an extension's or a
        user's tree): calling an instance runs its `forward`, as Module.__call__ does."""
        return not TORCH_MODULE_CLASSES.isdisjoint(self.outside_bases(class_qname))

    def outside_bases(self, class_qname: str) -> frozenset[str]:
        """The bases along the MRO that the tree has no class for, as dotted names."""
        found = self._outside_bases.get(class_qname)
        if found is None:
            paths, names = PythonPaths(self.store), set()
            for owner in self.mro(class_qname):
                classes = [s for s in self.store.symbols_with_qname(owner) if s.kind is SymbolKind.CLASS]
                if not classes:
                    continue
                module = module_of(self.store, classes[0].path)
                for written in _base_names(classes[0].signature):
                    expanded = self._expand(classes[0], written)
                    if paths.resolve(expanded) is None and paths.resolve(f"{module}.{written}") is None:
                        names.add(expanded)
            found = self._outside_bases[class_qname] = frozenset(names)
        return found

    def _member_edges(
        self, class_qname: str, name: str, site: Location | None, context: str, after: str | None = None
    ) -> Iterator[CallEdge]:
        mro = self.mro(class_qname)
        if after is not None and after in mro:
            mro = mro[mro.index(after) + 1 :]
        for owner in mro:
            found = [s for s in self.store.symbols_with_qname(f"{owner}.{name}") if s.kind in _MEMBER_KINDS]
            bound = [s for s in found if s.kind in _BINDING_KINDS]
            if bound:  # a bound class's member (torch._C._CudaEventBase.record): the binding, not its stub
                found = bound
            elif found and all((s.path or "").endswith((".pyi", ".pyi.in")) for s in found):
                # a stub declares it; C++ may bind it on a base (`py::class_<Module, Object>`)
                found = inherited_bindings(self.store, owner, name) or found
            if found:
                for edge in fan_out(self.implementations(found), EdgeKind.METHOD, Layer.PYTHON, site):
                    yield CallEdge(
                        CallNode(edge.target.symbol, layer_of(edge.target.symbol), context),
                        edge.kind,
                        edge.resolution,
                        edge.candidates,
                        site,
                    )
                return

    def dotted_name_edges(self, dotted: str, module: str) -> Iterator[CallEdge]:
        """What a dotted name (imports already expanded) stands for, as call edges."""
        registered = registered_operators(self.store, dotted)
        if registered is not None:  # torch.ops.ns.op: what TORCH_LIBRARY (or the YAML) defines
            yield from fan_out(registered, EdgeKind.OP_REGISTRATION, Layer.YAML, None)
            return
        pybind = self.extensions.python_bindings(dotted)
        if pybind:  # `_C.nms(...)` with `from pkg import _C`
            yield from fan_out(pybind, EdgeKind.PYBIND, Layer.BINDING, None)
            return
        owner, _, name = dotted.rpartition(".")
        by_hand = self._handwritten_entry(name) if owner in _TENSOR_BASES else None
        if by_hand is not None:  # `TensorBase.size(x, 1)`: the entry written by hand, as `x.size(1)`
            yield CallEdge(CallNode(by_hand, layer_of(by_hand)), EdgeKind.METHOD_TABLE)
            return
        operators = binding_operators(self.store, dotted)
        entries = [s for s in self.store.symbols_with_qname(dotted) if s.kind is SymbolKind.METHOD_TABLE]
        if entries and not operators:  # torch._C._cuda_synchronize: a PyMethodDef entry
            yield from fan_out(entries, EdgeKind.METHOD_TABLE, Layer.BINDING, None)
            return
        if operators:
            stub = binding_symbol(self.store, dotted, operators)
            yield CallEdge(CallNode(stub, Layer.BINDING), EdgeKind.BINDING)
            return
        inherited = inherited_bindings(self.store, owner, name) if owner else []
        if inherited:  # `module._method_names()` on a torch._C.ScriptModule: bound on ScriptObject
            kind = EdgeKind.PYBIND if inherited[0].kind is SymbolKind.PYBIND else EdgeKind.METHOD_TABLE
            yield from fan_out(inherited, kind, Layer.BINDING, None)
            return
        bound = bound_stub(self.store, dotted)
        if bound is not None:  # `torch.Tensor._make_subclass`, `torch._C._set_grad_enabled`
            yield CallEdge(CallNode(bound, Layer.BINDING), EdgeKind.BINDING)
            return
        paths = PythonPaths(self.store)
        target = paths.resolve(dotted)
        if target is None and module and "." not in dotted:
            target = paths.resolve(f"{module}.{dotted}")
        if target is None:
            return
        symbols = self.store.symbols_with_qname(target)
        classes = [s for s in symbols if s.kind is SymbolKind.CLASS]
        bound_classes = [s for s in symbols if s.kind is SymbolKind.BOUND_CLASS]
        if bound_classes and not classes:  # `torch._C.PyTorchFileWriter(f)`: what its py::init or tp_new binds
            made = list(self._bound_constructor(bound_classes[0]))
            if made:
                yield from (CallEdge(edge.target, EdgeKind.CALL, edge.resolution, edge.candidates) for edge in made)
                return
        if classes:
            init = list(self._member_edges(classes[0].qname, "__init__", None, classes[0].qname))
            if init:
                yield from (CallEdge(edge.target, EdgeKind.CALL, edge.resolution, edge.candidates) for edge in init)
                return
        yield from fan_out(
            self.implementations([s for s in symbols if s.kind is not SymbolKind.MODULE]), EdgeKind.CALL, None, None
        )

    def _bound_constructor(self, cls: Symbol) -> Iterator[CallEdge]:
        """Calling a class bound from C++ runs what its `py::init` (`__init__`) or `tp_new`
        (`__new__`) binds."""
        for name in ("__new__", "__init__"):
            made = [
                s
                for s in self.store.symbols_with_qname(f"{cls.qname}.{name}")
                if s.kind in (SymbolKind.PYBIND, SymbolKind.METHOD_TABLE)
            ]
            yield from fan_out(made, EdgeKind.CALL, Layer.BINDING, None)

    def _bound_function(self, node: CallNode) -> Iterator[CallEdge]:
        """The C++ function a pybind11 binding or a method table entry names, or the
        registration shown as unresolved. An entry of Tensor's method table that wraps a
        binding torchgen generates (`{"__truediv__", TypeError_to_NotImplemented_<THPVariable_div>}`
        in python_variable_methods.cpp) binds that Tensor method's operators."""
        binding = node.symbol
        site = Location(binding.path or "", binding.line or 0)
        kind = EdgeKind.PYBIND if binding.kind is SymbolKind.PYBIND else EdgeKind.METHOD_TABLE
        generated = self._generated_operators(binding)
        if generated:
            yield from fan_out(self._fitted(generated, node.shape, True), EdgeKind.BINDING, Layer.YAML, site)
            return
        if not binding.target:
            return  # a lambda: its calls are the PYBIND11_MODULE block's
        found = registered_functions(self.store, binding.target, binding.path, _BOUND_KINDS)
        if found:
            yield from fan_out(found, kind, None, site)
            return
        vendor = vendor_function(self.store, binding.target)
        if vendor is not None:  # bound straight to a vendor library's API: the end of the chain
            yield CallEdge(CallNode(vendor, Layer.VENDOR), kind, Resolution.EXACT, (), site)
            return
        members, by_name = self._member_elsewhere(binding)
        for edge in fan_out(members, kind, None, site):
            yield dataclasses.replace(edge, resolution=Resolution.NAME) if by_name else edge
        if not members:
            yield CallEdge(CallNode(undefined_function(binding.target), Layer.CPP), kind, Resolution.NAME, (), site)

    def _member_elsewhere(self, binding: Symbol) -> tuple[list[Symbol], bool]:
        """A bound `Class::member` the class does not define, and whether it was found by name
        only. What runs is the definition a base gives it (`&ListType::getElementType`, from
        the template base SingleElementType), else, for a member the class only declares (a
        pure virtual, `&::c10d::Store::add`), the overrides in classes derived from it; for a
        constructor the class does not write (`py::init<>()`), the class itself. A class
        no lookup from the binding's namespaces finds (c10::ListType, which a header's macro
        brings into torch::jit) is taken by its name, and so is the member: by name only."""
        owner, _, member = (binding.target or "").rpartition("::")
        if not owner or not member.isidentifier():
            return [], False
        classes = registered_functions(self.store, owner, binding.path, CLASS_KINDS)
        by_name = not classes
        if by_name:  # a member of a class of that name, defined in the class or out of it
            last = owner.rpartition("::")[2]
            tail = f"::{last}::{member}"
            found = [
                s
                for s in self.store.symbols_named(member.lower())
                if s.kind in _BOUND_KINDS and f"::{s.qname}".endswith(tail)
            ]
            if found:
                return found, True
            classes = [s for s in self.store.symbols_named(last.lower()) if s.name == last and s.kind in CLASS_KINDS]
        for cls in classes:
            found = inherited_members(self.store, cls, member, _BOUND_KINDS) or overrides(self.store, cls, member)
            if found:
                return found, by_name
        if member == owner.rpartition("::")[2] and classes:
            return classes, by_name  # `py::init<>()` of a class that writes no constructor: the class makes it
        return [], False

    def _generated_operators(self, binding: Symbol) -> list[Symbol]:
        """The operators of the Tensor method whose generated binding (THPVariable_<method>,
        which the tree does not define) a method table entry of TensorBase names."""
        if binding.qname.rpartition(".")[0] not in _TENSOR_BASES:
            return []
        # the entry's function is stored under the namespaces around the table
        namespace = (binding.target or "").rpartition("::")[0]
        for match in _GENERATED_BINDING.finditer(f"{binding.signature} {binding.target or ''}"):
            method = match.group(1)
            written = match.group(0)
            if registered_functions(self.store, written, binding.path) or (
                namespace and registered_functions(self.store, f"{namespace}::{written}", binding.path)
            ):
                continue  # written by hand (THPVariable_getitem, THPVariable_size): the entry's own function
            operators = operators_for(self.store, method, variant="method")
            if operators:
                return operators
        return []

    def _handwritten_entry(self, name: str) -> Symbol | None:
        """TensorBase's method table entry `name` when it names a function the tree writes
        (`{"size", castPyCFunctionWithKeywords(THPVariable_size), ...}`): PyTorch generates no
        binding of its own for such a method (torchgen's skip list: size, stride, to, item...),
        and the hand-written entries come first in the table, so `x.size(-2)` runs
        THPVariable_size, not the one method overload of native_functions.yaml (size.Dimname)."""
        for owner in _TENSOR_BASES:
            for entry in self.store.symbols_with_qname(f"{owner}.{name}"):
                if (
                    entry.kind is SymbolKind.METHOD_TABLE
                    and entry.target
                    and not self._generated_operators(entry)
                    and registered_functions(self.store, entry.target, entry.path, _BOUND_KINDS)
                ):
                    return entry
        return None

    def _nested(self, symbol: Symbol, name: str) -> list[Symbol]:
        """The function `name` defined inside the definition, or else inside a function it is
        nested in (a sibling closure: `_unpack(args)` in a wrapper defined beside `_unpack`),
        as Python looks a free name up."""
        scopes = [symbol]
        for scope in scopes:
            found = [
                s
                for s in self.store.symbols_with_qname(f"{scope.qname}.{name}")
                if s.kind is SymbolKind.FUNCTION and s.path == symbol.path
            ]
            if found:
                return found
            if scope is symbol and symbol.kind in (SymbolKind.FUNCTION, SymbolKind.METHOD):
                scopes += self._functions_around(symbol)  # only when the definition has none of its own
        return []

    def tensor_method_edges(
        self, name: str, receiver_known: bool, shape: CallShape | None = None
    ) -> Iterator[CallEdge]:
        """What a tensor's method `name` runs: the entry of TensorBase's method table that
        names a function the tree writes by hand; else the operators of a Tensor method of
        that name; else the method as the extension module binds it, whose edges go on from there: in
        C++, an entry or slot of TensorBase's type object (`__truediv__` is the method table's
        binding of div, `__getitem__` is THPVariable_getitem), or as the stub declares it
        (size, to, and the sample's `__add__`); else, for an operator method of TensorBase's
        method table, the operators of the method it wraps (`__add__` runs add). Given the
        call's shape (an operator passes one argument), the overloads it fits, as PyTorch's
        argument parser picks them. On a receiver not known to be a tensor every edge is
        name-only, however many overloads the name has: that it is a tensor at all is the
        guess (`name.split("#")` on a str is no aten::split)."""
        resolution = Resolution.EXACT if receiver_known else Resolution.NAME
        by_hand = self._handwritten_entry(name)
        if by_hand is not None:
            yield CallEdge(CallNode(by_hand, layer_of(by_hand)), EdgeKind.METHOD, resolution)
            return
        operators = operators_for(self.store, name, variant="method")
        if not operators:
            bound = [
                s
                for owner in _TENSOR_BASES
                for s in self.store.symbols_with_qname(f"{owner}.{name}")
                if s.kind in (SymbolKind.METHOD_TABLE, SymbolKind.PYBIND)
            ]
            binding = min(bound, key=lambda s: (s.path or "", s.line or 0)) if bound else stub_method(self.store, name)
            if binding is not None:
                yield CallEdge(
                    CallNode(binding, layer_of(binding) if bound else Layer.BINDING), EdgeKind.METHOD, resolution
                )
                return
            if name in _TENSOR_BASE_OPERATORS:
                operators = operators_for(self.store, _TENSOR_BASE_OPERATORS[name], variant="method")
        for edge in fan_out(self._fitted(operators, shape, True), EdgeKind.METHOD, Layer.YAML, None):
            yield CallEdge(
                edge.target, EdgeKind.METHOD, edge.resolution if receiver_known else Resolution.NAME, edge.candidates
            )

    def passed_functions(self, symbol: Symbol, names: Sequence[str]) -> Iterator[CallEdge]:
        """The functions a name's assignment passes to the call on its right (`names`, as the
        flow facts have them), each taken for called when the name is: a function defined
        inside the definition, else what the name reaches through the module's imports."""
        module = module_of(self.store, symbol.path)
        where = Location(symbol.path or "", symbol.line or 0)
        for name in names:
            nested = self._nested(symbol, name)  # `self._apply(convert)`, convert defined inside
            if nested:
                yield from fan_out(nested, EdgeKind.CALL, None, where)
                continue
            for edge in self.dotted_name_edges(self._expand(symbol, name), module):
                if edge.target.symbol.kind in (SymbolKind.FUNCTION, SymbolKind.METHOD) or edge.kind is EdgeKind.BINDING:
                    yield CallEdge(edge.target, EdgeKind.CALL, edge.resolution, edge.candidates, where)

    # -- helpers ---------------------------------------------------------------------------

    def mro(self, class_qname: str) -> list[str]:
        """The class and its bases in method resolution order (C3), as far as the index knows
        them; a base the index cannot find ends its branch. Each class's order is kept to its
        first _MAX_MRO names, and is what its subclasses are linearised from."""
        if class_qname not in self._mro:
            self._linearise(class_qname)
        return self._mro[class_qname][:_MAX_MRO]

    def _linearise(self, class_qname: str) -> None:
        """Every base before the class, depth first, with a stack of its own: a chain of a
        thousand subclasses must not recurse a thousand deep."""
        bases_of: dict[str, list[str]] = {}
        pending = [(class_qname, False)]
        while pending:
            qname, bases_done = pending.pop()
            if bases_done:
                self._mro[qname] = _c3(qname, [self._mro[base][:_MAX_MRO] for base in bases_of.pop(qname)])
                continue
            if qname in self._mro:  # done, or under way: a cycle in broken code stops here
                continue
            self._mro[qname] = [qname]
            bases_of[qname] = self._bases(qname)
            pending.append((qname, True))
            pending += [(base, False) for base in reversed(bases_of[qname])]

    def _bases(self, class_qname: str) -> list[str]:
        classes = [s for s in self.store.symbols_with_qname(class_qname) if s.kind is SymbolKind.CLASS]
        if not classes:
            return []
        symbol = classes[0]
        module = module_of(self.store, symbol.path)
        bases = []
        for written in _base_names(symbol.signature):
            expanded = self._expand(symbol, written)
            target = PythonPaths(self.store).resolve(expanded)
            if target is None:
                target = PythonPaths(self.store).resolve(f"{module}.{written}")
            if target is not None and target != class_qname:
                bases.append(target)
        return bases

    def _expand(self, symbol: Symbol, dotted: str) -> str:
        """A dotted name through the imports and top-level names of the symbol's module."""
        module = module_of(self.store, symbol.path)
        bindings = {b.name: b.target for b in self.store.import_bindings(module) if b.name != "*"}
        head = dotted.split(".", 1)[0]
        if head not in bindings and self.store.symbols_with_qname(f"{module}.{head}"):
            bindings[head] = f"{module}.{head}"
        return expand(dotted, bindings)

    def _module_defines(self, symbol: Symbol, name: str) -> bool:
        return bool(self.store.symbols_with_qname(f"{module_of(self.store, symbol.path)}.{name}"))


def _base_names(signature: str) -> list[str]:
    """`class Conv2d(_ConvNd, Generic[T], metaclass=M):` -> ["_ConvNd", "Generic"]."""
    start = signature.find("(")
    if start < 0:
        return []
    depth, current, names = 0, "", []
    for char in signature[start + 1 :]:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                break
            depth -= 1
        if char == "," and depth == 0:
            names.append(current)
            current = ""
        elif depth == 0 and char not in ")]}":
            current += char
    names.append(current)
    return [name.strip() for name in names if name.strip() and "=" not in name and not name.strip().startswith("*")]


def _c3(head: str, base_mros: list[list[str]]) -> list[str]:
    """C3 linearisation; falls back to depth-first order where the bases disagree."""
    sequences = [list(mro) for mro in base_mros if mro] + [[mro[0] for mro in base_mros if mro]]
    result = [head]
    while any(sequences):
        for sequence in sequences:
            if not sequence:
                continue
            candidate = sequence[0]
            if not any(candidate in other[1:] for other in sequences):
                break
        else:
            rest = [name for mro in base_mros for name in mro]
            return result + [name for name in dict.fromkeys(rest) if name not in result]
        result.append(candidate)
        sequences = [[name for name in sequence if name != candidate] for sequence in sequences]
    return result
