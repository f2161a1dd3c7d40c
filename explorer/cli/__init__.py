"""The `explorer` command. Each command lives in its own module and only parses arguments,
calls the library and hands the result to a renderer."""

from __future__ import annotations

import typer

from explorer.cli.callgraph_cmd import callgraph
from explorer.cli.index_cmd import index
from explorer.cli.lsp_cmd import lsp
from explorer.cli.neighbours_cmd import callees, callers
from explorer.cli.run_cmd import run
from explorer.cli.search_cmd import search
from explorer.cli.show_cmd import show
from explorer.cli.trace_cmd import trace

app = typer.Typer(
    name="explorer",
    help="Explore PyTorch-style source trees across Python, C++/CUDA and native_functions.yaml.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
app.command()(index)
app.command()(search)
app.command()(show)
app.command()(trace)
app.command()(callers)
app.command()(callees)
app.command()(callgraph)
app.command()(lsp)
app.command(context_settings={"allow_interspersed_args": False, "ignore_unknown_options": True})(run)


def main() -> None:
    app()
