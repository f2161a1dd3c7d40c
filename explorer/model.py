"""The records that flow between explorer's parsers, index, queries and renderers (the
value-flow facts' own shapes are in flow_schema.py).

Modelling principles:
- Every record is immutable and carries no behaviour beyond small derived views.
- Identity is the qualified name, spelt the way a reader of that language writes it:
  Python `torch.nn.modules.conv.Conv2d._conv_forward`, YAML `aten::conv2d.padding`,
  C++ `at::native::conv2d_symint`, vendor `cudnnConvolutionForward`.
- Every record carries a location: a path (relative to the project's root, absolute in another
  tree) and a 1-based line; a place of its own is a `Location`.
- Parsers produce facts about one file and nothing else; linking them across files is the
  job of the index (index/linking.py, after a refresh) and of resolve/, which reads facts (and
  a definition's source lines, through resolve/sources.py): no syntax tree is walked outside
  parsers/.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

# A composite key (a node's identity, a cache's key, a sort rank): compared, hashed and sorted
# whole, its parts never read one by one.
Key = tuple[object, ...]


class Language(StrEnum):
    PYTHON = "python"
    CPP = "cpp"
    CUDA = "cuda"
    YAML = "yaml"
    CMAKE = "cmake"  # build files: which Python module a set of C++ sources is
    VENDOR = "vendor"


class SymbolKind(StrEnum):
    # Python
    MODULE = "module"
    CLASS = "class"
    FUNCTION = "function"
    METHOD = "method"
    VARIABLE = "variable"
    ALIAS = "alias"
    # C++ / CUDA
    NAMESPACE = "namespace"
    STRUCT = "struct"
    ENUM = "enum"
    FIELD = "field"  # a data member of a class or struct
    KERNEL = "kernel"  # a CUDA __global__ function
    STRUCTURED_KERNEL = "impl_func"  # TORCH_IMPL_FUNC(name): the kernel of a structured op
    META_FUNCTION = "meta_func"  # TORCH_META_FUNC(name): shape checks of a structured op
    DISPATCH_STUB = "dispatch_stub"  # DECLARE_DISPATCH / DEFINE_DISPATCH
    DISPATCH_REGISTRATION = "dispatch_registration"  # REGISTER_DISPATCH(stub, kernel)
    MACRO = "macro"  # a function-like #define
    PYBIND = "pybind"  # a Python name pybind11 binds (`m.def("f", &fn)`): its target is the C++ function
    METHOD_TABLE = "method_table"  # an entry of a CPython PyMethodDef table: its target is the C++ function
    # A Python class whose methods are C++ functions: a py::class_ chain or a CPython type object
    # added to a module. Its target is the C++ type; its methods are PYBIND or METHOD_TABLE symbols.
    BOUND_CLASS = "bound_class"
    EXTENSION = "extension"  # a compiled module setup.py or cpp_extension.load declares: its target, the sources listed
    # YAML
    OPERATOR = "operator"
    # Vendor libraries, known only from their call sites
    EXTERNAL = "external"


def last_name(callee: str) -> str:
    """`at::cuda::blas::gemm` -> `gemm`; `self.conv` -> `conv`; `p->run` -> `run`."""
    for separator in ("::", "->", "."):
        callee = callee.rsplit(separator, 1)[-1]
    return callee


@dataclass(frozen=True, slots=True, order=True)
class Location:
    """A place in a tree: a file, a 1-based line and, where the parser saw it, the 0-based
    column the call starts at (in bytes of the line's UTF-8, as tree-sitter counts; None for
    a place only a line says: a YAML entry, a profiler's record, a registration).

    The path is relative to the project's root in the project and absolute in the other
    trees a query spans (a PyTorch checkout, an installed wheel): the path alone says which
    tree it is in (render/places.py names the tree in text). Made where a parser or a
    profiler learns the place and carried unchanged to the renderers, which print
    `path:line`, and to the language server, which highlights the call from its column.

    Two places on one line are one place (the column is not compared): every answer that
    prints a place prints its line, and two calls of one function on a line are one hop."""

    path: str
    line: int
    column: int | None = field(default=None, compare=False)

    @property
    def with_column(self) -> Key:
        """The place with its column: what tells two calls on one line apart, where the record
        itself compares lines (an editor's and SCIP's reference is each call)."""
        return (self.path, self.line, self.column)


def character_index(line: str, byte_column: int) -> int:
    """A Location's column (bytes of the line's UTF-8) as an index into the line's characters."""
    return len(line.encode("utf-8")[:byte_column].decode("utf-8", "ignore"))


