"""`explorer callers` and `explorer callees`: one step (or --depth steps) up or down the call graph."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

import typer

from explorer.cli.common import IndexOption, PythonEnvOption, TreesOption, JsonOption, RootOption, open_index, reports_errors, stderr, stdout
from explorer.cli.diagram_options import (
    DEFAULT_MAX_NODES,
    CollapseOption,
    DiagramRequest,
    FormatOption,
    LinkTemplateOption,
    MaxNodesOption,
    OutputOption,
    diagram_request,
    write_diagram,
)
from explorer.render.json_out import dumps, neighbours_json, write_json
from explorer.trees import TreeRequest
from explorer.render.text import neighbours_text, unreadable_note

DepthOption = Annotated[int, typer.Option("--depth", "-d", help="Steps to follow.")]


def _run(direction: str, symbol: str, trees: TreeRequest, depth: int, json: bool, request: DiagramRequest) -> None:
    from explorer.diagram.build import neighbours_diagram  # the call graph loads for these commands only
    from explorer.query.neighbours import neighbours

    with open_index(trees.root, trees.index, list(trees.trees), trees.python) as (tree, store):
        report = neighbours(store, tree, symbol, direction, depth)
    if request.wanted:
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


SymbolArgument = Annotated[
    str, typer.Argument(help="A definition: torch.nn.Conv2d, F.conv2d, aten::conv2d, at::native::_convolution, cudnnConvolutionForward...")
]


def _command(direction: str, summary: str) -> Callable[..., None]:
    """`callers` and `callees` take the same options and differ only in direction."""

    def command(
        symbol: SymbolArgument,
        root: RootOption = None,
        index: IndexOption = None,
        trees: TreesOption = None,
        python_env: PythonEnvOption = None,
        depth: DepthOption = 1,
        json: JsonOption = False,
        output_format: FormatOption = "tree",
        output: OutputOption = None,
        max_nodes: MaxNodesOption = DEFAULT_MAX_NODES,
        collapse: CollapseOption = None,
        link_template: LinkTemplateOption = None,
    ) -> None:
        request = diagram_request(output_format, output, max_nodes, collapse, link_template, json=json)
        _run(direction, symbol, TreeRequest(root, index, tuple(trees or ()), python_env), depth, json, request)

    command.__name__ = command.__qualname__ = direction  # the command's name on the command line
    command.__doc__ = summary
    return reports_errors(command)


callers = _command("callers", "Who calls SYMBOL, across every layer (a kernel's operator, an operator's C++ and Python callers...).")
callees = _command("callees", "What SYMBOL calls, across every layer and every backend.")
