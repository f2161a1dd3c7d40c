"""Step 3 of `explorer run --python` (profiler.py): the Python calls and the profiler's
operators merged into one tree of intervals, as profiler.py's docstring tells."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import Enum

from explorer.runtime.events import CALL, RETURN, PythonRecording
from explorer.runtime.profile_events import (
    API_KINDS,
    C_CALL,
    DEVICE_KINDS,
    LAUNCH_CALL,
    ProfileRecording,
    ProfilerEvent,
)


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
        (index for index, event in enumerate(profile.events) if event.kind in DEVICE_KINDS),
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
    return event.kind == "cpu_op" or (event.kind in API_KINDS and not LAUNCH_CALL.match(event.name))


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


def preorder(span: Span) -> Iterator[Span]:
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
    spans = [span for span in preorder(root) if span is not root]
    for operator in operators:
        spans.extend(preorder(operator))
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
    for span in preorder(root):
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
