"""What a C++ member call runs, from what its receiver is declared to be.

`self.writeRecord(...)` on a parameter `PyTorchStreamWriter& self`, `engine.execute(...)` on a
local `auto& engine = PythonEngine::get_python_engine();`, `get()->emptyCache()` on what a
call returns, `self->cuda_event.record()` on a data member, `device_allocator[device]->...` on
one of the caller's own class, and chains of these: the receiver's class is read from the
caller's signature and text (cpp_text.py) and from the declared types of the members and
functions on the way; the call runs that class's method of the name, a base's, or (a virtual
call) an override in a derived class (cpp_classes.py). A class found by its name only, not
from where the caller looks it up, is said (the edge is `name`, not exact).

The tensor classes are not followed: their methods that are operators go to the operator
(native_edges.py), the rest are accessors every kernel calls.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from explorer.index import IndexReader
from explorer.model import Key, Symbol, SymbolKind
from explorer.resolve.cpp_classes import CLASS_KINDS, FUNCTION_KINDS, inherited_members, may_be_virtual, overrides
from explorer.resolve.cpp_text import (
    NOT_CLASSES,
    RETURNED_NAME,
    TYPE_NAME,
    local_declaration,
    local_dereferenced,
    parameter_type,
    range_elements,
    returned_class,
)
from explorer.resolve.nodes import registered_functions
from explorer.resolve.sources import SourceLines

# The tensor classes: their methods that are operators go to the operator; the rest are
# accessors (sizes(), data_ptr(), options()) that every kernel calls, edges that would bury the
# chain a reader follows under boilerplate.
VALUE_CLASSES = frozenset({"Tensor", "TensorBase"})

# A receiver that is a call: `get()`, `c10::cuda::CUDACachingAllocator::get()`, `registry(key)`
_CALL_RECEIVER = re.compile(r"^((?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*)\s*\(.*\)$")

# A data member of the caller's own class as a receiver: `device_allocator[device]`, `impl_`
_OWN_FIELD = re.compile(r"^([A-Za-z_]\w*)\s*(\[.*\])?$")


class Receivers:
    def __init__(self, reader: IndexReader, sources: SourceLines, named: Callable[[Symbol, str], list[Symbol]]) -> None:
        self.store = reader
        self.sources = sources  # the callers' text, where locals are declared
        self.named = named  # the definitions a name written in a definition stands for
        self._locals: dict[
            tuple[str | None, int | None, str], tuple[str | None, str | None]
        ] = {}  # a local's class or initialising call
        self._class_members: dict[Key, tuple[list[Symbol], bool]] = {}  # (scope, path, class, member) -> methods

    def member_call(self, caller: Symbol, callee: str, receiver: str, name: str) -> tuple[list[Symbol], bool]:
        """The methods a member call may run, from what the receiver is declared to be, and
        whether its class was found by name only. The receiver is a parameter of a class
        (`PyTorchStreamWriter& self`), a local whose declaration says its class (`auto self =
        (THCPEvent*)_self;`) or the call that makes it (`auto& engine = PythonEngine::
        get_python_engine();`), a call (`get()->emptyCache()`: what get() is declared to
        return), a data member of one of these (`self->cuda_event.record()`), or one of the
        caller's own class (`device_allocator[device]->getStats()`). The class's method of that
        name, else a base's; with the overrides in derived classes, any of which a virtual call
        may run."""
        declared = parameter_type(caller.signature, receiver)
        local = None
        if declared is None and receiver.isidentifier() and caller.path is not None:
            declared, local = self._local_type(caller, receiver)
        if declared is not None and declared.rpartition("::")[2] in VALUE_CLASSES:
            return [], False  # `self.sizes()`: an accessor of the tensor a kernel is handed, in every kernel
        parts = [part.strip() for part in re.split(r"\.|->", callee)]
        if declared is not None:
            if len(parts) == 2:
                methods = [s for s in self.named(caller, f"{declared}::{name}") if s.kind in FUNCTION_KINDS]
                return (methods, False) if methods else self.class_methods(caller, declared, name)
            called = _CALL_RECEIVER.match(parts[1]) if len(parts) == 3 else None
            if called is not None:  # `process_group->getBackend(CUDA)->allreduce(...)`: what getBackend returns
                return self._method_of_method(caller, declared, called.group(1), name)
            if len(parts) == 3:  # `self->cuda_event.record(stream)`: THCPEvent's cuda_event is an at::cuda::CUDAEvent
                return self._method_of_field(caller, declared, parts[1], name)
            return [], False
        if local is not None and len(parts) == 2:
            return self._method_of_returned(caller, local, name)
        if _CALL_RECEIVER.match(receiver):
            return self._method_of_returned(caller, receiver, name)
        if len(parts) > 3 or (len(parts) == 3 and local is not None):
            return self._method_along(caller, parts, name)
        own = _OWN_FIELD.match(receiver)
        if own is not None and caller.kind is SymbolKind.METHOD and len(parts) == 2:
            found = self._method_of_field(
                caller, caller.qname.rpartition("::")[0], own.group(1), name, subscripted=bool(own.group(2))
            )
            if found[0]:
                return found
            # `for (auto& da : device_allocator) da->emptyCache();`: an element of a member container
            container = (
                range_elements(self.sources.of_definition(caller)).get(receiver) if caller.path is not None else None
            )
            if container is not None:
                return self._method_of_field(
                    caller, caller.qname.rpartition("::")[0], container, name, subscripted=True
                )
        return [], False

    def _method_along(self, caller: Symbol, parts: list[str], name: str) -> tuple[list[Symbol], bool]:
        """A method at the end of a chain of calls and members
        (`var.unsafeGetTensorImpl()->pyobj_slot()->init_pyobj(...)`, `var` initialised by
        THPVariable_Unpack): the class of each step from the one before, through the declared
        return types of methods and the declared types of fields. A tensor in the middle of a
        chain is followed (its accessors are not, at the end of one)."""
        start = self._start_class(caller, parts[0])
        if start is None:
            return [], False
        written, owner = start
        guessed = False
        for step in parts[1:-1]:
            called = _CALL_RECEIVER.match(step)
            if called is not None:
                methods, by_name = self.class_methods(owner, written, called.group(1))
                typed = [(m, returned_class(m.signature, m.name)) for m in methods]
            else:
                fields = self._class_fields(owner, written, step)
                by_name = False
                typed = [(f, returned_class(f.signature, f.name, opening="")) for f in fields]
            found = next(((member, cls) for member, cls in typed if cls is not None), None)
            if found is None:
                return [], False
            owner, written = found
            guessed = guessed or by_name
        methods, by_name = self.class_methods(owner, written, name)
        return methods, guessed or by_name

    def _start_class(self, caller: Symbol, first: str) -> tuple[str, Symbol] | None:
        """The class the first step of a chain is, with the definition to look its name up
        from: a parameter's or a local's declared class, the class a local's initialising call
        or a called function returns, a temporary's own class."""
        declared = parameter_type(caller.signature, first)
        local = None
        if declared is None and first.isidentifier() and caller.path is not None:
            declared, local = self._local_type(caller, first)
        if declared is not None:
            return declared, caller
        called = _CALL_RECEIVER.match(local or first)
        if called is None:
            return None
        named = self.named(caller, called.group(1))
        if any(s.kind in CLASS_KINDS for s in named):
            return called.group(1), caller
        for function in (s for s in named if s.kind in FUNCTION_KINDS):
            written = self._class_returned_by(function)
            if written is not None:
                return written, function
        return None

    def _class_fields(self, owner: Symbol, written: str, field: str) -> list[Symbol]:
        scope = owner.qname.rpartition("::")[0]
        classes = registered_functions(self.store, f"{scope}::{written}" if scope else written, owner.path, CLASS_KINDS)
        return [
            s
            for cls in classes[:1]
            for s in self.store.symbols_with_qname(f"{cls.qname}::{field}")
            if s.kind is SymbolKind.FIELD
        ]

    def declared_class(self, caller: Symbol, name: str) -> str | None:
        """The class a parameter or a local of the caller is declared with, if one is."""
        declared = parameter_type(caller.signature, name)
        if declared is None and caller.path is not None:
            declared = self._local_type(caller, name)[0]
        return declared

    def _local_type(self, caller: Symbol, name: str) -> tuple[str | None, str | None]:
        """What a local variable of the caller is, from its declaration in the caller's text:
        its class as written (`THCPEvent` for `auto self = (THCPEvent*)_self;` or `THCPEvent*
        self = ...`), or the call that initialises an `auto` (`PythonEngine::get_python_engine()`),
        whose declared return type says; (None, None) when neither is written."""
        key = (caller.path, caller.line, name)
        found = self._locals.get(key)
        if found is None:
            text = self.sources.of_definition(caller)
            found = local_declaration(text, name)
            pointer = local_dereferenced(text, name)
            if found == (None, None) and pointer is not None and pointer != name:
                # `auto& fn = *func;` with `Node* func`: what the pointer points at
                found = (parameter_type(caller.signature, pointer) or local_declaration(text, pointer)[0], None)
            self._locals[key] = found
        return found

    def _method_of_method(self, caller: Symbol, declared: str, method: str, name: str) -> tuple[list[Symbol], bool]:
        """A method called on what another method of a class returns (`getBackend(...)`, a
        c10::intrusive_ptr<Backend>): that class's method, and its overrides."""
        returning, by_name = self.class_methods(caller, declared, method)
        for function in returning:
            written = returned_class(function.signature, function.name)
            if written is None or written.rpartition("::")[2] in VALUE_CLASSES:
                continue
            found, guessed = self.class_methods(function, written, name)
            if found:
                return found, by_name or guessed
        return [], False

    def _method_of_field(
        self, caller: Symbol, declared: str, field: str, name: str, subscripted: bool = False
    ) -> tuple[list[Symbol], bool]:
        """A method called on a data member of a class (`self->cuda_event.record()` with
        `THCPEvent* self`): the member's declared class (an element's, subscripted), its method."""
        for member in (s for s in self.named(caller, f"{declared}::{field}") if s.kind is SymbolKind.FIELD):
            written = returned_class(member.signature, member.name, opening="", element=subscripted)
            if written is None or written.rpartition("::")[2] in VALUE_CLASSES:
                continue
            return self.class_methods(member, written, name)
        return [], False

    def class_methods(self, owner: Symbol, written: str, name: str) -> tuple[list[Symbol], bool]:
        """The class `written` names, looked up from where `owner` is defined: its method `name`
        or a base's, and the overrides in derived classes; and whether the class was found by
        its name only. Remembered: a class's members are asked for by many callers."""
        key = (owner.qname.rpartition("::")[0], owner.path, written, name)
        found = self._class_members.get(key)
        if found is None:
            found = self._class_members[key] = self._class_methods_uncached(owner, written, name)
        return found

    def _class_methods_uncached(self, owner: Symbol, written: str, name: str) -> tuple[list[Symbol], bool]:
        scope = owner.qname.rpartition("::")[0]
        classes = registered_functions(self.store, f"{scope}::{written}" if scope else written, owner.path, CLASS_KINDS)
        by_name = not classes
        if (
            by_name
        ):  # `at::cuda::CUDAStream`, which a header's using-declaration makes c10::cuda's: the one class of that name
            last = written.rpartition("::")[2]
            named = [s for s in self.store.symbols_named(last.lower()) if s.name == last and s.kind in CLASS_KINDS]
            if len({s.qname for s in named}) > 1 and "::" in written:  # the one in a namespace of the same last name
                tail = "::" + "::".join(written.split("::")[-2:])
                named = [s for s in named if ("::" + s.qname).endswith(tail)]
            classes = named if len({s.qname for s in named}) == 1 else []
        for cls in classes:
            own = [s for s in self.store.symbols_with_qname(f"{cls.qname}::{name}") if s.kind in FUNCTION_KINDS]
            found = own or inherited_members(self.store, cls, name, FUNCTION_KINDS)
            if not found or any(may_be_virtual(s) for s in found):
                # declared only (a pure virtual), or virtual: an override may run
                found = found + [s for s in overrides(self.store, cls, name) if s not in found]
            if found:
                return found, by_name
        return [], False

    def _method_of_returned(self, caller: Symbol, receiver: str, name: str) -> tuple[list[Symbol], bool]:
        """A method called on what a call returns (`get()->emptyCache()`): the function's
        declared return type (through pointers, references and smart pointers), its method of
        that name or a base's, and the overrides in derived classes (a virtual call may run
        any; a pure virtual runs only them)."""
        called = _CALL_RECEIVER.match(receiver)
        if called is None:
            return [], False
        named = self.named(caller, called.group(1))
        if any(s.kind in CLASS_KINDS for s in named):
            # a temporary made in place (`AlgoIterator<perf_t>(args, benchmark).try_all(...)`)
            return self.class_methods(caller, called.group(1), name)
        for returning in (s for s in named if s.kind in FUNCTION_KINDS):
            written = self._class_returned_by(returning)
            if written is None or written.rpartition("::")[2] in VALUE_CLASSES:
                continue  # a tensor's accessors are not followed into TensorBody.h
            found = self.class_methods(returning, written, name)
            if found[0]:
                return found
        return [], False

    def _class_returned_by(self, function: Symbol) -> str | None:
        """What a call of `function` returns: the local object its body returns, else the class
        its signature declares."""
        return self._returned_object(function) or returned_class(function.signature, function.name)

    def _returned_object(self, function: Symbol) -> str | None:
        """The class of the one local object a function returns, where its body declares it
        (`Engine& PythonEngine::get_python_engine() { static PythonEngine engine; ...; return
        engine; }`): more derived than the declared return type, and what a virtual call on
        the result runs."""
        if function.path is None:
            return None
        text = self.sources.of_definition(function)
        returned = set(RETURNED_NAME.findall(text))
        if len(returned) != 1:
            return None
        name = returned.pop()
        declared = re.search(
            rf"\b(?:(?:static|thread_local)\s+)+(?P<type>{TYPE_NAME})\s+{re.escape(name)}\s*[;({{]", text
        )
        written = declared.group("type") if declared is not None else None
        return written if written is not None and written not in NOT_CLASSES else None
