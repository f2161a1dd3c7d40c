"""Python names of what extensions register: pybind11 bindings and dispatcher operators.

A pybind11 module is written `PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)` (or with a literal
name); which Python module it becomes, the build says: `CUDAExtension("pkg._C", sources=[...])`
in setup.py, `cpp_extension.load(name="ext", sources=[...])`. Those declarations are read from
the index (parsers/python.py), never run. A binding file belongs to the extensions that list
it among their sources; where none lists it (sources computed by a glob), to the extension
declared in the nearest folder above it whose package folder holds the file (`detectron2._C`
for `detectron2/layers/csrc/vision.cpp`); where nothing declares one, the module is named
after the file (`vision`), and the name says it was derived.

`torch.ops.ns.op(...)` calls the operator `ns::op` a TORCH_LIBRARY block (or
RegisterOperators, or native_functions.yaml for `aten`) defines: every overload of it, or the
one named (`torch.ops.ns.op.overload`, `.default` for the one without an overload name).
"""

from __future__ import annotations

import dataclasses
import re
import weakref
from dataclasses import dataclass

from explorer.index import IndexReader
from explorer.model import Symbol, SymbolKind

# one view per open reader, dropped with it
_BY_READER: weakref.WeakKeyDictionary[IndexReader, ExtensionModules] = weakref.WeakKeyDictionary()
_TORCH_OPS = re.compile(r"torch\.ops\.(\w+)\.(\w+)(?:\.(\w+))?")
DERIVED = "derived from the file name: no build declaration names this module"


def registered_operators(reader: IndexReader, dotted: str) -> list[Symbol] | None:
    """The operators `torch.ops.ns.op[.overload]` names, or None when `dotted` is no such name."""
    match = _TORCH_OPS.fullmatch(dotted)
    if match is None:
        return None
    namespace, name, overload = match.groups()
    base = f"{namespace}::{name}"
    operators = [
        s for s in reader.operators_named(name) if s.kind is SymbolKind.OPERATOR and s.qname.partition(".")[0] == base
    ]
    if overload is not None:
        wanted = base if overload == "default" else f"{base}.{overload}"
        operators = [s for s in operators if s.qname == wanted]
    # an operator registered twice is one operator (its dispatch table then has two kernels
    # for a key, which resolve/native_edges.py shows as ambiguous): its first registration
    first: dict[str, Symbol] = {}
    for operator in sorted(operators, key=lambda s: (s.qname != base, s.qname, s.path or "", s.line or 0)):
        first.setdefault(operator.qname, operator)
    return list(first.values())


@dataclass(frozen=True, slots=True)
class ModuleName:
    dotted: str
    derived: bool  # named after the file: nothing in the tree declares the extension


def extension_modules(reader: IndexReader) -> ExtensionModules:
    """The extensions of the trees a reader spans, one view per reader: name lookup, search and
    the call graph share what it has read, for as long as the reader is open."""
    found = _BY_READER.get(reader)
    if found is None:
        found = _BY_READER[reader] = ExtensionModules(reader)
    return found


class ExtensionModules:
    def __init__(self, reader: IndexReader) -> None:
        self.store = reader
        self._declared: list[Symbol] | None = None
        self._bindings: dict[str, list[Symbol]] = {}  # every dotted call a trace resolves asks
        self._extensions: dict[str, list[Symbol]] = {}  # by path: the bindings of one file ask for the same

    def python_bindings(self, dotted: str) -> list[Symbol]:
        """The pybind11 bindings whose Python name is `dotted` (`detectron2._C.nms`), named so."""
        found = self._bindings.get(dotted)
        if found is None:
            name = dotted.rpartition(".")[2]
            bindings = self.store.symbols_of_kind_named(SymbolKind.PYBIND, name) if "." in dotted else []
            found = self._bindings[dotted] = [
                named for binding in bindings for named in self.python_names(binding) if named.qname == dotted
            ]
        return found

    def python_names(self, binding: Symbol) -> list[Symbol]:
        """A pybind11 binding (indexed as `TORCH_EXTENSION_NAME.f`) under each Python name it has."""
        written_module = binding.qname[: -len(binding.name) - 1]
        named = []
        for candidate in self.module_names(binding.path or "", written_module):
            note = f"  [module name {DERIVED}]" if candidate.derived else ""
            named.append(
                dataclasses.replace(
                    binding, qname=f"{candidate.dotted}.{binding.name}", signature=binding.signature + note
                )
            )
        return named

    def module_names(self, path: str, written: str) -> list[ModuleName]:
        """What the module written `written` in PYBIND11_MODULE (plus `.sub` for a submodule)
        of file `path` is called from Python."""
        head, dot, rest = written.partition(".")
        suffix = dot + rest
        declared = self._extensions_of(path)
        if head != "TORCH_EXTENSION_NAME":
            # a literal name: the extension of that last name, else a top-level module
            named = [ModuleName(e.qname + suffix, False) for e in declared if e.name == head]
            return named or [ModuleName(written, False)]
        if declared:
            return [ModuleName(e.qname + suffix, False) for e in declared]
        stem = path.rpartition("/")[2].rpartition(".")[0]
        return [ModuleName(stem + suffix, True)]

    def _extensions_of(self, path: str) -> list[Symbol]:
        """The declarations of the tree that holds `path` that build it, compared by paths
        within that tree (the sources a setup.py lists are relative to its tree's root)."""
        found = self._extensions.get(path)
        if found is None:
            found = self._extensions[path] = self._extensions_building(path)
        return found

    def _extensions_building(self, path: str) -> list[Symbol]:
        if self._declared is None:
            self._declared = self.store.extension_modules()
        local = self.store.tree_relative(path)
        tree = path[: len(path) - len(local)]
        declared = [
            (e, self.store.tree_relative(e.path or ""))
            for e in self._declared
            if (e.path or "")[: len(e.path or "") - len(self.store.tree_relative(e.path or ""))] == tree
        ]
        listing = [e for e, _ in declared if local in (e.target or "").split(";")]
        if listing:
            return listing
        # sources the build computes: the declaration whose package folder holds the file
        held = [(e, _package_folder(e, where)) for e, where in declared if local.startswith(_package_folder(e, where))]
        if not held:
            return []
        nearest = max(len(folder) for _, folder in held)
        return [e for e, folder in held if len(folder) == nearest]


def _package_folder(extension: Symbol, where: str) -> str:
    """`detectron2._C` declared in `setup.py` (`where`, within its tree) -> `detectron2/`;
    in `sub/setup.py` -> `sub/detectron2/`."""
    folder = where.rpartition("/")[0]
    package = extension.qname.rpartition(".")[0].replace(".", "/")
    joined = "/".join(part for part in (folder, package) if part)
    return f"{joined}/" if joined else ""
