"""Shared fixtures: the bundled sample tree indexed once per session, and small trees made per test."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from explorer.folders import SAMPLE_ROOT
from explorer.index.build import refresh
from explorer.index.store import IndexStore


@pytest.fixture(scope="session")
def _sample_indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session's cache, holding the bundled tree's index before any test runs a command
    on it: what a command prints must not depend on whether it was the first to index the
    tree (a first index says how it goes: test_progress.py)."""
    cache = tmp_path_factory.getbasetemp() / "cache"
    from explorer.folders import default_index_path

    previous = os.environ.get("EXPLORER_CACHE_DIR")
    os.environ["EXPLORER_CACHE_DIR"] = str(cache)
    try:
        refresh(str(SAMPLE_ROOT), default_index_path(str(SAMPLE_ROOT)))
    finally:
        if previous is None:
            del os.environ["EXPLORER_CACHE_DIR"]
        else:
            os.environ["EXPLORER_CACHE_DIR"] = previous
    return cache


@pytest.fixture(autouse=True)
def _private_cache(_sample_indexed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Index files go to a per-session temporary cache, never to the user's."""
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(_sample_indexed))
    monkeypatch.delenv("EXPLORER_ROOT", raising=False)
    # Installed packages join a query only where a test names an environment: what the
    # machine running the tests has installed must not change their answers.
    monkeypatch.setenv("EXPLORER_PYTHON_ENV", "none")
    monkeypatch.delenv("EXPLORER_TREES", raising=False)


@pytest.fixture(scope="session")
def sample_root() -> str:
    return str(SAMPLE_ROOT)


@pytest.fixture(scope="session")
def sample_store(tmp_path_factory: pytest.TempPathFactory, sample_root: str) -> Iterator[IndexStore]:
    index_path = tmp_path_factory.mktemp("sample-index") / "index.sqlite"
    refresh(sample_root, index_path, jobs=1)
    store = IndexStore.open(index_path)
    yield store
    store.close()


@pytest.fixture(scope="session")
def real_tree(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, IndexStore]]:
    """The PyTorch 2.4.0 source tree named by EXPLORER_REAL_TORCH (opt-in), indexed once."""
    named = os.environ.get("EXPLORER_REAL_TORCH")
    if not named:
        pytest.skip("set EXPLORER_REAL_TORCH to a PyTorch 2.4.0 source tree")
    root = str(Path(named).resolve())
    if (Path(root) / "version.txt").read_text().strip() != "2.4.0":
        pytest.skip("the expected lines are those of PyTorch 2.4.0")
    index_path = tmp_path_factory.mktemp("real-index") / "index.sqlite"
    refresh(root, index_path)
    store = IndexStore.open(index_path)
    yield root, store
    store.close()


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """Create files (text or bytes) under root; return root."""
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


@contextmanager
def indexed_tree(root: Path, files: dict[str, str | bytes]) -> Iterator[tuple[IndexStore, str]]:
    """A small tree written at `root` and indexed beside it, open for queries."""
    write_tree(root, files)
    refresh(str(root), root.parent / "index.sqlite", jobs=1)
    store = IndexStore.open(root.parent / "index.sqlite")
    try:
        yield store, str(root)
    finally:
        store.close()


def touch_later(path: Path) -> None:
    """Move a file's mtime forward so a refresh sees a change even within one clock tick."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


def index_contents(index: Path) -> tuple[list, list]:
    """What an index holds: each file with its stat, and each symbol where it is."""
    import sqlite3

    db = sqlite3.connect(f"file:{index}?mode=ro", uri=True)  # read only: a test must not write the index it checks
    try:
        files = sorted(db.execute("SELECT path, lang, size, mtime_ns, skipped FROM files"))
        symbols = sorted(
            db.execute("SELECT f.path, s.qname, s.kind, s.line FROM symbols s JOIN files f ON f.id = s.file_id")
        )
    finally:
        db.close()
    return files, symbols
