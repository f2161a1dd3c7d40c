"""`explorer index`: build or refresh the index of a tree."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from explorer.cli.common import (
    IndexOption, JsonOption, PythonEnvOption, RootOption, TreesOption, open_trees, refresh_index, reports_errors, stderr, stdout,
)
from explorer.errors import UsageError
from explorer.index.files import DEFAULT_MAX_FILE_SIZE, WalkOptions
from explorer.render.json_out import dumps, report_json, trees_json
from explorer.render.text import report_text, trees_text
from explorer.workspace import resolve_index_path, resolve_root


@reports_errors
def index(
    root: RootOption = None,
    index: IndexOption = None,
    trees: TreesOption = None,
    python_env: PythonEnvOption = None,
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", help="Parser processes (default: one per core).")] = None,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Throw the index away and build it again.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List skipped files and problems.")] = False,
    include_third_party: Annotated[
        bool, typer.Option("--include-third-party", help="Also index vendored third_party folders.")
    ] = False,
    max_file_size: Annotated[
        int, typer.Option("--max-file-size", help="Skip files larger than this many bytes.")
    ] = DEFAULT_MAX_FILE_SIZE,
    follow_links_outside: Annotated[
        bool, typer.Option("--follow-links-outside", help="Also read files that symlinks in the tree point to outside it.")
    ] = False,
    json: JsonOption = False,
) -> None:
    """Build or refresh the on-disk index of a tree (unchanged files are not parsed again)."""
    if jobs is not None and jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if max_file_size < 1:
        raise UsageError("--max-file-size must be positive")
    tree = resolve_root(root)
    index_path = resolve_index_path(tree, index)
    report = refresh_index(
        tree,
        index_path,
        jobs=jobs,
        rebuild=rebuild,
        options=WalkOptions(include_third_party, max_file_size, follow_links_outside),
    )
    if report.rebuilt_because and not rebuild:
        stderr.print(f"note: index rebuilt ({report.rebuilt_because})", soft_wrap=True)
    # the other trees the project's queries span, indexed now rather than by the first query
    with open_trees(tree, index, trees, python_env) as workspace:
        joined = workspace.trees[1:]
    if json:
        stdout.print_json(dumps({**report_json(report), "trees": [trees_json(t) for t in joined]}))
    else:
        report_text(stdout, report, verbose)
        trees_text(stdout, joined)
