"""`explorer run --python PATH`: a program on real PyTorch, as one tree of Python calls,
torch bindings, operators, their C++ kernels and CUDA kernels.

1. Probe: the interpreter exists and imports torch; where its torch package and torchgen
   are, whether CUDA is available (a missing interpreter is a usage error, one without
   torch an ExplorerError).
2. Record: profile_bootstrap.py runs the program in that interpreter and writes the Python
   calls and torch builtin calls (sys.setprofile, CLOCK_MONOTONIC) and the PyTorch
   profiler's events (wall clock). Its docstring says how the clocks are brought together.
3. Merge: calls and builtin calls form a tree of intervals; the profiler's CPU operators
   form one per thread (their own nesting, exact on their own clock). Operators are moved
   to the Recorder's clock (the offset measured in the child, interpolated between its
   start and end readings) and both trees are merged by interval containment: an
   operator goes under the innermost call running when it started, and Python called
   back from inside an operator (autograd hooks, __torch_dispatch__) under that operator.
   Operators of other threads (autograd's device threads) go only under a builtin call
   that was waiting for them (`run_backward`). Device kernels hang under the operator that
   launched them: their linked correlation id is that operator's correlation id.
4. Name: frames are named as the static index names definitions (see _Namer).
5. Fold identical consecutive siblings (shaping.fold_repeats).
"""

from __future__ import annotations

import bisect
import functools
import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path

from explorer.errors import ExplorerError, UsageError
from explorer.index import IndexReader
from explorer.model import Layer, Symbol, SymbolKind
from explorer.parsers.common import parenthesised_items
from explorer.resolve import fitting
from explorer.runtime.events import CALL, RETURN, PythonCode, PythonRecording, python_notes, read_python
from explorer.runtime.launcher import new_workdir, run_child
from explorer.runtime.model import Reach, RunFrame, RunTrace
from explorer.runtime.naming import qualified_name
from explorer.runtime.request import RunRequest
from explorer.runtime.shaping import fold_repeats

PROFILE_BOOTSTRAP = Path(__file__).resolve().parent / "profile_bootstrap.py"
C_CALL, C_RETURN = 3, 4  # profile_bootstrap.py's builtin events, beside bootstrap.py's CALL, RETURN
WHEEL_OPERATORS_YAML = "torchgen/packaged/ATen/native/native_functions.yaml"  # relative to site-packages

_PROBE_MARK = "explorer-torch-probe "
_PROBE = f"""
import json, os, sys, importlib.util
try:
    import torch
except BaseException as error:
    print({_PROBE_MARK!r} + json.dumps({{"error": f"{{type(error).__name__}}: {{error}}"}}))
    sys.exit(0)
spec = importlib.util.find_spec("torchgen")
print({_PROBE_MARK!r} + json.dumps({{
    "version": torch.__version__,
    "package": os.path.dirname(os.path.abspath(torch.__file__)),
    "cuda": bool(torch.cuda.is_available()),
    "torchgen": os.path.dirname(os.path.abspath(spec.origin)) if spec and spec.origin else None,
}}))
"""

