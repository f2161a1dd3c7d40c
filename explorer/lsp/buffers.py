"""Open documents whose text differs from the file as saved (and indexed).

An editor asks about positions in its buffer; the index knows the file as saved. Lines are
matched between the two (difflib's longest matching blocks): a position on a line that both
have is answered from the index at the saved line, and every location in that file that an
answer gives is moved back to the buffer's line. A position on a line only the buffer has
(code typed and not saved) is answered from the buffer's text parsed in memory: a call written
there names what the buffer's own imports make of it; anything else, by the name under the
cursor alone.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from explorer.model import CallSite
from explorer.parsers import language_of, parse_file


@dataclass(frozen=True, slots=True)
class LineMap:
    """Line numbers (1-based) between a buffer and the file as saved."""

    to_saved: dict[int, int]  # buffer line -> saved line, for the lines both have
    to_buffer: list[int]  # saved line - 1 -> buffer line (a line the buffer lost: where it was)

    @classmethod
    def between(cls, saved: list[str], buffer: list[str]) -> LineMap:
        to_saved: dict[int, int] = {}
        to_buffer = [0] * len(saved)
        matcher = difflib.SequenceMatcher(None, saved, buffer, autojunk=False)
        for tag, saved_start, saved_end, buffer_start, buffer_end in matcher.get_opcodes():
            for offset in range(saved_end - saved_start):
                if tag == "equal":
                    to_saved[buffer_start + offset + 1] = saved_start + offset + 1
                    to_buffer[saved_start + offset] = buffer_start + offset + 1
                else:  # replaced or deleted: the first line of what replaced it
                    to_buffer[saved_start + offset] = min(buffer_start + offset, max(buffer_end - 1, buffer_start)) + 1
        return cls(to_saved, to_buffer)

    def saved_line(self, buffer_line: int) -> int | None:
        return self.to_saved.get(buffer_line)

    def buffer_line(self, saved_line: int) -> int:
        if 1 <= saved_line <= len(self.to_buffer):
            return self.to_buffer[saved_line - 1]
        return saved_line  # past the saved file's end: no line of the index is there


@dataclass(slots=True)
class Buffer:
    """An open document that differs from its file: its lines, and the map to the saved ones."""

    lines: list[str]
    map: LineMap
    _calls: list[CallSite] | None = None

    def line(self, number: int) -> str:
        return self.lines[number - 1] if 0 < number <= len(self.lines) else ""

    def calls(self, path: str) -> list[CallSite]:
        """The call sites of the buffer's own text, parsed in memory once (lines are the
        buffer's): what code typed and not saved calls, with the buffer's imports expanded."""
        if self._calls is None:
            lang = language_of(path)
            self._calls = []
            if lang is not None:
                try:
                    self._calls = parse_file(path, lang, "\n".join(self.lines).encode("utf-8", "surrogatepass")).calls
                except (RecursionError, ValueError, UnicodeError):  # text no parser reads: names only
                    self._calls = []
        return self._calls


def buffer_of(saved: list[str], text: str) -> Buffer | None:
    """The buffer holding `text`, or None when it holds the saved lines."""
    lines = text.splitlines()
    if lines == saved:
        return None
    return Buffer(lines, LineMap.between(saved, lines))
