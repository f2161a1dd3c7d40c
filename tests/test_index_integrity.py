"""A damaged index is never answered from: each command rebuilds it, says so in one line and
answers as from a clean index, or says exactly what to do."""

from __future__ import annotations

import os
import random
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import write_tree

from explorer.index import disk
from explorer.index.schema import SCHEMA_VERSION
from tests.command_line import invoke

TREE = {
    "pkg/__init__.py": "",
    "pkg/model.py": ("from pkg.ops import scale\n\ndef forward(x):\n    return scale(x)\n"),
    "pkg/ops.py": ("def scale(x):\n    return double(x)\n\ndef double(x):\n    return x * 2\n"),
    "aten/src/ATen/native/Conv.cpp": (
        "namespace at { namespace native {\n"
        "void conv_forward() {\n"
        "  cudnnConvolutionForward(handle);\n"
        "}\n"
        "void conv() {\n"
        "  conv_forward();\n"
        "}\n"
        "}}\n"
    ),
}

COMMANDS = {
    "index": ["index"],
    "search": ["search", "conv"],
    "show": ["show", "pkg.ops.scale"],
    "trace": ["trace", "pkg.model.forward", "--to", "double"],
    "callers": ["callers", "cudnnConvolutionForward", "--depth", "2"],
    "callees": ["callees", "at::native::conv"],
    "callgraph": ["callgraph"],
}


