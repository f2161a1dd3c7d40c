"""Turns raw frames into RunFrames named the way the static index names definitions.

What a reader wants from a run is the chain the static trace shows, hop for hop, so the
runtime's own machinery is folded away (its frames removed, their callees kept):
- Python: comprehensions, generator expressions and lambdas (the static side attributes
  their calls to the enclosing definition), and the ctypes plumbing of torch/_extension,
  except the operator bindings themselves, which are the torch._C functions of the stubs;
- native: the extern "C" entry points the bindings call (THPVariable_*), the dispatcher and
  the generated per-backend wrappers. `at::conv2d` / `at::_ops::conv2d::call` become the
  operator aten::conv2d, and the kernel its wrapper calls is reached by dispatch, with the
  wrapper's key (wrapper_CUDA_cudnn_convolution: CUDA).
Module bodies run by an import are kept as one frame each (reach IMPORT), without what they
called: the tree is about the program's calls, not about the library's start-up.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace

from explorer.index import IndexReader
from explorer.model import Layer, Location, Symbol, SymbolKind
from explorer.parsers.vendors import vendor_library
from explorer.resolve import layer_of
from explorer.runtime.events import PythonCode, RawFrame
from explorer.runtime.model import Reach, RunFrame
from explorer.runtime.symbols import NativeSymbol

# The bundled runtime's ctypes layer (the stand-in for the compiled extension torch._C).
RUNTIME_PACKAGE = "torch._extension"
BINDING_MODULE = "torch._C"
# Python code objects the static side attributes to the enclosing definition: their frames are
# folded into their caller's, in the bundled runtime's runs and real PyTorch's alike.
FOLDED_PYTHON = ("<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>", "<lambda>")
_WRAPPER = re.compile(r"wrapper_(?P<key>[A-Za-z]+)_(?P<op>\w+)$")
_OBJECT_PLUMBING = ("__init__", "__del__", "__new__", "__init_subclass__")
# The build folder of the bundled runtime's library: <cache>/<name>_<16 hex digits>/ (the
# cache is $TORCH_EXTENSIONS_DIR, by default ~/.cache/torch_extensions).
_BUILD_FOLDER = r"/[A-Za-z_]\w*_[0-9a-f]{16}/"
_GENERATED = re.compile(_BUILD_FOLDER + r"generated/(?P<name>.+)$")
_ENTRY_HEADERS = ("ATen/Functions.h", "ATen/core/Tensor.h", "ATen/core/TensorBody.h")
_GLUE_NATIVE = (re.compile(r"THP\w+$"), re.compile(r"c10::Dispatcher\b"), re.compile(r"c10::impl::"))


@dataclass(frozen=True, slots=True)
class _Named:
    """What one raw frame becomes: a frame to show, or glue to fold (frame None)."""

    frame: RunFrame | None
    op: str | None = None  # an operator entry: its qualified name (consecutive entries merge)
    key: str | None = None  # a dispatch wrapper: the key the kernel below it is reached by
    runtime: PythonCode | None = None  # the runtime's own Python (torch/_extension)


class Namer:
    def __init__(
        self, reader: IndexReader, root: str, codes: list[PythonCode], program: str, native: dict[int, NativeSymbol]
    ) -> None:
        self.store = reader
        self.root = os.path.join(os.path.abspath(root), "")
        self.codes = codes
        self.program = program  # "<string>" or the script's absolute path
        self.native = native
        self._op_structs: dict[str, str] | None = None
        self._cache: dict[tuple[bool, int], _Named] = {}

    def tree(self, raw: RawFrame) -> RunFrame:
        program = RunFrame(self._relative(self.program), Layer.PYTHON, self._relative(self.program), None)
        children = self._children(raw, program_file=self.program, op=None, key=None)
        return replace(program, children=tuple(children))

    # -- walking ----------------------------------------------------------------------------

    def _children(
        self, raw: RawFrame, program_file: str | None, op: str | None, key: str | None, in_runtime: bool = False
    ) -> list[RunFrame]:
        """The frames under `raw`, with glue folded: a glue frame's callees take its place."""
        shown: list[RunFrame] = []
        for child in raw.children:
            named = self._named(child)
            if named.runtime is not None:
                if in_runtime:  # the runtime's helpers, below its entry point
                    shown.extend(self._children(child, program_file, op, key, in_runtime=True))
                    continue
                if named.runtime.qualname.rsplit(".", 1)[-1] in _OBJECT_PLUMBING:
                    continue  # a Tensor object made or freed: no call of the program's
                entry = replace(self._runtime_entry(named.runtime), site=self._site(child, raw, program_file))
                if not child.explicit:
                    entry = replace(entry, reach=Reach.IMPLICIT)
                below = self._children(child, None, None, None, in_runtime=True)
                if not self._first(entry.name) and any(frame.layer is Layer.PYTHON for frame in below):
                    # plumbing the stubs do not declare that calls back into the tree
                    # (Function.apply running forward): the calls are its caller's
                    shown.extend(below)
                    continue
                shown.append(replace(entry, children=tuple(below)))
                continue
            if named.frame is None:
                if named.op is not None and named.op != op:
                    shown.append(self._operator(child, named.op, raw, program_file))
                    continue
                shown.extend(self._children(child, program_file, op, named.key or key, in_runtime))
                continue
            frame = named.frame
            if frame.reach is Reach.IMPORT:
                shown.append(frame)
                continue
            if key is not None and frame.layer in (Layer.CPP, Layer.CUDA):
                frame = replace(frame, reach=Reach.DISPATCH, key=key)
            frame = replace(
                frame, site=self._site(child, raw, program_file), calls=child.calls, receiver=child.receiver
            )
            own_file = self._file_of(child)
            # Below a binding, the runtime's Python is its plumbing (argument parsing, ctypes).
            below = self._children(child, own_file, None, None, in_runtime=frame.layer is Layer.BINDING)
            shown.append(replace(frame, children=tuple(below)))
        return shown

    def _operator(self, raw: RawFrame, op: str, parent: RawFrame, program_file: str | None) -> RunFrame:
        symbol = self._first(op)
        frame = RunFrame(
            op,
            Layer.YAML,
            symbol.path if symbol else None,
            symbol.line if symbol else None,
            site=self._site(raw, parent, program_file),
        )
        return replace(frame, children=tuple(self._children(raw, None, op, None)))

    # -- one frame --------------------------------------------------------------------------

    def _named(self, raw: RawFrame) -> _Named:
        cached = self._cache.get((raw.native, raw.ident))
        if cached is None:
            cached = self._native(raw.ident) if raw.native else self._python(self.codes[raw.ident])
            self._cache[(raw.native, raw.ident)] = cached
        if not raw.native and cached.frame is not None and cached.frame.reach is Reach.CALL:
            if not raw.explicit or _protocol_method(self.codes[raw.ident].qualname):
                return _Named(replace(cached.frame, reach=Reach.IMPLICIT))
        return cached

    def _python(self, code: PythonCode) -> _Named:
        if code.qualname.rsplit(".", 1)[-1] in FOLDED_PYTHON:
            return _Named(None)
        path = self._relative(code.file)
        if code.module == BINDING_MODULE:
            name = f"{BINDING_MODULE}.{code.qualname}"
            stub = self._first(name)
            return _Named(
                RunFrame(
                    name, Layer.BINDING, stub.path if stub else path, stub.line if stub else code.line, Reach.BINDING
                )
            )
        if code.module == RUNTIME_PACKAGE or code.module.startswith(RUNTIME_PACKAGE + "."):
            return _Named(None, runtime=code)
        if code.qualname == "<module>":
            if code.file == self.program:
                return _Named(None)  # the program's own body: the root frame stands for it
            return _Named(RunFrame(code.module, Layer.PYTHON, path, 1, Reach.IMPORT))
        if code.body:
            return _Named(None)  # a class body: what it calls belongs to the enclosing scope
        name = python_name("__main__" if code.file == self.program else code.module, code.qualname)
        return _Named(RunFrame(name, Layer.PYTHON, path, self._def_line(name, path, code.line)))

    def _def_line(self, name: str, path: str, first_line: int) -> int:
        """The `def` line the index gives: a decorated function's code starts at its first
        decorator."""
        lines = [
            s.line for s in self.store.symbols_with_qname(name) if s.path == path and s.line and s.line >= first_line
        ]
        return min(lines) if lines and min(lines) - first_line < 20 else first_line

    def _runtime_entry(self, code: PythonCode) -> RunFrame:
        """Where the program enters the runtime other than through an operator binding: a
        factory (torch.randn), a Tensor method (Tensor.to) or a torch._C helper. In PyTorch
        these are functions of the extension module torch._C, and are named so here."""
        if code.qualname.startswith("TensorBase."):
            name = f"{BINDING_MODULE}.{code.qualname}"
        elif code.module.endswith(".factories"):
            name = f"{BINDING_MODULE}._VariableFunctions.{code.qualname}"
        else:
            name = f"{BINDING_MODULE}.{code.qualname}"
        stub = self._first(name)
        path = stub.path if stub else self._relative(code.file)
        return RunFrame(name, Layer.BINDING, path, stub.line if stub else code.line, Reach.BINDING)

    def _native(self, offset: int) -> _Named:
        symbol = self.native.get(offset)
        demangled = symbol.demangled if symbol else f"0x{offset:x}"
        name = qualified_name(demangled)
        if name is None or any(p.match(name) for p in _GLUE_NATIVE) or special_member(name):
            return _Named(None)
        wrapper = _WRAPPER.search(name)
        if wrapper:
            return _Named(None, key=wrapper["key"])
        op = self._operator_entry(name)
        if op is not None:
            return _Named(None, op=op)
        vendor = vendor_library(name)
        if vendor is not None:
            return _Named(RunFrame(name, Layer.VENDOR, None, None))
        static = self._definition(name, symbol)
        if static is not None:
            return _Named(
                RunFrame(
                    name,
                    layer_of(static),
                    static.path,
                    static.line,
                    Reach.LAUNCH if static.kind is SymbolKind.KERNEL else Reach.CALL,
                )
            )
        path = self._relative(symbol.file) if symbol and symbol.file else None
        layer = Layer.CUDA if path and path.endswith((".cu", ".cuh")) else Layer.CPP
        return _Named(RunFrame(name, layer, path, symbol.line if symbol else None))

    def _operator_entry(self, name: str) -> str | None:
        """`at::_ops::conv2d_padding::call` or `at::conv2d` -> its operator, else None."""
        if name.startswith("at::_ops::"):
            struct = name[len("at::_ops::") :].split("::", 1)[0]
            return self._structs().get(struct)
        if name.startswith("at::") and name.count("::") == 1:
            operator = self._structs().get(name[len("at::") :])
            declared = any(s.path and s.path.endswith("ATen/Functions.h") for s in self.store.symbols_with_qname(name))
            return operator if declared else None
        return None

    def _structs(self) -> dict[str, str]:
        """Operator struct names of at::_ops (overload joined by '_') -> operator qname."""
        if self._op_structs is None:
            self._op_structs = {}
            for qname in self.store.operator_names():
                self._op_structs[qname.removeprefix("aten::").replace(".", "_")] = qname
        return self._op_structs

    def _definition(self, name: str, symbol: NativeSymbol | None) -> Symbol | None:
        """The index's definition of a native function, in the file the debug information
        names when it knows one (None when the index has no definition there: inline
        functions of headers the index attributes elsewhere keep their debug location)."""
        found = [s for s in self.store.symbols_with_qname(name) if s.kind is not SymbolKind.OPERATOR]
        if symbol and symbol.file:
            path = self._relative(symbol.file)
            found = [s for s in found if s.path == path]
        return min(found, key=lambda s: (s.path or "", s.line or 0)) if found else None

    # -- locations --------------------------------------------------------------------------

    def _site(self, raw: RawFrame, parent: RawFrame, program_file: str | None) -> Location | None:
        if raw.native:
            located = self.native.get(raw.site - 1)
            if located is None or located.file is None or located.line is None:
                return None
            # The innermost line, unless it is in the inline at:: entry points an operator
            # call passes through: then the line of the code that called them.
            for file, line in ((located.file, located.line), *located.inlined_in):
                if not file.endswith(_ENTRY_HEADERS):
                    return Location(self._relative(file), line)
            return Location(self._relative(located.file), located.line)
        if program_file is None or raw.site <= 0:
            return None
        return Location(self._relative(program_file), raw.site)

    def _file_of(self, raw: RawFrame) -> str | None:
        return None if raw.native else self.codes[raw.ident].file

    def _relative(self, file: str) -> str:
        if file.startswith(self.root):
            return file[len(self.root) :]
        generated = _GENERATED.search(file)
        if generated:  # the build's generated sources, in the runtime's cache folder
            return f"<generated>/{generated['name']}"
        here = os.path.join(os.getcwd(), "")
        return file[len(here) :] if file.startswith(here) else file

    def _first(self, qname: str) -> Symbol | None:
        found = self.store.symbols_with_qname(qname)
        return min(found, key=lambda s: (s.path or "", s.line or 0)) if found else None


