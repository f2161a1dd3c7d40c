"""`explorer trace`: the call tree (or the paths to a target) from a Python API down to C++."""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer.analysis import DEFAULT_MAX_NODES, DEFAULT_PATHS
from explorer.cli.common import open_trees, reports_errors, stderr, stdout
from explorer.cli.diagram_options import diagram_request, write_diagram
from explorer.errors import ExplorerError, UsageError
from explorer.names import target_heading
from explorer.render.json_out import dumps, trace_json, write_json
from explorer.render.text import printable, trace_text, unreadable_note
from explorer.workspace import TreeRequest

if TYPE_CHECKING:
    from explorer.analysis import TraceReport


@reports_errors
def trace(
    symbol: str,
    where: TreeRequest,
    to: str | None = None,
    backend: str = "cuda",
    max_depth: int | None = None,
    paths: int = DEFAULT_PATHS,
    json: bool = False,
    output_format: str = "tree",
    output: str | None = None,
    max_nodes: int = DEFAULT_MAX_NODES,
    collapse: list[str] | None = None,
    link_template: str | None = None,
    only_paths: bool = False,
    context: bool = False,
    dynamic: str | None = None,
    tests: bool = False,
) -> None:
    """Trace what calling SYMBOL runs, across Python, the torch._C binding, YAML, C++ and vendor APIs."""
    request = diagram_request(
        output_format,
        output,
        max_nodes,
        collapse,
        link_template,
        json=json,
        only_paths=only_paths,
        to=to,
        context=context,
    )
    if dynamic is not None and (request.wanted or json):
        raise UsageError("--dynamic prints the comparison as text; it does not combine with --json or --format")
    # the call graph (and the runtime, for --dynamic) load here, not for every command
    from explorer.analysis import trace_symbol

    with open_trees(where) as workspace:
        tree, store, spanned = workspace.root, workspace.reader, workspace.trees
        report = trace_symbol(
            store,
            tree,
            symbol,
            backend=backend,
            max_depth=max_depth,
            to=to,
            paths=paths,
            tests=tests,
            kept=workspace.kept_edges(),
        )
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
        if report.target_closest is not None:
            closest = f"; closest: {', '.join(report.target_closest)}" if report.target_closest else ""
            raise ExplorerError(
                f"no definition in the trees is named like --to {printable(target_heading(to or ''))}{closest}; nothing drawn"
            )
        if to is not None and not report.trace.paths:
            raise ExplorerError(
                f"no path from {printable(report.start.symbol.qname)} to {printable(target_heading(to))} (backend {backend}); nothing drawn"
            )
        from explorer.diagram.build import trace_diagram

        write_diagram(trace_diagram(report), request, tree, symbol)
    elif json:
        write_json(stdout, dumps(trace_json(report, tree, to, spanned)))
    else:
        trace_text(stdout, report, to)
    _note_unreadable(report)
    if to is not None and not report.trace.paths:
        raise SystemExit(1)  # no path: as grep with no match


def _note_unreadable(report: TraceReport) -> None:
    note = unreadable_note(report.unreadable)
    if note is not None:
        stderr.print(note, markup=False, highlight=False, soft_wrap=True)
