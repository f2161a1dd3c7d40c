"""Building and refreshing the index of a tree.

`refresh` runs these steps:
1. walk the tree (files.walk): what is indexable now, and what is passed over with a reason;
2. compare size and mtime with the index: unchanged files are not read again
   (a new index, or one that cannot be used, is built from empty in a side file that is
   renamed into place when complete);
3. read and parse the changed files, in worker processes when there are many;
   a file whose content hash did not change only has its stat updated;
4. drop files that disappeared; write each batch of parsed files in one transaction (a file
   and its facts land together);
5. rebuild the derived tables (vendor symbols, search names).
A query's refresh nearly always finds nothing changed; the remembered walk
(index/listing.py) answers that from stats alone, without opening the index.
Nothing in the tree is imported or executed: files are only read as bytes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import functools
import json
import os
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from explorer.errors import ExplorerError
from explorer.folders import cache_folder
from explorer.index.disk import (
    foreign_file,
    index_file_stamp,
    is_corruption,
    move_database,
    record_verified,
    writer_lock,
)
from explorer.index.files import SourceFile, UnreadableFile, WalkOptions, may_read_later, read_source
from explorer.index.listing import (
    confirm_indexed,
    left_out_by_rule,
    racy_since,
    remembered_options,
    unchanged_since_indexed,
    walk_remembered,
)
from explorer.index.rows import FileRows, encode_facts
from explorer.index.store import IndexStats, IndexStore, StoredFile
from explorer.model import Diagnostic
from explorer.parsers import parse_file
from explorer.stage_clock import stage

_BATCH = 256  # files per transaction
_PARALLEL_THRESHOLD = 48  # fewer changed files than this are parsed in-process


class Progress(Protocol):
    """What a refresh says while it works, for whoever shows it (a terminal's bar, log lines,
    an editor's work-done progress). Nothing is said when nothing needs parsing."""

    def parsing(self, files: int, new_index: bool) -> None:
        """`files` are about to be parsed; `new_index`: the whole tree, once per index."""

    def parsed(self, done: int) -> None:
        """`done` of them are parsed."""

    def writing(self) -> None:
        """Parsing is over; what was parsed is being joined into the index (a few seconds
        on a large tree)."""


@dataclass(frozen=True)
class RefreshReport:
    """What a refresh did; what the index then holds is read from it when first asked for
    (a query's refresh never asks)."""

    index_path: Path
    parsed: int  # files read and parsed in this refresh
    unchanged: int
    removed: int
    seconds: float
    rebuilt_because: str | None = None
    stale_because: str | None = (
        None  # not refreshed, though the tree may have changed: why (answers are from the index as it was)
    )

    @property
    def stats(self) -> IndexStats:
        return self._summary[0]

    @property
    def skipped(self) -> list[Diagnostic]:
        """Every file of the tree that is not indexed, with why."""
        return self._summary[1]

    @property
    def partial(self) -> list[Diagnostic]:
        """Indexed, but with a problem (syntax errors, bad YAML entries)."""
        return self._summary[2]

    @functools.cached_property
    def left_out(self) -> list[Diagnostic]:
        """The folders the walk left out by rule (build output, third_party, .gitignore...)."""
        return left_out_by_rule(Path(f"{self.index_path}.listing"))

    @functools.cached_property
    def _summary(self) -> tuple[IndexStats, list[Diagnostic], list[Diagnostic]]:
        store = IndexStore.open(self.index_path)
        try:
            return store.stats(), store.skipped(), store.partial()
        finally:
            store.close()


@dataclass(frozen=True, slots=True)
class _Parsed:
    """What a worker sends back for one file."""

    source: SourceFile
    file_id: int
    content_hash: str | None
    rows: FileRows | None = None
    unreadable: str | None = None
    same_content: bool = False
    written: bool = False  # already stored by the worker, in its shard

    @property
    def indexed(self) -> bool:
        """Read and parsed now (rather than skipped, or found unchanged by its hash)."""
        return self.unreadable is None and not self.same_content


def refresh(
    root: str,
    index_path: Path,
    *,
    jobs: int | None = None,
    rebuild: bool = False,
    options: WalkOptions | None = None,
    progress: Progress | None = None,
    on_wait: Callable[[], None] | None = None,
    leave_out: frozenset[str] = frozenset(),
) -> RefreshReport:
    """Bring the index at `index_path` up to date with `root`. `options` are saved with the
    index (later refreshes reuse them); `leave_out` (folders that are other trees of this
    query) is not."""
    started = time.perf_counter()
    started_ns = time.time_ns()  # before any file is read: what changes after it is seen next time
    listing = Path(f"{index_path}.listing")  # the last walk, remembered (index/listing.py)
    with contextlib.ExitStack() as held:
        try:
            held.enter_context(writer_lock(index_path, on_wait))
        except OSError as error:
            if error.errno not in _READ_ONLY:
                raise
            return _read_only(root, index_path, options, leave_out, listing, started, error)
        reason = "asked to rebuild" if rebuild else IndexStore.unusable_reason(index_path, root)
        if reason is None:
            unchanged = unchanged_since_indexed(root, options, leave_out, listing, index_file_stamp(index_path))
            if unchanged is not None:
                return RefreshReport(index_path, 0, unchanged, 0, time.perf_counter() - started)
            try:
                store = IndexStore.open(index_path)
                try:
                    report, found, vouch = _refresh(
                        store, root, jobs, options, progress, started, listing, leave_out=leave_out
                    )
                finally:
                    store.close()
                record_verified(index_path)
                confirm_indexed(listing, found, index_file_stamp(index_path), started_ns, vouch)
                return report
            except sqlite3.DatabaseError as error:
                if not is_corruption(error):
                    raise
                reason = f"index file corrupt ({error})"
                options = (
                    options or remembered_options(listing) or WalkOptions()
                )  # the saved ones are in the corrupt file
        # A new index is built beside the old one and renamed into place when complete; what
        # stands there is replaced only if it is explorer's (a path the user named may hold
        # anything). Everything in explorer's cache folder is its own, damaged or not.
        if (
            index_path.parent.resolve() != cache_folder().resolve()
            and (foreign := foreign_file(index_path)) is not None
        ):
            raise ExplorerError(
                f"not replacing {index_path} with an index: {foreign}; remove it or name another --index file"
            )
        building = Path(f"{index_path}.building")
        shards = Path(f"{index_path}.shards")
        shutil.rmtree(shards, ignore_errors=True)
        store = IndexStore.create(building, root)
        try:
            if options is None:
                options = saved_walk_options(index_path, root) or remembered_options(listing)
            report, found, vouch = _refresh(store, root, jobs, options, progress, started, listing, shards, leave_out)
            store.finish_bulk()
        finally:
            store.close()
            shutil.rmtree(shards, ignore_errors=True)
        move_database(building, index_path)
        record_verified(index_path)
        confirm_indexed(listing, found, index_file_stamp(index_path), started_ns, vouch)
        rebuilt = None if reason in ("no index yet", "asked to rebuild") else reason
        return dataclasses.replace(report, index_path=index_path, rebuilt_because=rebuilt)


_READ_ONLY = (errno.EACCES, errno.EPERM, errno.EROFS)


def _read_only(
    root: str,
    index_path: Path,
    options: WalkOptions | None,
    leave_out: frozenset[str],
    listing: Path,
    started: float,
    error: OSError,
) -> RefreshReport:
    """The index's folder cannot be written (a read-only cache, a shared one): a good index is
    used as it is, said to be possibly stale unless the last walk vouches for the tree (the
    listing: nothing changed since); without one there is nothing to answer from."""
    why = f"{index_path.parent} cannot be written ({error.strerror or error})"
    if IndexStore.unusable_reason(index_path, root) is not None:
        raise ExplorerError(
            f"no usable index of {root} in {index_path.parent}, which cannot be written "
            f"({error.strerror or error}); set EXPLORER_CACHE_DIR to a folder explorer may write"
        )
    unchanged = unchanged_since_indexed(root, options, leave_out, listing, index_file_stamp(index_path))
    if unchanged is not None:
        return RefreshReport(index_path, 0, unchanged, 0, time.perf_counter() - started)
    return RefreshReport(index_path, 0, 0, 0, time.perf_counter() - started, stale_because=why)


def saved_walk_options(index_path: Path, root: str) -> WalkOptions | None:
    """The options an index being replaced was made with, if it can still be read."""
    if IndexStore.unusable_reason(index_path, root) not in (None, "written by another version of explorer's parsers"):
        return None
    try:
        store = IndexStore.open(index_path)
        try:
            saved = store.meta("walk_options")
        finally:
            store.close()
    except sqlite3.DatabaseError:
        return None
    return WalkOptions.from_saved(json.loads(saved)) if saved else None


def _walk_options(store: IndexStore, given: WalkOptions | None) -> WalkOptions:
    """Options given to `explorer index` stick: later refreshes by query commands reuse them,
    so a tree indexed with its third_party folders keeps them."""
    if given is None:
        saved = store.meta("walk_options")
        return WalkOptions.from_saved(json.loads(saved)) if saved else WalkOptions()
    saving = json.dumps(dataclasses.asdict(given))
    if store.meta("walk_options") != saving:  # written only when new: any write means checking the file again
        with store.transaction():
            store.set_meta("walk_options", saving)
    return given


def _refresh(
    store: IndexStore,
    root: str,
    jobs: int | None,
    given: WalkOptions | None,
    progress: Progress | None,
    started: float,
    listing: Path,
    shards: Path | None = None,
    leave_out: frozenset[str] = frozenset(),
) -> tuple[RefreshReport, list[SourceFile], bool]:
    """Bring `store` up to date; the report, the files it now holds as they were found, and
    whether their stats alone may vouch for them next time: not while a file could not be
    read (its permissions may be mended without its size or time changing: it is read again
    at every refresh until it can be). With `shards` (a new index), parser processes store
    their own rows in shard files there, merged once at the end."""
    options = _walk_options(store, given)
    racy_after = racy_since(listing)  # read before the walk writes the listing anew
    # 1. walk
    sources, walk_skips = walk_remembered(root, options, leave_out, listing)
    stored = store.stored_files()

    # 2. compare stat fingerprints; a file changed just before the last refresh read it may
    # have changed again since with the same stat, so its content is compared too
    changed = [s for s in sources if _fingerprint_changed(stored.get(s.path), s) or _read_again(stored.get(s.path))]
    if racy_after is not None:
        listed = {s.path for s in changed}
        unsure = [s for s in sources if s.mtime_ns >= racy_after and s.path not in listed]
        changed += [s for s in unsure if _content_changed(root, options.follow_links_outside, s, stored[s.path])]
    present = {s.path for s in sources}
    gone = [record for path, record in stored.items() if path not in present]

    # 3 + 4. parse and write in batches
    parsed_count = unchanged_content = 0
    if changed or gone or store.is_stale():
        first_id = store.next_file_id()
        with store.transaction():
            store.mark_stale(first_id)
            store.replace_walk_skips(walk_skips)
            for record in gone:
                store.remove_file(record.id)
        batch: list[_Parsed] = []
        parsing = _parse_all(root, options.follow_links_outside, changed, stored, first_id, jobs, shards)
        if progress is not None and changed:
            progress.parsing(len(changed), shards is not None)
        for done, result in enumerate(parsing, start=1):
            batch.append(result)
            if len(batch) >= _BATCH:
                _write(store, stored, batch)
                batch = []
            if progress is not None:
                progress.parsed(done)
            if result.same_content:
                unchanged_content += 1
            elif result.indexed:
                parsed_count += 1
        _write(store, stored, batch)
        if progress is not None and changed:
            progress.writing()
        if shards is not None and shards.exists():
            store.merge_shards(sorted(shards.glob("*.sqlite")))
        # 5. derived tables
        with stage("derived tables (linking)"):
            store.rebuild_derived()
        with store.transaction():
            store.save_small_tree()
    else:
        if store.meta("small_tree") is None:  # an index from before summaries were kept
            with store.transaction():
                store.save_small_tree()

    report = RefreshReport(
        index_path=store.path,
        parsed=parsed_count,
        unchanged=len(sources) - len(changed) + unchanged_content,
        removed=len(gone),
        seconds=time.perf_counter() - started,
    )
    return report, sources, not store.holds_unreadable_files()


def _read_again(record: StoredFile | None) -> bool:
    return record is not None and may_read_later(record.skipped)


def _fingerprint_changed(record: StoredFile | None, source: SourceFile) -> bool:
    return record is None or record.size != source.size or record.mtime_ns != source.mtime_ns


def _content_changed(root: str, follow_links_outside: bool, source: SourceFile, record: StoredFile) -> bool:
    try:
        return read_source(root, source.path, follow_links_outside)[1] != record.hash
    except UnreadableFile:
        return True  # parsed again, which says why it cannot be read


def _write(store: IndexStore, stored: dict[str, StoredFile], batch: list[_Parsed]) -> None:
    if not batch:
        return
    with stage("SQLite writes"), store.transaction():
        for result in batch:
            if result.written:
                continue
            source = result.source
            previous = stored.get(source.path)
            if result.same_content and previous is not None:
                store.touch_file(previous.id, source.size, source.mtime_ns)
                continue
            if previous is not None:
                store.remove_file(previous.id)
            if result.rows is not None and result.content_hash is not None:
                store.put_rows(result.rows, source.size, source.mtime_ns, result.content_hash)
            else:
                reason = result.unreadable or "unreadable"
                store.put_skipped_file(result.file_id, source.path, source.lang, source.size, source.mtime_ns, reason)


# -- parsing, in-process or in workers -----------------------------------------------------

_worker_root = ""
_worker_follows_links_outside = False
_worker_shard: IndexStore | None = None


def _init_worker(root: str, follow_links_outside: bool, shards: Path | None = None) -> None:
    global _worker_root, _worker_follows_links_outside, _worker_shard
    _worker_root = root
    _worker_follows_links_outside = follow_links_outside
    if shards is not None:
        shards.mkdir(parents=True, exist_ok=True)
        _worker_shard = IndexStore.create(shards / f"{os.getpid()}.sqlite", root)


def _parse_one(task: tuple[SourceFile, int, str | None]) -> _Parsed:
    result = _parse_task(task)
    if _worker_shard is None:
        return result
    # Each file is committed before its result is reported: once every result is in, every
    # row is in a shard, whatever happens to the worker afterwards.
    _write(_worker_shard, {}, [result])
    return dataclasses.replace(result, rows=None, written=True)


def _parse_task(task: tuple[SourceFile, int, str | None]) -> _Parsed:
    source, file_id, previous_hash = task
    try:
        with stage("reading and hashing files"):
            data, content_hash = read_source(_worker_root, source.path, _worker_follows_links_outside)
    except UnreadableFile as error:
        return _Parsed(source, file_id, None, unreadable=str(error))
    if content_hash == previous_hash:
        return _Parsed(source, file_id, content_hash, same_content=True)
    try:
        facts = parse_file(source.path, source.lang, data)
    except RecursionError:
        return _Parsed(source, file_id, content_hash, unreadable="nested too deeply to parse")
    except Exception as error:  # a parser bug must not stop the rest of the tree
        return _Parsed(source, file_id, content_hash, unreadable=f"parser failed ({type(error).__name__}: {error})")
    fatal = next((d.reason for d in facts.diagnostics if d.skipped), None)
    if fatal is not None:
        return _Parsed(source, file_id, content_hash, unreadable=fatal)
    with stage("row encoding"):
        rows = encode_facts(facts, file_id)
    return _Parsed(source, file_id, content_hash, rows=rows)


def _parse_all(
    root: str,
    follow_links_outside: bool,
    changed: list[SourceFile],
    stored: dict[str, StoredFile],
    first_id: int,
    jobs: int | None,
    shards: Path | None,
) -> Iterator[_Parsed]:
    # File ids are handed out here, so workers can build finished rows.
    tasks = [
        (source, first_id + offset, _previous_hash(stored.get(source.path))) for offset, source in enumerate(changed)
    ]
    workers = jobs if jobs is not None else (os.cpu_count() or 1)
    if workers <= 1 or len(tasks) < _PARALLEL_THRESHOLD:
        _init_worker(root, follow_links_outside)
        yield from map(_parse_task, tasks)
        return
    # Largest files first, so that no worker is left with a big one while the others idle.
    tasks.sort(key=lambda task: -task[0].size)
    import multiprocessing  # only when there is parsing to do: 6 ms of every query's start otherwise

    context = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    with context.Pool(workers, initializer=_init_worker, initargs=(root, follow_links_outside, shards)) as pool:
        yield from pool.imap_unordered(_parse_one, tasks, chunksize=4)


def _previous_hash(record: StoredFile | None) -> str | None:
    return record.hash if record is not None and record.skipped is None else None
