"""How much of each kind of door out of Python explorer resolves, over a whole PyTorch tree.

    python benchmarks/census.py ROOT [--section bindings|launches|generated|unresolved]
                                     [--list] [--sample N] [--json]

ROOT defaults to $EXPLORER_REAL_TORCH. Its index is opened and brought up to date as the CLI
does it (`--python-env none`: no installed package joins; $EXPLORER_TREES is ignored), then
every figure asks explorer's query layer, CallGraph(store, root, backend="all"), what a trace
would follow: nothing here resolves a name itself. Nothing under third_party/ is counted.

1. bindings: the names PyTorch's own stubs declare for torch._C. The stubs are
   torch/_C/__init__.pyi.in (module torch._C) and every other torch/_C/**/*.pyi and *.pyi.in
   (`_distributed_c10d.pyi` is torch._C._distributed_c10d, `_dynamo/guards.pyi` is
   torch._C._dynamo.guards, a package's `__init__.pyi` is the package), less the generated
   operator stubs _VariableFunctions, _nn and return_types (.pyi.in, or .pyi in a built
   tree). Each is read with Python's `ast`, a line holding a `${...}` placeholder read as
   `pass`. Its names: the top-level `def`s and `class`es, and the `def`s inside each class,
   nested classes included (torch._C._distributed_c10d.ProcessGroup.Options), inside `if`
   blocks too; assignments and annotations are not names; an `@overload`ed name counts once.
   A function or method RESOLVES when the index holds a binding for its qualified name (a
   symbol of kind pybind or method_table, stored under that name or found for it as `show`
   finds names) whose graph edges, followed through at most two hops of binding-layer nodes,
   reach a C++/CUDA symbol with a location: a definition in the tree (a function, or the
   data member a def_readwrite names), not a name the tree does not define; or a vendor
   library's API the binding names itself (nvtx.def("rangePushA", nvtxRangePushA): the chain
   ends there, as a C++ call of it would; counted apart in a note). A class resolves when the class is bound from C++ (a py::class_,
   py::enum_ or PyTypeObject: a bound_class symbol) and the C++ type it binds is defined in
   the tree (looked up from the namespace it is written in), or else when its `__init__` or
   any method its stub declares resolves. Reasons given for the
   others: no binding; a binding of the same name stored under another qualified name (a
   function's last name, or a method's `Class.name`: torch.Stream.query for
   torch._C.Stream.query); a binding whose target the tree does not define, or a lambda; a
   class none of whose methods resolves; bound nowhere in the tree (no binding, and no C/C++
   string literal outside third_party spells the name: a stale stub entry, such as
   get_num_thread). A note gives the figure over the names the tree does bind.
2. launches: every `kernel<<<...>>>(...)` site (call rows of kind launch). One resolves when
   its edges include a `__global__` kernel (symbol kind kernel) with a location.
3. generated: C++/CUDA call sites, outside test folders (a `test` or `tests` folder in the
   path), whose callee is a name torchgen generates for an operator of
   native_functions.yaml, X being an aten operator's base name in the index: at::X,
   at::X_symint, at::X_out, at::X_outf, at::_ops::X_overload::call and ::redispatch,
   at::{cpu,cuda,meta,compositeexplicitautograd,compositeexplicitautogradnonfunctional,
   compositeimplicitautograd}::X (and their _symint, _out and _outf forms), torch::X
   (torch's factory functions, and the rest of at:: through `using namespace at`), and an
   unqualified X, X_symint, X_out or X_outf written in a definition inside namespace `at`
   where no enclosing scope inside `at` (its class, at::native, ...) defines a function of
   that name. A site resolves when its edges include an operator node of that base name.
4. unresolved: C++/CUDA call sites (launches included) that get no edge at all, by category,
   largest first: what the callee looks like (a method call, a qualified name, a keyword,
   an intrinsic) and what the index holds under its name (a macro, a type, a function the
   lookup missed, nothing). Every call site, or those of --sample N callers evenly spaced
   in (file, caller) order.

A site's edges are those CallGraph.edges gives its caller, kept per site: CallGraph.edges
keeps one edge per target, at its first call's line, so each site's edges are asked of the
graph's C++ layer (graph.native.call_targets) and kept where CallGraph.edges has the same
edge (a definition whose calls the graph does not walk gets none). A call row no definition
holds (a lambda or a macro at namespace scope) has no node, hence no edge. Each section
prints its wall-clock and CPU seconds; sections share one graph (and its caches) in the
order run. This script asserts nothing.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import json
import os
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from explorer.cli.common import open_trees
from explorer.errors import ExplorerError
from explorer.index.store import IndexStore, last_name
from explorer.model import CallEdge, CallKind, CallSite, Language, Layer, Symbol, SymbolKind
from explorer.names.lookup import find
from explorer.resolve.graph import CallGraph
from explorer.resolve.nodes import definition_lines, registered_functions
from explorer.workspace import TREES_VARIABLE, TreeRequest

SECTIONS = ("bindings", "launches", "generated", "unresolved")
_VENDORED = "third_party/"
_TEST_FOLDERS = frozenset({"test", "tests"})
_BINDING_KINDS = frozenset({SymbolKind.PYBIND, SymbolKind.METHOD_TABLE})
_NATIVE = frozenset({Language.CPP, Language.CUDA})
_SHOWN = 30  # unresolved entries listed without --list
_AT_FILE_LEVEL = "call in no definition (namespace scope: a registration macro, a lambda, a global's initialiser)"


# -- records ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StubName:
    qname: str  # torch._C._distributed_c10d.ProcessGroup.Options
    module: str  # torch._C._distributed_c10d
    kind: str  # function, method, class
    path: str  # the stub, relative to the root
    line: int


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether one name, launch or call site resolves; if not, why (a category and details)."""

    resolved: bool
    reason: str = ""  # a category, for counting: "no binding in the index"
    detail: str = ""  # what was found: "torch.Stream.query (torch/csrc/Stream.cpp:323)"


