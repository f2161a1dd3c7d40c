"""Names and source lines of a native library's functions, from its symbol table.

`nm` reads the full symbol table (.symtab), which has the static functions and those in
anonymous namespaces that dladdr cannot name; `-C` demangles them. Source lines come from
the debug information through `addr2line`, asked once for every address the run touched.
Both are binutils, installed with any C++ compiler.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass

from explorer.errors import ExplorerError


@dataclass(frozen=True, slots=True)
class NativeSymbol:
    demangled: str  # `at::native::conv2d_symint(at::Tensor const&, ...)`
    file: str | None  # the source file the debug information names, absolute
    line: int | None
    # for code inlined at this address: the enclosing locations, outwards from file:line
    inlined_in: tuple[tuple[str, int], ...] = ()


class SymbolTable:
    def __init__(self, library: str) -> None:
        self.library = library
        self._names = _function_names(library)
        self._resolved: dict[int, NativeSymbol] = {}

    def resolve(self, offsets: set[int]) -> dict[int, NativeSymbol]:
        """Name and locate every function offset (and call-site offset) asked for."""
        wanted = sorted(offset for offset in offsets if offset not in self._resolved)
        if wanted:
            locations = _source_lines(self.library, wanted)
            for offset, chain in zip(wanted, locations):
                name = self._names.get(offset, f"0x{offset:x}")
                file, line = chain[0] if chain else (None, None)
                self._resolved[offset] = NativeSymbol(name, file, line, tuple(chain[1:]))
        return {offset: self._resolved[offset] for offset in offsets}


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise ExplorerError(
            f"'{name}' (binutils) is needed to name native frames; Debian/Ubuntu: apt-get install binutils"
        )
    return found


def _function_names(library: str) -> dict[int, str]:
    result = subprocess.run([_tool("nm"), "-C", "--defined-only", library], capture_output=True, text=True)
    if result.returncode != 0:
        raise ExplorerError(
            f"nm cannot read {library}: {result.stderr.strip().splitlines()[0] if result.stderr else 'failed'}"
        )
    names: dict[int, str] = {}
    for line in result.stdout.splitlines():
        address, _, rest = line.partition(" ")
        kind, _, name = rest.partition(" ")
        if kind in ("T", "t", "W", "w") and name:
            names.setdefault(int(address, 16), name)
    return names


def _source_lines(library: str, offsets: list[int]) -> list[list[tuple[str, int]]]:
    """Each address's source line, and for code the compiler inlined there, the lines of the
    functions it was inlined into, innermost first (`-i` lists them after each `-a` line)."""
    result = subprocess.run(
        [_tool("addr2line"), "-a", "-i", "-e", library, *(f"0x{offset:x}" for offset in offsets)],
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        return [[] for _ in offsets]
    chains: list[list[tuple[str, int]]] = []
    for text in result.stdout.splitlines():
        if text.startswith("0x"):
            chains.append([])
            continue
        file, _, number = text.rpartition(":")
        number = number.split(" ", 1)[0]  # "12 (discriminator 3)"
        if chains and file and file != "??" and number.isdigit() and number != "0":
            chains[-1].append((file, int(number)))
    return chains if len(chains) == len(offsets) else [[] for _ in offsets]
