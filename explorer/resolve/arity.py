"""How many arguments a C++ call passes and a definition takes, to tell overloads apart.

The index keeps where a call is written, not its arguments; when a name has several
definitions, the call's argument list is read from the source at that place and its
top-level commas counted. A definition takes between its parameters without a default and
all of them (any number after `...`). Where the count rules out some overloads they are
dropped; where it rules out all, or none, every definition is kept. Among those left, what
the arguments are may rule out more (argument_kinds.py, given the arguments read here).
"""

from __future__ import annotations

import functools
import math
import re

from explorer.model import CallShape, Symbol
from explorer.resolve.sources import SourceLines

_OPENERS = {"(": ")", "[": "]", "{": "}", "<": ">"}


def argument_count(sources: SourceLines, path: str, line: int, column: int) -> int | None:
    """Arguments of the call whose callee starts at (line, column), or None if unreadable."""
    arguments = arguments_at(sources, path, line, column)
    return len(arguments) if arguments is not None else None


def arguments_at(sources: SourceLines, path: str, line: int, column: int) -> list[str] | None:
    """The arguments, as written, in the first parentheses from where a callee starts at
    (line, column); None if unreadable."""
    text = "\n".join(sources.of_file(path)[line - 1 : line + 40])
    start = text.find("(", column)
    return split_arguments(text, start) if start >= 0 else None


def split_arguments(text: str, start: int) -> list[str] | None:
    """The arguments between the parenthesis at `start` and its match, each stripped."""
    parts = _split(text, start)
    return [part.strip() for part in parts if part.strip()] if parts is not None else None


def call_arguments(sources: SourceLines, path: str, line: int, column: int, written: str) -> list[str] | None:
    """The arguments, as written, of the call or launch of `written` whose callee starts at
    (line, column), or of the factory that runs the constructor `written` there
    (`std::make_shared<PyTorchStreamReader>(std::move(adapter))`); None when the source there
    is not that call (a call made in a macro's expansion is placed at the macro's invocation)
    or cannot be read."""
    text = "\n".join(sources.of_file(path)[line - 1 : line + 40])
    head = _FIRST_NAME.search(written)
    if head is None or not (text.startswith(head.group(), column) or _constructed_by_factory(text, column, written)):
        return None
    # a launch's arguments follow its `<<<...>>>`; a call inside the launch's configuration
    # (`static_cast<unsigned>(blocks)`) reaches its own `(` before any `<<<`
    first_parenthesis = text.find("(", column)
    launch = text.find("<<<", column, first_parenthesis) if first_parenthesis >= 0 else -1
    if launch >= 0:
        launch = text.find(">>>", launch)
    start = text.find("(", launch + 3 if launch >= 0 else column)
    return split_arguments(text, start) if start >= 0 else None


_FIRST_NAME = re.compile(r"[A-Za-z_]\w*")


def _constructed_by_factory(text: str, column: int, written: str) -> bool:
    """Whether the source at `column` is a factory (`std::make_unique<T>(`, which the index
    stores as a call of T's constructor `T::T` where the factory is written) and `written` a
    constructor."""
    names = written.split("::")
    return len(names) >= 2 and names[-1] == names[-2] and _FACTORY.match(text, column) is not None


_FACTORY = re.compile(r"(?:(?:::)?(?:std|c10)::)?make_(?:unique|shared|intrusive)\s*<")


@functools.lru_cache(maxsize=8192)  # a trace asks of the same few thousand signatures again and again
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


_KEYWORD = re.compile(r"\s*([A-Za-z_]\w*)\s*=(?!=)")


def python_call_shape(sources: SourceLines, path: str, line: int, column: int) -> CallShape | None:
    """The shape of the Python call whose callee starts at (line, column), or None."""
    parts = arguments_at(sources, path, line, column)
    if parts is None:
        return None
    keywords = tuple(match.group(1) for part in parts if (match := _KEYWORD.match(part)))
    opened = any(part.startswith("*") for part in parts)
    return CallShape(len([p for p in parts if not _KEYWORD.match(p) and not p.startswith("*")]), keywords, opened)


