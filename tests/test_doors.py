"""Each room (index/, workspace/, names/, resolve/, analysis/) has one door, its package's
__init__.py (explorer/doors.py). Nothing outside index/ imports SQLite or the index's own
modules, nothing outside another room that room's modules, and every name a door lists opens
as the name of its module (not as a module of the room: `from room import x` would give the
submodule x once loaded).
SQLite's errors leave the index's door as explorer's own, in one line."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import explorer.analysis
import explorer.index
import explorer.names
import explorer.resolve
import explorer.workspace

PACKAGE = Path(explorer.index.__file__).resolve().parent.parent


def _imports(path: Path) -> list[tuple[str, int]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.extend((f"{node.module}.{alias.name}", node.lineno) for alias in node.names)
    return found


def _through_the_wall(room: str, also: tuple[str, ...] = ()) -> list[str]:
    """Imports, from outside the room, of the room's own modules (or of the modules `also`)."""
    return [
        f"{path.relative_to(PACKAGE.parent)}:{line} {name}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[0] != room
        for name, line in _imports(path)
        if name.split(".")[0] in also or (name.startswith(f"explorer.{room}.") and name.count(".") > 2)
    ]


def test_nothing_outside_the_index_imports_sqlite_or_its_modules():
    assert _through_the_wall("index", also=("sqlite3",)) == []


@pytest.mark.parametrize("room", ["workspace", "names", "resolve", "analysis"])
def test_nothing_outside_a_room_imports_its_modules(room):
    assert _through_the_wall(room) == []


DOORS = [explorer.index, explorer.workspace, explorer.names, explorer.resolve, explorer.analysis]


def _typed_names(door: object) -> dict[str, str]:
    """What the door's `if TYPE_CHECKING:` imports name, and the module of its room each is from."""
    tree = ast.parse(Path(door.__file__).read_text(encoding="utf-8"))
    block = next(node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")
    prefix = f"{door.__name__}."
    return {
        alias.asname or alias.name: node.module.removeprefix(prefix)
        for node in block.body
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }


@pytest.mark.parametrize("door", DOORS, ids=lambda door: door.__name__)
def test_every_name_of_a_door_opens(door):
    # the type checker's names (the imports) and the runtime's (_HOME) are the same, from the same modules
    assert _typed_names(door) == door._HOME
    folder = Path(door.__file__).parent
    modules = {path.stem for path in folder.glob("*.py")} | {path.name for path in folder.iterdir() if path.is_dir()}
    assert sorted(set(door._HOME) & modules) == []
    for name, module in door._HOME.items():
        home = importlib.import_module(f"{door.__name__}.{module}")
        assert getattr(door, name) is getattr(home, name)


def test_sqlite_s_errors_leave_the_index_as_explorer_s(tmp_path: Path):
    # a read that fails for a reason other than damage (a lock held too long) says which index
    # and why, in one line, and leaves its record alone: nothing says the file is damaged
    import sqlite3

    from explorer.index import IndexDamaged, IndexUnreadable, reading

    index = tmp_path / "index.sqlite"
    record = tmp_path / "index.sqlite.verified"
    record.write_text("{}")
    with pytest.raises(IndexUnreadable) as unreadable, reading([index]):
        raise sqlite3.OperationalError("database is locked")
    assert str(unreadable.value) == f"cannot read the index at {index}: database is locked"
    assert record.exists()
    with pytest.raises(IndexDamaged) as damaged, reading([index, tmp_path / "other.sqlite"]):
        raise sqlite3.DatabaseError("file is not a database")
    assert str(damaged.value) == (
        "one of the trees' indexes is damaged (file is not a database); the next command checks and rebuilds it"
    )
    assert not record.exists()  # checked again by the next command
