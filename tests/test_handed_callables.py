"""A callable handed to a C++ function is called by that function, where it calls the
parameter that holds it: a lambda written in a call's arguments is a definition of its own,
`scope::<lambda at line N>`, and the chain runs caller -> helper (-> the helper it passes the
parameter on to) -> lambda -> what the lambda calls, as ProcessGroupNCCL::allreduce_impl ->
collective -> collective -> its lambda -> ncclAllReduce does in PyTorch. Every expected edge
below was read off the fixture (the line comments number its lines)."""

from __future__ import annotations

from explorer.analysis.trace import trace_symbol
from explorer.model import EdgeKind, SymbolKind
from tests.conftest import write_tree
from tests.places import path_line
from tests.test_binding_layer import indexed

PG = "pg.cpp"
TREE = {
    PG: (
        "#include <functional>\n"  # 1
        "namespace c10d {\n"  # 2
        "class ProcessGroupNCCL {\n"  # 3
        " public:\n"  # 4
        "  int allreduce(int* t, int n);\n"  # 5
        "  int broadcast(int* t, int n);\n"  # 6
        "  template <typename Fn> int collective(int* t, int n, Fn fn);\n"  # 7
        "  template <typename Fn, typename Pre> int collective(int* t, int n, Fn fn, Pre pre, const char* name);\n"  # 8
        "  int count(int n) { return n; }\n"  # 9
        "};\n"  # 10
        "template <typename Fn, typename Pre>\n"  # 11
        "int ProcessGroupNCCL::collective(int* t, int n, Fn fn, Pre pre, const char* name) {\n"  # 12
        "  pre(t);\n"  # 13
        "  return fn(t, n);\n"  # 14
        "}\n"  # 15
        "template <typename Fn>\n"  # 16
        "int ProcessGroupNCCL::collective(int* t, int n, Fn fn) {\n"  # 17
        '  return collective(t, n, fn, [](int* p) {}, "nccl");\n'  # 18
        "}\n"  # 19
        "int ProcessGroupNCCL::allreduce(int* t, int n) {\n"  # 20
        "  return collective(t, n, [&](int* in, int m) { return ncclAllReduce(in, count(m)); });\n"  # 21
        "}\n"  # 22
        "int ProcessGroupNCCL::broadcast(int* t, int n) {\n"  # 23
        "  return collective(t, n, [&](int* in, int m) { return ncclBcast(in, m); });\n"  # 24
        "}\n"  # 25
        "void write_row(int i) {}\n"  # 26
        "bool less(int a, int b) { return a < b; }\n"  # 27
        "void parallel(int n, const std::function<void(int)>& body) {\n"  # 28
        "  for (int i = 0; i < n; ++i) body(i);\n"  # 29
        "}\n"  # 30
        "void fill_rows(int n) { parallel(n, [&](int i) { write_row(i); }); }\n"  # 31
        "void sort_rows(int* p, int n) { std::sort(p, p + n, [](int a, int b) { return less(a, b); }); }\n"  # 32
        'void typed(int n) { AT_DISPATCH_ALL(n, "typed", [&] { write_row(n); }); }\n'  # 33
        "}\n"  # 34
    ),
}


def _lambda(line: int, scope: str = "c10d::ProcessGroupNCCL") -> str:
    return f"{scope}::<lambda at line {line}>"


def test_lambdas_handed_to_functions_are_definitions_and_a_macros_argument_is_not(tmp_path):
    root = write_tree(tmp_path / "tree", TREE)
    with indexed(root, tmp_path) as (store, _graph):
        lambdas = sorted((s.qname, s.line, s.end_line) for s in store.symbols_in_file(PG) if "<lambda" in s.qname)
        callers = {(c.caller, c.callee): c.name_args for sites in store.calls_in_file(PG).values() for c in sites}
    # the class's own lambdas are named in its scope: `count(m)` inside one is the member
    assert lambdas == sorted(
        [
            (_lambda(18), 18, 18),
            (_lambda(21), 21, 21),
            (_lambda(24), 24, 24),
            (_lambda(31, "c10d"), 31, 31),
            (_lambda(32, "c10d"), 32, 32),
        ]
    )
    assert callers[("c10d::ProcessGroupNCCL::allreduce", "collective")] == ("[]21",)
    assert callers[("c10d::ProcessGroupNCCL::collective", "collective")] == ("[]18",)
    assert callers[(_lambda(21), "ncclAllReduce")] == ()
    # AT_DISPATCH_ALL's lambda is written out in place by the macro: typed calls write_row
    assert ("c10d::typed", "write_row") in callers


def _edges(graph, node):
    return sorted(
        (
            (
                e.target.symbol.qname,
                e.target.symbol.line,
                e.kind,
                e.site.line if path_line(e.site) else None,
                tuple(p.qname for p in e.target.passed),
                e.target.passed_as,
            )
            for e in graph.edges(node)
        ),
        key=lambda edge: (edge[3] or 0, edge[0]),
    )


