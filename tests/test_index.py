"""The index: incremental refresh, what is skipped and why, and surviving bad index files."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from explorer.errors import ExplorerError
from explorer.index.build import refresh
from explorer.index.files import WalkOptions
from explorer.index.schema import SCHEMA_VERSION
from explorer.index.store import IndexStore
from explorer.parsers.python import parse_python
from tests.conftest import touch_later, write_tree

PYTHON = "import os\n\ndef helper():\n    return os.getcwd()\n"
CPP = "namespace at { namespace native {\nint add(int a, int b) { return a + b; }\n}}\n"
YAML = "- func: relu(Tensor self) -> Tensor\n  dispatch:\n    CPU: relu\n"


def small_tree(root: Path) -> Path:
    return write_tree(
        root,
        {
            "pkg/__init__.py": "",
            "pkg/mod.py": PYTHON,
            "aten/src/ATen/native/Add.cpp": CPP,
            "aten/src/ATen/native/native_functions.yaml": YAML,
            "README.md": "not source",
        },
    )


def qnames(index_path: Path, root: Path) -> set[str]:
    store = IndexStore.open(index_path)
    try:
        return {row[0] for row in store.db.execute("SELECT qname FROM symbols")}
    finally:
        store.close()


def test_a_small_trees_summary_says_what_it_may_define_and_which_kinds_it_holds(tmp_path: Path):
    """Read from one meta row: a query skips the trees that cannot answer (an installed package
    holds no pybind11 binding) without asking them."""
    from explorer.index.store import SmallTree

    root = small_tree(tmp_path / "tree")
    index_path = tmp_path / "index.sqlite"
    refresh(str(root), index_path, jobs=1)
    store = IndexStore.open(index_path)
    try:
        expected = SmallTree(
            frozenset({"pkg", "at", "aten"}),
            frozenset({"relu"}),
            frozenset({"module", "function", "namespace", "operator"}),
        )
        assert store.small_tree() == expected
        # a summary kept before kinds were: worked out again from the symbols, the same
        store.set_meta("small_tree", '{"first_parts": ["pkg"], "operator_lnames": []}')
        assert store.small_tree() == expected
    finally:
        store.close()


def test_build_then_refresh_parses_only_what_changed(tmp_path: Path):
    root = small_tree(tmp_path / "tree")
    index_path = tmp_path / "index.sqlite"

    first = refresh(str(root), index_path, jobs=1)
    assert (first.parsed, first.unchanged, first.removed) == (4, 0, 0)
    assert first.stats.files == 4
    assert qnames(index_path, root) == {
        "pkg",
        "pkg.mod",
        "pkg.mod.helper",
        "at",
        "at::native",
        "at::native::add",
        "aten::relu",
    }

    again = refresh(str(root), index_path, jobs=1)
    assert (again.parsed, again.unchanged, again.removed) == (0, 4, 0)

    # an edited file is parsed again, alone
    (root / "pkg/mod.py").write_text(PYTHON + "\ndef second():\n    pass\n")
    touch_later(root / "pkg/mod.py")
    edited = refresh(str(root), index_path, jobs=1)
    assert (edited.parsed, edited.unchanged, edited.removed) == (1, 3, 0)
    assert "pkg.mod.second" in qnames(index_path, root)

    # a touched file with the same content is not parsed again
    touch_later(root / "pkg/mod.py")
    touched = refresh(str(root), index_path, jobs=1)
    assert (touched.parsed, touched.unchanged) == (0, 4)

    # added and removed files
    (root / "pkg/new.py").write_text("def fresh():\n    pass\n")
    (root / "aten/src/ATen/native/Add.cpp").unlink()
    changed = refresh(str(root), index_path, jobs=1)
    assert (changed.parsed, changed.removed) == (1, 1)
    names = qnames(index_path, root)
    assert "pkg.new.fresh" in names and "at::native::add" not in names


def test_parallel_and_serial_builds_store_the_same_rows(tmp_path: Path):
    files = {f"pkg/m{i}.py": f"def f{i}():\n    return g{i}(1)\n" for i in range(60)}
    root = write_tree(tmp_path / "tree", files)
    serial, parallel = tmp_path / "serial.sqlite", tmp_path / "parallel.sqlite"
    reports = [refresh(str(root), serial, jobs=1), refresh(str(root), parallel, jobs=2)]
    assert [(r.parsed, r.unchanged, r.stats.files) for r in reports] == [(60, 0, 60), (60, 0, 60)]

    def rows(path: Path, sql: str) -> list[tuple]:
        with sqlite3.connect(path) as db:
            return sorted(db.execute(sql))

    # (the parallel build's workers write shards that are merged at the end)
    for sql, count in (
        ("SELECT f.path, c.caller, c.callee, c.line FROM calls c JOIN files f ON f.id = c.file_id", 60),
        ("SELECT f.path, s.qname, s.kind, s.line FROM symbols s JOIN files f ON f.id = s.file_id", 120),
        ("SELECT path, size, hash FROM files", 60),
        ("SELECT lname, name FROM names", 120),
    ):
        assert rows(serial, sql) == rows(parallel, sql)
        assert len(rows(serial, sql)) == count
    assert not Path(f"{parallel}.shards").exists()
    # merging shifted each shard's call rows, and the files' ranges with them
    store = IndexStore.open(parallel)
    try:
        for i in (0, 31, 59):
            assert [(c.callee, c.line) for c in store.calls_in(f"pkg.m{i}.f{i}", f"pkg/m{i}.py")] == [(f"g{i}", 2)]
            assert [(path, c.caller, c.line) for path, c in store.call_sites_of(f"g{i}")] == [
                (f"pkg/m{i}.py", f"pkg.m{i}.f{i}", 2)
            ]
    finally:
        store.close()


def test_call_lookups_follow_edits(tmp_path: Path):
    root = write_tree(
        tmp_path / "tree",
        {
            "a.py": "def one():\n    helper()\n    other.helper(2)\n",
            "b.py": "def two():\n    x = 1\n    helper()\n",
            "c.cpp": "namespace at {\nvoid three() { at::native::helper(); }\n}\n",
        },
    )
    index_path = tmp_path / "index.sqlite"
    refresh(str(root), index_path, jobs=1)

    def sites() -> list[tuple[str, str, str, int]]:
        store = IndexStore.open(index_path)
        try:
            return [(path, c.caller, c.callee, c.line) for path, c in store.call_sites_of("helper")]
        finally:
            store.close()

    assert sites() == [
        ("a.py", "a.one", "helper", 2),
        ("a.py", "a.one", "other.helper", 3),
        ("b.py", "b.two", "helper", 3),
        ("c.cpp", "at::three", "at::native::helper", 2),
    ]
    (root / "a.py").write_text("def one():\n    pass\n")
    touch_later(root / "a.py")
    (root / "b.py").write_text("def two():\n    helper()\n    helper_too()\n")
    touch_later(root / "b.py")
    refresh(str(root), index_path, jobs=1)
    assert sites() == [("b.py", "b.two", "helper", 2), ("c.cpp", "at::three", "at::native::helper", 2)]
    store = IndexStore.open(index_path)
    try:
        assert [(c.callee, c.line) for c in store.calls_in("b.two", "b.py")] == [("helper", 2), ("helper_too", 3)]
        assert [(c.callee, c.line) for c in store.calls_in("at::three", "c.cpp")] == [("at::native::helper", 2)]
        # no file is still listed as calling a name it no longer calls
        assert sorted(store.db.execute("SELECT n.name, f.path FROM call_names n JOIN files f ON f.id = n.file_id")) == [
            ("helper", "b.py"),
            ("helper", "c.cpp"),
            ("helper_too", "b.py"),
        ]
        assert store.db.execute("SELECT COUNT(*) FROM call_names").fetchone()[0] == 3
    finally:
        store.close()


def test_bad_files_are_skipped_with_reasons_and_the_rest_is_indexed(tmp_path: Path):
    root = small_tree(tmp_path / "tree")
    write_tree(
        root,
        {
            "bad/syntax.py": "def ok():\n    pass\n\ndef broken(:\n",
            "bad/latin1.py": b"# caf\xe9\nx = 1\n",
            "bad/binary.cpp": b"\x7fELF\x00\x00\x01",
            "bad/empty.py": "",
            "bad/empty.cpp": "",
            "bad/huge.cpp": "int x;\n" * 40_000,
            "bad/native_functions.yaml": "- func: relu(Tensor self) -> Tensor\n  dispatch: [oops\n",
        },
    )
    os.symlink("loop_b.py", root / "bad/loop_a.py")
    os.symlink("loop_a.py", root / "bad/loop_b.py")
    os.symlink("missing.py", root / "bad/dangling.py")
    os.symlink(str(root / "pkg"), root / "bad/folder_link.py")
    os.mkfifo(root / "bad/pipe.py")

    report = refresh(str(root), tmp_path / "index.sqlite", jobs=1, options=WalkOptions(max_file_size=100_000))
    skipped = [(d.path, d.reason) for d in report.skipped]
    yaml_path, yaml_reason = skipped.pop(7)
    # the YAML loader words the problem; the line number is ours
    assert yaml_path == "bad/native_functions.yaml" and yaml_reason.startswith("invalid YAML at line 3: ")
    assert skipped == [
        ("bad/binary.cpp", "binary content"),
        ("bad/dangling.py", "broken symlink"),
        ("bad/folder_link.py", "symlink to a folder, not followed"),
        ("bad/huge.cpp", "larger than the 0.1 MiB limit (0.3 MiB)"),
        ("bad/latin1.py", "not valid UTF-8 (byte 5)"),
        ("bad/loop_a.py", "symlink loop"),
        ("bad/loop_b.py", "symlink loop"),
        ("bad/pipe.py", "not a regular file"),
    ]
    [problem] = report.partial
    assert problem.path == "bad/syntax.py" and problem.reason.startswith("syntax error at line 4: ")
    names = qnames(tmp_path / "index.sqlite", root)
    assert {"pkg.mod.helper", "at::native::add", "aten::relu", "bad.syntax.ok", "bad.empty"} <= names


def test_unreadable_files_are_skipped(tmp_path: Path):
    # root reads every file whatever its mode: index as an ordinary user then, in a forked
    # child (no new interpreter to start), in a folder that user may enter.
    shared = Path(tempfile.mkdtemp(prefix="explorer-unreadable-"))
    try:
        shared.chmod(0o777)
        root = small_tree(shared / "tree")
        secret = root / "pkg/secret.py"
        secret.write_text("x = 1\n")
        secret.chmod(0)
        for path in [root, *root.rglob("*")]:
            if path.is_dir():
                path.chmod(0o777)
        parse_python("warm.py", b"f(x)\n")  # load grammar and queries before giving up root
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # child
            try:
                if os.geteuid() == 0:
                    os.setgid(65534)
                    os.setuid(65534)
                report = refresh(str(root), shared / "index.sqlite", jobs=1)
                os.write(write_end, repr([(d.path, d.reason) for d in report.skipped]).encode())
            finally:
                os._exit(0)
        os.close(write_end)
        with os.fdopen(read_end) as pipe:
            said = pipe.read()
        os.waitpid(pid, 0)
        assert said == "[('pkg/secret.py', 'permission denied')]"
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def test_gitignore_build_output_and_third_party_are_left_out(tmp_path: Path):
    root = write_tree(
        tmp_path / "tree",
        {
            ".gitignore": "generated/\n*.gen.py\n!keep.gen.py\n",
            "src/a.py": "",
            "src/b.gen.py": "",
            "src/keep.gen.py": "",
            "generated/c.py": "",
            "build/d.py": "",
            "third_party/cudnn/e.h": "void e();\n",
            "sub/.gitignore": "local.py\n",
            "sub/local.py": "",
            "sub/kept.py": "",
        },
    )
    report = refresh(str(root), tmp_path / "index.sqlite", jobs=1)
    store = IndexStore.open(tmp_path / "index.sqlite")
    assert [p for (p,) in store.db.execute("SELECT path FROM files ORDER BY path")] == [
        "src/a.py",
        "src/keep.gen.py",
        "sub/kept.py",
    ]
    store.close()
    assert report.skipped == []

    with_vendor = refresh(str(root), tmp_path / "index.sqlite", jobs=1, options=WalkOptions(include_third_party=True))
    assert with_vendor.parsed == 1
    # the choice sticks for later refreshes that do not say
    assert refresh(str(root), tmp_path / "index.sqlite", jobs=1).stats.files == 4


def test_indexing_never_runs_code_from_the_tree(tmp_path: Path):
    marker = tmp_path / "ran"
    root = write_tree(
        tmp_path / "tree",
        {
            "setup.py": f"open({str(marker)!r}, 'w').write('x')\n",
            "pkg/__init__.py": f"import os\nos.system('touch {marker}')\n",
            "aten/src/ATen/native/native_functions.yaml": f"- func: !!python/object/apply:os.system ['touch {marker}']\n",
        },
    )
    refresh(str(root), tmp_path / "index.sqlite", jobs=1)
    assert not marker.exists()


def test_a_corrupt_index_file_is_rebuilt(tmp_path: Path):
    root = small_tree(tmp_path / "tree")
    index_path = tmp_path / "index.sqlite"
    refresh(str(root), index_path, jobs=1)
    index_path.write_bytes(b"this is not a database" * 100)  # explorer's file (its .verified record says so), damaged
    report = refresh(str(root), index_path, jobs=1)
    assert (
        report.rebuilt_because is not None and report.rebuilt_because == "index file corrupt (file is not a database)"
    )
    assert report.stats.files == 4


def test_a_file_explorer_did_not_write_is_not_rebuilt_over(tmp_path: Path):
    root = small_tree(tmp_path / "tree")
    index_path = tmp_path / "index.sqlite"
    index_path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(ExplorerError, match="it is not an SQLite database"):
        refresh(str(root), index_path, jobs=1)
    assert index_path.read_bytes() == b"this is not a database" * 100


def test_an_index_of_another_version_or_tree_is_rebuilt(tmp_path: Path):
    root = small_tree(tmp_path / "tree")
    index_path = tmp_path / "index.sqlite"
    refresh(str(root), index_path, jobs=1)
    with sqlite3.connect(index_path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION - 1}")
    report = refresh(str(root), index_path, jobs=1)
    assert report.rebuilt_because == f"index format {SCHEMA_VERSION - 1} is not {SCHEMA_VERSION}"
    assert report.parsed == 4

    other = small_tree(tmp_path / "other")
    moved = refresh(str(other), index_path, jobs=1)
    assert moved.rebuilt_because == "index belongs to another tree"


INDEX_FOREVER = """
import sys, time
from pathlib import Path
import explorer.parsers as parsers
from explorer.index import build
slow = parsers.parse_file
def parse_slowly(*args):
    time.sleep(0.02)
    return slow(*args)
