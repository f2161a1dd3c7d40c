"""`explorer index`: build or refresh the index of a tree."""

from __future__ import annotations

import dataclasses

from explorer.cli.common import open_trees, refresh_index, reports_errors, stderr, stdout
from explorer.errors import UsageError
from explorer.folders import resolve_index_path, resolve_root
from explorer.index import WalkOptions, saved_walk_options
from explorer.model import Tree, TreeKind
from explorer.render.json_out import dumps, report_json, trees_json
from explorer.render.text import report_text, trees_text
from explorer.workspace import TreeRequest, nested_roots, source_trees


@reports_errors
def index(
    where: TreeRequest,
    jobs: int | None = None,
    rebuild: bool = False,
    verbose: bool = False,
    include_third_party: bool | None = None,
    max_file_size: int | None = None,
    follow_links_outside: bool | None = None,
    json: bool = False,
) -> None:
    """Build or refresh the on-disk index of a tree (unchanged files are not parsed again).
    A walk option not given stays as the index was made with it (so the language server's
    plain `explorer index` keeps a tree's third_party folders)."""
    if jobs is not None and jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if max_file_size is not None and max_file_size < 1:
        raise UsageError("--max-file-size must be positive")
    tree = resolve_root(where.root)
    index_path = resolve_index_path(tree, where.index)
    options = None  # as the index was made with (WalkOptions' defaults for a new one)
    if (include_third_party, max_file_size, follow_links_outside) != (None, None, None):
        saved = saved_walk_options(index_path, tree) or WalkOptions()
        options = dataclasses.replace(
            saved,
            include_third_party=saved.include_third_party if include_third_party is None else include_third_party,
            max_file_size=saved.max_file_size if max_file_size is None else max_file_size,
            follow_links_outside=saved.follow_links_outside if follow_links_outside is None else follow_links_outside,
        )
    project = Tree("project", tree, TreeKind.PROJECT)
    report = refresh_index(
        tree,
        index_path,
        jobs=jobs,
        rebuild=rebuild,
        options=options,
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
