"""`explorer run`: run a program under tracing and print its call tree across Python, the
torch._C binding, operators, C++ and vendor calls."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from explorer.cli.common import IndexOption, JsonOption, RootOption, open_index, reports_errors, stdout
from explorer.cli.diagram_options import (
    DEFAULT_MAX_NODES,
    FormatOption,
    MaxNodesOption,
    OutputOption,
    diagram_request,
    write_diagram,
)
from explorer.errors import UsageError
from explorer.render.json_out import dumps
from explorer.runtime.request import DEFAULT_MAX_EVENTS, RunRequest

if TYPE_CHECKING:
    from explorer.runtime.model import RunFrame

PrefixesOption = Optional[list[str]]


@reports_errors
def run(
    program: Annotated[Optional[list[str]], typer.Argument(help="SCRIPT [ARGS...] (after --), unless -c is given.", show_default=False)] = None,
    code: Annotated[Optional[str], typer.Option("-c", "--code", help="Program passed in as a string, as python -c.", show_default=False)] = None,
    root: RootOption = None,
    index: IndexOption = None,
    python: Annotated[
        Optional[str],
        typer.Option("--python", help="Interpreter with real PyTorch: record its operators with the PyTorch profiler.", show_default=False),
    ] = None,
    backend_device: Annotated[
        Optional[str],
        typer.Option("--backend-device", help="Bundled runtime: run every tensor on cpu or cuda (emulated), whatever the code says.", show_default=False),
    ] = None,
    compare: Annotated[bool, typer.Option("--compare", help="Lay the run over the static call graph: confirmed, not taken, missed.")] = False,
    include: Annotated[PrefixesOption, typer.Option("--include", help="Show only frames in this module, class or namespace (repeatable).", show_default=False)] = None,
    exclude: Annotated[PrefixesOption, typer.Option("--exclude", help="Leave out frames in this module, class or namespace, and what they call (repeatable).", show_default=False)] = None,
    max_depth: Annotated[Optional[int], typer.Option("--max-depth", help="Show this many levels below the program.", show_default=False)] = None,
    max_events: Annotated[int, typer.Option("--max-events", help="Most call events to record (Python and native each).")] = DEFAULT_MAX_EVENTS,
    json: JsonOption = False,
    output_format: FormatOption = "tree",
    output: OutputOption = None,
    max_nodes: MaxNodesOption = DEFAULT_MAX_NODES,
) -> None:
    """Run SCRIPT (or -c CODE) under tracing and print the call tree it ran."""
    # the runtime, the call graph and their views load for this command only
    from explorer.diagram.run import run_diagram
    from explorer.render.run_json import comparison_json, run_json
    from explorer.render.run_text import comparison_text, run_text
    from explorer.runtime.compare import compare_run
    from explorer.runtime.run import run_program

    drawing = diagram_request(output_format, output, max_nodes, None, None, json=json)
    if max_depth is not None and max_depth < 1:
        raise UsageError("--max-depth must be at least 1")
    script, argv = (program[0], tuple(program[1:])) if program and code is None else (None, tuple(program or ()))
    shape = _Shape(tuple(include or ()), tuple(exclude or ()), max_depth)
    if python is not None and root is None and not os.environ.get("EXPLORER_ROOT"):
        # Real PyTorch without a source tree: operators come from the installed wheel's YAML,
        # and there is no static graph to index or compare with.
        if compare:
            raise UsageError("--compare needs the PyTorch source tree the run is compared with: add --root")
        trace = run_program(RunRequest(code, script, argv, "", python, backend_device, max_events), None)
        shown, cut = shape.apply(trace.root)
        comparison = None
        tree = os.getcwd()
    else:
        with open_index(root, index) as (tree, store):
            trace = run_program(RunRequest(code, script, argv, tree, python, backend_device, max_events), store)
            shown, cut = shape.apply(trace.root)
            comparison = compare_run(store, tree, trace.root) if compare else None
    if drawing.wanted:
        write_diagram(run_diagram(trace, shown, comparison), drawing, tree, "run")
    elif json:
        document = run_json(trace, shown)
        if comparison is not None:
            document["comparison"] = comparison_json(comparison)
        stdout.print_json(dumps(document))
    else:
        run_text(stdout, trace, shown, cut)
        if comparison is not None:
            comparison_text(stdout, comparison)
    if trace.exit_code != 0:
        raise typer.Exit(trace.exit_code if 0 < trace.exit_code < 126 else 1)


@dataclass(frozen=True, slots=True)
class _Shape:
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    max_depth: int | None

    def apply(self, tree: RunFrame) -> tuple[RunFrame, int]:
        from explorer.runtime.shaping import filtered, fold_repeats, limited

        # calls a filter left side by side may be the same call: fold them again
        shown = fold_repeats(filtered(tree, self.include, self.exclude))
        return limited(shown, self.max_depth) if self.max_depth is not None else (shown, 0)