# The profiler wraps each backward node's run in an event of its own; the node's event
# (AddmmBackward0) is what is shown.
_AUTOGRAD_WRAPPER = "autograd::engine::evaluate_function: "
_DEVICE_KINDS = ("kernel", "gpu_memcpy", "gpu_memset")
# Calls into the CUDA runtime and driver, shown as vendor calls where they ran.
_API_KINDS = ("cuda_runtime", "cuda_driver")
_CUDA_API = re.compile(r"(cuda|cu|cudnn|cublas|cublasLt|cusparse|cufft|curand|nccl|nvtx)[A-Z]")
# CUPTI's overhead records, as kineto names them: the ones that are one word (the others
# have spaces: "Lazy Function Loading", "Activity Buffer Request").
_ONE_WORD_OVERHEAD = ("Instrumentation", "Resource", "Unknown")
# kineto's name for a CUDA API call whose callback id it has no name for (seen on torch 2.11
# with CUDA 13: callback 468, inside cuDNN's set-up); without this it passed for an operator.
_UNNAMED_API_CALL = "INVALID"
UNNAMED_API_CALL = "(a CUDA API call the profiler does not name)"
# A kernel launch call says nothing its kernel, shown under the operator, does not say.
_LAUNCH_CALL = re.compile(r"cu(da)?Launch")
# As naming.py does for the bundled runtime: the static side attributes the calls of
# these to the enclosing definition.
_FOLDED_PYTHON = ("<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>", "<lambda>")
# PyTorch's fallback from a backend key to the composite kernels (computeDispatchTableEntry).
_FALLBACK_KEYS = ("CompositeExplicitAutogradNonFunctional", "CompositeExplicitAutograd", "CompositeImplicitAutograd")
_KERNEL_KINDS = {SymbolKind.FUNCTION, SymbolKind.METHOD, SymbolKind.STRUCTURED_KERNEL, SymbolKind.KERNEL}
_DEF_LINE = re.compile(r"\s*(async\s+)?(def|class)\s")
_CUDA_SOURCE = re.compile(r"\.cuh?$|/(cuda|cudnn)/")


# -- 1. the interpreter -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TorchInstall:
    """What the probe learned about the interpreter of --python."""

    python: str  # the interpreter's path
    version: str  # 2.13.0+cpu
    package: str  # the torch package folder
    cuda: bool
    torchgen: str | None  # the torchgen package folder, with the packaged native_functions.yaml

    @property
    def site(self) -> str:
        """The folder holding the torch package: Python paths are shown relative to it."""
        return os.path.dirname(self.package)


@functools.lru_cache(maxsize=8)
def probe_torch(python: str) -> TorchInstall:
    """Importing torch takes seconds: an interpreter is probed once per explorer process
    (a failed probe raises, and is not remembered)."""
    executable = shutil.which(python) if os.sep not in python else (python if os.path.isfile(python) else None)
    if executable is None:
        raise UsageError(f"--python {python}: no such interpreter")
    if not os.access(executable, os.X_OK):
        raise UsageError(f"--python {python}: not executable")
    try:
        completed = subprocess.run([executable, "-c", _PROBE], capture_output=True, text=True, errors="replace")
    except OSError as error:
        raise ExplorerError(f"--python {python}: cannot start it ({error.strerror})") from None
    answers = [line[len(_PROBE_MARK) :] for line in completed.stdout.splitlines() if line.startswith(_PROBE_MARK)]
    if not answers:
        last = (completed.stderr.strip().splitlines() or [f"exit code {completed.returncode}"])[-1]
        raise ExplorerError(f"--python {python}: cannot import torch ({last})")
    found = json.loads(answers[-1])
    if "error" in found:
        raise ExplorerError(f"--python {python}: cannot import torch ({found['error']})")
    return TorchInstall(executable, found["version"], found["package"], found["cuda"], found["torchgen"])


# -- 2. the recordings --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ProfilerEvent:
    """One event of the PyTorch profiler, as profile_bootstrap.py wrote it."""

    name: str  # aten::conv2d, AddmmBackward0, void at::native::elementwise_kernel<...>(...)
    overload: str  # "" for the default overload (or when the profiler cannot tell)
    kind: str  # cpu_op, user_annotation, cuda_runtime, kernel, gpu_memcpy, ...
    device: str  # cpu, cuda
    start: int  # ns, on the profiler's clock
    end: int
    thread: int
    correlation: int
    linked: int  # a device event's: the correlation id of the operator that launched it


@dataclass(frozen=True, slots=True)
class ProfileRecording:
    builtins: list[str]
    imports: int
    program_end: int  # perf_counter_ns when the program ended
    profiling_end: int | None  # when the profiler stopped: the program's end, or the --max-events cap
    started: bool
    error: str | None
    overload_names: bool
    clock_start: tuple[int, int] | None  # (perf_counter_ns, time_ns) read together
    clock_end: tuple[int, int] | None
    trace_start: int | None
    events: list[ProfilerEvent]
    messages: str = ""  # what the profiler printed as it started and stopped, held apart from the program's output

    def to_recorder_clock(self) -> tuple[tuple[int, int], tuple[int, int]] | None:
        """Two (profiler time, offset to subtract) points to interpolate between; None when
        the profiler's clock is the Recorder's own (a future PyTorch may switch)."""
        if self.clock_start is None or self.clock_end is None or self.trace_start is None:
            return None
        (perf_start, wall_start), (perf_end, wall_end) = self.clock_start, self.clock_end
        if abs(self.trace_start - perf_start) < abs(self.trace_start - wall_start):
            return None
        return (wall_start, wall_start - perf_start), (wall_end, wall_end - perf_end)


