"""How many arguments a C++ call passes and a definition takes, to tell overloads apart.

The index keeps where a call is written, not its arguments; when a name has several
definitions, the call's argument list is read from the source at that place and its
top-level commas counted. A definition takes between its parameters without a default and
all of them (any number after `...`). Where the count rules out some overloads they are
dropped; where it rules out all, or none, every definition is kept.
"""

from __future__ import annotations

import math

from explorer.model import Symbol
from explorer.query.sources import SourceLines

_OPENERS = {"(": ")", "[": "]", "{": "}", "<": ">"}


def argument_count(sources: SourceLines, path: str, line: int, column: int) -> int | None:
    """Arguments of the call whose callee starts at (line, column), or None if unreadable."""
    text = "\n".join(sources.of_file(path)[line - 1:line + 40])
    start = text.find("(", column)
    return _count(text, start) if start >= 0 else None


def parameter_range(signature: str) -> tuple[int, float]:
    """(fewest, most) arguments a definition accepts, from its signature."""
    start = signature.find("(")
    if start < 0:
        return (0, math.inf)
    parameters = _split(signature, start)
    if parameters is None:
        return (0, math.inf)
    parameters = [p for p in parameters if p.strip() not in ("", "void")]
    if any(p.strip().endswith("...") for p in parameters):
        return (sum("=" not in p for p in parameters[:-1]), math.inf)
    return (sum("=" not in p for p in parameters), len(parameters))


def fitting(definitions: list[Symbol], count: int | None) -> list[Symbol]:
    if count is None or len(definitions) < 2:
        return definitions
    kept = [d for d in definitions if parameter_range(d.signature)[0] <= count <= parameter_range(d.signature)[1]]
    return kept or definitions


def _count(text: str, start: int) -> int | None:
    arguments = _split(text, start)
    if arguments is None:
        return None
    return len([a for a in arguments if a.strip()])


def _split(text: str, start: int) -> list[str] | None:
    """The top-level comma-separated parts between the parenthesis at `start` and its match.
    `<` opens a template argument list only between a name and a name (`f<T, U>(`); `a < b`,
    `i<3` and `p->x` leave the nesting alone."""
    stack: list[str] = []
    parts: list[str] = []
    current, quote = "", ""
    for index in range(start + 1, len(text)):
        char = text[index]
        if quote:
            current += char
            quote = "" if char == quote else quote
            continue
        if char in "\"'":
            quote = char
        elif char in "([{" or (char == "<" and current[-1:].isalnum() and text[index + 1:index + 2].isalpha()):
            stack.append(_OPENERS[char])
        elif stack and char == stack[-1]:
            stack.pop()
        elif not stack and char == ")":
            parts.append(current)
            return parts
        elif not stack and char == ",":
            parts.append(current)
            current = ""
            continue
        current += char
    return None
