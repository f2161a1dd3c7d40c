"""`explorer run`: run a program under tracing and print its call tree across Python, the
torch._C binding, operators, C++ and vendor calls."""

from __future__ import annotations

import dataclasses
import os
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from explorer.analysis import DEFAULT_MAX_NODES
from explorer.cli.common import open_index, open_wheel, reports_errors, stdout
from explorer.cli.diagram_options import diagram_request, write_diagram
from explorer.errors import UsageError
from explorer.render.json_out import dumps
from explorer.runtime.request import DEFAULT_MAX_EVENTS, RunRequest
from explorer.workspace import TreeRequest

if TYPE_CHECKING:
    from explorer.index import IndexReader
    from explorer.runtime.model import RunFrame


@reports_errors
def run(
    where: TreeRequest,
    program: list[str] | None = None,
    code: str | None = None,
    python: str | None = None,
    backend_device: str | None = None,
    chrome_trace: str | None = None,
    compare: bool = False,
    include: list[str] | None = None,
    exclude: list[str] | None = None,
    max_depth: int | None = None,
    max_events: int = DEFAULT_MAX_EVENTS,
    json: bool = False,
    output_format: str = "tree",
    output: str | None = None,
    max_nodes: int = DEFAULT_MAX_NODES,
) -> None:
    """Run SCRIPT (or -c CODE) under tracing and print the call tree it ran."""
    if chrome_trace is not None:
        if program or code is not None:
            raise UsageError("--chrome-trace reads a trace already recorded: give no program to run")
        if backend_device is not None:
            raise UsageError("--backend-device chooses where a program runs; a recorded trace ran where it ran")
    _run(
        where,
        program,
        code,
        python,
        backend_device,
        chrome_trace,
        compare,
        include,
        exclude,
        max_depth,
        max_events,
        json,
        output_format,
        output,
        max_nodes,
    )


# A run's tree is as deep as the program's calls went (a recursion 900 deep where the program
# raised its own limit), and the walks that fold, filter and print it recurse as deep: they
# run in a thread whose stack and recursion limit allow that. (Memory for a stack is taken
# as it is used.)
_DEEP_STACK = 512 * 1024 * 1024
_DEEP_RECURSION = 200_000


def _on_a_deep_stack(work: Callable[[], None]) -> None:
    """`work` in a thread with a deep stack. This thread meanwhile passes SIGTERM and SIGHUP
    on to the traced program (it would run on, orphaned, its temporary folder left behind):
    the work then ends as for a program that was stopped, and the command with 128 + the
    signal's number, as a process stopped by it."""
    from explorer.runtime.launcher import stop_programs  # here: never an import inside a handler

    outcome: list[BaseException] = []
    stopped: list[int] = []

    def stop(signal_number: int, _frame: object) -> None:
        stopped.append(signal_number)
        stop_programs(signal_number)

    main = threading.current_thread() is threading.main_thread()  # only it may set handlers
    previous = {number: signal.signal(number, stop) for number in (signal.SIGTERM, signal.SIGHUP)} if main else {}
    try:
        _in_a_thread(work, outcome)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    if stopped:
        sys.stderr.write(f"explorer run: stopped by {signal.Signals(stopped[0]).name}; the program was stopped too\n")
        raise SystemExit(128 + stopped[0])
    if outcome:
        raise outcome[0]


def _in_a_thread(work: Callable[[], None], outcome: list[BaseException]) -> None:

    def body() -> None:
        try:
            work()
        except BaseException as error:  # handed to the calling thread, which reports it
            outcome.append(error)

    limit = sys.getrecursionlimit()
    try:
        size = threading.stack_size(_DEEP_STACK)
    except (ValueError, RuntimeError):  # a platform that will not: as deep as the main thread goes
        body()
        return
    sys.setrecursionlimit(max(limit, _DEEP_RECURSION))
    try:
        thread = threading.Thread(target=body, name="explorer-run")
        thread.start()
        while thread.is_alive():
            thread.join(0.2)  # a signal's handler runs in this thread, between waits
    finally:
        threading.stack_size(size)
        sys.setrecursionlimit(limit)


