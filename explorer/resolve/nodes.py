"""Small helpers shared by the edge rules of each layer."""

from __future__ import annotations

import re
from collections.abc import Iterator

from explorer.index import IndexReader
from explorer.model import (
    CallEdge,
    CallNode,
    DispatchEntry,
    EdgeKind,
    Language,
    Layer,
    Location,
    Resolution,
    Symbol,
    SymbolKind,
)
from explorer.names import hidden_as_test
from explorer.parsers.common import module_name
from explorer.parsers.vendors import vendor_library
from explorer.resolve.visibility import visible_from


def layer_of(symbol: Symbol) -> Layer:
    if symbol.kind is SymbolKind.OPERATOR:
        return Layer.YAML
    if symbol.kind in (SymbolKind.PYBIND, SymbolKind.METHOD_TABLE, SymbolKind.BOUND_CLASS):
        return Layer.BINDING
    if symbol.kind is SymbolKind.EXTERNAL:
        return Layer.VENDOR
    if symbol.lang == "python":
        stub = (symbol.path or "").endswith(".pyi") or symbol.path is None
        return Layer.BINDING if stub and binding_operators_owner(symbol.qname) else Layer.PYTHON
    return Layer.CUDA if symbol.lang == "cuda" else Layer.CPP


def binding_operators_owner(qname: str) -> bool:
    return qname.startswith(("torch._C.", "torch._VF.", "torch.Tensor."))


_MAX_FAN_OUT = 12  # `main` or `TEST_F` is defined in hundreds of files: a name, not a target
# The explicit specialisations of one template are each a real possibility, told apart only by
# values known when the code runs (flash attention's run_mha_fwd_<T, HeadDim>: 16 of them).
_MAX_SPECIALISATIONS = 64


def fan_out(
    symbols: list[Symbol],
    kind: EdgeKind,
    layer: Layer | None,
    site: Location | None,
    dispatch_key: str | None = None,
) -> Iterator[CallEdge]:
    """One edge per definition; several definitions make each edge ambiguous, naming them all
    (past a dozen, or past 64 explicit specialisations of one template, the first are followed
    and the candidates say how many more there are)."""
    ordered = sorted(symbols, key=lambda s: (s.path or "", s.line or 0, s.qname))
    most = _MAX_SPECIALISATIONS if _specialisations_of_one_template(ordered) else _MAX_FAN_OUT
    candidates = tuple(f"{s.qname} ({s.path}:{s.line})" if s.path else s.qname for s in ordered[:most])
    if len(ordered) > most:
        candidates += (f"... and {len(ordered) - most} more",)
        ordered = ordered[:most]
    elif len(ordered) == 1:
        candidates = ()
    resolution = Resolution.AMBIGUOUS if candidates else Resolution.EXACT
    for symbol in ordered:
        yield CallEdge(
            CallNode(symbol, layer or layer_of(symbol)), kind, resolution, candidates, site, dispatch_key=dispatch_key
        )


def _specialisations_of_one_template(symbols: list[Symbol]) -> bool:
    """`template <> void f<half, 64>(...)` in each: one qualified name, its template
    arguments written after the name in every signature."""
    if len(symbols) <= _MAX_FAN_OUT or len({s.qname for s in symbols}) != 1:
        return False
    written = re.compile(rf"\b{re.escape(symbols[0].name)}\s*<[^()]*>\s*\(")
    return all(written.search(s.signature) for s in symbols)


def definition_lines(symbol: Symbol) -> tuple[int, int] | None:
    """The lines a definition spans: its calls are those made there (a name can be defined
    twice in one file, once on each side of an `#if`)."""
    return (symbol.line, symbol.end_line or symbol.line) if symbol.line is not None else None


def defining_stub(stubs: list[Symbol]) -> Symbol:
    """A DispatchStub is declared in a header and defined in a .cpp: one stub, shown where
    it is defined."""
    return sorted(stubs, key=lambda s: ((s.path or "").endswith((".h", ".hpp", ".cuh")), s.path or "", s.line or 0))[0]


