"""The value-flow facts of a Python file: the one description of what parsers/python_flow.py
writes and resolve/flow/ reads, as model.py is of the other records.

Each scope (module, class body, function, lambda) has a header and a flat list of statements;
every expression is a small tagged tuple, tag first. Order within a scope matters only through
local names: each assignment to a local is a definition with an id (the byte offset of the
name it binds), and each read of a local names the definitions that may reach it.

The shapes are the type aliases below, one per tag (JSON turns the tuples into lists); the
extractor is checked against them by mypy as it writes them.

The text is one JSON line of the scopes, then one JSON line of statements per scope, in the
same order: a query decodes a scope's statements only when it runs them (most scopes of a
module it reads are never run).

Expressions and statements stay tagged tuples, decoded as JSON lists, rather than a record
class per tag: a query reads every expression of the scopes it runs once, and building records
of them cost more than solving (resolve/flow/facts.py). So the types below check the writer
(parsers/python_flow.py) and describe what the solver reads, as `Fact`: a decoded list, read by
the positions its tag's type names. `statement_tags` walks facts by the same positions, so that
a test holds every file's facts to them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any, Literal, NamedTuple

Fact = Sequence[Any]  # an expression, statement or parameter as a query reads it (a JSON list)

Defs = tuple[int, ...] | None
Key = str | int | None  # a subscript's or dict key's constant value, or None

# -- expressions: what a value is made from ----------------------------------------------------

# A local (DEFS: the ids of the definitions that reach the read) or, with DEFS None, a name of
# an enclosing scope, the module or the builtins.
NameRead = tuple[Literal["name"], str, Defs]
# OBJ.NAME with its NAME at (LINE, COL), where a property's getter or `__getattr__` runs as it
# is read; without the place, an attribute no source writes (`__enter__` of `with`) or a
# broken file's `x.`.
Attr = tuple[Literal["attr"], "Expr", str] | tuple[Literal["attr"], "Expr", str, int, int]
# FN(ARGS, KWARGS) at (LINE, COL): ARGS expressions, ("star", E) for *E; KWARGS (NAME, E)
# pairs, (None, E) for **E.
Star = tuple[Literal["star"], "Expr"]
Call = tuple[Literal["call"], "Expr", "tuple[Expr | Star, ...]", "tuple[tuple[str | None, Expr], ...]", int, int]
# OBJ[KEY]: with the `[` at (LINE, COL) and INDEX, what the brackets hold as handed to
# `__getitem__`; without them an item the syntax does not write (unpacking `a, b = t`).
Item = tuple[Literal["item"], "Expr", Key] | tuple[Literal["item"], "Expr", Key, int, int, "Expr"]
Dict = tuple[Literal["dict"], "tuple[tuple[Key, Expr], ...]"]  # KEY as for an item
Display = tuple[Literal["list", "tuple", "set"], "tuple[Expr, ...]"]
# A literal: TYPE str, int, float, bool or None; a short plain string and a bool ("True",
# "False") keep their VALUE.
Const = tuple[Literal["const"], str] | tuple[Literal["const"], str, str]
# The function, class or lambda a statement or lambda defines (LINE tells apart two
# definitions of one name).
Definition = tuple[Literal["def", "class", "lambda"], str, int]
Import = tuple[Literal["import"], str]  # the module or object an import names (absolute)
OneOf = tuple[Literal["any"], "tuple[Expr, ...]"]  # one of these (a conditional, `a or b`)
# An element got by iterating E (for, comprehension, *x) at (LINE, COL).
Element = tuple[Literal["elem"], "Expr", int, int]
Super = tuple[Literal["super"], int, int]  # super() in a method (the solver knows the class)
Caught = tuple[Literal["caught"], "Expr"]  # what `except E as e` binds: an instance of E
# `L op= R`: L's in-place METHOD (`__iadd__`) where its class defines one, else `L op R`
# (BINARY, REFLECTED as for binop), at (LINE, COL); a list extended by R.
Augmented = tuple[Literal["augmented"], "Expr", "Expr", str, int, int, str, str | None]
# `L op R` at the operator's (LINE, COL): L's METHOD (`__add__`, `__lt__`) with R, or, where L
# has none, R's REFLECTED (`__radd__`, `__gt__`) with L; REFLECTED None for `in`
# (`R.__contains__(L)`, written with L and R swapped).
BinOp = tuple[Literal["binop"], "Expr", "Expr", str, str | None, int, int]
UnOp = tuple[Literal["unop"], "Expr", str, int, int]  # `-E`, `+E`, `~E`: E's METHOD (`__neg__`)
Unknown = tuple[Literal["unknown"]]  # a value nothing follows (arithmetic, f-strings)

Expr = (
    NameRead
    | Attr
    | Call
    | Item
    | Dict
    | Display
    | Const
    | Definition
    | Import
    | OneOf
    | Element
    | Super
    | Caught
    | Augmented
    | BinOp
    | UnOp
    | Unknown
)

# -- statements: where values go ----------------------------------------------------------------

# What an assignment binds: a local (the definition's ID), a global or nonlocal name, an
# attribute, an item (`__setitem__`).
Target = tuple[Literal["local"], str, int] | tuple[Literal["free"], str] | Attr | Item
Bind = tuple[Literal["bind"], Target, Expr, int]  # TARGET = E at LINE
Evaluated = tuple[Literal["eval", "return", "yield"], Expr]
Raise = tuple[Literal["raise"], Expr, int]
Enter = tuple[Literal["enter"], Expr, int, int]  # `with E` at (LINE, COL): its __enter__, __exit__
StarImport = tuple[Literal["star_import"], str]  # `from DOTTED import *`
# Lines FIRST..LAST run only where the local NAME is true (TRUTH true) or false: an `if NAME:`
# or `if not NAME:` branch, its `else`, or what follows a branch that returns. NAME names only
# the definitions made outside any branch or loop (`flag = default`, before
# `if ...: flag = ...`): its value where nothing the call passed changed it.
Guard = tuple[Literal["guard"], NameRead, bool, int, int]

Stmt = Bind | Evaluated | Raise | Enter | StarImport | Guard


class Param(NamedTuple):
    name: str
    kind: str  # pos, kwonly, star, starstar
    default: Expr | None  # as written; a list as decoded
    ident: int  # the definition id the parameter's name binds
    type: Expr | None  # the class its annotation names (`x: Tensor`, `Optional[Tensor]`)


class ScopeHeader(NamedTuple):
    qname: str
    kind: str  # module, class, function, lambda
    line: int
    params: Sequence[Any]  # Param, as written; a list as decoded
    bases: Sequence[Any]  # a class's base expressions (Expr as written, lists as decoded)
    generator: bool
    free: Sequence[str]  # the names its statements bind as global or nonlocal
    returns: Any  # a function's declared return type (an Expr as written), or None


# Where each tag's nested expressions are: positions holding one, and positions holding a
# sequence of them. `call`'s keyword arguments and `dict`'s items are (key, expression) pairs.
EXPRESSION_AT: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
    "name": ((), ()),
    "attr": ((1,), ()),
    "call": ((1,), (2,)),
    "item": ((1, 5), ()),
    "dict": ((), ()),
    "list": ((), (1,)),
    "tuple": ((), (1,)),
    "set": ((), (1,)),
    "const": ((), ()),
    "def": ((), ()),
    "class": ((), ()),
    "lambda": ((), ()),
    "import": ((), ()),
    "any": ((), (1,)),
    "elem": ((1,), ()),
    "super": ((), ()),
    "caught": ((1,), ()),
    "augmented": ((1, 2), ()),
    "binop": ((1, 2), ()),
    "unop": ((1,), ()),
    "unknown": ((), ()),
    "star": ((1,), ()),  # *E among a call's arguments or a display's elements
}
STATEMENT_AT: dict[str, tuple[int, ...]] = {  # the positions of a statement's expressions
    "bind": (2,),
    "eval": (1,),
    "return": (1,),
    "yield": (1,),
    "raise": (1,),
    "enter": (1,),
    "star_import": (),
    "guard": (1,),
}
TARGET_AT: dict[str, tuple[int, ...]] = {"local": (), "free": (), "attr": (1,), "item": (1, 5)}
EXPRESSION_TAGS = frozenset(EXPRESSION_AT)
STATEMENT_TAGS = frozenset(STATEMENT_AT)
TARGET_TAGS = frozenset(TARGET_AT)


def scope_texts(text: str) -> Iterator[tuple[ScopeHeader, str]]:
    """A file's facts text (see above) as its scopes, each with its statements still the JSON
    text of its line: decoded only for the scopes that are run."""
    header, *bodies = text.split("\n")
    for row, body in zip(json.loads(header), bodies, strict=True):
        yield ScopeHeader._make(row), body


def statement_tags(statement: Fact) -> Iterator[tuple[str, str]]:
    """("statement" | "target" | "expression", tag) for a statement and everything in it, by
    the positions above; a tag the description lacks is yielded too, for a test to see."""
    tag = statement[0]
    yield "statement", tag
    if tag == "bind":
        target = statement[1]
        yield "target", target[0]
        for position in TARGET_AT.get(target[0], ()):
            if position < len(target):
                yield from expression_tags(target[position])
    for position in STATEMENT_AT.get(tag, ()):
        yield from expression_tags(statement[position])


def expression_tags(expression: Fact | None) -> Iterator[tuple[str, str]]:
    if expression is None:
        return
    tag = expression[0]
    yield "expression", tag
    single, many = EXPRESSION_AT.get(tag, ((), ()))
    for position in single:
        if position < len(expression):
            yield from expression_tags(expression[position])
    for position in many:
        for item in expression[position]:
            yield from expression_tags(item)
    if tag == "call":
        for _, value in expression[3]:
            yield from expression_tags(value)
    elif tag == "dict":
        for _, value in expression[1]:
            yield from expression_tags(value)


def attributes_used(facts: Fact, name: str) -> Iterator[int]:
    """The lines where any expression or assignment target in `facts` (a statement, or a list
    of them) reads, assigns or deletes attribute `name` as the source writes it, other than
    to call it (`obj.name(...)` is a call, found by its call row): where a property's getter
    or setter runs."""
    stack: list[Any] = [facts]
    while stack:
        current = stack.pop()
        if not isinstance(current, list | tuple) or not current:
            continue
        if current[0] == "attr" and len(current) >= 5 and current[2] == name:
            yield current[3]
        called = current[1] if current[0] == "call" and len(current) >= 3 else None
        if isinstance(called, list | tuple) and called and called[0] == "attr":
            stack.append(current[1][1])  # the called attribute's object, not the attribute
            stack.extend(current[2:])
            continue
        stack.extend(current)
