"""The C++ side of the call graph, kept between runs.

Working out what a C++ function calls is most of a trace's time on a large tree: a trace to
any target walks every definition within reach of its start, and nearly every walk on PyTorch
passes through the same core (Tensor's virtual methods, the dispatcher, error reporting:
about 2,000 definitions). Those edges depend only on the index and on explorer's code, not on
which trace asks, so they are kept in a SQLite file beside the project's index and read back
by the next command instead of being worked out again.

What is kept, and why it stays right:
- Only the edges the native rules give (operators, C++ and CUDA definitions). A Python
  function's edges come from the value-flow solver, whose answers for one function grow with
  the callers it has seen in that run; the native rules read the index and the node alone
  (native_edges.py memoises, it accumulates nothing), so a kept answer is the answer the same
  call would compute.
- Everything kept belongs to one generation: the stamps of every index the workspace reads
  and a hash of explorer's own code. Any other generation empties the file before use, so
  an edited source (which changes its index), another set of trees, or another version of
  explorer never reads edges worked out for something else.
- It is only a cache: a file that is missing, locked, read-only or damaged means the edges
  are worked out again, never an error. Damage SQLite reports gets the file removed.
- Stored as JSON of the records' fields, not pickles: reading the cache runs no code.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from explorer.folders import GRAMMARS_DIR
from explorer.index.disk import index_file_stamp
from explorer.model import (
    CallEdge,
    CallNode,
    CallShape,
    EdgeKind,
    Language,
    Layer,
    Location,
    Resolution,
    Symbol,
    SymbolKind,
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS edges (node TEXT PRIMARY KEY, edges TEXT NOT NULL);
"""
_FLUSH_EVERY = 2000  # nodes worked out before they are written: one transaction each time
_READ_AT_ONCE = 500  # nodes read in one query by `read_ahead` (SQLite allows 32,766 parameters)
# A file holding more than this many nodes' edges is emptied before more are added: traces
# through one tree keep meeting the same core, and a cache must not grow without end.
_MOST_NODES = 200_000


@functools.cache
def code_fingerprint() -> str:
    """A hash of explorer's code and queries: edges worked out by other code are not used."""
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    sources = [
        *sorted(package.rglob("*.py")),
        *sorted(GRAMMARS_DIR.rglob("*.scm")),
        *sorted(GRAMMARS_DIR.glob("*.yaml")),
    ]
    for source in sources:
        digest.update(source.name.encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


def generation_of(index_paths: Sequence[Path]) -> str:
    """What the kept edges are valid for: these index files as they are now, and this code."""
    stamps = [[str(path), index_file_stamp(path)] for path in index_paths]
    return hashlib.sha256(json.dumps([code_fingerprint(), stamps]).encode()).hexdigest()[:16]


def kept_edges_path(index_path: Path) -> Path:
    return Path(f"{index_path}.edges")


class KeptEdges:
    """Edges by node, read from and written to one SQLite file. `get` and `put` never raise:
    the first error turns the cache off for the rest of the run."""

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = connection
        self._pending: dict[str, str] = {}
        self._read: dict[str, str] = {}  # rows `read_ahead` fetched, until `get` asks for them
        self.hits = 0  # nodes answered from the file this run
        self.misses = 0  # nodes worked out this run (and kept)

    @classmethod
    def open(cls, path: Path, generation: str) -> KeptEdges | None:
        """The cache at `path` for `generation`, emptied first if it holds another; None when
        the file cannot be used at all (it is then left alone, or removed if damaged)."""
        for attempt in range(2):
            try:
                return cls(path, _open(path, generation))
            except sqlite3.DatabaseError as error:
                if attempt == 0 and _is_damage(error):
                    _remove(path)
                    continue
                return None
            except (sqlite3.Error, OSError):
                return None
        return None

    def get(self, node: str) -> list[CallEdge] | None:
        if self._db is None:
            return None
        pending = self._pending.get(node) or self._read.pop(node, None)
        try:
            if pending is None:
                row = self._db.execute("SELECT edges FROM edges WHERE node = ?", (node,)).fetchone()
                if row is None:
                    return None
                pending = row[0]
            edges = decode_edges(pending)
        except (sqlite3.Error, ValueError, KeyError, TypeError, IndexError):
            self._turn_off()
            return None
        self.hits += 1
        return edges

    def read_ahead(self, nodes: Sequence[str]) -> None:
        """Fetch the rows of these nodes in a few queries: a breadth-first walk asks for a
        whole level of nodes at once, and one query per node costs more than decoding it."""
        if self._db is None:
            return
        wanted = [node for node in dict.fromkeys(nodes) if node not in self._pending and node not in self._read]
        try:
            for start in range(0, len(wanted), _READ_AT_ONCE):
                chunk = wanted[start : start + _READ_AT_ONCE]
                marks = ", ".join("?" * len(chunk))
                self._read.update(self._db.execute(f"SELECT node, edges FROM edges WHERE node IN ({marks})", chunk))
        except sqlite3.Error:
            self._turn_off()

    def put(self, node: str, edges: list[CallEdge]) -> None:
        if self._db is None:
            return
        self.misses += 1
        self._pending[node] = encode_edges(edges)
        if len(self._pending) >= _FLUSH_EVERY:
            self.flush()

    def flush(self) -> None:
        """Write what was worked out since the last flush, in one transaction."""
        if self._db is None or not self._pending:
            return
        rows, self._pending = list(self._pending.items()), {}
        try:
            with self._db:
                count = self._db.execute("SELECT count(*) FROM edges").fetchone()[0]
                if count + len(rows) > _MOST_NODES:
                    self._db.execute("DELETE FROM edges")
                self._db.executemany("INSERT OR REPLACE INTO edges VALUES (?, ?)", rows)
        except sqlite3.Error:
            self._turn_off()

    def close(self) -> None:
        self.flush()
        if self._db is not None:
            self._db.close()
            self._db = None

    def _turn_off(self) -> None:
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
        self._db = None
        self._pending = {}
        self._read = {}


@contextmanager
def open_kept_edges(index_paths: Sequence[Path]) -> Iterator[KeptEdges | None]:
    """The kept edges of a workspace reading these indexes (the project's first), written
    back when the block ends."""
    if not index_paths:
        yield None
        return
    try:
        generation = generation_of(index_paths)
    except OSError:
        yield None
        return
    kept = KeptEdges.open(kept_edges_path(index_paths[0]), generation)
    try:
        yield kept
    finally:
        if kept is not None:
            kept.close()


def _open(path: Path, generation: str) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path, timeout=5)
    try:
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = NORMAL")  # WAL stays consistent; a crash may lose the last flush
        connection.executescript(_SCHEMA)
        with connection:
            kept = connection.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
            if kept is None or kept[0] != generation:
                connection.execute("DELETE FROM edges")
                connection.execute("INSERT OR REPLACE INTO meta VALUES ('generation', ?)", (generation,))
    except BaseException:
        connection.close()
        raise
    return connection


