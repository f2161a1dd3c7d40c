"""A call through a data member that stores a callable runs the callables stored in it, as
GraphFunction::ensure_defined's `creator(*this)` (a copy of `function_creator_`) runs the lambda
CompilationUnit::define handed to GraphFunction's constructor in PyTorch. The fixture is the
bundled tree's torch/csrc/jit: GraphFunction (api/function_impl.h, .cpp) stores its
constructor's `function_creator` in `function_creator_`, and has a setter; compiler.cpp makes
one with a local lambda (make_unique), one with a function's name (a temporary `T(...)`), and
sets another with `&emit_graph`. Every expected edge below was read off the fixture."""

from __future__ import annotations

from explorer.analysis.trace import trace_symbol
from explorer.model import EdgeKind, Resolution, SymbolKind
from explorer.resolve.graph import CallGraph
from tests.places import path_line

HEADER = "torch/csrc/jit/api/function_impl.h"
IMPL = "torch/csrc/jit/api/function_impl.cpp"
COMPILER = "torch/csrc/jit/frontend/compiler.cpp"
LAMBDA = "torch::jit::<lambda at line 13>"
STORED = [  # (qname, file, line): what the constructor and the setter are given
    (
        LAMBDA,
        COMPILER,
        13,
    ),  # `auto creator = [name](GraphFunction& method) {...}`, make_unique<GraphFunction>(name, creator)
    ("torch::jit::emit_builtin", COMPILER, 10),  # GraphFunction(name, emit_builtin)
    ("torch::jit::emit_graph", COMPILER, 9),  # fn.set_creator(&emit_graph)
]


def _node(store, graph, qname: str, line: int):
    (symbol,) = [s for s in store.symbols_with_qname(qname) if s.line == line and s.kind is not SymbolKind.MODULE]
    return graph.node(symbol)


def _stored_edges(graph, node):
    return sorted(
        (
            (e.target.symbol.qname, e.target.symbol.path, e.target.symbol.line, e.resolution, path_line(e.site))
            for e in graph.edges(node)
            if e.kind is EdgeKind.STORED
        ),
        key=lambda edge: (edge[1] or "", edge[2] or 0),
    )


def _expected(site: tuple[str, int]):
    found = [(qname, path, line, Resolution.AMBIGUOUS, site) for qname, path, line in STORED]
    return sorted(found, key=lambda edge: (edge[1], edge[2]))


def test_a_local_copied_from_the_member_runs_what_every_construction_and_the_setter_stored(sample_store, sample_root):
    graph = CallGraph(sample_store, sample_root, "all")
    ensure_defined = _node(sample_store, graph, "torch::jit::GraphFunction::ensure_defined", 6)
    # `creator(*this)` (line 10) on `auto creator = function_creator_;`: three objects, three callables
    assert _stored_edges(graph, ensure_defined) == _expected((IMPL, 10))
    (edge,) = [e for e in graph.edges(ensure_defined) if e.target.symbol.qname == LAMBDA]
    assert edge.candidates == (
        f"torch::jit::emit_graph ({COMPILER}:9)",
        f"torch::jit::emit_builtin ({COMPILER}:10)",
        f"{LAMBDA} ({COMPILER}:13)",
    )


def test_the_member_called_itself(sample_store, sample_root):
    graph = CallGraph(sample_store, sample_root, "all")
    redefine = _node(sample_store, graph, "torch::jit::GraphFunction::redefine", 19)
    assert _stored_edges(graph, redefine) == _expected((HEADER, 20))


def test_the_local_lambda_is_a_node_whose_calls_are_its_own_lines(sample_store, sample_root):
    graph = CallGraph(sample_store, sample_root, "all")
    ensure_defined = _node(sample_store, graph, "torch::jit::GraphFunction::ensure_defined", 6)
    (edge,) = [e for e in graph.edges(ensure_defined) if e.target.symbol.qname == LAMBDA]
    symbol = edge.target.symbol
    # its calls are those of `define`, where the index keeps them, on the lambda's lines
    assert (symbol.kind, symbol.path, symbol.line, symbol.end_line, symbol.signature, symbol.target) == (
        SymbolKind.FUNCTION,
        COMPILER,
        13,
        15,
        "[name](GraphFunction& method)",
        "torch::jit::define",
    )
    assert [
        (e.target.symbol.qname, e.target.symbol.line, e.kind, path_line(e.site)) for e in graph.edges(edge.target)
    ] == [
        ("torch::jit::emit_graph", 9, EdgeKind.CALL, (COMPILER, 14)),
    ]


def test_a_class_named_in_a_call_runs_its_constructor(sample_store, sample_root):
    graph = CallGraph(sample_store, sample_root, "all")
    define_builtin = _node(sample_store, graph, "torch::jit::define_builtin", 19)
    assert [
        (e.target.symbol.qname, e.target.symbol.line, e.kind, e.resolution, path_line(e.site))
        for e in graph.edges(define_builtin)
    ] == [
        ("torch::jit::GraphFunction::GraphFunction", 12, EdgeKind.CALL, Resolution.EXACT, (COMPILER, 20)),
    ]


def test_the_trace_goes_through_the_stored_lambda(sample_store, sample_root):
    report = trace_symbol(sample_store, sample_root, "torch::jit::recompile", to="emit_graph")
    paths = [[(hop.node.symbol.qname, hop.node.symbol.line) for hop in path] for path in report.trace.paths or []]
    # (set_creator is handed &emit_graph and is taken to call it, as any helper handed a
    # function whose use of it cannot be read: the fnptr rule, older than this one)
    assert paths == [
        [("torch::jit::recompile", 23), ("torch::jit::GraphFunction::set_creator", 16), ("torch::jit::emit_graph", 9)],
        [
            ("torch::jit::recompile", 23),
            ("torch::jit::GraphFunction::ensure_defined", 6),
            ("torch::jit::emit_graph", 9),
        ],
        [
            ("torch::jit::recompile", 23),
            ("torch::jit::GraphFunction::ensure_defined", 6),
            (LAMBDA, 13),
            ("torch::jit::emit_graph", 9),
        ],
    ]


def test_a_class_two_source_files_each_define_holds_only_its_own_files_callables(tmp_path):
    from tests.conftest import write_tree
    from tests.test_binding_layer import indexed

    def test_file(name: str) -> str:
        return (
            "#include <functional>\n"  # 1
            f"void {name}(void* p) {{}}\n"  # 2
            "struct IOBuf {\n"  # 3
            "  explicit IOBuf(std::function<void(void*)> d) : deleter_(std::move(d)) {}\n"  # 4
            "  std::function<void(void*)> deleter_;\n"  # 5
            "  ~IOBuf() { deleter_(nullptr); }\n"  # 6
            "};\n"  # 7
            f"void make() {{ IOBuf buf({name}); auto other = IOBuf({name}); }}\n"  # 8
        )

    root = write_tree(
        tmp_path / "tree", {"test/cuda_test.cpp": test_file("free_cuda"), "test/xpu_test.cpp": test_file("free_xpu")}
    )
    with indexed(root, tmp_path) as (store, graph):
        for path, freed in (("test/cuda_test.cpp", "free_cuda"), ("test/xpu_test.cpp", "free_xpu")):
            (destructor,) = [s for s in store.symbols_with_qname("IOBuf::~IOBuf") if s.path == path]
            assert [
                (e.target.symbol.qname, e.target.symbol.path, e.resolution, path_line(e.site))
                for e in graph.edges(graph.node(destructor))
            ] == [
                (freed, path, Resolution.VALUE, (path, 6)),
            ]
