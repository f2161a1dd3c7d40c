"""The bundled tree's own instances of the C++ idioms real PyTorch is written with, traced
statically and checked against a run of the bundled runtime on the emulated cuda device.
Every expected hop below was read off the sample sources; none was copied from explorer.

1. launch bounds: `C10_LAUNCH_BOUNDS_1(num_threads()) __global__ void elementwise_kernel`
   (cuda/Loops.cuh:28-29; also `C10_LAUNCH_BOUNDS_1(256)` before `fused_dropout_kernel`,
   Dropout.cu:32-33, and `C10_LAUNCH_BOUNDS_1(block_size)` before `reduce_kernel`,
   Reduce.cuh:24-25). c10/macros/Macros.h expands the macro to `__launch_bounds__` for nvcc
   and to nothing on the emulation.
2. a launch inside a function-local `#define`, invoked in the same body: LAUNCH_FUSED_DROPOUT
   (Dropout.cu:83-90, `torch.nn.Dropout`) and LAUNCH_REDUCE_KERNEL (ReduceSumKernel.cu:24-29,
   `torch.sum`).
3. a header included inside a namespace block:
   `namespace at::native { #include <ATen/native/cuda/Loops.cuh> }` (cuda/UnaryOpsKernel.cu:13-15) makes elementwise_kernel, num_threads and block_work_size
   at::native's, called unqualified by gpu_kernel (UnaryOpsKernel.cu:22); also
   LaunchGeometry.cuh inside `namespace at { namespace native {` (Dropout.cu:17).
4. template specialisations chosen by type: primary `gemm` / `gemm_internal` templates that
   only static_assert (cuda/CUDABlas.h), `template <>` float and double specialisations in
   CUDABlas.cpp calling cublasSgemm / cublasDgemm, called as `gemm<float>(...)` by mm_cuda
   (cuda/Blas.cpp:92) and `gemm_internal<float>(...)` by gemm<float> (CUDABlas.cpp:41):
   `torch.mm`.
5. a reduction taking a functor: `gpu_reduce_kernel(iter, SumOps<float>{})`
   (cuda/ReduceSumKernel.cu:37) launches reduce_kernel (Reduce.cuh), which folds with ops.identity(),
   ops.combine() and ops.project() (SharedReduceOps.h): `torch.sum`.
6. a helper taking a lambda that launches a kernel: `gpu_kernel(iter, [] GPU_LAMBDA (float x)
   ...)` (cuda/UnaryOpsKernel.cu:39), whose body launches elementwise_kernel: `torch.exp`.
7. same-named file-local functions: `blocks_for` (static in Dropout.cu:53, anonymous
   namespace in Indexing.cu:33), each called in its own file; and `exp_kernel`, file-local in
   cpu/UnaryOpsKernel.cpp:10 (static) and cuda/UnaryOpsKernel.cu:38 (anonymous namespace),
   each file registering its own with REGISTER_DISPATCH(exp_stub, &exp_kernel).
8. a functional and an out= overload: `exp(Tensor self) -> Tensor` (native_functions.yaml:211)
   and `exp.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)` (:217), with their own
   kernels (UnaryOps.cpp:35 and :13) and their own @overload stubs (_VariableFunctions.pyi:70
   and :72): `torch.exp(x)` and `torch.exp(x, out=y)`.
9. a functor called directly: `KeepProbability{}(p, train)` (Dropout.cu:76) and
   `ReduceBlockSize()(n)` (ReduceSumKernel.cu:22).
"""

from __future__ import annotations

import json
import shutil

import pytest

from explorer.analysis.trace import trace_symbol
from explorer.resolve.graph import CallGraph
from tests.command_line import invoke
from tests.places import path_line

