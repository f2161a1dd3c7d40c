"""The remembered walk (index/listing.py) finds exactly what a full walk finds, after the tree
is changed in every way a tree changes; and when nothing that decides it changed, it walks
nothing. A refresh built on it holds what a new index holds, and when nothing changed it does
not even open the index."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from explorer.index import build as build_module
from explorer.index import listing as listing_module
from explorer.index.build import refresh
from explorer.index.disk import record_verified
from explorer.index.files import WalkOptions, walk
from explorer.index.listing import walk_remembered
from tests.command_line import invoke
from tests.conftest import index_contents


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "mod.py").write_text("def f():\n    return 1\n")
    (root / "pkg" / "sub" / "k.cu").write_text("__global__ void k() {}\n")
    (root / "csrc").mkdir()
    (root / "csrc" / "a.cpp").write_text("int a() { return 0; }\n")
    (root / "third_party" / "lib").mkdir(parents=True)
    (root / "third_party" / "lib" / "v.cpp").write_text("int v() { return 0; }\n")
    (root / "big.py").write_text("x = 1\n")
    return root


def mutations(root: Path):
    """Each a change to the tree, named."""
    yield "content rewritten, same size", lambda: (root / "pkg" / "mod.py").write_text("def g():\n    return 2\n")
    yield "content appended", lambda: (root / "csrc" / "a.cpp").write_text("int a() { return 0; }\nint b();\n")
    yield "file added", lambda: (root / "csrc" / "b.cpp").write_text("int b() { return 1; }\n")
    yield "folder with a file added", lambda: ((root / "new").mkdir(), (root / "new" / "n.py").write_text("n = 1\n"))
    yield "file deleted", lambda: (root / "csrc" / "b.cpp").unlink()
    yield "folder deleted", lambda: shutil.rmtree(root / "new")
    yield "file renamed", lambda: (root / "pkg" / "mod.py").rename(root / "pkg" / "renamed.py")
    yield "folder renamed", lambda: (root / "pkg" / "sub").rename(root / "pkg" / "moved")
    yield "file of another language", lambda: (root / "pkg" / "notes.txt").write_text("not indexed\n")
    yield ".gitignore added", lambda: (root / "pkg" / ".gitignore").write_text("renamed.py\n")
    yield ".gitignore edited in place", lambda: _append(root / "pkg" / ".gitignore", "moved/\n")
    yield ".gitignore emptied", lambda: (root / "pkg" / ".gitignore").write_text("")
    yield ".gitignore removed", lambda: (root / "pkg" / ".gitignore").unlink()
    yield "file grown past the size limit", lambda: (root / "big.py").write_text("x = 1\n" * 100)
    yield "file shrunk under the limit", lambda: (root / "big.py").write_text("x = 2\n")
    yield "symlink to a file added", lambda: (root / "link.py").symlink_to(root / "big.py")
    yield "broken symlink added", lambda: (root / "dangling.py").symlink_to(root / "nowhere.py")
    yield "broken symlink mended", lambda: (root / "nowhere.py").write_text("y = 1\n")
    yield (
        "file replaced by a folder",
        lambda: ((root / "big.py").unlink(), (root / "big.py").mkdir(), (root / "big.py" / "z.py").write_text("")),
    )
    yield "deep file changed", lambda: (root / "pkg" / "moved" / "k.cu").write_text("__global__ void k2() {}\n")
    yield "folder made a virtual environment", lambda: (root / "csrc" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    yield "virtual environment made an ordinary folder again", lambda: (root / "csrc" / "pyvenv.cfg").unlink()


def _append(path: Path, text: str) -> None:
    with open(path, "a") as handle:
        handle.write(text)


def test_the_remembered_walk_sees_every_change(tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(listing_module, "RACY_NS", 0)  # each change below comes a clock tick after the walk
    options = WalkOptions(max_file_size=200)
    kept = tmp_path / "index.listing"
    assert walk_remembered(str(tree), options, frozenset(), kept) == walk(str(tree), options)
    for name, change in mutations(tree):
        time.sleep(0.02)
        change()
        assert walk_remembered(str(tree), options, frozenset(), kept) == walk(str(tree), options), name
    # other options, or a folder another tree takes, are another walk
    for other, leave_out in ((WalkOptions(include_third_party=True), frozenset()), (options, frozenset({"pkg"}))):
        assert walk_remembered(str(tree), other, leave_out, kept) == walk(str(tree), other, leave_out)


def test_when_nothing_changed_nothing_is_walked(tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(listing_module, "RACY_NS", 0)
    kept = tmp_path / "index.listing"
    first = walk_remembered(str(tree), WalkOptions(), frozenset(), kept)
    time.sleep(0.02)
    (tree / "pkg" / "mod.py").write_text("def f():\n    return 3\n")  # a file's content: its folder is unchanged
    walks: list[str] = []
    monkeypatch.setattr(listing_module, "walk", lambda *args: walks.append("walked") or walk(*args))
    again = walk_remembered(str(tree), WalkOptions(), frozenset(), kept)
    assert walks == [] and [s.path for s in again[0]] == [s.path for s in first[0]]
    changed = {s.path for s, before in zip(again[0], first[0]) if s != before}
    assert changed == {"pkg/mod.py"}  # its new stat is read, so the refresh parses it


def test_a_listing_written_just_after_a_change_is_not_trusted(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """A folder whose time is within the racy window of the walk may change again in the same
    clock tick unseen: the next check walks again."""
    kept = tmp_path / "index.listing"
    walk_remembered(str(tree), WalkOptions(), frozenset(), kept)
    walks: list[str] = []
    monkeypatch.setattr(listing_module, "walk", lambda *args: walks.append("walked") or walk(*args))
    walk_remembered(str(tree), WalkOptions(), frozenset(), kept)
    assert walks == ["walked"]


def test_an_unreadable_listing_means_a_full_walk(tree: Path, tmp_path: Path):
    kept = tmp_path / "index.listing"
    kept.write_text("{not json")
    assert walk_remembered(str(tree), WalkOptions(), frozenset(), kept) == walk(str(tree), WalkOptions())


def test_a_refresh_after_any_change_holds_what_a_new_index_holds(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The freshness check a query makes (`refresh` with no options) answers "nothing changed"
    from the listing alone; after every change of `mutations` it still brings the index to
    exactly what indexing the tree from nothing gives."""
    monkeypatch.setattr(listing_module, "RACY_NS", 0)
    index = tmp_path / "index.sqlite"
    refresh(str(tree), index, jobs=1, options=WalkOptions(max_file_size=200))
    for name, change in mutations(tree):
        time.sleep(0.02)
        change()
        report = refresh(str(tree), index, jobs=1)
        fresh = tmp_path / f"fresh-{len(name)}-{time.monotonic_ns()}.sqlite"
        refresh(str(tree), fresh, jobs=1, options=WalkOptions(max_file_size=200))
        assert index_contents(index) == index_contents(fresh), name
        assert report.stats.files == len(index_contents(fresh)[0]), name


