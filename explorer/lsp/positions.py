"""Where LSP and explorer meet: URIs and positions are converted here and nowhere else.

LSP counts lines from 0 and columns in UTF-16 code units; explorer's records count lines
from 1, and a column here is an index into the line's characters (a Location's column counts
the line's UTF-8 bytes, as the parsers do: `call_range` converts it). Explorer's paths are
relative to the project's root, or absolute in another tree (index/multi.py).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp

from explorer.model import character_index


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


# The callee as a call writes it, from where the call starts: `F.conv2d`, `self.conv`,
# `at::native::add`, `stream->synchronize`, `std::numeric_limits<int>::max`, `a[0].item`,
# `@functools.wraps` (a decorator starts at its `@`).
_PART = r"~?[A-Za-z_]\w*(?:\s*<[^<>();]*>)?(?:\[[^\[\]]*\])*"
_CALLEE = re.compile(rf"@?(?:::)?{_PART}(?:\s*(?:\.|::|->)\s*(?:template\s+)?{_PART})*")


def call_range(line: int, text: str, byte_column: int | None, name: str = "") -> lsp.Range:
    """Where a call that starts `byte_column` bytes into a 1-based line is written: from there
    to `name` (the definition it runs) where the line calls that name after the column (in a
    chain, `builder().add(x)`, each call starts at `builder`), else the callee written at the
    column; the whole line where the column is unknown or no name stands at it (`a + b`)."""
    if byte_column is None:
        return line_range(line, text)
    start = character_index(text, byte_column)
    if name:
        called = re.compile(rf"(?<![\w]){re.escape(name)}(?=\s*(?:\(|<))").search(text, start)
        if called is not None:
            return line_range(line, text, start, called.end())
    found = _CALLEE.match(text, start)
    return line_range(line, text, start, found.end()) if found is not None else line_range(line, text)


def span_range(first: int, last: int, last_text: str) -> lsp.Range:
    """From the start of line `first` to the end of line `last` (1-based)."""
    return lsp.Range(lsp.Position(first - 1, 0), lsp.Position(last - 1, character_of(last_text, len(last_text))))
