"""The language server's input, read as LSP frames them: headers, an empty line, a body of
exactly Content-Length bytes. pygls's own loop skips lines it does not understand and reads
whatever length it is told, so a malformed header or a stray byte desynchronises the stream
(every later message is read as part of another, and nothing is answered again), and a
length of 99,999,999,999 is allocated. Here a stream that breaks the framing ends the server
with one line on stderr and exit status 1, the way an editor expects a dead server to look,
and a body may be at most MAX_BODY bytes.

A Content-Length that says more than the message holds would leave the server waiting for
bytes the client never sends (the client waits for the answer): when the body has stopped
coming for STALL seconds and what came is one whole JSON message, or when the next
message's headers arrive inside the body, the message is taken as it is, the rest read as
the next message, and the mismatch said on stderr (`resynchronised`).

The reader is handed to pygls's loop in place of its stdin reader: `readline` returns each
header line it accepts, and b"" (the end of the stream, which ends pygls's loop) for one it
does not, after recording why in `broken`. It reads the file descriptor itself, so that it can
wait for input with a time limit.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import select
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import BinaryIO

MAX_BODY = 64 * 1024 * 1024  # an LSP message of a whole large file's text fits many times over
STALL = 2.0  # seconds without a byte, inside a body, before a whole JSON message in it is taken
_MAX_HEADER_LINE = 8192
_HEADER = re.compile(rb"([A-Za-z][A-Za-z0-9-]*):[ \t]*([^\r\n]*)\r\n")
_NEXT_HEADERS = re.compile(rb"\}[ \t\r\n]*(?i:content-length):[ \t]*[0-9]+\r\n")


class FramedReader:
    """What pygls's loop calls: async readline() and readexactly(n)."""

    def __init__(self, stdin: BinaryIO, executor: ThreadPoolExecutor) -> None:
        self._fd = stdin.fileno()
        self._executor = executor
        self._buffer = bytearray()
        self._ended = False
        self.broken: str | None = None  # why the stream was found broken, if it was
        self._length: int | None = None  # the current message's Content-Length, once read
        self._in_headers = False

    async def readline(self) -> bytes:
        if self.broken is not None:
            return b""
        line = await asyncio.get_running_loop().run_in_executor(self._executor, self._read_line)
        if not line:
            if self._in_headers:
                return self._break("the stream ended inside a message's headers")
            return b""  # the client closed the stream between messages: a clean end
        if not line.endswith(b"\n"):
            return self._break(
                f"a header line longer than {_MAX_HEADER_LINE} bytes"
                if len(line) >= _MAX_HEADER_LINE
                else "the stream ended inside a header line"
            )
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
        if body is None:
            self.broken = f"the stream ended {count - len(self._buffer):,} bytes before the end of a message"
            return b""
        return body

    def _read_line(self) -> bytes:
        """A line, its end included; at most _MAX_HEADER_LINE bytes; what is left at the end."""
        while True:
            end = self._buffer.find(b"\n", 0, _MAX_HEADER_LINE)
            if end >= 0:
                size = end + 1
            elif len(self._buffer) >= _MAX_HEADER_LINE or not self._fill(None):
                size = min(len(self._buffer), _MAX_HEADER_LINE)
            else:
                continue
            line = bytes(self._buffer[:size])
            del self._buffer[:size]
            return line

    def _read_body(self, count: int) -> bytes | None:
        """The body, or None if the stream ended first. A body whose Content-Length was too
        large ends where its JSON ends, once the rest is seen not to be coming or the next
        message is seen inside it (see above)."""
        while len(self._buffer) < count:
            if self._fill(STALL):
                resynchronised = self._before_next_headers(len(self._buffer))
            elif self._ended:
                return None
            else:  # nothing came for STALL seconds
                resynchronised = self._whole_message(len(self._buffer))
            if resynchronised is not None:
                return resynchronised
        resynchronised = self._before_next_headers(count)
        if resynchronised is not None:
            return resynchronised
        body = bytes(self._buffer[:count])
        del self._buffer[:count]
        return body

    def _fill(self, timeout: float | None) -> bool:
        """Read what has come, waiting at most `timeout` seconds (None: until something
        comes); False when nothing came (the stream ended, or the time ran out)."""
        if self._ended:
            return False
        ready, _, _ = select.select([self._fd], [], [], timeout)
        if not ready:
            return False
        chunk = os.read(self._fd, 1 << 16)
        if not chunk:
            self._ended = True
            return False
        self._buffer += chunk
        return True

    def _before_next_headers(self, limit: int) -> bytes | None:
        """The message, if the next one's headers start inside the first `limit` bytes (a
        JSON value cannot hold them: a string would escape their line breaks)."""
        found = _NEXT_HEADERS.search(self._buffer, 0, limit)
        return self._whole_message(found.start() + 1) if found is not None else None

    def _whole_message(self, size: int) -> bytes | None:
        """The first `size` bytes as the message, if they are one whole JSON value."""
        candidate = bytes(self._buffer[:size]).rstrip()
        try:
            json.loads(candidate)
        except ValueError:
            return None
        sys.stderr.write(
            f"explorer lsp: a message's Content-Length said {self._length:,} bytes but it held "
            f"{len(candidate):,}: answered it, and read on from the next message\n"
        )
        del self._buffer[:size]
        return candidate

    def _break(self, why: str) -> bytes:
        self.broken = why
        return b""


def _shown(raw: bytes) -> str:
    text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
    return repr(text[:60] + ("..." if len(text) > 60 else ""))
