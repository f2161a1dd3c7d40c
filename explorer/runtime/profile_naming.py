"""Step 4 of `explorer run --python` (profiler.py): the merged tree's frames named as the
static index names definitions, and located: Python files and binding stubs in the
interpreter's torch package, binding stubs and operators in the --root index or the index of
the interpreter's torch distribution, C++ and CUDA kernels in the --root index."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace

from explorer.index import IndexReader
from explorer.model import Layer, Location, Symbol, SymbolKind
from explorer.parsers.common import parenthesised_items
from explorer.resolve import fitting
from explorer.runtime.events import PythonCode, PythonRecording
from explorer.runtime.model import Reach, RunFrame
from explorer.runtime.naming import FOLDED_PYTHON, python_name, qualified_name
from explorer.runtime.profile_events import API_KINDS, AUTOGRAD_WRAPPER, ProfileRecording
from explorer.runtime.profile_merge import Span, SpanKind
from explorer.runtime.torch_install import TorchInstall

# PyTorch's fallback from a backend key to the composite kernels (computeDispatchTableEntry).
_FALLBACK_KEYS = ("CompositeExplicitAutogradNonFunctional", "CompositeExplicitAutograd", "CompositeImplicitAutograd")


_KERNEL_KINDS = {SymbolKind.FUNCTION, SymbolKind.METHOD, SymbolKind.STRUCTURED_KERNEL, SymbolKind.KERNEL}


_DEF_LINE = re.compile(r"\s*(async\s+)?(def|class)\s")


_CUDA_SOURCE = re.compile(r"\.cuh?$|/(cuda|cudnn)/")


@dataclass(frozen=True, slots=True)
class KernelChoice:
    """The C++ kernel an operator's dispatcher picked, as far as the index can tell."""

    name: str  # at::native::conv2d_symint
    key: str  # CPU, CUDA, CompositeImplicitAutograd, ...
    location: Location | None  # None: no definition in the trees
    entry_line: int  # the dispatch line in native_functions.yaml


