"""`explorer search`: IDE-style symbol search across Python, C++/CUDA and YAML."""

from __future__ import annotations

from explorer.cli.common import open_index, reports_errors, stdout
from explorer.errors import UsageError
from explorer.model import Language, SymbolKind
from explorer.names import SearchFilter
from explorer.names import search_symbols as run_search
from explorer.render.json_out import dumps, search_json, write_json
from explorer.render.text import search_text
from explorer.workspace import TreeRequest

_LANGS = {
    "python": Language.PYTHON,
    "cpp": Language.CPP,
    "cuda": Language.CUDA,
    "yaml": Language.YAML,
    "vendor": Language.VENDOR,
}


@reports_errors
def search(
    query: str,
    where: TreeRequest,
    kind: str | None = None,
    lang: str | None = None,
    limit: int = 20,
    json: bool = False,
) -> None:
    """Find symbols by name: exact first, then prefix, word and fuzzy matches."""
    only = SearchFilter(kind=_kind(kind), lang=_lang(lang))
    if not query.strip():
        raise UsageError("give a name to search for")
    if limit < 1:
        raise UsageError("--limit must be at least 1")
    with open_index(where) as (_, store):
        hits = run_search(store, query, limit=limit, where=only)
    if json:
        write_json(stdout, dumps(search_json(hits)))
    elif hits:
        search_text(stdout, hits)
    else:
        # the query as typed, quoted as Python would, never read as rich markup (`[a-z]`)
        hint = " (the query is text, not a pattern)" if any(char in query for char in "*?[") else ""
        stdout.print(f"no symbol matches {query!r}{hint}", markup=False, highlight=False, soft_wrap=True)


def _kind(value: str | None) -> SymbolKind | None:
    if value is None:
        return None
    try:
        return SymbolKind(value)
    except ValueError:
        raise UsageError(f"unknown kind {value!r}; one of: {', '.join(k.value for k in SymbolKind)}") from None


def _lang(value: str | None) -> Language | None:
    if value is None:
        return None
    if value not in _LANGS:
        raise UsageError(f"unknown language {value!r}; one of: {', '.join(_LANGS)}")
    return _LANGS[value]
