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

if TYPE_CHECKING:  # each name as its own alias: the names this door exports
    from explorer.resolve.arity import fitting as fitting
    from explorer.resolve.backends import BACKENDS as BACKENDS
    from explorer.resolve.flow.calls import Call as Call
    from explorer.resolve.flow.calls import ScopeKey as ScopeKey
    from explorer.resolve.flow.edges import FlowEdges as FlowEdges
    from explorer.resolve.flow.facts import Scope as Scope
    from explorer.resolve.flow.solver import STEPS_PER_SCOPE as STEPS_PER_SCOPE
    from explorer.resolve.flow.solver import STEPS_PER_START as STEPS_PER_START
    from explorer.resolve.flow.solver import WorkLimitReached as WorkLimitReached
    from explorer.resolve.flow.values import Builtin as Builtin
    from explorer.resolve.flow.values import Class as Class
    from explorer.resolve.flow.values import External as External
    from explorer.resolve.flow.values import Instance as Instance
    from explorer.resolve.flow.values import TensorMethod as TensorMethod
    from explorer.resolve.graph import CallGraph as CallGraph
    from explorer.resolve.nodes import REGISTRABLE_KINDS as REGISTRABLE_KINDS
    from explorer.resolve.nodes import defining_stub as defining_stub
    from explorer.resolve.nodes import definition_lines as definition_lines
    from explorer.resolve.nodes import dispatch_kernels as dispatch_kernels
    from explorer.resolve.nodes import layer_of as layer_of
    from explorer.resolve.nodes import registered_functions as registered_functions
    from explorer.resolve.notes import UnreadableDefinition as UnreadableDefinition
    from explorer.resolve.python_edges import PythonEdges as PythonEdges
    from explorer.resolve.sources import SourceLines as SourceLines

_HOME = {  # each name above, and the module of this package that defines it (tests/test_doors.py)
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

if not TYPE_CHECKING:  # to a type checker, the names are the imports above and nothing else
    __getattr__ = door(__name__, _HOME)