def byte_column(line: str, index: int) -> int:
    """An index into a line's characters as a Location's column (bytes of its UTF-8)."""
    return len(line[:index].encode("utf-8"))


class CallKind(StrEnum):
    CALL = "call"
    LAUNCH = "launch"  # kernel<<<grid, block>>>(...)
    DECORATOR = "decorator"


@dataclass(frozen=True, slots=True)
class Symbol:
    """A definition: where a name is introduced, and what it is."""

    qname: str
    name: str
    kind: SymbolKind
    lang: Language
    path: str | None  # None for vendor symbols, which have no source here
    line: int | None
    end_line: int | None
    signature: str = ""
    # What an alias or registration points at, as written with imports expanded
    # (`torch.conv2d` for `conv2d = _add_docstr(torch.conv2d, ...)`, the kernel of a
    # REGISTER_DISPATCH, the `.out` op of a structured_delegate). A lambda bound to a local, which
    # the index keeps as part of the function it is written in (resolve/stored_callables.py): that
    # function, which holds its calls.
    target: str | None = None
    # C++: visible only inside its own file (a `static` function, or one in an anonymous
    # namespace). Calls from other files never reach it; REGISTER_DISPATCH sees it only there.
    file_local: bool = False


class CallSite(NamedTuple):
    """One call expression, attributed to the innermost enclosing definition.

    A NamedTuple rather than a frozen dataclass: a large tree has a million of these, and a
    tuple is several times cheaper to build."""

    caller: str  # qualified name of the enclosing function, class or module
    callee: str  # the callee expression as written, whitespace collapsed, template args dropped
    qualified: str  # the callee with file-level imports and aliases expanded, else == callee
    line: int
    column: int  # 0-based, as tree-sitter reports it
    kind: CallKind = CallKind.CALL
    # C++: plain names passed as arguments, since a function handed to another function
    # counts as called by it (`split_batch_dim_to_32bit_out(..., raw_..._32bit)`). Python
    # arguments are read by the precise per-file analysis instead.
    # A functor made in place in the arguments (`gpu_reduce_kernel(iter, SumOps<float>{})`) is
    # its type's name followed by FUNCTOR_MARK: the callee calls its members. A lambda written
    # in the arguments is LAMBDA_MARK followed by its line: a definition of its own
    # (`scope::<lambda at line N>`, scope that of the function it is written in).
    name_args: tuple[str, ...] = ()
    # The vendor library the callee belongs to (parsers/vendors.py), as the index worked it out
    # for a C++/CUDA call; None from parsers and for Python calls.
    vendor: str | None = None


FUNCTOR_MARK = "{}"
LAMBDA_MARK = "[]"


@dataclass(frozen=True, slots=True)
class ImportBinding:
    """A name bound by an import statement in a Python module."""

    module: str  # the importing module's qualified name
    name: str  # the local name bound ("F"), or "*" for a star import
    target: str  # the absolute dotted name it refers to ("torch.nn.functional")
    line: int


@dataclass(frozen=True, slots=True)
class DispatchEntry:
    """One row of an operator's dispatch table: key -> C++ kernel."""

    operator: str  # aten::relu
    key: str  # CPU, CUDA, CompositeImplicitAutograd, ...
    kernel: str  # at::native::relu
    line: int
    path: str | None = None  # the file that registers it (as read back from the index)


