"""What an operator or a C++/CUDA definition calls, resolved to definitions of the index.

Operators (native_functions.yaml): each dispatch key leads to its kernel (`dispatch:CUDA`);
an operator without a table of its own leads to its `structured_delegate` (`structured`).
C++ calls, in the order they are tried:
- a vendor API (`cudnnConvolutionForward`, `cublasSgemm`): a vendor node, the end of a path;
- a kernel launch `k<<<...>>>(...)`: the `__global__` kernel `k` (`launch`);
- the generated operator API, `at::foo`, `at::foo_symint`, `at::foo_out`,
  `at::_ops::foo::call`: the operator, so the path goes back through its dispatch table;
- `t.foo(...)` on a tensor: the operator with a Tensor method `foo` (resolution `name`);
- a member call on a receiver whose class the caller declares (a parameter, a local, what a
  call returns, a data member: cpp_receivers.py): that class's method, a base's, or an
  override (`method`);
- a qualified name `ns::f`: that definition, else one in an enclosing namespace of the caller
  (`cpublas::gemm` from at::native is `at::native::cpublas::gemm`);
- a plain name `f`: the caller's class, then its enclosing namespaces, innermost first, then
  the file's using-declarations and using-directives;
- a DispatchStub (`relu_stub(device, ...)`): the stub, which leads to every kernel registered
  for it with REGISTER_DISPATCH (`stub`);
- a plain name passed as an argument that names a function: called by the callee it is
  passed to (`fnptr`), as `split_batch_dim_to_32bit_out(..., raw_..._32bit)` calls it;
- a functor made in the arguments (`gpu_reduce_kernel(iter, SumOps<float>{})`): the callee
  holds it, and calls its `operator()` and, on a parameter of template type (`ops.combine`),
  its members (`functor`). A callee that takes such a parameter, called with the holder's
  (or from a macro's expansion, whose arguments cannot be read), holds it too: the functor
  reaches the kernel the helper launches.
Several definitions of one name found for a qualified or plain name (overloads, both sides
of an `#if`) are narrowed by the call as written: the template arguments it writes choose
among specialisations (templates.py); then the overloads that take as many arguments as it
passes (arity.py); then, of those, the ones whose parameters take what its arguments are (a
string, a pointer, a smart pointer, a number: argument_kinds.py), which picks the
constructor `std::make_shared<PyTorchStreamReader>(std::move(adapter))` runs. No step rules
out every definition. A single one left is an exact edge; several are all kept, marked
ambiguous; nothing is picked at random.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator

from explorer.index import IndexReader
from explorer.model import (
    FUNCTOR_MARK,
    LAMBDA_MARK,
    CallEdge,
    CallKind,
    CallNode,
    CallSite,
    EdgeKind,
    Key,
    Layer,
    Location,
    Resolution,
    Symbol,
    SymbolKind,
    last_name,
)
from explorer.names import is_out_overload, operators_for
from explorer.parsers.common import enclosing_candidates, strip_template_args
from explorer.resolve.argument_kinds import Declarations, Kind, call_argument_kinds, declarations, fitting_kinds
from explorer.resolve.arity import argument_count, call_arguments, fitting, fitting_schemas
from explorer.resolve.backends import dispatch_key_allowed
from explorer.resolve.cpp_classes import CLASS_KINDS, FUNCTION_KINDS, derives_from, may_be_virtual, overrides
from explorer.resolve.cpp_receivers import VALUE_CLASSES, Receivers
from explorer.resolve.cpp_text import (
    parameter_names,
    parameter_types,
)
from explorer.resolve.generated_api import FAST_PATHS, generated
from explorer.resolve.nodes import (
    defining_stub,
    definition_lines,
    dispatch_kernels,
    fan_out,
    layer_of,
    registered_functions,
    undefined_function,
)
from explorer.resolve.sources import SourceLines
from explorer.resolve.stored_callables import StoredCallables
from explorer.resolve.templates import (
    call_template_arguments,
    chosen_specialisations,
    generic_parameters,
    specialisation_arguments,
    template_parameters,
)
from explorer.resolve.visibility import visible_from

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


class NativeEdges:
    def __init__(self, reader: IndexReader, backend: str, sources: SourceLines) -> None:
        self.store = reader
        self.backend = backend
        self.sources = sources  # a call's arguments are read there, to tell overloads apart
        self._parameter_names: dict[str, set[str]] = {}
        self._tails: dict[str, list[Symbol]] = {}  # written name -> same-tail definitions
        self._template_parameters: dict[Key, set[str]] = {}
        self._named_in_scope: dict[tuple[str | None, str, str], list[Symbol]] = {}
        self._generic: dict[tuple[str | None, int | None], set[str]] = {}
        self._overrides_of: dict[Key, list[Symbol]] = {}  # a method -> the overrides in derived classes
        self._derived: dict[tuple[str, str], bool] = {}  # (class, base) -> whether the class derives from it
        self._declarations: dict[
            tuple[str | None, int | None], Declarations
        ] = {}  # a definition's parameters' and locals' kinds
        self._stored_callables = StoredCallables(reader, sources, self._named)
        self.receivers = Receivers(reader, sources, self._named)

    def edges(self, node: CallNode) -> Iterator[CallEdge]:
        symbol = node.symbol
        if symbol.kind is SymbolKind.OPERATOR:
            yield from self._dispatch(symbol)
        elif symbol.kind is SymbolKind.DISPATCH_STUB:
            yield from self._registered_kernels(symbol)
        elif symbol.kind in FUNCTION_KINDS and symbol.path is not None:
            sites = self.store.calls_in(
                self._stored_callables.calls_owner(symbol), symbol.path, definition_lines(symbol)
            )
            for site in sites:
                yield from self.call_targets(symbol, site, node.passed, node.passed_as, node.self_class)
            if node.passed and not self._uses_callable_parameters(symbol, sites):
                # what it does with them cannot be read: it calls them, from where they were passed
                yield from self._handed(node.passed, node.passed_at)
            return
        if node.passed:
            yield from self._handed(node.passed, node.passed_at)

    def _handed(self, passed: tuple[Symbol, ...], where: Location | None) -> Iterator[CallEdge]:
        """What a function handed another calls: the function itself, a functor's operator()."""
        yield from fan_out([s for s in passed if s.kind in FUNCTION_KINDS], EdgeKind.FNPTR, None, where)
        for functor in _functors(passed):
            yield from fan_out(self._members(functor, "operator()"), EdgeKind.FUNCTOR, None, where)

    def _members(self, owner: Symbol, name: str) -> list[Symbol]:
        return [s for s in self.store.symbols_with_qname(f"{owner.qname}::{name}") if s.kind in FUNCTION_KINDS]

    # -- operators -------------------------------------------------------------------------

    def _dispatch(self, operator: Symbol) -> Iterator[CallEdge]:
        """Each allowed dispatch key to its kernel. A structured_delegate supplies the kernels
        of the keys the operator does not list itself (`_softmax` lists only MkldnnCPU and
        NestedTensor kernels; its CPU and CUDA ones are those of `_softmax.out`)."""
        entries = self.store.dispatch_of(operator.qname)
        per_key: dict[str, int] = {}
        for entry in entries:
            per_key[entry.key] = per_key.get(entry.key, 0) + 1
        for entry in entries:
            if not dispatch_key_allowed(entry.key, self.backend):
                continue
            site = Location(entry.path or operator.path or "", entry.line)
            kernels = dispatch_kernels(self.store, entry)
            if kernels and per_key[entry.key] > 1:
                # registered twice for one key: which wins depends on load order, not the source
                rivals = tuple(e.kernel for e in entries if e.key == entry.key)
                yield from (
                    CallEdge(
                        CallNode(k, layer_of(k)),
                        EdgeKind.DISPATCH,
                        Resolution.AMBIGUOUS,
                        rivals,
                        site,
                        dispatch_key=entry.key,
                    )
                    for k in kernels
                )
            elif kernels:
                yield from fan_out(kernels, EdgeKind.DISPATCH, None, site, dispatch_key=entry.key)
            elif entry.path is not None and not entry.path.endswith(".yaml"):
                # a registration of a function the tree does not define: shown, not dropped
                yield CallEdge(
                    CallNode(undefined_function(entry.kernel), Layer.CPP),
                    EdgeKind.DISPATCH,
                    Resolution.NAME,
                    (),
                    site,
                    dispatch_key=entry.key,
                )
            elif (compiled := self.store.compiled_only(site.path, entry.key)) is not None:
                # an installed wheel's YAML: the kernel is in its compiled library, not here
                yield CallEdge(
                    CallNode(undefined_function(entry.kernel, compiled), Layer.CPP),
                    EdgeKind.DISPATCH,
                    Resolution.NAME,
                    (),
                    site,
                    dispatch_key=entry.key,
                )
        info = self.store.operator_info(operator.qname)
        if info is None or not info.structured_delegate:
            return
        listed = {entry.key for entry in entries}
        if self.backend == "all" or not any(dispatch_key_allowed(key, self.backend) for key in listed):
            delegates = self.store.symbols_with_qname(info.structured_delegate)
            yield from fan_out(
                delegates, EdgeKind.STRUCTURED, Layer.YAML, Location(operator.path or "", operator.line or 0)
            )

    def _registered_kernels(self, stub: Symbol) -> Iterator[CallEdge]:
        for registration in self.store.symbols_with_qname(stub.qname):
            if registration.kind is not SymbolKind.DISPATCH_REGISTRATION or not registration.target:
                continue
            # the name as written where it is registered (`binary_internal::div_true_kernel_cuda`
            # in at::native), looked up as C++ does from there
            scope = registration.qname.rpartition("::")[0]
            written = (
                registration.target.removeprefix("::")
                if registration.target.startswith("::") or not scope
                else f"{scope}::{registration.target}"
            )
            kernels = [s for s in self.store.symbols_with_qname(registration.target) if s.kind in FUNCTION_KINDS] or [
                s for s in registered_functions(self.store, written, None) if s.kind in FUNCTION_KINDS
            ]
            # REGISTER_DISPATCH names the kernel its own file sees: one defined there, if any
            own = [s for s in kernels if s.path == registration.path]
            kernels = own or visible_from(registration.path, kernels)
            yield from fan_out(kernels, EdgeKind.STUB, None, Location(registration.path or "", registration.line or 0))

    # -- calls -----------------------------------------------------------------------------

    def call_targets(
        self,
        caller: Symbol,
        site: CallSite,
        held: tuple[Symbol, ...] = (),
        held_as: tuple[str, ...] = (),
        this_class: str | None = None,
    ) -> Iterator[CallEdge]:
        """The edges of one call site of `caller`, which holds the callables `held` (handed to
        it by the call that reached it, bound to its parameters `held_as`); `this_class`: for a
        method reached on an object of a class derived from its own, that class."""
        where = Location(caller.path or "", site.line, site.column)
        callee = site.callee
        if site.vendor is not None:  # the index worked out which callees are vendor APIs
            callee = callee.removeprefix("::")
            yield from fan_out(self._vendor_symbols(callee), EdgeKind.CALL, Layer.VENDOR, where)
            return
        # A name that is one of the caller's parameters is a value, whatever else it names.
        parameters = self._parameters(caller)
        passed = [
            (argument, function)
            for argument in site.name_args
            if argument not in parameters
            for function in self._passed(caller, argument)
        ]
        if held and (held_calls := self._held_calls(caller, callee, held, held_as, where)):
            yield from held_calls
            return
        if (stored := self._stored(caller, callee, where)) is not None:
            yield from stored
            return
        if site.kind is CallKind.LAUNCH:
            kernels = [s for s in self._named(caller, callee) if s.kind is SymbolKind.KERNEL]
            targets = list(fan_out(kernels, EdgeKind.LAUNCH, None, where))
        else:
            targets = list(self._callee(caller, callee, where, site, this_class))
            if caller.kind is SymbolKind.METHOD and "." not in callee and "->" not in callee:
                targets = [self._on_this(caller, edge, this_class) for edge in targets]
        native_targets = {id(edge) for edge in targets if edge.target.layer in (Layer.CPP, Layer.CUDA)}
        arguments = (
            call_arguments(self.sources, caller.path, site.line, site.column, site.callee)
            if (passed or held) and caller.path
            else None
        )
        handing = self._handing_on(caller, held, held_as, arguments) if held else []
        if (passed or handing) and not native_targets:
            # The callee is not in the tree (a template from a library, a macro): the
            # functions passed to it are still reached, from the caller.
            yield from targets
            yield from self._handed(
                tuple(function for _, function in passed) + tuple(symbol for symbol, _ in handing), where
            )
            return
        for edge in targets:
            if id(edge) in native_targets and (passed or handing):
                onward, onward_as = self._bound(edge.target.symbol, site, passed, handing, arguments)
                if onward:
                    edge = dataclasses.replace(
                        edge,
                        target=dataclasses.replace(edge.target, passed=onward, passed_as=onward_as, passed_at=where),
                    )
            yield edge

    def _on_this(self, caller: Symbol, edge: CallEdge, this_class: str | None) -> CallEdge:
        """A method of a base class called on `this` (`Engine::execute(...)` in
        PythonEngine::execute, or unqualified) runs on the caller's object, whose class is
        more derived than the method's: the node says which, so that the method's own virtual
        calls on `this` take that class's overrides."""
        target = edge.target.symbol
        dynamic = this_class or caller.qname.rpartition("::")[0]
        owner = target.qname.rpartition("::")[0]
        if target.kind is not SymbolKind.METHOD or owner == dynamic or edge.target.self_class is not None:
            return edge
        key = (dynamic, owner)
        if key not in self._derived:
            self._derived[key] = derives_from(self.store, dynamic, owner)
        if not self._derived[key]:
            return edge
        return dataclasses.replace(edge, target=dataclasses.replace(edge.target, self_class=dynamic))

    def _held_calls(
        self, caller: Symbol, callee: str, held: tuple[Symbol, ...], held_as: tuple[str, ...], where: Location
    ) -> list[CallEdge]:
        """`fn(a)` on a parameter holding a callable: the function or lambda passed as it, a
        functor's operator(). `ops.combine(a, b)` on one holding a functor: its `combine`."""
        receiver, _, member = callee.replace("->", ".").rpartition(".")
        callable_parameters = self._callable_parameters(caller)
        if receiver and receiver in callable_parameters:
            chosen = _bound_to(receiver, held, held_as)
            return list(
                fan_out(
                    [m for functor in _functors(chosen) for m in self._members(functor, member)],
                    EdgeKind.FUNCTOR,
                    None,
                    where,
                )
            )
        if receiver or callee not in callable_parameters:
            return []
        chosen = _bound_to(callee, held, held_as)
        edges = list(fan_out([s for s in chosen if s.kind in FUNCTION_KINDS], EdgeKind.FNPTR, None, where))
        edges += fan_out(
            [m for functor in _functors(chosen) for m in self._members(functor, "operator()")],
            EdgeKind.FUNCTOR,
            None,
            where,
        )
        return edges

    def _stored(self, caller: Symbol, callee: str, where: Location) -> list[CallEdge] | None:
        """`function_creator_(*this)` on a data member holding a callable (or a local copied
        from one): the callables stored in it (stored_callables.py), any of which it may hold."""
        name = callee.removeprefix("this->")
        if not name.isidentifier():
            return None
        found = self._stored_callables.called(caller, name, self._named(caller, name))
        if found is None:
            return None
        edges = fan_out(found, EdgeKind.STORED, None, where)
        return [
            dataclasses.replace(edge, resolution=Resolution.VALUE) if edge.resolution is Resolution.EXACT else edge
            for edge in edges
        ]

    def _handing_on(
        self, caller: Symbol, held: tuple[Symbol, ...], held_as: tuple[str, ...], arguments: list[str] | None
    ) -> list[tuple[Symbol, int | None]]:
        """The held callables a call passes on, each with the position of the argument that
        passes it; position None for all of them where the arguments cannot be read (a call
        made in a macro's expansion)."""
        if arguments is None:
            return [(symbol, None) for symbol in held]
        callable_parameters = self._callable_parameters(caller)
        handing: list[tuple[Symbol, int | None]] = []
        for symbol, parameter in zip(held, held_as or ("",) * len(held)):
            names = {parameter} if parameter else callable_parameters
            index = next(
                (i for i, argument in enumerate(arguments) if names.intersection(_IDENTIFIER.findall(argument))), None
            )
            if index is not None:
                handing.append((symbol, index))
        return handing

    def _bound(
        self,
        target: Symbol,
        site: CallSite,
        passed: list[tuple[str, Symbol]],
        handing: list[tuple[Symbol, int | None]],
        arguments: list[str] | None,
    ) -> tuple[tuple[Symbol, ...], tuple[str, ...]]:
        """What the target of a call is handed, each with the parameter it is bound to: the
        functions and lambdas written in the arguments, and the callables the caller passes on.
        Where the arguments cannot be read, a held callable goes on only to a target that takes
        a callable."""
        names = parameter_names(target.signature)
        lambdas = [argument for argument in site.name_args if argument.startswith(LAMBDA_MARK)]
        onward: list[Symbol] = []
        onward_as: list[str] = []
        for argument, function in passed:
            index = _argument_index(arguments, argument, lambdas)
            onward.append(function)
            onward_as.append(names[index] if index is not None and index < len(names) else "")
        for symbol, index in handing:
            if index is None and not self._callable_parameters(target):
                continue
            onward.append(symbol)
            onward_as.append(names[index] if index is not None and index < len(names) else "")
        return tuple(onward), tuple(onward_as)

    def _uses_callable_parameters(self, symbol: Symbol, sites: list[CallSite]) -> bool:
        """Whether a function visibly calls or passes on one of its parameters that take a
        callable: then the callables handed to it are reached where it does."""
        names = self._callable_parameters(symbol)
        if not names or symbol.path is None:
            return False
        for site in sites:
            receiver = site.callee.replace("->", ".").rpartition(".")[0]
            if site.callee in names or receiver in names:
                return True
            arguments = call_arguments(self.sources, symbol.path, site.line, site.column, site.callee)
            if arguments and any(names.intersection(_IDENTIFIER.findall(argument)) for argument in arguments):
                return True
        return False

    def _callable_parameters(self, symbol: Symbol) -> set[str]:
        """Parameters that may hold a callable: of a template parameter's type (`Fn fn`,
        `const F& f`) or a function wrapper's (`const std::function<void(int64_t, int64_t)>& f`)."""
        wrapped = {
            name for name, written in parameter_types(symbol.signature).items() if _FUNCTION_WRAPPER.search(written)
        }
        return self._generic_parameters(symbol) | wrapped if wrapped else self._generic_parameters(symbol)

    def _generic_parameters(self, symbol: Symbol) -> set[str]:
        key = (symbol.path, symbol.line)
        found = self._generic.get(key)
        if found is None:
            found = self._generic[key] = generic_parameters(symbol.signature, self._caller_template_parameters(symbol))
        return found

    def _passed(self, caller: Symbol, argument: str) -> list[Symbol]:
        """The functions a name passed as an argument may be: those of that name, or the
        DispatchStub of that name (`argmax_argmin_impl(..., argmax_stub)` calls the stub); for
        a functor made in place, its class (one definition per name); for a lambda written
        there, its definition."""
        if argument.startswith(LAMBDA_MARK):
            scope = caller.qname.rpartition("::")[0]
            name = f"<lambda at line {argument.removeprefix(LAMBDA_MARK)}>"
            return [
                s for s in self.store.symbols_with_qname(f"{scope}::{name}" if scope else name) if s.path == caller.path
            ]
        if argument.endswith(FUNCTOR_MARK):
            classes = [s for s in self._named(caller, argument.removesuffix(FUNCTOR_MARK)) if s.kind in CLASS_KINDS]
            return list(
                {s.qname: s for s in sorted(classes, key=lambda s: (s.path or "", s.line or 0), reverse=True)}.values()
            )
        found = [s for s in self._named(caller, argument) if s.kind in FUNCTION_KINDS]
        stubs = [s for s in found if s.kind is SymbolKind.DISPATCH_STUB]
        return [defining_stub(stubs)] if stubs else found

    def _callee(
        self,
        caller: Symbol,
        callee: str,
        where: Location,
        site: CallSite,
        this_class: str | None = None,
    ) -> Iterator[CallEdge]:
        # `at::add` and `at::_ops::add_Tensor::call` are generated: the operator, whatever the
        # tree defines; a fast path (`at::cuda::add`) only where the tree defines no such name
        # (at::cuda::is_available is written by hand)
        operators = self._operator_api(callee) if not _fast_path(callee) else []
        if operators:
            yield from fan_out(self._fitting_schemas(operators, caller, site, 0), EdgeKind.CALL, Layer.YAML, where)
            return
        if "." in callee or "->" in callee:
            members = re.split(r"\.|->", callee)
            receiver, name = members[0].strip(), last_name(members[-1].strip())  # not a `::` inside the arguments
            if receiver == "this":
                yield from fan_out(self._in_scopes(_scopes(caller.qname), name), EdgeKind.METHOD, None, where)
                return
            operators = self._fitting_schemas(operators_for(self.store, name, variant="method"), caller, site, 1)
            if name in _OPERATOR_HANDLE_CALLS and receiver.isidentifier() and caller.path is not None:
                handled = self._operator_handle(caller, receiver)
                if handled:  # `static auto op = Dispatcher::singleton().findSchemaOrThrow("c10d::allreduce_", "")...; op.call(...)`
                    yield from fan_out(handled, EdgeKind.CALL, Layer.YAML, where)
                    return
            methods, by_name = (
                self.receivers.member_call(caller, callee, receiver, name) if not operators else ([], False)
            )
            if methods:  # `[](PyTorchStreamWriter& self, ...) { self.writeRecord(...); }`
                for edge in fan_out(methods, EdgeKind.METHOD, None, where):
                    yield dataclasses.replace(edge, resolution=Resolution.NAME) if by_name else edge
                return
            for edge in fan_out(operators, EdgeKind.METHOD, Layer.YAML, where):
                resolution = Resolution.NAME if edge.resolution is Resolution.EXACT else edge.resolution
                yield CallEdge(edge.target, edge.kind, resolution, edge.candidates, where)
            return
        if callee.isidentifier() and (declared := self.receivers.declared_class(caller, callee)) is not None:
            # `fn(std::move(inputs))` with `Node& fn`: the object's call operator
            called, by_name = (
                self.receivers.class_methods(caller, declared, "operator()")
                if declared not in VALUE_CLASSES
                else ([], False)
            )
            if called:
                for edge in fan_out(called, EdgeKind.METHOD, None, where):
                    yield dataclasses.replace(edge, resolution=Resolution.NAME) if by_name else edge
                return
        found = self._named(caller, callee)
        if not found:
            # `_foo_symint(...)` in at::native is at::_foo_symint, which torchgen generates
            for qualified in enclosing_candidates(callee, caller.qname.rpartition("::")[0]):
                operators = self._operator_api(qualified)
                if operators:
                    yield from fan_out(
                        self._fitting_schemas(operators, caller, site, 0), EdgeKind.CALL, Layer.YAML, where
                    )
                    return
        if not found and callee.endswith("::apply"):
            forwards = self._autograd_forward(caller, callee.removesuffix("::apply"))
            if forwards:
                yield from fan_out(forwards, EdgeKind.AUTOGRAD, None, where)
                return
        if not found and "::" in callee:
            # `at::cuda::getCurrentCUDAStream`, brought into at::cuda from c10::cuda by a
            # using-declaration in a header: the function of that name in a namespace of
            # the same last name, by name only.
            for edge in fan_out(self._same_namespace_tail(callee), EdgeKind.CALL, None, where):
                yield dataclasses.replace(
                    edge, resolution=Resolution.NAME if edge.resolution is Resolution.EXACT else edge.resolution
                )
            return
        stubs = [s for s in found if s.kind is SymbolKind.DISPATCH_STUB]
        if stubs:
            stub = defining_stub(stubs)
            yield CallEdge(CallNode(stub, layer_of(stub)), EdgeKind.CALL, site=where)
            return
        functions = [s for s in found if s.kind in FUNCTION_KINDS] or self._constructors(found)
        if len(functions) > 1 and caller.path is not None:
            # specialisations: the template arguments written at the call may decide
            arguments = call_template_arguments(self.sources, caller.path, site.line, site.column, last_name(callee))
            functions = chosen_specialisations(functions, arguments, self._caller_template_parameters(caller))
        if len(functions) > 1 and caller.path is not None:
            # overloads: the number of arguments may decide, then what they are, where the
            # source at the call is the call (not a macro's invocation)
            passed_values = call_arguments(self.sources, caller.path, site.line, site.column, site.callee)
            count = (
                len(passed_values)
                if passed_values is not None
                else argument_count(self.sources, caller.path, site.line, site.column)
            )
            functions = fitting(functions, count)
            if len(functions) > 1 and passed_values:
                functions = fitting_kinds(functions, self._argument_kinds(caller, site, passed_values))
        if "::" not in callee and caller.kind is SymbolKind.METHOD:
            # `execute_with_graph_task(...)` in Engine::execute: a virtual method of the caller's
            # own class, called on `this`, may run a derived class's override (PythonEngine's);
            # on an object known to be of a derived class, that class's
            functions = functions + [s for s in self._own_overrides(caller, functions) if s not in functions]
            if this_class is not None:
                functions = [s for s in functions if s.qname.rpartition("::")[0] == this_class] or functions
        specialised = {id(s) for s in functions if self._is_specialisation(s)} if len(functions) > 1 else set()
        if len(specialised) == len(functions):
            specialised = set()
        for edge in fan_out(functions, EdgeKind.CALL, None, where):
            yield dataclasses.replace(edge, specialised=True) if id(edge.target.symbol) in specialised else edge

    def _argument_kinds(self, caller: Symbol, site: CallSite, arguments: list[str]) -> tuple[Kind, ...]:
        """The kinds of a call's arguments (argument_kinds.py), the names among them by what
        the caller declares them to be, read once per caller."""
        key = (caller.path, caller.line)
        declared = self._declarations.get(key)
        if declared is None:
            declared = self._declarations[key] = declarations(caller.signature, self.sources.of_definition(caller))
        return call_argument_kinds(arguments, declared, site.line - (caller.line or site.line) + 1)

    def _constructors(self, found: list[Symbol]) -> list[Symbol]:
        """`to_ir(def, resolver, self, method)`, a class's name called: the object made runs the
        class's constructors (a tensor's are not followed, as its accessors are not)."""
        return [
            constructor
            for cls in found
            if cls.kind in CLASS_KINDS and cls.name not in VALUE_CLASSES
            for constructor in self._members(cls, cls.name)
        ]

    def _own_overrides(self, caller: Symbol, methods: list[Symbol]) -> list[Symbol]:
        """The overrides of those of `methods` that are members of the caller's own class (or a
        class it is in) and may be virtual."""
        owner = caller.qname.rpartition("::")[0]
        found: list[Symbol] = []
        for method in methods:
            cls = method.qname.rpartition("::")[0]
            if (
                method.kind is not SymbolKind.METHOD
                or not (owner == cls or owner.startswith(cls + "::"))
                or not may_be_virtual(method)
            ):
                continue
            key = (method.qname, method.path, method.line)
            if key not in self._overrides_of:
                classes = [s for s in self.store.symbols_with_qname(cls) if s.kind in CLASS_KINDS]
                self._overrides_of[key] = overrides(self.store, classes[0], method.name) if classes else []
            found += self._overrides_of[key]
        return found

    def _operator_handle(self, caller: Symbol, name: str) -> list[Symbol]:
        """The operator a local handle of the dispatcher's is for: the schema name and overload
        its initialiser looks up (`findSchemaOrThrow("c10d::allreduce_", "")`)."""
        text = self.sources.of_definition(caller)
        found = re.search(
            rf"\b{re.escape(name)}\s*=[^;]*?\bfindSchema(?:OrThrow)?\s*\(\s*\"([\w:]+)\"\s*,\s*\"(\w*)\"", text
        )
        if found is None:
            return []
        qname = f"{found.group(1)}.{found.group(2)}" if found.group(2) else found.group(1)
        return [s for s in self.store.symbols_with_qname(qname) if s.kind is SymbolKind.OPERATOR]

    def _autograd_forward(self, caller: Symbol, written_class: str) -> list[Symbol]:
        """`ScatterSum::apply(...)` of a C++ autograd Function (`struct ScatterSum : public
        torch::autograd::Function<ScatterSum>`, apply inherited from the base the tree does not
        define) runs the class's static `forward`, whose first parameter is the
        AutogradContext."""
        forwards = []
        for cls in self._named(caller, written_class):
            if cls.kind in CLASS_KINDS:
                forwards += [s for s in self._members(cls, "forward") if "AutogradContext" in s.signature]
        return forwards

    def _is_specialisation(self, symbol: Symbol) -> bool:
        """`template <> void gemm<float>(...)`, or a method of `template <> struct F<Half>`."""
        if specialisation_arguments(symbol) is not None:
            return True
        owner = symbol.qname.rpartition("::")[0]
        if symbol.kind is not SymbolKind.METHOD or not owner or symbol.line is None:
            return False
        return any(
            s.kind in (SymbolKind.STRUCT, SymbolKind.CLASS)
            and s.path == symbol.path
            and (s.line or 0) <= symbol.line <= (s.end_line or 0)
            and specialisation_arguments(s) is not None
            for s in self.store.symbols_with_qname(owner)
        )

    def _fitting_schemas(self, operators: list[Symbol], caller: Symbol, site: CallSite, receiver: int) -> list[Symbol]:
        """Of several overloads of an operator, those whose schema takes as many arguments as
        the C++ call passes (`at::add(a, b)`; `t.add(b)`, whose receiver is the schema's
        self). C++ passes keyword-only arguments by position too."""
        if len(operators) < 2 or caller.path is None:
            return operators
        count = argument_count(self.sources, caller.path, site.line, site.column)
        if count is None:
            return operators
        return fitting_schemas(operators, count + receiver)

    def _same_namespace_tail(self, written: str) -> list[Symbol]:
        found = self._tails.get(written)
        if found is None:
            tail = "::" + "::".join(written.split("::")[-2:])
            name = written.rpartition("::")[2]
            found = self._tails[written] = [
                s
                for s in self.store.symbols_named(name.lower())
                if s.name == name and s.kind in FUNCTION_KINDS and s.qname.endswith(tail) and s.qname != written
            ]
        return found

    def _parameters(self, caller: Symbol) -> set[str]:
        found = self._parameter_names.get(caller.signature)
        if found is None:
            found = self._parameter_names[caller.signature] = set(
                _IDENTIFIER.findall(caller.signature.partition("(")[2])
            )
        return found

    def _operator_api(self, callee: str) -> list[Symbol]:
        """The operators a generated name calls (generated_api.py): `at::conv2d` -> the
        functional overloads of aten::conv2d; `at::convolution_symint` -> aten::convolution;
        `at::add_out` -> aten::add.out; `at::_ops::add_Tensor::call` -> aten::add.Tensor."""
        for reading in generated(callee):
            if reading.overload is not None:
                qname = f"aten::{reading.base}.{reading.overload}" if reading.overload else f"aten::{reading.base}"
                found = [s for s in self.store.symbols_with_qname(qname) if s.kind is SymbolKind.OPERATOR]
            else:
                found = [
                    s
                    for s in self.store.operators_named(reading.base)
                    if s.qname.startswith("aten::") and is_out_overload(s) == reading.out
                ]
            if found:
                return found
        return []

    def _named(self, caller: Symbol, written: str) -> list[Symbol]:
        """Definitions a name written in `caller` may mean, of those its file can see (see
        visibility.py): `::f` at global scope only; as written when qualified and known, else
        in the caller's class and enclosing namespaces, innermost first, then through the
        file's using-declarations and using-directives, then at global scope. The answer depends
        only on the file and the scope the name is written in, so it is remembered by them:
        a trace meets the same names (TORCH_CHECK, numel) in caller after caller."""
        key = (caller.path, caller.qname.rpartition("::")[0], written)
        found = self._named_in_scope.get(key)
        if found is None:
            found = self._named_in_scope[key] = self._look_up(caller, written)
        return found

    def _look_up(self, caller: Symbol, written: str) -> list[Symbol]:
        if written.startswith("::"):
            return self._visible(caller, self._in_scopes([""], written.removeprefix("::")))
        if "::" in written:
            exact = self._visible(caller, self.store.symbols_with_qname(written))
            if exact:
                return exact
        return (
            self._visible(caller, self._in_scopes(_scopes(caller.qname)[:-1], written))
            or self._visible(caller, self._through_using(caller, written))
            or self._visible(caller, self._in_scopes([""], written))
        )

    def _visible(self, caller: Symbol, found: list[Symbol]) -> list[Symbol]:
        return visible_from(caller.path, found) if found else found

    def _caller_template_parameters(self, caller: Symbol) -> set[str]:
        """The template parameters of the caller, from its `template <...>` lines, which sit
        above the line the index gives a definition."""
        key = (caller.path, caller.line)
        found = self._template_parameters.get(key)
        if found is None:
            above = ""
            if caller.path is not None and caller.line is not None:
                lines = self.sources.of_file(caller.path)[max(0, caller.line - 4) : caller.line - 1]
                above = " ".join(lines)
                at = above.rfind("template")
                above = above[at:] + " " if at >= 0 else ""
            found = self._template_parameters[key] = template_parameters(above)
        return found

    def _through_using(self, caller: Symbol, written: str) -> list[Symbol]:
        if caller.path is None:
            return []
        head = written.split("::", 1)[0]
        for binding in self.store.usings_in(caller.path):
            if binding.name == "*":
                found = self.store.symbols_with_qname(f"{binding.target}::{written}")
            elif binding.name == head:
                found = self.store.symbols_with_qname(binding.target + written[len(head) :])
            else:
                continue
            if found:
                return found
        return []

    def _in_scopes(self, scopes: list[str], name: str) -> list[Symbol]:
        """The definitions of `name` in the first of `scopes` that has any (all asked at once)."""
        candidates = [f"{scope}::{name}" if scope else name for scope in scopes]
        found = self.store.symbols_with_qnames(candidates)
        return next((found[qname] for qname in candidates if found[qname]), [])

    def _vendor_symbols(self, callee: str) -> list[Symbol]:
        for qname in (callee, last_name(callee)):
            found = [s for s in self.store.symbols_with_qname(qname) if s.kind is SymbolKind.EXTERNAL]
            if found:
                return found
        return []


