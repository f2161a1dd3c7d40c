"""Runs a program on the bundled reference runtime under tracing, and collects the recordings.

The bundled tree's `import torch` builds its native library on demand (torch/utils/
cpp_extension.py), with extra flags and sources taken from the environment. For a traced run
those are the instrumentation flags and native/recorder.cpp, so the library it loads is an
instrumented variant, cached beside the plain one and rebuilt only when a source changes.
The program's own output goes to stderr: stdout carries the call tree.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from explorer.errors import ExplorerError, ProgramKilled, UsageError
from explorer.runtime.request import RunRequest

_HERE = Path(__file__).resolve().parent
BOOTSTRAP = _HERE / "bootstrap.py"
RECORDER_SOURCE = _HERE / "native" / "recorder.cpp"

# Functions defined in these files are not instrumented: the C++ standard library, the
# header-only helpers that run once per element or index (ArrayRef, irange, optional), the
# bookkeeping of c10 (tensor, storage and device objects, constructors and accessors), the
# inline at:: entry points of Functions.h and the Tensor methods that forward to them
# (ATen/core/Tensor.h), and the dispatcher (an operator is recognised by its
# at::_ops::<op>::call, and its kernel by the generated wrapper), and the extension module's
# glue (torch/csrc, the generated python_*_functions.cpp). What is left is the chain a reader
# follows: operators, kernels, their helpers and the vendor calls.
UNTRACED_FILES = (
    "/usr/include/",
    "/usr/lib/gcc/",
    "c10/util/",
    "c10/core/",
    "c10/macros/",
    "ATen/core/TensorBody.h",
    "ATen/core/Tensor.h",
    "ATen/Functions.h",
    "ATen/core/dispatch/",
    "torch/csrc/",
    "generated/python_",
)
INSTRUMENT_CFLAGS = (
    "-finstrument-functions",
    # addr2line (binutils 2.40) reads the file table of DWARF 5 one entry off where a
    # `#line` names another file: the translated .cu sources and inline header functions
    # then point at the wrong file. DWARF 4 has no such table entry 0.
    "-gdwarf-4",
    "-finstrument-functions-exclude-file-list=" + ",".join(UNTRACED_FILES),
)
# Bind the library's references to its own definitions, so that instrumented code calls the
# recorder's __cyg_profile_func_enter and not glibc's no-op one, found first otherwise.
INSTRUMENT_LDFLAGS = ("-Wl,-Bsymbolic",)


@dataclass(frozen=True, slots=True)
class Recordings:
    """The files a traced run left behind, read by events.py."""

    python_events: Path
    native_events: Path | None  # None: no instrumented library was possible (no compiler)
    exit_code: int
    notes: tuple[str, ...]


def bundled_runtime_problem(root: str) -> str | None:
    """Why `root` cannot be run as the bundled reference runtime, or None when it can."""
    if not (Path(root) / "torch" / "_extension" / "__init__.py").is_file():
        return (
            f"{root} is not a tree with the bundled reference runtime (no torch/_extension); "
            "to run real PyTorch, give --python with an interpreter that has torch installed"
        )
    return None


def find_compiler() -> str | None:
    for name in (os.environ.get("CXX"), "c++", "g++", "clang++"):
        if name and shutil.which(name):
            return name
    return None


def run_bundled(request: RunRequest, workdir: Path) -> Recordings:
    """Run the request's program on the bundled runtime, recording into `workdir`."""
    problem = bundled_runtime_problem(request.root)
    if problem is not None:
        raise UsageError(problem)
    notes: list[str] = []
    python_events = workdir / "python-events.json"
    native_events: Path | None = workdir / "native-events.bin"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (request.root, env.get("PYTHONPATH")) if p)
    env.pop("PYTHONSTARTUP", None)
    if request.device is not None:
        env["TORCH_BACKEND_DEVICE"] = request.device
    if find_compiler() is None:
        notes.append(
            "no C++ compiler found ($CXX, c++, g++, clang++): the native library cannot be built, "
            "so only Python frames were recorded (Debian/Ubuntu: apt-get install g++)"
        )
        native_events = None
    else:
        env["TORCH_EXTRA_CFLAGS"] = " ".join(INSTRUMENT_CFLAGS)
        env["TORCH_EXTRA_LDFLAGS"] = " ".join(INSTRUMENT_LDFLAGS)
        env["TORCH_EXTRA_SOURCES"] = str(RECORDER_SOURCE)
        env["EXPLORER_NATIVE_EVENTS"] = str(native_events)
        env["EXPLORER_NATIVE_MAX_EVENTS"] = str(request.max_events)
    config = {
        "code": request.code,
        "script": request.script,
        "argv": list(request.argv),
        "events": str(python_events),
        "roots": [request.root, *request.own_folders],
        "max_events": request.max_events,
    }
    exit_code = run_child(sys.executable, BOOTSTRAP, config, workdir, env)
    if not python_events.is_file():
        if exit_code < 0:  # killed (SIGKILL, the OOM killer, a crash in native code)
            raise ProgramKilled(-exit_code, _signal_name(-exit_code))
        raise ExplorerError(f"the traced program ended without writing its recording (exit code {exit_code})")
    return Recordings(python_events, native_events, exit_code, tuple(notes))


def run_child(python: str, bootstrap: Path, config: Mapping[str, object], workdir: Path, env: dict[str, str]) -> int:
    """Run `python bootstrap CONFIG` and return its exit code."""
    config_path = workdir / "config.json"
    config_path.write_text(json.dumps(config), encoding="utf-8")
    command = [python, str(bootstrap), str(config_path)]
    try:
        # The program's stdout joins our stderr: stdout is for the call tree alone. Where
        # stderr is no real file (a test's captured stream), the output is passed on after.
        try:
            stderr_fd = sys.stderr.fileno()
        except (AttributeError, OSError, ValueError):
            with _running(
                subprocess.Popen(
                    command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace"
                )
            ) as process:
                out, err = process.communicate()
            sys.stderr.write(out + err)
            return process.returncode
        else:
            with _running(subprocess.Popen(command, env=env, stdout=stderr_fd)) as process:
                return process.wait()
    except OSError as error:
        raise ExplorerError(f"cannot start {python}: {error.strerror}") from None


_RUNNING: set[subprocess.Popen] = set()  # the traced programs running now


@contextmanager
def _running(process: subprocess.Popen) -> Iterator[subprocess.Popen]:
    _RUNNING.add(process)
    try:
        with process:
            yield process
    finally:
        _RUNNING.discard(process)


def stop_programs(signal_number: int) -> None:
    """Pass a signal explorer got (SIGTERM, SIGHUP) on to the programs it runs: they end as
    they would have without explorer, and explorer then cleans up after them."""
    for process in list(_RUNNING):
        with contextlib.suppress(OSError):
            process.send_signal(signal_number)


def new_workdir() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix="explorer-run-")


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