@dataclass(frozen=True, slots=True)
class OperatorInfo:
    """What native_functions.yaml says about one operator besides its dispatch table."""

    operator: str
    variants: tuple[str, ...]
    python_module: str | None
    structured: bool
    structured_delegate: str | None
    autogen: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DerivativeEntry:
    """An operator's autograd formulas, from tools/autograd/derivatives.yaml."""

    operator: str  # aten::convolution
    line: int
    end_line: int
    formulas: tuple[tuple[str, str], ...]  # ("input, weight, bias", "convolution_backward(...)")


@dataclass(frozen=True, slots=True)
class ModuleArgument:
    """A Python module object handed to a C++ function (`torch::jit::initJITBindings(module)`):
    the bindings that function registers on its parameter land in that module
    (parsers/cpp_modules.py; the index joins the two across files)."""

    module: str  # dotted ("torch._C"), or a placeholder for the caller's own parameter
    callee: str  # the function called, as written
    scope: str  # the namespaces around the call, where the callee is looked up from
    index: int  # which argument
    line: int


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """Why a file was skipped or only partly understood."""

    path: str
    reason: str
    skipped: bool = True  # False: indexed, but with a problem worth reporting


@dataclass(slots=True)
class FileFacts:
    """Everything one parser learned from one file."""

    path: str
    lang: Language
    symbols: list[Symbol] = field(default_factory=list)
    calls: list[CallSite] = field(default_factory=list)
    imports: list[ImportBinding] = field(default_factory=list)
    dispatch: list[DispatchEntry] = field(default_factory=list)
    operators: list[OperatorInfo] = field(default_factory=list)
    derivatives: list[DerivativeEntry] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    module_arguments: list[ModuleArgument] = field(default_factory=list)
    flow: str | None = None  # Python: the value-flow facts (parsers/python_flow.py), as JSON


# -- call graph ------------------------------------------------------------------------------


class Layer(StrEnum):
    """Where a hop of a call chain lives."""

    PYTHON = "python"
    BINDING = "binding"  # the generated torch._C function or Tensor method
    YAML = "yaml"  # an operator of native_functions.yaml
    CPP = "cpp"
    CUDA = "cuda"
    VENDOR = "vendor"


class Resolution(StrEnum):
    EXACT = "exact"
    AMBIGUOUS = "ambiguous"  # several definitions fit and none can be ruled out: all are shown
    NAME = "name"  # only a bare name matched (a method of an object of unknown type)
    VALUE = "value"  # what a stored value is at the call: the one callable stored where objects are made


class CallShape(NamedTuple):
    """What a Python call passes: how many positional arguments, which keywords, and whether
    `*args` or `**kwargs` leave it open. A binding reached by the call picks its operator
    overloads by it, as PyTorch's Python argument parser does."""

    positional: int
    keywords: tuple[str, ...]
    open: bool


@dataclass(frozen=True, slots=True)
class CallNode:
    """A definition as a node of the call graph."""

    symbol: Symbol
    layer: Layer
    # Python: the class whose instance `self` is, when known from the way the method was
    # reached (tracing Conv2d, `self.forward` in Module._call_impl is Conv2d.forward).
    self_class: str | None = None
    # C++: functions the call that reached this node passed as arguments; the node calls them
    # (`split_batch_dim_to_32bit_out(..., raw_cudnn_convolution_forward_out_32bit)`).
    passed: tuple[Symbol, ...] = ()
    passed_at: Location | None = None  # the call that passed them
    # The parameter each of `passed` is bound to ("" where the call's arguments cannot be read):
    # `fn(...)` in the node calls what was passed as its `fn`.
    passed_as: tuple[str, ...] = ()
    # A torch._C binding (or an alias of one): the arguments of the Python call that reached it.
    shape: CallShape | None = None
    # The node's identity, made once: a trace compares keys hundreds of thousands of times.
    key: Key = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        key = (
            self.symbol.qname,
            self.symbol.path,
            self.symbol.line,
            self.self_class,
            tuple(p.qname for p in self.passed),
            self.passed_as,
            self.shape,
        )
        object.__setattr__(self, "key", key)


