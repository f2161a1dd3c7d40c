"""The rules that make a traced chain right, each on a small tree of its own: what a C++
call can see and which definition it means, which operator overload a Python call takes,
and how the paths to a target are ranked and bounded."""

from __future__ import annotations

import json
from pathlib import Path

from explorer.analysis.trace import TraceReport, trace_symbol
from explorer.index.build import refresh
from explorer.index.store import IndexStore
from explorer.render.json_out import trace_json
from tests.conftest import touch_later, write_tree
from tests.places import path_line

YAML = "aten/src/ATen/native/native_functions.yaml"


def traced(tmp_path: Path, files: dict[str, str], query: str, **options) -> TraceReport:
    root = write_tree(tmp_path / "tree", files)
    refresh(str(root), tmp_path / "index.sqlite", jobs=1)
    store = IndexStore.open(tmp_path / "index.sqlite")
    try:
        return trace_symbol(store, str(root), query, **options)
    finally:
        store.close()


def first_path(report: TraceReport) -> list[tuple[str, str | None, int | None, str | None]]:
    assert report.trace.paths, "no path"
    return [
        (h.node.symbol.qname, h.node.symbol.path, h.node.symbol.line, h.edge.label if h.edge else None)
        for h in report.trace.paths[0]
    ]


def callees(report: TraceReport) -> list[tuple[str, str | None, int | None]]:
    return sorted((c.node.symbol.qname, c.node.symbol.path, c.node.symbol.line) for c in report.trace.tree.children)


# -- what a C++ call can see -----------------------------------------------------------------

FILE_LOCAL = {
    "src/a.cu": (
        "namespace at::native {\n"  # 1
        "static void launch_helper(int n) {}\n"  # 2
        "void entry_a(int n) { launch_helper(n); }\n"  # 3
        "}\n"
    ),
    "src/b.cu": (
        "namespace at::native {\n"  # 1
        "namespace {\n"  # 2
        "void launch_helper(int n) {}\n"  # 3
        "void impl(int n) {}\n"  # 4
        "}\n"  # 5
        "void entry_b(int n) { launch_helper(n); }\n"  # 6
        "REGISTER_DISPATCH(fill_stub, &impl);\n"  # 7
        "}\n"
    ),
    "src/c.cu": (
        "namespace at::native {\n"  # 1
        "namespace { void impl(int n) {} }\n"  # 2
        "REGISTER_DISPATCH(fill_stub, &impl);\n"  # 3
        "}\n"
    ),
    "src/fill.cpp": (
        "namespace at::native {\n"  # 1
        "DEFINE_DISPATCH(fill_stub);\n"  # 2
        "void fill(int n) { fill_stub(kCUDA, n); }\n"  # 3
        "}\n"
    ),
}


def test_a_static_or_anonymous_namespace_function_is_called_only_from_its_own_file(tmp_path):
    assert callees(traced(tmp_path / "a", FILE_LOCAL, "at::native::entry_a")) == [
        ("at::native::launch_helper", "src/a.cu", 2),
    ]
    assert callees(traced(tmp_path / "b", FILE_LOCAL, "at::native::entry_b")) == [
        ("at::native::launch_helper", "src/b.cu", 3),
    ]


def test_register_dispatch_binds_the_kernel_its_own_file_defines(tmp_path):
    stub = traced(tmp_path, FILE_LOCAL, "at::native::fill_stub").trace.tree
    registered = sorted(
        (c.node.symbol.qname, c.node.symbol.path, c.node.symbol.line, c.edge.resolution.value, path_line(c.edge.site))
        for c in stub.children
    )
    assert registered == [
        ("at::native::impl", "src/b.cu", 4, "exact", ("src/b.cu", 7)),
        ("at::native::impl", "src/c.cu", 2, "exact", ("src/c.cu", 3)),
    ]


GLOBAL_SCOPE = {
    "src/math.h": "float erf(float x) { return x; }\n",
    "src/ops.cpp": (
        '#include "math.h"\n'  # 1
        "namespace at::native {\n"  # 2
        "float erf(float x) { return x; }\n"  # 3
        "float gelu(float x) { return ::erf(x) + erf(x); }\n"  # 4
        "}\n"
    ),
}


def test_a_leading_double_colon_means_the_global_namespace_only(tmp_path):
    report = traced(tmp_path, GLOBAL_SCOPE, "at::native::gelu")
    assert callees(report) == [("at::native::erf", "src/ops.cpp", 3), ("erf", "src/math.h", 1)]
    sites = sorted((c.node.symbol.qname, c.edge.resolution.value) for c in report.trace.tree.children)
    assert sites == [("at::native::erf", "exact"), ("erf", "exact")]


