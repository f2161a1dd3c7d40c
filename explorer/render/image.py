"""Running graphviz's `dot` program: DOT source in, SVG or PNG out."""

from __future__ import annotations

import shutil
import subprocess

from explorer.errors import ExplorerError

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
    return finished.stdout
