"""The index's tables: their SQL, the schema's version and the fingerprint of the parsers that
filled them (an index of another version or by other parsers is rebuilt, never read)."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any

from explorer.folders import GRAMMARS_DIR

SCHEMA_VERSION = 19  # 19: symbols_lname holds the kind; 18: module arguments, bindings on them; 13: namespace_prefixes; 14: python_flow; 15: its statements decoded per scope; 16: C++ registrations, extensions; 17: vendor calls judged without a leading ::


Row = tuple[Any, ...]  # a row as SQLite returns it


@functools.cache
def extraction_fingerprint() -> str:
    """A hash of the code and queries that decide what an index holds: an index written by
    other parsers is rebuilt, as one of another schema is."""
    here = Path(__file__).resolve().parent
    derivations = (here / "rows.py", here / "linking.py", here / "module_parameters.py")
    return fingerprint_of(here.parent / "parsers", GRAMMARS_DIR, derivations)


def fingerprint_of(parsers: Path, grammars: Path, derivations: tuple[Path, ...] = ()) -> str:
    """`derivations`: code outside the parsers that decides stored rows (facts encoded as rows;
    the links drawn across files, which every refresh works out again)."""
    digest = hashlib.sha256(str(SCHEMA_VERSION).encode())
    # In an order that does not depend on where the package lies: a checkout keeps grammars/
    # beside the package, a wheel inside it, and both may share one cache folder.
    sources = [
        *sorted((path.relative_to(parsers).as_posix(), path) for path in parsers.glob("*.py")),
        *sorted((path.name, path) for path in derivations),
        *sorted(
            (path.relative_to(grammars).as_posix(), path)
            for path in [*grammars.rglob("*.scm"), *grammars.glob("*.yaml")]
        ),
    ]
    for name, source in sources:
        digest.update(name.encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    lang TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    hash TEXT,
    skipped TEXT,             -- why the file was not parsed, NULL when it was
    calls_first INTEGER,      -- rowid of the file's first row in calls (its rows are consecutive)
    calls_count INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE walk_skips (path TEXT NOT NULL, reason TEXT NOT NULL);
CREATE TABLE diagnostics (file_id INTEGER NOT NULL, reason TEXT NOT NULL);
CREATE TABLE symbols (
    id INTEGER PRIMARY KEY,
    file_id INTEGER,          -- NULL for vendor symbols, which have no source
    qname TEXT NOT NULL,
    name TEXT NOT NULL,
    lname TEXT NOT NULL,      -- lower-cased name, for search
    kind TEXT NOT NULL,
    lang TEXT NOT NULL,
    line INTEGER,
    end_line INTEGER,
    signature TEXT NOT NULL,
    target TEXT,
    file_local INTEGER NOT NULL DEFAULT 0,  -- C++ static or anonymous-namespace: seen only in its file
    written_qname TEXT        -- a binding on a module parameter, as parsed: `qname` is what the index made of it
);
-- Every distinct symbol name, for search: scanning these is several times cheaper than
-- scanning the symbols. Names of deleted symbols may linger; they only find nothing.
CREATE TABLE names (lname TEXT NOT NULL, name TEXT NOT NULL, PRIMARY KEY (lname, name)) WITHOUT ROWID;
-- Append-only, with no index but a small partial one: a file's calls are the consecutive
-- rowids its row in `files` names, in source order, and the files calling a name are found
-- through call_names. (Indexing a million call rows by file and by name took most of the
-- time a new index spends after parsing.)
CREATE TABLE calls (
    file_id INTEGER NOT NULL,
    caller TEXT NOT NULL,
    callee TEXT NOT NULL,
    qualified TEXT,            -- the callee with imports expanded; NULL when the same as callee
    line INTEGER NOT NULL,
    col INTEGER NOT NULL,
    kind TEXT NOT NULL,
    name_args TEXT,            -- names passed as arguments, space separated; NULL for none
    vendor TEXT                -- the vendor library of the callee, if it is one
);
-- Which files call a name (the callee's last name: `gemm` for `at::cuda::blas::gemm<float>`),
-- or pass it as an argument (a function pointer).
CREATE TABLE call_names (name TEXT NOT NULL, file_id INTEGER NOT NULL, PRIMARY KEY (name, file_id)) WITHOUT ROWID;
CREATE TABLE imports (file_id INTEGER NOT NULL, module TEXT NOT NULL, name TEXT NOT NULL, target TEXT NOT NULL, line INTEGER NOT NULL);
CREATE TABLE dispatch (file_id INTEGER NOT NULL, operator TEXT NOT NULL, key TEXT NOT NULL, kernel TEXT NOT NULL, line INTEGER NOT NULL);
CREATE TABLE derivatives (
    file_id INTEGER NOT NULL,
    operator TEXT NOT NULL,
    line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    formulas TEXT NOT NULL     -- JSON list of [gradients, formula] pairs
);
-- Headers included inside a namespace block (`namespace at::native { #include "X.cuh" }`):
-- the namespace their definitions have been put in, so that it can be taken off again.
CREATE TABLE namespace_prefixes (file_id INTEGER PRIMARY KEY, namespace TEXT NOT NULL);
-- Python module objects handed to C++ functions (parsers/cpp_modules.py), and the bindings
-- made on module parameters, as parsed: rebuild_derived joins them into `symbols`.
CREATE TABLE module_arguments (file_id INTEGER NOT NULL, module TEXT NOT NULL, callee TEXT NOT NULL, scope TEXT NOT NULL, position INTEGER NOT NULL, line INTEGER NOT NULL);
CREATE TABLE module_bindings (
    file_id INTEGER NOT NULL, qname TEXT NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL, lang TEXT NOT NULL,
    line INTEGER, end_line INTEGER, signature TEXT NOT NULL, target TEXT
);
CREATE TABLE python_flow (file_id INTEGER PRIMARY KEY, facts BLOB NOT NULL);  -- zlib-compressed JSON lines
CREATE TABLE operators (
    file_id INTEGER NOT NULL,
    operator TEXT NOT NULL,
    variants TEXT NOT NULL,
    python_module TEXT,
    structured INTEGER NOT NULL,
    structured_delegate TEXT,
    autogen TEXT NOT NULL
);
"""