SPECIALISATIONS = {
    "blas/CUDABlas.h": (
        "namespace at::cuda::blas {\n"  # 1
        "template <typename Dtype>\n"  # 2
        "inline void gemm(int m, Dtype alpha) {\n"  # 3
        '  static_assert(false && sizeof(Dtype), "not implemented");\n'  # 4
        "}\n"  # 5
        "}\n"
    ),
    "blas/CUDABlas.cpp": (
        "namespace at::cuda::blas {\n"  # 1
        "template <typename Dtype>\n"  # 2
        "void gemm_internal(int m, Dtype alpha);\n"  # 3
        "template <>\n"  # 4
        "void gemm_internal<float>(int m, float alpha) { cublasSgemm(m); }\n"  # 5
        "template <>\n"  # 6
        "void gemm_internal<double>(int m, double alpha) { cublasDgemm(m); }\n"  # 7
        "template <>\n"  # 8
        "void gemm<float>(int m, float alpha) { gemm_internal<float>(m, alpha); }\n"  # 9
        "template <>\n"  # 10
        "void gemm<double>(int m, double alpha) { gemm_internal<double>(m, alpha); }\n"  # 11
        "}\n"
    ),
    "blas/Blas.cpp": (
        "namespace at::native {\n"  # 1
        "void mm_float(int m) { at::cuda::blas::gemm<float>(m, 1.0f); }\n"  # 2
        "template <typename scalar_t>\n"  # 3
        "void mm_any(int m) { at::cuda::blas::gemm<scalar_t>(m, 1); }\n"  # 4
        "void mm_dispatch(int m) { AT_DISPATCH(t, [&] { at::cuda::blas::gemm<scalar_t>(m, 1); }); }\n"  # 5
        "void mm_int(int m) { at::cuda::blas::gemm<int>(m, 1); }\n"  # 6
        "}\n"
    ),
}


def test_template_arguments_at_the_call_pick_the_specialisation(tmp_path):
    report = traced(tmp_path, SPECIALISATIONS, "at::native::mm_float", to="^cublas")
    assert [first_path(report)] == [
        [
            ("at::native::mm_float", "blas/Blas.cpp", 2, None),
            ("at::cuda::blas::gemm", "blas/CUDABlas.cpp", 9, "call"),
            ("at::cuda::blas::gemm_internal", "blas/CUDABlas.cpp", 5, "call"),
            ("cublasSgemm", None, None, "call"),
        ]
    ]
    assert report.trace.paths_found == 1  # never gemm<float> then cublasDgemm


def test_arguments_naming_a_template_parameter_keep_every_specialisation(tmp_path):
    for query in ("at::native::mm_any", "at::native::mm_dispatch"):  # a parameter; a name only a macro defines
        report = traced(tmp_path / query.rsplit("::")[-1], SPECIALISATIONS, query, to="^cublas")
        ends = sorted((path[1].node.symbol.line, path[-1].node.symbol.qname) for path in report.trace.paths)
        assert ends == [(9, "cublasSgemm"), (11, "cublasDgemm")]


def test_a_type_no_specialisation_names_reaches_the_primary_template(tmp_path):
    report = traced(tmp_path, SPECIALISATIONS, "at::native::mm_int", max_depth=1)
    assert callees(report) == [("at::cuda::blas::gemm", "blas/CUDABlas.h", 3)]


# -- which operator a Python call takes --------------------------------------------------------

OVERLOADS = {
    YAML: (
        "- func: scale(Tensor self) -> Tensor\n"  # 1
        "  variants: function\n"  # 2
        "  dispatch:\n"  # 3
        "    CUDA: scale_cuda\n"  # 4
        "\n"
        "- func: scale.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n"  # 6
        "  variants: function\n"  # 7
        "  dispatch:\n"  # 8
        "    CUDA: scale_out_cuda\n"  # 9
    ),
    "aten/src/ATen/native/Scale.cpp": (
        "namespace at::native {\n"  # 1
        "Tensor scale_cuda(const Tensor& self) { return self; }\n"  # 2
        "Tensor& scale_out_cuda(const Tensor& self, Tensor& out) { return out; }\n"  # 3
        "}\n"
    ),
    "pkg/__init__.py": "",
    "pkg/ops.py": (
        "import torch\n"  # 1
        "\n"
        "def functional(x):\n"  # 3
        "    return torch.scale(x)\n"  # 4
        "\n"
        "def into(x, y):\n"  # 6
        "    return torch.scale(x, out=y)\n"  # 7
    ),
}


def test_a_call_without_out_takes_the_functional_overload_and_with_out_the_out_one(tmp_path):
    functional = traced(tmp_path / "f", OVERLOADS, "pkg.ops.functional", max_depth=3).trace.tree
    binding = functional.children[0]
    assert [(c.node.symbol.qname, c.edge.resolution.value) for c in binding.children] == [("aten::scale", "exact")]
    into = traced(tmp_path / "o", OVERLOADS, "pkg.ops.into", max_depth=3).trace.tree
    assert [(c.node.symbol.qname, c.edge.resolution.value) for c in into.children[0].children] == [
        ("aten::scale.out", "exact")
    ]


