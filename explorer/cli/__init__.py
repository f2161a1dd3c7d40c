"""The `explorer` command. `app.py` holds the grammar (typer); each command lives in its own
module, imported only when it runs, and only calls the library and hands the result to a
renderer."""

from __future__ import annotations

import os
import sys


def main(argv: list[str] | None = None) -> None:
    if sys.stderr is None:  # `2>&-`: what would be said there goes nowhere
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - for the life of the process
    if sys.stdout is None:  # `>&-`: there is nowhere to put the answer
        sys.stderr.write("error: standard output is closed; send it to /dev/null to discard what explorer prints\n")
        raise SystemExit(1)
    from explorer.cli.app import run_command_line

    run_command_line(sys.argv[1:] if argv is None else argv)
