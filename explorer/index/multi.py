"""Several trees' indexes, read as one.

Each tree keeps its own index, refreshed on its own; a query spans them through this reader,
which asks each tree in order and merges the answers:
- Locations: the project's stay relative to its root; every other tree's become absolute
  paths, so a location says which tree it is in, and the lines of its file are read from
  there. A query that names a file (the calls in it, its flow facts) goes to the tree whose
  root holds that path.
- Python names shadow as on sys.path: a top-level package an earlier tree provides hides the
  same package in later trees (the project's `mini_app` hides a copy in a checkout joined
  after it). C++ and YAML definitions of all trees are merged.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from explorer.index.store import IndexStore, SmallTree
from explorer.model import (
    CallSite,
    DerivativeEntry,
    DispatchEntry,
    ImportBinding,
    Language,
    OperatorInfo,
    Symbol,
    SymbolKind,
    Tree,
    TreeKind,
)


@dataclass(frozen=True, slots=True)
class TreeIndex:
    tree: Tree
    store: IndexStore
    hidden: frozenset[str] = frozenset()  # top-level Python names an earlier tree provides
    # A wheel hidden by a checkout of its package: only its stubs (.pyi) answer, for the names
    # no earlier tree defines. A checkout has no generated stubs (torch/_C/_VariableFunctions.pyi
    # is made by the build); nothing else of the wheel is read.
    stubs_only: bool = False


class MultiTreeIndex:
    def __init__(self, parts: list[TreeIndex]) -> None:
        self.parts = parts
        # A path of the project (index 0) is relative; the others' start with their root,
        # as their stores report them (IndexStore.report_paths_under).
        self._prefixes = [None] + [part.tree.root.rstrip(os.sep) + os.sep for part in parts[1:]]
        for part, prefix in zip(parts[1:], self._prefixes[1:]):
            part.store.report_paths_under(prefix or "")
        self._by_qname: dict[str, list[Symbol]] = {}
        # read on first use: a search never needs them
        self._small: dict[int, SmallTree | None] = {}
        self._alias_targets: dict[str, list[tuple[str, int]]] = {}

    def _small_tree(self, index: int) -> SmallTree | None:
        if index not in self._small:
            self._small[index] = self.parts[index].store.small_tree()
        return self._small[index]

    # -- locations ----------------------------------------------------------------------------

    def _route(self, path: str) -> tuple[int, str] | None:
        """The tree holding `path` (as this reader wrote it) and the path within that tree."""
        if not os.path.isabs(path):
            return 0, path
        best: tuple[int, str] | None = None
        for index, prefix in enumerate(self._prefixes):
            if (
                prefix is not None
                and path.startswith(prefix)
                and (best is None or len(prefix) > len(self._prefixes[best[0]] or ""))
            ):
                best = index, path[len(prefix) :]
        return best

    def _symbols(self, index: int, symbols: list[Symbol], before: Iterable[Symbol] = ()) -> list[Symbol]:
        """A tree's answer as the workspace sees it: without the Python an earlier tree hides;
        from a stubs-only tree, its stubs' definitions that `before` (earlier trees' answer to
        the same question) does not have."""
        part = self.parts[index]
        if part.stubs_only:
            defined = {symbol.qname for symbol in before}
            return [
                s
                for s in symbols
                if s.lang == Language.PYTHON and (s.path or "").endswith(".pyi") and s.qname not in defined
            ]
        hidden = part.hidden
        if not hidden:
            return symbols
        return [s for s in symbols if s.lang != Language.PYTHON or s.qname.split(".", 1)[0] not in hidden]

    def _each_symbols(self, ask: str, *args: object, has: Callable[[SmallTree], bool] | None = None) -> list[Symbol]:
        """`ask` of every tree, in order; a small tree only where `has` says it may answer."""
        found: list[Symbol] = []
        for index, part in enumerate(self.parts):
            if has is None or (small := self._small_tree(index)) is None or has(small):
                found.extend(self._symbols(index, getattr(part.store, ask)(*args), found))
        return found

    def _answering(self) -> Iterator[TreeIndex]:
        """The trees whose rows other than definitions count (operators, dispatch, calls)."""
        return (part for part in self.parts if not part.stubs_only)

    def _each_entries(self, ask: str, *args: object) -> list[DispatchEntry]:
        return [entry for part in self._answering() for entry in getattr(part.store, ask)(*args)]

    def _hides_file(self, index: int, path: str) -> bool:
        hidden = self.parts[index].hidden
        if not hidden or not path.endswith((".py", ".pyi")):
            return False
        local = path[len(self._prefixes[index] or "") :]
        return local.split("/", 1)[0].removesuffix(".py") in hidden

    # -- what the trees say -------------------------------------------------------------------

    def symbols_named(self, lname: str) -> list[Symbol]:
        return self._each_symbols("symbols_named", lname)

    def symbols_with_qname(self, qname: str) -> list[Symbol]:
        found = self._by_qname.get(qname)
        if found is None:
            found = self._by_qname[qname] = self._each_symbols(
                "symbols_with_qname", qname, has=lambda tree: tree.may_define(qname)
            )
        return list(found)

    def symbols_with_qnames(self, qnames: list[str]) -> dict[str, list[Symbol]]:
        missing = [qname for qname in dict.fromkeys(qnames) if qname not in self._by_qname]
        if missing:
            found: dict[str, list[Symbol]] = {qname: [] for qname in missing}
            for index, part in enumerate(self.parts):
                small = self._small_tree(index)
                asked = [qname for qname in missing if small is None or small.may_define(qname)]
                if asked:
                    for qname, symbols in part.store.symbols_with_qnames(asked).items():
                        found[qname].extend(self._symbols(index, symbols, found[qname]))
            self._by_qname.update(found)
        return {qname: list(self._by_qname[qname]) for qname in qnames}

    def symbols_named_any(self, lnames: list[str]) -> list[Symbol]:
        return self._each_symbols("symbols_named_any", lnames)

    def names_with_prefix(self, prefix: str, limit: int) -> list[str]:
        return self._merged_names((part.store.names_with_prefix(prefix, limit) for part in self._answering()), limit)

    def names_matching_glob(self, pattern: str, limit: int) -> list[str]:
        return self._merged_names((part.store.names_matching_glob(pattern, limit) for part in self._answering()), limit)

    @staticmethod
    def _merged_names(lists: Iterable[list[str]], limit: int) -> list[str]:
        names = {name for names in lists for name in names}
        return sorted(names, key=lambda name: (len(name), name.lower(), name))[:limit]

    def import_bindings(self, module: str) -> list[ImportBinding]:
        top = module.split(".", 1)[0]
        return [
            binding
            for index, part in enumerate(self.parts)
            if top not in part.hidden
            and not part.stubs_only
            and ((small := self._small_tree(index)) is None or small.may_define(module))
            for binding in part.store.import_bindings(module)
        ]

    def usings_in(self, path: str) -> list[ImportBinding]:
        # asked by path: the tree holding the file answers, with its path within that tree
        routed = self._route(path)
        return [] if routed is None else self.parts[routed[0]].store.usings_in(routed[1])

    def import_alias_targets(self, name: str) -> list[tuple[str, int]]:
        found = self._alias_targets.get(name)  # a trace asks of the same names again and again
        if found is None:
            uses: dict[str, int] = {}
            for part in self._answering():
                for target, count in part.store.import_alias_targets(name):
                    uses[target] = uses.get(target, 0) + count
            found = self._alias_targets[name] = sorted(uses.items(), key=lambda item: (-item[1], item[0]))
        return list(found)

    def dispatch_of(self, operator: str) -> list[DispatchEntry]:
        # native_functions.yaml's rows first, as one tree orders them
        found = self._each_entries("dispatch_of", operator)
        return sorted(found, key=lambda entry: not (entry.path or "").endswith(".yaml"))

    def registered_kernels(self, qnames: list[str]) -> set[str]:
        return {kernel for part in self._answering() for kernel in part.store.registered_kernels(qnames)}

    def operators_with_kernel(self, kernel: str) -> list[DispatchEntry]:
        return sorted(self._each_entries("operators_with_kernel", kernel), key=lambda entry: entry.operator)

    def registrations_naming(self, name: str) -> list[DispatchEntry]:
        return sorted(self._each_entries("registrations_naming", name), key=lambda entry: entry.operator)

    def operators_delegating_to(self, operator: str) -> list[str]:
        return sorted({name for part in self._answering() for name in part.store.operators_delegating_to(operator)})

    def aliases_ending_in(self, name: str) -> list[Symbol]:
        return self._each_symbols("aliases_ending_in", name)

    def python_scopes(self) -> list[Symbol]:
        return self._each_symbols("python_scopes")

    def symbols_in_module(self, module: str, kind: SymbolKind) -> list[Symbol]:
        return self._each_symbols("symbols_in_module", module, kind)

    def symbols_in_class(self, class_qname: str) -> list[Symbol]:
        return self._each_symbols("symbols_in_class", class_qname)

    def operator_info(self, operator: str) -> OperatorInfo | None:
        for index, part in enumerate(self.parts):
            small = self._small_tree(index)
            if (
                not part.stubs_only
                and (small is None or small.may_define(operator))
                and (info := part.store.operator_info(operator)) is not None
            ):
                return info
        return None

    def derivatives_of(self, operator: str) -> list[tuple[str, DerivativeEntry]]:
        return [found for part in self._answering() for found in part.store.derivatives_of(operator)]

    def operators_named(self, base: str) -> list[Symbol]:
        key = f"operators {base}"  # (no qname has a space)
        found = self._by_qname.get(key)
        if found is None:
            found = self._by_qname[key] = self._each_symbols(
                "operators_named", base, has=lambda tree: base.lower() in tree.operator_lnames
            )
        return list(found)

    def operator_names(self) -> list[str]:
        return sorted({name for part in self._answering() for name in part.store.operator_names()})

    def call_sites_of(self, name: str) -> list[tuple[str, CallSite]]:
        return [
            (path, site)
            for index, part in enumerate(self.parts)
            if not part.stubs_only
            for path, site in part.store.call_sites_of(name)
            if not self._hides_file(index, path)
        ]

    def calls_in(self, caller: str, path: str, lines: tuple[int, int] | None = None) -> list[CallSite]:
        routed = self._route(path)
        return [] if routed is None else self.parts[routed[0]].store.calls_in(caller, routed[1], lines)

    def calls_in_file(self, path: str) -> dict[str, list[CallSite]]:
        routed = self._route(path)
        return {} if routed is None else self.parts[routed[0]].store.calls_in_file(routed[1])

    def python_flow(self, path: str) -> str | None:
        routed = self._route(path)
        return None if routed is None else self.parts[routed[0]].store.python_flow(routed[1])

    def extension_modules(self) -> list[Symbol]:
        return self._each_symbols("extension_modules")

    def symbols_of_kind_named(self, kind: SymbolKind, name: str) -> list[Symbol]:
        # asked of the trees that hold that kind at all: an installed package has no pybind11
        # bindings, and a trace asks for those of every dotted call it resolves
        found: list[Symbol] = []
        for index, part in enumerate(self.parts):
            small = self._small_tree(index)
            if small is None or kind.value in small.kinds:
                found.extend(self._symbols(index, part.store.symbols_of_kind_named(kind, name), found))
        return found

    def symbols_targeting(self, target: str) -> list[Symbol]:
        return self._each_symbols("symbols_targeting", target)

    def project_files(self) -> list[str]:
        """The project's files: the other trees are joined to it, not part of it."""
        return self.parts[0].store.project_files()

    def symbols_in_file(self, path: str) -> list[Symbol]:
        routed = self._route(path)
        return (
            [] if routed is None else self._symbols(routed[0], self.parts[routed[0]].store.symbols_in_file(routed[1]))
        )

    def tree_relative(self, path: str) -> str:
        routed = self._route(path)
        return path if routed is None else routed[1]

    def compiled_only(self, path: str, dispatch_key: str | None = None) -> str | None:
        routed = self._route(path)
        if routed is None or self.parts[routed[0]].tree.kind is not TreeKind.INSTALLED:
            return None
        tree = self.parts[routed[0]].tree
        if dispatch_key is not None and "CUDA" in dispatch_key and not _has_cuda_library(tree):
            # a CPU build (torch 2.13.0+cpu) registers CUDA kernels in its YAML and ships none
            return f"not in {tree.name}: a build without CUDA (no lib/libtorch_cuda) has no CUDA kernels"
        return (
            f"compiled into {tree.name}, installed without its C++ sources: "
            "add a source checkout with --tree PATH to follow it"
        )


def _has_cuda_library(tree: Tree) -> bool:
    """Whether an installed distribution ships CUDA kernels: PyTorch's CUDA builds put them in
    lib/libtorch_cuda*.so (or .dll) beside libtorch_cpu; a CPU build has none."""
    for package in tree.only:
        library = os.path.join(tree.root, package, "lib")
        try:
            if any(name.startswith(("libtorch_cuda", "torch_cuda")) for name in os.listdir(library)):
                return True
        except OSError:
            continue
    return False
