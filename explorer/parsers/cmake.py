"""CMake files: the Python extension modules a build declares.

`pybind11_add_module(<name> [MODULE|SHARED] [options] sources...)` (and nanobind's and
FindPython's `*_add_library`) builds the module Python imports as `<name>`: the C++ files
listed are that module, so a `PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)` among them defines
`<name>`'s functions. Each becomes an EXTENSION symbol, as a setup.py's `CUDAExtension`
does (parsers/python.py), with its sources relative to the tree's root.

Read, never run: a name made of variables is no declaration (names/extensions.py then names
the module after its file, marked as derived); a source given by a variable CMake alone
knows (`${SOURCES}`, a file(GLOB)) is left out, and the module's folder stands for it.
"""

from __future__ import annotations

import re

from explorer.model import Diagnostic, FileFacts, Language, Symbol, SymbolKind

_MODULE_COMMANDS = frozenset(
    {
        "pybind11_add_module",
        "nanobind_add_module",
        "python_add_library",
        "python3_add_library",
    }
)
# The options of those commands (MODULE, THIN_LTO, NB_STATIC, ...) are upper case words, which
# no source file is named; a value follows these.
_OPTIONS_WITH_VALUE = frozenset({"NB_DOMAIN", "USE_SABI"})
_KEYWORD = re.compile(r"[A-Z][A-Z0-9_]*")
_COMMAND = re.compile(r"(?m)^[ \t]*([A-Za-z_]\w*)[ \t]*\(")
# a quoted argument, a bracket argument ([[...]], [=[...]=]), an unquoted one, a comment
_ARGUMENT = re.compile(r'"((?:[^"\\]|\\.)*)"|\[(=*)\[(.*?)\]\2\]|([^\s()#"]+)|(#\[(=*)\[.*?\]\6\]|#[^\n]*)', re.DOTALL)
_HERE_VARIABLES = ("${CMAKE_CURRENT_SOURCE_DIR}/", "${CMAKE_CURRENT_LIST_DIR}/")
_ROOT_VARIABLES = ("${PROJECT_SOURCE_DIR}/", "${CMAKE_SOURCE_DIR}/")


def parse_cmake(path: str, source: bytes) -> FileFacts:
    text = source.decode("utf-8", errors="replace")
    facts = FileFacts(path, Language.CMAKE)
    folder = path.rpartition("/")[0]
    for match in _COMMAND.finditer(text):
        if match.group(1).lower() not in _MODULE_COMMANDS:
            continue
        arguments, end = _arguments(text, match.end())
        line = text.count("\n", 0, match.start()) + 1
        if end is None:
            facts.diagnostics.append(Diagnostic(path, f"line {line}: {match.group(1)}( is never closed", skipped=False))
            continue
        if not arguments or "$" in arguments[0]:
            continue  # no name, or one CMake computes
        name, sources = arguments[0], _sources(arguments[1:], folder)
        statement = " ".join(text[match.start() : end].split())[:300]
        facts.symbols.append(
            Symbol(
                name,
                name.rpartition(".")[2],
                SymbolKind.EXTENSION,
                Language.CMAKE,
                path,
                line,
                text.count("\n", 0, end) + 1,
                statement,
                ";".join(sources) or None,
            )
        )
    return facts


def _arguments(text: str, start: int) -> tuple[list[str], int | None]:
    """The arguments of the command whose `(` ends at `start`, and where its `)` ends."""
    arguments: list[str] = []
    depth, at = 1, start
    while at < len(text):
        char = text[at]
        if char == "(":
            depth, at = depth + 1, at + 1
        elif char == ")":
            depth, at = depth - 1, at + 1
            if depth == 0:
                return arguments, at
        elif char.isspace():
            at += 1
        else:
            token = _ARGUMENT.match(text, at)
            if token is None:
                at += 1
                continue
            quoted, bracketed, unquoted, comment = token.group(1), token.group(3), token.group(4), token.group(5)
            if comment is None:
                arguments.append(next(v for v in (quoted, bracketed, unquoted) if v is not None))
            at = token.end()
    return arguments, None


def _sources(arguments: list[str], folder: str) -> list[str]:
    """The source files among a module command's arguments, relative to the tree's root."""
    sources: list[str] = []
    skip_next = False
    for argument in arguments:
        if skip_next:
            skip_next = False
            continue
        if argument in _OPTIONS_WITH_VALUE:
            skip_next = True
            continue
        if _KEYWORD.fullmatch(argument):
            continue
        for written in argument.split(";"):  # a CMake list
            located = _located(written, folder)
            if located is not None:
                sources.append(located)
    return sources


def _located(written: str, folder: str) -> str | None:
    if written.startswith(_HERE_VARIABLES):
        written = written.split("/", 1)[1]
    elif written.startswith(_ROOT_VARIABLES):
        return _normal(written.split("/", 1)[1])
    if not written or "$" in written or written.startswith("/"):
        return None  # a variable, a generator expression, or outside the tree
    return _normal(f"{folder}/{written}" if folder else written)


def _normal(path: str) -> str | None:
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return None
            parts.pop()
            continue
        parts.append(part)
    return "/".join(parts) or None
