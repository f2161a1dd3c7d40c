"""The index file on disk: connecting to it, telling whether it can be trusted (its version,
fingerprint, tree and checksum, recorded in a `.verified` file beside it when explorer wrote it),
moving and removing it, and the lock that serialises writers. store.py's docstring gives the
durability rules these serve."""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import stat
import urllib.parse
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from explorer.folders import read_kept, write_kept
from explorer.index.schema import SCHEMA_VERSION, extraction_fingerprint


def connect(path: Path) -> sqlite3.Connection:
    # check_same_thread off: explorer run opens the index in the main thread and reads it from
    # the thread that shapes the run (never both at once); SQLite itself is serialised
    connection = sqlite3.connect(path, timeout=60, isolation_level=None, check_same_thread=False)
    connection.execute("PRAGMA busy_timeout = 60000")
    connection.execute("PRAGMA synchronous = NORMAL")
    connection.execute("PRAGMA cache_size = -262144")  # 256 MiB: index builds sort in memory
    connection.execute("PRAGMA temp_store = MEMORY")
    # `with connection:` then means BEGIN ... COMMIT/ROLLBACK
    connection.isolation_level = "DEFERRED"
    return connection


def connect_read_only(path: Path) -> sqlite3.Connection:
    """The file opened read-only. Its path is quoted into the URI: a `#`, `?` or `%` in a
    folder's name would otherwise end or change the path SQLite opens. In a folder nothing
    can write (a read-only cache), the file is opened as immutable: SQLite cannot make the
    shared-memory file a WAL-mode file is otherwise read through, and nothing can change the
    file while it is read."""
    quoted = urllib.parse.quote(str(path))
    if is_read_only_folder(path):
        return sqlite3.connect(f"file:{quoted}?mode=ro&immutable=1", uri=True, timeout=60, check_same_thread=False)
    return sqlite3.connect(f"file:{quoted}?mode=ro", uri=True, timeout=60, check_same_thread=False)


def is_read_only_folder(path: Path) -> bool:
    """Whether the folder holding `path` cannot be written (permissions, a read-only mount)."""
    return not os.access(path.parent, os.W_OK)


SQLITE_HEADER = b"SQLite format 3\x00"


