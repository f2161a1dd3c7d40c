"""The records the solver, the compiler and the builtin models pass each other: what a call
passes (Arguments), the calls found (Call, OpenSite), and the context a scope runs in."""

from __future__ import annotations

from dataclasses import dataclass

from explorer.flow_schema import Fact
from explorer.resolve.flow.facts import Scope
from explorer.resolve.flow.values import (
    Builtin,
    External,
    TensorMethod,
)

# The class of `self`, for a method reached through an instance; or, starting with "@", the
# call of a factory (a function returning a closure) that a function runs for: "@" and the
# public name where a module binds that call's result to a name
# ("@torch.nn.functional.max_pool2d"), else "@caller:line:column"
Context = str | None


ScopeKey = tuple[str, int, Context]  # (qname, line, context)


@dataclass(frozen=True, slots=True)
class Call:
    """One call the solver found: from a scope, at a line, to a target."""

    line: int
    column: int
    target: ScopeKey | External | Builtin | TensorMethod
    # call, method (a bound method or an implicit protocol call), new (__new__ as a class
    # is called), operator (a method an operator runs: `a + b`, `x[i]`, `x += 1`)
    kind: str


@dataclass(frozen=True, slots=True)
class OpenSite:
    """A call site of a scope, with the node of its callee: one that holds no value when
    solving ends is answered by the name rules (flow/edges.py)."""

    line: int
    column: int
    callee_node: int


@dataclass(frozen=True, slots=True)
class Arguments:
    positional: tuple[int, ...] = ()
    keywords: tuple[tuple[str, int], ...] = ()
    star: tuple[int, ...] = ()
    double_star: tuple[int, ...] = ()


def is_made(context: str) -> bool:
    """Whether a context is a factory's call (not the class of `self`)."""
    return context.startswith("@")


def argument_for(parameters: list[Fact], arguments: Arguments, name: str) -> int | None:
    """The argument node a call passes for parameter `name` (None when spread or absent)."""
    positional = [p for p in parameters if p[1] == "pos"]
    for index, parameter in enumerate(positional):
        if parameter[0] == name and index < len(arguments.positional):
            return arguments.positional[index]
    return next((node for keyword, node in arguments.keywords if keyword == name), None)


def binds(scope: Scope, name: str) -> bool:
    """Whether `name` is a local of the scope: a parameter, or bound by its statements."""
    return bool(scope.bindings(name)) or any(p[0] == name for p in scope.params)
