"""The value-flow facts of the tree's Python modules, read from the index when first needed.

A module is read by the solver only when a value from it is reached, so a trace of
`nn.Linear` never decodes `torch/_inductor`. Stubs (`.pyi`) are not read: their functions
have no bodies, and the names they declare are the bindings' (names/bindings.py).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from explorer.flow_schema import Fact, scope_texts
from explorer.index import IndexReader
from explorer.model import SymbolKind


@dataclass(slots=True, eq=False)
class Scope:
    """One scope of a module: flow_schema.py's ScopeHeader, with its module and path. The
    statements and expressions are the lists JSON decoded (tagged tuples when written; nothing
    hashes them, and converting every one back costs more than a trace's solving), decoded
    when first asked for."""

    qname: str
    kind: str  # module, class, function, lambda
    line: int
    params: Sequence[Fact]  # flow_schema.Param's fields, as a list
    bases: Sequence[Fact]  # a class's base expressions
    generator: bool
    free: Sequence[str]  # the names its statements bind as global or nonlocal
    module: str
    path: str
    _statements: str | list[Fact]  # the JSON text until first read
    _bindings: dict[str, list[Fact]] | None = None
    _returned: tuple[str | None] | None = None
    _makes_closure: bool | None = None
    returns: Fact | None = None  # a function's declared return type, an expression (`-> ProcessGroup`)

    @property
    def body(self) -> list[Fact]:
        """The scope's statements."""
        if isinstance(self._statements, str):
            self._statements = json.loads(self._statements)
        return self._statements  # type: ignore[return-value]

    def bindings(self, name: str) -> list[Fact]:
        """The statements of the scope's own that bind local `name` (a class's attribute, a
        module's global), indexed once per scope."""
        if self._bindings is None:
            self._bindings = {}
            for statement in self.body:
                if statement[0] == "bind" and statement[1][0] == "local":
                    self._bindings.setdefault(statement[1][1], []).append(statement)
        return self._bindings.get(name, [])

    @property
    def returned_parameter(self) -> str | None:
        """The parameter a function returns unchanged at every return (an identity decorator,
        a registering one), or None; worked out once per scope."""
        if self._returned is None:
            self._returned = (self._parameter_returned(),)
        return self._returned[0]

    @property
    def makes_closure(self) -> bool:
        """Whether the function returns a function defined inside it (a factory such as
        boolean_dispatch, a decorator's wrapper): each call makes a closure of its own."""
        if self._makes_closure is None:
            inner = self.qname + "."
            named = {s[1][1] for s in self.body if s[0] == "bind" and s[1][0] == "local" and _defines(s[2], inner)}
            self._makes_closure = any(
                s[0] == "return" and (_defines(s[1], inner) or (s[1][0] == "name" and s[1][1] in named))
                for s in self.body
            )
        return self._makes_closure

    def passed_names(self, name: str, line: int) -> tuple[str, ...]:
        """The dotted names the statement binding `name` at `line` passes to the call on its
        right, in order, once each: `max_pool2d = boolean_dispatch(..., if_true=max_pool2d_with_indices,
        if_false=_max_pool2d)`, `a, b = f(x, *y)` (each of a and b), `global g; g = f(x)`."""
        passed: list[str] = []
        for statement in self.body:
            if statement[0] != "bind" or statement[1][0] not in ("local", "free") or statement[1][1] != name:
                continue
            if statement[3] != line:
                continue
            call = self._unpacked(statement[2])
            if call is None or call[0] != "call":
                continue
            for argument in [*call[2], *(value for _, value in call[3])]:
                dotted = _dotted(argument[1] if argument[0] == "star" else argument)
                if dotted is not None:
                    passed.append(dotted)
        return tuple(dict.fromkeys(passed))

    def call_positions(self) -> set[tuple[int, int]]:
        """Where the calls its statements write are, as (LINE, COL)."""
        found: set[tuple[int, int]] = set()
        pending: list[Any] = list(self.body)
        while pending:
            current = pending.pop()
            if current and current[0] == "call" and len(current) >= 6:
                found.add((current[4], current[5]))
            pending.extend(item for item in current if isinstance(item, list) and item)
        return found

    def _unpacked(self, expression: Fact) -> Fact | None:
        """What an unpacking target takes its part of (`a, b = f(x)` binds a to an item of a
        temporary holding f(x)): the expression unpacked, else the expression itself."""
        while (expression[0] == "item" and len(expression) == 3) or expression[0] == "elem":
            expression = expression[1]
            if expression[0] == "name" and expression[1].startswith("$"):  # the extractor's temporary
                held = self.bindings(expression[1])
                if not held:
                    return None
                expression = held[0][2]
        return expression

    def _parameter_returned(self) -> str | None:
        returns = [statement[1] for statement in self.body if statement[0] == "return"]
        if not returns or not all(r[0] == "name" and r[2] is not None for r in returns):
            return None  # none, something else, or a global
        names: set[str] = {r[1] for r in returns}
        if len(names) != 1:
            return None
        (name,) = names
        parameter = next((p for p in self.params if p[0] == name and p[1] in ("pos", "kwonly")), None)
        if parameter is None or any(list(r[2]) != [parameter[3]] for r in returns) or self.bindings(name):
            return None  # reassigned before some return
        return name


class FlowFacts:
    """Modules are looked up by name (cheap: the index's symbols), decoded when a scope of
    theirs is first needed, and each scope's statements turned into tuples only then: most
    modules a trace meets are only imported, not run."""

    def __init__(self, reader: IndexReader) -> None:
        self.store = reader
        self._paths: dict[str, str | None] = {}
        self._modules: dict[str, dict[tuple[str, int], Scope]] = {}
        # per module read: its scopes by qname, and its own scope (a module of 100,000
        # definitions is asked about each of them: no scan of all per question)
        self._named: dict[str, dict[str, list[Scope]]] = {}
        self._module_scopes: dict[str, Scope | None] = {}
        self._lambdas: dict[str, dict[str, list[Scope]]] = {}  # per module: a definition -> the lambdas in it

    def exists(self, name: str) -> bool:
        """Whether the tree has Python source for module `name` (no decoding)."""
        return self._path(name) is not None

    def module(self, name: str) -> dict[tuple[str, int], Scope] | None:
        """The scopes of module `name` by (qname, line), or None when the tree has no Python
        source for it."""
        if name not in self._modules:
            path = self._path(name)
            if path is None:
                return None
            scopes = self._modules[name] = self._read(name, path)
            named: dict[str, list[Scope]] = {}
            for scope in scopes.values():
                named.setdefault(scope.qname, []).append(scope)
            self._named[name] = named
            self._module_scopes[name] = next((s for s in scopes.values() if s.kind == "module"), None)
        return self._modules[name]

    def scopes(self, qname: str) -> list[Scope]:
        """The scopes named `qname` (several when a name is defined twice)."""
        module = self._module_of(qname)
        if module is None or self.module(module) is None:
            return []
        return self._named[module].get(qname, [])

    def scope(self, qname: str, line: int) -> Scope | None:
        module = self._module_of(qname)
        scopes = self.module(module) if module else None
        return scopes.get((qname, line)) if scopes else None

    def lambdas_in(self, qname: str) -> list[Scope]:
        """The lambdas written in the definitions named `qname`, and in those lambdas: the
        index gives their calls to the definition."""
        module = self._module_of(qname)
        if module is None or self.module(module) is None:
            return []
        if module not in self._lambdas:
            by_owner: dict[str, list[Scope]] = {}
            for name, scopes in self._named[module].items():
                owner, mark, _ = name.partition(".<lambda")
                if mark:
                    by_owner.setdefault(owner, []).extend(s for s in scopes if s.kind == "lambda")
            self._lambdas[module] = by_owner
        return self._lambdas[module].get(qname, [])

    def class_scope(self, qname: str) -> Scope | None:
        """The body of class `qname` (the last, where a name is defined twice)."""
        scopes = [s for s in self.scopes(qname) if s.kind == "class"]
        return scopes[-1] if scopes else None

    def scope_around(self, inner: Scope) -> Scope | None:
        """The module, class or function whose body defines `inner`."""
        outer = inner.qname.rpartition(".")[0]
        if outer == inner.module or not outer:
            return self.module_scope(inner.module)
        candidates = [s for s in self.scopes(outer) if s.path == inner.path and s.line <= inner.line]
        return max(candidates, key=lambda s: s.line) if candidates else None

    def module_scope(self, name: str) -> Scope | None:
        if not self.module(name):
            return None
        return self._module_scopes[name]

    def _module_of(self, qname: str) -> str | None:
        """The longest prefix of `qname` that is a module with facts."""
        parts = qname.split(".")
        for end in range(len(parts), 0, -1):
            candidate = ".".join(parts[:end])
            if self.exists(candidate):
                return candidate
        return None

    def _path(self, name: str) -> str | None:
        if name not in self._paths:
            modules = [
                s
                for s in self.store.symbols_with_qname(name)
                if s.kind is SymbolKind.MODULE and s.path and s.path.endswith(".py")
            ]
            self._paths[name] = min(s.path or "" for s in modules) if modules else None
        return self._paths[name]

    def _read(self, name: str, path: str) -> dict[tuple[str, int], Scope]:
        text = self.store.python_flow(path)
        if text is None:
            return {}
        scopes: dict[tuple[str, int], Scope] = {}
        for scope, body in scope_texts(text):
            scopes[(scope.qname, scope.line)] = Scope(
                scope.qname,
                scope.kind,
                scope.line,
                scope.params,
                scope.bases,
                bool(scope.generator),
                scope.free,
                name,
                path,
                body,
                returns=scope.returns,
            )
        return scopes


def _defines(expression: Fact, inner: str) -> bool:
    """Whether an expression holds a def or lambda of a scope directly inside `inner`'s owner
    (`("def", "f.fn", 49)`, or such a def handed to a decorator)."""
    stack = [expression]
    while stack:
        current = stack.pop()
        if not isinstance(current, (list, tuple)) or not current:
            continue
        if (
            current[0] in ("def", "lambda")
            and isinstance(current[1], str)
            and current[1].startswith(inner)
            and "." not in current[1][len(inner) :]
        ):
            return True
        stack.extend(item for item in current if isinstance(item, (list, tuple)))
    return False


def _dotted(expression: Fact) -> str | None:
    """`a.b.c` written as names and attributes; None for any other expression."""
    parts: list[str] = []
    while expression[0] == "attr":
        parts.append(expression[2])
        expression = expression[1]
    if expression[0] != "name":
        return None
    parts.append(expression[1])
    return ".".join(reversed(parts))


def alternatives(expression: Fact) -> list[Fact]:
    """The values an expression may be: itself, or each side of a conditional or of `a or b`
    (`any`), in the order written."""
    found: list[Fact] = []
    pending = [expression]
    while pending:
        current = pending.pop()
        if current[0] == "any":
            pending += reversed(current[1])
        else:
            found.append(current)
    return found


def dotted_values(expression: Fact) -> list[str]:
    """The dotted names an expression may be, `name()` for what calling one made."""
    found: list[str] = []
    for current in alternatives(expression):
        if current[0] == "call" and (called := _dotted(current[1])) is not None:
            found.append(f"{called}()")
        elif (name := _dotted(current)) is not None:
            found.append(name)
    return found