# -- ranking -------------------------------------------------------------------------------------

RANKING = {
    YAML: (
        "- func: fill_(Tensor(a!) self, Scalar value) -> Tensor(a!)\n"  # 1
        "  variants: method\n"  # 2
        "  dispatch:\n"  # 3
        "    CUDA: fill_cuda_\n"  # 4
    ),
    "src/ops.cu": (
        "namespace at::native {\n"  # 1
        "__global__ void fill_kernel(float* p) {}\n"  # 2
        "Tensor& fill_cuda_(Tensor& self, const Scalar& v) { fill_kernel<<<1, 1>>>(nullptr); return self; }\n"  # 3
        "void step3(float* p) { fill_kernel<<<1, 1>>>(p); }\n"  # 4
        "void step2(float* p) { step3(p); }\n"  # 5
        "void step1(float* p) { step2(p); }\n"  # 6
        "void entry(Tensor& t, float* p) { t.fill_(0); step1(p); }\n"  # 7
        "}\n"
    ),
}


def test_exact_hops_rank_before_a_shorter_name_only_hop(tmp_path):
    report = traced(tmp_path, RANKING, "at::native::entry", to="fill_kernel")
    assert first_path(report) == [
        ("at::native::entry", "src/ops.cu", 7, None),
        ("at::native::step1", "src/ops.cu", 6, "call"),
        ("at::native::step2", "src/ops.cu", 5, "call"),
        ("at::native::step3", "src/ops.cu", 4, "call"),
        ("at::native::fill_kernel", "src/ops.cu", 2, "launch"),
    ]
    second = [h.node.symbol.qname for h in report.trace.paths[1]]
    assert second == ["at::native::entry", "aten::fill_", "at::native::fill_cuda_", "at::native::fill_kernel"]
    assert report.trace.paths[1][1].edge.resolution.value == "name"  # `t.fill_` on a Tensor of unknown type


def cycle_tree(order: list[str]) -> dict[str, str]:
    """start calls a and b in `order`; a and b call each other; only b reaches the kernel."""
    calls = " ".join(f"{name}(p);" for name in order)
    return {
        "src/k.cu": (
            "void a(float* p);\n"
            "void b(float* p);\n"
            "__global__ void kernel(float* p) {}\n"
            f"void start(float* p) {{ {calls} }}\n"
            "void a(float* p) { b(p); }\n"
            "void b(float* p) { a(p); kernel<<<1, 1>>>(p); }\n"
        )
    }


def test_paths_do_not_depend_on_the_order_calls_are_met_in_a_cycle(tmp_path):
    found = []
    for number, order in enumerate((["a", "b"], ["b", "a"])):
        report = traced(tmp_path / str(number), cycle_tree(order), "start", to="kernel")
        found.append(sorted(tuple(h.node.symbol.qname for h in path) for path in report.trace.paths))
    assert found[0] == found[1] == [("start", "a", "b", "kernel"), ("start", "b", "kernel")]


def test_paths_that_differ_only_in_an_overload_fold_into_one(tmp_path):
    files = {
        "src/k.cu": (
            "__global__ void kernel(float* p) {}\n"  # 1
            "#if USE_A\n"  # 2
            "void helper(float* p) { kernel<<<1, 1>>>(p); }\n"  # 3
            "#else\n"  # 4
            "void helper(float* p) { kernel<<<2, 1>>>(p); }\n"  # 5
            "#endif\n"  # 6
            "void start(float* p) { helper(p); }\n"  # 7
        )
    }
    report = traced(tmp_path, files, "start", to="kernel")
    assert (report.trace.paths_found, report.trace.variants) == (1, [2])
    assert [h.node.symbol.line for h in report.trace.paths[0]] == [7, 3, 1]


def test_paths_lists_as_many_as_asked_and_json_holds_only_them(tmp_path):
    body = "".join(f"void via{n}(float* p) {{ kernel<<<1, 1>>>(p); }}\n" for n in range(30))
    calls = " ".join(f"via{n}(p);" for n in range(30))
    files = {"src/k.cu": "__global__ void kernel(float* p) {}\n" + body + f"void start(float* p) {{ {calls} }}\n"}
    report = traced(tmp_path, files, "start", to="kernel", paths=3)
    assert (len(report.trace.paths), report.trace.paths_found, report.trace.paths_capped) == (3, 30, False)
    out = json.loads(json.dumps(trace_json(report, str(tmp_path), "kernel")))
    assert out["schema"] == "explorer.trace/2"
    assert [len(path) for path in out["paths"]] == [3, 3, 3]
    # equal costs and lengths: name order
    assert [node["symbol"] for node in out["graph"]["nodes"]] == ["start", "via0", "kernel", "via1", "via10"]
    assert len(out["graph"]["edges"]) == 6
    assert {(edge["kind"], edge["resolution"]) for edge in out["graph"]["edges"]} == {
        ("call", "exact"),
        ("launch", "exact"),
    }