class Locator:
    """Where a run's definitions are: Python files in the interpreter's torch package;
    binding stubs and operators in the --root index (a built tree), else in the index of the
    interpreter's torch distribution (its stubs and packaged native_functions.yaml, indexed
    once per install, as for a project that imports torch); C++ and CUDA kernels in the
    --root index only."""

    def __init__(self, install: TorchInstall, reader: IndexReader | None, wheel: IndexReader | None = None) -> None:
        self.install = install
        self.store = reader
        self.wheel = wheel  # read where there is no --root
        self._lines: dict[str, list[str]] = {}
        self._kernels: dict[tuple[str, str], KernelChoice | None] = {}
        self._bindings: dict[str, Location | None] = {}

    # Python --------------------------------------------------------------------------------

    def python_path(self, file: str) -> str:
        """`torch/nn/modules/conv.py` for a file of the torch package (the same path in a
        --root source tree), `<string>` for -c code, relative to the working folder for a
        file under it, else absolute."""
        site = os.path.join(self.install.site, "")
        if file.startswith(site):
            return file[len(site) :]
        if file.startswith("<"):
            return file
        try:
            relative = os.path.relpath(file)
        except ValueError:
            return file
        return file if relative.startswith(os.pardir) else relative

    def definition_line(self, file: str, first_line: int) -> int:
        """The `def` line of a function: co_firstlineno is its first decorator's, the static
        index's is the `def`'s."""
        lines = self._source(file)
        number = first_line
        while 0 < number <= len(lines) and number < first_line + 60 and not _DEF_LINE.match(lines[number - 1]):
            number += 1
        return number if 0 < number <= len(lines) and _DEF_LINE.match(lines[number - 1]) else first_line

    def _source(self, file: str) -> list[str]:
        lines = self._lines.get(file)
        if lines is None:
            try:
                with open(file, encoding="utf-8", errors="replace") as handle:
                    lines = handle.read().splitlines()
            except OSError:
                lines = []
            self._lines[file] = lines
        return lines

    # bindings ------------------------------------------------------------------------------

    def binding(self, name: str) -> Location | None:
        """A torch._C binding's stub: in the --root index if it has one (a built tree),
        else in the wheel's (`torch/_C/_VariableFunctions.pyi`)."""
        found = self._bindings.get(name)
        if found is None:
            found = self._bindings[name] = self._find_binding(name)
        return found

    def _find_binding(self, name: str) -> Location | None:
        if self.store is not None:
            found = sorted(self.store.symbols_with_qname(name), key=lambda s: (s.path or "", s.line or 0))
            if found:
                return _place(found[0])
        if self.wheel is None:
            return None
        # the stub of the module that defines the name: the innermost module with a stub first
        # (a .py of the same name, or a stub further out re-exporting it, is not the binding)
        defined = self.wheel.symbols_with_qname(name)
        module = name
        while "." in module:
            module = module.rsplit(".", 1)[0]
            for stub in (module.replace(".", "/") + ".pyi", module.replace(".", "/") + "/__init__.pyi"):
                in_stub = [s for s in defined if s.path == stub]
                if in_stub:
                    return _place(min(in_stub, key=lambda s: s.line or 0))
        return None

    # operators -----------------------------------------------------------------------------

    def operator(self, name: str, overload: str | None) -> tuple[str, Location | None]:
        """The operator's qualified name and its `- func:` entry. `overload` None: the
        profiler cannot tell, so the name stays the base name (exact only when the base
        has a single overload), located at its default overload or else its first entry."""
        qname = name if overload is None or overload == "" else f"{name}.{overload}"
        operators: list[Symbol] = []
        reader = self.store if self.store is not None else self.wheel
        if reader is not None:
            found = reader.symbols_with_qname(qname)
            if overload is None and not found:
                # the overloads of this operator: of its own namespace only (quantized::mul is
                # not an overload of aten::mul)
                overloads = (
                    s for s in reader.operators_named(name.split("::", 1)[-1]) if s.qname.split(".", 1)[0] == name
                )
                found = sorted(overloads, key=lambda s: s.line or 0)
            operators = [s for s in found if s.kind is SymbolKind.OPERATOR]
        if overload is None and len(operators) == 1:
            qname = operators[0].qname
        return qname, _place(operators[0]) if operators else None

    def kernel(self, operator: str, device_key: str) -> KernelChoice | None:
        """The kernel the dispatcher runs for `operator` on a `device_key` tensor (with
        --root only): the operator's own entry for the key; else, for a structured operator,
        its structured_delegate's (the generated wrapper calls that kernel directly); else
        the composite kernels, in PyTorch's order of fallback."""
        if self.store is None:
            return None
        cache_key = (operator, device_key)
        if cache_key not in self._kernels:
            self._kernels[cache_key] = self._find_kernel(operator, device_key)
        return self._kernels[cache_key]

    def _find_kernel(self, operator: str, device_key: str) -> KernelChoice | None:
        assert self.store is not None
        entries = self.store.dispatch_of(operator)
        chosen = next((e for e in entries if e.key == device_key), None)
        if chosen is None:
            info = self.store.operator_info(operator)
            if info is not None and info.structured_delegate:
                chosen = next(
                    (e for e in self.store.dispatch_of(info.structured_delegate) if e.key == device_key), None
                )
        if chosen is None:
            for key in _FALLBACK_KEYS:
                chosen = next((e for e in entries if e.key == key), None)
                if chosen is not None:
                    break
        if chosen is None:
            return None
        definitions = [s for s in self.store.symbols_with_qname(chosen.kernel) if s.kind in _KERNEL_KINDS]
        symbol = self._pick_definition(definitions, operator, chosen.key)
        location = _place(symbol) if symbol else None
        return KernelChoice(chosen.kernel, chosen.key, location, chosen.line)

    def _pick_definition(self, definitions: list[Symbol], operator: str, key: str) -> Symbol | None:
        """One definition of a kernel name: those taking as many arguments as the
        operator's schema, outside headers, in CUDA files for the CUDA key (`CPU, CUDA:
        relu` may have one definition per device); of several left (both sides of an `#if
        AT_MKLDNN_ENABLED()`), the one making the most calls, since the other side of such
        an `#if` only raises 'not compiled with ...'."""
        if not definitions:
            return None
        assert self.store is not None
        schema = next(
            (s.signature for s in self.store.symbols_with_qname(operator) if s.kind is SymbolKind.OPERATOR), ""
        )
        kept = fitting(definitions, _schema_arguments(schema))
        kept = [s for s in kept if not (s.path or "").endswith((".h", ".hpp", ".cuh"))] or kept
        if key in ("CPU", "CUDA"):
            kept = [s for s in kept if bool(_CUDA_SOURCE.search(s.path or "")) == (key == "CUDA")] or kept

        def calls(symbol: Symbol) -> int:
            assert self.store is not None
            if symbol.path is None or symbol.line is None:
                return 0
            return len(self.store.calls_in(symbol.qname, symbol.path, (symbol.line, symbol.end_line or symbol.line)))

        return min(kept, key=lambda s: (-calls(s), s.path or "", s.line or 0))

    # CUDA ----------------------------------------------------------------------------------

    def device_kernel(self, name: str) -> tuple[str, Location | None]:
        """A CUDA kernel's name as the index spells definitions (the profiler gives the
        demangled signature), and its `__global__` definition with --root."""
        qname = qualified_name(name) or name
        if self.store is not None:
            found = sorted(
                (s for s in self.store.symbols_with_qname(qname) if s.kind is SymbolKind.KERNEL),
                key=lambda s: (s.path or "", s.line or 0),
            )
            if found:
                return qname, _place(found[0])
        return qname, None


