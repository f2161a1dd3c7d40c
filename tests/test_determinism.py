"""The index is a pure function of the tree: builds in one process, in several, and with the
files met in another order hold the same rows."""

from __future__ import annotations

import os
import random
import sqlite3
from pathlib import Path

import pytest

from explorer.folders import SAMPLE_ROOT
from explorer.index import build
from explorer.index.build import refresh


def index_content(index: Path) -> dict[str, list[tuple]]:
    """Every row of every table, with file ids replaced by paths and rowids left out: what
    two builds of the same tree must agree on."""
    with sqlite3.connect(index) as db:
        paths = dict(db.execute("SELECT id, path FROM files"))
        content: dict[str, list[tuple]] = {}
        for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
            columns = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
            rows = []
            for row in db.execute(f"SELECT * FROM {table}"):
                record = dict(zip(columns, row))
                for ids in ("file_id", "id"):
                    if ids in record and (table == "files" or ids == "file_id"):
                        record[ids] = paths.get(record[ids])
                record.pop("calls_first", None)
                if table == "symbols":
                    record.pop("id")
                rows.append(tuple(sorted(record.items(), key=lambda item: item[0])))
            content[table] = sorted(rows, key=repr)
    content["meta"] = [row for row in content["meta"] if dict(row)["key"] != "walk_options"]
    return content


def test_builds_in_one_process_in_several_and_in_another_order_are_identical(tmp_path: Path, monkeypatch):
    serial = tmp_path / "serial.sqlite"
    refresh(str(SAMPLE_ROOT), serial, jobs=1)
    parallel = tmp_path / "parallel.sqlite"
    monkeypatch.setattr(build, "_PARALLEL_THRESHOLD", 1)
    refresh(str(SAMPLE_ROOT), parallel, jobs=2)

    walk = build.walk_remembered  # the walk a refresh makes

    def shuffled_walk(*args, **kwargs):
        found, skipped = walk(*args, **kwargs)
        random.Random(11).shuffle(found)
        shuffled.append(len(found))
        return found, skipped

    shuffled: list[int] = []
    monkeypatch.setattr(build, "walk_remembered", shuffled_walk)
    reordered = tmp_path / "reordered.sqlite"
    refresh(str(SAMPLE_ROOT), reordered, jobs=1)

    assert shuffled == [209]
    expected = index_content(serial)
    assert len(expected["symbols"]) == 2616 and len(expected["calls"]) == 5621
    assert index_content(parallel) == expected
    assert index_content(reordered) == expected


@pytest.mark.real_torch
def test_two_builds_of_the_real_tree_are_identical(tmp_path: Path):
    tree = os.environ.get("EXPLORER_REAL_TORCH")
    if not tree:
        pytest.skip("set EXPLORER_REAL_TORCH to a PyTorch 2.4.0 source tree")
    first, second = tmp_path / "first.sqlite", tmp_path / "second.sqlite"
    refresh(tree, first, jobs=2)
    refresh(tree, second, jobs=2)
    assert index_content(first) == index_content(second)
