"""`explorer callgraph`: the Python call graph of a whole tree, as an adjacency list.

The shape and naming are those of the established Python call-graph tools (PyCG and the
tools measured against it), so their benchmarks compare directly:
- a key is every module (its top-level code), function, method and lambda of the tree, by
  its dotted name relative to the root (`pkg.mod`, `pkg.mod.Class.method`,
  `pkg.mod.f.<lambda1>`); classes are not nodes: what a class body calls, the scope around
  the class calls;
- a value is the sorted list of what the key may call, as the value-flow solver
  (resolve/flow/) finds it with every function reachable (one context per function):
  definitions of the tree; calling a class is the `__init__` it runs (no `__new__`);
  builtins as `<builtin>.len` and methods of builtin values as `<builtin>.list.append`;
  names from outside the tree by the dotted path they were imported under, printed only
  when that is a well-formed dotted name;
- a call whose callee the solver knows nothing about (a method of a parameter nobody passes)
  has no edge: nothing says what it runs.
The whole tree is solved at once, with a budget of steps that grows with its scopes
(STEPS_PER_SCOPE); past it, or past Python's stack, the graph is not printed in part but
refused with CallGraphUnfinished.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from explorer.errors import ExplorerError
from explorer.index import IndexReader
from explorer.model import SymbolKind
from explorer.resolve import (
    STEPS_PER_SCOPE,
    STEPS_PER_START,
    Builtin,
    Call,
    Class,
    External,
    FlowEdges,
    Instance,
    PythonEdges,
    Scope,
    ScopeKey,
    SourceLines,
    TensorMethod,
    WorkLimitReached,
)

_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


class CallGraphUnfinished(ExplorerError):
    """The solver stopped before the tree's call graph was complete: printing what it had
    would leave out edges without saying which."""


@dataclass(frozen=True, slots=True)
class PythonCallGraph:
    calls: dict[str, list[str]]  # caller -> what it may call, both sorted
    capped: int  # value sets the solver capped (edges it did not guess)


def python_call_graph(reader: IndexReader, root: str) -> dict[str, list[str]]:
    return python_call_graph_report(reader, root).calls


def python_call_graph_report(reader: IndexReader, root: str) -> PythonCallGraph:
    flow = FlowEdges(reader, PythonEdges(reader, SourceLines(root), tensor_methods=False), contexts=False)
    solver, facts = flow.solver, flow.facts
    graph: dict[str, set[str]] = {}
    functions: list[Scope] = []
    # The project's modules: joined trees' definitions are followed where the project's code
    # reaches them, and named as callees, but are no nodes of their own (their paths are absolute).
    modules = sorted(
        {
            s.qname
            for s in reader.python_scopes()
            if s.kind is SymbolKind.MODULE and (s.path or "").endswith(".py") and not os.path.isabs(s.path or "")
        }
    )
    in_project = set(modules)
    scopes = 0
    for module in modules:
        for scope in (facts.module(module) or {}).values():
            scopes += 1
            if scope.kind == "class":
                continue
            graph.setdefault(scope.qname, set())
            if scope.kind == "module":
                solver.compile_module(scope)
            else:
                functions.append(scope)
    # First what the modules' code reaches, with the values it passes; then every function
    # nothing reached, as a library's caller outside the tree would call it (a method with
    # an instance of its own class): seeding those first would hand a base class's method
    # its own class even where only subclasses call it.
    solver.allow(max(STEPS_PER_START, STEPS_PER_SCOPE * scopes))
    try:
        solver.solve()
        for scope in functions:
            if not solver.is_active((scope.qname, scope.line, None)):
                owner = _owning_class(flow, scope)
                solver.activate(scope, None, Instance(owner) if owner else None)
        solver.solve()
    except (WorkLimitReached, RecursionError) as stopped:
        why = "values flow through code nested past Python's stack" if isinstance(stopped, RecursionError) else stopped
        raise CallGraphUnfinished(f"the Python call graph of {root} was not finished: {why}") from None
    for key, made in solver.calls.items():
        caller = _caller_name(flow, key)
        if caller is None or ((home := _module_of(flow, key)) is not None and home not in in_project):
            continue
        callees = graph.setdefault(caller, set())
        for call in made:
            name = _callee_name(call)
            if name is not None:
                callees.add(name)
    calls = {caller: sorted(callees) for caller, callees in sorted(graph.items())}
    return PythonCallGraph(calls, len(solver.capped))


def _owning_class(flow: FlowEdges, scope: Scope) -> str | None:
    """The class a function is a method of (its first parameter is an instance of it)."""
    owner = scope.qname.rpartition(".")[0]
    if scope.kind != "function" or not scope.params:
        return None
    return owner if flow.facts.class_scope(owner) is not None else None


def _module_of(flow: FlowEdges, key: ScopeKey) -> str | None:
    scope = flow.facts.scope(key[0], key[1])
    return scope.module if scope is not None else None


def _caller_name(flow: FlowEdges, key: ScopeKey) -> str | None:
    """The node a scope's calls belong to: a class body's are the enclosing scope's."""
    qname, line, _ = key
    if qname.startswith("<"):
        return None  # the solver's own roots (an instance initialised with nothing known)
    scope = flow.facts.scope(qname, line)
    while scope is not None and scope.kind == "class":
        enclosing = scope.qname.rpartition(".")[0]
        found = [s for s in flow.facts.scopes(enclosing) if s.kind != "class"] if enclosing != scope.module else []
        if enclosing == scope.module or not found:
            return scope.module
        scope = found[-1]
    return qname


def _callee_name(call: Call) -> str | None:
    target = call.target
    if isinstance(target, Builtin):
        return f"<builtin>.{target.name}"
    if isinstance(target, External):
        return target.dotted if _DOTTED.fullmatch(target.dotted) else None
    if isinstance(target, TensorMethod):
        return f"torch.Tensor.{target.name}"
    if isinstance(target, (Class, Instance)):
        return None
    if call.kind in ("new", "operator"):
        # the convention: calling a class is an edge to its __init__ alone; operators are no edges
        return None
    return target[0]