def foreign_file(path: Path) -> str | None:
    """What stands at `path`, where it is not explorer's to replace, in a few words; None where
    nothing does (or an empty file), or where it is one of explorer's index files: one
    explorer recorded writing (its `.verified` record beside it), damaged since or not, or an
    SQLite file whose meta table names the tree and the parsers that wrote it (an index of any
    format version). `--index` may name any path; a user's own database or source file there
    must never be rebuilt over."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        return f"it cannot be read ({error.strerror or error})"
    if stat.S_ISDIR(info.st_mode):
        return "it is a folder"
    if not stat.S_ISREG(info.st_mode):
        return "it is not a regular file"
    if info.st_size == 0 or recorded_stamp(path) is not None:
        return None
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(SQLITE_HEADER))
    except OSError as error:
        return f"it cannot be read ({error.strerror or error})"
    if head != SQLITE_HEADER:
        return "it is not an SQLite database"
    try:
        connection = connect_read_only(path)
        try:
            has_meta = connection.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
            ).fetchone()
            keys = (
                {key for (key,) in connection.execute("SELECT key FROM meta WHERE key IN ('root', 'extraction')")}
                if has_meta
                else set()
            )
        finally:
            connection.close()
    except sqlite3.DatabaseError:
        return "it is an SQLite database explorer cannot read"
    return None if keys == {"root", "extraction"} else "it is an SQLite database that is not an explorer index"


def user_version(connection: sqlite3.Connection) -> int:
    return int(connection.execute("PRAGMA user_version").fetchone()[0])


def file_unusable_reason(path: Path, root: str) -> str | None:
    """Why an existing index file cannot be used as it is, or None if it can."""
    try:
        connection = connect_read_only(path)
        try:
            version = user_version(connection)
            if version != SCHEMA_VERSION:
                return f"index format {version} is not {SCHEMA_VERSION}"
            meta = dict(connection.execute("SELECT key, value FROM meta WHERE key IN ('root', 'extraction', 'stale')"))
            if meta.get("root") != root:
                return "index belongs to another tree"
            if meta.get("extraction") != extraction_fingerprint():
                return "written by another version of explorer's parsers"
            recorded = recorded_stamp(path)
            if recorded is not None and recorded.get("stamp") == index_file_stamp(path):
                return None
            checksum = file_checksum(path)
            same_bytes = recorded is not None and recorded.get("checksum") == checksum  # copied, or touched
            problem = None if same_bytes else integrity_problem(connection, meta)
        finally:
            connection.close()
    except sqlite3.DatabaseError as error:
        return f"index file corrupt ({error})"
    if problem is not None:
        return f"index file corrupt ({problem})"
    record_verified(path, checksum)
    return None


def integrity_problem(connection: sqlite3.Connection, meta: dict[str, str]) -> str | None:
    """Why an index file that is not as explorer wrote it cannot be trusted, or None. Raises
    sqlite3.DatabaseError for a file SQLite cannot read at all."""
    verdict = connection.execute("PRAGMA quick_check(1)").fetchone()[0]
    if verdict != "ok":
        return " ".join(verdict.replace("***", "").split())
    if "stale" in meta:
        return None  # a refresh was interrupted; the next one finishes it
    return "its content changed since explorer wrote it"


def index_file_stamp(path: Path) -> list[int]:
    """What changes whenever anything writes the index: the stat of the file and of its WAL.
    An empty WAL is no WAL: SQLite creates one empty when it merely reads a WAL-mode file, so
    the check that reads the file's format first would otherwise never match the record."""
    stamp: list[int] = []
    for name in (str(path), f"{path}-wal"):
        try:
            info = os.stat(name)
        except FileNotFoundError:
            stamp.append(-1)
            continue
        if name.endswith("-wal") and info.st_size == 0:
            stamp.append(-1)
            continue
        stamp += [info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]
    return stamp


def file_checksum(path: Path) -> int:
    """CRC-32 of the file and its WAL: about 0.1 s for the index of the whole PyTorch tree."""
    crc = 0
    for name in (str(path), f"{path}-wal"):
        with contextlib.suppress(FileNotFoundError), open(name, "rb") as handle:
            while chunk := handle.read(1 << 22):
                crc = zlib.crc32(chunk, crc)
    return crc


def record_path(path: Path) -> str:
    return f"{path}.verified"


def recorded_stamp(path: Path) -> dict[str, Any] | None:
    return read_kept(record_path(path))


def record_verified(path: Path, checksum: int | None = None) -> None:
    """Note that the index file, as it is now, was written (or checked) by explorer: its stat
    and checksum. Call it with the file closed (closing can fold the WAL into the file)."""
    stamp = index_file_stamp(path)
    recorded = recorded_stamp(path)
    if recorded is not None and recorded.get("stamp") == stamp:
        return
    # a read-only cache only means checking again next time
    write_kept(record_path(path), {"stamp": stamp, "checksum": file_checksum(path) if checksum is None else checksum})


def forget_verified(path: Path) -> None:
    """The index gave an error a sound file would not: check it before it is used again."""
    with contextlib.suppress(FileNotFoundError):
        os.remove(record_path(path))


def is_corruption(error: sqlite3.Error) -> bool:
    """An error that a sound index file would not give."""
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return True
    message = str(error)
    return message.startswith(
        ("no such table", "no such column", "database disk image is malformed", "file is not a database")
    )


def remove_database(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", ".verified"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(f"{path}{suffix}")


def move_database(source: Path, target: Path) -> None:
    """Put a finished index in place in one step: readers see the old file or the new one."""
    with sqlite3.connect(source) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    for leftover in (f"{source}-wal", f"{source}-shm", f"{target}-wal", f"{target}-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(leftover)
    os.replace(source, target)


@contextlib.contextmanager
def writer_lock(index_path: Path, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold the index's writer lock; if another process holds it, call `on_wait` and wait."""
    index_path.parent.mkdir(parents=True, exist_ok=True)
    with open(f"{index_path}.lock", "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait()
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
