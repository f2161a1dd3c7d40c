"""`--index PATH` may name any file: explorer builds over it only where it is explorer's own
index (recognised by content), and refuses anything else with one line, changing nothing.
Paths with `#`, `?` and `%` in them are paths like any other."""

from __future__ import annotations

import json
import sqlite3
import time

from tests.command_line import invoke
from tests.conftest import write_tree

_TREE = {"pkg/mod.py": "def f():\n    return 1\n"}


def index(root, path, *more: str):
    result = invoke(["index", "--root", str(root), "--index", str(path), *more])
    assert "Traceback" not in result.output
    return result


def test_a_file_that_is_not_an_index_is_never_built_over(tmp_path):
    root = write_tree(tmp_path / "tree", _TREE)
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    result = index(root, notes)
    assert result.exit_code != 0
    assert result.stderr.strip() == (
        f"error: not replacing {notes} with an index: it is not an SQLite database; remove it or name another --index file"
    )
    assert notes.read_text() == "my notes\n"
    assert index(root, notes, "--rebuild").exit_code != 0 and notes.read_text() == "my notes\n"


def test_a_users_own_database_is_never_built_over(tmp_path):
    root = write_tree(tmp_path / "tree", _TREE)
    mine = tmp_path / "mine.db"
    with sqlite3.connect(mine) as connection:
        connection.execute("CREATE TABLE people (name TEXT)")
        connection.execute("INSERT INTO people VALUES ('ada')")
    connection.close()
    before = mine.read_bytes()
    result = index(root, mine)
    assert result.exit_code != 0
    assert "it is an SQLite database that is not an explorer index" in result.stderr
    assert mine.read_bytes() == before


def test_a_folder_is_refused(tmp_path):
    root = write_tree(tmp_path / "tree", _TREE)
    folder = tmp_path / "folder"
    folder.mkdir()
    result = index(root, folder)
    assert result.exit_code != 0 and "it is a folder" in result.stderr
    assert list(folder.iterdir()) == []


def test_explorers_own_index_is_refreshed_and_rebuilt_there(tmp_path):
    root = write_tree(tmp_path / "tree", _TREE)
    path = tmp_path / "my.sqlite"
    assert index(root, path).exit_code == 0
    assert index(root, path).exit_code == 0
    assert index(root, path, "--rebuild").exit_code == 0
    # an index of another format version is still explorer's: rebuilt, said so
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA user_version = 3")
    connection.close()
    again = index(root, path)
    assert again.exit_code == 0 and "index format 3 is not" in again.output
    # an empty file holds nothing to lose
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    assert index(root, empty).exit_code == 0 and empty.stat().st_size > 0


def test_a_damaged_index_explorer_wrote_is_rebuilt_an_unknown_one_refused(tmp_path):
    root = write_tree(tmp_path / "tree", _TREE)
    path = tmp_path / "my.sqlite"
    assert index(root, path).exit_code == 0
    damaged = bytearray(path.read_bytes())
    damaged[100:4096] = b"\xff" * (4096 - 100)  # the schema's page: SQLite cannot read the file
    path.write_bytes(bytes(damaged))
    rebuilt = index(root, path)
    assert rebuilt.exit_code == 0, rebuilt.output  # its .verified record says explorer wrote it
    assert invoke(["search", "f", "--root", str(root), "--index", str(path)]).exit_code == 0
    # the same damage with no record beside it: nothing says the file is explorer's
    path.write_bytes(bytes(damaged))
    (tmp_path / "my.sqlite.verified").unlink()
    refused = index(root, path)
    assert refused.exit_code != 0 and "explorer cannot read" in refused.stderr
    assert path.read_bytes() == bytes(damaged)


def test_hash_question_mark_and_percent_in_the_cache_path(tmp_path, monkeypatch):
    root = write_tree(tmp_path / "tree", _TREE)
    cache = tmp_path / "cache #1 ?x=%41"
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(cache))
    first = invoke(["search", "f", "--root", str(root)])
    assert first.exit_code == 0
    beside = sorted(path.name for path in tmp_path.iterdir())
    second = invoke(["search", "f", "--root", str(root)])
    assert second.exit_code == 0 and second.stderr == ""  # no "index rebuilt (...)"
    assert sorted(path.name for path in tmp_path.iterdir()) == beside == ["cache #1 ?x=%41", "tree"]


def test_a_cache_folder_that_cannot_be_written_is_read_as_it_is(tmp_path, monkeypatch):
    # A read-only mount or a folder of another user: simulated, since the tests may run as
    # root, whom neither permissions nor (in a container) a mount's flags stop. The folder
    # refuses the writer's lock file, as such a folder does, and reports itself unwritable.
    import errno

    from explorer.index import build, disk, store

    root = write_tree(tmp_path / "tree", _TREE)
    time.sleep(2.1)  # past the racy window (index/listing.py): the listing may vouch for the tree unchanged
    cache = tmp_path / "cache"
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(cache))
    assert invoke(["index", "--root", str(root)]).exit_code == 0

    def refused(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(build, "writer_lock", refused)
    for module in (store, disk):
        monkeypatch.setattr(module, "is_read_only_folder", lambda path: path.parent == cache)
    answered = invoke(["show", "pkg.mod.f", "--root", str(root)])
    assert (answered.exit_code, answered.stderr) == (0, "")
    assert "defined at pkg/mod.py:1" in answered.stdout
    # the tree changed since: answered from the index as it was, and said so
    (root / "pkg" / "mod.py").write_text("def f():\n    return 1\n\n\ndef g():\n    return 2\n")
    stale = invoke(["search", "g", "--root", str(root)])
    assert stale.exit_code == 0
    assert (
        stale.stderr
        == f"note: index not refreshed: {cache} cannot be written (Read-only file system); answering from it as it was, which may not be the tree as it is now\n"
    )
    # another tree, never indexed there: nothing to answer from
    other = write_tree(tmp_path / "other", _TREE)
    missing = invoke(["search", "f", "--root", str(other)])
    assert missing.exit_code == 1
    assert missing.stderr == (
        f"error: no usable index of {other} in {cache}, which cannot be written (Read-only file system); "
        "set EXPLORER_CACHE_DIR to a folder explorer may write\n"
    )


def test_walk_options_stick_until_changed(tmp_path):
    # the language server refreshes with a plain `explorer index`: that must not drop what
    # the user indexed with (--include-third-party, --max-file-size)
    root = write_tree(
        tmp_path / "tree",
        {
            "pkg/mod.py": "def f():\n    return 1\n",
            "third_party/lib/vendored.py": "def v():\n    return 2\n",
            "pkg/big.py": "def big():\n    return 3\n" + "# padding\n" * 400,
        },
    )
    path = tmp_path / "index.sqlite"

    def found() -> list[str]:
        result = invoke(["search", "v", "--root", str(root), "--index", str(path), "--json"])
        return sorted(hit["symbol"] for hit in json.loads(result.stdout))

    def files() -> int:
        result = index(root, path)
        assert result.exit_code == 0
        return int(result.stdout.split()[1])  # "Indexed N files (...)"

    assert index(root, path, "--include-third-party", "--max-file-size", "1000").exit_code == 0
    assert files() == 2  # mod.py and vendored.py; big.py over 1000 bytes
    assert "third_party.lib.vendored.v" in found()
    assert index(root, path, "--max-file-size", "100000").exit_code == 0  # one option changed, the other kept
    assert files() == 3
    assert index(root, path, "--no-include-third-party").exit_code == 0
    assert files() == 2 and "third_party.lib.vendored.v" not in found()
