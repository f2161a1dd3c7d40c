"""`explorer callers` and `explorer callees`: one step (or --depth steps) up or down the call graph."""

from __future__ import annotations

from typing import Annotated

import typer

from explorer.cli.common import IndexOption, JsonOption, RootOption, open_index, reports_errors, stderr, stdout
from explorer.query.neighbours import neighbours
from explorer.render.json_out import dumps, neighbours_json
from explorer.render.text import neighbours_text

DepthOption = Annotated[int, typer.Option("--depth", "-d", help="Steps to follow.")]


def _run(direction: str, symbol: str, root: str | None, index: str | None, depth: int, json: bool) -> None:
    with open_index(root, index) as (tree, store):
        report = neighbours(store, tree, symbol, direction, depth)
    if json:
        stdout.print_json(dumps(neighbours_json(report)))
        if report.truncated:
            stderr.print("note: truncated: more definitions than listed; narrow with --depth")
    else:
        neighbours_text(stdout, report)


@reports_errors
def callers(
    symbol: Annotated[str, typer.Argument(help="cudnnConvolutionForward, aten::cudnn_convolution, F.conv2d...")],
    root: RootOption = None,
    index: IndexOption = None,
    depth: DepthOption = 1,
    json: JsonOption = False,
) -> None:
    """Who calls SYMBOL, across every layer (a kernel's operator, an operator's C++ and Python callers...)."""
    _run("callers", symbol, root, index, depth, json)


@reports_errors
def callees(
    symbol: Annotated[str, typer.Argument(help="torch.nn.Conv2d, aten::conv2d, at::native::_convolution...")],
    root: RootOption = None,
    index: IndexOption = None,
    depth: DepthOption = 1,
    json: JsonOption = False,
) -> None:
    """What SYMBOL calls, across every layer and every backend."""
    _run("callees", symbol, root, index, depth, json)
