"""The command line's grammar, in typer: every command, its arguments and their help.

typer reads only the signatures below; each command's own module (explorer/cli/*_cmd.py),
with the library it runs, is imported when that command runs. Options a command leaves unset
come from the environment and the project's configuration (config.py) before it runs.
"""

from __future__ import annotations

import gc
import importlib
import os
from typing import Annotated, Any

import typer

from explorer import __version__
from explorer.analysis import DEFAULT_DEPTH, DEFAULT_DEPTH_TO, DEFAULT_MAX_NODES, DEFAULT_PATHS
from explorer.runtime.request import DEFAULT_MAX_EVENTS

_SETTINGS: dict[str, Any] = {
    "name": "explorer",
    "help": "Explore PyTorch-style source trees across Python, C++/CUDA and native_functions.yaml.",
    "no_args_is_help": True,
    "rich_markup_mode": "rich",  # help drawn by rich; a `[` that opens no style is escaped
    "pretty_exceptions_enable": False,  # a command's errors are one line (common.reports_errors)
    "context_settings": {"help_option_names": ["-h", "--help"]},
}
app = typer.Typer(**_SETTINGS)

_TREES = "Trees"
_DIAGRAM = "Diagram"
Root = Annotated[
    str | None,
    typer.Option(
        "--root",
        help="Tree to explore (default: $EXPLORER_ROOT, the configuration's root, else the bundled sample_repo).",
        rich_help_panel=_TREES,
    ),
]
Index = Annotated[
    str | None,
    typer.Option(
        "--index", help="Index file (default: one per tree in the user cache folder).", rich_help_panel=_TREES
    ),
]
Trees = Annotated[
    list[str] | None,
    typer.Option(
        "--tree",
        metavar="PATH",
        rich_help_panel=_TREES,
        help="Another source tree the project uses (a PyTorch checkout, a library): repeatable; also $EXPLORER_TREES.",
    ),
]
PythonEnv = Annotated[
    str | None,
    typer.Option(
        "--python-env",
        metavar="PYTHON",
        rich_help_panel=_TREES,
        help="The project's Python interpreter or environment folder, whose installed packages the project's imports are read "
        "from (default: $EXPLORER_PYTHON_ENV, $VIRTUAL_ENV, the project's .venv, python3 on PATH; none: no installed packages).",
    ),
]
Json = Annotated[bool, typer.Option("--json", help="Print JSON.")]
Tests = Annotated[
    bool | None,
    typer.Option(
        "--tests/--no-tests",
        help="Also follow calls and kernels into the tree's tests (test/ and tests/ folders, *_test files).",
    ),
]
Format = Annotated[
    str,
    typer.Option(
        "--format",
        "-f",
        metavar="FORMAT",
        rich_help_panel=_DIAGRAM,
        help="tree (text, the default), or a diagram: dot, svg, png, html.",
    ),
]
Output = Annotated[
    str | None,
    typer.Option(
        "--output",
        "-o",
        rich_help_panel=_DIAGRAM,
        help="Diagram file (default: dot to stdout, others to SYMBOL.FORMAT here).",
    ),
]
MaxNodes = Annotated[
    int,
    typer.Option(
        "--max-nodes",
        metavar="N",
        rich_help_panel=_DIAGRAM,
        help=f"Fold the widest subtrees into '+N more' nodes beyond this many (default {DEFAULT_MAX_NODES}).",
    ),
]
Collapse = Annotated[
    list[str] | None,
    typer.Option(
        "--collapse",
        metavar="LAYER",
        rich_help_panel=_DIAGRAM,
        help="Fold a layer into one node per file: python, binding, yaml, cpp, cuda, vendor (repeatable).",
    ),
]
LinkTemplate = Annotated[
    str | None,
    typer.Option(
        "--link-template",
        metavar="TEMPLATE",
        rich_help_panel=_DIAGRAM,
        help="Node links, with {file} {line} {path} {symbol}, e.g. https://github.com/pytorch/pytorch/blob/v2.4.0/{file}#L{line} "
        "(default: file:// to the source).",
    ),
]
_COMPLETED = 60  # qualified names offered at a time


