"""The trees a query spans, and their indexes opened as one reader.

1. The project (`--root`), first.
2. Source trees joined with `--tree` (repeatable) or $EXPLORER_TREES (paths separated by
   the system's path separator), in the order given: a PyTorch checkout, a library's sources.
3. The installed distributions that provide what the project imports, from the project's
   Python environment (workspace/environment.py), each read for its Python, stubs and YAML
   only. A distribution that provides a package an earlier tree already has is not read:
   a wheel of one version beside a checkout of another is said once, never mixed.
Each tree has its own index. The project and source trees are refreshed as one tree alone
is (a walk, then only changed files); an installed distribution only when its stamp (its
RECORD) changes, so a warm query does not walk site-packages.
"""

from __future__ import annotations

import dataclasses
import glob
import os
import re
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from explorer.errors import UsageError
from explorer.folders import default_index_path, resolve_index_path, resolve_root
from explorer.index import (
    IndexReader,
    IndexStore,
    KeptEdges,
    MultiTreeIndex,
    TreeIndex,
    WalkOptions,
    open_kept_edges,
    opened,
    reading,
    write_meta,
)
from explorer.model import Language, Tree, TreeKind
from explorer.workspace.environment import Distribution, Environment, find_distributions, find_environment

TREES_VARIABLE = "EXPLORER_TREES"
INSTALLED_LANGUAGES = (Language.PYTHON.value, Language.YAML.value)
_STAMP_KEY = "installed_stamp"

# Bring one tree's index up to date: (tree, index file, walk options or None for the saved
# ones, folders inside it that are trees of their own).
RefreshTree = Callable[[Tree, Path, "WalkOptions | None", frozenset[str]], object]


class TreeNotReady(Exception):
    """Raised by a RefreshTree that only opens (the language server's): the tree's index
    cannot serve yet; it is being built elsewhere."""


@dataclass(frozen=True, slots=True)
class TreeRequest:
    """What the command line asks for."""

    root: str | None = None
    index: str | None = None
    trees: tuple[str, ...] = ()
    python: str | None = None
    python_from: str = "--python-env"  # where `python` was given: the flag, or a configuration file


@dataclass(slots=True)
class Workspace:
    root: str  # the project's, absolute
    reader: IndexReader
    trees: list[Tree]
    index_paths: list[Path]
    environment: Environment | None = None
    notes: list[str] = field(default_factory=list)  # one line each, for stderr
    closing: ExitStack | None = None  # what closes with the workspace
    waiting: list[str] = field(default_factory=list)  # trees left out until their index is ready (why, each)
    _kept: list[KeptEdges | None] = field(default_factory=list)  # empty until opened

    def kept_edges(self) -> KeptEdges | None:
        """The call graph's C++ edges from earlier runs (index/kept_edges.py), opened when a
        command first asks (a search never does) and written back when the workspace closes."""
        if not self._kept:
            self._kept.append(
                self.closing.enter_context(open_kept_edges(self.index_paths)) if self.closing is not None else None
            )
        return self._kept[0]


