"""Links drawn across a tree's files once its files are written, before any query reads them:
what a file's own facts cannot say alone. Run by IndexStore.rebuild_derived after every refresh,
each undoing what it did before where the files it read have changed.

- A binding made on a C++ function's module parameter is named by the modules its callers
  pass (module_parameters.py follows them).
- A header included inside `namespace N { ... }` defines its names in N.
"""

from __future__ import annotations

import posixpath
import sqlite3

from explorer.index.module_parameters import ModuleParameters
from explorer.index.rows import like_prefix


def bind_module_parameters(db: sqlite3.Connection) -> None:
    """A binding made on a function's module parameter (`<arg 0 of torch::jit::initJITBindings>.
    PyTorchFileWriter`) is named by the modules its callers pass, followed back through
    callers that pass their own parameter on, to the module made by PyModule_Create or
    an import. Bindings are kept as parsed in module_bindings and named again after every
    refresh; one whose module no caller in the tree passes keeps its placeholder name."""
    moved = db.execute(
        "SELECT id, file_id, qname, name, kind, lang, line, end_line, signature, target FROM symbols"
        " WHERE qname >= '<arg ' AND qname < '<arg!' AND written_qname IS NULL"
    ).fetchall()
    if moved:
        db.executemany("INSERT INTO module_bindings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", [row[1:] for row in moved])
        db.executemany("DELETE FROM symbols WHERE id = ?", [(row[0],) for row in moved])
    db.execute("DELETE FROM symbols WHERE written_qname IS NOT NULL")
    arguments = db.execute("SELECT file_id, module, callee, scope, position, line FROM module_arguments").fetchall()
    pending = [qname for (qname,) in db.execute("SELECT qname FROM module_bindings")]
    modules = ModuleParameters(arguments, pending)
    rows = []
    for file_id, qname, name, kind, lang, line, end_line, signature, target in db.execute(
        "SELECT * FROM module_bindings ORDER BY file_id, line, qname"
    ):
        for named in modules.names(qname):
            rows.append((file_id, named, name, name.lower(), kind, lang, line, end_line, signature, target, 0, qname))
    db.executemany(
        "INSERT INTO symbols (file_id, qname, name, lname, kind, lang, line, end_line, signature, target, file_local, written_qname)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    db.execute("INSERT OR IGNORE INTO names SELECT DISTINCT lname, name FROM symbols WHERE written_qname IS NOT NULL")


def requalify_included_headers(db: sqlite3.Connection) -> None:
    """A header included inside `namespace N { ... }` defines its functions in N, though it
    names no namespace itself: its definitions (and the callers of its call sites) get the
    prefix `N::`. Done here, after every refresh, from the includes the parsers recorded,
    and undone where an include went away; a header included into several namespaces
    keeps the names it gives itself."""
    wanted: dict[int, set[str]] = {}
    for including, target in db.execute(
        "SELECT f.path, i.target FROM imports i JOIN files f ON f.id = i.file_id WHERE i.name = '#include' ORDER BY f.path, i.line"
    ).fetchall():
        namespace, _, written = target.partition("|")
        for file_id in _included_file_ids(db, including, written):
            wanted.setdefault(file_id, set()).add(namespace)
    desired = {file_id: next(iter(spaces)) for file_id, spaces in wanted.items() if len(spaces) == 1}
    applied = dict(db.execute("SELECT file_id, namespace FROM namespace_prefixes").fetchall())
    for file_id in sorted(set(desired) | set(applied)):
        before, after = applied.get(file_id), desired.get(file_id)
        if before == after:
            continue
        if before is not None:
            _prefix_names(db, file_id, before, remove=True)
        if after is not None:
            _prefix_names(db, file_id, after, remove=False)
            db.execute("INSERT OR REPLACE INTO namespace_prefixes VALUES (?, ?)", (file_id, after))
        else:
            db.execute("DELETE FROM namespace_prefixes WHERE file_id = ?", (file_id,))


def _included_file_ids(db: sqlite3.Connection, including: str, written: str) -> list[int]:
    """The indexed files an `#include` written in `including` may mean: the one beside it,
    else those whose path ends with what is written (the include path's layout)."""
    beside = posixpath.normpath(posixpath.join(posixpath.dirname(including), written))
    row = db.execute("SELECT id FROM files WHERE path = ?", (beside,)).fetchone()
    if row is not None:
        return [row[0]]
    suffix = "/" + written.lstrip("./")
    return [
        file_id
        for (file_id,) in db.execute(
            "SELECT id FROM files WHERE substr(path, -length(?1)) = ?1 ORDER BY path", (suffix,)
        )
    ]


def _prefix_names(db: sqlite3.Connection, file_id: int, namespace: str, *, remove: bool) -> None:
    prefix = namespace + "::"
    if remove:
        db.execute(
            "UPDATE symbols SET qname = substr(qname, ?) WHERE file_id = ? AND qname LIKE ? ESCAPE '\\'",
            (len(prefix) + 1, file_id, like_prefix(prefix)),
        )
        db.execute(
            "UPDATE calls SET caller = substr(caller, ?) WHERE file_id = ? AND caller LIKE ? ESCAPE '\\'",
            (len(prefix) + 1, file_id, like_prefix(prefix)),
        )
        return
    db.execute(
        "UPDATE symbols SET qname = ? || qname WHERE file_id = ? AND kind NOT IN ('namespace', 'macro') AND qname NOT LIKE ? ESCAPE '\\'",
        (prefix, file_id, like_prefix(prefix)),
    )
    db.execute(
        "UPDATE calls SET caller = ? || caller WHERE file_id = ? AND caller != (SELECT path FROM files WHERE id = ?)"
        " AND caller NOT LIKE ? ESCAPE '\\'",
        (prefix, file_id, file_id, like_prefix(prefix)),
    )