def _complete_symbol(context: typer.Context, incomplete: str) -> list[str]:
    """What a shell offers for SYMBOL: qualified names starting with what is typed, from the
    project's index as it stands (completion never builds or refreshes one: it must answer at
    once), the project named as the command line and its configuration name it."""
    from explorer.config import configure
    from explorer.folders import resolve_index_path, resolve_root
    from explorer.index import IndexStore

    try:
        arguments: dict[str, object] = {"root": context.params.get("root"), "index": context.params.get("index")}
        configure(context.info_name or "", arguments, _working_folder())
        root = resolve_root(arguments["root"])  # type: ignore[arg-type]
        index_path = resolve_index_path(root, arguments["index"])  # type: ignore[arg-type]
        if IndexStore.unusable_reason(index_path, root) is not None:
            return []
        store = IndexStore.open(index_path)
        try:
            return store.qualified_names_with_prefix(incomplete, _COMPLETED)
        finally:
            store.close()
    except Exception:
        return []


Definition = Annotated[
    str,
    typer.Argument(
        metavar="SYMBOL",
        show_default=False,
        autocompletion=_complete_symbol,
        help="torch.nn.Conv2d, F.conv2d, aten::conv2d, at::native::_convolution, cudnnConvolutionForward...",
    ),
]


def run_command_line(arguments: list[str]) -> None:
    """Parse and run one command line. A mistake in it (an unknown option, a number that is
    none) is one line and exit status 2, as explorer's own errors are; bare `explorer` shows
    the help. Shell completion, asked through its environment variable, ends here too."""
    import typer.main

    command = typer.main.get_command(_app_for(arguments))
    try:
        code = command.main(args=arguments, prog_name="explorer", standalone_mode=False)
    except typer.TyperException as error:  # click's ClickException and UsageError, as typer carries them
        context = getattr(error, "ctx", None)
        if type(error).__name__ == "NoArgsIsHelpError" and context is not None:
            typer.echo(context.get_help())
            raise SystemExit(2) from None
        status = getattr(error, "exit_code", 1)
        hint = f" ({context.command_path} --help lists its options)" if context is not None and status == 2 else ""
        typer.echo(f"error: {error.format_message().rstrip('.')}{hint}", err=True)
        raise SystemExit(status) from None
    except typer.Abort:
        typer.echo("interrupted", err=True)
        raise SystemExit(130) from None
    raise SystemExit(code if isinstance(code, int) else 0)


def _app_for(arguments: list[str]) -> typer.Typer:
    """The grammar typer builds for this command line: the named command's alone (building
    all ten costs a query 25 ms), the whole of it for the help, completion and the rest."""
    named = arguments[0] if arguments else None
    completing = any(variable.startswith("_EXPLORER_COMPLETE") for variable in os.environ)
    command = next(
        (
            info
            for info in app.registered_commands
            if info.callback is not None and (info.name or info.callback.__name__) == named
        ),
        None,
    )
    if command is None or completing:
        return app
    alone = typer.Typer(**_SETTINGS)
    alone.callback()(_explorer)
    alone.registered_commands.append(command)
    return alone


def _version(shown: bool) -> None:
    if shown:
        typer.echo(f"explorer {__version__}")
        raise typer.Exit()


