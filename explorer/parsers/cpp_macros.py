"""Definitions that C++ macros write: expand a file's own function-like macros where they
are invoked at namespace level, so the functions they generate are indexed.

PyTorch writes hundreds of kernels this way, for example

    #define CREATE_UNARY_TORCH_IMPL_FUNC(func_out, func_stub) \\
    TORCH_IMPL_FUNC(func_out) (const Tensor& self, const Tensor& result) { ... }
    CREATE_UNARY_TORCH_IMPL_FUNC(acos_out, acos_stub)

and `FOREACH_BINARY_OP_SCALAR(add)` pastes `foreach_tensor_##OP##_scalar_kernel_slow`.
A parser that does not expand them misses about one kernel in five that
native_functions.yaml names. This is a small preprocessor, not a full one: parameters are
substituted, `##` pastes and `#` stringizes, and the result is expanded again (a few levels)
for macros that call other macros of the same file. Only invocations outside any function
body are expanded, since only they can define functions.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_IDENTIFIER = re.compile(rb"[A-Za-z_]\w*")
_STRINGIZE = re.compile(rb"(?<![#\w])#(?!#)\s*([A-Za-z_]\w*)")
_PASTE = re.compile(rb"\s*##\s*")
_MAX_DEPTH = 3
_MAX_EXPANSION = 200_000  # bytes; a runaway expansion is abandoned


@dataclass(frozen=True, slots=True)
class Macro:
    name: str
    parameters: tuple[str, ...]  # "..." for a variadic tail
    body: bytes
    line: int
    end_line: int
    start: int  # byte span of the directive
    stop: int


@dataclass(frozen=True, slots=True)
class Invocation:
    macro: Macro
    start: int  # byte offsets of `NAME(...)` in the file
    end: int
    line: int
    end_line: int
    text: bytes  # what the invocation expands to


_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^)]*)\)", re.MULTILINE)
_DIRECTIVE_END = re.compile(rb"(?<!\\)\n")


def read_defines(source: bytes) -> list[Macro]:
    """Every function-like macro the file defines (object-like ones define no functions)."""
    return [_macro(source, header) for header in _DEFINE.finditer(source)]


def _macro(source: bytes, header: re.Match[bytes]) -> Macro:
    start = header.start()
    line = source.count(b"\n", 0, start) + 1
    end = _DIRECTIVE_END.search(source, header.end())
    stop = end.start() if end is not None else len(source)
    parameters = tuple(part.strip() for part in header.group(2).decode("utf-8", "replace").split(",") if part.strip())
    body = source[header.end():stop].decode("utf-8", "replace")
    # Join continued lines; drop comments, which would swallow the rest of a joined line.
    body = re.sub(r"\\\r?\n", "\n", body)
    body = re.sub(r"/\*.*?\*/", " ", body, flags=re.DOTALL)
    body = re.sub(r"//[^\n]*", " ", body)
    end_line = line + source.count(b"\n", start, stop)
    return Macro(header.group(1).decode("ascii"), parameters, body.strip().encode("utf-8"), line, end_line, start, stop)


def expandable(macros: list[Macro]) -> list[Macro]:
    """The macros that can define functions: a body with a block, or one that invokes such
    a macro (`CREATE_UNARY_UFUNC(op)` expanding to three other macros)."""
    chosen = {macro.name for macro in macros if b"{" in macro.body and b"(" in macro.body}
    grew = True
    while grew:
        grew = False
        for macro in macros:
            if macro.name not in chosen and any(
                re.search(rb"\b" + re.escape(name.encode()) + rb"\s*\(", macro.body) for name in chosen
            ):
                chosen.add(macro.name)
                grew = True
    return [macro for macro in macros if macro.name in chosen]


def expansion_budget(source: bytes) -> int:
    """How many bytes a file's macro invocations may expand to in all. Real files reach about
    twelve times their size (PyTorch's embedding kernels); a few hundred bytes of nested
    macros could otherwise stand for millions of definitions."""
    return 16 * len(source) + 64 * 1024


@dataclass(frozen=True, slots=True)
class Invocations:
    found: list[Invocation]
    over_budget_at: int | None  # the line of the first invocation past the budget, if any


def find_invocations(
    source: bytes, macros: list[Macro], at_top_level: Callable[[int], bool], defines: list[Macro]
) -> Invocations:
    """Invocations of `macros` in `source` for which `at_top_level(offset)` holds, leaving out
    those inside the text of a `#define` (any of `defines`), expanded until the file's
    expansion budget is spent."""
    by_name = {macro.name.encode(): macro for macro in macros}
    if not by_name:
        return Invocations([], None)
    budget = expansion_budget(source)
    inside_define = [(macro.start, macro.stop) for macro in defines]
    pattern = re.compile(rb"^[ \t]*(" + b"|".join(re.escape(name) for name in by_name) + rb")[ \t]*\(", re.MULTILINE)
    invocations: list[Invocation] = []
    for match in pattern.finditer(source):
        start = match.start(1)
        if not at_top_level(start) or any(low <= start < high for low, high in inside_define):
            continue
        arguments, end = _arguments(source, match.end() - 1)
        if arguments is None:
            continue
        macro = by_name[match.group(1)]
        expanded = _expand(macro, arguments, {m.name: m for m in macros}, 0)
        if expanded is None:
            continue
        line = source.count(b"\n", 0, start) + 1
        budget -= len(expanded)
        if budget < 0:
            return Invocations(invocations, line)
        invocations.append(Invocation(macro, start, end, line, line + source.count(b"\n", start, end), expanded))
    return Invocations(invocations, None)


def call_end(source: bytes, open_paren: int) -> int | None:
    """Where the parenthesised list whose `(` is at `open_paren` ends (None: it never closes)."""
    arguments, end = _arguments(source, open_paren)
    return None if arguments is None else end


def _arguments(source: bytes, open_paren: int) -> tuple[list[bytes] | None, int]:
    """The comma-separated arguments of the call whose `(` is at `open_paren`, and where the
    call ends. Nested parentheses, brackets, braces and string literals are respected."""
    depth = 0
    arguments: list[bytes] = []
    current = open_paren + 1
    position = open_paren
    length = len(source)
    while position < length:
        char = source[position:position + 1]
        if char in b"([{":
            depth += 1
        elif char in b")]}":
            depth -= 1
            if depth == 0:
                arguments.append(source[current:position].strip())
                return arguments, position + 1
        elif char == b"," and depth == 1:
            arguments.append(source[current:position].strip())
            current = position + 1
        elif char in b"\"'":
            closing = position + 1
            while closing < length and source[closing:closing + 1] != char:
                closing += 2 if source[closing:closing + 1] == b"\\" else 1
            position = closing
        position += 1
    return None, length


def _expand(macro: Macro, arguments: list[bytes], macros: dict[str, Macro], depth: int) -> bytes | None:
    values: dict[bytes, bytes] = {}
    for index, parameter in enumerate(macro.parameters):
        if parameter == "...":
            values[b"__VA_ARGS__"] = b", ".join(arguments[index:])
            break
        values[parameter.encode()] = arguments[index] if index < len(arguments) else b""
    body = macro.body
    # `#param` makes a string of an argument, then parameters are substituted, then `##` pastes.
    body = _STRINGIZE.sub(lambda m: b'"' + values[m.group(1)] + b'"' if m.group(1) in values else m.group(0), body)
    body = _IDENTIFIER.sub(lambda m: values.get(m.group(0), m.group(0)), body)
    body = _PASTE.sub(b"", body)
    if depth < _MAX_DEPTH:
        body = _expand_nested(body, macros, depth + 1)
    return body if len(body) <= _MAX_EXPANSION else None


def _expand_nested(text: bytes, macros: dict[str, Macro], depth: int) -> bytes:
    """Expand invocations of the file's other macros inside an expansion."""
    names = [name.encode() for name in macros]
    if not names:
        return text
    pattern = re.compile(rb"\b(" + b"|".join(re.escape(name) for name in names) + rb")\s*\(")
    pieces = []
    position = 0
    for match in pattern.finditer(text):
        if match.start() < position:
            continue
        arguments, end = _arguments(text, match.end() - 1)
        if arguments is None:
            continue
        expanded = _expand(macros[match.group(1).decode()], arguments, macros, depth)
        if expanded is None:
            continue
        pieces.append(text[position:match.start()])
        pieces.append(expanded)
        position = end
    pieces.append(text[position:])
    return b"".join(pieces)
