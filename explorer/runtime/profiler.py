"""`explorer run --python PATH`: a program on real PyTorch, as one tree of Python calls,
torch bindings, operators, their C++ kernels and CUDA kernels.

1. Probe (torch_install.py): the interpreter exists and imports torch; where its torch package and torchgen
   are, whether CUDA is available (a missing interpreter is a usage error, one without
   torch an ExplorerError).
2. Record: profile_bootstrap.py runs the program in that interpreter and writes the Python
   calls and torch builtin calls (sys.setprofile, CLOCK_MONOTONIC) and the PyTorch
   profiler's events (wall clock), read by profile_events.py. Its docstring says how the
   clocks are brought together.
3. Merge (profile_merge.py): calls and builtin calls form a tree of intervals; the profiler's CPU operators
   form one per thread (their own nesting, exact on their own clock). Operators are moved
   to the Recorder's clock (the offset measured in the child, interpolated between its
   start and end readings) and both trees are merged by interval containment: an
   operator goes under the innermost call running when it started, and Python called
   back from inside an operator (autograd hooks, __torch_dispatch__) under that operator.
   Operators of other threads (autograd's device threads) go only under a builtin call
   that was waiting for them (`run_backward`). Device kernels hang under the operator that
   launched them: their linked correlation id is that operator's correlation id.
4. Name (profile_naming.py): frames are named as the static index names definitions, and
   placed in it: the --root tree's index, else the index of the interpreter's torch
   distribution (its stubs and packaged native_functions.yaml), the one a project that
   imports torch is given.
5. Fold identical consecutive siblings (shaping.fold_repeats).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from explorer.errors import ExplorerError, UsageError
from explorer.index import IndexReader
from explorer.runtime.events import PythonRecording, python_notes, read_python
from explorer.runtime.launcher import new_workdir, run_child
from explorer.runtime.model import RunFrame, RunTrace
from explorer.runtime.profile_events import ProfileRecording, read_profile
from explorer.runtime.profile_merge import MergeReport, Span, call_tree, merge, operator_forest
from explorer.runtime.profile_naming import Locator, NamingReport, ProfileNamer
from explorer.runtime.request import RunRequest
from explorer.runtime.shaping import fold_repeats
from explorer.runtime.torch_install import TorchInstall, probe_torch

PROFILE_BOOTSTRAP = Path(__file__).resolve().parent / "profile_bootstrap.py"


# -- 2. recording: the program run under the profiler, in an interpreter of its own ---------


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


# -- 1 to 5: the whole run ---------------------------------------------------------------


def run_profiled(request: RunRequest, reader: IndexReader | None, wheel: IndexReader | None = None) -> RunTrace:
    """Run the request's program with the interpreter of --python (real PyTorch); `reader`
    is the index of the --root source tree, or None without one, and `wheel` then the index
    of the interpreter's torch distribution (workspace.open_installed)."""
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
    return build_trace(request, install, reader, python, profile, wheel)


def build_trace(
    request: RunRequest,
    install: TorchInstall,
    reader: IndexReader | None,
    python: PythonRecording,
    profile: ProfileRecording,
    wheel: IndexReader | None = None,
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
    tree, naming = named_tree(calls, python, profile, Locator(install, reader, wheel), program, default_device)
    return RunTrace(
        command=request.command,
        runtime=request.python or install.python,
        device=request.device or "as written",
        root=tree,
        exit_code=python.exit_code,
        python_events=len(python.events),
        native_events=report.operators + report.device_events,
        notes=tuple(_notes(request, install, reader, python, profile, report, naming)),
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
    namer = ProfileNamer(python, profile, locator, program, default_device)
    return fold_repeats(namer.tree(calls)), namer.report


def _notes(
    request: RunRequest,
    install: TorchInstall,
    reader: IndexReader | None,
    python: PythonRecording,
    profile: ProfileRecording,
    report: MergeReport,
    naming: NamingReport,
) -> Iterator[str]:
    if reader is None:
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