@app.callback()
def _explorer(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Explore PyTorch-style source trees across Python, C++/CUDA and native_functions.yaml."""


def _run(command: str, module: str, arguments: dict[str, object], configured: bool = True) -> None:
    """Hand the command's arguments to its module: the tree options as one request, what the
    flags left unset from the environment and the configuration first."""
    arguments = dict(arguments)
    if "tree" in arguments:
        arguments["trees"] = arguments.pop("tree")
    settings = {}
    if configured:
        from explorer.config import configure
        from explorer.errors import ExplorerError

        try:
            settings = configure(command, arguments, _working_folder())
        except ExplorerError as error:  # a configuration file that cannot be used: one line
            typer.echo(f"error: {error}", err=True)
            raise SystemExit(error.exit_code) from None
    if "root" in arguments:
        from explorer.workspace import TreeRequest

        python = settings.get("python-env")
        arguments["where"] = TreeRequest(
            arguments.pop("root"),  # type: ignore[arg-type]
            arguments.pop("index"),  # type: ignore[arg-type]
            tuple(arguments.pop("trees", None) or ()),  # type: ignore[arg-type]
            arguments.pop("python_env", None),  # type: ignore[arg-type]
            python.source if python is not None and python.source != "$EXPLORER_PYTHON_ENV" else "--python-env",
        )
    run = getattr(importlib.import_module(f"explorer.cli.{module}"), command)
    if command != "lsp":
        # A query builds hundreds of thousands of small objects that live until it ends: the
        # collector's default pace (every 700 allocations, through every module object too)
        # costs a trace 7% of its time. What is loaded so far is set aside, and it runs less
        # often. Not in the language server, which lives on: there it made first answers slower.
        gc.freeze()
        gc.set_threshold(50_000, 20, 20)
    run(**arguments)


def _working_folder() -> str | None:
    try:
        return os.getcwd()
    except OSError:  # removed under the shell: no configuration is found from it
        return None


@app.command()
def index(
    root: Root = None,
    index: Index = None,
    tree: Trees = None,
    python_env: PythonEnv = None,
    jobs: Annotated[
        int | None, typer.Option("--jobs", "-j", metavar="N", help="Parser processes (default: one per core).")
    ] = None,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Throw the index away and build it again.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List skipped files and problems.")] = False,
    include_third_party: Annotated[
        bool | None,
        typer.Option(
            "--include-third-party/--no-include-third-party",
            help="Also index vendored third_party folders (stays as set).",
        ),
    ] = None,
    max_file_size: Annotated[
        int | None,
        typer.Option(
            "--max-file-size", metavar="BYTES", help="Skip files larger than this many bytes (default 2 MiB)."
        ),
    ] = None,
    follow_links_outside: Annotated[
        bool | None,
        typer.Option(
            "--follow-links-outside/--no-follow-links-outside",
            help="Also read files that symlinks in the tree point to outside it.",
        ),
    ] = None,
    json: Json = False,
) -> None:
    """Build or refresh the on-disk index of a tree (unchanged files are not parsed again)."""
    _run("index", "index_cmd", locals())


@app.command()
def search(
    query: Annotated[
        str,
        typer.Argument(
            metavar="QUERY",
            show_default=False,
            help=(
                "Name, prefix, words or letters in order: conv2d, Conv2d, cudnnconvfwd. Plain text: * ? [ ] match themselves."
            ),
        ),
    ],
    root: Root = None,
    index: Index = None,
    tree: Trees = None,
    python_env: PythonEnv = None,
    kind: Annotated[
        str | None, typer.Option("--kind", "-k", help="Only this kind (class, function, operator, ...).")
    ] = None,
    lang: Annotated[
        str | None, typer.Option("--lang", "-l", help="Only this language: python, cpp, cuda, yaml, vendor.")
    ] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", metavar="N", help="At most this many results.")] = 20,
    json: Json = False,
) -> None:
    """Find symbols by name: exact first, then prefix, word and fuzzy matches."""
    _run("search", "search_cmd", locals())


@app.command()
def show(
    symbol: Annotated[
        str,
        typer.Argument(
            metavar="SYMBOL",
            show_default=False,
            help="torch.nn.Conv2d, nn.Conv2d, F.conv2d, aten::conv2d.padding, a bare name...",
        ),
    ],
    root: Root = None,
    index: Index = None,
    tree: Trees = None,
    python_env: PythonEnv = None,
    json: Json = False,
    tests: Tests = None,
    lines: Annotated[
        int,
        typer.Option(
            "--lines", metavar="N", help="Lines of the definition's source shown; the box says how many more."
        ),
    ] = 15,
) -> None:
    """Show a symbol's definition: location, signature, source, dispatch table or alias target."""
    _run("show", "show_cmd", locals())


@app.command()
def trace(
    symbol: Definition,
    root: Root = None,
    index: Index = None,
    tree: Trees = None,
    python_env: PythonEnv = None,
    to: Annotated[
        str | None,
        typer.Option(
            "--to",
            help=(
                "Keep only paths reaching this: a name (cudnnConvolutionForward, at::native::add) matches definitions of exactly that "
                "name, or, if the tree has none, names containing it; anything else is a regular expression (RE2 syntax) searched in "
                "qualified names."
            ),
        ),
    ] = None,
    backend: Annotated[
        str | None, typer.Option("--backend", help="cuda (with cuDNN/cuBLAS, the default), cpu, or all.")
    ] = None,
    max_depth: Annotated[
        int | None,
        typer.Option(
            "--max-depth",
            metavar="N",
            help=(f"Hops to follow (default {DEFAULT_DEPTH}, or {DEFAULT_DEPTH_TO} with --to)."),
        ),
    ] = None,
    paths: Annotated[
        int | None,
        typer.Option(
            "--paths", metavar="N", help=(f"With --to: how many paths to list, best first (default {DEFAULT_PATHS}).")
        ),
    ] = None,
    json: Json = False,
    output_format: Format = "tree",
    output: Output = None,
    max_nodes: MaxNodes = DEFAULT_MAX_NODES,
    collapse: Collapse = None,
    link_template: LinkTemplate = None,
    only_paths: Annotated[
        bool,
        typer.Option(
            "--only-paths", rich_help_panel=_DIAGRAM, help="Diagram with --to: the paths alone (the default)."
        ),
    ] = False,
    context: Annotated[
        bool,
        typer.Option(
            "--context",
            rich_help_panel=_DIAGRAM,
            help="Diagram with --to: also draw, faint, what each hop on the paths calls besides.",
        ),
    ] = False,
    dynamic: Annotated[
        str | None,
        typer.Option(
            "--dynamic",
            metavar="CODE",
            help=(
                "Also run this code on the bundled runtime and compare the run with the static graph (as run --compare)."
            ),
        ),
    ] = None,
    tests: Tests = None,
) -> None:
    """Trace what calling SYMBOL runs, across Python, the torch._C binding, YAML, C++ and vendor APIs."""
    _run("trace", "trace_cmd", locals())


def _neighbours_command(direction: str, summary: str) -> None:
    """`callers` and `callees`: one grammar, registered under each name."""

    def neighbours(
        symbol: Definition,
        root: Root = None,
        index: Index = None,
        tree: Trees = None,
        python_env: PythonEnv = None,
        depth: Annotated[int, typer.Option("--depth", "-d", metavar="N", help="Steps to follow.")] = 1,
        json: Json = False,
        output_format: Format = "tree",
        output: Output = None,
        max_nodes: MaxNodes = DEFAULT_MAX_NODES,
        collapse: Collapse = None,
        link_template: LinkTemplate = None,
        tests: Tests = None,
    ) -> None:
        given = {
            name: value for name, value in locals().items() if name != "direction"
        }  # (the closure's own name is no argument)
        _run(direction, "neighbours_cmd", given)

    app.command(name=direction, help=summary)(neighbours)


_neighbours_command(
    "callers", "Who calls SYMBOL, across every layer (a kernel's operator, an operator's C++ and Python callers...)."
)
_neighbours_command("callees", "What SYMBOL calls, across every layer and every backend.")


@app.command()
def callgraph(
    root: Root = None,
    index: Index = None,
    tree: Trees = None,
    python_env: PythonEnv = None,
    format: Annotated[str, typer.Option("--format", help="Output format: json (the only one).")] = "json",
) -> None:
    """Print the Python call graph: each module, function, method and lambda, and what it may call."""
    _run("callgraph", "callgraph_cmd", locals())


@app.command()
def lsp() -> None:
    """Serve the Language Server Protocol on stdin and stdout (an editor starts this)."""
    _run("lsp", "lsp_cmd", {}, configured=False)


@app.command(
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True, "allow_interspersed_args": False}
)
def run(
    program: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="SCRIPT [ARGS...]", show_default=False, help="The program to run (after --), unless -c is given."
        ),
    ] = None,
    code: Annotated[
        str | None, typer.Option("--code", "-c", help="Program passed in as a string, as python -c.")
    ] = None,
    root: Root = None,
    index: Index = None,
    tree: Trees = None,
    python_env: PythonEnv = None,
    python: Annotated[
        str | None,
        typer.Option(
            "--python",
            metavar="INTERPRETER",
            help=(
                "Interpreter with real PyTorch: record its operators with the PyTorch profiler (its installed packages are also the "
                "project's, unless --python-env says otherwise)."
            ),
        ),
    ] = None,
    backend_device: Annotated[
        str | None,
        typer.Option(
            "--backend-device",
            metavar="DEVICE",
            help=("Bundled runtime: run every tensor on cpu or cuda (emulated), whatever the code says."),
        ),
    ] = None,
    chrome_trace: Annotated[
        str | None,
        typer.Option(
            "--chrome-trace",
            metavar="FILE",
            help=(
                "Run nothing: read a trace the PyTorch profiler wrote (export_chrome_trace or tensorboard_trace_handler, .json or "
                ".json.gz) and map its operators and kernels to source."
            ),
        ),
    ] = None,
    compare: Annotated[
        bool, typer.Option("--compare", help="Lay the run over the static call graph: confirmed, not taken, missed.")
    ] = False,
    include: Annotated[
        list[str] | None,
        typer.Option(
            "--include", metavar="PREFIX", help=("Show only frames in this module, class or namespace (repeatable).")
        ),
    ] = None,
    exclude: Annotated[
        list[str] | None,
        typer.Option(
            "--exclude",
            metavar="PREFIX",
            help=("Leave out frames in this module, class or namespace, and what they call (repeatable)."),
        ),
    ] = None,
    max_depth: Annotated[
        int | None, typer.Option("--max-depth", metavar="N", help="Show this many levels below the program.")
    ] = None,
    max_events: Annotated[
        int, typer.Option("--max-events", metavar="N", help="Most call events to record, Python and native each.")
    ] = DEFAULT_MAX_EVENTS,
    json: Json = False,
    output_format: Format = "tree",
    output: Output = None,
    max_nodes: MaxNodes = DEFAULT_MAX_NODES,
) -> None:
    """Run SCRIPT (or -c CODE) under tracing and print the call tree it ran (or read one the profiler recorded)."""
    _run("run", "run_cmd", locals())


@app.command()
def scip(
    root: Root = None,
    index: Index = None,
    tree: Trees = None,
    python_env: PythonEnv = None,
    output: Annotated[
        str, typer.Option("--output", "-o", metavar="FILE", help="The SCIP file to write.")
    ] = "index.scip",
    under: Annotated[
        str | None,
        typer.Option(
            "--under", metavar="FOLDER", help=("Only the project's files under this folder (relative to the root).")
        ),
    ] = None,
) -> None:
    """Write the project's definitions, references and cross-language edges as a SCIP index (Sourcegraph's format)."""
    _run("scip", "scip_cmd", locals())


@app.command()
def config(
    root: Root = None,
    index: Index = None,
    tree: Trees = None,
    python_env: PythonEnv = None,
    json: Json = False,
) -> None:
    """Show the settings in force and where each comes from: a flag, the environment, \\[tool.explorer] or explorer.toml, the default."""
    _run("config", "config_cmd", locals(), configured=False)
