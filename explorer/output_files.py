"""The files a user names for output (`-o PATH`), written without ever destroying what is not
explorer's.

- `-` is standard output.
- A symbolic link is followed: the rules below apply to what it points at, and the link stays.
- A device, FIFO or socket (a terminal, `/dev/null`, a pipe a reader waits on) is written into
  as a stream. It is never replaced: replacing `/dev/null` with a file breaks every program
  on the machine.
- A path that does not exist, or a regular file explorer wrote (a diagram, recognised by its
  content: see `made_by_explorer`), is written beside and renamed into place, so a write that
  fails leaves the old file whole.
- Anything else (a folder, a regular file explorer did not write, a file explorer cannot read
  to tell) is refused with one line, and nothing is changed.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import sys
from typing import BinaryIO, TextIO

from explorer.errors import ExplorerError

# What explorer's own outputs start with, within the first _HEAD bytes: DOT names its graph
# `explorer`, graphviz's SVG repeats that name as its title, the HTML viewer's title starts
# with it, and a PNG carries a text chunk saying which program made it (render/image.py).
_HEAD = 8192
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_SOFTWARE = b"Software\x00explorer"
_MARKS = (b"digraph explorer {", b"<!-- Title: explorer ", b"<title>explorer: ")
# A SCIP index (`explorer scip`) opens with its metadata, whose tool_info names explorer.
_SCIP_TOOL = b"\x12\x11\n\x08explorer\x12"


def made_by_explorer(head: bytes) -> bool:
    """Whether a file starting with `head` is one of explorer's diagrams or SCIP indexes."""
    if head.startswith(PNG_SIGNATURE):
        return PNG_SOFTWARE in head
    if head.startswith(b"\n") and _SCIP_TOOL in head[:16]:
        return True
    return any(mark in head for mark in _MARKS)


def write_output(path: str, content: bytes) -> str | None:
    """Write `content` to the file the user named; returns the file it went to (the path as
    named), or None where it went into a stream. Raises ExplorerError, with nothing changed,
    where it may not or cannot."""
    if path == "-":
        _write_stream(getattr(sys.stdout, "buffer", None) or sys.stdout, content, "standard output")
        return None
    target, info = _writable(path)
    if info is not None and not stat.S_ISREG(info.st_mode):
        try:
            with open(target, "wb") as stream:  # a device or FIFO: as a stream, never replaced
                _write_stream(stream, content, path)
        except OSError as error:
            raise ExplorerError(f"cannot write {path}: {error.strerror or error}") from None
        return None
    _replace(target, content, path)
    return path


def check_output(path: str) -> None:
    """Raise what write_output would refuse `path` with, before long work whose result goes
    there (a whole tree's SCIP index) is done for nothing."""
    if path != "-":
        _writable(path)


def _writable(path: str) -> tuple[str, os.stat_result | None]:
    """What `path` leads to, and its stat (None: not there); raises where it may not be written."""
    target = os.path.realpath(path)  # through links, to what they point at
    try:
        info = os.stat(target)
    except FileNotFoundError:
        info = None
    except OSError as error:
        raise ExplorerError(f"cannot write {path}: {error.strerror or error}") from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise ExplorerError(f"cannot write {path}: it is a folder")
    if info is not None and stat.S_ISREG(info.st_mode) and not _is_explorers(target):
        raise ExplorerError(
            f"not writing {path}: it exists and is not a file explorer wrote; remove it or name another file"
        )
    return target, info


def _is_explorers(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return made_by_explorer(handle.read(_HEAD))
    except OSError:
        return False


def _write_stream(stream: BinaryIO | TextIO, content: bytes, name: str) -> None:
    """Into an open stream: a text stream (standard output replaced by a caller that captures
    it) takes the text."""
    try:
        if isinstance(stream, io.TextIOBase):
            stream.write(content.decode("utf-8", errors="replace"))
        else:
            stream.write(content)  # type: ignore[arg-type]
        stream.flush()
    except OSError as error:
        raise ExplorerError(f"cannot write {name}: {error.strerror or error}") from None


def _replace(target: str, content: bytes, named: str) -> None:
    """Written beside the target and renamed over it: a failed write leaves no half a file."""
    partial = f"{target}.{os.getpid()}.partial"
    try:
        with open(partial, "xb") as handle:  # never through whatever may already stand there
            handle.write(content)
        os.replace(partial, target)
    except FileExistsError:  # not ours to remove
        raise ExplorerError(f"cannot write {named}: {partial} is in the way") from None
    except OSError as error:
        with contextlib.suppress(OSError):
            os.remove(partial)
        raise ExplorerError(f"cannot write {named}: {error.strerror or error}") from None