INDEXES = """
CREATE INDEX IF NOT EXISTS symbols_qname ON symbols(qname);
CREATE INDEX IF NOT EXISTS symbols_lname ON symbols(lname, kind);  -- a name of one kind: `forward` has thousands, one a binding
CREATE INDEX IF NOT EXISTS symbols_file ON symbols(file_id);
CREATE INDEX IF NOT EXISTS symbols_target ON symbols(target) WHERE target IS NOT NULL;
CREATE INDEX IF NOT EXISTS symbols_extension ON symbols(kind) WHERE kind = 'extension';
CREATE INDEX IF NOT EXISTS calls_vendor ON calls(callee, vendor) WHERE vendor IS NOT NULL;
CREATE INDEX IF NOT EXISTS imports_file ON imports(file_id);
CREATE INDEX IF NOT EXISTS imports_module ON imports(module);
CREATE INDEX IF NOT EXISTS imports_name ON imports(name);
CREATE INDEX IF NOT EXISTS dispatch_file ON dispatch(file_id);
CREATE INDEX IF NOT EXISTS dispatch_operator ON dispatch(operator);
CREATE INDEX IF NOT EXISTS dispatch_kernel ON dispatch(kernel);
CREATE INDEX IF NOT EXISTS operators_file ON operators(file_id);
CREATE INDEX IF NOT EXISTS derivatives_file ON derivatives(file_id);
CREATE INDEX IF NOT EXISTS derivatives_operator ON derivatives(operator);
CREATE INDEX IF NOT EXISTS operators_operator ON operators(operator);
CREATE INDEX IF NOT EXISTS diagnostics_file ON diagnostics(file_id);
CREATE INDEX IF NOT EXISTS symbols_written ON symbols(written_qname) WHERE written_qname IS NOT NULL;
CREATE INDEX IF NOT EXISTS module_arguments_file ON module_arguments(file_id);
CREATE INDEX IF NOT EXISTS module_bindings_file ON module_bindings(file_id);
"""


PER_FILE_TABLES = (
    "symbols",
    "imports",
    "dispatch",
    "operators",
    "derivatives",
    "diagnostics",
    "namespace_prefixes",
    "python_flow",
    "module_arguments",
    "module_bindings",
)


CALL_COLUMNS = "c.caller, c.callee, COALESCE(c.qualified, c.callee), c.line, c.col, c.kind, c.name_args, c.vendor"


SYMBOL_COLUMNS = "s.qname, s.name, s.kind, s.lang, f.path, s.line, s.end_line, s.signature, s.target, s.file_local"


INSERT_CALL = "INSERT INTO calls VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"


INSERT_SYMBOL = (
    "INSERT INTO symbols (file_id, qname, name, lname, kind, lang, line, end_line, signature, target, file_local)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
