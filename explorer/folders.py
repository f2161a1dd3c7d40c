"""explorer's folders: its data folders (the bundled tree, the grammars), the root to explore,
the cache folder, each tree's index file in it, and the small JSON files kept there beside the
indexes (the last walk of a tree, what an index file was verified as, what an interpreter and
its packages said).

Below every room: the parsers read the grammars, the index keeps its files in the cache folder,
and the workspace (above the index) opens the trees. Each kept JSON file is only a cache: one
that is missing, unreadable or cannot be written means the work it saves is done again, never
an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pwd
from pathlib import Path
from typing import Any

from explorer.errors import RootNotFoundError, UsageError

_PACKAGE = Path(__file__).resolve().parent  # explorer/


def _data_folder(name: str) -> Path:
    """A data folder of explorer's: inside the package when installed from a wheel
    (pyproject.toml maps it to explorer/_data), beside the package in a checkout."""
    installed = _PACKAGE / "_data" / name
    return installed if installed.is_dir() else _PACKAGE.parent / name


# The miniature PyTorch tree shipped with explorer: the default target.
SAMPLE_ROOT = _data_folder("sample_repo")
# Tree-sitter queries and other extraction data, kept as files.
GRAMMARS_DIR = _data_folder("grammars")


def resolve_root(root: str | None) -> str:
    """`--root`, else $EXPLORER_ROOT, else the bundled sample tree; as an absolute path."""
    if root is not None and not root.strip():
        raise UsageError("--root is empty: name a folder (without --root, the bundled sample tree is used)")
    chosen = root or os.environ.get("EXPLORER_ROOT") or str(SAMPLE_ROOT)
    path = Path(chosen).expanduser()
    if not path.exists():
        raise RootNotFoundError(chosen)
    if not path.is_dir():
        raise UsageError(f"root is not a folder: {chosen}")
    return str(path.resolve())


def default_index_path(root: str, name: str | None = None) -> Path:
    """A file in the user's cache folder, keyed by the tree's absolute path (or another key:
    an installed distribution is keyed by its site folder and its name), so the indexed tree
    itself is never written to (read-only trees work)."""
    key = hashlib.sha256(root.encode("utf-8")).hexdigest()[:16]
    return cache_folder() / f"{name or Path(root).name or 'root'}-{key}.sqlite"


def cache_folder() -> Path:
    """$EXPLORER_CACHE_DIR, else explorer/ in the user's cache folder (XDG)."""
    if own := os.environ.get("EXPLORER_CACHE_DIR"):
        return Path(own)
    cache = os.environ.get("XDG_CACHE_HOME")
    if cache and os.path.isabs(cache):  # XDG: a relative path is invalid and is ignored
        return Path(cache) / "explorer"
    return _home() / ".cache" / "explorer"


def _home() -> Path:
    """$HOME, else the account's home folder. An empty or relative $HOME (a service's
    environment) would put the cache under `/` or wherever the command runs."""
    home = os.environ.get("HOME", "")
    if os.path.isabs(home) and home != "/":
        return Path(home)
    try:
        account = pwd.getpwuid(os.getuid()).pw_dir
    except (KeyError, OSError):
        account = ""
    if os.path.isabs(account) and account != "/":
        return Path(account)
    raise UsageError(
        "no home folder for explorer's cache ($HOME is empty or /): set EXPLORER_CACHE_DIR to a folder explorer may write"
    )


def resolve_index_path(root: str, index: str | None) -> Path:
    return Path(index).expanduser().resolve() if index else default_index_path(root)


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