NATIVE = "aten/src/ATen/native"
YAML = f"{NATIVE}/native_functions.yaml"
PYI = "torch/_C/_VariableFunctions.pyi"
DROPOUT = f"{NATIVE}/cuda/Dropout.cu"
INDEXING = f"{NATIVE}/cuda/Indexing.cu"
LOOPS = f"{NATIVE}/cuda/Loops.cuh"
REDUCE = f"{NATIVE}/cuda/Reduce.cuh"
UNARY_CU = f"{NATIVE}/cuda/UnaryOpsKernel.cu"
UNARY_CPU = f"{NATIVE}/cpu/UnaryOpsKernel.cpp"
UNARY_OPS = f"{NATIVE}/UnaryOps.cpp"
REDUCE_OPS = f"{NATIVE}/ReduceOps.cpp"
SUM_CU = f"{NATIVE}/cuda/ReduceSumKernel.cu"
SHARED_REDUCE = f"{NATIVE}/SharedReduceOps.h"
BLAS = f"{NATIVE}/cuda/Blas.cpp"
CUBLAS = "aten/src/ATen/cuda/CUDABlas.cpp"

needs_compiler = pytest.mark.skipif(
    shutil.which("c++") is None, reason="no C++ compiler: the bundled runtime cannot be built"
)


def callees(store, root, query, backend="cuda"):
    """(name, path, line, edge kind, resolution, call site) of each callee of `query`."""
    tree = trace_symbol(store, root, query, max_depth=1, backend=backend).trace.tree
    return {
        (
            c.node.symbol.qname,
            c.node.symbol.path,
            c.node.symbol.line,
            c.edge.label,
            c.edge.resolution.value,
            path_line(c.edge.site),
        )
        for c in tree.children
    }


def named(found, name):
    """The (name, path, line) of the callees called `name`."""
    return sorted((n, path, line) for n, path, line, *_ in found if n == name)


def callees_at(store, root, qname, path, line, backend="cuda"):
    """Like callees, for the one definition of `qname` at path:line (a specialisation)."""
    (symbol,) = [s for s in store.symbols_with_qname(qname) if (s.path, s.line) == (path, line)]
    graph = CallGraph(store, root, backend)
    return {
        (
            e.target.symbol.qname,
            e.target.symbol.path,
            e.target.symbol.line,
            e.label,
            e.resolution.value,
            path_line(e.site),
        )
        for e in graph.edges(graph.node(symbol))
    }


def chain(store, root, query, to, backend="cuda"):
    """The (name, path, line) hops of the first path from `query` to a definition of `to`."""
    report = trace_symbol(store, root, query, to=to, backend=backend)
    assert report.trace.paths, f"no path from {query} to {to}"
    return [(hop.node.symbol.qname, hop.node.symbol.path, hop.node.symbol.line) for hop in report.trace.paths[0]]


def compare(code):
    result = invoke(["run", "--json", "--compare", "-c", code])
    assert result.exit_code == 0, result.output
    run = json.loads(result.stdout)
    return run["comparison"], run["tree"]


def confirmed(comparison):
    return {(edge["caller"], edge["callee"], edge["static_kind"]) for edge in comparison["confirmed"]}


def frame_names(tree):
    names, stack = set(), [tree]
    while stack:
        frame = stack.pop()
        names.add(frame["name"])
        stack.extend(frame["children"])
    return names


# -- 1. launch bounds ----------------------------------------------------------------------


def test_kernels_behind_launch_bounds_are_kernels_at_their_global_line(sample_store):
    kernels = {
        qname: sorted((s.path, s.line, s.kind.value) for s in sample_store.symbols_with_qname(qname))
        for qname in ("at::native::fused_dropout_kernel", "at::native::elementwise_kernel", "at::native::reduce_kernel")
    }
    assert kernels == {
        "at::native::fused_dropout_kernel": [(DROPOUT, 33, "kernel")],
        "at::native::elementwise_kernel": [(LOOPS, 29, "kernel")],
        "at::native::reduce_kernel": [(REDUCE, 25, "kernel")],
    }


