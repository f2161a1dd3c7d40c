"""`explorer index`: build or refresh the index of a tree."""

from __future__ import annotations

import dataclasses

from explorer.cli.common import open_trees, refresh_index, reports_errors, stderr, stdout
from explorer.errors import UsageError
from explorer.index.files import DEFAULT_MAX_FILE_SIZE, WalkOptions
from explorer.render.json_out import dumps, report_json, trees_json
from explorer.render.text import report_text, trees_text
from explorer.model import Tree, TreeKind
from explorer.trees import TreeRequest, nested_roots, source_trees
from explorer.workspace import resolve_index_path, resolve_root


@reports_errors
def index(
    where: TreeRequest,
    jobs: int | None = None,
    rebuild: bool = False,
    verbose: bool = False,
    include_third_party: bool = False,
    max_file_size: int = DEFAULT_MAX_FILE_SIZE,
    follow_links_outside: bool = False,
    json: bool = False,
) -> None:
    """Build or refresh the on-disk index of a tree (unchanged files are not parsed again)."""
    if jobs is not None and jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if max_file_size < 1:
        raise UsageError("--max-file-size must be positive")
    tree = resolve_root(where.root)
    index_path = resolve_index_path(tree, where.index)
    project = Tree("project", tree, TreeKind.PROJECT)
    report = refresh_index(
        tree,
        index_path,
        jobs=jobs,
        rebuild=rebuild,
        options=WalkOptions(include_third_party, max_file_size, follow_links_outside),
        # the folders that are other trees (a --tree inside the project) are theirs, as in a query
        leave_out=nested_roots(project, [project, *source_trees(where.trees, tree)]),
    )
    if report.rebuilt_because and not rebuild:
        stderr.print(f"note: index rebuilt ({report.rebuilt_because})", soft_wrap=True)
    # the other trees the project's queries span, indexed now rather than by the first query
    with open_trees(dataclasses.replace(where, root=tree)) as workspace:
        joined = workspace.trees[1:]
    if json:
        stdout.print_json(dumps({**report_json(report), "trees": [trees_json(t) for t in joined]}))
    else:
        report_text(stdout, report, verbose)
        trees_text(stdout, joined)
