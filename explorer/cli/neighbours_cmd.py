"""`explorer callers` and `explorer callees`: one step (or --depth steps) up or down the call graph."""

from __future__ import annotations

from collections.abc import Callable

from explorer.analysis import DEFAULT_MAX_NODES
from explorer.cli.common import open_index, reports_errors, stderr, stdout
from explorer.cli.diagram_options import DiagramRequest, diagram_request, write_diagram
from explorer.render.json_out import dumps, neighbours_json, write_json
from explorer.render.text import neighbours_text, unreadable_note
from explorer.workspace import TreeRequest


def _run(
    direction: str, symbol: str, where: TreeRequest, depth: int, json: bool, request: DiagramRequest, tests: bool
) -> None:
    from explorer.analysis import neighbours_of  # the call graph loads for these commands only

    with open_index(where) as (tree, store):
        report = neighbours_of(store, tree, symbol, direction, depth, tests=tests)
    if request.wanted:
        from explorer.diagram.build import neighbours_diagram

        write_diagram(neighbours_diagram(report), request, tree, symbol, direction)
    elif json:
        write_json(stdout, dumps(neighbours_json(report)))
    else:
        neighbours_text(stdout, report)
    if report.truncated and (json or request.wanted):
        stderr.print("note: truncated: more definitions than listed; narrow with --depth")
    note = unreadable_note(report.unreadable)
    if note is not None:
        stderr.print(note, markup=False, highlight=False, soft_wrap=True)


def _command(direction: str, summary: str) -> Callable[..., None]:
    """`callers` and `callees` take the same options and differ only in direction."""

    def command(
        symbol: str,
        where: TreeRequest,
        depth: int = 1,
        json: bool = False,
        output_format: str = "tree",
        output: str | None = None,
        max_nodes: int = DEFAULT_MAX_NODES,
        collapse: list[str] | None = None,
        link_template: str | None = None,
        tests: bool = False,
    ) -> None:
        request = diagram_request(output_format, output, max_nodes, collapse, link_template, json=json)
        _run(direction, symbol, where, depth, json, request, tests)

    command.__name__ = command.__qualname__ = direction
    command.__doc__ = summary
    return reports_errors(command)


callers = _command(
    "callers", "Who calls SYMBOL, across every layer (a kernel's operator, an operator's C++ and Python callers...)."
)
callees = _command("callees", "What SYMBOL calls, across every layer and every backend.")
