"""How a location is written in text. The project's paths are relative to its root already;
another tree's are absolute, and written in full they made real-tree lines 300 characters
long. Text writes them as the tree's name and the path within it (`pytorch:aten/src/ATen/...`,
`torch-2.13.0+cpu:torch/nn/functional.py`); JSON keeps the absolute paths, for programs.

The trees are set once per command, when its workspace opens (cli/common.py): a command
renders after its trees are closed, and one process runs one command."""

from __future__ import annotations

import os
from contextvars import ContextVar

from explorer.model import Tree

# (root with its trailing separator, the name written for it), longest root first
_NAMED: ContextVar[tuple[tuple[str, str], ...]] = ContextVar("named_trees", default=())


def name_trees(trees: list[Tree]) -> None:
    """The trees of the command's workspace, the project first (its paths are left as they are)."""
    named = [(tree.root.rstrip(os.sep) + os.sep, tree.name.replace(" ", "-")) for tree in trees[1:]]
    _NAMED.set(tuple(sorted(named, key=lambda item: -len(item[0]))))


def shown_path(path: str) -> str:
    """`path` as text shows it: `NAME:path` inside another tree, else as it is."""
    if os.path.isabs(path):
        for root, name in _NAMED.get():
            if path.startswith(root):
                return f"{name}:{path[len(root) :]}"
    return path
