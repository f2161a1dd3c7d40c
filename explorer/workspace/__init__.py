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

if TYPE_CHECKING:  # each name as its own alias: the names this door exports
    from explorer.workspace.cache_files import read_kept as read_kept
    from explorer.workspace.cache_files import write_kept as write_kept
    from explorer.workspace.environment import Distribution as Distribution
    from explorer.workspace.environment import Environment as Environment
    from explorer.workspace.environment import find_distributions as find_distributions
    from explorer.workspace.environment import find_environment as find_environment
    from explorer.workspace.environment import pyenv_choice as pyenv_choice
    from explorer.workspace.places import GRAMMARS_DIR as GRAMMARS_DIR
    from explorer.workspace.places import SAMPLE_ROOT as SAMPLE_ROOT
    from explorer.workspace.places import cache_folder as cache_folder
    from explorer.workspace.places import default_index_path as default_index_path
    from explorer.workspace.places import resolve_index_path as resolve_index_path
    from explorer.workspace.places import resolve_root as resolve_root
    from explorer.workspace.trees import TREES_VARIABLE as TREES_VARIABLE
    from explorer.workspace.trees import RefreshTree as RefreshTree
    from explorer.workspace.trees import TreeNotReady as TreeNotReady
    from explorer.workspace.trees import TreeRequest as TreeRequest
    from explorer.workspace.trees import Workspace as Workspace
    from explorer.workspace.trees import nested_roots as nested_roots
    from explorer.workspace.trees import open_workspace as open_workspace
    from explorer.workspace.trees import source_trees as source_trees
    from explorer.workspace.trees import source_version as source_version

_HOME = {  # each name above, and the module of this package that defines it (tests/test_doors.py)
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

if not TYPE_CHECKING:  # to a type checker, the names are the imports above and nothing else
    __getattr__ = door(__name__, _HOME)
