"""Where LSP and explorer meet: URIs and positions are converted here and nowhere else.

LSP counts lines from 0 and columns in UTF-16 code units; explorer's records count lines
from 1, and a column here is an index into the line's characters. Explorer's paths are
relative to the project's root, or absolute in another tree (index/multi.py).
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp


def path_of(uri: str, root: str) -> str | None:
    """The path explorer knows a document by, or None for a URI that is no local file."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    absolute = os.path.normpath(unquote(parsed.path))
    # resolved as the root was: a workspace opened through a link (macOS's /tmp) is still inside it
    inside = os.path.relpath(os.path.realpath(absolute), root)
    return absolute if inside.startswith("..") else inside.replace(os.sep, "/")


def uri_of(path: str, root: str) -> str:
    return Path(os.path.join(root, path)).resolve().as_uri()


def column_of(text: str, character: int) -> int:
    """An LSP character offset (UTF-16 units) as an index into `text`."""
    units = 0
    for index, char in enumerate(text):
        if units >= character:
            return index
        units += 2 if ord(char) > 0xFFFF else 1
    return len(text)


def character_of(text: str, column: int) -> int:
    """An index into `text` as an LSP character offset (UTF-16 units)."""
    return sum(2 if ord(char) > 0xFFFF else 1 for char in text[:column])


def line_range(line: int, text: str, start: int = 0, end: int | None = None) -> lsp.Range:
    """Columns start..end of a 1-based line (the whole line by default)."""
    stop = len(text) if end is None else end
    return lsp.Range(
        lsp.Position(line - 1, character_of(text, start)), lsp.Position(line - 1, character_of(text, stop))
    )


def span_range(first: int, last: int, last_text: str) -> lsp.Range:
    """From the start of line `first` to the end of line `last` (1-based)."""
    return lsp.Range(lsp.Position(first - 1, 0), lsp.Position(last - 1, character_of(last_text, len(last_text))))
