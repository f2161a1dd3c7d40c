"""`explorer trace`: the call tree (or the paths to a target) from a Python API down to C++."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional

import typer

from explorer.cli.common import IndexOption, JsonOption, PythonEnvOption, RootOption, TreesOption, open_trees, reports_errors, stderr, stdout
from explorer.cli.diagram_options import (
    DEFAULT_MAX_NODES,
    CollapseOption,
    FormatOption,
    LinkTemplateOption,
    MaxNodesOption,
    OutputOption,
    diagram_request,
    write_diagram,
)
from explorer.errors import ExplorerError, UsageError
from explorer.query.patterns import target_heading
from explorer.query.limits import DEFAULT_DEPTH, DEFAULT_DEPTH_TO, DEFAULT_PATHS
from explorer.render.json_out import dumps, trace_json, write_json
from explorer.render.text import printable, trace_text, unreadable_note

if TYPE_CHECKING:
    from explorer.query.trace import TraceReport


@reports_errors
def trace(
    symbol: Annotated[str, typer.Argument(help="torch.nn.Conv2d, F.conv2d, aten::conv2d, at::native::_convolution...")],
    root: RootOption = None,
    index: IndexOption = None,
    trees: TreesOption = None,
    python_env: PythonEnvOption = None,
    to: Annotated[
        Optional[str],
        typer.Option(
            "--to",
            help="Keep only paths reaching this: a name (cudnnConvolutionForward, at::native::add) matches definitions of "
            "exactly that name, or, if the tree has none, names containing it; anything else is a regular expression "
            "(RE2 syntax: no lookaround or backreferences) searched in qualified names.",
        ),
    ] = None,
    backend: Annotated[str, typer.Option("--backend", help="cuda (with cuDNN/cuBLAS), cpu, or all.")] = "cuda",
    max_depth: Annotated[
        Optional[int],
        typer.Option("--max-depth", help=f"Hops to follow (default {DEFAULT_DEPTH}, or {DEFAULT_DEPTH_TO} with --to).", show_default=False),
    ] = None,
    paths: Annotated[
        int, typer.Option("--paths", help=f"With --to: how many paths to list, best first (default {DEFAULT_PATHS}).", show_default=False),
    ] = DEFAULT_PATHS,
    json: JsonOption = False,
    output_format: FormatOption = "tree",
    output: OutputOption = None,
    max_nodes: MaxNodesOption = DEFAULT_MAX_NODES,
    collapse: CollapseOption = None,
    link_template: LinkTemplateOption = None,
    only_paths: Annotated[bool, typer.Option("--only-paths", help="Diagram: leave out what is off the --to paths.")] = False,
    dynamic: Annotated[
        Optional[str],
        typer.Option("--dynamic", help="Also run this code on the bundled runtime and compare the run with the static graph (as run --compare).", show_default=False),
    ] = None,
) -> None:
    """Trace what calling SYMBOL runs, across Python, the torch._C binding, YAML, C++ and vendor APIs."""
    request = diagram_request(
        output_format, output, max_nodes, collapse, link_template, json=json, only_paths=only_paths, to=to
    )
    if dynamic is not None and (request.wanted or json):
        raise UsageError("--dynamic prints the comparison as text; it does not combine with --json or --format")
    # the call graph (and the runtime, for --dynamic) load here, not for every command
    from explorer.diagram.build import trace_diagram
    from explorer.query.trace import trace_symbol
    with open_trees(root, index, trees, python_env) as workspace:
        tree, store, spanned = workspace.root, workspace.reader, workspace.trees
        report = trace_symbol(store, tree, symbol, backend=backend, max_depth=max_depth, to=to, paths=paths)
        if dynamic is not None:
            from explorer.render.run_text import comparison_text
            from explorer.runtime.compare import compare_run, trace_nodes
            from explorer.runtime.request import RunRequest
            from explorer.runtime.run import run_program

            run = run_program(RunRequest(dynamic, None, (), tree), store)
            comparison = compare_run(store, tree, run.root)
            trace_text(stdout, report, to)
            comparison_text(stdout, comparison, within=trace_nodes(report))
            _note_unreadable(report)
            return
    if request.wanted:
        if to is not None and not report.trace.paths:
            raise ExplorerError(
                f"no path from {printable(report.start.symbol.qname)} to {printable(target_heading(to))} (backend {backend}); nothing drawn"
            )
        write_diagram(trace_diagram(report), request, tree, symbol)
    elif json:
        write_json(stdout, dumps(trace_json(report, tree, to, spanned)))
    else:
        trace_text(stdout, report, to)
    _note_unreadable(report)
    if to is not None and not report.trace.paths:
        raise typer.Exit(1)


def _note_unreadable(report: TraceReport) -> None:
    note = unreadable_note(report.unreadable)
    if note is not None:
        stderr.print(note, markup=False, highlight=False, soft_wrap=True)
