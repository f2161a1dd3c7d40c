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
    name = namespace.pop("command")
    command = COMMANDS[name]
    settings = {}
    if command.configured:
        from explorer.config import configure

        from explorer.errors import ExplorerError

        try:
            settings = configure(name, namespace, _working_folder())
        except ExplorerError as error:  # a configuration file that cannot be used: one line
            sys.stderr.write(f"error: {error}\n")
            raise SystemExit(error.exit_code) from None
    if "root" in namespace:  # a command that reads trees: its tree options, as one request
        from explorer.trees import TreeRequest

        python = settings.get("python-env")
        namespace["where"] = TreeRequest(
            namespace.pop("root"), namespace.pop("index"), tuple(namespace.pop("trees", None) or ()), namespace.pop("python_env", None),
            python.source if python is not None and python.source != "$EXPLORER_PYTHON_ENV" else "--python-env",
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


def _working_folder() -> str | None:
    try:
        return os.getcwd()
    except OSError:  # removed under the shell: no configuration is found from it
        return None
