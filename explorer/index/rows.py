"""One file's facts as the index's rows, and rows back as records (model.py)."""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass

from explorer.index.schema import Row
from explorer.model import (
    CallKind,
    CallSite,
    FileFacts,
    Language,
    Symbol,
    SymbolKind,
    last_name,
)
from explorer.parsers.vendors import vendor_library


@dataclass(frozen=True, slots=True)
class FileRows:
    """One file's facts as table rows, built where the file was parsed, under a file id the
    refresh handed out beforehand.

    Worker processes send these back instead of the model records: a few lists of plain
    tuples pickle an order of magnitude faster than a million small objects, and the writer
    inserts them as they are."""

    file_id: int
    path: str
    lang: str
    symbols: list[Row]
    calls: list[Row]
    call_names: list[Row]
    imports: list[Row]
    dispatch: list[Row]
    operators: list[Row]
    derivatives: list[Row]
    diagnostics: list[Row]
    flow: list[Row]
    module_arguments: list[Row]


def encode_facts(facts: FileFacts, file_id: int) -> FileRows:
    # A file calls the same few names over and over: what depends only on the callee is
    # worked out once per distinct callee.
    callees = {call.callee for call in facts.calls}
    passed = {name for call in facts.calls for name in call.name_args}
    if facts.lang in (Language.CPP, Language.CUDA):
        # `::dnnl::stream` from the global namespace is the library's `dnnl::stream`
        vendors = {
            callee: library for callee in callees if (library := vendor_library(callee.removeprefix("::"))) is not None
        }
    else:
        vendors = {}
    return FileRows(
        file_id=file_id,
        path=facts.path,
        lang=facts.lang.value,
        symbols=[
            (
                file_id,
                s.qname,
                s.name,
                s.name.lower(),
                s.kind,
                s.lang,
                s.line,
                s.end_line,
                s.signature,
                s.target,
                int(s.file_local),
            )
            for s in facts.symbols
        ],
        calls=[
            (
                file_id,
                c.caller,
                c.callee,
                None if c.qualified == c.callee else c.qualified,
                c.line,
                c.column,
                c.kind,
                " ".join(c.name_args) or None,
                vendors.get(c.callee),
            )
            for c in facts.calls
        ],
        call_names=sorted({(last_name(callee), file_id) for callee in callees | passed}),
        imports=[(file_id, i.module, i.name, i.target, i.line) for i in facts.imports],
        dispatch=[(file_id, d.operator, d.key, d.kernel, d.line) for d in facts.dispatch],
        operators=[
            (
                file_id,
                o.operator,
                ",".join(o.variants),
                o.python_module,
                int(o.structured),
                o.structured_delegate,
                ",".join(o.autogen),
            )
            for o in facts.operators
        ],
        derivatives=[
            (file_id, d.operator, d.line, d.end_line, json.dumps([list(pair) for pair in d.formulas]))
            for d in facts.derivatives
        ],
        diagnostics=[(file_id, d.reason) for d in facts.diagnostics],
        # JSON of every expression of the file: a tenth of the size compressed
        flow=[(file_id, zlib.compress(facts.flow.encode(), 1))] if facts.flow is not None else [],
        module_arguments=[(file_id, a.module, a.callee, a.scope, a.index, a.line) for a in facts.module_arguments],
    )


# A trace reads tens of thousands of rows: a dict finds an enum member several times faster
# than calling the enum.
CALL_KINDS = {kind.value: kind for kind in CallKind}


SYMBOL_KINDS = {kind.value: kind for kind in SymbolKind}


LANGUAGES = {language.value: language for language in Language}


def call_site_from_row(row: Row) -> CallSite:
    caller, callee, qualified, line, col, kind, args, vendor = row
    return CallSite(caller, callee, qualified, line, col, CALL_KINDS[kind], tuple(args.split()) if args else (), vendor)


def symbol_from_row(row: Row, located: str | None = None) -> Symbol:
    qname, name, kind, lang, path, line, end_line, signature, target, file_local = row
    return Symbol(
        qname,
        name,
        SYMBOL_KINDS[kind],
        LANGUAGES[lang],
        located or path,
        line,
        end_line,
        signature,
        target,
        bool(file_local),
    )


def like_prefix(prefix: str) -> str:
    """A LIKE pattern for strings that begin with `prefix` (with `\\` as its escape)."""
    return prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
