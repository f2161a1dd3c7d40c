"""What every command shares: consoles, opening the trees and their indexes, error handling."""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn, TextIO, TypeVar

from rich.console import Console
from rich.markup import escape

from explorer.errors import ExplorerError
from explorer.index import IndexReader, RefreshReport, WalkOptions, refresh, writing
from explorer.model import Tree, TreeKind
from explorer.render.places import name_trees
from explorer.workspace import TreeRequest, Workspace, open_installed, open_workspace


def _reader_went_away() -> NoReturn:
    """Output piped into `head` or a pager that quit: the reader had all it wanted, which is
    no error (exit 0, as `cat file | head` does). Later writes, and the interpreter's own
    flush at exit, go to /dev/null instead of failing again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    raise SystemExit(0)


def _discard_output() -> None:
    """What is still buffered for standard output goes nowhere, rather than failing again (with
    a message of the interpreter's own) when it flushes at exit."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


class OutputFailed(ExplorerError):
    """Standard output refused a write: a full disk (`> /dev/full`), a device, a closed file."""


class _Output:
    """Standard output as the consoles write it: a write that fails is an OutputFailed (one
    line, exit 1), never a traceback; a reader that went away stays a BrokenPipeError.
    Whatever sys.stdout is at the time of each write (as rich's own default does): a caller
    may replace it, to capture what a command prints."""

    @property
    def _stream(self) -> TextIO:
        return sys.stdout

    def write(self, text: str) -> int:
        with _output_guard():
            return self._stream.write(text)

    def flush(self) -> None:
        with _output_guard():
            self._stream.flush()

    def __getattr__(self, name: str) -> object:  # isatty, fileno, encoding: as the stream's
        return getattr(self._stream, name)


@contextlib.contextmanager
def _output_guard() -> Iterator[None]:
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as error:
        raise OutputFailed(f"cannot write standard output: {error.strerror or error}") from None


class _Console(Console):
    def on_broken_pipe(self) -> None:  # rich's own ends with exit status 1
        _reader_went_away()


# Piped output is read by programs and grep: no wrapping at 80 columns there.
stdout = _Console(file=_Output(), highlight=False, width=None if sys.stdout.isatty() else 400)  # type: ignore[arg-type]
stderr = _Console(stderr=True, highlight=False)

F = TypeVar("F", bound=Callable[..., object])


def reports_errors(command: F) -> F:
    """Turn explorer's errors into one line on stderr and an exit code; never a traceback."""

    @functools.wraps(command)
    def wrapper(*args: object, **kwargs: object) -> object:
        try:
            done = command(*args, **kwargs)
            stdout.file.flush()  # here, where a failure is one line, not at the interpreter's exit
            return done
        except OutputFailed as error:
            stderr.print(f"[bold red]error:[/] {escape(str(error))}", markup=True, highlight=False, soft_wrap=True)
            _discard_output()
            raise SystemExit(error.exit_code) from None
        except ExplorerError as error:
            stderr.print(f"[bold red]error:[/] {escape(str(error))}", markup=True, highlight=False, soft_wrap=True)
            raise SystemExit(error.exit_code) from None
        except KeyboardInterrupt:
            stderr.print("interrupted")
            raise SystemExit(130) from None
        except BrokenPipeError:
            _reader_went_away()
        except OSError as error:
            # what the system refused where nothing nearer could say more: too many open files
            # (`ulimit -n`), a cache folder made unwritable mid-run
            stderr.print(
                f"[bold red]error:[/] {escape(_system_refused(error))}", markup=True, highlight=False, soft_wrap=True
            )
            raise SystemExit(1) from None

    return wrapper  # type: ignore[return-value]


def _system_refused(error: OSError) -> str:
    where = f": {error.filename}" if error.filename else ""
    said = f"{error.strerror or error}{where}"
    if error.errno in (errno.EMFILE, errno.ENFILE):
        return f"{said} (raise the limit with `ulimit -n`; explorer needs a few dozen)"
    return said


def refresh_index(
    root: str, index_path: Path, what: str | None = None, once: str = "once per checkout", **options: object
) -> RefreshReport:
    """Bring the index up to date, saying how it goes where that takes a while (progress.py):
    `what` names the tree (its root by default), `once` when a new index is built."""
    from explorer.render.progress import IndexProgress

    progress = IndexProgress(stderr, what or root, once)
    finished = False
    try:
        with writing(index_path):
            report = refresh(
                root,
                index_path,
                progress=progress,
                on_wait=lambda: stderr.print("waiting for another explorer process indexing this tree..."),
                **options,  # type: ignore[arg-type]
            )
        finished = True
        return report
    finally:
        progress.close(finished)


@contextmanager
def open_index(where: TreeRequest) -> Iterator[tuple[str, IndexReader]]:
    """The project's root and one reader over the up-to-date indexes of every tree it spans."""
    with open_trees(where) as workspace:
        yield workspace.root, workspace.reader


@contextmanager
def open_trees(where: TreeRequest) -> Iterator[Workspace]:
    """Every tree the project spans, indexed and open; notes about them said on stderr."""
    with open_workspace(where, _refresh_tree) as workspace:
        name_trees(workspace.trees)  # for the text this command prints (render/places.py)
        for note in workspace.notes:
            stderr.print(note, markup=False, highlight=False, soft_wrap=True)
        yield workspace


@contextmanager
def open_wheel(python: str) -> Iterator[IndexReader | None]:
    """The index of the torch distribution the interpreter `python` imports (built once per
    install, as for a project importing torch), or None where it has none. One that cannot be
    built or read (an unwritable cache folder) is said, and the run goes on without it: its
    bindings and operators are then shown without their places."""
    with contextlib.ExitStack() as stack:
        try:
            reader = stack.enter_context(open_installed(python, "torch", _refresh_tree))
        except ExplorerError as error:
            stderr.print(
                f"note: {error}; the run's bindings and operators are shown without their places",
                soft_wrap=True,
                markup=False,
                highlight=False,
            )
            reader = None
        yield reader


def _refresh_tree(tree: Tree, index_path: Path, options: WalkOptions | None, leave_out: frozenset[str]) -> None:
    installed = tree.kind is TreeKind.INSTALLED  # said, since the first query after an install waits for it
    report = refresh_index(
        tree.root,
        index_path,
        tree.name if installed else tree.root,
        f"once per install, from {tree.root}" if installed else "once per checkout",
        options=options,
        leave_out=leave_out,
    )
    which = "index" if tree.kind is TreeKind.PROJECT else f"index of {tree.root}"
    if report.rebuilt_because:
        stderr.print(f"note: {which} rebuilt ({report.rebuilt_because})", soft_wrap=True)
    if report.stale_because:
        stderr.print(
            f"note: {which} not refreshed: {report.stale_because}; answering from it as it was, which may not be the tree as it is now",
            soft_wrap=True,
            markup=False,
            highlight=False,
        )