def classified(event: ProfilerEvent) -> ProfilerEvent:
    """The event with the kind recent profilers report (`activity_type`). Older ones (torch
    2.11 among them) call every host-side event a CPU operator and every device event a
    kernel: CUDA API calls are then known by their names, the profiler's own bookkeeping
    ("Lazy Function Loading", "Activity Buffer Request") by a name that is no identifier,
    and copies and fills by their "Memcpy"/"Memset" names. An API call the profiler cannot
    name is said to be one, whatever kind it came with."""
    kind = event.kind
    if kind in ("cpu_op", *_API_KINDS) and event.name == _UNNAMED_API_CALL:
        return replace(event, name=UNNAMED_API_CALL, kind="cuda_runtime")
    if kind == "cpu_op" and "::" not in event.name:
        if _CUDA_API.match(event.name):
            kind = "cuda_runtime"
        elif not event.name.isidentifier() or event.name in _ONE_WORD_OVERHEAD:
            kind = "overhead"
    elif kind == "kernel" and event.name.startswith(("Memcpy ", "Memset ")):
        kind = "gpu_memcpy" if event.name.startswith("Memcpy") else "gpu_memset"
    return event if kind == event.kind else replace(event, kind=kind)


def read_profile(path: Path) -> ProfileRecording:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ExplorerError(f"cannot read the profiler recording {path}: {error}") from None

    def pair(value: list[int] | None) -> tuple[int, int] | None:
        return (value[0], value[1]) if value else None

    return ProfileRecording(
        builtins=document["builtins"],
        imports=document["imports"],
        program_end=document["program_end_ns"],
        profiling_end=document["profiling_end_ns"],
        started=document["profiler_started"],
        error=document["profiler_error"],
        overload_names=document["overload_names"],
        clock_start=pair(document["clock_start"]),
        clock_end=pair(document["clock_end"]),
        trace_start=document["trace_start_ns"],
        events=[classified(ProfilerEvent(*row)) for row in document["events"]],
        messages=document.get("profiler_messages") or "",
    )


def _run_child(install: TorchInstall, request: RunRequest, workdir: Path) -> tuple[PythonRecording, ProfileRecording]:
    python_events, profile = workdir / "python-events.json", workdir / "profile.json"
    roots = [install.package, *request.own_folders]
    config = {
        "code": request.code,
        "script": request.script,
        "argv": list(request.argv),
        "events": str(python_events),
        "profile": str(profile),
        "roots": roots,
        "max_events": request.max_events,
    }
    env = dict(os.environ)
    env.pop("PYTHONSTARTUP", None)
    returncode = run_child(install.python, PROFILE_BOOTSTRAP, config, workdir, env)
    if not python_events.is_file() or not profile.is_file():
        raise ExplorerError(f"the traced program ended without writing its recording (exit code {returncode})")
    return read_python(python_events), read_profile(profile)


# -- 3. merging calls and operators -------------------------------------------------------


class SpanKind(Enum):
    PYTHON = "python"  # ident: index into the Python recording's codes
    BUILTIN = "builtin"  # ident: index into ProfileRecording.builtins
    OPERATOR = "operator"  # ident: index into ProfileRecording.events
    DEVICE = "device"  # a CUDA kernel, memcpy or memset; ident as for OPERATOR


@dataclass(slots=True, eq=False)
class Span:
    """A call, builtin call, operator or device event with its interval on the Recorder's
    clock, while the tree is being built."""

    kind: SpanKind
    ident: int
    start: int
    end: int
    line: int = 0  # PYTHON, BUILTIN: the caller's line
    explicit: bool = True  # PYTHON: entered by a call instruction
    children: list[Span] = field(default_factory=list)


