"""The last walk of a tree, remembered, so that the freshness check every query makes stats
files instead of walking the tree again (and matching every `.gitignore` pattern again).

What a walk finds changes only when:
- a folder gains, loses or renames an entry, which changes that folder's stat;
- a `.gitignore` is added, edited or removed (the folder's stat, or the file's);
- a file it passed over changes (one too large shrinks, a broken link is mended);
- the walk's options, or the folders other trees take from it, change.
The listing keeps the stat of every folder walked, every `.gitignore` (or its absence) and every
file passed over. When all of them are as kept, the files found are the ones found before, and
only their own stats are read again: their size and time decide, as always, what is parsed.
Anything else, or a listing that cannot be read, walks the tree again.

Once a refresh has brought the index up to date with the files found, the listing also keeps
the stat of the index file then (`confirm_indexed`). While the index file still has that stat,
nothing else has written it, so it holds each file as the listing saw it: if every file's stat
is still as kept, there is nothing to compare with the index and nothing to parse
(`unchanged_since_indexed`), which is what a query's freshness check finds nearly every time.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from pathlib import Path
from typing import Any

from explorer.folders import read_kept, write_kept
from explorer.index.files import SourceFile, WalkOptions, stat_stamp, walk
from explorer.model import Diagnostic, Language

_VERSION = 3  # 2: each file's size and time, and the index's stat once it holds them; 3: when it was read
# A folder changed this close to the moment it was stat'ed may change again within the same
# clock tick without its time moving (git's "racy" entries): such a listing is not trusted.
RACY_NS = 2_000_000_000


def walk_remembered(
    root: str, options: WalkOptions, leave_out: frozenset[str], listing: Path
) -> tuple[list[SourceFile], list[Diagnostic]]:
    """`files.walk`, answered from `listing` when nothing it depends on changed."""
    key = _as_read_back([_VERSION, root, dataclasses.asdict(options), sorted(leave_out)])
    kept = _read(listing)
    if kept is not None and kept.get("key") == key:
        try:
            found = _still_found(root, kept, options.max_file_size)
            if found is not None:
                return found, [Diagnostic(path, reason) for path, reason, _ in kept["skipped"]]
        except (TypeError, ValueError, KeyError):  # a listing not as written: walk
            pass
    stamps: dict[str, list[int]] = {}
    started = time.time_ns()
    left_out: list[Diagnostic] = []
    found, skipped = walk(root, options, leave_out, stamps, left_out)
    write_kept(
        listing,
        {
            "key": key,
            "walked_ns": started,
            "stamps": stamps,
            "skipped": [[d.path, d.reason, stat_stamp(os.path.join(root, d.path))] for d in skipped],
            "left_out": [[d.path, d.reason] for d in left_out],
            "found": _found_rows(found),
        },
    )
    return found, skipped


def left_out_by_rule(listing: Path) -> list[Diagnostic]:
    """The folders the last walk left out, each with its rule (files.walk); none where the
    listing is missing or was written before it said."""
    kept = _read(listing)
    try:
        return [Diagnostic(path, rule) for path, rule in (kept or {}).get("left_out", [])]
    except (TypeError, ValueError):  # a listing not as written: nothing to say
        return []


def confirm_indexed(
    listing: Path, found: list[SourceFile], index_stamp: list[int], started_ns: int, vouch: bool = True
) -> None:
    """Note that the index, whose file now has `index_stamp`, holds exactly `found` as read by
    a refresh that started at `started_ns`. A file changed within RACY_NS of that start may
    change again in the same clock tick without its stat moving: while there is one, the
    index is not trusted on stats alone, and the next refresh reads it again (`racy_since`).
    Nor where the refresh says stats may not vouch (`vouch`: a file it could not read)."""
    kept = _read(listing)
    if kept is None:
        return
    rows = _found_rows(found)
    racy = any(source.mtime_ns >= started_ns - RACY_NS for source in found)
    confirmed = {"found": rows, "indexed": None if racy or not vouch else index_stamp, "indexed_ns": started_ns}
    if all(kept.get(key) == value for key, value in confirmed.items()):
        return
    write_kept(listing, {**kept, **confirmed})


def racy_since(listing: Path) -> int | None:
    """Files changed at or after this time may have changed since the last refresh read them,
    whatever their stat says; None when no refresh has been confirmed."""
    kept = _read(listing)
    started = kept.get("indexed_ns") if kept is not None else None
    return started - RACY_NS if isinstance(started, int) else None


def unchanged_since_indexed(
    root: str, options: WalkOptions | None, leave_out: frozenset[str], listing: Path, index_stamp: list[int]
) -> int | None:
    """How many files the index holds, when it (its file still at `index_stamp`) holds every
    one of them as it is now and a walk with `options` (None: those it was made with) would
    find no other; else None."""
    kept = _read(listing)
    if kept is None or kept.get("indexed") != index_stamp:
        return None
    try:
        version, kept_root, kept_options, kept_leave_out = kept["key"]
        if (version, kept_root, kept_leave_out) != (_VERSION, root, sorted(leave_out)):
            return None
        if options is not None and kept_options != _as_read_back(dataclasses.asdict(options)):
            return None
        if not _walk_would_find_the_same(root, kept) or not _files_as_kept(root, kept["found"]):
            return None
    except (TypeError, ValueError, KeyError):  # a listing not as written: walk
        return None
    return len(kept["found"])


def remembered_options(listing: Path) -> WalkOptions | None:
    """The walk options of the last walk: what an index that cannot be read any more was
    made with (`explorer index --include-third-party` sticks through a rebuild)."""
    kept = _read(listing)
    try:
        return WalkOptions.from_saved(kept["key"][2]) if kept is not None else None
    except (TypeError, ValueError, KeyError, IndexError):
        return None


def _as_read_back(value: object) -> object:
    """`value` as the listing's JSON gives it back (tuples become lists)."""
    return json.loads(json.dumps(value))


