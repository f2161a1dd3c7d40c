"""The same questions on a real PyTorch 2.4.0 source tree, when EXPLORER_REAL_TORCH names one.

    EXPLORER_REAL_TORCH=/path/to/pytorch python3 -m pytest tests/test_real_torch.py

Lines are those of PyTorch 2.4.0 (the MetaX-MACA/mcPytorch fork, whose own `#if
defined(USE_MACA)` branches are checked too). Indexing the tree takes about half a minute.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from explorer.analysis.details import describe
from explorer.index.build import RefreshReport, refresh
from explorer.index.store import IndexStore
from explorer.names.lookup import look_up
from explorer.names.search import search_symbols
from tests.places import path_line
from tests.real_chains import CONV2D_FORWARD_TO_CUDNN

REAL_TREE = os.environ.get("EXPLORER_REAL_TORCH")

pytestmark = [
    pytest.mark.real_torch,
    pytest.mark.skipif(not REAL_TREE, reason="set EXPLORER_REAL_TORCH to a PyTorch 2.4.0 source tree"),
]


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RefreshReport, IndexStore]]:
    root = str(Path(REAL_TREE).resolve())
    if (Path(root) / "version.txt").read_text().strip() != "2.4.0":
        pytest.skip("the expected lines are those of PyTorch 2.4.0")
    index_path = tmp_path_factory.mktemp("real-index") / "index.sqlite"
    report = refresh(root, index_path)
    store = IndexStore.open(index_path)
    yield report, store
    store.close()


def test_the_whole_tree_is_indexed(indexed):
    report, _ = indexed
    assert report.stats.files > 8_500
    assert report.parsed == report.stats.files  # a first build parses everything it indexes
    assert report.stats.symbols > 190_000 and report.stats.calls > 1_000_000
    assert [(d.path, d.reason) for d in report.skipped] == [
        ("aten/src/ATen/native/SobolEngineOpsUtils.cpp", "larger than the 2.0 MiB limit (2.1 MiB)"),
    ]
    # the two valid files the tree-sitter grammar cannot read (runtime_wrappers.py:1036,
    # rendezvous/utils.py:85) are read through libcst (test_python_grammar_gaps.py)
    assert report.partial == []


def test_search_conv2d_finds_the_functional_alias_the_operators_and_the_kernels(indexed):
    _, store = indexed
    found = [(h.symbol.qname, h.symbol.path, h.symbol.line) for h in search_symbols(store, "conv2d")]
    assert found[:2] == [
        ("aten::conv2d", "aten/src/ATen/native/native_functions.yaml", 1707),
        ("aten::conv2d.padding", "aten/src/ATen/native/native_functions.yaml", 1720),
    ]
    assert ("torch.nn.functional.conv2d", "torch/nn/functional.py", 87) in found[:5]
    # operators C++ registers (TORCH_LIBRARY(quantized, m)) are exact matches too, after the YAML's
    assert ("quantized::conv2d", "aten/src/ATen/native/quantized/library.cpp", 69) in found
    found = [(h.symbol.qname, h.symbol.path, h.symbol.line) for h in search_symbols(store, "conv2d", 30)]
    assert ("at::native::conv2d_symint", "aten/src/ATen/native/Convolution.cpp", 945) in found
    assert ("at::native::conv2d_padding_symint", "aten/src/ATen/native/Convolution.cpp", 1093) in found
    assert ("torch.nn.modules.conv.Conv2d", "torch/nn/modules/conv.py", 311) in found
    assert search_symbols(store, "Conv2d", 1)[0].symbol.qname == "torch.nn.modules.conv.Conv2d"
    assert search_symbols(store, "cudnnconvfwd", 1)[0].symbol.qname == "cudnnConvolutionForward"


def test_public_names_resolve_through_re_exports(indexed):
    _, store = indexed
    for name in ("torch.nn.Conv2d", "nn.Conv2d"):
        [conv] = look_up(store, name).symbols
        assert (conv.qname, conv.path, conv.line) == ("torch.nn.modules.conv.Conv2d", "torch/nn/modules/conv.py", 311)
    [alias] = look_up(store, "F.conv2d").symbols
    details = describe(store, REAL_TREE, alias)
    assert [s.qname for s in details.resolves_to] == ["aten::conv2d", "aten::conv2d.padding"]


def test_operator_dispatch_tables_reach_their_kernels(indexed):
    _, store = indexed
    [conv2d] = look_up(store, "aten::conv2d").symbols
    rows = describe(store, REAL_TREE, conv2d).kernels
    assert [(r.key, r.kernel, [(s.path, s.line) for s in r.definitions]) for r in rows] == [
        ("CompositeImplicitAutograd", "at::native::conv2d_symint", [("aten/src/ATen/native/Convolution.cpp", 945)]),
        # functorch's `m.impl("conv2d", native::conv2d_symint)` in namespace at::functorch
        # (aten/src/ATen/functorch/BatchRulesDecompositions.cpp:318)
        ("FuncTorchBatchedDecomposition", "at::native::conv2d_symint", [("aten/src/ATen/native/Convolution.cpp", 945)]),
    ]
    [addmm_out] = look_up(store, "aten::addmm.out").symbols
    kernels = {r.key: [(s.path, s.line) for s in r.definitions] for r in describe(store, REAL_TREE, addmm_out).kernels}
    assert kernels["CPU"] == [("aten/src/ATen/native/LinearAlgebra.cpp", 1618)]
    assert kernels["CUDA"] == [("aten/src/ATen/native/cuda/Blas.cpp", 519)]  # TORCH_IMPL_FUNC(addmm_out_cuda)
    assert kernels["MPS"] == [("aten/src/ATen/native/mps/operations/LinearAlgebra.mm", 676)]
    [convolution] = look_up(store, "aten::convolution").symbols
    [(path, formulas)] = describe(store, REAL_TREE, convolution).derivatives
    assert (path, formulas.line, [g for g, _ in formulas.formulas]) == (
        "tools/autograd/derivatives.yaml",
        2323,
        ["input, weight, bias", "result"],
    )


def test_most_dispatch_kernels_are_found(indexed):
    _, store = indexed
    total, defined = store.db.execute(
        "SELECT COUNT(*), SUM(EXISTS (SELECT 1 FROM symbols s WHERE s.qname = d.kernel)) FROM dispatch d "
        "JOIN files f ON f.id = d.file_id WHERE f.path LIKE '%.yaml'"
    ).fetchone()
    assert total > 4_000
    # macros of the same file are expanded (CREATE_UNARY_TORCH_IMPL_FUNC(acos_out, acos_stub),
    # CREATE_UNARY_UFUNC(abs) through three other macros); the rest mostly come from macros
    # defined in headers, or are generated at build time
    assert defined / total > 0.96
    # TORCH_LIBRARY_IMPL / RegisterOperators rows: a named kernel is found, looked up from the
    # namespaces around its registration; a lambda is one (shown unresolved)
    from explorer.resolve.nodes import registered_functions

    rows = store.db.execute(
        "SELECT d.kernel, f.path FROM dispatch d JOIN files f ON f.id = d.file_id WHERE f.path NOT LIKE '%.yaml'"
    ).fetchall()
    named = [(kernel, path) for kernel, path in rows if not kernel.startswith("<")]
    # PyTorch 2.4.0: 1,848 registered kernels, 1,695 named in a namespace or by function
    # (a lambda at global scope is `<lambda at line N>`), 1,685 of them found; 339 of them are
    # BatchRulesDecompositions.cpp's, which its own macros write (`#define OP_DECOMPOSE(op)
    # m.impl(#op, ...)` at line 18), seen since the preprocessor expands a file's macros. The
    # RegisterOperators::options() chains of the dispatcher's own tests are read, e.g.
    # kernel_function_test.cpp:59 `.kernel<decltype(incrementKernel), &incrementKernel>(DispatchKey::CPU)`,
    # op_registration_test.cpp:414 `.kernel<DummyKernelWithIntParam>(c10::DispatchKey::CPU)`;
    # functorch's macro-made kernels are named through SINGLE_ARG (BatchRulesNorm.cpp:870
    # NATIVE_BATCH_NORM_BACKWARD_BATCH_RULE(...) is NativeBatchNormBackwardBatchRuleHelper<...>::apply,
    # 802-805; BatchRulesReduceOps.cpp:470 REDUCTION_NO_KEEPDIM_ARG(cumsum) is
    # boxed_reduction_batch_rule, 432-434), so none stays `<kernel at line N>`.
    assert (len(rows), len(named)) == (1_848, 1_695)
    assert sum(bool(registered_functions(store, kernel, path)) for kernel, path in named) == 1_685
    options = {
        (kernel, path.rpartition("/")[2], line, operator, key)
        for kernel, path, line, operator, key in store.db.execute(
            "SELECT d.kernel, f.path, d.line, d.operator, d.key FROM dispatch d JOIN files f ON f.id = d.file_id"
            " WHERE f.path LIKE '%_test.cpp'"
        )
    }
    assert {
        ("incrementKernel", "kernel_function_test.cpp", 59, "_test::my_op", "CPU"),
        ("DummyKernelWithIntParam::operator()", "op_registration_test.cpp", 414, "_test::dummy", "CPU"),
        ("MockKernel::operator()", "op_registration_test.cpp", 415, "_test::dummy", "CUDA"),
        ("kernelWithoutInputs", "kernel_function_test.cpp", 524, "_test::no_tensor_args", "CompositeImplicitAutograd"),
        ("<lambda at line 262>", "kernel_lambda_test.cpp", 262, "_test::tensor_input", "CUDA"),
    } <= options
    assert len([row for row in rows if row[0].startswith("<kernel at line")]) == 0
    [acos] = look_up(store, "at::native::acos_out").symbols
    assert (acos.kind.value, acos.path, acos.line) == ("impl_func", "aten/src/ATen/native/UnaryOps.cpp", 321)
    [ceil] = look_up(store, "at::native::ceil_out").symbols  # a macro whose body has a comment
    assert (ceil.path, ceil.line) == ("aten/src/ATen/native/UnaryOps.cpp", 316)
    [sparse_abs] = look_up(store, "at::native::abs_sparse_csr").symbols
    assert (sparse_abs.path, sparse_abs.line) == ("aten/src/ATen/native/sparse/SparseCsrTensorMath.cpp", 452)


def test_both_sides_of_preprocessor_conditionals_are_indexed(indexed):
    _, store = indexed
    assert [(s.path, s.line) for s in look_up(store, "at::native::cudnn_convolution").symbols] == [
        ("aten/src/ATen/native/cudnn/ConvPlaceholders.cpp", 28),  # #if !AT_CUDNN_ENABLED()
        ("aten/src/ATen/native/cudnn/ConvShared.cpp", 240),
    ]
    # the vendor fork's own branch: #if defined(USE_MACA)
    assert [(s.path, s.line) for s in look_up(store, "at::native::cudnn_convolution_bias_fused").symbols] == [
        ("aten/src/ATen/native/cudnn/ConvPlaceholders.cpp", 42),
        ("aten/src/ATen/native/cudnn/ConvShared.cpp", 819),
    ]


def test_vendor_calls_are_external_symbols(indexed):
    _, store = indexed
    [forward] = look_up(store, "cudnnConvolutionForward").symbols
    details = describe(store, REAL_TREE, forward)
    assert (forward.kind.value, forward.lang.value, forward.path) == ("external", "vendor", None)
    assert path_line(details.first_call_site) == ("aten/src/ATen/native/cudnn/Conv_v7.cpp", 759)


def test_conv2d_traces_to_cudnn_convolution_forward_through_the_2_4_chain(indexed):
    from explorer.analysis.trace import trace_symbol

    _, store = indexed
    report = trace_symbol(store, str(Path(REAL_TREE).resolve()), "torch.nn.Conv2d", to="cudnnConvolutionForward")
    path = [
        (hop.node.symbol.qname, hop.node.symbol.path, hop.node.symbol.line, hop.edge.label if hop.edge else None)
        for hop in report.trace.paths[0]
    ]
    assert path[:5] == [
        ("torch.nn.modules.conv.Conv2d", "torch/nn/modules/conv.py", 311, None),
        ("torch.nn.modules.module.Module.__call__", "torch/nn/modules/module.py", 1675, "method"),
        ("torch.nn.modules.module.Module._wrapped_call_impl", "torch/nn/modules/module.py", 1549, "alias"),
        ("torch.nn.modules.module.Module._call_impl", "torch/nn/modules/module.py", 1555, "method"),
        ("torch.nn.modules.conv.Conv2d.forward", "torch/nn/modules/conv.py", 457, "method"),
    ]
    assert path[5:] == CONV2D_FORWARD_TO_CUDNN
    # Conv_v7.cpp:759 `            cudnnConvolutionForward(`: the call's column too, 12
    site = report.trace.paths[0][-1].edge.site
    assert (path_line(site), site.column if site is not None else None) == (
        ("aten/src/ATen/native/cudnn/Conv_v7.cpp", 759),
        12,
    )


@pytest.mark.parametrize(
    "query, target, last_hops",
    [
        ("torch.nn.Linear", "^cublas", ["at::native::addmm_out_cuda", "at::native::addmm_out_cuda_impl"]),
        ("torch.nn.BatchNorm2d", "cudnnBatchNormalizationForward", ["at::native::cudnn_batch_norm"]),
        ("torch.nn.ReLU", "launch_vectorized_kernel|vectorized_elementwise_kernel", []),
        # REGISTER_CUDA_DISPATCH in the #else half of cudnn/RNN.cpp, in at::native
        (
            "torch.nn.LSTM",
            "cudnnRNNForward",
            ["at::native::lstm_cudnn_stub", "at::native::lstm_cudnn", "aten::_cudnn_rnn"],
        ),
        # _softmax's CUDA kernel comes from its structured_delegate, though it lists other keys
        ("torch.nn.Softmax", "softmax_cuda_out", ["aten::_softmax", "aten::_softmax.out"]),
        ("torch.nn.MaxPool2d", "max_pool_forward_nchw", ["at::native::max_pool2d_with_indices_out_cuda"]),
        ("torch.nn.LayerNorm", "vectorized_layer_norm_kernel|LayerNormForwardCUDAKernel", []),
    ],
)
def test_other_modules_reach_their_vendor_or_kernel(indexed, query, target, last_hops):
    from explorer.analysis.trace import trace_symbol

    _, store = indexed
    report = trace_symbol(store, str(Path(REAL_TREE).resolve()), query, to=target)
    assert report.trace.paths, (
        f"{query} does not reach /{target}/; deepest: {[h.node.symbol.qname for h in report.trace.deepest]}"
    )
    names = [hop.node.symbol.qname for hop in report.trace.paths[0]]
    for name in last_hops:
        assert name in names


def test_conv2d_diagram_keeps_every_path_and_folds_the_rest_to_the_budget(indexed):
    from explorer.diagram.build import trace_diagram
    from explorer.diagram.fold import fold_widest
    from explorer.diagram.model import MORE, Emphasis

    _, store = indexed
    report = trace_symbol_real(store, "torch.nn.Conv2d", "cudnnConvolutionForward")
    diagram = trace_diagram(report)
    folded = fold_widest(diagram, 60)
    on_paths = [n for n in folded.nodes if n.emphasis is Emphasis.PATH]
    # value flow dropped three name guesses of the name rules (`set.add` in named_children as
    # aten::add.Tensor and add.Scalar; the `_compiled_call_impl = None` attribute as a callee)
    # and names `_pair` as the `parse` that `_ntuple(2)` returns (utils.py:10). The 32 nodes on
    # the paths are those of the chain above (and the overloads folded beside them), try_all
    # (Conv_v7.cpp:545) and the lambda it calls (743) among them; the 147 in all and the folds
    # off the paths are a snapshot of issue 24's C++ rules (typed receivers, overrides, lambdas
    # handed to helpers), taken when they landed; 149 since a class named in a call runs its
    # constructors: AlgoIterator::AlgoIterator (`AlgoIterator<cudnnConvolutionFwdAlgoPerf_t>(args, benchmark)`,
    # Conv_v7.cpp:742) and c10::complex::complex joined two folds
    assert (len(diagram.nodes), len(folded.nodes), len(on_paths)) == (149, 60, 32)
    assert sorted(len(n.members) for n in folded.nodes if n.kind == MORE) == [2, 6, 6, 8, 11, 13, 15, 36]
    placed = {(n.name, n.path, n.line) for n in on_paths}
    assert {
        ("Conv2d._conv_forward", "torch/nn/modules/conv.py", 449),
        ("aten::conv2d", "aten/src/ATen/native/native_functions.yaml", 1707),
        ("_convolution", "aten/src/ATen/native/Convolution.cpp", 1521),
        ("cudnn_convolution", "aten/src/ATen/native/cudnn/ConvShared.cpp", 240),
        ("raw_cudnn_convolution_forward_out_32bit", "aten/src/ATen/native/cudnn/Conv_v7.cpp", 697),
        ("AlgoIterator::try_all", "aten/src/ATen/native/cudnn/Conv_v7.cpp", 545),
        ("<lambda at line 743>", "aten/src/ATen/native/cudnn/Conv_v7.cpp", 743),
        ("cudnnConvolutionForward", None, None),
    } <= placed


def trace_symbol_real(store, query, target):
    from explorer.analysis.trace import trace_symbol

    return trace_symbol(store, str(Path(REAL_TREE).resolve()), query, to=target)


def test_a_hand_written_torch_c_function_reaches_its_cpp_through_the_method_table(indexed):
    # torch/cuda/__init__.py:895 `torch._C._cuda_synchronize()`; the PyMethodDef entry at
    # torch/csrc/cuda/Module.cpp:1803 names THCPModule_cudaSynchronize (:446), which calls
    # c10::cuda::device_synchronize (:449; c10/cuda/CUDAFunctions.cpp:136), which calls
    # cudaDeviceSynchronize (:141)
    from explorer.analysis.trace import trace_symbol

    _, store = indexed
    report = trace_symbol(store, str(Path(REAL_TREE).resolve()), "torch.cuda.synchronize", to="cudaDeviceSynchronize")
    assert [
        (
            h.node.symbol.qname,
            h.node.symbol.path,
            h.node.symbol.line,
            h.edge.label if h.edge else None,
            path_line(h.edge.site) if h.edge else None,
        )
        for h in report.trace.paths[0]
    ] == [
        ("torch.cuda.synchronize", "torch/cuda/__init__.py", 885, None, None),
        (
            "torch._C._cuda_synchronize",
            "torch/csrc/cuda/Module.cpp",
            1803,
            "method_table",
            ("torch/cuda/__init__.py", 895),
        ),
        (
            "THCPModule_cudaSynchronize",
            "torch/csrc/cuda/Module.cpp",
            446,
            "method_table",
            ("torch/csrc/cuda/Module.cpp", 1803),
        ),
        (
            "c10::cuda::device_synchronize",
            "c10/cuda/CUDAFunctions.cpp",
            136,
            "call",
            ("torch/csrc/cuda/Module.cpp", 449),
        ),
        ("cudaDeviceSynchronize", None, None, "call", ("c10/cuda/CUDAFunctions.cpp", 141)),
    ]


def test_callers_of_a_name_a_factory_made_are_the_calls_of_the_name(indexed):
    # functional.py:799 `max_pool2d = boolean_dispatch(...)` holds the closure `fn` of
    # _jit_internal.py:493; pooling.py:164 `return F.max_pool2d(input, ...)` in
    # MaxPool2d.forward (line 163) calls it. Callers once started at the name, not at the closure
    # that trace shows for it.
    _, store = indexed
    from explorer.analysis.neighbours import neighbours_of

    report = neighbours_of(store, REAL_TREE, "torch.nn.functional.max_pool2d", "callers")
    assert (report.start.symbol.path, report.start.symbol.line) == ("torch/_jit_internal.py", 493)
    found = {(n.node.symbol.qname, n.node.symbol.line, path_line(n.edge.site)) for n in report.found}
    assert ("torch.nn.modules.pooling.MaxPool2d.forward", 163, ("torch/nn/modules/pooling.py", 164)) in found
    assert (
        "torch.ao.nn.quantized.functional.max_pool2d",
        411,
        ("torch/ao/nn/quantized/functional.py", 424),
    ) in found