@dataclass(slots=True)
class MergeReport:
    operators: int = 0  # operators placed in the tree (nested ones included)
    device_events: int = 0
    other_thread_dropped: int = 0  # top-level operators of other threads no builtin waited for
    unlinked_device_events: int = 0
    after_program: int = 0  # operators after the program ended, or after the cap
    inverted: int = 0  # builtin calls found directly inside an operator: the clocks disagreed


def call_tree(python: PythonRecording, program_end: int) -> Span:
    """The recorded calls and builtin calls as a tree under a synthetic root. A return closes
    the innermost open call of its code (or builtin), and with it any left open above it."""
    root = Span(SpanKind.PYTHON, -1, 0, max(program_end, python.events[-1][1] if python.events else 0))
    stack = [root]
    for kind, time, index, line, explicit in python.events:
        if kind in (CALL, C_CALL):
            span = Span(
                SpanKind.PYTHON if kind == CALL else SpanKind.BUILTIN, index, time, root.end, line, bool(explicit)
            )
            stack[-1].children.append(span)
            stack.append(span)
            continue
        wanted = SpanKind.PYTHON if kind == RETURN else SpanKind.BUILTIN
        for depth in range(len(stack) - 1, 0, -1):
            if stack[depth].kind is wanted and stack[depth].ident == index:
                for closed in stack[depth:]:
                    closed.end = time
                del stack[depth:]
                break
    return root


def operator_forest(profile: ProfileRecording, report: MergeReport) -> dict[int, list[Span]]:
    """Each thread's top-level operators, with their nested operators and device events,
    on the Recorder's clock."""
    convert = _clock_converter(profile)
    # Later operators ran in the profiler's own stop, or past the cap on Python events.
    cutoff = min(profile.program_end, profile.profiling_end or profile.program_end)
    by_thread: dict[int, list[Span]] = {}
    by_correlation: dict[int, Span] = {}
    operators = sorted(
        (index for index, event in enumerate(profile.events) if _on_the_host(event)),
        key=lambda index: (profile.events[index].start, -profile.events[index].end, index),
    )
    stacks: dict[int, list[Span]] = {}
    for index in operators:
        event = profile.events[index]
        span = Span(SpanKind.OPERATOR, index, convert(event.start), convert(event.end))
        if event.linked == 0 and event.kind == "cpu_op":  # a device event's `linked` names its operator
            by_correlation[event.correlation] = span
        stack = stacks.setdefault(event.thread, [])
        while stack and stack[-1].end <= span.start:
            stack.pop()
        if stack:
            span.end = min(span.end, stack[-1].end)
            stack[-1].children.append(span)
        elif span.start >= cutoff:
            report.after_program += 1
            continue
        else:
            by_thread.setdefault(event.thread, []).append(span)
        stack.append(span)
        report.operators += 1
    device_events = sorted(
        (index for index, event in enumerate(profile.events) if event.kind in _DEVICE_KINDS),
        key=lambda index: profile.events[index].start,
    )
    for index in device_events:
        event = profile.events[index]
        launcher = by_correlation.get(event.linked)
        if launcher is None:
            report.unlinked_device_events += 1
            continue
        # Device time is another clock and another timeline: the kernel is drawn inside
        # its launcher's interval, after what is there already.
        launcher.children.append(Span(SpanKind.DEVICE, index, launcher.end, launcher.end))
        report.device_events += 1
    return by_thread


def _on_the_host(event: ProfilerEvent) -> bool:
    """An operator, or a CUDA API call other than a launch (the launched kernel is shown)."""
    return event.kind == "cpu_op" or (event.kind in _API_KINDS and not _LAUNCH_CALL.match(event.name))


def _clock_converter(profile: ProfileRecording) -> Callable[[int], int]:
    points = profile.to_recorder_clock()
    if points is None:
        return lambda time: time
    (first, first_offset), (last, last_offset) = points
    slope = (last_offset - first_offset) / (last - first) if last != first else 0.0

    def convert(time: int) -> int:
        return time - first_offset - round(slope * (time - first))

    return convert