def test_the_launch_bounds_macro_has_both_expansions(sample_store):
    macros = sorted((s.path, s.line) for s in sample_store.symbols_with_qname("C10_LAUNCH_BOUNDS_1"))
    assert macros == [("c10/macros/Macros.h", 25), ("c10/macros/Macros.h", 31)]


# -- 2. a launch written in a function-local #define -------------------------------------


def test_native_dropout_cuda_reaches_each_idiom(sample_store, sample_root):
    found = callees(sample_store, sample_root, "at::native::native_dropout_cuda")
    assert {
        ("at::native::KeepProbability::operator()", DROPOUT, 47, "call", "exact", (DROPOUT, 76)),
        ("at::native::elementwise_threads", f"{NATIVE}/cuda/LaunchGeometry.cuh", 6, "call", "exact", (DROPOUT, 77)),
        ("at::native::blocks_for", DROPOUT, 53, "call", "exact", (DROPOUT, 78)),
        # the first of the macro's two invocations
        ("at::native::fused_dropout_kernel", DROPOUT, 33, "launch", "exact", (DROPOUT, 88)),
    } <= found
    assert not any(name == "at::native::blocks_for" and path == INDEXING for name, path, *_ in found)


def test_the_reduction_launches_its_kernel_from_a_local_macro(sample_store, sample_root):
    found = callees(sample_store, sample_root, "at::native::gpu_reduce_kernel")
    launches = {(name, path, line, site) for name, path, line, kind, _, site in found if kind == "launch"}
    # the first of LAUNCH_REDUCE_KERNEL's two invocations (lines 27 and 29)
    assert launches == {("at::native::reduce_kernel", REDUCE, 25, (SUM_CU, 27))}


# -- 3. a header included inside a namespace block ----------------------------------------


def test_the_namespace_included_header_defines_at_native_functions(sample_store):
    defined = {
        qname: sorted((s.path, s.line) for s in sample_store.symbols_with_qname(qname))
        for qname in ("at::native::num_threads", "at::native::thread_work_size", "at::native::block_work_size")
    }
    assert defined == {
        "at::native::num_threads": [(LOOPS, 13)],
        "at::native::thread_work_size": [(LOOPS, 17)],
        "at::native::block_work_size": [(LOOPS, 21)],
    }


def test_unqualified_calls_reach_the_namespace_included_header(sample_store, sample_root):
    found = callees(sample_store, sample_root, "at::native::gpu_kernel")
    assert {
        ("at::native::block_work_size", LOOPS, 21, "call", "exact", (UNARY_CU, 27)),
        ("at::native::num_threads", LOOPS, 13, "call", "exact", (UNARY_CU, 29)),
        ("at::native::elementwise_kernel", LOOPS, 29, "launch", "exact", (UNARY_CU, 29)),
    } <= found
    # (exp_kernel is defined twice, file-local in each file: the one of UnaryOpsKernel.cu)
    assert named(
        callees_at(sample_store, sample_root, "at::native::exp_kernel", UNARY_CU, 38), "at::native::gpu_kernel"
    ) == [
        ("at::native::gpu_kernel", UNARY_CU, 22),
    ]


# -- 4. template specialisations chosen by type --------------------------------------------


def test_mm_reaches_cublas_sgemm_through_the_float_specialisations(sample_store, sample_root):
    assert chain(sample_store, sample_root, "torch._C._VariableFunctions.mm", "cublasSgemm") == [
        ("torch._C._VariableFunctions.mm", PYI, 74),
        ("aten::mm", YAML, 206),
        ("at::native::mm_cuda", BLAS, 72),
        ("at::cuda::blas::gemm", CUBLAS, 37),
        ("at::cuda::blas::gemm_internal", CUBLAS, 52),
        ("cublasSgemm", None, None),
    ]


