"""The index has one door: explorer/index/__init__.py. Nothing outside index/ imports SQLite or
the index's own modules, and every name the door lists opens."""

from __future__ import annotations

import ast
from pathlib import Path

import explorer.index

PACKAGE = Path(explorer.index.__file__).resolve().parent.parent


def _imports(path: Path) -> list[tuple[str, int]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.extend((f"{node.module}.{alias.name}", node.lineno) for alias in node.names)
    return found


def test_nothing_outside_the_index_imports_sqlite_or_its_modules():
    through_the_wall = [
        f"{path.relative_to(PACKAGE.parent)}:{line} {name}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if "index" not in path.relative_to(PACKAGE).parts[:1]
        for name, line in _imports(path)
        if name.split(".")[0] == "sqlite3" or (name.startswith("explorer.index.") and name.count(".") > 2)
    ]
    assert through_the_wall == []


def test_every_name_of_the_door_opens():
    assert sorted(explorer.index.__all__) == sorted(explorer.index._HOME)
    for name in explorer.index.__all__:
        assert getattr(explorer.index, name).__name__ == name
