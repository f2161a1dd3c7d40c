"""The workspace: the trees a command explores, where their indexes and caches live, and the
Python environment whose installed packages the project imports. This is its door.

- `open_workspace(request, refresh_tree)` gives one `Workspace`: the project, the source
  trees joined to it and the installed distributions it imports, each indexed and open, read
  as one `IndexReader`. The command line, the language server and `explorer run` all open
  theirs this way (trees.py); `TreeRequest` is what they were asked for.
- The Python environment and its distributions (environment.py).

The folders all of this lives in (the root to explore, the cache folder, each tree's index
file, the small JSON files kept beside the indexes) are explorer/folders.py's, below the index
as well as the workspace: the index keeps its files there, and the workspace, which opens the
index, sits above it. The names load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer.doors import door

if TYPE_CHECKING:  # each name as its own alias: the names this door exports
    from explorer.workspace.environment import Distribution as Distribution
    from explorer.workspace.environment import Environment as Environment
    from explorer.workspace.environment import find_distributions as find_distributions
    from explorer.workspace.environment import find_environment as find_environment
    from explorer.workspace.environment import pyenv_choice as pyenv_choice
    from explorer.workspace.trees import TREES_VARIABLE as TREES_VARIABLE
    from explorer.workspace.trees import RefreshTree as RefreshTree
    from explorer.workspace.trees import TreeNotReady as TreeNotReady
    from explorer.workspace.trees import TreeRequest as TreeRequest
    from explorer.workspace.trees import Workspace as Workspace
    from explorer.workspace.trees import nested_roots as nested_roots
    from explorer.workspace.trees import open_installed as open_installed
    from explorer.workspace.trees import open_workspace as open_workspace
    from explorer.workspace.trees import source_trees as source_trees
    from explorer.workspace.trees import source_version as source_version

_HOME = {  # each name above, and the module of this package that defines it (tests/test_doors.py)
    "Distribution": "environment",
    "Environment": "environment",
    "find_distributions": "environment",
    "find_environment": "environment",
    "pyenv_choice": "environment",
    "TREES_VARIABLE": "trees",
    "RefreshTree": "trees",
    "TreeNotReady": "trees",
    "TreeRequest": "trees",
    "Workspace": "trees",
    "nested_roots": "trees",
    "open_installed": "trees",
    "open_workspace": "trees",
    "source_trees": "trees",
    "source_version": "trees",
}

if not TYPE_CHECKING:  # to a type checker, the names are the imports above and nothing else
    __getattr__ = door(__name__, _HOME)
