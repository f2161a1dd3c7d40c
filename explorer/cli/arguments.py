"""The command line's grammar: every command, its arguments and their help, in argparse.

argparse, not a command framework: a warm query answers in well under 100 ms, so the
framework's import (typer with click and pydantic, 110 ms) would be most of what a user waits
for. Only the command being run gets its arguments added, so a command's defaults may come
from the module that owns them without every command importing it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

from explorer import __version__
from explorer.query.limits import DEFAULT_DEPTH, DEFAULT_DEPTH_TO, DEFAULT_MAX_NODES, DEFAULT_PATHS


@dataclass(frozen=True, slots=True)
class Command:
    summary: str
    module: str  # explorer.cli.<module>, imported only when this command runs
    function: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    serves: bool = False  # runs until its client ends it (explorer lsp), not one query
    configured: bool = True  # arguments its flags leave unset come from the configuration (config.py)


def _tree_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--root", help="Tree to explore (default: $EXPLORER_ROOT, else the bundled sample_repo).")
    parser.add_argument("--index", help="Index file (default: one per tree in the user cache folder).")
    parser.add_argument(
        "--tree", dest="trees", action="append", metavar="PATH",
        help="Another source tree the project uses (a PyTorch checkout, a library): repeatable; also $EXPLORER_TREES.",
    )
    parser.add_argument(
        "--python-env", metavar="PYTHON",
        help="The project's Python interpreter or environment folder, whose installed packages the project's imports "
        "are read from (default: $EXPLORER_PYTHON_ENV, $VIRTUAL_ENV, the project's .venv, python3 on PATH; none: no installed packages).",
    )


def _json_option(parser: argparse.ArgumentParser, what: str = "a table") -> None:
    parser.add_argument("--json", action="store_true", help=f"Print JSON instead of {what}.")


def _diagram_options(parser: argparse.ArgumentParser, *, collapse: bool = True) -> None:
    parser.add_argument("--format", "-f", dest="output_format", default="tree", metavar="FORMAT",
                        help="tree (text, the default), or a diagram: dot, svg, png, html.")
    parser.add_argument("--output", "-o", help="Diagram file (default: dot to stdout, others to SYMBOL.FORMAT here).")
    parser.add_argument("--max-nodes", type=int, default=DEFAULT_MAX_NODES, metavar="N",
                        help=f"Fold the widest subtrees into '+N more' nodes beyond this many nodes (default {DEFAULT_MAX_NODES}).")
    if collapse:
        parser.add_argument("--collapse", action="append", metavar="LAYER",
                            help="Fold a layer into one node per file: python, binding, yaml, cpp, cuda, vendor (repeatable).")
        parser.add_argument(
            "--link-template", metavar="TEMPLATE",
            help="Node links, with {file} {line} {path} {symbol}, e.g. https://github.com/pytorch/pytorch/blob/v2.4.0/{file}#L{line} "
            "(default: file:// to the source).",
        )


def _index_arguments(parser: argparse.ArgumentParser) -> None:
    from explorer.index.files import DEFAULT_MAX_FILE_SIZE

    _tree_options(parser)
    parser.add_argument("--jobs", "-j", type=int, metavar="N", help="Parser processes (default: one per core).")
    parser.add_argument("--rebuild", action="store_true", help="Throw the index away and build it again.")
    parser.add_argument("--verbose", "-v", action="store_true", help="List skipped files and problems.")
    # The walk options stick: not given, each stays as the index was last made with it.
    parser.add_argument("--include-third-party", action=argparse.BooleanOptionalAction, default=None,
                        help="Also index vendored third_party folders (--no-include-third-party: not).")
    parser.add_argument("--max-file-size", type=int, default=None, metavar="BYTES",
                        help=f"Skip files larger than this many bytes (default {DEFAULT_MAX_FILE_SIZE}).")
    parser.add_argument("--follow-links-outside", action=argparse.BooleanOptionalAction, default=None,
                        help="Also read files that symlinks in the tree point to outside it.")
    _json_option(parser, "the report")


def _search_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("query", metavar="QUERY", help="Name, prefix, words or letters in order: conv2d, Conv2d, cudnnconvfwd. Plain text: * ? [ ] match themselves.")
    _tree_options(parser)
    parser.add_argument("--kind", "-k", help="Only this kind (class, function, operator, ...).")
    parser.add_argument("--lang", "-l", help="Only this language: python, cpp, cuda, yaml, vendor.")
    parser.add_argument("--limit", "-n", type=int, default=20, metavar="N", help="At most this many results (default 20).")
    _json_option(parser)


def _tests_option(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--tests", action=argparse.BooleanOptionalAction, default=None,
                        help=f"Also {what} the tree's tests (test/ and tests/ folders, *_test files).")


def _show_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("symbol", metavar="SYMBOL", help="torch.nn.Conv2d, nn.Conv2d, F.conv2d, aten::conv2d.padding, a bare name...")
    _tree_options(parser)
    _json_option(parser, "text")
    _tests_option(parser, "list the kernels registered by")
    parser.add_argument("--lines", type=int, default=15, metavar="N",
                        help="Lines of the definition's source shown (default 15); the box says how many more there are.")


def _trace_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("symbol", metavar="SYMBOL", help="torch.nn.Conv2d, F.conv2d, aten::conv2d, at::native::_convolution...")
    _tree_options(parser)
    parser.add_argument(
        "--to",
        help="Keep only paths reaching this: a name (cudnnConvolutionForward, at::native::add) matches definitions of "
        "exactly that name, or, if the tree has none, names containing it; anything else is a regular expression "
        "(RE2 syntax: no lookaround or backreferences) searched in qualified names.",
    )
    parser.add_argument("--backend", help="cuda (with cuDNN/cuBLAS, the default), cpu, or all.")
    parser.add_argument("--max-depth", type=int, metavar="N",
                        help=f"Hops to follow (default {DEFAULT_DEPTH}, or {DEFAULT_DEPTH_TO} with --to).")
    parser.add_argument("--paths", type=int, metavar="N",
                        help=f"With --to: how many paths to list, best first (default {DEFAULT_PATHS}).")
    _json_option(parser, "text")
    _diagram_options(parser)
    parser.add_argument("--only-paths", action="store_true", help="Diagram with --to: the paths alone (the default).")
    parser.add_argument("--context", action="store_true",
                        help="Diagram with --to: also draw, faint, what each hop on the paths calls besides.")
    parser.add_argument("--dynamic", metavar="CODE",
                        help="Also run this code on the bundled runtime and compare the run with the static graph (as run --compare).")
    _tests_option(parser, "follow calls and kernels into")


def _neighbours_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("symbol", metavar="SYMBOL", help="A definition: torch.nn.Conv2d, F.conv2d, aten::conv2d, at::native::_convolution, cudnnConvolutionForward...")
    _tree_options(parser)
    parser.add_argument("--depth", "-d", type=int, default=1, metavar="N", help="Steps to follow (default 1).")
    _json_option(parser, "text")
    _diagram_options(parser)
    _tests_option(parser, "follow calls and kernels into")


def _callgraph_arguments(parser: argparse.ArgumentParser) -> None:
    _tree_options(parser)
    parser.add_argument("--format", default="json", help="Output format: json (the only one).")


def _run_arguments(parser: argparse.ArgumentParser) -> None:
    from explorer.runtime.request import DEFAULT_MAX_EVENTS

    # Everything from SCRIPT on is the program's own command line, options included.
    parser.add_argument("program", nargs=argparse.REMAINDER, metavar="SCRIPT [ARGS...]", help="The program to run (after --), unless -c is given.")
    parser.add_argument("-c", "--code", help="Program passed in as a string, as python -c.")
    _tree_options(parser)
    parser.add_argument("--python", metavar="INTERPRETER", help="Interpreter with real PyTorch: record its operators with the PyTorch profiler "
                        "(its installed packages are also the project's, unless --python-env says otherwise).")
    parser.add_argument("--backend-device", metavar="DEVICE",
                        help="Bundled runtime: run every tensor on cpu or cuda (emulated), whatever the code says.")
    parser.add_argument("--compare", action="store_true", help="Lay the run over the static call graph: confirmed, not taken, missed.")
    parser.add_argument("--include", action="append", metavar="PREFIX", help="Show only frames in this module, class or namespace (repeatable).")
    parser.add_argument("--exclude", action="append", metavar="PREFIX",
                        help="Leave out frames in this module, class or namespace, and what they call (repeatable).")
    parser.add_argument("--max-depth", type=int, metavar="N", help="Show this many levels below the program.")
    parser.add_argument("--max-events", type=int, default=DEFAULT_MAX_EVENTS, metavar="N",
                        help=f"Most call events to record, Python and native each (default {DEFAULT_MAX_EVENTS}).")
    _json_option(parser, "text")
    _diagram_options(parser, collapse=False)


def _config_arguments(parser: argparse.ArgumentParser) -> None:
    _tree_options(parser)
    _json_option(parser)


COMMANDS: dict[str, Command] = {
    "index": Command("Build or refresh the on-disk index of a tree (unchanged files are not parsed again).", "index_cmd", "index", _index_arguments),
    "search": Command("Find symbols by name: exact first, then prefix, word and fuzzy matches.", "search_cmd", "search", _search_arguments),
    "show": Command("Show a symbol's definition: location, signature, source, dispatch table or alias target.", "show_cmd", "show", _show_arguments),
    "trace": Command(
        "Trace what calling SYMBOL runs, across Python, the torch._C binding, YAML, C++ and vendor APIs.", "trace_cmd", "trace", _trace_arguments
    ),
    "callers": Command(
        "Who calls SYMBOL, across every layer (a kernel's operator, an operator's C++ and Python callers...).",
        "neighbours_cmd", "callers", _neighbours_arguments,
    ),
    "callees": Command("What SYMBOL calls, across every layer and every backend.", "neighbours_cmd", "callees", _neighbours_arguments),
    "callgraph": Command(
        "Print the Python call graph: each module, function, method and lambda, and what it may call.", "callgraph_cmd", "callgraph", _callgraph_arguments
    ),
    "lsp": Command(
        "Serve the Language Server Protocol on stdin and stdout (an editor starts this).", "lsp_cmd", "lsp", lambda parser: None, serves=True
    ),
    "run": Command("Run SCRIPT (or -c CODE) under tracing and print the call tree it ran.", "run_cmd", "run", _run_arguments),
    "config": Command(
        "Show the settings in force and where each comes from: a flag, the environment, [tool.explorer] or explorer.toml, the default.",
        "config_cmd", "config", _config_arguments, configured=False,
    ),
}


def command_line(argv: list[str]) -> argparse.ArgumentParser:
    """The parser for `argv`: every command listed, and the arguments of the one named."""
    parser = argparse.ArgumentParser(
        prog="explorer",
        description="Explore PyTorch-style source trees across Python, C++/CUDA and native_functions.yaml.",
    )
    parser.add_argument("--version", action="version", version=f"explorer {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    named = argv[0] if argv else None
    for name, command in COMMANDS.items():
        subparser = commands.add_parser(name, help=command.summary, description=command.summary)
        if name == named:
            command.add_arguments(subparser)
    return parser