@contextmanager
def open_workspace(request: TreeRequest, refresh_tree: RefreshTree, partial: bool = False) -> Iterator[Workspace]:
    """Every tree of the request indexed and open; one reader over them all. `partial`: a
    tree other than the project whose refresh_tree raises TreeNotReady is left out (named in
    Workspace.waiting), so that what is ready answers at once."""
    project = Tree("project", resolve_root(request.root), TreeKind.PROJECT)
    sources = source_trees(request.trees, project.root)
    index_paths: list[Path] = []
    # SQLite's errors, from the reads made here and those of whoever holds the workspace, become
    # explorer's, naming every index open (a read across trees does not say which one failed)
    with reading(index_paths), ExitStack() as closing:
        parts: list[TreeIndex] = []
        waiting: list[str] = []
        provided: dict[str, Tree] = {}  # top-level Python name -> the first tree that has it
        for tree in [project, *sources]:
            index_path = (
                resolve_index_path(tree.root, request.index) if tree is project else default_index_path(tree.root)
            )
            try:
                refresh_tree(tree, index_path, None, nested_roots(tree, [project, *sources]))
            except TreeNotReady as error:
                if not partial or tree is project:
                    raise
                waiting.append(str(error))
                continue
            index_paths.append(index_path)
            store = closing.enter_context(opened(index_path))
            parts.append(TreeIndex(tree, store, frozenset(provided)))
            for name in store.top_level_modules():
                provided.setdefault(name, tree)
        notes: list[str] = []
        # Names a tree already provides are looked up too: a wheel they hide is said, not mixed.
        imported = parts[0].store.imported_top_level()
        environment = (
            find_environment(project.root, request.python, request.python_from) if imported or request.python else None
        )
        if environment is not None:
            for distribution in _distributions(environment, imported):
                tree = installed_tree(distribution)
                shadowing = {provided[name] for name in distribution.top_level if name in provided}
                # only a checkout joined as a source tree lacks its build's stubs; a project that
                # provides the package (the bundled tree's own torch) is read as it stands
                stubs_only = (
                    bool(shadowing)
                    and all(t.kind is TreeKind.SOURCE for t in shadowing)
                    and tree.kind is TreeKind.INSTALLED
                    and _has_stubs(distribution)
                )
                if shadowing:
                    notes.extend(_version_notes(distribution, environment, shadowing, provided, stubs_only))
                    if not stubs_only:
                        continue
                index_path = _installed_index_path(distribution)
                try:
                    store = closing.enter_context(_installed_index(tree, index_path, refresh_tree))
                except TreeNotReady as error:
                    if not partial:
                        raise
                    waiting.append(str(error))
                    continue
                index_paths.append(index_path)
                if stubs_only:
                    tree = dataclasses.replace(tree, stubs_only=True)
                parts.append(TreeIndex(tree, store, frozenset(provided), stubs_only))
                for name in distribution.top_level:
                    provided.setdefault(name, tree)
        reader: IndexReader = parts[0].store if len(parts) == 1 else MultiTreeIndex(parts)
        yield Workspace(
            project.root, reader, [part.tree for part in parts], index_paths, environment, notes, closing, waiting
        )


@contextmanager
def open_installed(python: str, package: str, refresh_tree: RefreshTree) -> Iterator[IndexReader | None]:
    """The index of the distribution that installs `package` for the interpreter `python`
    (None where none does): the file a project importing the package reads it from, built
    and refreshed as a workspace does (once per install). `explorer run --python` without a
    source tree names the wheel's bindings and operators from it."""
    environment = find_environment("", python, "--python")
    found = _distributions(environment, {package}) if environment is not None else []
    if not found:
        yield None
        return
    index_path = _installed_index_path(found[0])
    with reading([index_path]), _installed_index(installed_tree(found[0]), index_path, refresh_tree) as store:
        yield store


def _installed_index_path(distribution: Distribution) -> Path:
    return default_index_path(f"{distribution.site_folder}::{distribution.name}", name=distribution.name)


def source_trees(named: tuple[str, ...], project_root: str) -> list[Tree]:
    """`--tree` folders, then $EXPLORER_TREES's, each once and never the project itself."""
    written = list(named) + [path for path in os.environ.get(TREES_VARIABLE, "").split(os.pathsep) if path]
    trees: list[Tree] = []
    seen = {project_root}
    for path in written:
        folder = Path(path).expanduser()
        if not folder.is_dir():
            raise UsageError(f"--tree {path}: not a folder")
        root = str(folder.resolve())
        if root in seen:
            continue
        seen.add(root)
        names = {tree.name for tree in trees}
        name = folder.resolve().name or root
        trees.append(Tree(name if name not in names else root, root, TreeKind.SOURCE, source_version(root)))
    return trees


def nested_roots(tree: Tree, trees: list[Tree]) -> frozenset[str]:
    """The folders of `tree` that are other trees of the query (a checkout inside the
    project, the project inside a checkout), relative to its root: each file is read once,
    as part of the innermost tree that holds it."""
    prefix = tree.root.rstrip(os.sep) + os.sep
    return frozenset(
        os.path.relpath(other.root, tree.root).replace(os.sep, "/") for other in trees if other.root.startswith(prefix)
    )


