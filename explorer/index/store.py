"""An index file open: its rows written by a refresh and read by queries (IndexStore).

The index's other modules hold the rest of it, and SQL is spoken nowhere outside index/: the
tables (schema.py), facts as rows and back (rows.py), the links drawn across files after a
refresh (linking.py), the file on disk (disk.py), opening it for a query (opening.py).

Durability rules:
- The schema carries a version (`PRAGMA user_version`) and a fingerprint of the parsers that
  wrote it. A file of another version, by other parsers, for another tree, or one SQLite
  cannot read, is rebuilt, never crashed on.
- A new index is bulk-loaded into a side file (no journal, indexes built at the end) and
  renamed into place only when complete: a build killed midway leaves nothing half-built.
- An existing index is refreshed in WAL mode: readers keep a consistent snapshot while a
  refresh writes, and a file's rows and its row in `files` change in one transaction, so a
  refresh killed midway is consistent and the next one parses the rest.
- Derived tables (vendor symbols, search names) are rebuilt at the end of a refresh; a `stale`
  mark written in its first transaction and cleared by that rebuild makes an interrupted
  refresh finish it.
- One refresh at a time: an exclusive lock file beside the index serialises writers.
- Nothing is answered from a file that cannot be trusted. Every refresh that writes ends by
  recording the closed file's stat and checksum in a `.verified` file beside it. When the
  index's stat is not the one recorded, its checksum must be; otherwise it was changed by
  something other than explorer and is rebuilt, as one of another version is (but for a
  refresh that was interrupted, which the next refresh finishes if SQLite's `quick_check`
  passes). SQLite's checks alone miss damage inside a row, which gives wrong answers.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from explorer.index.disk import connect, connect_read_only, file_unusable_reason, is_read_only_folder, remove_database
from explorer.index.files import READ_FAILURES
from explorer.index.linking import bind_module_parameters, requalify_included_headers
from explorer.index.rows import FileRows, call_site_from_row, symbol_from_row
from explorer.index.schema import (
    CALL_COLUMNS,
    INDEXES,
    INSERT_CALL,
    INSERT_SYMBOL,
    PER_FILE_TABLES,
    SCHEMA,
    SCHEMA_VERSION,
    SYMBOL_COLUMNS,
    Row,
    extraction_fingerprint,
)
from explorer.model import (
    CallSite,
    DerivativeEntry,
    Diagnostic,
    DispatchEntry,
    ImportBinding,
    Language,
    OperatorInfo,
    Symbol,
    SymbolKind,
    last_name,
)


@dataclass(frozen=True, slots=True)
class StoredFile:
    id: int
    path: str
    size: int
    mtime_ns: int
    hash: str | None
    skipped: str | None


@dataclass(frozen=True, slots=True)
class IndexStats:
    files: int
    parsed: int
    symbols: int
    calls: int


SMALL_TREE_SYMBOLS = 50_000  # a tree with at most this many symbols is summarised as a SmallTree
_NAME_SEPARATOR = re.compile(r"\.|::")


def first_part(qname: str) -> str:
    """`torch` of torch.nn.Conv2d, `at` of at::native::add, `aten` of aten::conv2d."""
    return _NAME_SEPARATOR.split(qname, 1)[0]


@dataclass(frozen=True, slots=True)
class SmallTree:
    """What a small tree (a user's project, an installed package) may define: a set answers
    "not here" far cheaper than a query, and most names a trace looks up are in other trees.
    Kept in the index's meta table by each refresh, so reading it costs one row."""

    first_parts: frozenset[str]  # of every qname the tree defines
    operator_lnames: frozenset[str]  # `operators_named` looks operators up by these
    kinds: frozenset[str]  # of its definitions: most installed packages hold no binding at all

    def may_define(self, qname: str) -> bool:
        return first_part(qname) in self.first_parts


class IndexStore:
    """An open index file: `IndexStore.open(path)` for one that `unusable_reason` passed,
    `IndexStore.create(path, root)` for a new one. Close it when done."""

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self.path = path
        self.db = connection
        # A trace asks for the same names many times; writes (in `transaction`) forget them.
        self._by_qname: dict[str, list[Symbol]] = {}  # qname (or "operators NAME") -> symbols
        self._call_spans: dict[str, tuple[int, int]] = {}  # path -> its rows in calls (calls_in)
        self._operator_info: dict[str, OperatorInfo | None] = {}
        self._imports: dict[str, list[ImportBinding]] = {}  # module (or C++ file) -> its imports
        # Read beside other trees (workspace/trees.py), every location this store reports is under this
        # prefix (its root): one string per file. Queries that take a path take it relative.
        self._prefix = ""
        self._paths: dict[str, str] = {}

    # -- opening ---------------------------------------------------------------------------

    @staticmethod
    def unusable_reason(path: Path, root: str) -> str | None:
        """Why the index file at `path` cannot serve `root` as it is, or None if it can."""
        if not path.exists():
            return "no index yet"
        return file_unusable_reason(path, root)

    @classmethod
    def open(cls, path: Path) -> IndexStore:
        if is_read_only_folder(path):  # a read-only cache: read as it is (refresh said whether it is stale)
            return cls(path, connect_read_only(path))
        connection = connect(path)
        connection.execute("PRAGMA journal_mode = WAL")
        connection.executescript(INDEXES)  # an interrupted bulk build may lack them
        return cls(path, connection)

    @classmethod
    def create(cls, path: Path, root: str) -> IndexStore:
        """A new, empty index for bulk loading: no journal (the file is renamed into place
        only once complete, so a crash leaves no half-built index in use) and no secondary
        indexes until `finish_bulk`, since building them once at the end is several times
        faster than keeping them up to date row by row."""
        path.parent.mkdir(parents=True, exist_ok=True)
        remove_database(path)
        connection = connect(path)
        connection.execute("PRAGMA journal_mode = OFF")
        connection.execute("PRAGMA synchronous = OFF")
        with connection:
            connection.executescript(SCHEMA)
            connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            connection.execute("INSERT INTO meta VALUES ('root', ?)", (root,))
            connection.execute("INSERT INTO meta VALUES ('extraction', ?)", (extraction_fingerprint(),))
        return cls(path, connection)

    def merge_shards(self, shards: list[Path]) -> None:
        """Copy in the rows that parser processes wrote to shards of their own: one SQL
        statement per table, inside SQLite, instead of a million rows through Python.
        A shard's call rowids are shifted past those already here, and its files' call
        ranges with them."""
        columns = "file_id, qname, name, lname, kind, lang, line, end_line, signature, target, file_local"
        for shard in shards:
            self.db.execute("ATTACH DATABASE ? AS shard", (str(shard),))
            try:
                with self.db:
                    offset = self._last_call_rowid()
                    self.db.execute(
                        "INSERT INTO files SELECT id, path, lang, size, mtime_ns, hash, skipped, calls_first + ?, calls_count"
                        " FROM shard.files",
                        (offset,),
                    )
                    self.db.execute(
                        "INSERT INTO calls (rowid, file_id, caller, callee, qualified, line, col, kind, name_args, vendor)"
                        " SELECT rowid + ?, file_id, caller, callee, qualified, line, col, kind, name_args, vendor"
                        " FROM shard.calls ORDER BY rowid",
                        (offset,),
                    )
                    self.db.execute(f"INSERT INTO symbols ({columns}) SELECT {columns} FROM shard.symbols")
                    for table in (
                        "call_names",
                        "imports",
                        "dispatch",
                        "operators",
                        "derivatives",
                        "diagnostics",
                        "python_flow",
                        "module_arguments",
                    ):
                        self.db.execute(f"INSERT INTO {table} SELECT * FROM shard.{table}")
            finally:
                self.db.execute("DETACH DATABASE shard")

    def _last_call_rowid(self) -> int:
        return int(self.db.execute("SELECT COALESCE(MAX(rowid), 0) FROM calls").fetchone()[0])

    def finish_bulk(self) -> None:
        # Index builds sort; let SQLite sort on every core (the parsers are done by now).
        self.db.execute(f"PRAGMA threads = {min(os.cpu_count() or 1, 8)}")
        self.db.executescript(INDEXES)
        self.db.execute("PRAGMA journal_mode = WAL")

    def close(self) -> None:
        self.db.close()

    # -- writing ---------------------------------------------------------------------------

    def holds_unreadable_files(self) -> bool:
        """Whether a file is skipped because it could not be read (files.may_read_later)."""
        matching = " OR ".join("skipped LIKE ?" for _ in READ_FAILURES)
        found = self.db.execute(
            f"SELECT 1 FROM files WHERE {matching} LIMIT 1", [f"{reason}%" for reason in READ_FAILURES]
        ).fetchone()
        return found is not None

    def project_files(self) -> list[str]:
        """The paths of the files this index read (not those it passed over), in order."""
        return [row[0] for row in self.db.execute("SELECT path FROM files WHERE skipped IS NULL ORDER BY path")]

    def stored_files(self) -> dict[str, StoredFile]:
        rows = self.db.execute("SELECT id, path, size, mtime_ns, hash, skipped FROM files")
        return {row[1]: StoredFile(*row) for row in rows}

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        self._by_qname.clear()
        self._call_spans.clear()
        self._operator_info.clear()
        self._imports.clear()
        with self.db:
            yield

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def mark_stale(self, first_new_file_id: int) -> None:
        """Note, in the refresh's first transaction, that derived tables need rebuilding and
        from which file id on names are new; an earlier unfinished refresh's mark is kept."""
        self.db.execute("INSERT OR REPLACE INTO meta VALUES ('stale', '1')")
        self.db.execute("INSERT OR IGNORE INTO meta VALUES ('names_from', ?)", (str(first_new_file_id),))

    def is_stale(self) -> bool:
        return self.db.execute("SELECT 1 FROM meta WHERE key = 'stale'").fetchone() is not None

    def remove_file(self, file_id: int) -> None:
        row = self.db.execute("SELECT calls_first, calls_count FROM files WHERE id = ?", (file_id,)).fetchone()
        if row is not None and row[0] is not None:
            first, count = row
            last = first + count - 1
            rows = self.db.execute(
                "SELECT DISTINCT callee, name_args FROM calls WHERE rowid BETWEEN ? AND ?", (first, last)
            )
            names = {(last_name(name), file_id) for callee, args in rows for name in [callee, *(args or "").split()]}
            self.db.executemany("DELETE FROM call_names WHERE name = ? AND file_id = ?", names)
            self.db.execute("DELETE FROM calls WHERE rowid BETWEEN ? AND ?", (first, last))
        for table in PER_FILE_TABLES:
            self.db.execute(f"DELETE FROM {table} WHERE file_id = ?", (file_id,))
        self.db.execute("DELETE FROM files WHERE id = ?", (file_id,))

    def touch_file(self, file_id: int, size: int, mtime_ns: int) -> None:
        """The file's stat changed but its content did not."""
        self.db.execute("UPDATE files SET size = ?, mtime_ns = ? WHERE id = ?", (size, mtime_ns, file_id))

    def put_skipped_file(self, file_id: int, path: str, lang: Language, size: int, mtime_ns: int, reason: str) -> None:
        self.db.execute(
            "INSERT INTO files (id, path, lang, size, mtime_ns, hash, skipped) VALUES (?, ?, ?, ?, ?, NULL, ?)",
            (file_id, path, lang.value, size, mtime_ns, reason),
        )

    def next_file_id(self) -> int:
        return int(self.db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM files").fetchone()[0])

    def put_rows(self, rows: FileRows, size: int, mtime_ns: int, content_hash: str) -> None:
        # SQLite gives each new row the largest rowid so far plus one, so the file's calls
        # take the consecutive rowids from `first`; checked below all the same, since every
        # lookup of a file's calls relies on it.
        first = self._last_call_rowid() + 1 if rows.calls else None
        self.db.execute(
            "INSERT INTO files (id, path, lang, size, mtime_ns, hash, skipped, calls_first, calls_count)"
            " VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?)",
            (rows.file_id, rows.path, rows.lang, size, mtime_ns, content_hash, first, len(rows.calls)),
        )
        for sql, records in (
            (INSERT_SYMBOL, rows.symbols),
            (INSERT_CALL, rows.calls),
            ("INSERT INTO call_names VALUES (?, ?)", rows.call_names),
            ("INSERT INTO imports VALUES (?, ?, ?, ?, ?)", rows.imports),
            ("INSERT INTO dispatch VALUES (?, ?, ?, ?, ?)", rows.dispatch),
            ("INSERT INTO operators VALUES (?, ?, ?, ?, ?, ?, ?)", rows.operators),
            ("INSERT INTO derivatives VALUES (?, ?, ?, ?, ?)", rows.derivatives),
            ("INSERT INTO diagnostics VALUES (?, ?)", rows.diagnostics),
            ("INSERT INTO python_flow VALUES (?, ?)", rows.flow),
            ("INSERT INTO module_arguments VALUES (?, ?, ?, ?, ?, ?)", rows.module_arguments),
        ):
            if records:
                self.db.executemany(sql, records)
        if first is not None and self._last_call_rowid() != first + len(rows.calls) - 1:
            raise sqlite3.DatabaseError(f"the calls of {rows.path} did not get consecutive rowids")

    def replace_walk_skips(self, skipped: Iterable[Diagnostic]) -> None:
        self.db.execute("DELETE FROM walk_skips")
        self.db.executemany("INSERT INTO walk_skips VALUES (?, ?)", [(d.path, d.reason) for d in skipped])

    def rebuild_derived(self) -> None:
        """Vendor symbols and search names, after the files of a refresh are written.

        Vendor APIs are known only from call sites: one external symbol per distinct callee.
        Names are added for the symbols of files written since the stale mark."""
        with self.db:
            bind_module_parameters(self.db)
            requalify_included_headers(self.db)
            self.db.execute("DELETE FROM symbols WHERE file_id IS NULL")
            # `cudnn::Foo::bar` is its own symbol; a plain `cudnnConvolutionForward` and
            # `::cudnnConvolutionForward` are one, known by the last name.
            externals: dict[str, tuple[str, str]] = {}
            for callee, vendor in self.db.execute(
                "SELECT callee, MIN(vendor) FROM calls WHERE vendor IS NOT NULL GROUP BY callee ORDER BY callee"
            ):
                name = last_name(callee)
                qname = callee.removeprefix("::") if "::" in callee.lstrip(":") else name
                known = externals.get(qname)
                externals[qname] = (name, min(vendor, known[1]) if known else vendor)
            self.db.executemany(
                "INSERT INTO symbols (file_id, qname, name, lname, kind, lang, line, end_line, signature, target)"
                " VALUES (NULL, ?, ?, ?, ?, ?, NULL, NULL, ?, NULL)",
                [
                    (qname, name, name.lower(), SymbolKind.EXTERNAL, Language.VENDOR, f"{vendor} API")
                    for qname, (name, vendor) in sorted(externals.items())
                ],
            )
            names_from = int(self.meta("names_from") or 0)
            for where in ("file_id >= ?", "file_id IS NULL AND ? IS NOT NULL"):
                self.db.execute(
                    f"INSERT OR IGNORE INTO names SELECT DISTINCT lname, name FROM symbols WHERE {where}", (names_from,)
                )
            self.db.execute("DELETE FROM meta WHERE key IN ('stale', 'names_from')")
            # read by every query that spans trees: kept here rather than scanned each time
            self.set_meta("imported_top_level", json.dumps(sorted(self._scan_imported_top_level())))
            self.set_meta("top_level_modules", json.dumps(sorted(self._scan_top_level_modules())))

    # -- reading ---------------------------------------------------------------------------

    def report_paths_under(self, prefix: str) -> None:
        self._prefix = prefix
        self._by_qname.clear()
        self._call_spans.clear()
        self._operator_info.clear()
        self._imports.clear()

    def _out(self, path: str | None) -> str | None:
        if not self._prefix or path is None:
            return path
        found = self._paths.get(path)
        if found is None:
            found = self._paths[path] = self._prefix + path
        return found

    def _entries(self, rows: Iterable[Row]) -> list[DispatchEntry]:
        return [
            DispatchEntry(operator, key, kernel, line, self._out(path)) for operator, key, kernel, line, path in rows
        ]

    def stats(self) -> IndexStats:
        files, parsed = self.db.execute("SELECT COUNT(*), COUNT(*) - COUNT(skipped) FROM files").fetchone()
        symbols = self.db.execute("SELECT COUNT(*) FROM symbols").fetchone()[0]
        calls = self.db.execute("SELECT COALESCE(SUM(calls_count), 0) FROM files").fetchone()[0]
        return IndexStats(files, parsed, symbols, calls)

    def skipped(self) -> list[Diagnostic]:
        rows = self.db.execute(
            "SELECT path, skipped FROM files WHERE skipped IS NOT NULL UNION ALL SELECT path, reason FROM walk_skips ORDER BY 1"
        )
        return [Diagnostic(path, reason) for path, reason in rows]

    def partial(self) -> list[Diagnostic]:
        rows = self.db.execute(
            "SELECT f.path, d.reason FROM diagnostics d JOIN files f ON f.id = d.file_id ORDER BY f.path, d.rowid"
        )
        return [Diagnostic(path, reason, skipped=False) for path, reason in rows]

    def symbols_named(self, lname: str) -> list[Symbol]:
        return self._symbols("s.lname = ? ORDER BY s.id", (lname,))  # as indexed, whatever their kinds

    def symbols_with_qname(self, qname: str) -> list[Symbol]:
        found = self._by_qname.get(qname)
        if found is None:
            found = self._by_qname[qname] = self._symbols(
                "s.qname = ? ORDER BY f.path, s.line, s.kind, s.signature", (qname,)
            )
        return list(found)

    def symbols_with_qnames(self, qnames: list[str]) -> dict[str, list[Symbol]]:
        """`symbols_with_qname` of each, in one query for those not asked before (a C++ name
        is looked for in each enclosing namespace: most of them have none)."""
        missing = list(dict.fromkeys(qname for qname in qnames if qname not in self._by_qname))
        if missing:
            found: dict[str, list[Symbol]] = {qname: [] for qname in missing}
            marks = ", ".join("?" * len(missing))
            for symbol in self._symbols(
                f"s.qname IN ({marks}) ORDER BY f.path, s.line, s.kind, s.signature", tuple(missing)
            ):
                found[symbol.qname].append(symbol)
            self._by_qname.update(found)
        return {qname: list(self._by_qname[qname]) for qname in qnames}

    def symbols_named_any(self, lnames: list[str]) -> list[Symbol]:
        marks = ", ".join("?" * len(lnames))
        return self._symbols(f"s.lname IN ({marks}) ORDER BY s.lname, s.id", tuple(lnames)) if lnames else []

    def names_with_prefix(self, prefix: str, limit: int) -> list[str]:
        """Distinct names starting with `prefix` (lower case), shortest first."""
        rows = self.db.execute(
            "SELECT name FROM names WHERE lname >= ? AND lname < ? ORDER BY length(lname), lname LIMIT ?",
            (prefix, prefix + "\uffff", limit),
        )
        return [row[0] for row in rows]

    def qualified_names_with_prefix(self, prefix: str, limit: int) -> list[str]:
        """Distinct qualified names starting with `prefix`, case as written, in order (a
        range of the qname index: a shell completing `torch.nn.Con` asks this)."""
        rows = self.db.execute(
            "SELECT DISTINCT qname FROM symbols WHERE qname >= ? AND qname < ? ORDER BY qname LIMIT ?",
            (prefix, prefix + "\uffff", limit),
        )
        return [row[0] for row in rows]

    def names_matching_glob(self, pattern: str, limit: int) -> list[str]:
        """Distinct names whose lower case matches a GLOB pattern, shortest first (a scan, in C)."""
        rows = self.db.execute(
            "SELECT name FROM names WHERE lname GLOB ? ORDER BY length(lname), lname LIMIT ?", (pattern, limit)
        )
        return [row[0] for row in rows]

    def _symbols(self, where: str, params: tuple[object, ...], limit: int | None = None) -> list[Symbol]:
        sql = f"SELECT {SYMBOL_COLUMNS} FROM symbols s LEFT JOIN files f ON f.id = s.file_id WHERE {where}"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        if self._prefix:
            return [symbol_from_row(row, self._out(row[4])) for row in self.db.execute(sql, params)]
        return [symbol_from_row(row) for row in self.db.execute(sql, params)]

    def usings_in(self, path: str) -> list[ImportBinding]:
        # a C++ file's using-declarations are its "imports", the module being its path
        return self.import_bindings(path)

    def import_bindings(self, module: str) -> list[ImportBinding]:
        found = self._imports.get(module)
        if found is None:  # a trace asks of a C++ file's using-declarations at every name it resolves there
            rows = self.db.execute(
                "SELECT module, name, target, line FROM imports WHERE module = ? ORDER BY line", (module,)
            )
            found = self._imports[module] = [ImportBinding(*row) for row in rows]
        return list(found)

    def import_alias_targets(self, name: str) -> list[tuple[str, int]]:
        """What modules bind `name` to, with how often: `F` -> [(torch.nn.functional, 40)]."""
        rows = self.db.execute(
            "SELECT target, COUNT(*) AS uses FROM imports WHERE name = ? GROUP BY target ORDER BY uses DESC, target",
            (name,),
        )
        return [(target, uses) for target, uses in rows]

    def dispatch_of(self, operator: str) -> list[DispatchEntry]:
        rows = self.db.execute(
            "SELECT d.operator, d.key, d.kernel, d.line, f.path FROM dispatch d JOIN files f ON f.id = d.file_id "
            "WHERE d.operator = ? ORDER BY f.path LIKE '%.yaml' DESC, f.path, d.line, d.rowid",
            (operator,),
        )
        return self._entries(rows)

    def registered_kernels(self, qnames: list[str]) -> set[str]:
        """Those of `qnames` that some operator's dispatch table names as its kernel."""
        found: set[str] = set()
        for start in range(0, len(qnames), 500):
            chunk = qnames[start : start + 500]
            marks = ", ".join("?" * len(chunk))
            found.update(
                row[0]
                for row in self.db.execute(f"SELECT DISTINCT kernel FROM dispatch WHERE kernel IN ({marks})", chunk)
            )
        return found

    def operators_with_kernel(self, kernel: str) -> list[DispatchEntry]:
        """The dispatch rows, of any operator, that name `kernel`."""
        rows = self.db.execute(
            "SELECT d.operator, d.key, d.kernel, d.line, f.path FROM dispatch d JOIN files f ON f.id = d.file_id "
            "WHERE d.kernel = ? ORDER BY d.operator, d.line",
            (kernel,),
        )
        return self._entries(rows)

    def registrations_naming(self, name: str) -> list[DispatchEntry]:
        """Dispatch rows a C++ file registers (TORCH_LIBRARY_IMPL, RegisterOperators) whose
        kernel ends in `name`: their kernels are stored with the namespaces around the
        registration, which need not be the kernel's own."""
        rows = self.db.execute(
            "SELECT d.operator, d.key, d.kernel, d.line, f.path FROM dispatch d JOIN files f ON f.id = d.file_id "
            "WHERE (d.kernel = ? OR d.kernel LIKE ? ESCAPE '\\') AND f.path NOT LIKE '%.yaml' ORDER BY d.operator, d.line",
            (name, "%::" + name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")),
        )
        return self._entries(rows)

    def operators_delegating_to(self, operator: str) -> list[str]:
        """Operators whose structured_delegate is `operator` (a scan of a few thousand rows)."""
        rows = self.db.execute(
            "SELECT operator FROM operators WHERE structured_delegate = ? ORDER BY operator", (operator,)
        )
        return [row[0] for row in rows]

    def aliases_ending_in(self, name: str) -> list[Symbol]:
        """Python aliases whose target's last part is `name` (`conv2d = _add_docstr(torch.conv2d, ...)`
        for `conv2d`); a scan of the symbols, as rare as it is cheap."""
        # substr, not LIKE: `_` in a name is no wildcard, and no name is a pattern too long
        return [
            s
            for s in self._symbols("s.kind = ? AND substr(s.target, -?) = ?", (SymbolKind.ALIAS.value, len(name), name))
            if s.target is not None and s.target.rsplit(".", 1)[-1] == name
        ]

    def python_scopes(self) -> list[Symbol]:
        """Every Python module, class, function and method of the tree (not stubs), in file
        and line order: the nodes of a Python call graph."""
        kinds = (SymbolKind.MODULE.value, SymbolKind.CLASS.value, SymbolKind.FUNCTION.value, SymbolKind.METHOD.value)
        rows = self.db.execute(
            f"SELECT {SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id"
            " WHERE s.lang = 'python' AND s.kind IN (?, ?, ?, ?) AND f.path NOT LIKE '%.pyi' ORDER BY f.path, s.line, s.qname",
            kinds,
        )
        return [symbol_from_row(row, self._out(row[4])) for row in rows]

    def symbols_in_module(self, module: str, kind: SymbolKind) -> list[Symbol]:
        """The module-level definitions of one kind in a Python module."""
        return [
            s
            for s in self._symbols(
                "s.qname > ? AND s.qname < ? AND s.kind = ?", (f"{module}.", f"{module}/", kind.value)
            )
            if "." not in s.qname[len(module) + 1 :]
        ]

    def symbols_in_class(self, class_qname: str) -> list[Symbol]:
        """The methods and class-level aliases defined in a Python class's body."""
        return [
            s
            for s in self._symbols(
                "s.qname > ? AND s.qname < ? AND s.kind IN (?, ?)",
                (f"{class_qname}.", f"{class_qname}/", SymbolKind.METHOD.value, SymbolKind.ALIAS.value),
            )
            if "." not in s.qname[len(class_qname) + 1 :]
        ]

    def operator_info(self, operator: str) -> OperatorInfo | None:
        if operator not in self._operator_info:  # a trace asks of each operator at every method call it meets
            self._operator_info[operator] = self._read_operator_info(operator)
        return self._operator_info[operator]

    def _read_operator_info(self, operator: str) -> OperatorInfo | None:
        row = self.db.execute(
            "SELECT operator, variants, python_module, structured, structured_delegate, autogen FROM operators WHERE operator = ?",
            (operator,),
        ).fetchone()
        if row is None:
            return None
        name, variants, module, structured, delegate, autogen = row
        return OperatorInfo(
            name,
            tuple(variants.split(",")),
            module,
            bool(structured),
            delegate,
            tuple(filter(None, autogen.split(","))),
        )

    def derivatives_of(self, operator: str) -> list[tuple[str, DerivativeEntry]]:
        """Where an operator's autograd formulas are written, and what they say."""
        rows = self.db.execute(
            "SELECT f.path, d.operator, d.line, d.end_line, d.formulas FROM derivatives d JOIN files f ON f.id = d.file_id"
            " WHERE d.operator = ? ORDER BY f.path, d.line",
            (operator,),
        )
        return [
            (
                self._out(path) or path,
                DerivativeEntry(
                    name, line, end_line, tuple((grads, formula) for grads, formula in json.loads(formulas))
                ),
            )
            for path, name, line, end_line, formulas in rows
        ]

    def operators_named(self, base: str) -> list[Symbol]:
        """`aten::conv2d` and every overload `aten::conv2d.*`."""
        key = f"operators {base}"  # (no qname has a space)
        found = self._by_qname.get(key)
        if found is None:
            found = self._by_qname[key] = self._symbols(
                "s.kind = ? AND s.lname = ?", (SymbolKind.OPERATOR.value, base.lower())
            )
        return list(found)

    def operator_names(self) -> list[str]:
        """Every operator's qualified name (`aten::conv2d.padding`), sorted."""
        rows = self.db.execute(
            "SELECT DISTINCT qname FROM symbols WHERE kind = ? ORDER BY qname", (SymbolKind.OPERATOR.value,)
        )
        return [qname for (qname,) in rows]

    def call_sites_of(self, name: str) -> list[tuple[str, CallSite]]:
        """Every call whose callee's last name is `name`, or which passes `name` as an
        argument, with its file, in file order. call_names says which files; in each, the
        rows that mention `name` are read (in SQL) and checked exactly (here)."""
        rows = self.db.execute(
            f"SELECT f.path, {CALL_COLUMNS} FROM call_names n JOIN files f ON f.id = n.file_id"
            " JOIN calls c ON c.rowid BETWEEN f.calls_first AND f.calls_first + f.calls_count - 1"
            " WHERE n.name = ?1 AND (substr(c.callee, -length(?1)) = ?1 OR instr(c.name_args, ?1) > 0)"
            " ORDER BY f.path, c.line, c.col, c.rowid",
            (name,),
        )
        found = []
        for row in rows:
            site = call_site_from_row(row[1:])
            if last_name(site.callee) == name or any(last_name(argument) == name for argument in site.name_args):
                found.append((self._out(row[0]) or row[0], site))
        return found

    def calls_in(self, caller: str, path: str, lines: tuple[int, int] | None = None) -> list[CallSite]:
        """The calls a definition makes in one file (a C++ name may be defined in several,
        and twice in one file: `lines` picks the definition)."""
        span = self._call_spans.get(path)
        if span is None:
            row = self.db.execute("SELECT calls_first, calls_count FROM files WHERE path = ?", (path,)).fetchone()
            span = self._call_spans[path] = (row[0], row[1]) if row is not None and row[0] is not None else (0, 0)
        first, count = span
        if not count:
            return []
        low, high = lines if lines is not None else (0, 1 << 62)
        rows = self.db.execute(
            f"SELECT {CALL_COLUMNS} FROM calls c WHERE c.rowid BETWEEN ? AND ? AND c.caller = ?"
            " AND c.line BETWEEN ? AND ? ORDER BY c.line, c.col, c.callee, c.rowid",
            (first, first + count - 1, caller, low, high),
        )
        return [call_site_from_row(row) for row in rows]

    def calls_in_file(self, path: str) -> dict[str, list[CallSite]]:
        """Every call of one file by caller, each caller's in the order `calls_in` gives: one
        read for a walk over all of a file's definitions (the caller column has no index, so
        asking `calls_in` once per definition reads the file's calls once per definition)."""
        row = self.db.execute("SELECT calls_first, calls_count FROM files WHERE path = ?", (path,)).fetchone()
        if row is None or row[0] is None:
            return {}
        first, count = row
        rows = self.db.execute(
            f"SELECT {CALL_COLUMNS} FROM calls c WHERE c.rowid BETWEEN ? AND ? ORDER BY c.line, c.col, c.callee, c.rowid",
            (first, first + count - 1),
        )
        by_caller: dict[str, list[CallSite]] = {}
        for site in map(call_site_from_row, rows):
            by_caller.setdefault(site.caller, []).append(site)
        return by_caller

    def python_flow(self, path: str) -> str | None:
        """The value-flow facts of a Python file (parsers/python_flow.py), as JSON."""
        row = self.db.execute(
            "SELECT p.facts FROM python_flow p JOIN files f ON f.id = p.file_id WHERE f.path = ?", (path,)
        ).fetchone()
        return zlib.decompress(row[0]).decode() if row else None

    def extension_modules(self) -> list[Symbol]:
        """The compiled modules the tree's setup.py files and cpp_extension.load calls declare."""
        return self._symbols("s.kind = 'extension' ORDER BY f.path, s.line", ())

    def symbols_of_kind_named(self, kind: SymbolKind, name: str) -> list[Symbol]:
        return self._symbols("s.lname = ? AND s.kind = ? ORDER BY f.path, s.line", (name.lower(), kind.value))

    def symbol_kinds(self) -> frozenset[str]:
        """Every kind of definition the tree holds (a scan: meant for small trees)."""
        return frozenset(kind for (kind,) in self.db.execute("SELECT DISTINCT kind FROM symbols"))

    def tree_relative(self, path: str) -> str:
        return path

    def compiled_only(self, path: str, dispatch_key: str | None = None) -> str | None:
        """A tree read alone is a source tree: nothing in it is only compiled."""
        return None

    def symbols_in_file(self, path: str) -> list[Symbol]:
        """Every definition of one file, in line order (an editor's outline of it)."""
        return self._symbols("f.path = ? ORDER BY s.line, s.end_line DESC, s.qname", (path,))

    def top_level_modules(self) -> set[str]:
        """The first parts of the tree's Python modules (`torch`, `mini_app`): the names it
        provides on the import path."""
        saved = self.meta("top_level_modules")
        return set(json.loads(saved)) if saved is not None else self._scan_top_level_modules()

    def _scan_top_level_modules(self) -> set[str]:
        # from the files, not the symbols: a module's name is its path's (parsers/python.py)
        rows = self.db.execute(
            "SELECT DISTINCT substr(path, 1, instr(path || '/', '/') - 1) FROM files WHERE lang = 'python' AND skipped IS NULL"
        )
        return {first.split(".", 1)[0] for (first,) in rows}

    def small_tree(self) -> SmallTree | None:
        """The tree's summary if it is small (at most SMALL_TREE_SYMBOLS symbols), else None."""
        saved = self.meta("small_tree")
        if saved is None:  # an index from before summaries were kept: summarised now, not saved
            return self._summarise()
        kept = json.loads(saved)
        if kept is None:
            return None
        if "kinds" not in kept:  # a summary from before kinds were kept
            return self._summarise()
        return SmallTree(frozenset(kept["first_parts"]), frozenset(kept["operator_lnames"]), frozenset(kept["kinds"]))

    def save_small_tree(self) -> None:
        """Keep the summary `small_tree` reads; inside the refresh's transaction."""
        summary = self._summarise()
        kept = (
            None
            if summary is None
            else {
                "first_parts": sorted(summary.first_parts),
                "operator_lnames": sorted(summary.operator_lnames),
                "kinds": sorted(summary.kinds),
            }
        )
        self.set_meta("small_tree", json.dumps(kept))

    def _summarise(self) -> SmallTree | None:
        limit = SMALL_TREE_SYMBOLS
        if self.db.execute("SELECT COUNT(*) FROM (SELECT 1 FROM symbols LIMIT ?)", (limit + 1,)).fetchone()[0] > limit:
            return None
        return SmallTree(
            frozenset(first_part(qname) for (qname,) in self.db.execute("SELECT DISTINCT qname FROM symbols")),
            frozenset(
                lname
                for (lname,) in self.db.execute(
                    "SELECT lname FROM symbols WHERE kind = ?", (SymbolKind.OPERATOR.value,)
                )
            ),
            self.symbol_kinds(),
        )

    def imported_top_level(self) -> set[str]:
        """The first parts of every module the tree's Python files import; not those of its
        setup.py files, whose imports (setuptools, torch.utils.cpp_extension) build it."""
        saved = self.meta("imported_top_level")
        return set(json.loads(saved)) if saved is not None else self._scan_imported_top_level()

    def _scan_imported_top_level(self) -> set[str]:
        rows = self.db.execute(
            "SELECT DISTINCT i.target FROM imports i JOIN files f ON f.id = i.file_id"
            " WHERE f.lang = 'python' AND f.path != 'setup.py' AND f.path NOT LIKE '%/setup.py'"
        )
        return {first for (target,) in rows if (first := target.split(".", 1)[0]).isidentifier()}

    def symbols_targeting(self, target: str) -> list[Symbol]:
        """Aliases and registrations whose target is `target`."""
        return self._symbols("s.target = ?", (target,))
