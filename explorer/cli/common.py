"""What every command shares: consoles, the root and index options, error handling."""

from __future__ import annotations

import functools
import os
import sqlite3
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, NoReturn, Optional, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from explorer.errors import ExplorerError
from explorer.index.build import RefreshReport, refresh
from explorer.index.store import IndexStore, forget_verified, is_corruption
from explorer.workspace import resolve_index_path, resolve_root

def _reader_went_away() -> NoReturn:
    """Output piped into `head` or a pager that quit: the reader had all it wanted, which is
    no error (exit 0, as `cat file | head` does). Later writes, and the interpreter's own
    flush at exit, go to /dev/null instead of failing again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    raise SystemExit(0)


class _Console(Console):
    def on_broken_pipe(self) -> None:  # rich's own ends with exit status 1
        _reader_went_away()


# Piped output is read by programs and grep: no wrapping at 80 columns there.
stdout = _Console(highlight=False, width=None if sys.stdout.isatty() else 400)
stderr = _Console(stderr=True, highlight=False)

RootOption = Annotated[
    Optional[str],
    typer.Option("--root", help="Tree to explore (default: $EXPLORER_ROOT, else the bundled sample_repo).", show_default=False),
]
IndexOption = Annotated[
    Optional[str],
    typer.Option("--index", help="Index file (default: one per tree in the user cache folder).", show_default=False),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]

F = TypeVar("F", bound=Callable[..., object])


def reports_errors(command: F) -> F:
    """Turn explorer's errors into one line on stderr and an exit code; never a traceback."""

    @functools.wraps(command)
    def wrapper(*args: object, **kwargs: object) -> object:
        try:
            return command(*args, **kwargs)
        except ExplorerError as error:
            stderr.print(f"[bold red]error:[/] {escape(str(error))}", markup=True, highlight=False, soft_wrap=True)
            raise typer.Exit(error.exit_code) from None
        except KeyboardInterrupt:
            stderr.print("interrupted")
            raise typer.Exit(130) from None
        except BrokenPipeError:
            _reader_went_away()

    return wrapper  # type: ignore[return-value]


def refresh_index(root: str, index_path: Path, **options: object) -> RefreshReport:
    """Bring the index up to date, with a progress bar when stderr is a terminal."""
    try:
        with _progress() as progress:
            return refresh(
                root,
                index_path,
                progress=progress,
                on_wait=lambda: stderr.print("waiting for another explorer process indexing this tree..."),
                **options,  # type: ignore[arg-type]
            )
    except (OSError, sqlite3.Error) as error:
        raise ExplorerError(f"cannot write the index at {index_path}: {error}") from None


@contextmanager
def _progress() -> Iterator[Callable[[int, int], None] | None]:
    if not stderr.is_terminal:
        yield None
        return
    bar = Progress(
        TextColumn("indexing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=stderr, transient=True
    )
    task = bar.add_task("indexing", total=None)

    def advance(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total or None)

    with bar:
        yield advance


@contextmanager
def open_index(root_option: str | None, index_option: str | None) -> Iterator[tuple[str, IndexStore]]:
    """The root and its up-to-date index, ready for queries."""
    root = resolve_root(root_option)
    index_path = resolve_index_path(root, index_option)
    report = refresh_index(root, index_path)
    if report.rebuilt_because:
        stderr.print(f"note: index rebuilt ({report.rebuilt_because})", soft_wrap=True)
    try:
        store = IndexStore.open(index_path)
        try:
            yield root, store
        finally:
            store.close()
    except sqlite3.DatabaseError as error:
        if not is_corruption(error):
            raise
        # It passed the checks on opening, so it was damaged since, or in a way they miss.
        forget_verified(index_path)
        raise ExplorerError(
            f"the index at {index_path} is damaged ({error}); the next command checks and rebuilds it"
        ) from None
