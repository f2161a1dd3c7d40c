"""Precise facts about one Python definition, read with libcst when a query needs them.

The fast pass (python.py) records every call site of a tree but not what local names hold.
Tracing needs a little more inside the definitions it walks through:
- what a function assigned to a local name (`forward_call = self._slow_forward if tracing
  else self.forward`, then `forward_call(*args)`): every dotted name it may hold;
- which names a module-level assignment passes to the call on its right
  (`max_pool2d = boolean_dispatch(if_true=max_pool2d_with_indices, if_false=_max_pool2d)`).
libcst is about ten times slower than tree-sitter, so it reads only the lines of the one
definition a query reaches (the index says where it starts and ends), never a whole tree,
nor a whole module. It only parses: nothing is imported or executed.
"""

from __future__ import annotations

import textwrap

import libcst as cst


class UnreadableSource(Exception):
    """libcst cannot read the definition (a syntax error, or syntax newer than it knows)."""


def function_locals(function_source: str) -> dict[str, tuple[str, ...]]:
    """Local name -> the dotted names assigned to it anywhere in the function (not in the
    functions and classes nested in it), in source order; `C()` for what a call returned."""
    module = _parse(function_source)
    collector = _LocalAssignments()
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef):
            statement.body.visit(collector)
    return {name: tuple(dict.fromkeys(values)) for name, values in collector.values.items()}


def passed_names(statement_source: str) -> tuple[str, ...]:
    """The dotted names an assignment `x = f(a, b=c)` passes to the call on its right."""
    passed: list[str] = []
    for statement in _parse(statement_source).body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            value = small.value if isinstance(small, (cst.Assign, cst.AnnAssign)) else None
            if isinstance(value, cst.Call):
                passed += [name for argument in value.args if (name := dotted(argument.value)) is not None]
    return tuple(dict.fromkeys(passed))


def dotted(expression: cst.BaseExpression | None) -> str | None:
    """`a.b.c` as text; None for anything that is not a plain dotted name."""
    if isinstance(expression, cst.Name):
        return None if expression.value in ("True", "False", "None") else expression.value
    if isinstance(expression, cst.Attribute):
        owner = dotted(expression.value)
        return f"{owner}.{expression.attr.value}" if owner is not None else None
    return None


def _parse(source: str) -> cst.Module:
    try:
        return cst.parse_module(textwrap.dedent(source))
    except (cst.ParserSyntaxError, RecursionError) as error:
        raise UnreadableSource(str(error).splitlines()[0] if str(error) else type(error).__name__) from None


def _values(expression: cst.BaseExpression) -> list[str]:
    """Every dotted name an expression may evaluate to: both sides of `x if c else y` and of
    `x or y`. The result of a call is written `f()`: an instance, when `f` is a class."""
    name = dotted(expression)
    if name is not None:
        return [name]
    if isinstance(expression, cst.Call):
        called = dotted(expression.func)
        return [f"{called}()"] if called is not None else []
    if isinstance(expression, cst.IfExp):
        return _values(expression.body) + _values(expression.orelse)
    if isinstance(expression, cst.BooleanOperation):
        return _values(expression.left) + _values(expression.right)
    return []


class _LocalAssignments(cst.CSTVisitor):
    def __init__(self) -> None:
        self.values: dict[str, list[str]] = {}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False  # a nested function's locals are its own

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self.values.setdefault(target.target.value, []).extend(_values(node.value))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Name) and node.value is not None:
            self.values.setdefault(node.target.value, []).extend(_values(node.value))