def test_a_cpp_operator_call_takes_the_overloads_its_argument_count_fits(tmp_path):
    files = {
        YAML: (
            "- func: mix(Tensor a, Tensor b, Tensor c, *, Scalar alpha=1) -> Tensor\n"  # 1
            "  variants: function, method\n"  # 2
            "\n"
            "- func: mix.two(Tensor a, Tensor b) -> Tensor\n"  # 4
            "  variants: function, method\n"  # 5
        ),
        "src/user.cpp": (
            "namespace at::native {\n"  # 1
            "Tensor pair(const Tensor& a, const Tensor& b) { return at::mix(a, b); }\n"  # 2
            "Tensor triple(const Tensor& a, const Tensor& b) { return a.mix(b, b, 2); }\n"  # 3
            "}\n"
        ),
    }
    pair = traced(tmp_path / "p", files, "at::native::pair", max_depth=1).trace.tree
    assert [(c.node.symbol.qname, c.node.symbol.line, c.edge.resolution.value) for c in pair.children] == [
        ("aten::mix.two", 4, "exact")
    ]
    triple = traced(tmp_path / "t", files, "at::native::triple", max_depth=1).trace.tree
    # `a.mix(b, b, 2)`: a is self, then b, c and alpha by position; a method of a value of unknown type
    assert [(c.node.symbol.qname, c.node.symbol.line, c.edge.resolution.value) for c in triple.children] == [
        ("aten::mix", 1, "name")
    ]


# -- C++ idioms the parser must read -------------------------------------------------------------


def parsed(source: str):
    from explorer.model import Language
    from explorer.parsers.cpp import parse_cpp

    return parse_cpp("k.cu", source.encode(), Language.CUDA)


def test_a_kernel_behind_a_launch_bounds_macro_is_a_kernel():
    facts = parsed(
        "#define C10_LAUNCH_BOUNDS_1(n) __launch_bounds__(n)\n"  # 1
        "namespace at::native {\n"  # 2
        "template <typename T, int nt>\n"  # 3
        "C10_LAUNCH_BOUNDS_1(num_threads())\n"  # 4
        "__global__ void vectorized(T* p) {}\n"  # 5
        "C10_LAUNCH_BOUNDS_2(4, 2) __global__ void pair(float* p) {}\n"  # 6
        "static __global__ void __launch_bounds__(128) plain(float* p) {}\n"  # 7
        "}\n"
    )
    found = sorted(
        (s.qname, s.kind.value, s.line, s.file_local) for s in facts.symbols if s.kind.value in ("kernel", "macro")
    )
    assert found == [
        ("C10_LAUNCH_BOUNDS_1", "macro", 1, False),
        ("at::native::pair", "kernel", 6, False),
        ("at::native::plain", "kernel", 7, True),
        ("at::native::vectorized", "kernel", 5, False),
    ]


def test_a_temporary_functor_called_calls_its_call_operator():
    facts = parsed(
        "namespace at::native {\n"
        "void run(TensorIterator& iter) { sum_functor<float>{}(iter); Ops()(iter); ns::Max<T>{1, 2}(iter); make(1)(iter); }\n"
        "}\n"
    )
    assert [c.callee for c in facts.calls] == [
        "sum_functor::operator()",
        "Ops::operator()",
        "Ops",
        "ns::Max::operator()",
        "make(1)",
        "make",
    ]


def test_only_a_name_no_local_parameter_or_field_shadows_is_passed_as_a_function():
    facts = parsed(
        "namespace at::native {\n"  # 1
        "void helper() {}\n"  # 2
        "struct R { int width; void m(); };\n"  # 3
        "void R::m() { use(width, helper); }\n"  # 4
        "void f(int x, float* out) {\n"  # 5
        "  auto inner = x; tanh(inner);\n"  # 6
        "  g(out, helper, x);\n"  # 7
        "  auto l = [](int y) { h(y, helper); };\n"  # 8
        "  for (auto& t : items) k(t);\n"  # 9
        "  auto [a, b] = pair(); k(a, b);\n"  # 10
        "}\n"
        "}\n"
    )
    assert [(c.callee, c.line, c.name_args) for c in facts.calls] == [
        ("use", 4, ("helper",)),
        ("tanh", 6, ()),
        ("g", 7, ("helper",)),
        ("h", 8, ("helper",)),
        ("k", 9, ()),
        ("pair", 10, ()),
        ("k", 10, ()),
    ]


