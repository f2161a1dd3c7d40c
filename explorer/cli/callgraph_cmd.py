"""`explorer callgraph`: the tree's Python call graph as JSON (PyCG's adjacency-list shape)."""

from __future__ import annotations

import json as json_module

from explorer.cli.common import open_index, reports_errors, stderr, stdout
from explorer.errors import UsageError
from explorer.workspace import TreeRequest


@reports_errors
def callgraph(
    where: TreeRequest,
    format: str = "json",
) -> None:
    """Print the Python call graph: each module, function, method and lambda, and what it may call."""
    if format != "json":
        raise UsageError(f"unknown format {format!r}; one of: json")
    from explorer.analysis import python_call_graph_report  # the value-flow solver: this command's alone

    with open_index(where) as (tree, store):
        graph = python_call_graph_report(store, tree)
    # plain print: an adjacency list of a large tree is too big for rich's highlighter
    stdout.file.write(json_module.dumps(graph.calls, indent=2) + "\n")
    if graph.capped:
        stderr.print(
            f"note: {graph.capped} value sets were too large to follow and were capped; their calls have no edge",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
