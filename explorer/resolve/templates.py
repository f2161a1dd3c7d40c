"""Which explicit specialisation of a C++ function template a call means.

`gemm<float>(...)` runs the definition written `template <> void gemm<float>(...)`, not the
`gemm<double>` one beside it, nor the primary template that only `static_assert`s. The index
keeps a call's callee without template arguments and a definition's header as written, so
the arguments are read back: the call's from the source at the call, the definition's from
its signature. A call whose arguments are template parameters of its caller, or names that
are neither built-in types nor named by any specialisation (`gemm<scalar_t>` inside an
AT_DISPATCH lambda), names no one specialisation: every definition stays a candidate.
"""

from __future__ import annotations

import functools
import re

from explorer.model import Symbol
from explorer.resolve.sources import SourceLines

_SPACE = re.compile(r"\s+")
_NAME = re.compile(r"[A-Za-z_]\w*")
_BUILTIN_TYPES = frozenset(
    {
        "bool",
        "char",
        "short",
        "int",
        "long",
        "unsigned",
        "signed",
        "float",
        "double",
        "void",
        "const",
        "int8_t",
        "int16_t",
        "int32_t",
        "int64_t",
        "uint8_t",
        "uint16_t",
        "uint32_t",
        "uint64_t",
        "size_t",
    }
)


def written_template_arguments(text: str, start: int) -> str | None:
    """The `<...>` right after the name that ends at `start` in `text`, without its brackets
    and spaces, or None when the name is not followed by template arguments."""
    at = start
    while at < len(text) and text[at] in " \t":
        at += 1
    if at >= len(text) or text[at] != "<":
        return None
    depth = 0
    for index in range(at, min(len(text), at + 400)):
        character = text[index]
        if character == "<":
            depth += 1
        elif character == ">":
            depth -= 1
            if depth == 0:
                return _SPACE.sub("", text[at + 1 : index])
        elif character in ";{}":
            return None
    return None


def call_template_arguments(sources: SourceLines, path: str, line: int, column: int, name: str) -> str | None:
    """The template arguments written at a call of `name` starting at (line, column)."""
    text = sources.line(path, line)
    end = text.find(name, column)
    if end < 0:
        return None
    return written_template_arguments(text, end + len(name))


def specialisation_arguments(symbol: Symbol) -> str | None:
    """`float` for a definition whose header reads `... gemm<float>(...)`; None for a primary
    template or a plain function."""
    return _specialisation_arguments(symbol.name, symbol.signature)


@functools.lru_cache(maxsize=8192)  # a trace asks of the same definitions at every call it meets
def _specialisation_arguments(name: str, signature: str) -> str | None:
    if "<" not in signature:
        return None
    match = re.search(rf"\b{re.escape(name)}\s*<", signature)
    if match is None:
        return None
    return written_template_arguments(signature, match.end() - 1)


def chosen_specialisations(
    candidates: list[Symbol], arguments: str | None, caller_parameters: set[str]
) -> list[Symbol]:
    """Of the definitions a call of a template may reach, those its template arguments pick:
    the explicit specialisations for exactly those arguments, else every definition that is
    not an explicit specialisation (the primary templates and plain overloads). Arguments that
    mention a template parameter of the caller decide nothing."""
    if not arguments or len(candidates) < 2:
        return candidates
    tokens = set(_NAME.findall(arguments))
    if tokens & caller_parameters:
        return candidates
    specialised = {id(symbol): specialisation_arguments(symbol) for symbol in candidates}
    exact = [symbol for symbol in candidates if specialised[id(symbol)] == _normalised(arguments)]
    if exact:
        return exact
    # A type no specialisation names: the primary template, if the arguments are types we
    # know; a name we cannot tell (`scalar_t` from an AT_DISPATCH lambda) may be any of them.
    known = _BUILTIN_TYPES.union(*(_NAME.findall(args) for args in specialised.values() if args))
    if not tokens <= known:
        return candidates
    general = [symbol for symbol in candidates if specialised[id(symbol)] is None]
    return general or candidates


def _normalised(arguments: str) -> str:
    return _SPACE.sub("", arguments)


def template_parameters(signature: str) -> set[str]:
    """The names a definition's `template <typename T, int N>` header declares."""
    match = re.match(r"\s*template\s*<(.*?)>\s", signature)
    if match is None:
        return set()
    return {
        words[-1] for part in match.group(1).split(",") if (words := re.findall(r"[A-Za-z_]\w*", part.split("=")[0]))
    }


def generic_parameters(signature: str, template_names: set[str]) -> set[str]:
    """The parameters whose type is one of the template's parameters: `ops` of
    `void gpu_reduce_kernel(TensorIteratorBase& iter, const ops_t& ops)` with ops_t. A functor
    handed to the template is one of these."""
    if not template_names:
        return set()
    start = signature.find("(")
    if start < 0:
        return set()
    found: set[str] = set()
    for parameter in signature[start + 1 : signature.rfind(")")].split(","):
        words = _NAME.findall(parameter.split("=")[0])
        if len(words) >= 2 and template_names.intersection(words[:-1]):
            found.add(words[-1])
    return found
