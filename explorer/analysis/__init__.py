"""The analyses a user runs over the call graph.

- trace.py: what calling a symbol runs (trees and paths); limits.py: how far by default;
- neighbours.py: callers and callees; callgraph.py: the Python call graph of a tree;
- at_position.py: the definition or call at a place in a file (the editor's questions);
- details.py: what `show` says about a definition.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer.doors import door

if TYPE_CHECKING:
    from explorer.analysis.at_position import implementations, symbols_at, symbols_called_at
    from explorer.analysis.callgraph import python_call_graph_report
    from explorer.analysis.details import DEFAULT_SNIPPET_LINES, SymbolDetails, describe
    from explorer.analysis.limits import DEFAULT_DEPTH, DEFAULT_DEPTH_TO, DEFAULT_MAX_NODES, DEFAULT_PATHS
    from explorer.analysis.neighbours import NeighbourReport, callers_of, neighbours_of
    from explorer.analysis.trace import Entry, Overload, TraceNode, TraceReport, hop_cost, trace_symbol

_HOME = {  # each public name, and the module of this package that defines it
    "implementations": "at_position",
    "symbols_at": "at_position",
    "symbols_called_at": "at_position",
    "python_call_graph_report": "callgraph",
    "DEFAULT_SNIPPET_LINES": "details",
    "SymbolDetails": "details",
    "describe": "details",
    "DEFAULT_DEPTH": "limits",
    "DEFAULT_DEPTH_TO": "limits",
    "DEFAULT_MAX_NODES": "limits",
    "DEFAULT_PATHS": "limits",
    "NeighbourReport": "neighbours",
    "callers_of": "neighbours",
    "neighbours_of": "neighbours",
    "Entry": "trace",
    "Overload": "trace",
    "TraceNode": "trace",
    "TraceReport": "trace",
    "hop_cost": "trace",
    "trace_symbol": "trace",
}
__all__ = [  # the same names as _HOME (tests/test_doors.py)
    "DEFAULT_DEPTH",
    "DEFAULT_DEPTH_TO",
    "DEFAULT_MAX_NODES",
    "DEFAULT_PATHS",
    "DEFAULT_SNIPPET_LINES",
    "Entry",
    "NeighbourReport",
    "Overload",
    "SymbolDetails",
    "TraceNode",
    "TraceReport",
    "callers_of",
    "describe",
    "hop_cost",
    "implementations",
    "neighbours_of",
    "python_call_graph_report",
    "symbols_at",
    "symbols_called_at",
    "trace_symbol",
]

if not TYPE_CHECKING:  # to a type checker, the names are the imports above and nothing else
    __getattr__ = door(__name__, _HOME)