def test_a_template_call_the_grammar_reads_as_a_declaration_is_a_call():
    facts = parsed(
        "namespace at::cuda::blas {\n"  # 1
        "template <> void gemm<float>(CUDABLAS_GEMM_ARGTYPES(float)) {\n"  # 2
        "  gemm_internal_cublas<float>(CUDABLAS_GEMM_ARGS(float));\n"  # 3
        "  at::cuda::blas::gemm_internal<double>(CUDABLAS_GEMM_ARGS(double));\n"  # 4
        "  std::vector<int> sizes(3);\n"  # 5
        "}\n"
        "}\n"
    )
    assert [(c.caller, c.callee, c.line) for c in facts.calls] == [
        ("at::cuda::blas::gemm", "gemm_internal_cublas", 3),
        ("at::cuda::blas::gemm", "at::cuda::blas::gemm_internal", 4),
    ]
    assert [s.signature for s in facts.symbols if s.name == "gemm"] == [
        "void gemm<float>(CUDABLAS_GEMM_ARGTYPES(float))"
    ]


def test_a_launch_in_a_macro_invoked_in_a_body_is_a_launch_by_that_body():
    facts = parsed(
        "namespace at::native {\n"  # 1
        "template <int n> __global__ void cat_kernel(float* p) {}\n"  # 2
        "void parallel_cat(float* p, int k) {\n"  # 3
        "#define HANDLE_CASE(n) \\\n"  # 4
        "  cat_kernel<n><<<1, 2, 0, stream>>>(p);\n"  # 5
        "  switch (k) {\n"  # 6
        "    case 1: HANDLE_CASE(1); break;\n"  # 7
        "    case 2:\n"  # 8
        "      HANDLE_CASE(2);\n"  # 9
        "  }\n"
        "#undef HANDLE_CASE\n"  # 11
        "}\n"  # 12
        "template <int n> __global__ void other_kernel(float* p) {}\n"  # 13
        "void other_cat(float* p, int k) {\n"  # 14
        "#define HANDLE_CASE(n) \\\n"  # 15
        "  other_kernel<n><<<1, 2>>>(p);\n"  # 16
        "  switch (k) {\n"  # 17
        "    case 1:\n"  # 18
        "      HANDLE_CASE(1);\n"  # 19
        "  }\n"  # 20
        "}\n"
        "}\n"
    )
    launches = [(c.caller, c.callee, c.line) for c in facts.calls if c.kind.value == "launch"]
    # every invocation is expanded, `case 1: HANDLE_CASE(1);` too (line 7); each one means the
    # definition above it (line 4 in parallel_cat, line 15 in other_cat)
    assert launches == [
        ("at::native::parallel_cat", "cat_kernel", 7),
        ("at::native::parallel_cat", "cat_kernel", 9),
        ("at::native::other_cat", "other_kernel", 19),
    ]
    assert [s.qname for s in facts.symbols if s.kind.value in ("function", "kernel")] == [
        "at::native::cat_kernel",
        "at::native::parallel_cat",
        "at::native::other_kernel",
        "at::native::other_cat",
    ]


def test_a_launch_through_a_local_launches_what_the_local_holds():
    facts = parsed(
        "namespace at::native {\n"
        "template <typename T, int n> __global__ void k(T* p) {}\n"
        "void run(float* p) { auto kernel = &k<float, 4>; kernel<<<1, 2>>>(p); }\n"
        "}\n"
    )
    assert [(c.callee, c.kind.value) for c in facts.calls] == [("k", "launch")]


def test_a_structured_kernel_error_recovery_took_apart_keeps_its_name():
    # In a file whose earlier #if-split code derails the grammar (PyTorch 2.4's cuda/Shape.cu),
    # `TORCH_IMPL_FUNC(cat_out_cuda)(...) {` comes back as a function whose name is the macro.
    from explorer.model import SymbolKind
    from explorer.parsers.cpp import _registered_by_macro

    assert _registered_by_macro("TORCH_IMPL_FUNC(cat_out_cuda)") == ("cat_out_cuda", SymbolKind.STRUCTURED_KERNEL)
    assert _registered_by_macro("TORCH_META_FUNC2(add, Tensor)") == ("add_Tensor", SymbolKind.META_FUNCTION)
    assert _registered_by_macro("cat_out_cuda") is None