@dataclass(frozen=True, slots=True)
class BindingResult:
    name: StubName
    verdict: Verdict


@dataclass(frozen=True, slots=True)
class SiteResult:
    """A C++/CUDA call site and what the graph makes of it."""

    path: str
    line: int
    caller: str
    callee: str  # as written
    form: str  # launches: "launch"; generated: "at::X", ...; unresolved: ""
    verdict: Verdict
    in_tests: bool = False


@dataclass(slots=True)
class Section:
    name: str
    total: int = 0
    resolved: int = 0
    seconds: float = 0.0  # wall clock
    cpu_seconds: float = 0.0  # this process's, which other work on the machine does not inflate
    results: list = field(default_factory=list)  # BindingResult or SiteResult, in file order
    notes: list[str] = field(default_factory=list)  # what the figure covers (a sample, ...)
    keep_resolved: bool = True  # False: only the unresolved are kept (a million sites)

    def add(self, result: BindingResult | SiteResult) -> None:
        self.resolved += result.verdict.resolved
        if self.keep_resolved or not result.verdict.resolved:
            self.results.append(result)


class CallRow(NamedTuple):
    """A row of the index's calls table, as the sections select them."""

    path: str
    caller: str
    callee: str
    line: int
    column: int
    kind: str


class SiteAnswer(NamedTuple):
    site: CallSite
    edges: list[CallEdge]


# -- 1. bindings -----------------------------------------------------------------------------

_GENERATED_STUBS = frozenset({"_VariableFunctions", "_nn", "return_types"})  # with .pyi.in or, built, .pyi
_PLACEHOLDER = re.compile(r"\$\{\w+\}")
_EXTENSION_MODULE = "TORCH_EXTENSION_NAME."  # a cpp_extension's module, built under the name it is given


def stub_names(root: Path) -> list[StubName]:
    """Every name torch/_C's hand-written stubs declare, sorted (see the module docstring)."""
    folder = root / "torch" / "_C"
    names: dict[str, StubName] = {}
    stubs = sorted(p for p in folder.rglob("*") if p.is_file() and p.name.endswith((".pyi", ".pyi.in")))
    for path in stubs:
        parts = path.relative_to(folder).as_posix().removesuffix(".in").removesuffix(".pyi").split("/")
        if len(parts) == 1 and parts[0] in _GENERATED_STUBS:
            continue
        if parts[-1] == "__init__":
            parts.pop()
        module = ".".join(["torch", "_C", *parts])
        relative = path.relative_to(root).as_posix()
        for qname, kind, line in _declared(_read_stub(path), module):
            names.setdefault(qname, StubName(qname, module, kind, relative, line))  # an @overload counts once
    return sorted(names.values(), key=lambda n: n.qname)


def _read_stub(path: Path) -> ast.Module:
    lines = []
    for text in path.read_text(encoding="utf-8").splitlines():
        if _PLACEHOLDER.search(text):  # `    ${tensor_method_hints}`: keep the block's indentation
            text = text[: len(text) - len(text.lstrip())] + "pass"
        lines.append(text)
    return ast.parse("\n".join(lines), filename=str(path))


def _declared(tree: ast.Module, module: str) -> Iterator[tuple[str, str, int]]:
    def walk(body: list[ast.stmt], prefix: str, in_class: bool) -> Iterator[tuple[str, str, int]]:
        for statement in body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield f"{prefix}.{statement.name}", "method" if in_class else "function", statement.lineno
            elif isinstance(statement, ast.ClassDef):
                qname = f"{prefix}.{statement.name}"
                yield qname, "class", statement.lineno
                yield from walk(statement.body, qname, True)
            elif isinstance(statement, ast.If):  # `if sys.version_info >= ...:`
                yield from walk(statement.body, prefix, in_class)
                yield from walk(statement.orelse, prefix, in_class)

    yield from walk(tree.body, module, False)


def binding_coverage(store: IndexStore, graph: CallGraph, root: Path) -> Section:
    names = stub_names(root)
    section = Section("bindings", total=len(names))
    spelled = _string_literals(root)
    verdicts = {n.qname: _binding_verdict(store, graph, n.qname, n.kind) for n in names if n.kind != "class"}
    owners = {n.qname for n in names if n.kind == "class"}
    methods: dict[str, list[str]] = defaultdict(list)
    for name in names:
        if name.kind == "method":
            methods[name.qname.rpartition(".")[0]].append(name.qname)
    for name in names:
        if name.kind == "class":
            verdicts[name.qname] = _class_verdict(store, graph, name.qname, methods[name.qname], verdicts)
        verdict = verdicts[name.qname]
        if verdict.reason in ("no binding in the index", "class with no methods in its stub and no binding of its own"):
            unspelled = _unspelled(name.qname, owners, spelled)
            if unspelled:
                verdict = Verdict(False, _BOUND_NOWHERE, f"no C/C++ string literal of the tree spells {unspelled!r}")
        section.add(BindingResult(name, verdict))
    nowhere = sum(1 for result in section.results if result.verdict.reason == _BOUND_NOWHERE)
    vendor = sum(1 for result in section.results if result.verdict.resolved and _VENDOR_MARK in result.verdict.detail)
    bound = section.total - nowhere
    section.notes.append(f"{vendor} of those resolved end at a vendor library's API (a binding of nvtxRangePushA)")
    section.notes.append(
        f"{nowhere} stub names are bound nowhere in the tree (stale stub entries); of the {bound:,} "
        f"the tree binds, {section.resolved:,} resolve ({100 * section.resolved / max(bound, 1):.1f}%)"
    )
    return section


