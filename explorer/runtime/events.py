"""Reads a run's two recordings and merges them by time into one tree of raw frames.

Native calls happen only while Python waits in a call into the library, so ordering both
recordings by their CLOCK_MONOTONIC times puts every native frame under the Python frame
that made the call. A return pops the frame it closes; a return that closes nothing open (a
frame entered before recording started) is ignored, and frames an exception unwound without
a return are closed by the first return of a frame below them.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field
from pathlib import Path

from explorer.errors import ExplorerError

CALL, RETURN = 1, 2
_NATIVE_MAGIC = b"explorer-native-events 1\n"
_NATIVE_RECORD = struct.Struct("<QQQII")


@dataclass(frozen=True, slots=True)
class PythonCode:
    file: str
    qualname: str
    line: int
    module: str  # the __name__ of the frame's globals
    body: bool = False  # a module or class body rather than a function


@dataclass(slots=True)
class RawFrame:
    """A frame as recorded: a Python code object or a native function address."""

    native: bool
    ident: int  # index into PythonRecording.codes, or the function's offset in the library
    site: int  # Python: the caller's line; native: the call site's offset in the library
    explicit: bool  # Python: entered by a call instruction of its caller
    calls: int = 1  # native: consecutive identical calls of a leaf, counted by the recorder
    children: list[RawFrame] = field(default_factory=list)
    receiver: str | None = None  # Python: the class of `self` (module.qualname) for a method call


@dataclass(frozen=True, slots=True)
class PythonRecording:
    codes: list[PythonCode]
    events: list[tuple[int, int, int, int, int]]  # kind, time_ns, code index, caller line, explicit
    exit_code: int
    error: str | None
    capped: bool
    max_events: int
    receivers: dict[int, str] = field(default_factory=dict)  # event index -> the class of `self`


@dataclass(frozen=True, slots=True)
class NativeRecording:
    library: str
    events: list[tuple[int, int, int, int, int]]  # time_ns, function, site, kind, calls
    dropped_calls: int


def read_python(path: Path) -> PythonRecording:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ExplorerError(f"cannot read the Python recording {path}: {error}") from None
    codes = [PythonCode(c["file"], c["qualname"], c["line"], c["module"], c["body"]) for c in document["codes"]]
    return PythonRecording(
        codes,
        [tuple(e) for e in document["events"]],
        document["exit_code"],
        document["error"],
        document["capped"],
        document["max_events"],
        {int(at): name for at, name in document.get("receivers", [])},
    )


def python_notes(python: PythonRecording) -> list[str]:
    """What a reader of the tree must know about the Python recording."""
    notes = []
    if python.capped:
        notes.append(f"Python events capped at {python.max_events:,} (--max-events): later Python calls are not shown")
    if python.error:
        notes.append(f"the program failed: {python.error}")
    elif python.exit_code:
        notes.append(f"the program exited with code {python.exit_code}")
    return notes


def read_native(path: Path) -> NativeRecording | None:
    """The native recording, or None when the run never loaded an instrumented library."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise ExplorerError(f"cannot read the native recording {path}: {error.strerror}") from None
    if not data.startswith(_NATIVE_MAGIC):
        raise ExplorerError(f"{path} is not a native recording of this explorer version")
    header_end = data.index(b"\n", data.index(b"\n", len(_NATIVE_MAGIC)) + 1) + 1
    library_line, counts_line = data[len(_NATIVE_MAGIC) : header_end].decode().splitlines()
    library = library_line.removeprefix("library ")
    _, recorded, _, dropped = counts_line.split()
    body = data[header_end : header_end + int(recorded) * _NATIVE_RECORD.size]
    return NativeRecording(library, list(_NATIVE_RECORD.iter_unpack(body)), int(dropped))


def merge(python: PythonRecording, native: NativeRecording | None) -> RawFrame:
    """One tree under a synthetic root (ident -1) from both recordings, ordered by time."""
    # time, kind, native, ident, site, explicit, calls, receiver
    stream: list[tuple[int, int, bool, int, int, bool, int, str | None]] = [
        (t, kind, False, index, line, bool(explicit), 1, python.receivers.get(at))
        for at, (kind, t, index, line, explicit) in enumerate(python.events)
    ]
    if native is not None:
        stream.extend(
            (t, kind, True, function, site, True, calls, None) for t, function, site, kind, calls in native.events
        )
        stream.sort(key=lambda event: event[0])  # stable: equal times keep their recorded order
    root = RawFrame(False, -1, 0, True)
    stack = [root]
    for _, kind, is_native, ident, site, explicit, calls, receiver in stream:
        if kind == CALL:
            frame = RawFrame(is_native, ident, site, explicit, calls, receiver=receiver)
            stack[-1].children.append(frame)
            stack.append(frame)
            continue
        for depth in range(len(stack) - 1, 0, -1):
            if stack[depth].native == is_native and stack[depth].ident == ident:
                del stack[depth:]
                break
    return root