def test_each_explicit_template_argument_picks_one_specialisation(sample_store, sample_root):
    # gemm<float>(...) in mm_cuda: the float specialisation, not gemm<double> (line 45) nor the
    # primary template of CUDABlas.h, which only static_asserts
    assert named(callees(sample_store, sample_root, "at::native::mm_cuda"), "at::cuda::blas::gemm") == [
        ("at::cuda::blas::gemm", CUBLAS, 37),
    ]
    defined = {(s.path, s.line) for s in sample_store.symbols_with_qname("at::cuda::blas::gemm")}
    assert {(CUBLAS, 37), (CUBLAS, 45)} <= defined
    float_gemm = callees_at(sample_store, sample_root, "at::cuda::blas::gemm", CUBLAS, 37)
    double_gemm = callees_at(sample_store, sample_root, "at::cuda::blas::gemm", CUBLAS, 45)
    assert named(float_gemm, "at::cuda::blas::gemm_internal") == [("at::cuda::blas::gemm_internal", CUBLAS, 52)]
    assert named(double_gemm, "at::cuda::blas::gemm_internal") == [("at::cuda::blas::gemm_internal", CUBLAS, 64)]
    float_internal = callees_at(sample_store, sample_root, "at::cuda::blas::gemm_internal", CUBLAS, 52)
    double_internal = callees_at(sample_store, sample_root, "at::cuda::blas::gemm_internal", CUBLAS, 64)
    assert {name for name, path, *_ in float_internal if path is None} == {"cublasSgemm"}
    assert {name for name, path, *_ in double_internal if path is None} == {"cublasDgemm"}


# -- 5. a reduction taking a functor --------------------------------------------------------


def test_sum_reaches_the_reduction_kernel(sample_store, sample_root):
    assert chain(sample_store, sample_root, "torch._C._VariableFunctions.sum", "reduce_kernel") == [
        ("torch._C._VariableFunctions.sum", PYI, 73),
        ("aten::sum", YAML, 222),
        ("at::native::sum", REDUCE_OPS, 13),
        ("at::native::sum_stub", REDUCE_OPS, 10),
        ("at::native::sum_kernel_cuda", SUM_CU, 36),
        ("at::native::gpu_reduce_kernel", SUM_CU, 17),
        ("at::native::reduce_kernel", REDUCE, 25),
    ]


def test_the_reduction_kernel_calls_the_functor_it_was_given(sample_store, sample_root):
    # sum_kernel_cuda passes SumOps<float>{}; gpu_reduce_kernel hands it to reduce_kernel, whose
    # ops.identity(), ops.combine() and ops.project() are SumOps's
    report = trace_symbol(sample_store, sample_root, "at::native::sum_kernel_cuda", max_depth=3, backend="cuda")
    (helper,) = [c for c in report.trace.tree.children if c.node.symbol.qname == "at::native::gpu_reduce_kernel"]
    (kernel,) = [c for c in helper.children if c.node.symbol.qname == "at::native::reduce_kernel"]
    assert {(c.node.symbol.qname, c.node.symbol.path, c.node.symbol.line) for c in kernel.children} >= {
        ("at::native::SumOps::identity", SHARED_REDUCE, 11),
        ("at::native::SumOps::combine", SHARED_REDUCE, 12),
        ("at::native::SumOps::project", SHARED_REDUCE, 13),
    }


# -- 6. a helper taking a lambda that launches a kernel -------------------------------------


def test_exp_reaches_the_elementwise_launch_of_gpu_kernel(sample_store, sample_root):
    assert chain(sample_store, sample_root, "aten::exp", "elementwise_kernel") == [
        ("aten::exp", YAML, 211),
        ("at::native::exp", UNARY_OPS, 35),
        ("at::native::exp_out", UNARY_OPS, 13),
        ("at::native::exp_stub", UNARY_OPS, 10),
        ("at::native::exp_kernel", UNARY_CU, 38),
        ("at::native::gpu_kernel", UNARY_CU, 22),
        ("at::native::elementwise_kernel", LOOPS, 29),
    ]


