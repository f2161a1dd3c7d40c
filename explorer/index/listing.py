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
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from pathlib import Path

from explorer.index.files import SourceFile, WalkOptions, stat_stamp, walk
from explorer.model import Diagnostic, Language

_VERSION = 1
# A folder changed this close to the moment it was stat'ed may change again within the same
# clock tick without its time moving (git's "racy" entries): such a listing is not trusted.
RACY_NS = 2_000_000_000


def walk_remembered(
    root: str, options: WalkOptions, leave_out: frozenset[str], listing: Path
) -> tuple[list[SourceFile], list[Diagnostic]]:
    """`files.walk`, answered from `listing` when nothing it depends on changed."""
    key = json.loads(json.dumps([_VERSION, root, dataclasses.asdict(options), sorted(leave_out)]))  # as read back
    kept = _read(listing)
    if kept is not None and kept.get("key") == key:
        found = _still_found(root, kept, options.max_file_size)
        if found is not None:
            return found, [Diagnostic(path, reason) for path, reason, _ in kept["skipped"]]
    stamps: dict[str, list[int]] = {}
    started = time.time_ns()
    found, skipped = walk(root, options, leave_out, stamps)
    _write(listing, {
        "key": key,
        "walked_ns": started,
        "stamps": stamps,
        "skipped": [[d.path, d.reason, stat_stamp(os.path.join(root, d.path))] for d in skipped],
        "found": [[source.path, source.lang.value] for source in found],
    })
    return found, skipped


def _still_found(root: str, kept: dict, max_file_size: int) -> list[SourceFile] | None:
    """The files found last time with their stats now, or None if the walk must run again."""
    trusted_before = kept.get("walked_ns", 0) - RACY_NS
    for rel, stamp in kept["stamps"].items():
        if stat_stamp(os.path.join(root, rel) if rel != "." else root) != stamp:
            return None
        if stamp and max(stamp[0], stamp[1]) >= trusted_before:
            return None  # changed just before the walk: it may have changed again unseen
    for path, _, stamp in kept["skipped"]:
        if stat_stamp(os.path.join(root, path)) != stamp:
            return None
    found = []
    for path, lang in kept["found"]:
        try:
            info = os.stat(os.path.join(root, path))
        except OSError:
            return None  # gone (its folder's stat says so too, unless the link it was broke)
        if info.st_size > max_file_size:
            return None  # grown past the limit: the walk passes it over, with its reason
        found.append(SourceFile(path, Language(lang), info.st_size, info.st_mtime_ns))
    return found


def _read(listing: Path) -> dict | None:
    try:
        with open(listing, encoding="utf-8") as handle:
            kept = json.load(handle)
    except (OSError, ValueError):
        return None
    return kept if isinstance(kept, dict) and {"key", "stamps", "skipped", "found"} <= kept.keys() else None


def _write(listing: Path, kept: dict) -> None:
    """Written beside and renamed into place; a listing that cannot be written only means a
    full walk next time."""
    partial = listing.with_name(f"{listing.name}.{os.getpid()}")
    try:
        with open(partial, "w", encoding="utf-8") as handle:
            json.dump(kept, handle, separators=(",", ":"))
        os.replace(partial, listing)
    except OSError:
        try:
            os.remove(partial)
        except OSError:
            pass