INCLUDED_IN_NAMESPACE = {
    "aten/src/ATen/native/cuda/Loops.cuh": (
        "namespace at::native {\n"  # 1
        "void launch_legacy(float* p) {}\n"  # 2
        "#include <ATen/native/cuda/maca/Arity1.cuh>\n"  # 3
        "}\n"
    ),
    "aten/src/ATen/native/cuda/maca/Arity1.cuh": (
        "__global__ void arity1_kernel(float* p) {}\n"  # 1
        "void gpu_kernel_arity1(float* p) {\n"  # 2
        "  launch_legacy(p);\n"  # 3
        "  arity1_kernel<<<1, 1>>>(p);\n"  # 4
        "}\n"
    ),
    "aten/src/ATen/native/cuda/Gelu.cu": (
        "namespace at::native {\n"  # 1
        "void gelu_kernel(float* p) { gpu_kernel_arity1(p); }\n"  # 2
        "void gelu_qualified(float* p) { at::native::gpu_kernel_arity1(p); }\n"  # 3
        "}\n"
    ),
}


def test_a_header_included_inside_a_namespace_block_defines_its_functions_there(tmp_path):
    for query in ("at::native::gelu_kernel", "at::native::gelu_qualified"):
        report = traced(tmp_path / query.rsplit("::")[-1], INCLUDED_IN_NAMESPACE, query, to="arity1_kernel")
        assert [hop[:3] for hop in first_path(report)][1:] == [
            ("at::native::gpu_kernel_arity1", "aten/src/ATen/native/cuda/maca/Arity1.cuh", 2),
            ("at::native::arity1_kernel", "aten/src/ATen/native/cuda/maca/Arity1.cuh", 1),
        ]
    # and its unqualified calls find the namespace's functions
    callees_of = traced(tmp_path / "c", INCLUDED_IN_NAMESPACE, "at::native::gpu_kernel_arity1", max_depth=1)
    assert callees(callees_of) == [
        ("at::native::arity1_kernel", "aten/src/ATen/native/cuda/maca/Arity1.cuh", 1),
        ("at::native::launch_legacy", "aten/src/ATen/native/cuda/Loops.cuh", 2),
    ]


def test_a_header_loses_the_namespace_when_the_include_goes(tmp_path):
    root = write_tree(tmp_path / "tree", INCLUDED_IN_NAMESPACE)
    index = tmp_path / "index.sqlite"
    refresh(str(root), index, jobs=1)
    loops = root / "aten/src/ATen/native/cuda/Loops.cuh"
    loops.write_text(loops.read_text().replace("#include <ATen/native/cuda/maca/Arity1.cuh>\n", ""))
    touch_later(loops)
    refresh(str(root), index, jobs=1)
    store = IndexStore.open(index)
    try:
        assert [s.qname for s in store.symbols_named("gpu_kernel_arity1")] == ["gpu_kernel_arity1"]
        calls = store.calls_in_file("aten/src/ATen/native/cuda/maca/Arity1.cuh")
        assert {caller: [c.callee for c in sites] for caller, sites in calls.items()} == {
            "gpu_kernel_arity1": ["launch_legacy", "arity1_kernel"],
        }
    finally:
        store.close()


def test_a_call_misread_as_a_definition_inside_a_function_is_its_callers_call():
    facts = parsed(
        "namespace at::native {\n"  # 1
        "template <typename scalar_t, typename out_t>\n"  # 2
        "void moments(TensorIterator& iter) {\n"  # 3
        "  using ops_t = Welford<scalar_t>;\n"  # 4
        "  ops_t ops(1, true);\n"  # 5
        "  gpu_reduce_kernel<scalar_t, out_t, 2>(iter, ops, typename ops_t::acc_t{});\n"  # 6
        "}\n"
        "}\n"
    )
    assert [s.qname for s in facts.symbols if s.kind.value == "function"] == ["at::native::moments"]
    assert ("at::native::moments", "gpu_reduce_kernel", 6) in [(c.caller, c.callee, c.line) for c in facts.calls]


def test_a_dispatch_stub_passed_as_an_argument_is_called_by_the_callee(tmp_path):
    files = {
        "src/Reduce.cpp": (
            "namespace at::native {\n"  # 1
            "DEFINE_DISPATCH(argmax_stub);\n"  # 2
            "template <class Stub>\n"  # 3
            "void argmax_argmin_impl(const Tensor& self, Stub& stub) { stub(kCUDA, self); }\n"  # 4
            "void argmax_out(const Tensor& self) { argmax_argmin_impl(self, argmax_stub); }\n"  # 5
            "}\n"
        ),
        "src/cuda/ArgMax.cu": (
            "namespace at::native {\n"  # 1
            "void argmax_kernel_cuda(const Tensor& self) {}\n"  # 2
            "REGISTER_DISPATCH(argmax_stub, &argmax_kernel_cuda);\n"  # 3
            "}\n"
        ),
    }
    report = traced(tmp_path, files, "at::native::argmax_out", to="argmax_kernel_cuda")
    assert first_path(report) == [
        ("at::native::argmax_out", "src/Reduce.cpp", 5, None),
        ("at::native::argmax_argmin_impl", "src/Reduce.cpp", 4, "call"),
        ("at::native::argmax_stub", "src/Reduce.cpp", 2, "fnptr"),
        ("at::native::argmax_kernel_cuda", "src/cuda/ArgMax.cu", 2, "stub"),
    ]