def test_the_kernel_runs_the_lambda_gpu_kernel_was_handed(sample_store, sample_root):
    # the lambda (UnaryOpsKernel.cu:39) is gpu_kernel's `f` (:22), passed on in the launch's
    # arguments (:30) as elementwise_kernel's `f` (Loops.cuh:29), called as f(in[index]) (:34)
    # (exp_kernel names two file-local functions, cpu's and cuda's: the entry stands for both)
    assert chain(sample_store, sample_root, "at::native::exp_kernel", "<lambda at line 39>") == [
        ("at::native::exp_kernel", None, None),
        ("at::native::exp_kernel", UNARY_CU, 38),
        ("at::native::gpu_kernel", UNARY_CU, 22),
        ("at::native::elementwise_kernel", LOOPS, 29),
        ("at::native::<lambda at line 39>", UNARY_CU, 39),
    ]


# -- 7. same-named file-local functions -----------------------------------------------------


def test_index_select_reaches_its_own_file_local_helper(sample_store, sample_root):
    found = callees(sample_store, sample_root, "at::native::index_select_cuda")
    assert named(found, "at::native::blocks_for") == [("at::native::blocks_for", INDEXING, 33)]


def test_each_registration_names_the_file_local_function_of_its_own_file(sample_store, sample_root):
    found = callees(sample_store, sample_root, "at::native::exp_stub", backend="all")
    assert named(found, "at::native::exp_kernel") == [
        ("at::native::exp_kernel", UNARY_CPU, 10),
        ("at::native::exp_kernel", UNARY_CU, 38),
    ]
    assert named(
        callees(sample_store, sample_root, "at::native::exp_stub", backend="cuda"), "at::native::exp_kernel"
    ) == [
        ("at::native::exp_kernel", UNARY_CU, 38),
    ]
    assert named(
        callees(sample_store, sample_root, "at::native::exp_stub", backend="cpu"), "at::native::exp_kernel"
    ) == [
        ("at::native::exp_kernel", UNARY_CPU, 10),
    ]


# -- 8. a functional and an out= overload ---------------------------------------------------


def test_the_binding_stands_for_both_overloads(sample_store, sample_root):
    # one binding per name, shown at its first stub, choosing between the overloads at run time
    found = callees(sample_store, sample_root, "torch._C._VariableFunctions.exp")
    assert {(name, path, line, resolution, site) for name, path, line, _, resolution, site in found} == {
        ("aten::exp", YAML, 211, "ambiguous", (PYI, 70)),
        ("aten::exp.out", YAML, 217, "ambiguous", (PYI, 70)),
    }


def test_the_python_call_picks_the_overload_by_its_arguments(sample_store, sample_root):
    assert chain(sample_store, sample_root, "torch.exp", "exp_out")[:3] == [
        ("torch._C._VariableFunctions.exp", PYI, 70),
        ("aten::exp", YAML, 211),
        ("at::native::exp", UNARY_OPS, 35),
    ]


def test_the_functional_and_the_out_overload_have_their_own_kernels(sample_store, sample_root):
    assert named(callees(sample_store, sample_root, "aten::exp"), "at::native::exp") == [
        ("at::native::exp", UNARY_OPS, 35)
    ]
    assert named(callees(sample_store, sample_root, "aten::exp.out"), "at::native::exp_out") == [
        ("at::native::exp_out", UNARY_OPS, 13),
    ]
    assert chain(sample_store, sample_root, "aten::exp.out", "elementwise_kernel")[:3] == [
        ("aten::exp.out", YAML, 217),
        ("at::native::exp_out", UNARY_OPS, 13),
        ("at::native::exp_stub", UNARY_OPS, 10),
    ]


# -- 9. a functor called directly -----------------------------------------------------------


def test_functors_called_directly_reach_their_call_operator(sample_store, sample_root):
    found = callees(sample_store, sample_root, "at::native::gpu_reduce_kernel")
    assert ("at::native::ReduceBlockSize::operator()", REDUCE, 17, "call", "exact", (SUM_CU, 22)) in found
    dropout = callees(sample_store, sample_root, "at::native::native_dropout_cuda")
    assert ("at::native::KeepProbability::operator()", DROPOUT, 47, "call", "exact", (DROPOUT, 76)) in dropout