def _is_damage(error: sqlite3.DatabaseError) -> bool:
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return True
    return str(error).startswith(("file is not a database", "database disk image is malformed"))


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(OSError):
            os.remove(f"{path}{suffix}")


# -- the records as JSON ---------------------------------------------------------------------
# Each symbol once per entry (a node's edges name the same few definitions many times), as a
# list of its fields; nodes and edges refer to symbols by their place in that list. Tuples
# are written as JSON arrays and read back as tuples.


def node_key_text(node: CallNode, *context: object) -> str:
    """A node's identity as kept: its key, where it was handed callables, and what else the
    edges were worked out under (the backend, whether tests are followed). The key holds
    strings, numbers, None and tuples of them, whose repr is the same on every run."""
    return repr((context, node.key, _place_fields(node.passed_at)))


def _place_fields(place: Location | None) -> list[object] | None:
    return None if place is None else [place.path, place.line, place.column]


def encode_edges(edges: list[CallEdge]) -> str:
    symbols: list[list[object]] = []
    places: dict[Symbol, int] = {}

    def place(symbol: Symbol) -> int:
        found = places.get(symbol)
        if found is None:
            found = places[symbol] = len(symbols)
            symbols.append(
                [
                    symbol.qname,
                    symbol.name,
                    symbol.kind.value,
                    symbol.lang.value,
                    symbol.path,
                    symbol.line,
                    symbol.end_line,
                    symbol.signature,
                    symbol.target,
                    symbol.file_local,
                ]
            )
        return found

    def node(target: CallNode) -> list[object]:
        shape = target.shape
        return [
            place(target.symbol),
            target.layer.value,
            target.self_class,
            [place(s) for s in target.passed],
            _place_fields(target.passed_at),
            target.passed_as,
            None if shape is None else [shape.positional, shape.keywords, shape.open],
        ]

    encoded = [
        [
            node(edge.target),
            edge.kind.value,
            edge.resolution.value,
            edge.candidates,
            _place_fields(edge.site),
            edge.specialised,
            edge.off_default,
            edge.dispatch_key,
        ]
        for edge in edges
    ]
    return json.dumps([symbols, encoded], separators=(",", ":"))


# value -> member, a dict lookup: calling the enum is several times slower, and a trace reads
# tens of thousands of these
_SYMBOL_KINDS = {kind.value: kind for kind in SymbolKind}
_LANGUAGES = {language.value: language for language in Language}
_LAYERS = {layer.value: layer for layer in Layer}
_EDGE_KINDS = {kind.value: kind for kind in EdgeKind}
_RESOLUTIONS = {resolution.value: resolution for resolution in Resolution}


def decode_edges(text: str) -> list[CallEdge]:
    """The edges `encode_edges` wrote; a KeyError, ValueError or TypeError for anything else."""
    symbol_fields, encoded = json.loads(text)
    symbols = [
        Symbol(qname, name, _SYMBOL_KINDS[kind], _LANGUAGES[lang], path, line, end_line, signature, target, file_local)
        for qname, name, kind, lang, path, line, end_line, signature, target, file_local in symbol_fields
    ]

    def node(fields: list[Any]) -> CallNode:
        symbol, layer, self_class, passed, passed_at, passed_as, shape = fields
        return CallNode(
            symbols[symbol],
            _LAYERS[layer],
            self_class,
            tuple(symbols[s] for s in passed) if passed else (),
            None if passed_at is None else Location(*passed_at),
            tuple(passed_as) if passed_as else (),
            None if shape is None else CallShape(shape[0], tuple(shape[1]), shape[2]),
        )

    return [
        CallEdge(
            node(target),
            _EDGE_KINDS[kind],
            _RESOLUTIONS[resolution],
            tuple(candidates) if candidates else (),
            None if site is None else Location(*site),
            specialised,
            off_default,
            dispatch_key,
        )
        for target, kind, resolution, candidates, site, specialised, off_default, dispatch_key in encoded
    ]
