"""Resolving calls: the edges of the call graph, in every language and across them.

- graph.py: the CallGraph, each node's edges (joined from the rules below), backend filter;
- python_edges.py and flow/ (the value-flow solver over the parsers' facts): Python calls
  and the bindings they reach; native_edges.py: C++ and CUDA calls, dispatch, launches;
- the rules' helpers: nodes.py, arity.py, argument_kinds.py, cpp_classes.py, templates.py,
  visibility.py, stored_callables.py, generated_api.py (torchgen's C++ names), backends.py;
- sources.py (a tree's lines, read once per query) and notes.py (what could not be read).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer.doors import door

if TYPE_CHECKING:
    from explorer.resolve.arity import fitting
    from explorer.resolve.backends import BACKENDS
    from explorer.resolve.flow.calls import Call, ScopeKey
    from explorer.resolve.flow.edges import FlowEdges
    from explorer.resolve.flow.facts import Scope
    from explorer.resolve.flow.solver import STEPS_PER_SCOPE, STEPS_PER_START, WorkLimitReached
    from explorer.resolve.flow.values import Builtin, Class, External, Instance, TensorMethod
    from explorer.resolve.graph import CallGraph
    from explorer.resolve.nodes import (
        REGISTRABLE_KINDS,
        defining_stub,
        definition_lines,
        dispatch_kernels,
        layer_of,
        registered_functions,
    )
    from explorer.resolve.notes import UnreadableDefinition
    from explorer.resolve.python_edges import PythonEdges
    from explorer.resolve.sources import SourceLines

_HOME = {  # each public name, and the module of this package that defines it
    "fitting": "arity",
    "BACKENDS": "backends",
    "FlowEdges": "flow.edges",
    "Scope": "flow.facts",
    "STEPS_PER_SCOPE": "flow.solver",
    "STEPS_PER_START": "flow.solver",
    "WorkLimitReached": "flow.solver",
    "Call": "flow.calls",
    "ScopeKey": "flow.calls",
    "Builtin": "flow.values",
    "Class": "flow.values",
    "External": "flow.values",
    "Instance": "flow.values",
    "TensorMethod": "flow.values",
    "CallGraph": "graph",
    "REGISTRABLE_KINDS": "nodes",
    "defining_stub": "nodes",
    "definition_lines": "nodes",
    "dispatch_kernels": "nodes",
    "layer_of": "nodes",
    "registered_functions": "nodes",
    "UnreadableDefinition": "notes",
    "PythonEdges": "python_edges",
    "SourceLines": "sources",
}
__all__ = [  # the same names as _HOME (tests/test_doors.py)
    "BACKENDS",
    "REGISTRABLE_KINDS",
    "STEPS_PER_SCOPE",
    "STEPS_PER_START",
    "Builtin",
    "Call",
    "CallGraph",
    "Class",
    "External",
    "FlowEdges",
    "Instance",
    "PythonEdges",
    "Scope",
    "ScopeKey",
    "SourceLines",
    "TensorMethod",
    "UnreadableDefinition",
    "WorkLimitReached",
    "defining_stub",
    "definition_lines",
    "dispatch_kernels",
    "fitting",
    "layer_of",
    "registered_functions",
]

if not TYPE_CHECKING:  # to a type checker, the names are the imports above and nothing else
    __getattr__ = door(__name__, _HOME)