def _run(
    where: TreeRequest,
    program: list[str] | None,
    code: str | None,
    python: str | None,
    backend_device: str | None,
    chrome_trace: str | None,
    compare: bool,
    include: list[str] | None,
    exclude: list[str] | None,
    max_depth: int | None,
    max_events: int,
    json: bool,
    output_format: str,
    output: str | None,
    max_nodes: int,
) -> None:
    # the runtime, the call graph and their views load for this command only
    from explorer.diagram.run import run_diagram
    from explorer.render.run_json import comparison_json, run_json
    from explorer.render.run_text import comparison_text, run_text
    from explorer.runtime.chrome_trace import chrome_trace_run
    from explorer.runtime.compare import compare_run
    from explorer.runtime.run import run_program

    drawing = diagram_request(output_format, output, max_nodes, None, None, json=json)
    if max_depth is not None and max_depth < 1:
        raise UsageError("--max-depth must be at least 1")
    if program and program[0] == "--":  # `run -- SCRIPT ARGS`: the program's own options follow
        program = program[1:]
    script, argv = (program[0], tuple(program[1:])) if program and code is None else (None, tuple(program or ()))
    shape = _Shape(tuple(include or ()), tuple(exclude or ()), max_depth)

    def traced(reader: IndexReader | None, tree: str, shown_from: str, wheel: IndexReader | None = None) -> None:
        """Run the program, shape what it ran, print or draw it: on a deep stack (the run's
        tree is as deep as the program went)."""
        if chrome_trace is not None:
            trace = chrome_trace_run(Path(chrome_trace), reader, python)
        else:
            trace = run_program(RunRequest(code, script, argv, tree, python, backend_device, max_events), reader, wheel)
        shown, cut = shape.apply(trace.root)
        comparison = (
            compare_run(reader, tree, trace.root, every_native_call=python is None and chrome_trace is None)
            if compare and reader is not None
            else None
        )
        if drawing.wanted:
            write_diagram(run_diagram(trace, shown, comparison), drawing, shown_from, "run")
        elif json:
            document = run_json(trace, shown)
            if comparison is not None:
                document["comparison"] = comparison_json(comparison)
            stdout.print_json(dumps(document))
        else:
            run_text(stdout, trace, shown, cut)
            if comparison is not None:
                comparison_text(stdout, comparison)
        if trace.exit_code != 0:  # the program's own status, as running it without explorer gives
            raise SystemExit(trace.exit_code if 0 < trace.exit_code < 256 else 1)

    if python is not None and where.python is None and not os.environ.get("EXPLORER_PYTHON_ENV"):
        # the program imports from the interpreter it runs with: so do the static queries
        where = dataclasses.replace(where, python=python)
    if python is not None and chrome_trace is None and where.root is None and not os.environ.get("EXPLORER_ROOT"):
        # Real PyTorch without a source tree: bindings and operators are placed in the index of
        # the interpreter's torch distribution, and there is no static graph to compare with.
        if compare:
            raise UsageError("--compare needs the PyTorch source tree the run is compared with: add --root")
        from explorer.runtime.request import check_program
        from explorer.runtime.torch_install import probe_torch

        # a missing script, and an interpreter without torch, are said before anything is indexed
        check_program(RunRequest(code, script, argv, "", python, backend_device, max_events))
        probe_torch(python)
        with open_wheel(python) as wheel:  # in the main thread, as below
            _on_a_deep_stack(lambda: traced(None, "", os.getcwd(), wheel))
    else:
        # opened here, in the main thread: a refresh may fork parser processes, which a fork
        # from another thread can leave waiting for ever on a lock that thread never frees
        with open_index(where) as (tree, store):
            _on_a_deep_stack(lambda: traced(store, tree, tree))


@dataclass(frozen=True, slots=True)
class _Shape:
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    max_depth: int | None

    def apply(self, tree: RunFrame) -> tuple[RunFrame, int]:
        from explorer.runtime.shaping import filtered, fold_repeats, limited

        # calls a filter left side by side may be the same call: fold them again
        shown = fold_repeats(filtered(tree, self.include, self.exclude))
        return limited(shown, self.max_depth) if self.max_depth is not None else (shown, 0)