def test_when_nothing_changed_the_index_is_not_opened(tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(listing_module, "RACY_NS", 0)
    index = tmp_path / "index.sqlite"
    first = refresh(str(tree), index, jobs=1)
    held = (first.stats, first.skipped, first.partial)  # read now, before anything else runs
    time.sleep(0.02)
    opened: list[Path] = []
    real_open = build_module.IndexStore.open
    monkeypatch.setattr(
        build_module.IndexStore, "open", staticmethod(lambda path: opened.append(path) or real_open(path))
    )
    again = refresh(str(tree), index, jobs=1)
    assert (again.parsed, again.unchanged, again.removed, opened) == (0, 5, 0, [])
    assert held[0].files == 5 and (again.stats, again.skipped, again.partial) == held  # read from the index when asked
    # written by another explorer since (its stat changed, and it was verified): compared file by file
    store = real_open(index)
    with store.transaction():
        store.set_meta("written elsewhere", "1")
    store.close()
    record_verified(index)
    opened.clear()
    third = refresh(str(tree), index, jobs=1)
    assert (opened, third.rebuilt_because, third.parsed, third.unchanged) == ([index], None, 0, 5)


def test_a_file_rewritten_in_the_clock_tick_it_was_read_in_is_read_again(tree: Path, tmp_path: Path):
    """On a file system whose times are coarse (a second on ext3, HFS+, some network mounts)
    a file written again just after a refresh read it keeps its size and time. A file changed
    that close to a refresh is compared by content at the next one."""
    index = tmp_path / "index.sqlite"
    module = tree / "pkg" / "mod.py"
    refresh(str(tree), index, jobs=1)  # mod.py was written just now: within RACY_NS of this refresh
    before = module.stat()
    module.write_text("def h():\n    return 1\n")  # the same size
    os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns))  # and, on a coarse clock, the same time
    report = refresh(str(tree), index, jobs=1)
    assert report.parsed == 1
    assert ("pkg/mod.py", "pkg.mod.h", "function", 1) in index_contents(index)[1]
    assert not any(qname == "pkg.mod.f" for _, qname, _, _ in index_contents(index)[1])


