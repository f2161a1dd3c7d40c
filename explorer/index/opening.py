"""Opening an index file for reading, and the errors that reading and writing one can end in.

Everything outside `index/` meets the index file through here and `refresh` (build.py):
SQLite's own errors stay inside, turned into explorer's. An error that a sound file would
not give (a damaged page, a missing table) is `IndexDamaged`, and the file is checked again,
and rebuilt if need be, by the next command; any other is `IndexUnreadable` or, while the
index is written, `IndexUnwritable`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from explorer.errors import ExplorerError
from explorer.index.disk import forget_verified, is_corruption, record_verified
from explorer.index.store import IndexStore


class IndexDamaged(ExplorerError):
    """An index that passed its checks on opening failed while read: it was damaged since, or
    in a way the checks miss."""

    def __init__(self, index_paths: Sequence[Path], error: Exception) -> None:
        for path in index_paths:
            forget_verified(path)  # checked (and rebuilt) by the next command
        super().__init__(f"{_which(index_paths)} is damaged ({error}); the next command checks and rebuilds it")


class IndexUnreadable(ExplorerError):
    """An index file that could not be read for a reason other than damage (locked, gone)."""

    def __init__(self, index_paths: Sequence[Path], error: Exception) -> None:
        super().__init__(f"cannot read {_which(index_paths)}: {error}")


class IndexUnwritable(ExplorerError):
    def __init__(self, index_path: Path, error: Exception) -> None:
        super().__init__(f"cannot write the index at {index_path}: {error}")


def _which(index_paths: Sequence[Path]) -> str:
    """A read of several trees' indexes at once does not say which one failed."""
    return f"the index at {index_paths[0]}" if len(index_paths) == 1 else "one of the trees' indexes"


@contextmanager
def reading(index_paths: Sequence[Path]) -> Iterator[None]:
    """Reads of these index files (the list may grow while they run): SQLite's errors become
    IndexDamaged or IndexUnreadable."""
    try:
        yield
    except sqlite3.Error as error:
        if isinstance(error, sqlite3.DatabaseError) and is_corruption(error):
            raise IndexDamaged(index_paths, error) from None
        raise IndexUnreadable(index_paths, error) from None


@contextmanager
def writing(index_path: Path) -> Iterator[None]:
    """Writing an index file (a refresh): what stops it becomes IndexUnwritable."""
    try:
        yield
    except (OSError, sqlite3.Error) as error:
        raise IndexUnwritable(index_path, error) from None


@contextmanager
def opened(index_path: Path) -> Iterator[IndexStore]:
    """The index file open for reading, closed when done. Only opening it is guarded here: a
    read may span several trees' indexes, and is guarded by what reads (`reading`)."""
    with reading([index_path]):
        store = IndexStore.open(index_path)
    try:
        yield store
    finally:
        store.close()


def write_meta(index_path: Path, key: str, value: str) -> None:
    """Set one value of the index's meta table, and note the file as written by explorer."""
    with opened(index_path) as store, writing(index_path), store.transaction():
        store.set_meta(key, value)
    record_verified(index_path)