def merge(calls: Span, operators: dict[int, list[Span]], report: MergeReport) -> None:
    """Put the operators into the call tree, in place (step 3 of the module docstring)."""
    if not operators:
        return
    # The program's thread: the one whose first operator came first. (The profiler numbers
    # threads itself; its ids are not the OS's.)
    main_thread = min(operators, key=lambda thread: operators[thread][0].start)
    _nest_by_interval(calls, operators[main_thread], report)
    for thread, spans in operators.items():
        if thread != main_thread:
            for span in spans:
                if not _place_under_waiting_builtin(calls, span):
                    report.other_thread_dropped += 1


def _preorder(span: Span) -> Iterator[Span]:
    stack = [span]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def _nest_by_interval(root: Span, operators: list[Span], report: MergeReport) -> None:
    """Rebuild the tree under `root` from the intervals of its calls and of `operators`:
    each span goes under the innermost span open when it starts. Both trees nest properly
    on their own; the rebuild interleaves them. A child whose end overruns its parent's by
    clock error is cut to it, so it cannot swallow the parent's next sibling."""
    spans = [span for span in _preorder(root) if span is not root]
    for operator in operators:
        spans.extend(_preorder(operator))
    devices: dict[int, list[Span]] = {}  # device events stay with their launching operator
    order: dict[int, int] = {}
    for position, span in enumerate(spans):
        order[id(span)] = position
        if span.kind is SpanKind.OPERATOR and span.children:
            devices[id(span)] = [child for child in span.children if child.kind is SpanKind.DEVICE]
        span.children = []
    spans = [span for span in spans if span.kind is not SpanKind.DEVICE]
    # Calls before operators at an equal start: a builtin call contains what it runs.
    spans.sort(key=lambda s: (s.start, -s.end, s.kind is SpanKind.OPERATOR, order[id(s)]))
    root.children = []
    stack = [root]
    for span in spans:
        while len(stack) > 1 and stack[-1].end <= span.start:
            stack.pop()
        parent = stack[-1]
        span.end = min(span.end, parent.end)
        if span.kind is SpanKind.BUILTIN and parent.kind is SpanKind.OPERATOR:
            report.inverted += 1
        parent.children.append(span)
        stack.append(span)
    for span in _preorder(root):
        if span.kind is SpanKind.OPERATOR:
            span.children.extend(devices.get(id(span), ()))


def _place_under_waiting_builtin(root: Span, operator: Span) -> bool:
    """Put an operator of another thread under the innermost call containing it, if a
    builtin call on the way there contains it (that call was waiting for the thread)."""
    path = [root]
    while True:
        frames = [child for child in path[-1].children if child.kind in (SpanKind.PYTHON, SpanKind.BUILTIN)]
        position = bisect.bisect_right([frame.start for frame in frames], operator.start) - 1
        if position < 0 or frames[position].end < operator.end:
            break
        path.append(frames[position])
    if not any(span.kind is SpanKind.BUILTIN for span in path):
        return False
    host = path[-1]
    host.children.append(operator)
    host.children.sort(key=lambda span: span.start)
    return True


# -- 4. names and locations ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Location:
    path: str | None
    line: int | None


@dataclass(frozen=True, slots=True)
class KernelChoice:
    """The C++ kernel an operator's dispatcher picked, as far as the index can tell."""

    name: str  # at::native::conv2d_symint
    key: str  # CPU, CUDA, CompositeImplicitAutograd, ...
    location: Location
    entry_line: int  # the dispatch line in native_functions.yaml


