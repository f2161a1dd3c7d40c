"""Queries and refreshes while the tree changes under them: folders moved away and back,
files rewritten, permissions taken away and given back (as root, permissions stop nothing;
the moves alone make files vanish between the walk and the read). Whatever the refreshes
met, the first refresh after the tree settles holds exactly what a clean build holds."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from explorer.index.build import refresh
from explorer.index.store import IndexStore
from tests.conftest import index_contents, write_tree


def _tree(root: Path) -> Path:
    files: dict[str, str] = {}
    for folder in range(6):
        for number in range(10):
            files[f"pkg{folder}/mod{number}.py"] = f"def f{folder}_{number}():\n    return g{number}()\n"
        files[f"pkg{folder}/kernels.cpp"] = f"void k{folder}() {{ helper{folder}(); }}\n"
    tree = write_tree(root, files)
    long_ago = 1_600_000_000  # nothing "racily" new: only what moves or is rewritten changes
    for path in tree.rglob("*"):
        os.utime(path, (long_ago, long_ago))
    return tree


def test_the_refresh_after_churn_equals_a_clean_build(tmp_path: Path):
    tree = _tree(tmp_path / "tree")
    index = tmp_path / "index.sqlite"
    refresh(str(tree), index, jobs=1)
    stop = threading.Event()
    problems: list[BaseException] = []

    def churn() -> None:
        turn = 0
        try:
            while not stop.is_set():
                folder = tree / f"pkg{turn % 6}"
                away = tmp_path / f"away{turn % 6}"
                folder.rename(away)  # moved away (another process's checkout switching branches)
                time.sleep(0.002)
                away.rename(folder)  # and back: every file keeps its size and time
                victim = tree / f"pkg{(turn + 3) % 6}" / f"mod{turn % 10}.py"
                victim.chmod(0)
                victim.chmod(0o644)
                turn += 1
        except BaseException as error:
            problems.append(error)

    mover = threading.Thread(target=churn)
    mover.start()
    try:
        deadline = time.monotonic() + 4
        refreshes = 0
        while time.monotonic() < deadline:
            refresh(str(tree), index, jobs=1)  # must not fail, whatever it meets
            store = IndexStore.open(index)
            try:
                store.symbols_named("f0_0")  # a query between refreshes
            finally:
                store.close()
            refreshes += 1
    finally:
        stop.set()
        mover.join()
    assert not problems and refreshes >= 2

    refresh(str(tree), index, jobs=1)  # settled
    clean = tmp_path / "clean.sqlite"
    refresh(str(tree), clean, jobs=1)
    assert index_contents(index) == index_contents(clean)
    assert len(index_contents(clean)[0]) == 66 and all(skipped is None for *_, skipped in index_contents(clean)[0])
