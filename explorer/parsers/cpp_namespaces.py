"""Namespace extents of a C++ file, read from its tokens rather than its syntax tree.

Preprocessor conditionals that split a statement (`#if X ... #else ... #endif` inside a
function) can make tree-sitter's error recovery swallow everything after them, enclosing
namespace included: in PyTorch's Convolution.cpp the whole `namespace at::native { ... }`
becomes one ERROR node, and its functions would lose their `at::native::` prefix. Braces
are more robust: this scanner skips comments, strings and character literals, counts braces
in the first branch of each conditional, and in the other branches only where the first one
was balanced (as ctags does for branches that each open a brace, while a file split into
`#if !CUDNN ... #else ...` halves keeps both), and records where every named namespace opens
and closes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from explorer.parsers.common import ScopeMap

_TOKENS = re.compile(
    rb"""
    (?=[/R"'\#n{}\ \t])  # every token starts with one of these: lets the scan skip the rest fast
    (?:
      (?P<comment>//[^\n]*|/\*.*?\*/)
    | (?P<raw>R"(?P<delimiter>[^()\\\s]{0,16})\(.*?\)(?P=delimiter)")
    | (?P<string>"(?:\\.|[^"\\\n])*")
    | (?P<char>'(?:\\.|[^'\\\n])+')
    | (?P<directive>^[ \t]*\#[ \t]*(?P<directive_name>\w+)(?:\\\r?\n|[^\n])*)
    | (?P<namespace>\bnamespace\b\s*(?P<name>[A-Za-z_][\w]*(?:\s*::\s*(?:inline\s+)?[A-Za-z_][\w]*)*)?\s*(?:\[\[[^\]]*\]\]\s*)?\{)
    | (?P<open>\{)
    | (?P<close>\})
    )
    """,
    re.MULTILINE | re.DOTALL | re.VERBOSE,
)
_OPENS_CONDITIONAL = {b"if", b"ifdef", b"ifndef"}
_SWITCHES_BRANCH = {b"else", b"elif", b"elifdef", b"elifndef"}


class _Conditionals:
    """Which preprocessor branches count. Each open conditional remembers the brace depth at
    its `#if`; a later branch counts if the first branch ended at that same depth."""

    def __init__(self) -> None:
        self._open: list[tuple[int, str]] = []  # (depth at #if, "first" | "counted" | "skipped")

    def directive(self, name: bytes, depth: int) -> None:
        if name in _OPENS_CONDITIONAL:
            self._open.append((depth, "first"))
        elif name in _SWITCHES_BRANCH and self._open:
            start, state = self._open[-1]
            if state == "first":
                self._open[-1] = (start, "counted" if depth == start else "skipped")
        elif name == b"endif" and self._open:
            self._open.pop()

    @property
    def skipping(self) -> bool:
        return any(state == "skipped" for _, state in self._open)


@dataclass(frozen=True, slots=True)
class NamespaceExtent:
    qname: str  # at::native; for an anonymous namespace, the named one around it ("" if none)
    start: int  # byte offset of the `namespace` keyword
    end: int  # byte offset just past its closing brace (the end of the file if unclosed)
    anonymous: bool = False  # `namespace {`: what it defines is visible only in its file


def namespace_extents(source: bytes) -> list[NamespaceExtent]:
    extents: list[NamespaceExtent] = []
    # One entry per open brace: (namespace path it opens or None, where, names it added,
    # whether it opens an anonymous namespace).
    braces: list[tuple[str | None, int, int, bool]] = []
    path: list[str] = []
    conditionals = _Conditionals()

    def close(end: int) -> None:
        qname, start, added, anonymous = braces.pop()
        if qname is not None:
            extents.append(NamespaceExtent(qname, start, end, anonymous))
        if added:
            del path[-added:]

    for token in _TOKENS.finditer(source):
        kind = token.lastgroup
        if kind == "directive":
            conditionals.directive(token.group("directive_name"), len(braces))
        elif kind in ("comment", "raw", "string", "char") or conditionals.skipping:
            continue
        elif kind == "namespace":
            written = token.group("name")
            parts = (
                []
                if written is None
                else [part.replace(b"inline", b"").strip().decode("ascii", "replace") for part in written.split(b"::")]
            )
            path.extend(parts)
            braces.append(("::".join(path), token.start(), len(parts), not parts))
        elif kind == "open":
            braces.append((None, token.start(), 0, False))
        elif braces:  # a closing brace
            close(token.end())
    while braces:  # left open at the end of the file
        close(len(source))
    extents.sort(key=lambda extent: (extent.start, -extent.end))
    return extents


def namespace_map(extents: list[NamespaceExtent]) -> ScopeMap:
    """Byte offset -> the innermost enclosing named namespace ("" outside any; an anonymous
    one adds no name)."""
    scopes = ScopeMap("")
    for extent in extents:
        scopes.add(extent.start, extent.end, extent.qname)
    return scopes


def anonymous_map(extents: list[NamespaceExtent]) -> ScopeMap:
    """Byte offset -> "anonymous" inside an anonymous namespace (at any depth), else ""."""
    scopes = ScopeMap("")
    for extent in extents:
        if extent.anonymous:
            scopes.add(extent.start, extent.end, "anonymous")
    return scopes


def matching_brace(source: bytes, opening: int) -> int:
    """The offset just past the brace that closes the one at `opening` (the end of the file if
    none does), counted as `namespace_extents` counts them."""
    depth = 0
    conditionals = _Conditionals()
    for token in _TOKENS.finditer(source, opening):
        kind = token.lastgroup
        if kind == "directive":
            conditionals.directive(token.group("directive_name"), depth)
        elif kind in ("comment", "raw", "string", "char") or conditionals.skipping:
            continue
        elif kind in ("namespace", "open"):
            depth += 1
        elif kind == "close":
            depth -= 1
            if depth == 0:
                return token.end()
    return len(source)
