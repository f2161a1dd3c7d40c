"""`explorer run --chrome-trace FILE`: a trace the PyTorch profiler has already written, mapped
to source without running anything.

The file is the profiler's own JSON (the Chrome trace format): what `prof.export_chrome_trace(
path)` writes, or `torch.profiler.tensorboard_trace_handler` (`*.pt.trace.json`, gzipped or
not). Its complete events ("ph": "X") become the events of a ProfileRecording, so operators
and CUDA kernels are nested, named and placed by the same steps as `run --python`'s own
recording (profiler.py, steps 3 to 5), except that there are no Python calls to merge with:
every thread's operators stand at the top, in the order they started.

How a kernel finds the operator that launched it: the trace links a kernel to its launch
call by the `correlation` they share, and the launch call lies inside the operator's interval
on the operator's thread. (Kineto's `External id` names that operator in recent traces but
repeats the correlation in older ones, so the interval is what is trusted.)
"""

from __future__ import annotations

import bisect
import gzip
import json
import zlib
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from explorer.errors import UsageError
from explorer.index import IndexReader
from explorer.runtime.events import PythonRecording
from explorer.runtime.model import RECORDED_TRACE, RunTrace
from explorer.runtime.profile_events import ProfileRecording, ProfilerEvent, classified
from explorer.runtime.profile_merge import MergeReport, call_tree, operator_forest
from explorer.runtime.profile_naming import Locator, NamingReport
from explorer.runtime.profiler import named_tree
from explorer.runtime.torch_install import TorchInstall, probe_torch

# The event categories kept, as the profiler names them; the others are its bookkeeping
# ("Trace", "overhead"), synchronisation marks, flow arrows and Python frames (below).
_HOST_KINDS = ("cpu_op", "user_annotation", "cuda_runtime", "cuda_driver")
_DEVICE_KINDS = ("kernel", "gpu_memcpy", "gpu_memset")
_NO_CALLS = PythonRecording(codes=[], events=[], exit_code=0, error=None, capped=False, max_events=0)
_LARGEST = 2 * 1024 * 1024 * 1024  # a trace's text, unpacked: more is not a trace of one run


def read_chrome_trace(path: Path) -> tuple[ProfileRecording, int]:
    """The trace's events as a ProfileRecording, and how many Python-function events it held
    (recorded with `with_stack=True`; not used: operators nest by their own intervals)."""
    events = _trace_events(path)
    threads: dict[tuple[object, object], int] = {}
    rows: list[ProfilerEvent] = []
    launches: dict[int, tuple[int, int]] = {}  # correlation -> (thread, time) of the call that made it
    python_functions = 0
    for event in events:
        if not isinstance(event, dict) or event.get("ph") != "X":
            continue
        kind = str(event.get("cat", "")).lower()
        if kind == "python_function":
            python_functions += 1
        if kind not in _HOST_KINDS and kind not in _DEVICE_KINDS:
            continue
        try:
            start = round(float(event["ts"]) * 1000)
            end = start + max(0, round(float(event.get("dur", 0)) * 1000))
        except (KeyError, TypeError, ValueError):
            continue  # an event without a time cannot be placed
        args = event.get("args")
        args = args if isinstance(args, dict) else {}
        thread = threads.setdefault((event.get("pid"), event.get("tid")), len(threads) + 1)
        correlation = _integer(args.get("correlation"))
        name = str(event.get("name", ""))
        if kind in _DEVICE_KINDS:
            rows.append(ProfilerEvent(name, "", kind, "cuda", start, end, thread, 0, correlation))
            continue
        if kind in ("cuda_runtime", "cuda_driver") and correlation:
            launches[correlation] = (thread, start)  # a launch, a copy or a fill
        rows.append(ProfilerEvent(name, "", kind, "cpu", start, end, thread, 0, 0))
    if not rows:
        raise UsageError(f"{path}: no operators or kernels in this trace")
    rows = [classified(_numbered(row, number)) for number, row in enumerate(rows, start=1)]
    rows = list(_linked(rows, launches))
    host_end = max((row.end for row in rows if row.device == "cpu"), default=0)
    recording = ProfileRecording(
        builtins=[],
        imports=0,
        program_end=host_end + 1,
        profiling_end=None,
        started=True,
        error=None,
        overload_names=False,
        clock_start=None,
        clock_end=None,
        trace_start=None,
        events=rows,
    )
    return recording, python_functions