_BOUND_NOWHERE = "bound nowhere in the tree"
_VENDOR_MARK = "a vendor API"
_C_SOURCES = (".c", ".cc", ".cpp", ".cxx", ".cu", ".h", ".hpp", ".cuh", ".mm")
_NAME_LITERAL = re.compile(rb'"([A-Za-z_][A-Za-z0-9_]*)"')


def _unspelled(qname: str, classes: set[str], spelled: set[str]) -> str | None:
    """The part of a stub name no string literal spells: its own last name, or the name of a
    class of the stub it is a member of (torch._C.JitType.kind: C++ binds that class as Type)."""
    parts = qname.split(".")
    for end in range(len(parts), 2, -1):
        prefix = ".".join(parts[:end])
        if (end == len(parts) or prefix in classes) and parts[end - 1] not in spelled:
            return parts[end - 1]
    return None


def _string_literals(root: Path) -> set[str]:
    """Every name a C/C++ string literal of the tree spells (third_party aside): a stub name
    none spells is bound nowhere, whatever explorer does."""
    spelled: set[str] = set()
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [d for d in subfolders if d not in ("third_party", ".git", "build")]
        for file in files:
            if file.endswith(_C_SOURCES):
                try:
                    text = (Path(folder) / file).read_bytes()
                except OSError:
                    continue
                spelled.update(m.decode() for m in _NAME_LITERAL.findall(text))
    return spelled


def _bindings_of(store: IndexStore, qname: str) -> list[Symbol]:
    """The binding symbols a stub's name means: stored under it, or what `show` finds for it."""
    found = {(s.path, s.line, s.qname): s for s in store.symbols_with_qname(qname) if s.kind in _BINDING_KINDS}
    try:
        resolution = find(store, qname)
    except ExplorerError:
        resolution = None
    for symbol in resolution.symbols if resolution is not None else []:
        if symbol.kind in _BINDING_KINDS:
            found.setdefault((symbol.path, symbol.line, symbol.qname), symbol)
    return [found[key] for key in sorted(found, key=lambda k: (k[0] or "", k[1] or 0, k[2]))]


def _bound_elsewhere(store: IndexStore, qname: str, kind: str) -> list[Symbol]:
    """Bindings (outside tests and cpp_extensions) that may be this name stored under another
    qualified name: for a function, any of its last name; for a method `C.m`, one of `C.m`
    in another module (torch.Stream.query for torch._C.Stream.query)."""
    owner, _, name = qname.rpartition(".")
    found = []
    for symbol in store.symbols_named(name.lower()):
        if symbol.kind not in _BINDING_KINDS or symbol.name != name or symbol.qname == qname:
            continue
        if _in_tests(symbol.path or "") or symbol.qname.startswith(_EXTENSION_MODULE):
            continue
        if kind == "function" or symbol.qname.rpartition(".")[0].rpartition(".")[2] == owner.rpartition(".")[2]:
            found.append(symbol)
    return found


def _binding_verdict(store: IndexStore, graph: CallGraph, qname: str, kind: str) -> Verdict:
    bindings = _bindings_of(store, qname)
    if not bindings:
        elsewhere = _bound_elsewhere(store, qname, kind)
        if elsewhere:
            shown = ", ".join(f"{s.qname} ({_where(s)})" for s in elsewhere[:2])
            more = f" and {len(elsewhere) - 2} more" if len(elsewhere) > 2 else ""
            return Verdict(False, "binding of that name under another qualified name", shown + more)
        return Verdict(False, "no binding in the index")
    reached: list[Symbol] = []
    for binding in bindings:
        reached += _reached_through_bindings(graph, binding)
    defined = [s for s in reached if s.lang in _NATIVE and s.path is not None]
    if defined:
        return Verdict(True, detail=f"{_where(bindings[0])} -> {defined[0].qname} ({_where(defined[0])})")
    vendor = [s for s in reached if s.kind is SymbolKind.EXTERNAL]
    if vendor:  # bound straight to a library's function: the chain ends there, as a C++ call of it would
        return Verdict(
            True, detail=f"{_where(bindings[0])} -> {vendor[0].qname} ({vendor[0].signature}: {_VENDOR_MARK})"
        )
    binding = bindings[0]
    if (binding.target or "").startswith("<lambda"):
        return Verdict(False, "binding to a lambda, which the graph does not enter", f"{_where(binding)}")
    undefined = [s for s in reached if s.path is None]
    if undefined:
        return Verdict(
            False,
            "binding found but its target is not defined in the tree",
            f"{undefined[0].qname} ({_where(binding)})",
        )
    if not reached:
        return Verdict(False, "binding found but it has no edge", f"target {binding.target!r} ({_where(binding)})")
    return Verdict(
        False,
        "binding found but it reaches no C++ definition",
        f"{reached[0].kind} {reached[0].qname} ({_where(binding)})",
    )


def _reached_through_bindings(graph: CallGraph, binding: Symbol, hops: int = 2) -> list[Symbol]:
    """What a binding's edges reach, through up to `hops` binding-layer nodes."""
    reached: list[Symbol] = []
    frontier = [graph.node(binding)]
    for _ in range(hops):
        onward = []
        for node in frontier:
            for edge in graph.edges(node):
                reached.append(edge.target.symbol)
                if edge.target.layer is Layer.BINDING:
                    onward.append(edge.target)
        frontier = onward
    return reached


_TYPE_KINDS = frozenset({SymbolKind.STRUCT, SymbolKind.CLASS, SymbolKind.ENUM})