def test_a_lone_if_that_splits_a_brace_pair_is_read_as_the_build_without_it():
    facts = parsed(
        "namespace at::native {\n"  # 1
        "template <typename T> __global__ void moments(T* p) {}\n"  # 2
        "void group_norm_impl(float* p) {\n"  # 3
        "#ifdef USE_VENDOR\n"  # 4
        "  if (fused(p)) {\n"  # 5
        "    return;\n"  # 6
        "  } else {\n"  # 7
        "#endif\n"  # 8
        "    moments<float><<<1, 2>>>(p);\n"  # 9
        "#ifdef USE_VENDOR\n"  # 10
        "  }\n"  # 11
        "#endif\n"  # 12
        "}\n"  # 13
        "void after(float* p) { moments<float><<<1, 1>>>(p); }\n"  # 14
        "}\n"
    )
    assert [(s.qname, s.line, s.end_line) for s in facts.symbols if s.kind.value in ("function", "kernel")] == [
        ("at::native::moments", 2, 2),
        ("at::native::group_norm_impl", 3, 13),
        ("at::native::after", 14, 14),
    ]
    assert [(c.caller, c.callee, c.line) for c in facts.calls if c.kind.value == "launch"] == [
        ("at::native::group_norm_impl", "moments", 9),
        ("at::native::after", "moments", 14),
    ]


FUNCTORS = {
    "src/ops.h": (
        "namespace at::native {\n"  # 1
        "struct SumOps {\n"  # 2
        "  float combine(float a, float b) const { return a + b; }\n"  # 3
        "  float project(float a) const { return a; }\n"  # 4
        "};\n"  # 5
        "struct MaxOps {\n"  # 6
        "  float combine(float a, float b) const { return a > b ? a : b; }\n"  # 7
        "};\n"  # 8
        "struct Square {\n"  # 9
        "  float operator()(float x) const { return x * x; }\n"  # 10
        "};\n"  # 11
        "}\n"
    ),
    "src/reduce.cu": (
        '#include "ops.h"\n'  # 1
        "namespace at::native {\n"  # 2
        "template <typename ops_t>\n"  # 3
        "__global__ void reduce_kernel(const float* in, float* out, ops_t ops) {\n"  # 4
        "  out[0] = ops.project(ops.combine(in[0], in[1]));\n"  # 5
        "}\n"  # 6
        "template <typename ops_t>\n"  # 7
        "void log_sizes(int n, ops_t unused) {}\n"  # 8
        "template <typename ops_t>\n"  # 9
        "void gpu_reduce(const float* in, float* out, const ops_t& ops) {\n"  # 10
        "  reduce_kernel<ops_t><<<1, 1>>>(in, out, ops);\n"  # 11
        "  log_sizes(2, 0);\n"  # 12
        "}\n"  # 13
        "template <typename func_t>\n"  # 14
        "void apply(float* p, const func_t& f) { p[0] = f(p[0]); }\n"  # 15
        "void sum_kernel(const float* in, float* out) { gpu_reduce(in, out, SumOps{}); }\n"  # 16
        "void max_kernel(const float* in, float* out) { gpu_reduce(in, out, MaxOps{}); }\n"  # 17
        "void square_kernel(float* p) { apply(p, Square{}); }\n"  # 18
        "}\n"
    ),
}


def test_a_functor_handed_to_a_helper_reaches_the_kernel_that_calls_its_members(tmp_path):
    report = traced(tmp_path, FUNCTORS, "at::native::sum_kernel", max_depth=4)
    (helper,) = report.trace.tree.children
    assert (helper.node.symbol.qname, helper.edge.label) == ("at::native::gpu_reduce", "call")
    by_name = {c.node.symbol.qname: c for c in helper.children}
    # the launch passes `ops` on; log_sizes(2, 0) is handed no functor, though it is a template
    assert sorted(by_name) == ["at::native::log_sizes", "at::native::reduce_kernel"]
    assert by_name["at::native::log_sizes"].children == ()
    kernel = by_name["at::native::reduce_kernel"]
    assert sorted(
        (
            c.node.symbol.qname,
            c.node.symbol.path,
            c.node.symbol.line,
            c.edge.label,
            c.edge.resolution.value,
            path_line(c.edge.site),
        )
        for c in kernel.children
    ) == [
        ("at::native::SumOps::combine", "src/ops.h", 3, "functor", "exact", ("src/reduce.cu", 5)),
        ("at::native::SumOps::project", "src/ops.h", 4, "functor", "exact", ("src/reduce.cu", 5)),
    ]


