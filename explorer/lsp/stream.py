"""The language server's input, read as LSP frames them: headers, an empty line, a body of
exactly Content-Length bytes. pygls's own loop skips lines it does not understand and reads
whatever length it is told, so a malformed header or a stray byte desynchronises the stream
(every later message is read as part of another, and nothing is answered again), and a
length of 99,999,999,999 is allocated. Here a stream that breaks the framing ends the server
with one line on stderr and exit status 1, the way an editor expects a dead server to look,
and a body may be at most MAX_BODY bytes.

The reader is handed to pygls's loop in place of its stdin reader: `readline` returns each
header line it accepts, and b"" (the end of the stream, which ends pygls's loop) for one it
does not, after recording why in `broken`.
"""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor
from typing import BinaryIO

MAX_BODY = 64 * 1024 * 1024  # an LSP message of a whole large file's text fits many times over
_MAX_HEADER_LINE = 8192
_HEADER = re.compile(rb"([A-Za-z][A-Za-z0-9-]*):[ \t]*([^\r\n]*)\r\n")


class FramedReader:
    """What pygls's loop calls: async readline() and readexactly(n)."""

    def __init__(self, stdin: BinaryIO, executor: ThreadPoolExecutor) -> None:
        self._stdin = stdin
        self._executor = executor
        self.broken: str | None = None  # why the stream was found broken, if it was
        self._length: int | None = None  # the current message's Content-Length, once read
        self._in_headers = False

    async def readline(self) -> bytes:
        if self.broken is not None:
            return b""
        line = await asyncio.get_running_loop().run_in_executor(self._executor, self._stdin.readline, _MAX_HEADER_LINE)
        if not line:
            if self._in_headers:
                return self._break("the stream ended inside a message's headers")
            return b""  # the client closed the stream between messages: a clean end
        if not line.endswith(b"\n"):
            return self._break(f"a header line longer than {_MAX_HEADER_LINE} bytes" if len(line) >= _MAX_HEADER_LINE
                               else "the stream ended inside a header line")
        if line == b"\r\n":
            if self._length is None:
                return self._break("a message without a Content-Length header")
            self._in_headers = False
            return line
        header = _HEADER.fullmatch(line)
        if header is None:
            return self._break(f"not an LSP header: {_shown(line)}")
        self._in_headers = True
        if header.group(1).lower() == b"content-length":
            value = header.group(2).strip()
            if not value.isdigit():
                return self._break(f"a Content-Length that is not a number: {_shown(value)}")
            length = int(value)
            if length > MAX_BODY:
                return self._break(f"a message of {length:,} bytes (at most {MAX_BODY:,} are read)")
            self._length = length
            # pygls matches exactly this spelling; any other casing or spacing is made it
            return b"Content-Length: %d\r\n" % length
        return line  # Content-Type: pygls reads no more than that it is a header

    async def readexactly(self, count: int) -> bytes:
        if self.broken is not None:
            return b""
        body = await asyncio.get_running_loop().run_in_executor(self._executor, self._read_body, count)
        self._length = None
        if len(body) < count:
            self.broken = f"the stream ended {count - len(body):,} bytes before the end of a message"
            return b""
        return body

    def _read_body(self, count: int) -> bytes:
        parts: list[bytes] = []
        left = count
        while left > 0:
            part = self._stdin.read(min(left, 1 << 20))
            if not part:
                break
            parts.append(part)
            left -= len(part)
        return b"".join(parts)

    def _break(self, why: str) -> bytes:
        self.broken = why
        return b""


def _shown(raw: bytes) -> str:
    text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
    return repr(text[:60] + ("..." if len(text) > 60 else ""))