class Locator:
    """Where a run's definitions are: Python files and binding stubs in the interpreter's
    torch package (stubs in the --root index first, for a built tree); operators in the
    --root index, else in the wheel's packaged native_functions.yaml; C++ and CUDA kernels
    in the --root index only."""

    def __init__(self, install: TorchInstall, store: IndexReader | None) -> None:
        self.install = install
        self.store = store
        self._operators: dict[str, Symbol] | None = None  # from the wheel's YAML, without --root
        self._stubs: dict[str, dict[str, Symbol]] = {}  # stub file -> qname -> first definition
        self._lines: dict[str, list[str]] = {}
        self._kernels: dict[tuple[str, str], KernelChoice | None] = {}
        self._bindings: dict[str, Location] = {}

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

    def binding(self, name: str) -> Location:
        """A torch._C binding's stub: in the --root index if it has one (a built tree),
        else in the interpreter's torch package (`torch/_C/_VariableFunctions.pyi`)."""
        found = self._bindings.get(name)
        if found is None:
            found = self._bindings[name] = self._find_binding(name)
        return found

    def _find_binding(self, name: str) -> Location:
        if self.store is not None:
            found = sorted(self.store.symbols_with_qname(name), key=lambda s: (s.path or "", s.line or 0))
            if found:
                return Location(found[0].path, found[0].line)
        module = name
        while "." in module:
            module = module.rsplit(".", 1)[0]
            for candidate in (module.replace(".", "/") + ".pyi", module.replace(".", "/") + "/__init__.pyi"):
                symbol = self._stub(candidate).get(name)
                if symbol is not None:
                    return Location(symbol.path, symbol.line)
        return Location(None, None)

    def _stub(self, relative: str) -> dict[str, Symbol]:
        found = self._stubs.get(relative)
        if found is None:
            found = {}
            path = Path(self.install.site) / relative
            if path.is_file():
                from explorer.parsers.python import parse_python

                for symbol in parse_python(relative, path.read_bytes()).symbols:
                    known = found.get(symbol.qname)
                    if known is None or (symbol.line or 0) < (known.line or 0):
                        found[symbol.qname] = symbol
            self._stubs[relative] = found
        return found

    # operators -----------------------------------------------------------------------------

    def operator(self, name: str, overload: str | None) -> tuple[str, Location]:
        """The operator's qualified name and its `- func:` entry. `overload` None: the
        profiler cannot tell, so the name stays the base name (exact only when the base
        has a single overload), located at its default overload or else its first entry."""
        qname = name if overload is None or overload == "" else f"{name}.{overload}"
        if self.store is not None:
            found = self.store.symbols_with_qname(qname)
            if overload is None and not found:
                # the overloads of this operator: of its own namespace only (quantized::mul is
                # not an overload of aten::mul)
                overloads = (
                    s for s in self.store.operators_named(name.split("::", 1)[-1]) if s.qname.split(".", 1)[0] == name
                )
                found = sorted(overloads, key=lambda s: s.line or 0)
            operators = [s for s in found if s.kind is SymbolKind.OPERATOR]
        else:
            table = self._wheel_operators()
            operators = [table[qname]] if qname in table else []
            if overload is None and not operators:
                operators = sorted(
                    (s for q, s in table.items() if q.split(".", 1)[0] == name), key=lambda s: s.line or 0
                )
        if overload is None and len(operators) == 1:
            qname = operators[0].qname
        return qname, Location(operators[0].path, operators[0].line) if operators else Location(None, None)

    def _wheel_operators(self) -> dict[str, Symbol]:
        if self._operators is None:
            self._operators = {}
            if self.install.torchgen is not None:
                path = Path(self.install.torchgen).parent / WHEEL_OPERATORS_YAML
                if path.is_file():
                    from explorer.parsers.yaml_ops import parse_native_functions

                    for symbol in parse_native_functions(WHEEL_OPERATORS_YAML, path.read_bytes()).symbols:
                        self._operators.setdefault(symbol.qname, symbol)
        return self._operators

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
        location = Location(symbol.path, symbol.line) if symbol else Location(None, None)
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

    def device_kernel(self, name: str) -> tuple[str, Location]:
        """A CUDA kernel's name as the index spells definitions (the profiler gives the
        demangled signature), and its `__global__` definition with --root."""
        qname = qualified_name(name) or name
        if self.store is not None:
            found = sorted(
                (s for s in self.store.symbols_with_qname(qname) if s.kind is SymbolKind.KERNEL),
                key=lambda s: (s.path or "", s.line or 0),
            )
            if found:
                return qname, Location(found[0].path, found[0].line)
        return qname, Location(None, None)


