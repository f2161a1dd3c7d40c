"""The index: what the parsers learned about a tree, kept in one SQLite file per tree.

This is the door to it; nothing outside `index/` imports its modules or SQLite. Through it:
- opening: `opened(path)` (one file), `IndexStore`, and `MultiTreeIndex` over several trees,
  each read through the `IndexReader` protocol; `KeptEdges`, the call graph's edges kept
  from earlier runs;
- refreshing: `refresh` walks a tree (`WalkOptions`) and parses only what changed
  (`RefreshReport`); `write_meta` stamps a file;
- errors: `IndexDamaged` (checked and rebuilt by the next command), `IndexUnreadable` and
  `IndexUnwritable`; `reading(paths)` turns SQLite's errors into them around a read.

Inside: the schema, SQL and row encoding (store.py), the on-disk lifecycle (store.py,
opening.py), walking trees (files.py, listing.py) and building (build.py). The names load on
first use, as a command that never opens an index does not pay for the parsers behind it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer.doors import door

if TYPE_CHECKING:
    from explorer.index.build import RefreshReport, refresh, saved_walk_options
    from explorer.index.files import WalkOptions, source_lines
    from explorer.index.kept_edges import KeptEdges, node_key_text, open_kept_edges
    from explorer.index.multi import MultiTreeIndex, TreeIndex
    from explorer.index.opening import (
        IndexDamaged,
        IndexUnreadable,
        IndexUnwritable,
        opened,
        reading,
        write_meta,
        writing,
    )
    from explorer.index.reader import IndexReader
    from explorer.index.store import IndexStore

_HOME = {  # each public name, and the module of this package that defines it
    "RefreshReport": "build",
    "refresh": "build",
    "saved_walk_options": "build",
    "WalkOptions": "files",
    "source_lines": "files",
    "KeptEdges": "kept_edges",
    "open_kept_edges": "kept_edges",
    "node_key_text": "kept_edges",
    "MultiTreeIndex": "multi",
    "TreeIndex": "multi",
    "IndexDamaged": "opening",
    "IndexUnreadable": "opening",
    "IndexUnwritable": "opening",
    "opened": "opening",
    "reading": "opening",
    "write_meta": "opening",
    "writing": "opening",
    "IndexReader": "reader",
    "IndexStore": "store",
}
__all__ = [  # the same names as _HOME (tests/test_doors.py)
    "IndexDamaged",
    "IndexReader",
    "IndexStore",
    "IndexUnreadable",
    "IndexUnwritable",
    "KeptEdges",
    "MultiTreeIndex",
    "RefreshReport",
    "TreeIndex",
    "WalkOptions",
    "node_key_text",
    "open_kept_edges",
    "opened",
    "reading",
    "refresh",
    "saved_walk_options",
    "source_lines",
    "write_meta",
    "writing",
]

if not TYPE_CHECKING:  # to a type checker, the names are the imports above and nothing else
    __getattr__ = door(__name__, _HOME)