def _bound_class_verdict(store: IndexStore, qname: str) -> Verdict | None:
    """A class bound from C++ (a py::class_, py::enum_ or type object: a bound_class symbol)
    resolves when the C++ type it binds is defined in the tree, looked up as C++ does from the
    namespace it is written in (`PyTorchStreamWriter` in torch::jit, then torch, then global)."""
    bound = [s for s in store.symbols_with_qname(qname) if s.kind is SymbolKind.BOUND_CLASS]
    if not bound:  # what `show` finds for it: bound in another module (torch._C.Def, bound in _jit_tree_views)
        try:
            resolution = find(store, qname)
        except ExplorerError:
            resolution = None
        bound = [s for s in (resolution.symbols if resolution is not None else []) if s.kind is SymbolKind.BOUND_CLASS]
    if not bound:
        return None
    for binding in bound:
        types = [
            s
            for s in registered_functions(store, binding.target or "", binding.path, _TYPE_KINDS)
            if s.path is not None
        ]
        if types:
            return Verdict(True, detail=f"{_where(binding)} -> {types[0].qname} ({_where(types[0])})")
    return Verdict(
        False, "bound class whose C++ type is not defined in the tree", f"{bound[0].target} ({_where(bound[0])})"
    )


def _class_verdict(
    store: IndexStore, graph: CallGraph, qname: str, methods: list[str], verdicts: dict[str, Verdict]
) -> Verdict:
    own = _bound_class_verdict(store, qname) or _binding_verdict(store, graph, qname, "class")
    if own.resolved:
        return own
    for method in sorted(methods, key=lambda m: (not m.endswith(".__init__"), m)):
        if verdicts[method].resolved:
            return Verdict(True, detail=f"through {method.rpartition('.')[2]}: {verdicts[method].detail}")
    if not methods:
        return (
            own
            if own.reason.startswith("bound class")
            else Verdict(False, "class with no methods in its stub and no binding of its own")
        )
    return Verdict(False, "class none of whose methods resolves", f"{len(methods)} methods in the stub")


# -- 2. launches -----------------------------------------------------------------------------


def launch_coverage(store: IndexStore, graph: CallGraph) -> Section:
    rows = call_rows(store, (CallKind.LAUNCH,))
    sites = site_edges(store, graph, rows)
    section = Section("launches", total=len(rows))
    for row in rows:
        edges = _edges(sites, row)
        if edges is None:
            verdict = Verdict(False, _AT_FILE_LEVEL, f"caller {row.caller}")
        elif any(e.target.symbol.kind is SymbolKind.KERNEL and e.target.symbol.path for e in edges):
            verdict = Verdict(True)
        else:
            verdict = _launch_failure(store, row.callee, edges)
        section.add(SiteResult(row.path, row.line, row.caller, row.callee, "launch", verdict, _in_tests(row.path)))
    return section


def _launch_failure(store: IndexStore, callee: str, edges: list[CallEdge]) -> Verdict:
    if edges:
        return Verdict(
            False, "launch reaches no __global__ kernel", ", ".join(sorted({e.target.symbol.qname for e in edges}))
        )
    if callee != callee.rstrip(" \\"):
        return Verdict(False, "callee recorded with a macro's line continuation", repr(callee))
    name = last_name(callee)
    if not name.isidentifier():
        return Verdict(False, "launched name is not a name", repr(callee))
    named = [s for s in store.symbols_named(name.lower()) if s.name == name]
    kernels = [s for s in named if s.kind is SymbolKind.KERNEL]
    if kernels:
        return Verdict(
            False,
            "a kernel of that name exists but the caller does not see it",
            f"{kernels[0].qname} ({_where(kernels[0])})",
        )
    if named:
        return Verdict(
            False,
            "the launched name is not a __global__ kernel",
            "defined as " + ", ".join(sorted({str(s.kind) for s in named})),
        )
    return Verdict(False, "no definition of that name in the index (a local, a parameter, or a kernel the parser lost)")


# -- 3. generated operator API ---------------------------------------------------------------

_BACKEND_NAMESPACES = (
    "cpu",
    "cuda",
    "meta",
    "compositeexplicitautograd",
    "compositeexplicitautogradnonfunctional",
    "compositeimplicitautograd",
)
_OPS_CALL = re.compile(r"at::_ops::(\w+)::(call|redispatch)")
_NAMESPACED = re.compile(rf"at::({'|'.join(_BACKEND_NAMESPACES)})::(\w+)")
_AT_NAME = re.compile(r"(at|torch)::(\w+)")
_SUFFIXES = ("", "_symint", "_out", "_outf", "_symint_out", "_symint_outf")


@dataclass(frozen=True, slots=True)
class OperatorNames:
    bases: frozenset[str]  # add, add_, conv2d
    ops_structs: dict[str, str]  # at::_ops struct name -> base: add_Tensor -> add, add -> add

    @classmethod
    def of(cls, store: IndexStore) -> OperatorNames:
        bases, structs = set(), {}
        for qname in store.operator_names():
            namespace, _, rest = qname.partition("::")
            if namespace != "aten":
                continue
            base, _, overload = rest.partition(".")
            bases.add(base)
            structs[f"{base}_{overload}" if overload else base] = base
        return cls(frozenset(bases), structs)

    def split(self, name: str) -> tuple[str, str] | None:
        """`add_out` -> (add, _out); a base name itself first (`relu_` is an operator)."""
        for suffix in _SUFFIXES:
            if name.endswith(suffix) and (base := name[: len(name) - len(suffix)] if suffix else name) in self.bases:
                return base, suffix
        return None