def _schema_arguments(schema: str) -> int | None:
    """`conv2d(Tensor input, Tensor weight, Tensor? bias=None, ...) -> Tensor` -> 7."""
    parts = parenthesised_items(schema)
    if parts is None:
        return None
    return len([part for part in parts if part.strip() not in ("", "*")])


@dataclass(slots=True)
class NamingReport:
    unknown_device: int = 0  # operators whose kernel was not chosen: their device is unknown


class _Namer:
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
        site = (self.locator.python_path(caller_file), span.line) if caller_file and span.line > 0 else None
        if span.kind is SpanKind.PYTHON:
            return self._python(span, site)
        if span.kind is SpanKind.BUILTIN:
            children = self._frames(span.children, None, device)
            if not children:
                return []
            name = self.profile.builtins[span.ident]
            stub = self.locator.binding(name)
            return [
                RunFrame(name, Layer.BINDING, stub.path, stub.line, Reach.BINDING, site=site, children=tuple(children))
            ]
        if span.kind is SpanKind.DEVICE:
            qname, location = self.locator.device_kernel(self.profile.events[span.ident].name)
            # a copy, a fill, or a kernel of a library the tree (when there is one) does not hold: cuDNN, CUB
            event = self.profile.events[span.ident]
            vendor = event.kind != "kernel" or (location.path is None and self.locator.store is not None)
            layer = Layer.VENDOR if vendor else Layer.CUDA
            return [RunFrame(qname, layer, location.path, location.line, Reach.LAUNCH)]
        return self._operator(span, device)

    def _python(self, span: Span, site: tuple[str, int] | None) -> list[RunFrame]:
        code: PythonCode = self.codes[span.ident]
        if code.qualname.rsplit(".", 1)[-1] in _FOLDED_PYTHON:
            return self._frames(span.children, code.file, None)
        path = self.locator.python_path(code.file)
        if code.qualname == "<module>":
            return [RunFrame(code.module, Layer.PYTHON, path, 1, Reach.IMPORT, site=site)]
        module = "__main__" if code.file == self.program else code.module
        reach = Reach.CALL if span.explicit else Reach.IMPLICIT
        line = self.locator.definition_line(code.file, code.line)
        children = self._frames(span.children, code.file, None)
        return [
            RunFrame(f"{module}.{code.qualname}", Layer.PYTHON, path, line, reach, site=site, children=tuple(children))
        ]

    def _operator(self, span: Span, device: str | None) -> list[RunFrame]:
        event = self.profile.events[span.ident]
        device = "CUDA" if id(span) in self._launched else device
        children = tuple(self._frames(span.children, None, device))
        if event.name.startswith(_AUTOGRAD_WRAPPER):
            return _node_first(event.name.removeprefix(_AUTOGRAD_WRAPPER), children)
        if event.kind in _API_KINDS:
            return [RunFrame(event.name, Layer.VENDOR, None, None, Reach.PROFILED, children=children)]
        if not event.name.startswith("aten::"):
            return [RunFrame(event.name, Layer.CPP, None, None, Reach.PROFILED, children=children)]
        overload = event.overload if self.profile.overload_names else None
        qname, location = self.locator.operator(event.name, overload)
        kernel = self._kernel(qname, device)
        if kernel is not None:
            site = (location.path, kernel.entry_line) if location.path else None
            children = (
                RunFrame(
                    kernel.name,
                    Layer.CPP,
                    kernel.location.path,
                    kernel.location.line,
                    Reach.DISPATCH,
                    key=kernel.key,
                    site=site,
                    children=children,
                ),
            )
        return [RunFrame(qname, Layer.YAML, location.path, location.line, Reach.PROFILED, children=children)]

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


# -- 5. the whole run ---------------------------------------------------------------------


