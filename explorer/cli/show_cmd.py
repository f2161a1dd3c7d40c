"""`explorer show`: where a symbol is defined, its signature and source, and what it maps to."""

from __future__ import annotations

from rich.text import Text

from explorer.analysis import DEFAULT_SNIPPET_LINES, describe
from explorer.cli.common import open_index, reports_errors, stdout
from explorer.errors import UsageError
from explorer.names import look_up
from explorer.render.json_out import details_json, dumps, write_json
from explorer.render.text import details_text, printable
from explorer.workspace import TreeRequest

_MAX_SHOWN = 10


@reports_errors
def show(
    symbol: str,
    where: TreeRequest,
    json: bool = False,
    tests: bool = False,
    lines: int = DEFAULT_SNIPPET_LINES,
) -> None:
    """Show a symbol's definition: location, signature, source, dispatch table or alias target."""
    if lines < 1:
        raise UsageError("--lines must be at least 1")
    with open_index(where) as (tree, store):
        resolution = look_up(store, symbol)
        details = [describe(store, tree, found, lines, tests=tests) for found in resolution.symbols[:_MAX_SHOWN]]
    if json:
        write_json(
            stdout, dumps({"query": symbol, "via": resolution.via, "definitions": [details_json(d) for d in details]})
        )
        return
    for hop in resolution.via:  # holds what the user typed: text, never rich markup
        stdout.print(Text(printable(hop), "dim"), soft_wrap=True)
    if len(resolution.symbols) > 1:
        shown = min(len(resolution.symbols), _MAX_SHOWN)
        more = f" (showing {shown})" if shown < len(resolution.symbols) else ""
        stdout.print(Text(f"{len(resolution.symbols)} definitions match {symbol!r}{more}"))
    for number, item in enumerate(details):
        if number:
            stdout.print()
        details_text(stdout, item)