build.parse_file = parse_slowly
build._BATCH = 5
build.refresh(sys.argv[1], Path(sys.argv[2]), jobs=1)
"""


def _start_slow_indexer(root: Path, index_path: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", INDEX_FOREVER, str(root), str(index_path)], cwd=Path(__file__).parent.parent
    )


def _kill_when(process: subprocess.Popen, database: Path, sql: str, at_least: int) -> None:
    """Kill the indexer without warning once `sql` counts `at_least` rows in `database`."""
    for _ in range(400):
        if database.exists():
            try:
                with sqlite3.connect(database) as db:
                    if db.execute(sql).fetchone()[0] >= at_least:
                        break
            except sqlite3.DatabaseError:
                pass
        time.sleep(0.05)
    process.kill()
    process.wait()


def test_a_first_build_killed_midway_leaves_no_index_and_the_next_run_builds_it(tmp_path: Path):
    files = {f"pkg/m{i:03}.py": f"def f{i}():\n    pass\n" for i in range(200)}
    root = write_tree(tmp_path / "tree", files)
    index_path = tmp_path / "index.sqlite"
    process = _start_slow_indexer(root, index_path)
    _kill_when(process, Path(f"{index_path}.building"), "SELECT COUNT(*) FROM files", 20)
    assert not index_path.exists()  # nothing half-built is ever in use

    report = refresh(str(root), index_path, jobs=1)
    assert (report.parsed, report.stats.files, report.stats.symbols) == (200, 200, 400)


def test_a_refresh_killed_midway_is_consistent_and_completed_next_time(tmp_path: Path):
    files = {f"pkg/m{i:03}.py": f"def old{i}():\n    pass\n" for i in range(200)}
    root = write_tree(tmp_path / "tree", files)
    index_path = tmp_path / "index.sqlite"
    refresh(str(root), index_path, jobs=1)
    for i in range(200):
        path = root / f"pkg/m{i:03}.py"
        path.write_text(f"def new{i}():\n    pass\n")
        touch_later(path)

    process = _start_slow_indexer(root, index_path)
    _kill_when(process, index_path, "SELECT COUNT(*) FROM symbols WHERE name LIKE 'new%'", 20)

    with sqlite3.connect(index_path) as db:
        assert db.execute("SELECT COUNT(*) FROM files").fetchone()[0] == 200
        # every file has exactly its module and one function: none half-written, none lost
        per_file = db.execute("SELECT COUNT(*) FROM symbols WHERE file_id IS NOT NULL GROUP BY file_id").fetchall()
        assert per_file == [(2,)] * 200
        renewed = db.execute("SELECT COUNT(*) FROM symbols WHERE name LIKE 'new%'").fetchone()[0]
    assert 20 <= renewed < 200

    report = refresh(str(root), index_path, jobs=1)
    assert report.parsed == 200 - renewed
    with sqlite3.connect(index_path) as db:
        assert db.execute("SELECT COUNT(*) FROM symbols WHERE name LIKE 'new%'").fetchone()[0] == 200
        assert db.execute("SELECT COUNT(*) FROM symbols WHERE name LIKE 'old%'").fetchone()[0] == 0


def test_two_indexers_at_once_leave_one_consistent_index(tmp_path: Path):
    files = {f"pkg/m{i:03}.py": f"def f{i}():\n    return g(1)\n" for i in range(150)}
    root = write_tree(tmp_path / "tree", files)
    index_path = tmp_path / "index.sqlite"
    code = (
        "import sys; from pathlib import Path; from explorer.index.build import refresh; "
        "r = refresh(sys.argv[1], Path(sys.argv[2]), jobs=1); print(r.stats.files, r.stats.symbols, r.stats.calls)"
    )
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(root), str(index_path)],
            stdout=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).parent.parent,
        )
        for _ in range(2)
    ]
    outputs = [run.communicate()[0].strip() for run in runs]
    assert [run.returncode for run in runs] == [0, 0]
    assert outputs == ["150 300 150", "150 300 150"]


IGNORE_LINES = [
    "*.pyc",
    "build/",
    "/dist",
    "docs/src/**/*",
    "*/**/*.so*",
    "GRTAGS",
    "aten/build/",
    ".coverage.*",
    "!keep.pyc",
    "torch/lib/tmp_*",
    "*.egg-info/",
    "sccache-stats*.json",
]


@pytest.mark.parametrize(
    "path, ignored",
    [
        ("a.pyc", True),
        ("pkg/a.pyc", True),
        ("pkg/keep.pyc", False),
        ("build/", True),
        ("x/build/", True),
        ("build", False),
        ("dist", True),
        ("pkg/dist", False),
        ("docs/src/a/b.py", True),
        ("docs/a.py", False),
        ("libx.so", False),
        ("lib/libx.so.1", True),
        ("GRTAGS", True),
        ("pkg/GRTAGS", True),
        ("aten/build/", True),
        ("x/aten/build/", True),
        ("aten/builds/", False),
        (".coverage.1", True),
        ("torch/lib/tmp_install/", True),
        ("torch/lib/x", False),
        ("explorer.egg-info/", True),
        ("sccache-stats-1.json", True),
        ("src/model.py", False),
    ],
)
def test_gitignore_matching_agrees_with_git_semantics(path, ignored):
    import pathspec

    from explorer.index.files import _GitIgnoreFile

    rules = _GitIgnoreFile(IGNORE_LINES)
    assert bool(rules.verdict(path)) is ignored
    # the fast matcher and pathspec's line-by-line reading agree
    assert bool(pathspec.GitIgnoreSpec.from_lines(IGNORE_LINES).check_file(path).include) is ignored


def test_a_file_that_could_not_be_read_is_read_again_when_it_can(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # Mending a file's permissions (or moving its folder back) changes neither its size nor
    # its time: a file skipped because it could not be read is tried at every refresh, and the
    # last walk does not vouch for the tree while one is. (Simulated: the tests may run as
    # root, whom permissions do not stop.)
    from explorer.index import build
    from explorer.index.disk import index_file_stamp
    from explorer.index.files import UnreadableFile
    from explorer.index.listing import unchanged_since_indexed

    root = small_tree(tmp_path / "tree")
    os.utime(root / "pkg" / "mod.py", (1_600_000_000, 1_600_000_000))  # long unchanged: no "racy" reading again
    index_path = tmp_path / "index.sqlite"
    real_read = build.read_source

    def refused(base: str, path: str, follow: bool = False):
        if path == "pkg/mod.py":
            raise UnreadableFile("permission denied")
        return real_read(base, path, follow)

    monkeypatch.setattr(build, "read_source", refused)
    first = refresh(str(root), index_path, jobs=1)
    assert [(d.path, d.reason) for d in first.skipped] == [("pkg/mod.py", "permission denied")]
    listing = Path(f"{index_path}.listing")
    assert unchanged_since_indexed(str(root), None, frozenset(), listing, index_file_stamp(index_path)) is None

    monkeypatch.setattr(build, "read_source", real_read)  # permissions mended; nothing else changed
    second = refresh(str(root), index_path, jobs=1)
    assert second.skipped == [] and second.parsed == 1
    assert "pkg.mod.helper" in qnames(index_path, root)
