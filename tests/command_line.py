"""Run the `explorer` command in this process, as a user's shell would, and keep what it printed.

In-process (not a subprocess) so a test costs no interpreter start-up; the command's consoles
write to whatever sys.stdout and sys.stderr are when they print, so swapping those captures
everything, and `output` keeps both streams in the order they were written.
"""

from __future__ import annotations

import gc
import io
import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

from explorer.cli import main


@dataclass(frozen=True)
class CommandResult:
    exit_code: int
    stdout: str
    stderr: str
    output: str  # stdout and stderr interleaved
    exception: BaseException | None  # what ended the command, unless it was a clean exit


class _Stream(io.StringIO):
    """One of the two streams; every write also lands in the shared `both`."""

    def __init__(self, both: io.StringIO) -> None:
        super().__init__()
        self._both = both

    def write(self, text: str) -> int:
        self._both.write(text)
        return super().write(text)

    def isatty(self) -> bool:
        return False


def invoke(args: list[str], env: Mapping[str, str] | None = None) -> CommandResult:
    both = io.StringIO()
    out, err = _Stream(both), _Stream(both)
    exit_code, escaped = 0, None
    with _environment(env or {}), _streams(out, err), _collector():
        try:
            main([str(arg) for arg in args])
        except SystemExit as stop:
            exit_code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
            escaped = stop if exit_code else None
        except Exception as error:
            escaped, exit_code = error, 1
    return CommandResult(exit_code, out.getvalue(), err.getvalue(), both.getvalue(), escaped)


@contextmanager
def _collector() -> Iterator[None]:
    """A command tunes the garbage collector for the rest of its process: undone here, since
    the tests' process goes on."""
    threshold = gc.get_threshold()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)


@contextmanager
def _streams(out: io.StringIO, err: io.StringIO) -> Iterator[None]:
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


@contextmanager
def _environment(env: Mapping[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