def test_each_caller_hands_its_own_functor(tmp_path):
    report = traced(tmp_path, FUNCTORS, "at::native::max_kernel", max_depth=4, to="combine")
    assert first_path(report) == [
        ("at::native::max_kernel", "src/reduce.cu", 17, None),
        ("at::native::gpu_reduce", "src/reduce.cu", 10, "call"),
        ("at::native::reduce_kernel", "src/reduce.cu", 4, "launch"),
        ("at::native::MaxOps::combine", "src/ops.h", 7, "functor"),
    ]
    assert len(report.trace.paths) == 1  # never SumOps::combine


def test_a_kernel_traced_alone_does_not_guess_the_functor(tmp_path):
    assert callees(traced(tmp_path, FUNCTORS, "at::native::reduce_kernel", max_depth=1)) == []


def test_a_functor_with_a_call_operator_is_called_by_the_helper(tmp_path):
    report = traced(tmp_path, FUNCTORS, "at::native::square_kernel", max_depth=2)
    (helper,) = report.trace.tree.children
    assert [
        (c.node.symbol.qname, c.node.symbol.line, c.edge.label, path_line(c.edge.site)) for c in helper.children
    ] == [
        ("at::native::Square::operator()", 10, "functor", ("src/reduce.cu", 15)),
    ]


# -- the explicit specialisations of one template ---------------------------------------------


def _specialised_tree(count: int, types: tuple[str, ...] = ("float",)) -> dict[str, str]:
    """Flash attention's layout: a template declared in a header, called with template
    arguments known only at run time, and one explicit specialisation per file, each calling
    the launcher of its own head dimension, which launches the one kernel."""
    files = {
        "attn/api.h": "namespace fa {\ntemplate <typename T, int D> void run_(int p);\n}\n",
        "attn/launch.h": (
            "namespace fa {\n"
            "__global__ void the_kernel(int p) {}\n"
            + "".join(
                f"template <typename T> void run_hdim{d}(int p) {{ the_kernel<<<1, 1>>>(p); }}\n" for d in range(count)
            )
            + "}\n"
        ),
        "attn/api.cpp": (
            '#include "api.h"\nnamespace fa {\nvoid dispatch(int p, int d) {\n  run_<float, 64>(p);\n}\n}\n'
        ),
    }
    for d in range(count):
        for type_name in types:
            files[f"attn/kernels/hdim{d:02}_{type_name}.cu"] = (
                '#include "../launch.h"\n'
                "namespace fa {\n"
                "template <>\n"
                f"void run_<{type_name}, {d}>(int p) {{\n"
                f"  run_hdim{d}<{type_name}>(p);\n"
                "}\n"
                "}\n"
            )
    return files


def test_every_explicit_specialisation_of_a_template_is_followed_past_a_dozen(tmp_path):
    # 14 specialisations: a dozen is where a name defined in many unrelated places (`main`)
    # stops being followed; a template's specialisations are each a possibility at run time
    report = traced(tmp_path, _specialised_tree(14), "fa::dispatch", to="fa::run_hdim13")
    assert first_path(report) == [
        ("fa::dispatch", "attn/api.cpp", 3, None),
        ("fa::run_", "attn/kernels/hdim13_float.cu", 4, "call"),
        ("fa::run_hdim13", "attn/launch.h", 16, "call"),
    ]
    (path,) = report.trace.paths or []
    assert len(path[1].edge.candidates) == 14  # type: ignore[union-attr]


def test_paths_that_differ_only_in_a_specialisation_are_one_path_listing_the_others(tmp_path):
    # two head dimensions, two element types: the float and double specialisations of one head
    # dimension call the same launcher, so their paths are one path and a variant
    report = traced(tmp_path, _specialised_tree(2, ("double", "float")), "fa::dispatch", to="fa::the_kernel")
    document = trace_json(report, str(tmp_path / "tree"), "fa::the_kernel")
    listed = [[(hop["symbol"], hop["file"], hop["line"]) for hop in path] for path in document["paths"]]
    variants = [
        [[(hop["symbol"], hop["file"], hop["line"]) for hop in path] for path in group]
        for group in document["variant_paths"]
    ]
    assert document["path_variants"] == [2, 2]
    assert [path[1:3] for path in listed] == [
        [("fa::run_", "attn/kernels/hdim00_double.cu", 4), ("fa::run_hdim0", "attn/launch.h", 3)],
        [("fa::run_", "attn/kernels/hdim01_double.cu", 4), ("fa::run_hdim1", "attn/launch.h", 4)],
    ]
    assert [[path[1:3] for path in group] for group in variants] == [
        [[("fa::run_", "attn/kernels/hdim00_float.cu", 4), ("fa::run_hdim0", "attn/launch.h", 3)]],
        [[("fa::run_", "attn/kernels/hdim01_float.cu", 4), ("fa::run_hdim1", "attn/launch.h", 4)]],
    ]
