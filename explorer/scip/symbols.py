"""SCIP symbol strings for explorer's definitions.

A symbol is `explorer . <package> . <descriptors>`: scheme `explorer`, no package manager or
version, the package the tree's name. Descriptors follow each language's own nesting:

    torch.nn.modules.conv.Conv2d.forward   torch/nn/modules/conv/Conv2d#forward().
    at::native::conv2d_symint              at/native/conv2d_symint().
    aten::conv2d.padding                   aten/`conv2d.padding`().
    cudnnConvolutionForward (a vendor API) cudnnConvolutionForward(), in the package `vendor`

A Python module's parts are namespaces; a class is a type (`#`), a function, method, kernel or
operator a method (`().`), anything else a term (`.`), a function-like macro a macro (`!`).
Two definitions of one qualified name (both sides of an `#if`) are told apart as SCIP tells
overloads: the second in (path, line) order is `name(+1).`, and so on.
"""

from __future__ import annotations

import re

from explorer.index import IndexReader
from explorer.model import Language, Symbol, SymbolKind
from explorer.parsers.common import module_name

_SIMPLE = re.compile(r"[A-Za-z0-9_+\-$]+")
_TYPES = frozenset({SymbolKind.CLASS, SymbolKind.STRUCT, SymbolKind.ENUM, SymbolKind.BOUND_CLASS})
_CALLABLE = frozenset(
    {
        SymbolKind.FUNCTION,
        SymbolKind.METHOD,
        SymbolKind.KERNEL,
        SymbolKind.STRUCTURED_KERNEL,
        SymbolKind.META_FUNCTION,
        SymbolKind.OPERATOR,
        SymbolKind.PYBIND,
        SymbolKind.METHOD_TABLE,
    }
)


def escaped(name: str) -> str:
    """A descriptor's name, in backticks where it holds more than SCIP's simple characters."""
    return name if _SIMPLE.fullmatch(name) else "`" + name.replace("`", "``") + "`"


class SymbolNamer:
    """Names definitions of one tree (`package`) as SCIP symbols; remembers what it looked up."""

    def __init__(self, reader: IndexReader, package: str) -> None:
        self.reader = reader
        self.package = "-".join(package.split()) or "."
        self._kinds: dict[str, dict[str, SymbolKind]] = {}  # file -> qname -> kind

    def name(self, symbol: Symbol) -> str:
        if symbol.lang is Language.VENDOR:  # a vendor library's API: a package of its own
            return f"explorer . vendor . {escaped(symbol.qname)}()."
        return f"explorer . {self.package} . {self.descriptors(symbol)}"

    def descriptors(self, symbol: Symbol) -> str:
        if symbol.lang in (Language.CPP, Language.CUDA) or "::" in symbol.qname:
            outer, last = self._cpp_parts(symbol.qname)
        else:
            outer, last = self._python_parts(symbol)
        return "".join(outer) + self._last(symbol, last)

    def _python_parts(self, symbol: Symbol) -> tuple[list[str], str]:
        parts = symbol.qname.split(".")
        module = (
            module_name(symbol.path).split(".") if symbol.path and symbol.path.endswith((".py", ".pyi")) else parts[:-1]
        )
        if symbol.kind is SymbolKind.MODULE or parts[: len(module)] != module:
            return [escaped(part) + "/" for part in parts[:-1]], parts[-1]
        outer = [escaped(part) + "/" for part in module]
        kinds = self._file_kinds(symbol.path)
        for end in range(len(module) + 1, len(parts)):
            kind = kinds.get(".".join(parts[:end]))
            outer.append(escaped(parts[end - 1]) + ("#" if kind in _TYPES or kind is None else "()."))
        return outer, parts[-1]

    @staticmethod
    def _cpp_parts(qname: str) -> tuple[list[str], str]:
        parts = qname.split("::")
        return [escaped(part) + "/" for part in parts[:-1]], parts[-1]

    def _last(self, symbol: Symbol, name: str) -> str:
        if symbol.kind is SymbolKind.MODULE or symbol.kind is SymbolKind.NAMESPACE:
            return escaped(name) + "/"
        if symbol.kind in _TYPES:
            return escaped(name) + "#"
        if symbol.kind is SymbolKind.MACRO:
            return escaped(name) + "!"
        if symbol.kind in _CALLABLE:
            return f"{escaped(name)}({self._disambiguator(symbol)})."
        return escaped(name) + "."

    def _disambiguator(self, symbol: Symbol) -> str:
        if symbol.path is None:
            return ""
        same = sorted(
            {(s.path or "", s.line or 0) for s in self.reader.symbols_with_qname(symbol.qname) if s.path is not None}
        )
        position = same.index((symbol.path, symbol.line or 0)) if (symbol.path, symbol.line or 0) in same else 0
        return f"+{position}" if position else ""

    def _file_kinds(self, path: str | None) -> dict[str, SymbolKind]:
        if path is None:
            return {}
        found = self._kinds.get(path)
        if found is None:
            found = self._kinds[path] = {s.qname: s.kind for s in self.reader.symbols_in_file(path)}
        return found
