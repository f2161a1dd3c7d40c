"""Step 2 of `explorer run --python` (profiler.py): the PyTorch profiler's events as
profile_bootstrap.py recorded them, read and classified (host operators, device kernels, CUDA
API calls, the profiler's own bookkeeping)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path

from explorer.errors import ExplorerError

# The profiler wraps each backward node's run in an event of its own; the node's event
# (AddmmBackward0) is what is shown.
C_CALL, C_RETURN = 3, 4  # profile_bootstrap.py's builtin events, beside bootstrap.py's CALL, RETURN
AUTOGRAD_WRAPPER = "autograd::engine::evaluate_function: "


DEVICE_KINDS = ("kernel", "gpu_memcpy", "gpu_memset")


# Calls into the CUDA runtime and driver, shown as vendor calls where they ran.
API_KINDS = ("cuda_runtime", "cuda_driver")


_CUDA_API = re.compile(r"(cuda|cu|cudnn|cublas|cublasLt|cusparse|cufft|curand|nccl|nvtx)[A-Z]")


# CUPTI's overhead records, as kineto names them: the ones that are one word (the others
# have spaces: "Lazy Function Loading", "Activity Buffer Request").
_ONE_WORD_OVERHEAD = ("Instrumentation", "Resource", "Unknown")


# kineto's name for a CUDA API call whose callback id it has no name for (seen on torch 2.11
# with CUDA 13: callback 468, inside cuDNN's set-up); without this it passed for an operator.
_UNNAMED_API_CALL = "INVALID"


UNNAMED_API_CALL = "(a CUDA API call the profiler does not name)"


# A kernel launch call says nothing its kernel, shown under the operator, does not say.
LAUNCH_CALL = re.compile(r"cu(da)?Launch")


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
    if kind in ("cpu_op", *API_KINDS) and event.name == _UNNAMED_API_CALL:
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
