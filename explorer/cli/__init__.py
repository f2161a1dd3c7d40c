"""The `explorer` command. `arguments.py` holds the grammar; each command lives in its own
module, imported only when it runs, and only calls the library and hands the result to a
renderer."""

from __future__ import annotations

import gc
import importlib
import os
import sys


def main(argv: list[str] | None = None) -> None:
    if sys.stderr is None:  # `2>&-`: what would be said there goes nowhere
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - for the life of the process
    if sys.stdout is None:  # `>&-`: there is nowhere to put the answer
        sys.stderr.write("error: standard output is closed; send it to /dev/null to discard what explorer prints\n")
        raise SystemExit(1)
    from explorer.cli.arguments import COMMANDS, command_line

    given = sys.argv[1:] if argv is None else argv
    if not given:
        command_line(given).print_help()
        raise SystemExit(2)
    namespace = vars(command_line(given).parse_args(given))
    command = COMMANDS[namespace.pop("command")]
    if "root" in namespace:  # a command that reads trees: its tree options, as one request
        from explorer.trees import TreeRequest

        namespace["where"] = TreeRequest(
            namespace.pop("root"), namespace.pop("index"), tuple(namespace.pop("trees", None) or ()), namespace.pop("python_env", None)
        )
    run = getattr(importlib.import_module(f"explorer.cli.{command.module}"), command.function)
    if not command.serves:
        # A query builds hundreds of thousands of small objects that live until it ends: the
        # collector's default pace (every 700 allocations, through every module object too)
        # costs a trace 7% of its time. What is loaded so far is set aside, and it runs less
        # often. Not in the language server, which lives on: there it made first answers slower.
        gc.freeze()
        gc.set_threshold(50_000, 20, 20)
    run(**namespace)
