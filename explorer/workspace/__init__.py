"""The workspace: the trees a command explores, where their indexes and caches live, and the
Python environment whose installed packages the project imports. This is its door.

- `open_workspace(request, refresh_tree)` gives one `Workspace`: the project, the source
  trees joined to it and the installed distributions it imports, each indexed and open, read
  as one `IndexReader`. The command line, the language server and `explorer run` all open
  theirs this way (trees.py); `TreeRequest` is what they were asked for.
- The Python environment and its distributions (environment.py).
- Places (places.py): the bundled tree and the grammars, the root to explore, the cache
  folder and each tree's index file in it; and the small JSON files kept there
  (cache_files.py).

places.py and cache_files.py sit below the index, which keeps its files in the cache folder;
trees.py and environment.py sit above it. The names load on first use, as the index's
modules import the lower two and the upper two import the index.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer.doors import door

if TYPE_CHECKING:
    from explorer.workspace.cache_files import read_kept, write_kept
    from explorer.workspace.environment import (
        Distribution,
        Environment,
        find_distributions,
        find_environment,
        pyenv_choice,
    )
    from explorer.workspace.places import (
        GRAMMARS_DIR,
        SAMPLE_ROOT,
        cache_folder,
        default_index_path,
        resolve_index_path,
        resolve_root,
    )
    from explorer.workspace.trees import (
        TREES_VARIABLE,
        RefreshTree,
        TreeNotReady,
        TreeRequest,
        Workspace,
        nested_roots,
        open_workspace,
        source_trees,
        source_version,
    )

_HOME = {  # each public name, and the module of this package that defines it
    "read_kept": "cache_files",
    "write_kept": "cache_files",
    "Distribution": "environment",
    "Environment": "environment",
    "find_distributions": "environment",
    "find_environment": "environment",
    "pyenv_choice": "environment",
    "GRAMMARS_DIR": "places",
    "SAMPLE_ROOT": "places",
    "cache_folder": "places",
    "default_index_path": "places",
    "resolve_index_path": "places",
    "resolve_root": "places",
    "TREES_VARIABLE": "trees",
    "RefreshTree": "trees",
    "TreeNotReady": "trees",
    "TreeRequest": "trees",
    "Workspace": "trees",
    "nested_roots": "trees",
    "open_workspace": "trees",
    "source_trees": "trees",
    "source_version": "trees",
}
__all__ = [  # the same names as _HOME (tests/test_doors.py)
    "GRAMMARS_DIR",
    "SAMPLE_ROOT",
    "TREES_VARIABLE",
    "Distribution",
    "Environment",
    "RefreshTree",
    "TreeNotReady",
    "TreeRequest",
    "Workspace",
    "cache_folder",
    "default_index_path",
    "find_distributions",
    "find_environment",
    "nested_roots",
    "open_workspace",
    "pyenv_choice",
    "read_kept",
    "resolve_index_path",
    "resolve_root",
    "source_trees",
    "source_version",
    "write_kept",
]

if not TYPE_CHECKING:  # to a type checker, the names are the imports above and nothing else
    __getattr__ = door(__name__, _HOME)
