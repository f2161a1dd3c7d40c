"""The lines of a tree's files, read once per query: what a rule needs beyond the index
(a definition's own lines, the decorators above a `def`, a call's arguments)."""

from __future__ import annotations

import os

from explorer.index import source_lines
from explorer.model import Symbol


class SourceLines:
    def __init__(self, root: str) -> None:
        self.root = root
        self._files: dict[str, list[str]] = {}

    def of_file(self, path: str) -> list[str]:
        """A file's lines ([] if it cannot be read any more, or is no regular file of a
        readable size: index/files.py's source_lines)."""
        lines = self._files.get(path)
        if lines is None:
            lines = self._files[path] = source_lines(os.path.join(self.root, path))
        return lines

    def line(self, path: str, number: int) -> str:
        lines = self.of_file(path)
        return lines[number - 1] if 0 < number <= len(lines) else ""

    def of_definition(self, symbol: Symbol) -> str:
        """The lines a definition spans, as the index locates it."""
        if symbol.path is None or symbol.line is None:
            return ""
        lines = self.of_file(symbol.path)
        return "\n".join(lines[symbol.line - 1 : symbol.end_line or symbol.line]) + "\n"

    def decorators(self, symbol: Symbol) -> list[tuple[int, str]]:
        """The `@...` lines right above a definition, nearest first, with their numbers."""
        found: list[tuple[int, str]] = []
        if symbol.path is None or symbol.line is None:
            return found
        number = symbol.line - 1
        while number > 0 and (text := self.line(symbol.path, number).strip()).startswith("@"):
            found.append((number, text))
            number -= 1
        return found