def _place(symbol: Symbol) -> Location | None:
    return Location(symbol.path, symbol.line) if symbol.path is not None and symbol.line is not None else None


def _path_line(location: Location | None) -> tuple[str | None, int | None]:
    """A frame's path and line: those of the location, or none."""
    return (location.path, location.line) if location is not None else (None, None)


def _schema_arguments(schema: str) -> int | None:
    """`conv2d(Tensor input, Tensor weight, Tensor? bias=None, ...) -> Tensor` -> 7."""
    parts = parenthesised_items(schema)
    if parts is None:
        return None
    return len([part for part in parts if part.strip() not in ("", "*")])


@dataclass(slots=True)
class NamingReport:
    unknown_device: int = 0  # operators whose kernel was not chosen: their device is unknown


class ProfileNamer:
    """Turns the merged spans into RunFrames.

    - Python: `module.qualname` (`__main__.f` for the program's own), the def line; a module
      body run by an import is one IMPORT frame without what it ran; comprehensions and
      lambdas are folded into their caller.
    - builtins: the torch._C binding (`torch._C._VariableFunctions.conv2d`), kept only when
      something ran below it (an operator, or Python called back): `Tensor.size` or
      `torch._C._get_tracing_state` run no operator and are left out.
    - operators: `aten::add.Tensor`, at the operator's entry in native_functions.yaml;
      other profiler events (autograd nodes such as AddmmBackward0) as C++ frames without
      a location. With --root, the kernel chosen for the operator's device sits between it
      and what it ran.
    - device events: CUDA frames under their operator (and its kernel)."""

    def __init__(
        self,
        python: PythonRecording,
        profile: ProfileRecording,
        locator: Locator,
        program: str,
        default_device: str | None,
    ) -> None:
        self.codes = python.codes
        self.profile = profile
        self.locator = locator
        self.program = program  # "<string>" or the script's absolute path
        self.default_device = default_device  # the key for operators that launched nothing
        self.report = NamingReport()
        self._launched: set[int] = set()  # ids of the operator spans that launched device work

    def tree(self, root: Span) -> RunFrame:
        self._launched = _launching(root)
        program_path = self.locator.python_path(self.program)
        children: list[RunFrame] = []
        for span in root.children:
            if span.kind is SpanKind.PYTHON and self._is_program(span):
                children.extend(self._frames(span.children, self.program, None))
            else:
                children.extend(self._frames([span], self.program, None))
        return RunFrame(program_path, Layer.PYTHON, program_path, None, children=tuple(children))

    def _is_program(self, span: Span) -> bool:
        code = self.codes[span.ident]
        return code.qualname == "<module>" and code.file == self.program

    def _frames(self, spans: list[Span], caller_file: str | None, device: str | None) -> list[RunFrame]:
        frames: list[RunFrame] = []
        for span in spans:
            frames.extend(self._frame(span, caller_file, device))
        return frames

    def _frame(self, span: Span, caller_file: str | None, device: str | None) -> list[RunFrame]:
        site = Location(self.locator.python_path(caller_file), span.line) if caller_file and span.line > 0 else None
        if span.kind is SpanKind.PYTHON:
            return self._python(span, site)
        if span.kind is SpanKind.BUILTIN:
            children = self._frames(span.children, None, device)
            if not children:
                return []
            name = self.profile.builtins[span.ident]
            stub = self.locator.binding(name)
            return [
                RunFrame(name, Layer.BINDING, *_path_line(stub), Reach.BINDING, site=site, children=tuple(children))
            ]
        if span.kind is SpanKind.DEVICE:
            qname, location = self.locator.device_kernel(self.profile.events[span.ident].name)
            # a copy, a fill, or a kernel of a library the tree (when there is one) does not hold: cuDNN, CUB
            event = self.profile.events[span.ident]
            vendor = event.kind != "kernel" or (location is None and self.locator.store is not None)
            layer = Layer.VENDOR if vendor else Layer.CUDA
            return [RunFrame(qname, layer, *_path_line(location), Reach.LAUNCH)]
        return self._operator(span, device)

    def _python(self, span: Span, site: Location | None) -> list[RunFrame]:
        code: PythonCode = self.codes[span.ident]
        if code.qualname.rsplit(".", 1)[-1] in FOLDED_PYTHON:
            return self._frames(span.children, code.file, None)
        path = self.locator.python_path(code.file)
        if code.qualname == "<module>":
            return [RunFrame(code.module, Layer.PYTHON, path, 1, Reach.IMPORT, site=site)]
        name = python_name("__main__" if code.file == self.program else code.module, code.qualname)
        reach = Reach.CALL if span.explicit else Reach.IMPLICIT
        line = self.locator.definition_line(code.file, code.line)
        children = self._frames(span.children, code.file, None)
        return [RunFrame(name, Layer.PYTHON, path, line, reach, site=site, children=tuple(children))]

    def _operator(self, span: Span, device: str | None) -> list[RunFrame]:
        event = self.profile.events[span.ident]
        device = "CUDA" if id(span) in self._launched else device
        children = tuple(self._frames(span.children, None, device))
        if event.name.startswith(AUTOGRAD_WRAPPER):
            return _node_first(event.name.removeprefix(AUTOGRAD_WRAPPER), children)
        if event.kind in API_KINDS:
            return [RunFrame(event.name, Layer.VENDOR, None, None, Reach.PROFILED, children=children)]
        if not event.name.startswith("aten::"):
            return [RunFrame(event.name, Layer.CPP, None, None, Reach.PROFILED, children=children)]
        overload = event.overload if self.profile.overload_names else None
        qname, location = self.locator.operator(event.name, overload)
        kernel = self._kernel(qname, device)
        if kernel is not None:
            site = Location(location.path, kernel.entry_line) if location is not None else None
            children = (
                RunFrame(
                    kernel.name,
                    Layer.CPP,
                    *_path_line(kernel.location),
                    Reach.DISPATCH,
                    key=kernel.key,
                    site=site,
                    children=children,
                ),
            )
        return [RunFrame(qname, Layer.YAML, *_path_line(location), Reach.PROFILED, children=children)]

    def _kernel(self, operator: str, device: str | None) -> KernelChoice | None:
        if self.locator.store is None:
            return None
        key = device or self.default_device
        if key is None:
            self.report.unknown_device += 1
            return None
        return self.locator.kernel(operator, key)


def _node_first(node: str, frames: tuple[RunFrame, ...]) -> list[RunFrame]:
    """A backward node's frame with what the engine ran for it after the node's own function
    (summing a gradient to its input's shape: AddmmBackward0's bias) put under it: shown beside
    it, that work read as the program's own."""
    if not frames or frames[0].name != node:
        return list(frames)
    first, after = frames[0], frames[1:]
    return [replace(first, children=first.children + after)] if after else [first]


def _launching(root: Span) -> set[int]:
    """The ids of the operator spans that launched device work, or ran an operator that
    did: they ran on the GPU."""
    launched: set[int] = set()

    def visit(span: Span) -> bool:
        below = [visit(child) for child in span.children]  # every child, for the set
        did = any(below) or any(child.kind is SpanKind.DEVICE for child in span.children)
        if did and span.kind is SpanKind.OPERATOR:
            launched.add(id(span))
        return did and span.kind in (SpanKind.OPERATOR, SpanKind.DEVICE)

    visit(root)
    return launched