def installed_tree(distribution: Distribution) -> Tree:
    if distribution.stamp is None:  # a folder a .pth file adds (an editable install): sources
        return Tree(distribution.label, distribution.site_folder, TreeKind.SOURCE, None, distribution.top_level)
    return Tree(
        distribution.label,
        distribution.site_folder,
        TreeKind.INSTALLED,
        distribution.version,
        distribution.top_level,
        distribution.stamp,
    )


def _distributions(environment: Environment, imported: set[str]) -> list[Distribution]:
    """Each distribution that provides an imported name, once, in the order of the names."""
    found = find_distributions(environment, imported)
    return list({(d.site_folder, d.name): d for _, d in sorted(found.items())}.values())


@contextmanager
def _installed_index(tree: Tree, index_path: Path, refresh_tree: RefreshTree) -> Iterator[IndexStore]:
    """An installed distribution's index, refreshed only when its stamp differs from the one
    it was built for (nothing under site-packages is walked on a warm query)."""
    if tree.stamp is not None and IndexStore.unusable_reason(index_path, tree.root) is None:
        with opened(index_path) as store:
            current = store.meta(_STAMP_KEY) == tree.stamp
            if current and store.meta("walk_options") is not None and store.meta("small_tree") is not None:
                yield store  # the warm path: one open, nothing walked
                return
    languages = INSTALLED_LANGUAGES if tree.kind is TreeKind.INSTALLED else ()
    refresh_tree(tree, index_path, WalkOptions(only=tree.only, languages=languages), frozenset())
    if tree.stamp is not None:
        write_meta(index_path, _STAMP_KEY, tree.stamp)
    with opened(index_path) as store:
        yield store


def _version_notes(
    distribution: Distribution,
    environment: Environment,
    shadowing: set[Tree],
    provided: dict[str, Tree],
    stubs_only: bool = False,
) -> Iterator[str]:
    for tree in sorted(shadowing, key=lambda t: t.root):
        names = ", ".join(name for name in distribution.top_level if provided.get(name) == tree)
        if distribution.stamp is None or (tree.version and _release(tree.version) == _release(distribution.version)):
            continue
        their = f" (version {tree.version})" if tree.version else ""
        stubs = (
            "; only its stubs (.pyi) are, for the names the checkout has none for (stubs its build generates)"
            if stubs_only
            else ""
        )
        yield (
            f"note: {distribution.label} installed in {environment.where} is not read: "
            f"{tree.name} at {tree.root}{their} provides {names} instead{stubs}"
        )


def _has_stubs(distribution: Distribution) -> bool:
    """Whether a wheel ships stubs in its packages' first two levels (torch/_C/*.pyi): a
    checkout of the package has none of the stubs its build generates."""
    for package in distribution.top_level:
        folder = os.path.join(distribution.site_folder, package)
        if any(glob.iglob(os.path.join(folder, "*.pyi"))) or any(glob.iglob(os.path.join(folder, "*", "*.pyi"))):
            return True
    return False


_RELEASE = re.compile(r"\d+(?:\.\d+)*")


def _release(version: str) -> str:
    """`2.4.0a0+git1234` -> `2.4.0`: what a checkout and a wheel of one release share."""
    found = _RELEASE.match(version)
    return found.group() if found else version


_VERSION_ASSIGNMENT = re.compile(r"""^__version__\s*(?::\s*str\s*)?=\s*['"]([^'"]+)['"]""", re.MULTILINE)


def source_version(root: str) -> str | None:
    """A source tree's version as written in it (never by running it): `version.txt` at its
    root (PyTorch's), else `__version__ = "..."` in a top-level package's version.py or __init__.py."""
    try:
        with open(os.path.join(root, "version.txt"), encoding="utf-8", errors="replace") as handle:
            first = handle.readline().strip()
        if first:
            return first
    except OSError:
        pass
    try:
        packages = sorted(entry.name for entry in os.scandir(root) if entry.is_dir() and not entry.name.startswith("."))
    except OSError:
        return None
    for package in packages:
        for name in ("version.py", "__init__.py"):
            try:
                with open(os.path.join(root, package, name), encoding="utf-8", errors="replace") as handle:
                    found = _VERSION_ASSIGNMENT.search(handle.read(65536))
            except OSError:
                continue
            if found:
                return found.group(1)
    return None