def _node(store, graph, qname: str, line: int):
    (symbol,) = [s for s in store.symbols_with_qname(qname) if s.line == line and s.kind is not SymbolKind.MODULE]
    return graph.node(symbol)


def test_the_lambda_is_called_where_the_helper_calls_its_parameter(tmp_path):
    root = write_tree(tmp_path / "tree", TREE)
    with indexed(root, tmp_path) as (store, graph):
        allreduce = _node(store, graph, "c10d::ProcessGroupNCCL::allreduce", 20)
        (to_outer,) = [e for e in graph.edges(allreduce) if e.target.symbol.qname.endswith("::collective")]
        # the 3-argument overload, holding the lambda as its `fn`
        assert (
            to_outer.target.symbol.line,
            path_line(to_outer.site),
            [p.qname for p in to_outer.target.passed],
            to_outer.target.passed_as,
        ) == (
            17,
            (PG, 21),
            [_lambda(21)],
            ("fn",),
        )
        # it passes `fn` on as the 5-argument overload's `fn`, with a lambda of its own as `pre`
        assert _edges(graph, to_outer.target) == [
            ("c10d::ProcessGroupNCCL::collective", 12, EdgeKind.CALL, 18, (_lambda(18), _lambda(21)), ("pre", "fn")),
        ]
        (to_inner,) = list(graph.edges(to_outer.target))
        # `pre(t)` runs the empty lambda, `fn(t, n)` allreduce's: neither runs broadcast's
        assert _edges(graph, to_inner.target) == [
            (_lambda(18), 18, EdgeKind.FNPTR, 13, (), ()),
            (_lambda(21), 21, EdgeKind.FNPTR, 14, (), ()),
        ]
        (lambda_edge,) = [e for e in graph.edges(to_inner.target) if e.target.symbol.line == 21]
        assert [(e.target.symbol.qname, path_line(e.site)) for e in graph.edges(lambda_edge.target)] == [
            ("ncclAllReduce", (PG, 21)),
            ("c10d::ProcessGroupNCCL::count", (PG, 21)),
        ]


def test_a_function_wrapper_parameter_an_unknown_helper_and_a_macro(tmp_path):
    root = write_tree(tmp_path / "tree", TREE)
    with indexed(root, tmp_path) as (store, graph):
        (to_parallel,) = list(graph.edges(_node(store, graph, "c10d::fill_rows", 31)))
        assert (to_parallel.target.symbol.qname, to_parallel.target.passed_as) == ("c10d::parallel", ("body",))
        # `body(i)` on the std::function parameter
        assert _edges(graph, to_parallel.target) == [(_lambda(31, "c10d"), 31, EdgeKind.FNPTR, 29, (), ())]
        # std::sort is not in the tree: the lambda is reached from the call that hands it over
        assert _edges(graph, _node(store, graph, "c10d::sort_rows", 32)) == [
            (_lambda(32, "c10d"), 32, EdgeKind.FNPTR, 32, (), ()),
        ]
        assert [e.target.symbol.qname for e in graph.edges(_node(store, graph, "c10d::typed", 33))] == [
            "c10d::write_row"
        ]


def test_the_trace_goes_through_both_helpers_to_the_vendor_call(tmp_path):
    root = write_tree(tmp_path / "tree", TREE)
    with indexed(root, tmp_path) as (store, _graph):
        report = trace_symbol(store, str(root), "c10d::ProcessGroupNCCL::allreduce", to="ncclAllReduce")
        paths = report.trace.paths or []
        assert [[(hop.node.symbol.qname, hop.node.symbol.line) for hop in path] for path in paths] == [
            [
                ("c10d::ProcessGroupNCCL::allreduce", 20),
                ("c10d::ProcessGroupNCCL::collective", 17),
                ("c10d::ProcessGroupNCCL::collective", 12),
                (_lambda(21), 21),
                ("ncclAllReduce", None),
            ]
        ]


def test_nested_lambdas_on_one_line_share_a_name_and_the_parse_ends():
    from explorer.model import Language
    from explorer.parsers.cpp import parse_cpp

    # (a lambda is named by its line: two on one line are one name, marked ambiguous where
    # passed; the parse must not chase the inner one's enclosing lambda, of the same name, forever)
    facts = parse_cpp("a.cpp", b"void f(int q) { g([&](int a) { h([&](int b) { k(q); }); }); }\n", Language.CPP)
    assert [(c.caller, c.callee, c.name_args) for c in facts.calls] == [
        ("f", "g", ("[]1",)),
        ("<lambda at line 1>", "h", ("[]1",)),
        ("<lambda at line 1>", "k", ()),
    ]
