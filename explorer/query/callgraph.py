"""`explorer callgraph`: the Python call graph of a tree as an adjacency list.

The shape is the one PyCG and tools that compare against it use: each key is a dotted name
relative to the root (`pkg.mod` for a module's own top-level code, `pkg.mod.Class.method`),
mapped to the sorted list of what it may call:
- definitions of the tree, resolved by the same rules as `trace` (imports, re-exports, `self`
  along the MRO, locals, constructors to `__init__`);
- builtins as `<builtin>.NAME`;
- names from modules outside the tree by the dotted name they were imported as
  (`ext.parent.parent_fn`).
A call on an object of unknown type (`x.append(...)`) is left out: nothing says what it runs.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass

from explorer.index.store import IndexStore
from explorer.model import CallNode, CallSite, Layer, SymbolKind
from explorer.parsers.python import module_name
from explorer.query.notes import UnreadableDefinition
from explorer.query.python_edges import PythonEdges
from explorer.query.sources import SourceLines

_BUILTINS = frozenset(name for name in dir(builtins) if not name.startswith("_"))


@dataclass(frozen=True, slots=True)
class PythonCallGraph:
    calls: dict[str, list[str]]  # caller -> what it may call, both sorted
    unreadable: tuple[UnreadableDefinition, ...]  # definitions whose locals libcst could not read


def python_call_graph(store: IndexStore, root: str) -> dict[str, list[str]]:
    return python_call_graph_report(store, root).calls


def python_call_graph_report(store: IndexStore, root: str) -> PythonCallGraph:
    resolver = PythonEdges(store, SourceLines(root), tensor_methods=False)
    scopes = store.python_scopes()
    tree_packages = {symbol.qname.split(".")[0] for symbol in scopes if symbol.kind is SymbolKind.MODULE}
    graph: dict[str, set[str]] = {}
    imported: dict[str, set[str]] = {}  # module -> the names its imports bind
    file_calls: tuple[str, dict[str, list[CallSite]]] = ("", {})  # scopes come file by file
    for scope in scopes:
        callees = graph.setdefault(scope.qname, set())
        if scope.path is None:
            continue
        node = CallNode(scope, Layer.PYTHON)
        module = module_name(scope.path)
        if module not in imported:
            imported[module] = {binding.name for binding in store.import_bindings(module)}
        # decorators too: one is called where its `def` runs, by the module or class around it
        if file_calls[0] != scope.path:
            file_calls = (scope.path, store.calls_in_file(scope.path))
        for site in file_calls[1].get(scope.qname, ()):
            targets = [edge.target.symbol.qname for edge in resolver.call_targets(node, site)]
            if targets:
                callees.update(targets)
            elif site.callee in _BUILTINS and site.qualified == site.callee:
                callees.add(f"<builtin>.{site.callee}")
            elif _imported_from_outside(site.callee, site.qualified, imported[module], tree_packages):
                callees.add(site.qualified)  # imported from outside the tree
    calls = {caller: sorted(callees) for caller, callees in sorted(graph.items())}
    return PythonCallGraph(calls, resolver.unreadable.records())


def _imported_from_outside(callee: str, qualified: str, imported: set[str], tree_packages: set[str]) -> bool:
    """`parent_fn()` after `from ext.parent import parent_fn`, or `os.path.join()` after
    `import os`: named through an import, of a package the tree does not have."""
    return callee.split(".")[0] in imported and qualified.split(".")[0] not in tree_packages