def _found_rows(found: list[SourceFile]) -> list[list[Any]]:
    return [[source.path, source.lang.value, source.size, source.mtime_ns] for source in found]


def _walk_would_find_the_same(root: str, kept: dict[str, Any]) -> bool:
    """Whether every folder, `.gitignore` and passed-over file the last walk depended on is as
    it was then."""
    trusted_before = kept.get("walked_ns", 0) - RACY_NS
    for rel, stamp in kept["stamps"].items():
        if stat_stamp(os.path.join(root, rel) if rel != "." else root) != stamp:
            return False
        if stamp and max(stamp[0], stamp[1]) >= trusted_before:
            return False  # changed just before the walk: it may have changed again unseen
    return all(stat_stamp(os.path.join(root, path)) == stamp for path, _, stamp in kept["skipped"])


def _files_as_kept(root: str, rows: list[list[Any]]) -> bool:
    """Whether every file still has the size and time kept for it. The loop every query runs:
    8,800 stats on the PyTorch tree, so paths are joined by hand (os.path.join is a third of
    the time) and no record is built."""
    under = root.rstrip(os.sep) + os.sep
    for path, _, size, mtime_ns in rows:
        try:
            info = os.stat(under + path)
        except OSError:
            return False
        if info.st_size != size or info.st_mtime_ns != mtime_ns:
            return False
    return True


def _still_found(root: str, kept: dict[str, Any], max_file_size: int) -> list[SourceFile] | None:
    """The files found last time with their stats now, or None if the walk must run again."""
    if not _walk_would_find_the_same(root, kept):
        return None
    found = []
    under = root.rstrip(os.sep) + os.sep
    languages = {language.value: language for language in Language}
    for path, lang, *_ in kept["found"]:
        try:
            info = os.stat(under + path)
        except OSError:
            return None  # gone (its folder's stat says so too, unless the link it was broke)
        if info.st_size > max_file_size:
            return None  # grown past the limit: the walk passes it over, with its reason
        found.append(SourceFile(path, languages[lang], info.st_size, info.st_mtime_ns))
    return found


def _read(listing: Path) -> dict[str, Any] | None:
    kept = read_kept(listing)
    return kept if kept is not None and {"key", "stamps", "skipped", "found"} <= kept.keys() else None