def python_name(module: str, qualname: str) -> str:
    """A Python function's name as the index names its definition: a nested function is
    `outer.inner` there, `outer.<locals>.inner` in Python's `__qualname__`."""
    return f"{module}.{qualname.replace('.<locals>', '')}"


def _protocol_method(qualname: str) -> bool:
    """`__getattr__`, `__exit__`, `__len__`...: run by the interpreter or a builtin (hasattr,
    len, the end of a `with`), even when the instruction that ran them was a call."""
    name = qualname.rpartition(".")[2]
    return name.startswith("__") and name.endswith("__") and name not in ("__init__", "__new__", "__call__")


def special_member(name: str) -> bool:
    """Constructors, destructors and operator overloads: object plumbing, not hops of a
    call chain (the static graph has no edges to them either)."""
    owner, _, member = name.rpartition("::")
    return bool(owner) and (member.startswith(("~", "operator")) or member == owner.rpartition("::")[2])


def site_offsets(raw: RawFrame) -> set[int]:
    """Every native function and call-site offset in the tree (call sites as the call's own
    address: the recorded return address minus one), to be named in one pass."""
    offsets: set[int] = set()
    stack = [raw]
    while stack:
        frame = stack.pop()
        if frame.native:
            offsets.add(frame.ident)
            if frame.site > 0:
                offsets.add(frame.site - 1)
        stack.extend(frame.children)
    return offsets


def qualified_name(demangled: str) -> str | None:
    """`void at::native::f<float>(at::Tensor const&) const` -> `at::native::f`; None for a
    lambda's body, which belongs to the function that defines it. A lambda among a function's
    template or parameter types (`gpu_kernel<exp_kernel(...)::{lambda(float)#1}>`) is not
    the function's own name: that function is kept."""
    text = demangled.strip()
    for suffix in (" const", " &&", " &", " volatile"):
        text = text.removesuffix(suffix)
    if text.endswith(")"):
        depth = 0
        for index in range(len(text) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(text[index], 0)
            if depth == 0:
                text = text[:index]
                break
    # Drop template arguments and a leading return type, at nesting depth 0 only.
    name, depth = [], 0
    for char in text:
        if char == "<":
            depth += 1
        elif char == ">":
            depth -= 1
        elif depth == 0:
            name.append(char)
    plain = "".join(name).replace("(anonymous namespace)::", "")
    if "{lambda(" in plain:
        return None
    plain = plain.rsplit(" ", 1)[-1]
    return plain or None