def test_an_index_rebuilt_from_corruption_keeps_the_options_it_was_made_with(tree: Path, tmp_path: Path):
    index = tmp_path / "index.sqlite"
    refresh(str(tree), index, jobs=1, options=WalkOptions(max_file_size=3))
    with open(index, "r+b") as handle:  # a page of the file overwritten
        handle.seek(4096)
        handle.write(b"\xff" * 4096)
    report = refresh(str(tree), index, jobs=1)
    assert report.rebuilt_because is not None and report.rebuilt_because.startswith("index file corrupt")
    assert [path for path, *_ in index_contents(index)[0]] == ["pkg/__init__.py"]  # the only file of at most 3 bytes


def test_the_index_report_says_which_folders_a_rule_left_out(tmp_path: Path):
    root = tmp_path / "project"
    files = {
        "src/model.py": "def f():\n    return 1\n",
        "build/gen.py": "x = 1\n",  # build output
        "third_party/lib/k.cpp": "void k() {}\n",  # vendored (no --include-third-party)
        "scratch/notes.py": "y = 2\n",  # ignored by the .gitignore below
        "env/pyvenv.cfg": "home = /usr/bin\n",  # a virtual environment under its own name
        "env/lib/site.py": "z = 3\n",
        ".gitignore": "scratch/\n",
        "src/__pycache__/model.cpython-311.pyc": "",  # always there: not listed
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    result = invoke(["index", "--root", str(root), "--index", str(tmp_path / "i.sqlite")])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[2] == (
        "Left out by rule: 4 folders (1 a virtual environment (its packages are read as installed trees where imported); "
        "1 build output or tool state; 1 ignored by .gitignore; 1 vendored third-party code (--include-third-party indexes "
        "it)) (--verbose lists them)"
    )
    verbose = invoke(["index", "--root", str(root), "--index", str(tmp_path / "i.sqlite"), "--verbose"])
    assert [line for line in verbose.stdout.splitlines() if line.startswith("  left out")] == [
        "  left out build/: build output or tool state",
        "  left out env/: a virtual environment (its packages are read as installed trees where imported)",
        "  left out scratch/: ignored by .gitignore",
        "  left out third_party/: vendored third-party code (--include-third-party indexes it)",
    ]
    included = invoke(
        ["index", "--root", str(root), "--index", str(tmp_path / "i.sqlite"), "--include-third-party", "--json"]
    )
    assert [entry["folder"] for entry in json.loads(included.stdout)["left_out"]] == ["build", "env", "scratch"]