def chrome_trace_run(path: Path, reader: IndexReader | None, python: str | None) -> RunTrace:
    """The trace as a run: operators and kernels named and placed in the --root index (and
    the wheel of --python, where given)."""
    profile, python_functions = read_chrome_trace(path)
    devices = sum(1 for event in profile.events if event.device == "cuda")
    install = probe_torch(python) if python is not None else _no_install(cuda=devices > 0)
    report = MergeReport()
    calls = call_tree(_NO_CALLS, profile.program_end)
    forest = operator_forest(profile, report)
    calls.children = sorted((span for spans in forest.values() for span in spans), key=lambda span: span.start)
    tree, naming = named_tree(
        calls, _NO_CALLS, profile, Locator(install, reader), str(path), None if devices else "CPU"
    )
    return RunTrace(
        command=str(path),
        runtime=RECORDED_TRACE,
        device="as recorded",
        root=tree,
        exit_code=0,
        python_events=0,
        native_events=report.operators + report.device_events,
        notes=tuple(_notes(reader, report, naming, python_functions)),
    )


def _trace_events(path: Path) -> list[object]:
    try:
        with open(path, "rb") as handle:
            head = handle.read(2)
        opener = gzip.open if head == b"\x1f\x8b" else open
        with opener(path, "rb") as handle:
            text = handle.read(_LARGEST + 1)
    except (EOFError, zlib.error, gzip.BadGzipFile) as error:
        raise UsageError(f"{path}: a damaged gzip file ({error})") from None
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror or error}") from None
    if len(text) > _LARGEST:
        raise UsageError(f"{path}: over {_LARGEST // 1024**3} GiB of JSON; not read")
    try:
        document = json.loads(text)
    except (ValueError, UnicodeDecodeError) as error:
        raise UsageError(f"{path}: not a JSON trace ({error})") from None
    events = document.get("traceEvents") if isinstance(document, dict) else document
    if not isinstance(events, list):
        raise UsageError(f"{path}: not a profiler trace (no traceEvents list)")
    return events


def _integer(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _numbered(row: ProfilerEvent, number: int) -> ProfilerEvent:
    """An operator carries its own number as its correlation id: what a kernel's `linked`
    names (the trace's own ids are not trusted, see the module docstring)."""
    if row.device == "cpu" and row.kind == "cpu_op":
        return replace(row, correlation=number)
    return row


def _linked(rows: list[ProfilerEvent], launches: dict[int, tuple[int, int]]) -> Iterator[ProfilerEvent]:
    """Each device event with `linked` set to the operator whose interval holds its launch
    call (the innermost, on the launch call's thread); 0 where none does."""
    by_thread: dict[int, _Nesting] = {}
    for row in rows:
        if row.kind == "cpu_op":
            by_thread.setdefault(row.thread, _Nesting()).operators.append(row)
    for nesting in by_thread.values():
        nesting.close()
    for row in rows:
        if row.device != "cuda":
            yield row
            continue
        linked = 0
        launch = launches.get(row.linked)
        if launch is not None and launch[0] in by_thread:
            operator = by_thread[launch[0]].innermost(launch[1])
            linked = operator.correlation if operator is not None else 0
        yield replace(row, linked=linked)


class _Nesting:
    """One thread's operators in start order, each with the index of the operator around it."""

    def __init__(self) -> None:
        self.operators: list[ProfilerEvent] = []
        self.starts: list[int] = []
        self.parents: list[int] = []

    def close(self) -> None:
        self.operators.sort(key=lambda row: (row.start, -row.end))
        self.starts = [row.start for row in self.operators]
        open_operators: list[int] = []
        for index, row in enumerate(self.operators):
            while open_operators and self.operators[open_operators[-1]].end <= row.start:
                open_operators.pop()
            self.parents.append(open_operators[-1] if open_operators else -1)
            open_operators.append(index)

    def innermost(self, time: int) -> ProfilerEvent | None:
        """The innermost operator running at `time`: the last to start before it, or the
        nearest operator around that one still running."""
        index = bisect.bisect_right(self.starts, time) - 1
        while index >= 0 and self.operators[index].end < time:
            index = self.parents[index]
        return self.operators[index] if index >= 0 else None


def _no_install(cuda: bool) -> TorchInstall:
    """No interpreter given: nothing is read from a wheel (operators come from --root)."""
    return TorchInstall(python="", version="", package="/nonexistent/torch", cuda=cuda, torchgen=None)


def _notes(
    reader: IndexReader | None, report: MergeReport, naming: NamingReport, python_functions: int
) -> Iterator[str]:
    if reader is None:
        yield "no --root: operators are not mapped to their C++ kernels (give --root with a PyTorch source tree)"
    yield "read from a profiler trace: nothing ran; operators are named without their overloads (the trace has none)"
    if python_functions:
        yield (
            f"the trace's {python_functions:,} Python function events (with_stack=True) are not shown: "
            "operators are placed by their own nesting"
        )
    if report.unlinked_device_events:
        yield f"{report.unlinked_device_events:,} device events had no launching operator in the trace: not shown"
    if naming.unknown_device:
        yield (
            f"{naming.unknown_device:,} operators launched no device work, so their device is unknown: no kernel is "
            "shown for them"
        )