def _functors(passed: tuple[Symbol, ...]) -> tuple[Symbol, ...]:
    return tuple(s for s in passed if s.kind in CLASS_KINDS)


def _bound_to(parameter: str, held: tuple[Symbol, ...], held_as: tuple[str, ...]) -> tuple[Symbol, ...]:
    """The held callables a parameter may be: those passed as it, and those whose parameter
    is not known."""
    return tuple(symbol for symbol, bound in zip(held, held_as or ("",) * len(held)) if bound in ("", parameter))


def _argument_index(arguments: list[str] | None, argument: str, lambdas: list[str]) -> int | None:
    """The position of a passed name, functor or lambda (the n-th lambda of the call) among
    the call's arguments as written."""
    if arguments is None:
        return None
    if argument.startswith(LAMBDA_MARK):
        written = [index for index, text in enumerate(arguments) if text.startswith("[")]
        order = lambdas.index(argument)
        return written[order] if order < len(written) else None
    name = argument.removesuffix(FUNCTOR_MARK)
    for index, text in enumerate(arguments):
        spelled = strip_template_args(text.lstrip("&").replace(" ", ""))
        if spelled == name or (argument.endswith(FUNCTOR_MARK) and spelled.startswith(name)):
            return index
    return None


_FUNCTION_WRAPPER = re.compile(r"\b(?:function|function_ref)\s*<")


def _fast_path(callee: str) -> bool:
    """`at::cpu::add`: a name in a namespace torchgen writes per-backend fast paths into."""
    parts = callee.split("::")
    return len(parts) == 3 and parts[0] == "at" and parts[1] in FAST_PATHS


# What a typed operator handle is called with to run its operator through the dispatcher
_OPERATOR_HANDLE_CALLS = frozenset(("call", "redispatch", "callBoxed", "redispatchBoxed"))


def _scopes(qname: str) -> list[str]:
    """`at::native::ConvParams::use_cudnn` -> [at::native::ConvParams, at::native, at, ""]."""
    parts = qname.split("::")[:-1]
    return ["::".join(parts[:end]) for end in range(len(parts), -1, -1)]
