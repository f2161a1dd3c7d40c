"""An index build or refresh killed at any moment (kill -9) leaves nothing that the next run
cannot complete: afterwards the index holds exactly the rows of a clean build."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import touch_later, write_tree
from test_determinism import index_content

from explorer.index.build import refresh

CHECKOUT = Path(__file__).resolve().parent.parent


def small_tree(root: Path, version: str) -> Path:
    files: dict[str, str | bytes] = {}
    for i in range(120):
        files[f"pkg/m{i:03}.py"] = (
            f"def f{i}_{version}():\n    return g{i}(1)\n\nclass C{i}:\n    def m(self):\n        f{i}_{version}()\n"
        )
        files[f"aten/src/ATen/native/k{i:03}.cpp"] = (
            f"namespace at {{ namespace native {{\nvoid k{i}_{version}() {{ cudnnConvolutionForward(h); }}\n}}}}\n"
        )
    return write_tree(root, files)


def kill_at(command: list[str], seconds: float) -> None:
    process = subprocess.Popen(
        command, cwd=CHECKOUT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    time.sleep(seconds)
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)  # the indexer and its parser processes
    process.wait()


def index_command(root: Path, index: Path, jobs: int) -> list[str]:
    return [sys.executable, "-m", "explorer", "index", "--root", str(root), "--index", str(index), "--jobs", str(jobs)]


@pytest.mark.parametrize("jobs", [1, 2])
def test_builds_and_refreshes_killed_at_random_moments_are_completed_by_the_next_run(tmp_path: Path, jobs: int):
    chance = random.Random(jobs)
    root = small_tree(tmp_path / "tree", "old")
    index = tmp_path / "index.sqlite"
    clean_old = index_content(_clean(root, tmp_path / "clean-old.sqlite"))
    for attempt in range(4):
        # a first build, killed
        for leftover in tmp_path.glob("index.sqlite*"):
            leftover.unlink()
        kill_at(index_command(root, index, jobs), chance.uniform(0.2, 1.2))
        refresh(str(root), index, jobs=jobs)
        assert index_content(index) == clean_old, f"build, attempt {attempt}"

    # a refresh of every file, killed, then finished
    for path in sorted(root.rglob("*.*")):
        path.write_text(path.read_text().replace("_old", "_new"))
        touch_later(path)
    clean_new = index_content(_clean(root, tmp_path / "clean-new.sqlite"))
    kill_at(index_command(root, index, jobs), chance.uniform(0.3, 1.0))
    refresh(str(root), index, jobs=jobs)
    refreshed = index_content(index)
    # search names of removed symbols may linger after a refresh (they find nothing)
    assert set(refreshed.pop("names")) >= set(clean_new.pop("names"))
    assert refreshed == clean_new


def _clean(root: Path, index: Path) -> Path:
    refresh(str(root), index, jobs=1)
    return index


@pytest.mark.real_torch
def test_a_real_tree_build_killed_at_random_moments_is_completed(tmp_path: Path):
    tree = os.environ.get("EXPLORER_REAL_TORCH")
    if not tree:
        pytest.skip("set EXPLORER_REAL_TORCH to a PyTorch 2.4.0 source tree")
    index = tmp_path / "index.sqlite"
    for seconds in (3.0, 20.0):
        kill_at(index_command(Path(tree), index, 2), seconds)
    refresh(tree, index, jobs=2)
    assert index_content(index) == index_content(_clean(Path(tree), tmp_path / "clean.sqlite"))