def _truncate(path: Path) -> None:
    os.truncate(path, path.stat().st_size // 2)


def _overwrite_header(path: Path) -> None:
    with open(path, "r+b") as handle:
        handle.write(b"not an index, just bytes" * 4)


def _overwrite_middle_pages(path: Path) -> None:
    size = path.stat().st_size
    with open(path, "r+b") as handle:
        handle.seek(size // 2 // 4096 * 4096)
        handle.write(random.Random(7).randbytes(3 * 4096))


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _sql(statement: str) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        with sqlite3.connect(path) as db:
            db.execute(statement)
        db.close()

    return damage


DAMAGE = {
    "truncated": (_truncate, "index file corrupt (database disk image is malformed)"),
    "header overwritten": (_overwrite_header, "index file corrupt (file is not a database)"),
    "pages overwritten": (_overwrite_middle_pages, "index file corrupt ("),
    "emptied": (_empty, f"index format 0 is not {SCHEMA_VERSION}"),
    "table dropped": (_sql("DROP TABLE calls"), "index file corrupt (its content changed since explorer wrote it)"),
    "rows deleted": (
        _sql("DELETE FROM symbols WHERE name = 'scale'"),
        "index file corrupt (its content changed since explorer wrote it)",
    ),
}


def run(root: Path, index: Path, command: str):
    result = invoke([*COMMANDS[command], "--root", str(root), "--index", str(index)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tree(tmp_path_factory.mktemp("integrity") / "tree", TREE)


@pytest.fixture(scope="module")
def clean_output(tree: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    index = tmp_path_factory.mktemp("clean") / "index.sqlite"
    outputs = {"index": run(tree, index, "index").stdout}  # a first build, as a rebuild prints
    for command in COMMANDS:
        if command == "index":
            continue
        result = run(tree, index, command)
        assert (result.exit_code, result.stderr) == (0, ""), command
        outputs[command] = result.stdout
    return outputs


def _same_run(output: str) -> str:
    """Output less what differs between two good runs: `index` prints its time and file."""
    return re.sub(r" in [0-9.]+s$|^Index: .*$", "", output, flags=re.M)


def test_the_clean_answers_are_the_ones_expected(clean_output: dict[str, str]):
    assert "pkg.model.forward  pkg/model.py:3" in clean_output["trace"]
    assert "pkg.ops.double  pkg/ops.py:4  ← call, at pkg/ops.py:2" in clean_output["trace"]
    assert "at::native::conv_forward" in clean_output["callers"]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("damage", DAMAGE)
def test_every_command_rebuilds_a_damaged_index_and_answers_as_from_a_clean_one(
    tree: Path, tmp_path: Path, clean_output: dict[str, str], damage: str, command: str
):
    index = tmp_path / "index.sqlite"
    assert run(tree, index, "index").exit_code == 0
    harm, reason = DAMAGE[damage]
    harm(index)

    result = run(tree, index, command)
    assert result.exit_code == 0
    assert _same_run(result.stdout) == _same_run(clean_output[command])
    assert result.stderr.startswith(f"note: index rebuilt ({reason}")
    assert result.stderr.count("\n") == 1

    again = run(tree, index, command)
    assert (again.exit_code, again.stderr) == (0, "")  # healed for good


def test_random_damage_is_always_healed_or_refused_in_one_line(
    tree: Path, tmp_path: Path, clean_output: dict[str, str]
):
    index = tmp_path / "index.sqlite"
    chance = random.Random(2026)
    outcomes = {"healed": 0, "unharmed": 0}
    for _ in range(25):
        assert run(tree, index, "index").exit_code == 0
        data = bytearray(index.read_bytes())
        for _ in range(chance.randint(1, 4)):
            start = chance.randrange(len(data))
            length = chance.choice([1, 16, 512, 4096])
            data[start : start + length] = chance.randbytes(min(length, len(data) - start))
        index.write_bytes(bytes(data))

        result = run(tree, index, "search")
        assert result.exit_code == 0 and result.stdout == clean_output["search"]
        if result.stderr:
            assert result.stderr.startswith("note: index rebuilt (") and result.stderr.count("\n") == 1
            outcomes["healed"] += 1
        else:
            outcomes["unharmed"] += 1
    # every change of the file's bytes is noticed (its stat changed): none is served unchecked
    assert outcomes == {"healed": 25, "unharmed": 0}


def test_an_index_damaged_after_its_check_says_what_happens_next(tree: Path, tmp_path: Path):
    from explorer.index.store import IndexStore

    index = tmp_path / "index.sqlite"
    run(tree, index, "index")
    original = IndexStore.open

    def open_then_break(path: Path) -> IndexStore:
        store = original(path)
        store.db.execute("DROP TABLE names")  # as if damaged between the check and the query
        return store

    IndexStore.open = open_then_break  # type: ignore[method-assign]
    try:
        result = run(tree, index, "search")
    finally:
        IndexStore.open = original  # type: ignore[method-assign]
    assert result.exit_code == 1
    assert (
        result.stderr
        == f"error: the index at {index} is damaged (no such table: names); the next command checks and rebuilds it\n"
    )
    healed = run(tree, index, "search")
    assert (
        healed.exit_code == 0
        and healed.stderr == "note: index rebuilt (index file corrupt (its content changed since explorer wrote it))\n"
    )


def _damaged_while_read(index: Path, monkeypatch: pytest.MonkeyPatch, method: str) -> None:
    """The index at `index` fails `method` as a damaged page does: damaged after its checks
    passed, by the time the read comes."""
    from explorer.index.store import IndexStore

    original = getattr(IndexStore, method)

    def damaged(store: IndexStore, *args: object) -> object:
        if store.path == index:
            raise sqlite3.DatabaseError("database disk image is malformed")
        return original(store, *args)

    monkeypatch.setattr(IndexStore, method, damaged)


@pytest.mark.parametrize(
    "method", ["imported_top_level", "names_with_prefix"], ids=["read while the trees open", "read by the query"]
)
def test_a_tree_s_index_damaged_after_its_check_is_not_blamed_on_another(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, method: str
):
    # the project's index fails a read while a source tree joined with --tree is open beside
    # it: a read across both does not say which failed, so the error names neither and every
    # index of the command is checked again next time. Read while the trees were opened, it
    # once named the last index opened (the joined tree's), and only that one was checked again.
    other = write_tree(tmp_path / "other", {"lib/util.py": "def helper():\n    return 1\n"})
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    index = tmp_path / "index.sqlite"
    command = ["search", "conv", "--root", str(tree), "--index", str(index), "--tree", str(other)]
    assert invoke(command).exit_code == 0
    with monkeypatch.context() as damaging:
        _damaged_while_read(index, damaging, method)
        result = invoke(command)
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        "error: one of the trees' indexes is damaged (database disk image is malformed); "
        "the next command checks and rebuilds it\n"
    )
    # both are checked again and, their records forgotten, rebuilt: nothing said which failed
    healed = invoke(command)
    assert healed.exit_code == 0
    assert healed.stderr == (
        "note: index rebuilt (index file corrupt (its content changed since explorer wrote it))\n"
        f"note: index of {other} rebuilt (index file corrupt (its content changed since explorer wrote it))\n"
    )


def test_an_index_touched_or_copied_with_its_record_is_used_as_it_is(
    tree: Path, tmp_path: Path, clean_output: dict[str, str]
):
    index = tmp_path / "index.sqlite"
    run(tree, index, "index")
    os.utime(index, ns=(0, 0))  # the stat changes, the bytes do not
    result = run(tree, index, "search")
    assert (result.exit_code, result.stderr, result.stdout) == (0, "", clean_output["search"])

    copy = tmp_path / "copy.sqlite"
    copy.write_bytes(index.read_bytes())
    Path(f"{copy}.verified").write_bytes(Path(f"{index}.verified").read_bytes())
    result = run(tree, copy, "search")
    assert (result.exit_code, result.stderr, result.stdout) == (0, "", clean_output["search"])


def test_an_unchanged_index_is_not_read_through_again(tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Reading a WAL-mode file leaves an empty WAL beside it; that is no change to the index,
    so a second command trusts its record instead of reading every byte again."""
    index = tmp_path / "index.sqlite"
    run(tree, index, "index")
    assert run(tree, index, "search").exit_code == 0

    def read_through(path: Path) -> int:
        raise AssertionError(f"{path} read through again")

    monkeypatch.setattr(disk, "file_checksum", read_through)
    result = run(tree, index, "search")
    assert (result.exit_code, result.stderr) == (0, "")