def fits_schema(schema: str, shape: CallShape) -> bool:
    """Whether an operator schema (`add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1)
    -> Tensor`) accepts a call of this shape, as PyTorch's Python argument parser decides:
    positional arguments fill the parameters before `*` in order, keywords name any
    parameter, and every parameter without a default must be given."""
    start = schema.find("(")
    parameters = _split(schema, start) if start >= 0 else None
    if parameters is None or shape.open:
        return True
    positional_names: list[str] = []
    required: set[str] = set()
    names: set[str] = set()
    keyword_only = False
    for parameter in (p.strip() for p in parameters if p.strip()):
        if parameter == "*":
            keyword_only = True
            continue
        declared, _, default = parameter.partition("=")
        name = declared.split()[-1]
        names.add(name)
        if not default:
            required.add(name)
        if not keyword_only:
            positional_names.append(name)
    if shape.positional > len(positional_names):
        return False
    given = set(positional_names[: shape.positional]) | set(shape.keywords)
    return set(shape.keywords) <= names and required <= given


def fitting_schemas(operators: list[Symbol], count: int) -> list[Symbol]:
    """The operators whose schema takes `count` arguments passed in order (the C++ API's
    way: keyword-only ones too); all of them when none does."""
    kept = []
    for operator in operators:
        start = operator.signature.find("(")
        parameters = _split(operator.signature, start) if start >= 0 else None
        if parameters is None:
            return operators
        declared = [p.strip() for p in parameters if p.strip() and p.strip() != "*"]
        if sum("=" not in p for p in declared) <= count <= len(declared):
            kept.append(operator)
    return kept or operators


def fitting(definitions: list[Symbol], count: int | None) -> list[Symbol]:
    """The overloads a call of `count` arguments fits. A definition written apart from its
    declaration does not repeat the declaration's default arguments (ProcessGroupNCCL.cpp's
    `collective(input, output, fn, opType, profilingTitle, avoidRecordStreams)`, whose last two
    default in the header): when no overload fits, those that need the fewest defaults from
    elsewhere are the ones taken."""
    if count is None or len(definitions) < 2:
        return definitions
    ranges = [(d, parameter_range(d.signature)) for d in definitions]
    kept = [d for d, (fewest, most) in ranges if fewest <= count <= most]
    if kept:
        return kept
    longer = [(fewest - count, d) for d, (fewest, _) in ranges if fewest > count and _defined_apart(d)]
    if longer:
        least = min(missing for missing, _ in longer)
        return [d for missing, d in longer if missing == least]
    return definitions


def _defined_apart(definition: Symbol) -> bool:
    """A definition written with its qualified name (`Class::method(...)` outside the class),
    whose declaration, elsewhere, may give default arguments."""
    return re.search(rf"::\s*{re.escape(definition.name)}\s*\(", definition.signature) is not None


def _split(text: str, start: int) -> list[str] | None:
    """The top-level comma-separated parts between the parenthesis at `start` and its match."""
    scanned = _scan(text, start)
    return scanned[0] if scanned is not None else None


def closing_parenthesis(text: str, start: int) -> int | None:
    """Where the parenthesis at `start` is closed, or None if it is not in `text`."""
    scanned = _scan(text, start)
    return scanned[1] if scanned is not None else None


def _scan(text: str, start: int) -> tuple[list[str], int] | None:
    """The top-level parts between the parenthesis at `start` and its match, and the match's
    place. `<` opens a template argument list only between a name and a name (`f<T, U>(`);
    `a < b`, `i<3` and `p->x` leave the nesting alone. A quote's escapes are skipped."""
    stack: list[str] = []
    parts: list[str] = []
    current, quote, escaped = "", "", False
    for index in range(start + 1, len(text)):
        char = text[index]
        if quote:
            current += char
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
            continue
        if char in "\"'":
            quote = char
        elif char in "([{" or (char == "<" and current[-1:].isalnum() and text[index + 1 : index + 2].isalpha()):
            stack.append(_OPENERS[char])
        elif stack and char == stack[-1]:
            stack.pop()
        elif not stack and char == ")":
            parts.append(current)
            return parts, index
        elif not stack and char == ",":
            parts.append(current)
            current = ""
            continue
        current += char
    return None