def generated_form(
    callee: str, caller: str, operators: OperatorNames, defined_inside_at: Callable[[str, str], bool]
) -> tuple[str, str] | None:
    """(form, operator base name) when `callee`, written in `caller`, is a generated operator
    name; `defined_inside_at(caller, name)` says whether a scope inside `at` defines it."""
    written = callee.removeprefix("::")
    if match := _OPS_CALL.fullmatch(written):
        base = operators.ops_structs.get(match[1])
        return (f"at::_ops::X::{match[2]}", base) if base else None
    if match := _NAMESPACED.fullmatch(written):
        split = operators.split(match[2])
        return (f"at::{match[1]}::X{split[1]}", split[0]) if split else None
    if match := _AT_NAME.fullmatch(written):
        split = operators.split(match[2])
        return (f"{match[1]}::X{split[1]}", split[0]) if split else None
    if not caller.startswith("at::") or not callee.isidentifier():  # `::sin` is the global one
        return None
    split = operators.split(callee)
    if split is None or defined_inside_at(caller, callee):
        return None
    where = "at::native" if caller.startswith("at::native::") else "at"
    return f"X{split[1]} (unqualified, in {where})", split[0]


def generated_coverage(store: IndexStore, graph: CallGraph) -> Section:
    operators = OperatorNames.of(store)
    inside_at = _ScopeDefinitions(store)
    found: list[tuple[CallRow, str, str]] = []
    for row in call_rows(store, (CallKind.CALL,)):
        if not _in_tests(row.path):
            generated = generated_form(row.callee, row.caller, operators, inside_at.defines)
            if generated is not None:
                found.append((row, *generated))
    sites = site_edges(store, graph, [row for row, _, _ in found])
    section = Section("generated", total=len(found))
    for row, form, base in found:
        edges = _edges(sites, row)
        verdict = (
            Verdict(False, _AT_FILE_LEVEL, f"caller {row.caller}") if edges is None else _operator_verdict(base, edges)
        )
        section.add(SiteResult(row.path, row.line, row.caller, row.callee, form, verdict))
    return section


def _operator_verdict(base: str, edges: list[CallEdge]) -> Verdict:
    operators = [e.target.symbol.qname for e in edges if e.target.layer is Layer.YAML]
    if any(qname.partition("::")[2].partition(".")[0] == base for qname in operators):
        return Verdict(True)
    if operators:
        return Verdict(False, "reaches another operator", ", ".join(sorted(set(operators))[:3]))
    if edges:
        target = edges[0].target.symbol
        return Verdict(False, "reaches a C++ definition instead of the operator", f"{target.qname} ({_where(target)})")
    return Verdict(False, "no edge")


class _ScopeDefinitions:
    """Whether a function of a name is defined in a scope, inside namespace `at`, that encloses
    a caller: its class, at::native, ... (C++ finds it there before at::X)."""

    def __init__(self, store: IndexStore) -> None:
        self.store = store
        self._known: dict[tuple[str, str], bool] = {}

    def defines(self, caller: str, name: str) -> bool:
        scope = caller.rpartition("::")[0]
        key = (scope, name)
        if key not in self._known:
            parts = scope.split("::")
            scopes = ["::".join(parts[:end]) for end in range(len(parts), 1, -1)]  # never `at` itself
            found = self.store.symbols_with_qnames([f"{s}::{name}" for s in scopes])
            self._known[key] = any(s.kind in _CALLABLE for symbols in found.values() for s in symbols)
        return self._known[key]


_CALLABLE = frozenset({SymbolKind.FUNCTION, SymbolKind.METHOD, SymbolKind.KERNEL, SymbolKind.STRUCTURED_KERNEL})


# -- 4. unresolved call sites ----------------------------------------------------------------


