"""What to run and how: the one record every way of running a program takes."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from explorer.errors import UsageError

DEVICES = ("cpu", "cuda")
DEFAULT_MAX_EVENTS = 1_000_000


@dataclass(frozen=True, slots=True)
class RunRequest:
    code: str | None  # `-c CODE`
    script: str | None  # a script path, run as `python SCRIPT ARGS...`
    argv: tuple[str, ...]
    root: str  # the source tree: the bundled runtime, or the PyTorch tree of --python
    python: str | None = None  # an interpreter with real PyTorch; None: the bundled runtime
    device: str | None = None  # --backend-device: every tensor device becomes this one
    max_events: int = DEFAULT_MAX_EVENTS

    def __post_init__(self) -> None:
        if (self.code is None) == (self.script is None):
            raise UsageError("give either -c CODE or a script to run (after --)")
        if self.device is not None and self.device not in DEVICES:
            raise UsageError(f"unknown --backend-device {self.device!r}; one of: {', '.join(DEVICES)}")
        if self.max_events < 1:
            raise UsageError("--max-events must be at least 1")

    @property
    def program_file(self) -> str:
        """The file name the program's code carries: "<string>" for -c, else the script's
        absolute path (as the interpreter's frames name it)."""
        return "<string>" if self.code is not None else str(Path(self.script or "").resolve())

    @property
    def own_folders(self) -> list[str]:
        """Where the program's own modules are, besides the tree: the script's folder."""
        return [str(Path(self.script).resolve().parent)] if self.script is not None else []

    @property
    def command(self) -> str:
        """The run as a user would type it."""
        if self.code is not None:  # on one line: the code's line breaks shown as \n
            return shlex.join(["python", "-c", self.code.replace("\n", "\\n"), *self.argv])
        return shlex.join(["python", str(self.script), *self.argv])


_MAX_SCRIPT = 64 * 1024 * 1024


def check_program(request: RunRequest) -> None:
    """What would stop the program before its first line, said in one line (UsageError) rather
    than as the interpreter's traceback from inside the recorder: a script that is missing, a
    folder, unreadable or binary, and code that does not compile. Compiling runs nothing; it
    is done only where the program runs on this interpreter (the bundled runtime): another
    interpreter (--python) may speak another version of the language."""
    same_python = request.python is None
    if request.code is not None:
        if same_python:
            _compiles(request.code, "-c")
        return
    script = str(request.script)
    path = Path(script)
    if not path.exists():
        raise UsageError(f"no such script: {script}")
    if not path.is_file():
        raise UsageError(f"not a script but a {'folder' if path.is_dir() else 'special file'}: {script}")
    try:
        if path.stat().st_size > _MAX_SCRIPT:
            raise UsageError(f"not a script (over {_MAX_SCRIPT // (1024 * 1024)} MiB): {script}")
        source = path.read_bytes()
    except OSError as error:
        raise UsageError(f"cannot read {script}: {error.strerror or error}") from None
    if b"\0" in source:
        raise UsageError(f"not a Python script (it holds NUL bytes, as a binary does): {script}")
    if same_python:
        _compiles(source, script)


def _compiles(source: str | bytes, name: str) -> None:
    try:
        compile(source, name, "exec", dont_inherit=True)
    except SyntaxError as error:
        where = f"{name}:{error.lineno}" if error.lineno else name
        raise UsageError(f"{where}: {error.msg} (the program was not run)") from None
    except ValueError as error:  # source code cannot contain null bytes, and the like
        raise UsageError(f"{name}: {error} (the program was not run)") from None
