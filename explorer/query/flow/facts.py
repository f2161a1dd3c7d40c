"""The value-flow facts of the tree's Python modules, read from the index when first needed.

A module is read by the solver only when a value from it is reached, so a trace of
`nn.Linear` never decodes `torch/_inductor`. Stubs (`.pyi`) are not read: their functions
have no bodies, and the names they declare are the bindings' (query/bindings.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from explorer.index.store import IndexStore
from explorer.model import SymbolKind


@dataclass(frozen=True, slots=True)
class Scope:
    """One scope of a module: see parsers/python_flow.py for what its fields hold."""

    qname: str
    kind: str  # module, class, function, lambda
    line: int
    params: tuple  # (name, kind, default expression or None, definition id)
    body: tuple  # statements
    bases: tuple  # a class's base expressions
    generator: bool
    module: str
    path: str

    @property
    def bound_names(self) -> frozenset[str]:
        """The names the scope's own statements bind (a class's attributes, a module's globals)."""
        return frozenset(
            statement[1][1] for statement in self.body if statement[0] == "bind" and statement[1][0] == "local"
        )


class FlowFacts:
    def __init__(self, store: IndexStore) -> None:
        self.store = store
        self._modules: dict[str, dict[tuple[str, int], Scope] | None] = {}
        self._by_qname: dict[str, list[Scope]] = {}
        self.read_modules = 0

    def module(self, name: str) -> dict[tuple[str, int], Scope] | None:
        """The scopes of module `name` by (qname, line), or None when the tree has no Python
        source for it."""
        if name not in self._modules:
            self._modules[name] = self._read(name)
        return self._modules[name]

    def scopes(self, qname: str) -> list[Scope]:
        """The scopes named `qname` (several when a name is defined twice)."""
        if qname not in self._by_qname:
            module = self._module_of(qname)
            scopes = self.module(module) if module else None
            self._by_qname[qname] = [s for s in (scopes or {}).values() if s.qname == qname]
        return self._by_qname[qname]

    def scope(self, qname: str, line: int) -> Scope | None:
        module = self._module_of(qname)
        scopes = self.module(module) if module else None
        return scopes.get((qname, line)) if scopes else None

    def module_scope(self, name: str) -> Scope | None:
        scopes = self.module(name)
        if not scopes:
            return None
        return next((s for s in scopes.values() if s.kind == "module"), None)

    def _module_of(self, qname: str) -> str | None:
        """The longest prefix of `qname` that is a module with facts."""
        parts = qname.split(".")
        for end in range(len(parts), 0, -1):
            candidate = ".".join(parts[:end])
            if self.module(candidate) is not None:
                return candidate
        return None

    def _read(self, name: str) -> dict[tuple[str, int], Scope] | None:
        modules = [s for s in self.store.symbols_with_qname(name) if s.kind is SymbolKind.MODULE and s.path and s.path.endswith(".py")]
        if not modules:
            return None
        path = min(modules, key=lambda s: s.path or "").path or ""
        text = self.store.python_flow(path)
        if text is None:
            return None
        self.read_modules += 1
        scopes: dict[tuple[str, int], Scope] = {}
        records: tuple = _tuples(json.loads(text))  # type: ignore[assignment]
        for qname, kind, line, params, body, bases, generator in records:
            scopes[(qname, line)] = Scope(qname, kind, line, params, body, bases, bool(generator), name, path)
        return scopes


def _tuples(value: object) -> object:
    """JSON's lists back into the tuples the facts were written as (hashable, as keys)."""
    if isinstance(value, list):
        return tuple(_tuples(item) for item in value)
    return value