# -- the runs -------------------------------------------------------------------------------


@needs_compiler
def test_a_dropout_run_has_no_call_the_static_graph_misses():
    comparison, _ = compare("import torch; m = torch.nn.Dropout(0.5); m(torch.randn(4, 8, device='cuda'))")
    assert comparison["dynamic_only"] == []
    # (the run attributes the inline `elementwise_threads` to another call site, and records
    # no frame for the functor's inline operator(): neither is a dynamic-only edge)
    assert {
        ("at::native::native_dropout_cuda", "at::native::fused_dropout_kernel", "launch"),
        ("at::native::native_dropout_cuda", "at::native::blocks_for", "call"),
    } <= confirmed(comparison)


@needs_compiler
def test_an_embedding_run_reaches_the_file_local_helper_of_indexing():
    code = "import torch; m = torch.nn.Embedding(10, 3).to('cuda'); m(torch.tensor([1, 2], device='cuda'))"
    comparison, _ = compare(code)
    assert comparison["dynamic_only"] == []
    assert ("at::native::index_select_cuda", "at::native::blocks_for", "call") in confirmed(comparison)


@needs_compiler
def test_an_mm_run_takes_the_float_specialisations():
    comparison, tree = compare(
        "import torch; torch.mm(torch.randn(3, 4, device='cuda'), torch.randn(4, 2, device='cuda'))"
    )
    assert comparison["dynamic_only"] == []
    assert {
        ("aten::mm", "at::native::mm_cuda", "dispatch:CUDA"),
        ("at::native::mm_cuda", "at::cuda::blas::gemm", "call"),
        ("at::cuda::blas::gemm", "at::cuda::blas::gemm_internal", "call"),
        ("at::cuda::blas::gemm_internal", "cublasSgemm", "call"),
    } <= confirmed(comparison)
    assert "cublasDgemm" not in frame_names(tree)


@needs_compiler
def test_a_sum_run_launches_the_reduction_from_its_local_macro():
    comparison, _ = compare("import torch; torch.sum(torch.randn(100, device='cuda'))")
    assert comparison["dynamic_only"] == []
    assert {
        ("aten::sum", "at::native::sum", "dispatch:CUDA"),
        ("at::native::sum_kernel_cuda", "at::native::gpu_reduce_kernel", "call"),
        ("at::native::gpu_reduce_kernel", "at::native::reduce_kernel", "launch"),
    } <= confirmed(comparison)


@needs_compiler
def test_an_exp_run_launches_through_gpu_kernel():
    comparison, _ = compare("import torch; torch.exp(torch.randn(3, 5, device='cuda'))")
    assert comparison["dynamic_only"] == []
    assert {
        ("torch._C._VariableFunctions.exp", "aten::exp", "binding"),
        ("aten::exp", "at::native::exp", "dispatch:CUDA"),
        ("at::native::exp", "at::native::exp_out", "call"),
        ("at::native::exp_kernel", "at::native::gpu_kernel", "call"),
        ("at::native::gpu_kernel", "at::native::elementwise_kernel", "launch"),
    } <= confirmed(comparison)


@needs_compiler
def test_an_exp_out_run_takes_the_out_overload_only():
    code = (
        "import torch; x = torch.randn(3, 5, device='cuda'); y = torch.empty(3, 5, device='cuda'); torch.exp(x, out=y)"
    )
    comparison, tree = compare(code)
    assert comparison["dynamic_only"] == []
    assert {
        ("torch._C._VariableFunctions.exp", "aten::exp.out", "binding"),
        ("aten::exp.out", "at::native::exp_out", "dispatch:CUDA"),
    } <= confirmed(comparison)
    names = frame_names(tree)
    assert "aten::exp.out" in names and "aten::exp" not in names and "at::native::exp" not in names
