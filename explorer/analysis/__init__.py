"""The analyses a user runs over the call graph.

- trace.py: what calling a symbol runs (trees and paths); limits.py: how far by default;
- neighbours.py: callers and callees; callgraph.py: the Python call graph of a tree;
- at_position.py: the definition or call at a place in a file (the editor's questions);
- details.py: what `show` says about a definition.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer.doors import door

if TYPE_CHECKING:  # each name as its own alias: the names this door exports
    from explorer.analysis.at_position import implementations as implementations
    from explorer.analysis.at_position import symbols_at as symbols_at
    from explorer.analysis.at_position import symbols_called_at as symbols_called_at
    from explorer.analysis.callgraph import python_call_graph_report as python_call_graph_report
    from explorer.analysis.details import DEFAULT_SNIPPET_LINES as DEFAULT_SNIPPET_LINES
    from explorer.analysis.details import SymbolDetails as SymbolDetails
    from explorer.analysis.details import describe as describe
    from explorer.analysis.limits import DEFAULT_DEPTH as DEFAULT_DEPTH
    from explorer.analysis.limits import DEFAULT_DEPTH_TO as DEFAULT_DEPTH_TO
    from explorer.analysis.limits import DEFAULT_MAX_NODES as DEFAULT_MAX_NODES
    from explorer.analysis.limits import DEFAULT_PATHS as DEFAULT_PATHS
    from explorer.analysis.neighbours import NeighbourReport as NeighbourReport
    from explorer.analysis.neighbours import called_node as called_node
    from explorer.analysis.neighbours import callers_of as callers_of
    from explorer.analysis.neighbours import neighbours_of as neighbours_of
    from explorer.analysis.trace import Entry as Entry
    from explorer.analysis.trace import Overload as Overload
    from explorer.analysis.trace import TraceNode as TraceNode
    from explorer.analysis.trace import TraceReport as TraceReport
    from explorer.analysis.trace import hop_cost as hop_cost
    from explorer.analysis.trace import trace_symbol as trace_symbol

_HOME = {  # each name above, and the module of this package that defines it (tests/test_doors.py)
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
    "called_node": "neighbours",
    "callers_of": "neighbours",
    "neighbours_of": "neighbours",
    "Entry": "trace",
    "Overload": "trace",
    "TraceNode": "trace",
    "TraceReport": "trace",
    "hop_cost": "trace",
    "trace_symbol": "trace",
}

if not TYPE_CHECKING:  # to a type checker, the names are the imports above and nothing else
    __getattr__ = door(__name__, _HOME)
