"""Which C++ definitions a call written in one file can see, beyond their names.

A definition that is `static` at namespace scope or inside an anonymous namespace exists
only in its own translation unit: calls from another source file never reach it. Written in
a header, it is copied into every file that includes it, so it stays visible.
"""

from __future__ import annotations

from explorer.model import Symbol

HEADER_SUFFIXES = (".h", ".hpp", ".hh", ".cuh", ".inl", ".inc", ".def")


def visible_from(path: str | None, symbols: list[Symbol]) -> list[Symbol]:
    """The definitions a call written in `path` can reach."""
    if path is None:
        return symbols
    return [s for s in symbols if not s.file_local or s.path == path or (s.path or "").endswith(HEADER_SUFFIXES)]