def run_profiled(request: RunRequest, store: IndexReader | None) -> RunTrace:
    """Run the request's program with the interpreter of --python (real PyTorch); `store`
    is the index of the --root source tree, or None without one."""
    if request.python is None:
        raise UsageError("give --python with an interpreter that has torch installed")
    install = probe_torch(request.python)
    if request.device == "cuda" and not install.cuda:
        raise ExplorerError(
            f"--backend-device cuda: torch {install.version} of {request.python} has no CUDA device "
            "(torch.cuda.is_available() is False)"
        )
    with new_workdir() as folder:
        python, profile = _run_child(install, request, Path(folder))
    return build_trace(request, install, store, python, profile)


def build_trace(
    request: RunRequest,
    install: TorchInstall,
    store: IndexReader | None,
    python: PythonRecording,
    profile: ProfileRecording,
) -> RunTrace:
    """Steps 3 to 5 of the module docstring, from the two recordings of a run."""
    report = MergeReport()
    calls = call_tree(python, profile.program_end)
    merge(calls, operator_forest(profile, report), report)
    program = request.program_file
    # The device of an operator that launched nothing (an operator that did, and what it
    # ran, are on CUDA): --backend-device's, else CPU where the run launched nothing at all.
    if request.device is not None:
        default_device: str | None = request.device.upper()
    elif not install.cuda or report.device_events == 0:
        default_device = "CPU"
    else:
        default_device = None
    tree, naming = named_tree(calls, python, profile, Locator(install, store), program, default_device)
    return RunTrace(
        command=request.command,
        runtime=request.python or install.python,
        device=request.device or "as written",
        root=tree,
        exit_code=python.exit_code,
        python_events=len(python.events),
        native_events=report.operators + report.device_events,
        notes=tuple(_notes(request, install, store, python, profile, report, naming)),
    )


def named_tree(
    calls: Span,
    python: PythonRecording,
    profile: ProfileRecording,
    locator: Locator,
    program: str,
    default_device: str | None,
) -> tuple[RunFrame, NamingReport]:
    """Steps 4 and 5: the merged spans named and placed, identical siblings folded."""
    namer = _Namer(python, profile, locator, program, default_device)
    return fold_repeats(namer.tree(calls)), namer.report


def _notes(
    request: RunRequest,
    install: TorchInstall,
    store: IndexReader | None,
    python: PythonRecording,
    profile: ProfileRecording,
    report: MergeReport,
    naming: NamingReport,
) -> Iterator[str]:
    if store is None:
        yield "no --root: operators are not mapped to their C++ kernels (give --root with a PyTorch source tree)"
    else:
        tree_version = _tree_version(request.root)
        if tree_version is not None and tree_version != install.version.split("+")[0]:
            yield (
                f"--root is PyTorch {tree_version} but the program ran torch {install.version}: "
                "operator and kernel locations are the tree's, Python lines the interpreter's"
            )
    said = f"; it printed: {' | '.join(profile.messages.splitlines()[:3])}" if profile.messages else ""
    if not profile.started:
        why = profile.error or "the program never imported torch"
        yield f"the PyTorch profiler did not run ({why}): no operators recorded{said}"
    elif profile.error:
        yield f"the PyTorch profiler failed: {profile.error}{said}"
    elif not any(event.kind == "cpu_op" for event in profile.events):
        yield f"the PyTorch profiler ran but recorded no operators{said}"
    if profile.started and not profile.overload_names:
        yield "this torch's profiler does not report overloads: operators are named without them where several exist"
    if report.other_thread_dropped:
        yield (
            f"{report.other_thread_dropped:,} operators ran on other threads while no torch call waited "
            "for them: not shown"
        )
    if report.unlinked_device_events:
        yield f"{report.unlinked_device_events:,} device events had no launching operator in the recording: not shown"
    if report.inverted:
        yield (
            f"{report.inverted:,} torch calls started inside an operator they should contain: the profiler's and "
            "Python's clocks disagreed there, and the nesting may be off"
        )
    if naming.unknown_device:
        yield (
            f"{naming.unknown_device:,} operators launched no device work, so their device is unknown: no kernel is "
            "shown for them (--backend-device cpu or cuda says which)"
        )
    yield from python_notes(python)


def _tree_version(root: str) -> str | None:
    try:
        return (Path(root) / "version.txt").read_text(encoding="utf-8").strip().removesuffix("a0") or None
    except OSError:
        return None
