"""Which C++ definitions a call written in one file can see, beyond their names.

- A definition that is `static` at namespace scope or inside an anonymous namespace exists
  only in its own translation unit: calls from another source file never reach it. Written
  in a header, it is copied into every file that includes it, so it stays visible.
- A header included inside a namespace block (`namespace at::native { #include "X.cuh" }`)
  defines its functions in that namespace, though the header itself names none: the parser
  records each such include, and here the header's global definitions are found under that
  namespace, and its functions look up plain names there.
"""

from __future__ import annotations

import posixpath

from explorer.index.store import IndexStore
from explorer.model import Symbol

HEADER_SUFFIXES = (".h", ".hpp", ".hh", ".cuh", ".inl", ".inc", ".def")


def visible_from(path: str | None, symbols: list[Symbol]) -> list[Symbol]:
    """The definitions a call written in `path` can reach."""
    if path is None:
        return symbols
    return [s for s in symbols if not s.file_local or s.path == path or (s.path or "").endswith(HEADER_SUFFIXES)]


class NamespaceIncludes:
    """Headers included inside a namespace block, by header path: the namespaces around it."""

    def __init__(self, store: IndexStore) -> None:
        self.store = store
        self._by_header: dict[str, tuple[str, ...]] | None = None

    def namespaces_of(self, path: str | None) -> tuple[str, ...]:
        """The namespaces the header at `path` is included into ((): none, or not a header)."""
        if path is None:
            return ()
        if self._by_header is None:
            self._by_header = self._read()
        return self._by_header.get(path, ())

    def _read(self) -> dict[str, tuple[str, ...]]:
        by_header: dict[str, set[str]] = {}
        for binding in self.store.namespace_includes():
            namespace, _, written = binding.target.partition("|")
            beside = posixpath.normpath(posixpath.join(posixpath.dirname(binding.module), written))
            headers = self.store.files_ending_with(beside) if not beside.startswith("..") else []
            # `#include "X.cuh"` is looked for beside the including file first, then on the
            # include path, which a tree's layout spells as a path suffix (`ATen/native/X.cuh`)
            for header in [h for h in headers if h == beside] or self.store.files_ending_with("/" + written.lstrip("./")):
                by_header.setdefault(header, set()).add(namespace)
        return {header: tuple(sorted(namespaces)) for header, namespaces in by_header.items()}
