"""The small JSON files explorer keeps in its cache folder beside the indexes: the last walk
of a tree, what an index file was verified as, what an interpreter and its packages said.
Each is only a cache: one that is missing, unreadable or cannot be written means the work it
saves is done again, never an error."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any


def read_kept(path: Path | str) -> dict[str, Any] | None:
    """The JSON object the file holds, or None."""
    try:
        with open(path, encoding="utf-8") as handle:
            kept = json.load(handle)
    except (OSError, ValueError):
        return None
    return kept if isinstance(kept, dict) else None


def write_kept(path: Path | str, kept: dict[str, Any]) -> None:
    """Written beside and renamed into place: a reader sees the old file or the new one whole."""
    partial = f"{path}.{os.getpid()}"
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        with open(partial, "w", encoding="utf-8") as handle:
            json.dump(kept, handle, separators=(",", ":"))
        os.replace(partial, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.remove(partial)