class EdgeKind(StrEnum):
    """How a call graph edge is made: what in the source leads from one node to the next."""

    # Python and C++
    CALL = "call"  # a call expression names the definition (calling a class runs its __init__)
    METHOD = "method"  # a method called on an object (`self.forward()`, `x.relu()` to its operator, `this->f()`)
    OPERATOR = "operator"  # a statement runs a method unwritten (`x += y` runs __iadd__, `self.conv = c` __setattr__)
    ALIAS = "alias"  # a name bound to another (`conv2d = _add_docstr(torch.conv2d, ...)`) leads to what it names
    FNPTR = "fnptr"  # a function passed as an argument is called by the function it was passed to
    FUNCTOR = "functor"  # a functor made in a call's arguments: the callee calls its operator() and members
    STORED = "stored"  # a call through a data member holding a callable runs the callables stored in it
    # Python to the native library
    BINDING = "binding"  # a torch._C binding (or Tensor method) to the operators it binds; a call to that binding
    PYBIND = "pybind"  # a pybind11 binding (`m.def("f", &f)`) to the C++ function it names
    METHOD_TABLE = "method_table"  # a CPython PyMethodDef entry to the C++ function it names
    OP_REGISTRATION = "op_registration"  # `torch.ops.ns.op(...)` to the operator TORCH_LIBRARY defines
    # Operators and kernels
    DISPATCH = "dispatch"  # an operator to the kernel registered for a dispatch key (CallEdge.dispatch_key)
    STRUCTURED = "structured"  # a structured operator to its structured_delegate, the `.out` operator
    STUB = "stub"  # a DispatchStub to each kernel REGISTER_DISPATCH registers for it
    LAUNCH = "launch"  # a CUDA kernel launch, `k<<<grid, block>>>(...)`
    AUTOGRAD = "autograd"  # a C++ autograd Function's `F::apply(...)` runs `F::forward`
    # Only where a run is laid over the static graph (runtime/compare.py)
    METHOD_BY_NAME = (
        "method_by_name"  # a member call written on the run's call line, matched by the member's name alone
    )
    PASSED = "passed"  # a function defined in the caller's caller and handed down to the caller
    MACRO = "macro"  # a call site names a function-like macro whose body makes the call


@dataclass(frozen=True, slots=True)
class CallEdge:
    """How a node is reached from the one before it."""

    target: CallNode
    kind: EdgeKind
    resolution: Resolution = Resolution.EXACT
    candidates: tuple[str, ...] = ()  # for an ambiguous edge: every definition that fits
    site: Location | None = None  # the call that leads here
    # An explicit template specialisation reached by a call whose template arguments did not
    # choose it, beside a general definition that fits as well: ranked after the general one.
    specialised: bool = False
    # A branch a factory-made function takes only when its caller asks for it
    # (`max_pool2d = boolean_dispatch(default=False, if_true=max_pool2d_with_indices, ...)`
    # runs if_true only given return_indices=True): ranked after the branch a plain call takes.
    off_default: bool = False
    dispatch_key: str | None = None  # a DISPATCH edge: the key its kernel is registered for (CUDA)

    @property
    def label(self) -> str:
        """How the edge is shown: `dispatch:CUDA` for a dispatch edge, else its kind."""
        if self.kind is EdgeKind.DISPATCH:
            return f"{self.kind.value}:{self.dispatch_key}"
        return self.kind.value


class TreeKind(StrEnum):
    PROJECT = "project"  # --root: the user's own code
    SOURCE = "source"  # a source tree joined with --tree (a PyTorch checkout, a library)
    INSTALLED = "installed"  # an installed distribution's Python, stubs and YAML (a wheel)


@dataclass(frozen=True, slots=True)
class Tree:
    """One of the trees a query spans. Locations in the project are relative to its root;
    locations in the others are absolute paths, so that each says which tree it is in."""

    name: str  # "project", the folder's name, or an installed distribution's "torch 2.13.0+cpu"
    root: str  # absolute
    kind: TreeKind
    version: str | None = None
    # An installed distribution: the top-level names it installs, read from `root` (its site
    # folder) and nothing else; and its stamp, which says when it was installed again.
    only: tuple[str, ...] = ()
    stamp: str | None = None
    stubs_only: bool = False  # a wheel a checkout of its package hides: only its stubs are read (multi.py)
