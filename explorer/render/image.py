"""Running graphviz's `dot` program: DOT source in, SVG or PNG out."""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib

from explorer.errors import ExplorerError
from explorer.output_files import PNG_SIGNATURE, PNG_SOFTWARE

INSTALL_HINT = (
    "graphviz's `dot` program is needed for svg, png and html (dot output needs nothing more); "
    "install it with `sudo apt-get install graphviz` (Debian/Ubuntu), `brew install graphviz` (macOS) "
    "or `conda install -c conda-forge graphviz`"
)


class DotNotFoundError(ExplorerError):
    def __init__(self) -> None:
        super().__init__(INSTALL_HINT)


def render(dot_source: str, output_format: str) -> bytes:
    """The drawing of `dot_source` as `svg` or `png` bytes."""
    program = shutil.which("dot")
    if program is None:
        raise DotNotFoundError()
    try:
        finished = subprocess.run(
            [program, f"-T{output_format}"], input=dot_source.encode("utf-8"), capture_output=True, check=False
        )
    except OSError as error:
        raise ExplorerError(f"cannot run {program}: {error}") from None
    if finished.returncode != 0:
        problem = finished.stderr.decode("utf-8", errors="replace").strip().splitlines()
        raise ExplorerError(f"graphviz dot failed: {problem[0] if problem else f'exit {finished.returncode}'}")
    return _signed(finished.stdout) if output_format == "png" else finished.stdout


def _signed(png: bytes) -> bytes:
    """The PNG with a text chunk naming explorer as the software that made it, right after
    the header chunk (as the format asks of text chunks a reader should see first): that is how
    a later `-o` knows the file is explorer's to replace (output_files.py)."""
    header_end = len(PNG_SIGNATURE) + 8 + 13 + 4  # length, type, 13 bytes of IHDR, CRC
    if not png.startswith(PNG_SIGNATURE) or png[len(PNG_SIGNATURE) + 4 : len(PNG_SIGNATURE) + 8] != b"IHDR":
        return png
    chunk = b"tEXt" + PNG_SOFTWARE
    text = struct.pack(">I", len(PNG_SOFTWARE)) + chunk + struct.pack(">I", zlib.crc32(chunk))
    return png[:header_end] + text + png[header_end:]
