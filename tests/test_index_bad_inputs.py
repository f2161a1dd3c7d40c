"""Trees and surroundings a user may hand explorer: links leading out of the tree, and
output read by `head`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import write_tree

from explorer.index.build import refresh
from tests.command_line import invoke

CHECKOUT = Path(__file__).resolve().parent.parent


# -- links out of the tree ------------------------------------------------------------------


@pytest.fixture
def linked_tree(tmp_path: Path) -> Path:
    outside = write_tree(
        tmp_path / "outside",
        {
            "secret.py": "def secret_function():\n    pass\n",
            "ignore-everything": "*\n",
        },
    )
    root = write_tree(
        tmp_path / "tree",
        {
            "pkg/own.py": "def own_function():\n    pass\n",
            "pkg/sub/inner.py": "def inner_function():\n    pass\n",
        },
    )
    (root / "pkg/leak.py").symlink_to(outside / "secret.py")
    (root / "pkg/alias.py").symlink_to(root / "pkg/sub/inner.py")  # inside: followed
    (root / ".gitignore").symlink_to(outside / "ignore-everything")  # would hide the whole tree
    return root


def test_a_link_to_a_file_outside_the_tree_is_not_read(linked_tree: Path, tmp_path: Path):
    index = tmp_path / "index.sqlite"
    report = refresh(str(linked_tree), index, jobs=1)
    assert report.stats.files == 3
    assert [(d.path, d.reason) for d in report.skipped] == [
        ("pkg/leak.py", "symlink to a file outside the tree, not followed (--follow-links-outside reads it)"),
    ]
    show = invoke(["show", "secret_function", "--root", str(linked_tree), "--index", str(index)])
    assert show.exit_code == 1 and "secret" not in show.stdout
    inner = invoke(["search", "inner_function", "--root", str(linked_tree), "--index", str(index)])
    assert inner.stdout.count("pkg.") == 2  # pkg/sub/inner.py and the link pkg/alias.py


def test_links_outside_are_read_when_the_user_asks(linked_tree: Path, tmp_path: Path):
    index = tmp_path / "index.sqlite"
    result = invoke(["index", "--follow-links-outside", "--root", str(linked_tree), "--index", str(index)])
    assert result.exit_code == 0 and result.stdout.startswith("Indexed 4 files")
    show = invoke(["show", "secret_function", "--root", str(linked_tree), "--index", str(index)])
    assert show.exit_code == 0 and "pkg/leak.py:1" in show.stdout


def test_a_file_replaced_by_a_link_outside_after_the_walk_is_not_read(linked_tree: Path):
    from explorer.index.files import UnreadableFile, read_source

    with pytest.raises(UnreadableFile, match=r"^symlink to a file outside the tree"):
        read_source(str(linked_tree), "pkg/leak.py")
    assert read_source(str(linked_tree), "pkg/leak.py", follow_links_outside=True)[0].startswith(b"def secret_function")


# -- output read by head --------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["index", "--verbose"],
        ["search", "conv", "-n", "300"],
        ["search", "conv", "-n", "300", "--json"],
        ["trace", "torch.nn.Conv2d"],
        ["callgraph"],
        ["callers", "cudnnConvolutionForward", "--depth", "4"],
    ],
)
def test_a_reader_that_stops_early_is_no_error(command: list[str], tmp_path: Path):
    env = {**os.environ, "EXPLORER_CACHE_DIR": str(tmp_path)}
    subprocess.run([sys.executable, "-m", "explorer", "index"], env=env, capture_output=True, check=True, cwd=CHECKOUT)
    process = subprocess.Popen(
        [sys.executable, "-m", "explorer", *command],
        env=env,
        cwd=CHECKOUT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.readline()
    process.stdout.close()  # as `| head -1` does
    assert (process.wait(), process.stderr.read()) == (0, b"")