def unresolved_census(store: IndexStore, graph: CallGraph, sample: int) -> Section:
    rows = call_rows(store)
    callers = sorted({(row.path, row.caller) for row in rows})
    if 0 < sample < len(callers):
        chosen = {callers[i * len(callers) // sample] for i in range(sample)}
        rows = [row for row in rows if (row.path, row.caller) in chosen]
        note = f"a sample: {sample:,} of {len(callers):,} callers (evenly spaced in file order), {len(rows):,} of their call sites"
    else:
        note = f"every caller: {len(callers):,} callers, {len(rows):,} call sites"
    sites = site_edges(store, graph, rows)
    classify = _Classifier(store, OperatorNames.of(store))
    section = Section("unresolved", total=len(rows), notes=[note], keep_resolved=False)
    for row in rows:
        answer = sites.get(row)
        verdict = Verdict(True) if answer is not None and answer.edges else classify(row, answer)
        section.add(SiteResult(row.path, row.line, row.caller, row.callee, "", verdict, _in_tests(row.path)))
    return section


# C++/CUDA names that are no function of the tree's: the language, the C library and the CUDA
# runtime's device functions. Told apart so that a gap of explorer's stands out.
_LANGUAGE = frozenset(
    [
        "sizeof",
        "alignof",
        "decltype",
        "static_cast",
        "reinterpret_cast",
        "const_cast",
        "dynamic_cast",
        "typeid",
        "noexcept",
        "static_assert",
    ]
)
_C_LIBRARY = frozenset(
    [
        "memcpy",
        "memset",
        "memmove",
        "memcmp",
        "strlen",
        "strcmp",
        "strncmp",
        "strcpy",
        "strncpy",
        "strchr",
        "strrchr",
        "strstr",
        "strtol",
        "strtoll",
        "strtoul",
        "strtoull",
        "strtod",
        "strtof",
        "snprintf",
        "sprintf",
        "printf",
        "fprintf",
        "vsnprintf",
        "puts",
        "fputs",
        "fopen",
        "fclose",
        "fread",
        "fwrite",
        "fflush",
        "fseek",
        "ftell",
        "malloc",
        "calloc",
        "realloc",
        "free",
        "abort",
        "exit",
        "getenv",
        "setenv",
        "atoi",
        "atol",
        "atof",
        "assert",
        "perror",
        "strerror",
        "open",
        "close",
        "read",
        "write",
        "mmap",
        "munmap",
        "ftruncate",
        "unlink",
        "stat",
        "fstat",
        "lseek",
        "getpid",
        "dlopen",
        "dlsym",
        "dlclose",
        "dlerror",
    ]
)
_CUDA_DEVICE = re.compile(
    r"__\w+|atomic\w+|tex\d?D\w*|min|max|fminf?|fmaxf?|rsqrtf?|expf?|exp2f?|expm1f?|logf?|log2f?|log1pf?|sqrtf?|powf?"
    r"|abs|fabsf?|floorf?|ceilf?|erff?|erfcf?|tanhf?|sinf?|cosf?|isnan|isinf|isfinite|nextafter|copysignf?|lgammaf?"
)
_SIMD_INTRINSIC = re.compile(
    r"_mm(256|512)?_\w+|_cvt\w+|v[a-z0-9_]+_(s|u|f|p|bf)\d+"
)  # x86 _mm256_add_ps, NEON vget_low_s16
_BUILTIN_TYPES = frozenset(
    ["int", "float", "double", "bool", "char", "long", "short", "unsigned", "signed", "size_t", "ptrdiff_t"]
)
_OUTSIDE_NAMESPACES = frozenset(
    {
        "std",
        "thrust",
        "cub",
        "__gnu_cxx",
        "cuda",
        "nvcuda",
        "sycl",
        "fmt",
        "google",
        "pybind11",
        "py",
        "gloo",
        "Eigen",
        "llvm",
        "dnnl",
        "ideep",
        "fbgemm",
        "qnnpack",
        "pytorch_qnnpack",
        "xnnpack",
        "cutlass",
        "cute",
        "flatbuffers",
        "onnx",
        "ONNX_NAMESPACE",
        "tensorpipe",
        "nlohmann",
        "kineto",
        "libkineto",
        "sleef",
        "asmjit",
        "miopen",
        "hip",
        "mkl",
    }
)
_TENSOR_CLASSES = ("::Tensor", "::TensorBase")


class _Classifier:
    """A category for a call site with no edge, from what the callee looks like and what the
    index holds under its name (the language, a library outside the tree, a macro, a method
    of a value whose type is unknown, a name the index defines but the lookup missed...)."""

    def __init__(self, store: IndexStore, operators: OperatorNames) -> None:
        self.store = store
        self.operators = operators
        self.inside_at = _ScopeDefinitions(store)
        self._defined: dict[str, list[Symbol]] = {}
        self._method_reasons: dict[str, str] = {}

    def __call__(self, row: CallRow, answer: SiteAnswer | None) -> Verdict:
        if answer is None:
            return Verdict(False, _AT_FILE_LEVEL, row.caller)
        callee, path = row.callee, row.path
        if answer.site.vendor is not None:
            return Verdict(False, f"vendor API with no vendor node ({answer.site.vendor})", callee)
        written = callee.removeprefix("::")
        name = last_name(written)
        if not name.isidentifier():
            return Verdict(False, "callee text is not a name (an expression, or the parser's recovery)", callee)
        form = generated_form(callee, row.caller, self.operators, self.inside_at.defines)
        if form is not None:
            return Verdict(False, f"generated operator API that does not resolve ({form[0]})", callee)
        defined = self._defined_as(name)
        if "." in written or "->" in written:
            return self._method(written, name, defined)
        namespace = written.split("::", 1)[0] if "::" in written else ""
        if namespace in _OUTSIDE_NAMESPACES:
            return Verdict(False, f"{namespace}:: (a library outside the tree)", callee)
        if any(s.kind is SymbolKind.MACRO for s in defined):
            return Verdict(False, "a macro the index knows (function-like #define)", callee)
        if re.fullmatch(r"_?[A-Z][A-Z0-9_]*", name):
            return Verdict(
                False, "UPPER_CASE name the index does not define (a macro from outside, a template parameter)", callee
            )
        if not namespace and name in _LANGUAGE:
            return Verdict(False, "a C++ keyword (static_cast, sizeof, ...)", callee)
        if not namespace and (name in _BUILTIN_TYPES or name.endswith("_t")):
            return Verdict(False, "a type name as a cast (scalar_t(x), int64_t(x), float(x))", callee)
        if not namespace and name in _C_LIBRARY:
            return Verdict(False, "C library function", callee)
        if not namespace and path.endswith((".cu", ".cuh")) and _CUDA_DEVICE.fullmatch(name):
            return Verdict(False, "CUDA device function or math builtin", callee)
        if not namespace and _SIMD_INTRINSIC.fullmatch(name):
            return Verdict(False, "SIMD intrinsic (_mm256_add_ps, vaddq_f32)", callee)
        is_type = any(s.kind in (SymbolKind.STRUCT, SymbolKind.CLASS, SymbolKind.ENUM) for s in defined)
        if is_type and not any(s.kind is SymbolKind.FUNCTION for s in defined):  # `device(...)` is at::device too
            return Verdict(False, "constructor of a type the index defines (TensorOptions(...), Foo{...})", callee)
        functions = [s for s in defined if s.kind in _CALLABLE and s.lang in _NATIVE]
        if functions:
            where = "qualified" if namespace else "unqualified"
            return Verdict(
                False, f"{where} name the index defines, not found from the caller", f"{callee} ({functions[0].qname})"
            )
        if namespace in ("c10", "at", "torch", "caffe2"):
            return Verdict(False, f"{namespace}:: name the index defines nowhere", callee)
        if namespace:
            return Verdict(False, "qualified name of another namespace the index defines nowhere", callee)
        return Verdict(
            False, "unqualified name the index defines nowhere (a local, a parameter, an outside library)", callee
        )

    def _method(self, written: str, name: str, defined: list[Symbol]) -> Verdict:
        if re.split(r"\.|->", written)[0] == "this":
            return Verdict(False, "this->method the lookup did not find", written)
        reason = self._method_reasons.get(name)
        if reason is None:  # `get` has thousands of definitions: judged once per name
            methods = [s for s in defined if s.kind in (SymbolKind.METHOD, SymbolKind.FUNCTION) and s.lang in _NATIVE]
            if any(s.qname.rpartition("::")[0].endswith(_TENSOR_CLASSES) for s in methods):
                reason = "method of at::Tensor/TensorBase the index defines, receiver's type unknown (not an operator)"
            elif methods:
                reason = "method the index defines, receiver's type unknown"
            else:
                reason = "method the index defines nowhere (std:: containers, optional, outside types)"
            self._method_reasons[name] = reason
        return Verdict(False, reason, written)

    def _defined_as(self, name: str) -> list[Symbol]:
        found = self._defined.get(name)
        if found is None:
            found = self._defined[name] = [s for s in self.store.symbols_named(name.lower()) if s.name == name]
        return found


# -- shared: a site's edges ------------------------------------------------------------------


def call_rows(store: IndexStore, kinds: tuple[CallKind, ...] = tuple(CallKind)) -> list[CallRow]:
    """The call rows of some kinds in the tree's C++/CUDA files outside third_party/, in file order."""
    marks = ", ".join("?" * len(kinds))
    rows = store.db.execute(
        "SELECT f.path, c.caller, c.callee, c.line, c.col, c.kind FROM calls c JOIN files f ON f.id = c.file_id"
        f" WHERE f.lang IN (?, ?) AND f.path NOT LIKE ? AND c.kind IN ({marks}) ORDER BY f.path, c.line, c.col, c.callee, c.caller",
        (Language.CPP.value, Language.CUDA.value, _VENDORED + "%", *(kind.value for kind in kinds)),
    )
    return [CallRow(*row) for row in rows]


def site_edges(store: IndexStore, graph: CallGraph, rows: Iterable[CallRow]) -> dict[CallRow, SiteAnswer]:
    """Each row's CallSite and the edges the graph gives it (see the module docstring); a row
    that no definition of its caller holds (a call at namespace scope) has no answer."""
    wanted: dict[tuple[str, str], set[CallRow]] = defaultdict(set)
    for row in rows:
        wanted[(row.path, row.caller)].add(row)
    answers: dict[CallRow, SiteAnswer] = {}
    for (path, caller), asked in sorted(wanted.items()):
        for symbol in store.symbols_with_qname(caller):
            if symbol.path != path or symbol.line is None:
                continue
            lines = definition_lines(symbol) or (symbol.line, symbol.line)
            if not any(lines[0] <= row.line <= lines[1] for row in asked):
                continue
            walked = {(edge.target.key, edge.kind) for edge in graph.edges(graph.node(symbol))}
            for site in store.calls_in(symbol.qname, path, lines):
                row = CallRow(path, caller, site.callee, site.line, site.column, str(site.kind))
                if row not in asked:
                    continue
                edges = (
                    [e for e in graph.native.call_targets(symbol, site) if (e.target.key, e.kind) in walked]
                    if walked
                    else []
                )
                if row in answers:  # a second definition holding the same row (both sides of an #if)
                    edges = answers[row].edges + edges
                answers[row] = SiteAnswer(site, edges)
    return answers


def _edges(answers: dict[CallRow, SiteAnswer], row: CallRow) -> list[CallEdge] | None:
    answer = answers.get(row)
    return None if answer is None else answer.edges


def _in_tests(path: str) -> bool:
    return not _TEST_FOLDERS.isdisjoint(path.split("/")[:-1])


def _where(symbol: Symbol) -> str:
    return f"{symbol.path}:{symbol.line}" if symbol.path else "no location"


# -- output ----------------------------------------------------------------------------------


def _percent(n: int, total: int) -> str:
    return f"{n}/{total} ({100 * n / total:.1f}%)" if total else "0/0"


def print_bindings(section: Section, limit: int | None) -> None:
    _headline("binding coverage", section)
    _breakdown("by stub module", section.results, lambda r: r.name.module)
    _breakdown("by kind", section.results, lambda r: r.name.kind)
    failed = _failed(section)
    _reasons(failed)
    _listed(
        "unresolved names",
        failed,
        limit,
        lambda r: f"{r.name.qname} ({r.name.kind}, {r.name.path}:{r.name.line}): {_said(r.verdict)}",
    )


def print_launches(section: Section, limit: int | None) -> None:
    _headline("launch coverage", section)
    failed = _failed(section)
    _reasons(failed)
    _listed(
        "unresolved launches",
        failed,
        limit,
        lambda r: f"{r.path}:{r.line}  {_short(r.callee)}  [{r.caller}]: {_said(r.verdict)}",
    )


def print_generated(section: Section, limit: int | None) -> None:
    _headline("generated-API coverage", section)
    _breakdown("by form", section.results, lambda r: r.form)
    failed = _failed(section)
    _reasons(failed)
    _listed(
        "unresolved sites",
        failed,
        limit,
        lambda r: f"{r.path}:{r.line}  {_short(r.callee)}  [{r.form}]: {_said(r.verdict)}",
    )


def print_unresolved(section: Section, limit: int | None) -> None:
    _headline("call sites with an edge", section)
    failed = _failed(section)
    by_reason: dict[str, list[SiteResult]] = defaultdict(list)
    for result in failed:
        by_reason[result.verdict.reason].append(result)
    print(f"  unresolved call sites by category, largest first ({len(failed):,}; those in test folders beside):")
    for reason, results in sorted(by_reason.items(), key=lambda item: (-len(item[1]), item[0])):
        callees = Counter(_short(last_name(r.callee), 30) for r in results)
        common = ", ".join(
            f"{name} {n}" for name, n in sorted(callees.items(), key=lambda item: (-item[1], item[0]))[:6]
        )
        in_tests = sum(r.in_tests for r in results)
        print(f"    {len(results):7,}  ({in_tests:,} in tests)  {reason}: {common}")
    examples = failed if limit is None else [r for results in by_reason.values() for r in _spread(results, 3)]
    _listed(
        "examples, three per category spread over the tree (--list: all)" if limit else "unresolved sites",
        sorted(examples, key=lambda r: (r.verdict.reason, r.path, r.line)),
        None,
        lambda r: f"{r.path}:{r.line}  {_short(r.callee)}  [{r.caller}]: {r.verdict.reason}",
    )


PRINTERS: dict[str, Callable[[Section, int | None], None]] = {
    "bindings": print_bindings,
    "launches": print_launches,
    "generated": print_generated,
    "unresolved": print_unresolved,
}


def _headline(title: str, section: Section) -> None:
    print(
        f"{title}: {_percent(section.resolved, section.total)}   [{section.seconds:.1f} s, {section.cpu_seconds:.1f} s CPU]"
    )
    for note in section.notes:
        print(f"  ({note})")


def _failed(section: Section) -> list:
    return [r for r in section.results if not r.verdict.resolved]


def _spread(results: list, count: int) -> list:
    """`count` of `results`, evenly spaced (the first few would all be in one early folder)."""
    if len(results) <= count:
        return results
    return [results[i * len(results) // count] for i in range(count)]


def _breakdown(title: str, results: list, key: Callable[[Any], str]) -> None:
    totals, resolved = Counter(map(key, results)), Counter(key(r) for r in results if r.verdict.resolved)
    print(f"  {title}:")
    for value in sorted(totals, key=lambda v: (-totals[v], v)):
        print(f"    {_percent(resolved[value], totals[value]):>20}  {value}")


def _reasons(failed: list) -> None:
    if not failed:
        return
    counts = Counter(r.verdict.reason for r in failed)
    print("  unresolved, by reason:")
    for reason, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        print(f"    {count:7,}  {reason}")


def _listed(title: str, failed: list, limit: int | None, line: Callable[[Any], str]) -> None:
    if not failed:
        return
    shown = failed if limit is None else failed[:limit]
    more = f", first {len(shown)} (--list: all)" if len(shown) < len(failed) else ""
    print(f"  {title}{more}:")
    for result in shown:
        print(f"    {line(result)}")


def _short(text: str, width: int = 60) -> str:
    """A callee as the parser recorded it can be a whole statement: its start is enough."""
    return text if len(text) <= width else text[: width - 3] + "..."


def _said(verdict: Verdict) -> str:
    return f"{verdict.reason} ({verdict.detail})" if verdict.detail else verdict.reason


# -- main ------------------------------------------------------------------------------------


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "root",
        nargs="?",
        default=os.environ.get("EXPLORER_REAL_TORCH"),
        help="a PyTorch source tree (default: $EXPLORER_REAL_TORCH)",
    )
    parser.add_argument("--section", choices=SECTIONS, help="run one section (default: all)")
    parser.add_argument(
        "--sample", type=int, default=0, help="callers sampled for the unresolved census (default 0: every caller)"
    )
    parser.add_argument("--list", action="store_true", help="list every unresolved entry, not the first 30")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    if not args.root:
        raise SystemExit("census: give ROOT (or set EXPLORER_REAL_TORCH): a PyTorch source tree")
    if not Path(args.root).is_dir():
        raise SystemExit(f"census: ROOT is not a folder: {args.root}")
    args.root = Path(args.root).resolve()
    return args


def main() -> None:
    args = arguments()
    os.environ.pop(TREES_VARIABLE, None)  # one tree, measured alone
    started = time.perf_counter()
    try:
        with open_trees(TreeRequest(root=str(args.root), python="none")) as workspace:
            store = workspace.reader
            assert isinstance(store, IndexStore)  # one tree, no installed package: one index
            opened = time.perf_counter() - started
            graph = CallGraph(store, workspace.root, backend="all")
            run: dict[str, Callable[[], Section]] = {
                "bindings": lambda: binding_coverage(store, graph, args.root),
                "launches": lambda: launch_coverage(store, graph),
                "generated": lambda: generated_coverage(store, graph),
                "unresolved": lambda: unresolved_census(store, graph, args.sample),
            }
            sections = []
            for name in [args.section] if args.section else SECTIONS:
                began, began_cpu = time.perf_counter(), time.process_time()
                section = run[name]()
                section.seconds, section.cpu_seconds = time.perf_counter() - began, time.process_time() - began_cpu
                sections.append(section)
                if not args.json:
                    PRINTERS[name](section, None if args.list else _SHOWN)
                    print()
    except ExplorerError as error:
        raise SystemExit(f"census: {error}") from None
    if args.json:
        document = {
            "root": str(args.root),
            "index_seconds": round(opened, 2),
            "sections": {
                s.name: {
                    "resolved": s.resolved,
                    "total": s.total,
                    "seconds": round(s.seconds, 2),
                    "cpu_seconds": round(s.cpu_seconds, 2),
                    "notes": s.notes,
                    "results": [dataclasses.asdict(r) for r in s.results],
                }
                for s in sections
            },
        }
        json.dump(document, sys.stdout, indent=1, sort_keys=True)
        print()
    else:
        print(f"index opened and checked in {opened:.1f} s; total {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:  # piped into `head`, which had all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
