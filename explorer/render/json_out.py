"""JSON views of explorer's records. Keys are stable: scripts and tests rely on them."""

from __future__ import annotations

import json

from explorer.index.build import RefreshReport
from explorer.model import Symbol
from explorer.query.details import SymbolDetails
from explorer.query.search import SearchHit


def dumps(value: object) -> str:
    return json.dumps(value, indent=2, sort_keys=False, ensure_ascii=False)


def symbol_json(symbol: Symbol) -> dict[str, object]:
    return {
        "symbol": symbol.qname,
        "name": symbol.name,
        "kind": symbol.kind.value,
        "lang": symbol.lang.value,
        "file": symbol.path,
        "line": symbol.line,
        "end_line": symbol.end_line,
        "signature": symbol.signature,
    }


def search_json(hits: list[SearchHit]) -> list[dict[str, object]]:
    return [{**symbol_json(hit.symbol), "match": hit.tier.name.lower()} for hit in hits]


def details_json(details: SymbolDetails) -> dict[str, object]:
    out: dict[str, object] = symbol_json(details.symbol)
    if details.symbol.target is not None:
        out["target"] = details.symbol.target
    if details.snippet is not None:
        out["snippet"] = details.snippet.text
    if details.operator is not None:
        info = details.operator
        out["operator"] = {
            "variants": list(info.variants),
            "python_module": info.python_module,
            "structured": info.structured,
            "structured_delegate": info.structured_delegate,
            "autogen": list(info.autogen),
        }
        out["dispatch"] = [
            {
                "key": row.key,
                "kernel": row.kernel,
                "line": row.line,
                "via": row.via,
                "definitions": [{"file": s.path, "line": s.line} for s in row.definitions],
            }
            for row in details.kernels
        ]
    if details.operator is not None:
        out["derivatives"] = [
            {"file": path, "line": entry.line, "formulas": [{"gradients": g, "formula": f} for g, f in entry.formulas]}
            for path, entry in details.derivatives
        ]
    if details.resolves_to:
        out["resolves_to"] = [symbol_json(s) for s in details.resolves_to]
    if details.first_call_site is not None:
        out["call_sites"] = details.call_sites
        out["first_call_site"] = {"file": details.first_call_site[0], "line": details.first_call_site[1]}
    return out


def report_json(report: RefreshReport) -> dict[str, object]:
    return {
        "index": str(report.index_path),
        "files": report.stats.files,
        "parsed_files": report.stats.parsed,
        "symbols": report.stats.symbols,
        "calls": report.stats.calls,
        "reparsed": report.parsed,
        "unchanged": report.unchanged,
        "removed": report.removed,
        "seconds": round(report.seconds, 3),
        "skipped": [{"file": d.path, "reason": d.reason} for d in report.skipped],
        "partial": [{"file": d.path, "reason": d.reason} for d in report.partial],
    }
