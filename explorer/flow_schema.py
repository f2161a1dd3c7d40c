"""The value-flow facts of a Python file: the one description of what parsers/python_flow.py
writes and resolve/flow/ reads, as model.py is of the other records.

Each scope (module, class body, function, lambda) has a header and a flat list of statements;
every expression is a small tagged tuple, tag first. Order within a scope matters only through
local names: each assignment to a local is a definition with an id (the byte offset of the
name it binds), and each read of a local names the definitions that may reach it.

Expressions (tuples, tag first; JSON turns them into lists):
    ("name", NAME, DEFS)          a local (DEFS: the definition ids that reach the read) or,
                                  with DEFS None, a name of an enclosing scope, the module
                                  or the builtins
    ("attr", OBJ, NAME, LINE, COL)
                                  OBJ.NAME, its NAME at (LINE, COL): where a property's
                                  getter or `__getattr__` runs as it is read
    ("call", FN, ARGS, KWARGS, LINE, COL)
                                  ARGS: expressions, ("star", E) for *E;
                                  KWARGS: (NAME, E) pairs, (None, E) for **E
    ("item", OBJ, KEY[, LINE, COL, INDEX])
                                  OBJ[KEY]; KEY a str or int constant, or None; INDEX
                                  what the brackets hold, as handed to `__getitem__`, at
                                  the `[` (LINE, COL); without them an item the syntax
                                  does not write (unpacking `a, b = t`)
    ("dict", ((KEY, E), ...))     KEY as for item; ("list" | "tuple" | "set", (E, ...))
    ("const", TYPE[, VALUE])      a literal: str, int, float, bool, None; a short plain
                                  string and a bool ("True", "False") keep their VALUE
    ("def", QNAME, LINE) ("class", QNAME, LINE) ("lambda", QNAME, LINE)
                                  the function or class a statement or lambda defines
                                  (LINE tells apart two definitions of one name)
    ("import", DOTTED)            the module or object an import names (absolute)
    ("any", (E, ...))             one of these (a conditional, `a or b`)
    ("elem", E, LINE, COL)        an element got by iterating E (for, comprehension, *x)
    ("super", LINE, COL)          super() in a method (the solver knows the class)
    ("caught", E)                 what `except E as e` binds: an instance of the class(es) E
    ("augmented", L, R, METHOD, LINE, COL, BINARY, REFLECTED)
                                  `L op= R`: L's in-place METHOD (`__iadd__`) where its
                                  class defines one, else `L op R` (BINARY, REFLECTED as
                                  for binop); a list extended by R
    ("binop", L, R, METHOD, REFLECTED, LINE, COL)
                                  `L op R` at the operator's (LINE, COL): L's METHOD
                                  (`__add__`, `__lt__`) with R, or, where L has none, R's
                                  REFLECTED (`__radd__`, `__gt__`) with L; REFLECTED None
                                  for `in` (`R.__contains__(L)`, written with L and R
                                  swapped)
    ("unop", E, METHOD, LINE, COL)
                                  `-E`, `+E`, `~E`: E's METHOD (`__neg__`)
    ("unknown",)                  a value nothing follows (arithmetic, f-strings)
Statements:
    ("bind", TARGET, E, LINE)     TARGET: ("local", NAME, ID) | ("free", NAME) (global or
                                  nonlocal) | ("attr", OBJ, NAME, LINE, COL) | ("item", OBJ,
                                  KEY[, LINE, COL, INDEX]) (`__setitem__`)
    ("eval", E) ("return", E) ("yield", E) ("raise", E, LINE)
    ("enter", E, LINE, COL)       `with E`: its __enter__ and __exit__ run
    ("star_import", DOTTED)       `from DOTTED import *`
    ("guard", E, TRUTH, FIRST, LAST)
                                  lines FIRST..LAST run only where E, a name, is true (TRUTH
                                  true) or false: an `if NAME:` or `if not NAME:` branch, its
                                  `else`, or what follows a branch that returns. E names only
                                  the definitions of a local made outside any branch or loop
                                  (`flag = default`, before `if ...: flag = ...`): its value
                                  where nothing the call passed changed it
Scopes: ScopeHeader (QNAME, KIND, LINE, PARAMS, BASES, GENERATOR, FREE, RETURNS), KIND module |
class | function | lambda; PARAMS: Param (NAME, KIND, DEFAULT or None, ID, TYPE or None), KIND
pos | kwonly | star | starstar, TYPE the class its annotation names (`x: Tensor`,
`Optional[Tensor]`); BASES: a class's base expressions; FREE: the names its statements bind as
global or nonlocal; RETURNS: a function's declared return type, an expression, or None.

The text is one JSON line of the scopes, then one JSON line of statements per scope, in the
same order: a query decodes a scope's statements only when it runs them (most scopes of a
module it reads are never run).

Expressions and statements stay tagged tuples, decoded as JSON lists, rather than a record
class per tag: a query reads every expression of the scopes it runs once, and building records
of them cost more than solving (resolve/flow/facts.py). `statement_tags` walks them by this
description, so that a test holds the writer to it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

Expr = tuple[Any, ...]  # an expression as the extractor writes it
Stmt = tuple[Any, ...]  # a statement as the extractor writes it
Fact = Sequence[Any]  # either, or a parameter, as a query reads it (a JSON list)


class Param(NamedTuple):
    name: str
    kind: str  # pos, kwonly, star, starstar
    default: Any  # an expression, or None
    ident: int  # the definition id the parameter's name binds
    type: Any  # the expression of the class its annotation names, or None


class ScopeHeader(NamedTuple):
    qname: str
    kind: str  # module, class, function, lambda
    line: int
    params: Sequence[Any]  # Param, as written; a list as decoded
    bases: Sequence[Any]  # a class's base expressions
    generator: bool
    free: Sequence[str]  # the names its statements bind as global or nonlocal
    returns: Any  # a function's declared return type, an expression, or None


# Where each tag's nested expressions are: positions holding one, and positions holding a
# sequence of them. `call`'s keyword arguments and `dict`'s items are (key, expression) pairs.
_EXPRESSION_AT: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
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
_STATEMENT_AT: dict[str, tuple[int, ...]] = {  # the positions of a statement's expressions
    "bind": (2,),
    "eval": (1,),
    "return": (1,),
    "yield": (1,),
    "raise": (1,),
    "enter": (1,),
    "star_import": (),
    "guard": (1,),
}
_TARGET_AT: dict[str, tuple[int, ...]] = {"local": (), "free": (), "attr": (1,), "item": (1, 5)}
EXPRESSION_TAGS = frozenset(_EXPRESSION_AT)
STATEMENT_TAGS = frozenset(_STATEMENT_AT)
TARGET_TAGS = frozenset(_TARGET_AT)


def statement_tags(statement: Fact) -> Iterator[tuple[str, str]]:
    """("statement" | "target" | "expression", tag) for a statement and everything in it, by
    the positions above; a tag the description lacks is yielded too, for a test to see."""
    tag = statement[0]
    yield "statement", tag
    if tag == "bind":
        target = statement[1]
        yield "target", target[0]
        for position in _TARGET_AT.get(target[0], ()):
            if position < len(target):
                yield from expression_tags(target[position])
    for position in _STATEMENT_AT.get(tag, ()):
        yield from expression_tags(statement[position])


def expression_tags(expression: Fact | None) -> Iterator[tuple[str, str]]:
    if expression is None:
        return
    tag = expression[0]
    yield "expression", tag
    single, many = _EXPRESSION_AT.get(tag, ((), ()))
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
