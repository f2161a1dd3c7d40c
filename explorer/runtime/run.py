"""`explorer run`: run a program under tracing and return its merged call tree."""

from __future__ import annotations

from pathlib import Path

from explorer.index import IndexReader
from explorer.runtime.events import merge, python_notes, read_native, read_python
from explorer.runtime.launcher import new_workdir, run_bundled
from explorer.runtime.model import RunTrace
from explorer.runtime.naming import Namer, site_offsets
from explorer.runtime.request import RunRequest, check_program
from explorer.runtime.shaping import fold_repeats
from explorer.runtime.symbols import SymbolTable


def run_program(request: RunRequest, reader: IndexReader | None, wheel: IndexReader | None = None) -> RunTrace:
    """Run on the bundled reference runtime (request.python None) or on real PyTorch (`wheel`:
    the index of its torch distribution, read where there is no --root)."""
    check_program(request)
    if request.python is not None:
        from explorer.runtime.profiler import run_profiled

        return run_profiled(request, reader, wheel)
    assert reader is not None, "the bundled runtime is always run with its tree's index"
    with new_workdir() as folder:
        recordings = run_bundled(request, Path(folder))
        python = read_python(recordings.python_events)
        native = read_native(recordings.native_events) if recordings.native_events else None
    raw = merge(python, native)
    names = SymbolTable(native.library).resolve(site_offsets(raw)) if native and native.events else {}
    tree = Namer(reader, request.root, python.codes, request.program_file, names).tree(raw)
    notes = list(recordings.notes)
    if native is not None and native.dropped_calls:
        notes.append(
            f"native events capped at {request.max_events:,} (--max-events): {native.dropped_calls:,} "
            "later native calls are not shown"
        )
    imported_torch = any(code.module == "torch" for code in python.codes)
    if recordings.native_events is not None and native is None and imported_torch and python.error is None:
        notes.append("the program never loaded the native library: no native frames")
    notes.extend(python_notes(python))
    return RunTrace(
        command=request.command,
        runtime="bundled",
        device=request.device or "as written",
        root=fold_repeats(tree),
        exit_code=python.exit_code,
        python_events=len(python.events),
        native_events=len(native.events) if native else 0,
        notes=tuple(notes),
    )
