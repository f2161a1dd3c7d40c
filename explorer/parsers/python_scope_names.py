"""Where each scope of a Python file binds its names, from the captures of
grammars/python/bindings.scm: the value-flow extractor (python_flow.py) reads a scope's locals
from here, as Python's scoping makes them (a name bound anywhere in a function is local to all
of it unless declared global or nonlocal)."""

from __future__ import annotations

from collections.abc import Iterable

from explorer import treesitter as tsx


class ScopeBindings:
    """Where each scope of a file binds its names, from the captures of
    grammars/python/bindings.scm: per scope, every binding's offset and name in document order,
    and the names it declares global or nonlocal. A scope is keyed by its body's range; the
    module by MODULE_SCOPE."""

    def __init__(self, found: dict[str, list[tsx.Node]]) -> None:
        self.bound: dict[tuple[int, int, int], list[tuple[int, str]]] = {}
        self.free: dict[tuple[int, int, int], set[str]] = {}
        # a lambda whose body is a comprehension has the comprehension's range: the lambda's
        # scope (0) is the outer of the two
        scopes = sorted(
            [(node.start_byte, node.end_byte, 0) for node in found.get("binding.scope", ())]
            + [(node.start_byte, node.end_byte, 1) for node in found.get("binding.comprehension", ())],
            key=lambda scope: (scope[0], -scope[1], scope[2]),
        )
        names: list[tuple[int, str, bool]] = []  # (offset, name, declared free)
        for target in found.get("binding.target", ()):
            names += [(node.start_byte, tsx.text(node), False) for node in identifiers(target)]
        for node in found.get("binding.name", ()):
            names.append((node.start_byte, tsx.text(node), False))
        for statement in found.get("binding.import", ()):
            names += [(node.start_byte, tsx.text(node), False) for node in imported_names(statement)]
        names += [(node.start_byte, tsx.text(node), True) for node in found.get("binding.free", ())]
        names.sort()
        open_scopes: list[tuple[int, int, int]] = [MODULE_SCOPE]
        next_scope = 0
        for offset, name, free in names:
            while next_scope < len(scopes) and scopes[next_scope][0] <= offset:
                _close_before(open_scopes, scopes[next_scope][0])
                open_scopes.append(scopes[next_scope])
                next_scope += 1
            _close_before(open_scopes, offset)
            scope = open_scopes[-1]
            if free:
                self.free.setdefault(scope, set()).add(name)
            else:
                self.bound.setdefault(scope, []).append((offset, name))


MODULE_SCOPE = (-1, 1 << 62, 2)


def _close_before(open_scopes: list[tuple[int, int, int]], offset: int) -> None:
    """Leave the scopes that end at or before `offset` (they nest: the innermost ends first)."""
    while open_scopes[-1][1] <= offset:
        open_scopes.pop()


def scope_key(node: tsx.Node, body: tsx.Node | None) -> tuple[int, int, int]:
    if body is None or node.type == "module":
        return MODULE_SCOPE
    return (body.start_byte, body.end_byte, 0)


def identifiers(node: tsx.Node | None) -> Iterable[tsx.Node]:
    """The plain names a target binds (`a`, `a, (b, *c)`), not `x.y` or `x[0]`."""
    if node is None:
        return
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "identifier":
            yield current
        elif current.type in (
            "pattern_list",
            "tuple_pattern",
            "list_pattern",
            "tuple",
            "list",
            "expression_list",
            "list_splat_pattern",
            "list_splat",
            "parenthesized_expression",
            "as_pattern_target",
        ):
            stack.extend(reversed(current.named_children))


def imported_names(statement: tsx.Node) -> Iterable[tsx.Node]:
    """The names an import statement binds: `import a.b` binds a, `import a as b` b,
    `from m import x as y` y."""
    if statement.type == "import_statement":
        for child in statement.named_children:
            if child.type == "dotted_name" and child.named_children:
                yield child.named_children[0]
            elif child.type == "aliased_import" and (alias := child.child_by_field_name("alias")) is not None:
                yield alias
        return
    for child in statement.children_by_field_name("name"):
        bound = child.child_by_field_name("alias") if child.type == "aliased_import" else child
        if bound is not None and bound.type == "identifier":
            yield bound
        elif bound is not None and bound.type == "dotted_name" and bound.named_children:
            yield bound.named_children[0]
