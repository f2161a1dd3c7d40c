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

if TYPE_CHECKING:  # each name as its own alias: the names this door exports
    from explorer.index.build import RefreshReport as RefreshReport
    from explorer.index.build import refresh as refresh
    from explorer.index.build import saved_walk_options as saved_walk_options
    from explorer.index.files import WalkOptions as WalkOptions
    from explorer.index.files import source_lines as source_lines
    from explorer.index.kept_edges import KeptEdges as KeptEdges
    from explorer.index.kept_edges import node_key_text as node_key_text
    from explorer.index.kept_edges import open_kept_edges as open_kept_edges
    from explorer.index.multi import MultiTreeIndex as MultiTreeIndex
    from explorer.index.multi import TreeIndex as TreeIndex
    from explorer.index.opening import IndexDamaged as IndexDamaged
    from explorer.index.opening import IndexUnreadable as IndexUnreadable
    from explorer.index.opening import IndexUnwritable as IndexUnwritable
    from explorer.index.opening import opened as opened
    from explorer.index.opening import reading as reading
    from explorer.index.opening import write_meta as write_meta
    from explorer.index.opening import writing as writing
    from explorer.index.reader import IndexReader as IndexReader
    from explorer.index.store import IndexStore as IndexStore

_HOME = {  # each name above, and the module of this package that defines it (tests/test_doors.py)
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

if not TYPE_CHECKING:  # to a type checker, the names are the imports above and nothing else
    __getattr__ = door(__name__, _HOME)