def undefined_function(qname: str, why: str = "not defined in the tree") -> Symbol:
    """A C++ function a registration names and the tree does not define (a node of its own,
    with no location, so that the edge to it is shown rather than dropped); `why` says so."""
    return Symbol(qname, qname.rpartition("::")[2], SymbolKind.FUNCTION, Language.CPP, None, None, None, why)


def vendor_function(reader: IndexReader, written: str) -> Symbol | None:
    """A vendor library's API a registration names (`nvtx.def("rangePushA", nvtxRangePushA)`):
    the external symbol the tree's calls of it made, or one of its own; None for others."""
    name = written.rpartition("::")[2]
    library = vendor_library(name)
    if library is None:
        return None
    known = [s for s in reader.symbols_with_qname(name) if s.kind is SymbolKind.EXTERNAL]
    return (
        known[0]
        if known
        else Symbol(name, name, SymbolKind.EXTERNAL, Language.VENDOR, None, None, None, f"{library} API")
    )


def dispatch_kernels(reader: IndexReader, entry: DispatchEntry) -> list[Symbol]:
    """The kernel a dispatch row names: by its qualified name for native_functions.yaml's
    (`at::native::relu`), looked up from the registration's namespaces for a C++ one."""
    if entry.path is None or entry.path.endswith(".yaml"):
        return [s for s in reader.symbols_with_qname(entry.kernel) if s.kind in REGISTRABLE_KINDS]
    return registered_functions(reader, entry.kernel, entry.path)


def registered_functions(
    reader: IndexReader, written: str, path: str | None, kinds: frozenset[SymbolKind] | None = None
) -> list[Symbol]:
    """The C++ function a registration names, stored with the namespaces around it in front
    of what was written (`at::functorch::native::conv2d_symint` for `native::conv2d_symint`
    written in at::functorch), looked up as C++ looks up a name: in the innermost namespace,
    then outward. Where the written part starts is not kept, so every namespace run the
    written name may follow is tried, fewest dropped first (for `fps_cuda` in pyg::ops:
    pyg::ops::fps_cuda, pyg::fps_cuda, fps_cuda). `kinds`: what may be named (functions by
    default; the types a bound class binds, for one)."""
    kinds = kinds or REGISTRABLE_KINDS
    parts = written.split("::")
    name_at = len(parts) - 1
    tried: set[str] = set()
    for dropped in range(name_at + 1):
        for end in range(name_at - dropped, -1, -1):
            candidate = "::".join(parts[:end] + parts[end + dropped :])
            if candidate in tried:
                continue
            tried.add(candidate)
            # production code never registers a test's function (`add` of a test extension,
            # for ::c10d::Store::add with every qualifier dropped)
            found = [
                s for s in reader.symbols_with_qname(candidate) if s.kind in kinds and not hidden_as_test(path, s.path)
            ]
            if found:
                return (visible_from(path, found) or found) if path else found
    return _through_usings(reader, parts, path, kinds) if path else []


def _through_usings(reader: IndexReader, parts: list[str], path: str, kinds: frozenset[SymbolKind]) -> list[Symbol]:
    """A registered name its file brings in with a using-declaration (`using
    caffe2::serialize::PyTorchStreamWriter;` before `&PyTorchStreamWriter::archiveName`) or
    finds through a using-directive (`using namespace torch::autograd;`)."""
    usings = [b for b in reader.usings_in(path) if b.name != "#include"]
    candidates = []
    for index, part in enumerate(parts[:-1] if len(parts) > 1 else parts):
        candidates += ["::".join([b.target, *parts[index + 1 :]]) for b in usings if b.name == part]
    for directive in (b.target for b in usings if b.name == "*"):
        candidates += ["::".join([directive, *parts[start:]]) for start in range(len(parts))]
    for candidate in candidates:
        found = [s for s in reader.symbols_with_qname(candidate) if s.kind in kinds]
        if found:
            return found
    return []


REGISTRABLE_KINDS = frozenset({SymbolKind.FUNCTION, SymbolKind.METHOD, SymbolKind.KERNEL, SymbolKind.STRUCTURED_KERNEL})


def module_of(reader: IndexReader, path: str | None) -> str:
    """The Python module a file of the trees is (`torch/nn/functional.py` ->
    `torch.nn.functional`), named from its tree's root whichever tree holds it."""
    return module_name(reader.tree_relative(path or ""))
