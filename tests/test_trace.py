"""Static call chains: the bundled tree's end-to-end chains, and each resolution rule on a
small tree of its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.analysis.callgraph import python_call_graph
from explorer.analysis.neighbours import neighbours_of
from explorer.analysis.trace import TraceReport, trace_symbol
from explorer.errors import UnknownSymbolError, UsageError
from explorer.index.build import refresh
from explorer.index.store import IndexStore
from explorer.render.json_out import trace_json
from explorer.resolve.graph import CallGraph
from tests.conftest import write_tree
from tests.places import path_line
from tests.test_binding_layer import indexed

MODULE_CALL = [
    ("python", "torch.nn.modules.module.Module.__call__", "torch/nn/modules/module.py:233", "method"),
    ("python", "torch.nn.modules.module.Module._wrapped_call_impl", "torch/nn/modules/module.py:186", "alias"),
    ("python", "torch.nn.modules.module.Module._call_impl", "torch/nn/modules/module.py:189", "method"),
]


def hops(path) -> list[tuple[str, str, str, str | None]]:
    return [
        (
            hop.node.layer.value,
            hop.node.symbol.qname,
            f"{hop.node.symbol.path}:{hop.node.symbol.line}",
            hop.edge.label if hop.edge else None,
        )
        for hop in path
    ]


def shortest(store: IndexStore, root: str, query: str, to: str, backend: str = "cuda") -> list[tuple]:
    report = trace_symbol(store, root, query, to=to, backend=backend)
    assert report.trace.paths, f"no path from {query} to {to}"
    return hops(report.trace.paths[0])


# -- the bundled tree ----------------------------------------------------------------------


def test_conv2d_reaches_cudnn_convolution_forward(sample_store, sample_root):
    assert shortest(sample_store, sample_root, "torch.nn.Conv2d", "cudnnConvolutionForward") == [
        ("python", "torch.nn.modules.conv.Conv2d", "torch/nn/modules/conv.py:187", None),
        *MODULE_CALL,
        ("python", "torch.nn.modules.conv.Conv2d.forward", "torch/nn/modules/conv.py:243", "method"),
        ("python", "torch.nn.modules.conv.Conv2d._conv_forward", "torch/nn/modules/conv.py:228", "method"),
        ("python", "torch.nn.functional.conv2d", "torch/nn/functional.py:37", "call"),
        ("binding", "torch._C._VariableFunctions.conv2d", "torch/_C/_VariableFunctions.pyi:14", "alias"),
        ("yaml", "aten::conv2d", "aten/src/ATen/native/native_functions.yaml:74", "binding"),
        (
            "cpp",
            "at::native::conv2d_symint",
            "aten/src/ATen/native/Convolution.cpp:173",
            "dispatch:CompositeImplicitAutograd",
        ),
        ("yaml", "aten::convolution", "aten/src/ATen/native/native_functions.yaml:63", "call"),
        (
            "cpp",
            "at::native::convolution",
            "aten/src/ATen/native/Convolution.cpp:218",
            "dispatch:CompositeExplicitAutograd",
        ),
        ("yaml", "aten::_convolution", "aten/src/ATen/native/native_functions.yaml:69", "call"),
        (
            "cpp",
            "at::native::_convolution",
            "aten/src/ATen/native/Convolution.cpp:228",
            "dispatch:CompositeExplicitAutograd",
        ),
        ("yaml", "aten::cudnn_convolution", "aten/src/ATen/native/native_functions.yaml:88", "call"),
        ("cpp", "at::native::cudnn_convolution", "aten/src/ATen/native/cudnn/ConvShared.cpp:65", "dispatch:CUDA"),
        ("cpp", "at::native::cudnn_convolution_forward_out", "aten/src/ATen/native/cudnn/ConvShared.cpp:43", "call"),
        ("cpp", "at::native::raw_cudnn_convolution_forward_out", "aten/src/ATen/native/cudnn/Conv_v7.cpp:119", "call"),
        ("cpp", "at::native::split_batch_dim_to_32bit_out", "aten/src/ATen/native/cudnn/Conv_v7.cpp:67", "call"),
        (
            "cpp",
            "at::native::raw_cudnn_convolution_forward_out_32bit",
            "aten/src/ATen/native/cudnn/Conv_v7.cpp:91",
            "fnptr",
        ),
        ("vendor", "cudnnConvolutionForward", "None:None", "call"),
    ]


def test_every_hop_names_the_call_that_leads_to_it(sample_store, sample_root):
    report = trace_symbol(sample_store, sample_root, "torch.nn.Conv2d", to="cudnnConvolutionForward")
    sites = [(hop.edge.label, path_line(hop.edge.site)) for hop in report.trace.paths[0][5:8]]
    assert sites == [
        ("method", ("torch/nn/modules/conv.py", 244)),
        ("call", ("torch/nn/modules/conv.py", 230)),
        ("alias", ("torch/nn/functional.py", 37)),
    ]
    # the kernel definition is ambiguous (cuDNN on one side of an #if, a stub on the other): both kept
    kernel = report.trace.paths[0][15]
    assert kernel.edge.resolution == "ambiguous"
    assert kernel.edge.candidates == (
        "at::native::cudnn_convolution (aten/src/ATen/native/cudnn/ConvPlaceholders.cpp:13)",
        "at::native::cudnn_convolution (aten/src/ATen/native/cudnn/ConvShared.cpp:65)",
    )


def test_linear_reaches_cublas_through_a_structured_kernel(sample_store, sample_root):
    assert shortest(sample_store, sample_root, "torch.nn.Linear", "cublasSgemm")[5:] == [
        ("python", "torch.nn.functional.linear", "torch/nn/functional.py:58", "call"),
        ("binding", "torch._C._nn.linear", "torch/_C/_nn.pyi:9", "alias"),
        ("yaml", "aten::linear", "aten/src/ATen/native/native_functions.yaml:104", "binding"),
        ("cpp", "at::native::linear", "aten/src/ATen/native/Linear.cpp:9", "dispatch:CompositeImplicitAutograd"),
        ("yaml", "aten::addmm", "aten/src/ATen/native/native_functions.yaml:171", "call"),
        ("yaml", "aten::addmm.out", "aten/src/ATen/native/native_functions.yaml:165", "structured"),
        ("cpp", "at::native::addmm_out_cuda", "aten/src/ATen/native/cuda/Blas.cpp:65", "dispatch:CUDA"),
        ("cpp", "at::native::addmm_out_cuda_impl", "aten/src/ATen/native/cuda/Blas.cpp:34", "call"),
        ("cpp", "at::cuda::blas::gemm", "aten/src/ATen/cuda/CUDABlas.cpp:37", "call"),
        ("cpp", "at::cuda::blas::gemm_internal", "aten/src/ATen/cuda/CUDABlas.cpp:52", "call"),
        ("vendor", "cublasSgemm", "None:None", "call"),
    ]


def test_batch_norm_and_lstm_reach_cudnn(sample_store, sample_root):
    assert shortest(sample_store, sample_root, "torch.nn.BatchNorm2d", "cudnnBatchNormalizationForwardTraining")[
        -4:
    ] == [
        (
            "cpp",
            "at::native::_batch_norm_impl_index",
            "aten/src/ATen/native/Normalization.cpp:141",
            "dispatch:CompositeImplicitAutograd",
        ),
        ("yaml", "aten::cudnn_batch_norm", "aten/src/ATen/native/native_functions.yaml:83", "call"),
        ("cpp", "at::native::cudnn_batch_norm", "aten/src/ATen/native/cudnn/BatchNorm.cpp:36", "dispatch:CUDA"),
        ("vendor", "cudnnBatchNormalizationForwardTraining", "None:None", "call"),
    ]
    assert shortest(sample_store, sample_root, "torch.nn.LSTM", "cudnnRNNForward")[4:] == [
        ("python", "torch.nn.modules.rnn.LSTM.forward", "torch/nn/modules/rnn.py:175", "method"),
        ("binding", "torch._C._VariableFunctions.lstm", "torch/_C/_VariableFunctions.pyi:53", "binding"),
        ("yaml", "aten::lstm.input", "aten/src/ATen/native/native_functions.yaml:160", "binding"),
        ("cpp", "at::native::lstm", "aten/src/ATen/native/RNN.cpp:132", "dispatch:CompositeImplicitAutograd"),
        ("cpp", "at::native::lstm_cudnn_stub", "aten/src/ATen/native/RNN.cpp:130", "call"),
        ("cpp", "at::native::lstm_cudnn", "aten/src/ATen/native/cudnn/RNN.cpp:152", "stub"),
        ("cpp", "at::native::_cudnn_impl", "aten/src/ATen/native/cudnn/RNN.cpp:138", "call"),
        ("yaml", "aten::_cudnn_rnn", "aten/src/ATen/native/native_functions.yaml:4", "call"),
        ("cpp", "at::native::_cudnn_rnn", "aten/src/ATen/native/cudnn/RNN.cpp:48", "dispatch:CUDA"),
        ("vendor", "cudnnRNNForward", "None:None", "call"),
    ]


def test_relu_reaches_its_cuda_kernel_launch_and_the_cpu_backend_its_cpu_kernel(sample_store, sample_root):
    tail = [
        ("python", "torch.nn.modules.activation.ReLU.forward", "torch/nn/modules/activation.py:23", "method"),
        ("python", "torch.nn.functional.relu", "torch/nn/functional.py:136", "call"),
        # inplace=False by default: torch.relu at functional.py:146, not torch.relu_ at :144
        ("binding", "torch._C._VariableFunctions.relu", "torch/_C/_VariableFunctions.pyi:36", "binding"),
        ("yaml", "aten::relu", "aten/src/ATen/native/native_functions.yaml:123", "binding"),
    ]
    assert shortest(sample_store, sample_root, "torch.nn.ReLU", "relu_cuda_kernel")[4:] == [
        *tail,
        ("cpp", "at::native::relu", "aten/src/ATen/native/Activation.cpp:11", "dispatch:CUDA"),
        ("cpp", "at::native::relu_stub", "aten/src/ATen/native/Activation.cpp:9", "call"),
        ("cuda", "at::native::relu_kernel_cuda", "aten/src/ATen/native/cuda/Activation.cu:20", "stub"),
        ("cuda", "at::native::relu_cuda_kernel", "aten/src/ATen/native/cuda/Activation.cu:11", "launch"),
    ]
    assert shortest(sample_store, sample_root, "torch.nn.ReLU", "relu_kernel$", backend="cpu")[4:] == [
        *tail,
        ("cpp", "at::native::relu", "aten/src/ATen/native/Activation.cpp:11", "dispatch:CPU"),
        ("cpp", "at::native::relu_stub", "aten/src/ATen/native/Activation.cpp:9", "call"),
        ("cpp", "at::native::relu_kernel", "aten/src/ATen/native/cpu/Activation.cpp:7", "stub"),
    ]
    assert trace_symbol(sample_store, sample_root, "torch.nn.ReLU", to="relu_kernel$").trace.paths == []


def test_the_cpu_backend_takes_the_slow_convolution_and_never_cudnn(sample_store, sample_root):
    assert shortest(sample_store, sample_root, "torch.nn.Conv2d", "slow_conv2d_forward_cpu", backend="cpu")[-3:] == [
        (
            "cpp",
            "at::native::_convolution",
            "aten/src/ATen/native/Convolution.cpp:228",
            "dispatch:CompositeExplicitAutograd",
        ),
        ("yaml", "aten::_slow_conv2d_forward", "aten/src/ATen/native/native_functions.yaml:200", "call"),
        ("cpp", "at::native::slow_conv2d_forward_cpu", "aten/src/ATen/native/ConvolutionMM2d.cpp:101", "dispatch:CPU"),
    ]
    for target in ("cudnn", "slow_conv2d_forward_cuda"):
        assert trace_symbol(sample_store, sample_root, "torch.nn.Conv2d", to=target, backend="cpu").trace.paths == []
    assert trace_symbol(sample_store, sample_root, "torch.nn.Conv2d", to="mkldnn", backend="cuda").trace.paths == []
    assert trace_symbol(sample_store, sample_root, "torch.nn.Conv2d", to="mkldnn", backend="all").trace.paths


def test_boolean_dispatch_reaches_both_branches(sample_store, sample_root):
    # functional.py:262 `max_pool2d = boolean_dispatch(..., default=False, if_true=..., if_false=...)`
    # is the closure `fn` (_jit_internal.py:49); its calls are `return if_true(...)` (line 57,
    # under `if flag:`) and `return if_false(...)` (line 58), the one `flag = default` takes first
    report = trace_symbol(sample_store, sample_root, "torch.nn.functional.max_pool2d", max_depth=1)
    assert [
        (child.node.symbol.qname, child.edge.label, path_line(child.edge.site)) for child in report.trace.tree.children
    ] == [
        ("torch.nn.functional._max_pool2d", "call", ("torch/_jit_internal.py", 58)),
        ("torch.nn.functional.max_pool2d_with_indices", "call", ("torch/_jit_internal.py", 57)),
    ]


def test_a_profiler_operator_name_traces_from_the_operator(sample_store, sample_root):
    report = trace_symbol(sample_store, sample_root, "aten::cudnn_convolution", max_depth=1)
    assert (report.start.layer.value, report.start.symbol.qname) == ("yaml", "aten::cudnn_convolution")
    assert [
        (c.node.symbol.path, c.node.symbol.line, c.edge.label, c.edge.resolution) for c in report.trace.tree.children
    ] == [
        ("aten/src/ATen/native/cudnn/ConvPlaceholders.cpp", 13, "dispatch:CUDA", "ambiguous"),
        ("aten/src/ATen/native/cudnn/ConvShared.cpp", 65, "dispatch:CUDA", "ambiguous"),
    ]


def test_the_whole_tree_marks_repeats_and_depth(sample_store, sample_root):
    report = trace_symbol(sample_store, sample_root, "torch.nn.Conv2d", max_depth=3)
    stops = []

    def walk(hop, depth):
        if hop.stop:
            stops.append((depth, hop.node.symbol.qname, hop.stop))
        for child in hop.children:
            walk(child, depth + 1)

    walk(report.trace.tree, 0)
    assert (3, "torch.nn.modules.module.Module._call_impl", "depth limit") in stops
    assert all(depth == 3 for depth, _, stop in stops if stop == "depth limit")


def test_trace_json_is_stable_and_complete(sample_store, sample_root):
    first = trace_json(
        trace_symbol(sample_store, sample_root, "torch.nn.ReLU", to="relu_cuda_kernel"), sample_root, "relu_cuda_kernel"
    )
    again = trace_json(
        trace_symbol(sample_store, sample_root, "torch.nn.ReLU", to="relu_cuda_kernel"), sample_root, "relu_cuda_kernel"
    )
    assert json.dumps(first) == json.dumps(again)
    assert list(first) == [
        "schema",
        "query",
        "root",
        "backend",
        "start",
        "tree",
        "graph",
        "to",
        "paths",
        "paths_found",
        "paths_capped",
        "path_variants",
        "variant_paths",
    ]
    assert (first["schema"], first["paths_found"], first["path_variants"], first["variant_paths"]) == (
        "explorer.trace/2",
        2,
        [1, 1],
        [[], []],
    )
    # the graph: the two paths' definitions once each, their edges by id
    nodes = {node["id"]: node["symbol"] for node in first["graph"]["nodes"]}
    assert len(nodes) == 15 and len(first["graph"]["edges"]) == 15
    assert [
        (nodes[edge["from"]], edge["kind"])
        for edge in first["graph"]["edges"]
        if nodes[edge["to"]] == "at::native::relu_stub"
    ] == [
        ("at::native::relu", "call"),
        ("at::native::relu_", "call"),
    ]
    assert first["start"] == {
        "symbol": "torch.nn.modules.activation.ReLU",
        "layer": "python",
        "kind": "class",
        "file": "torch/nn/modules/activation.py",
        "line": 13,
        "edge": None,
        "resolution": "exact",
        "site": None,
    }
    last = first["paths"][0][-1]
    assert last == {
        "symbol": "at::native::relu_cuda_kernel",
        "layer": "cuda",
        "kind": "kernel",
        "file": "aten/src/ATen/native/cuda/Activation.cu",
        "line": 11,
        "edge": "launch",
        "resolution": "exact",
        "site": "aten/src/ATen/native/cuda/Activation.cu:27",
    }
    assert first["tree"]["children"][0]["symbol"] == "torch.nn.modules.module.Module.__call__"


def test_bad_queries(sample_store, sample_root):
    with pytest.raises(UnknownSymbolError):
        trace_symbol(sample_store, sample_root, "torch.nn.Conv2dd")
    with pytest.raises(UsageError, match="not a regular expression"):
        trace_symbol(sample_store, sample_root, "torch.nn.Conv2d", to="(")
    with pytest.raises(UsageError, match="unknown backend"):
        trace_symbol(sample_store, sample_root, "torch.nn.Conv2d", backend="tpu")
    with pytest.raises(UsageError, match="--max-depth"):
        trace_symbol(sample_store, sample_root, "torch.nn.Conv2d", max_depth=0)
    missing = trace_symbol(sample_store, sample_root, "torch.nn.Dropout", to="cudnnConvolutionForward")
    assert missing.trace.paths == []
    # the definitions farthest from the start by their fewest hops, whatever order edges come in
    assert [(hop.node.symbol.qname, hop.node.symbol.path, hop.node.symbol.line) for hop in missing.trace.deepest] == [
        ("c10::TensorImpl::refresh", "c10/core/TensorImpl.cpp", 48),  # make_shared<TensorImpl>'s constructor calls it
    ]


# -- resolution rules, each on a small tree -------------------------------------------------


def traced(tmp_path: Path, files: dict[str, str], query: str, **options) -> TraceReport:
    root = write_tree(tmp_path / "tree", files)
    index_path = tmp_path / "index.sqlite"
    refresh(str(root), index_path, jobs=1)
    store = IndexStore.open(index_path)
    try:
        return trace_symbol(store, str(root), query, **options)
    finally:
        store.close()


def children(report: TraceReport) -> list[tuple[str, str, str]]:
    return [(c.node.symbol.qname, c.edge.label, c.edge.resolution.value) for c in report.trace.tree.children]


PYTHON_TREE = {
    "pkg/__init__.py": "from .core import Base as PublicBase\nfrom .helpers import *\n",
    "pkg/helpers.py": "__all__ = ['helper']\n\ndef helper():\n    return 1\n\ndef other():\n    return 2\n",
    "pkg/core.py": (
        "import pkg.helpers as H\n"
        "from . import helpers\n"
        "from .helpers import other as renamed\n"
        "\n"
        "class Base:\n"
        "    def __init__(self):\n"
        "        self.ready = True\n"
        "    def run(self):\n"
        "        return self.step()\n"
        "    def step(self):\n"
        "        return 0\n"
        "\n"
        "class Child(Base):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "    def step(self):\n"
        "        chosen = self.fast if H.helper() else self.slow\n"
        "        chosen()\n"
        "        helpers.helper()\n"
        "        renamed()\n"
        "        return make()\n"
        "    def fast(self):\n"
        "        pass\n"
        "    def slow(self):\n"
        "        pass\n"
        "\n"
        "def make():\n"
        "    return Child()\n"
    ),
}


def test_python_self_calls_follow_the_class_being_traced(tmp_path: Path):
    report = traced(tmp_path, PYTHON_TREE, "pkg.core.Base.run", max_depth=2)
    assert children(report) == [("pkg.core.Base.step", "method", "exact")]


def test_python_locals_imports_super_and_constructors(tmp_path: Path):
    report = traced(tmp_path, PYTHON_TREE, "pkg.core.Child.step", max_depth=1)
    assert children(report) == [
        ("pkg.helpers.helper", "call", "exact"),  # H.helper(): `import pkg.helpers as H`
        ("pkg.core.Child.fast", "method", "exact"),  # chosen(): both sides of the conditional
        ("pkg.core.Child.slow", "method", "exact"),
        ("pkg.helpers.other", "call", "exact"),  # renamed(): from-import with an alias
        ("pkg.core.make", "call", "exact"),
    ]
    constructed = traced(tmp_path / "again", PYTHON_TREE, "pkg.core.make", max_depth=2)
    assert children(constructed) == [("pkg.core.Child.__init__", "call", "exact")]
    assert [(c.node.symbol.qname, c.edge.label) for c in constructed.trace.tree.children[0].children] == [
        ("pkg.core.Base.__init__", "method"),  # super().__init__()
    ]


def test_python_re_exports_and_star_imports(tmp_path: Path):
    files = {
        **PYTHON_TREE,
        "app.py": "import pkg\nfrom pkg import helper\n\ndef main():\n    pkg.PublicBase()\n    helper()\n",
    }
    report = traced(tmp_path, files, "app.main", max_depth=1)
    assert children(report) == [("pkg.core.Base.__init__", "call", "exact"), ("pkg.helpers.helper", "call", "exact")]


CPP_TREE = {
    "aten/src/ATen/native/native_functions.yaml": (
        "- func: scale(Tensor self) -> Tensor\n"
        "  variants: function, method\n"
        "  dispatch:\n"
        "    CPU: scale_cpu\n"
        "    CUDA: scale_cuda\n"
        "\n"
        "- func: scale.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n"
        "  dispatch:\n"
        "    CPU, CUDA: scale_out\n"
    ),
    "aten/src/ATen/native/Scale.cpp": (
        "#include <cudnn.h>\n"
        "namespace at::native {\n"
        "DEFINE_DISPATCH(scale_stub);\n"
        "static void apply(const Tensor& t, void (*fn)(const Tensor&)) { fn(t); }\n"
        "static void visit(const Tensor& t) {}\n"
        "Tensor scale_cpu(const Tensor& self) {\n"
        "  scale_stub(kCPU, self);\n"
        "  return self;\n"
        "}\n"
        "Tensor scale_cuda(const Tensor& self) {\n"
        "  apply(self, visit);\n"
        "  cudnnScale(nullptr);\n"
        "  return self;\n"
        "}\n"
        "Tensor& scale_out(const Tensor& self, Tensor& out) { return out; }\n"
        "Tensor user(const Tensor& x) {\n"
        "  auto a = at::scale(x);\n"
        "  auto b = x.scale();\n"
        "  at::scale_out(a, b);\n"
        "  at::_ops::scale::call(a);\n"
        "  return helpers::twice(a);\n"
        "}\n"
        "namespace helpers { Tensor twice(const Tensor& x) { return x; } }\n"
        "}\n"
    ),
    "aten/src/ATen/native/cpu/ScaleKernel.cpp": (
        "namespace at::native {\n"
        "static void scale_kernel(const Tensor& t) {}\n"
        "REGISTER_DISPATCH(scale_stub, &scale_kernel);\n"
        "}\n"
    ),
}


def test_cpp_operator_api_tensor_methods_and_namespaces(tmp_path: Path):
    report = traced(tmp_path, CPP_TREE, "at::native::user", max_depth=1, backend="all")
    assert children(report) == [
        ("aten::scale", "call", "exact"),  # at::scale(x): the functional overload only
        ("aten::scale", "method", "name"),  # x.scale(): a Tensor method, matched by name
        ("aten::scale.out", "call", "exact"),  # at::scale_out
        ("at::native::helpers::twice", "call", "exact"),  # helpers:: from within at::native
    ]


def test_cpp_dispatch_stub_fnptr_vendor_and_backends(tmp_path: Path):
    report = traced(tmp_path, CPP_TREE, "aten::scale", max_depth=3, backend="all")
    tree = report.trace.tree
    assert [(c.node.symbol.qname, c.edge.label) for c in tree.children] == [
        ("at::native::scale_cpu", "dispatch:CPU"),
        ("at::native::scale_cuda", "dispatch:CUDA"),
    ]
    cpu, cuda = tree.children
    assert [(c.node.symbol.qname, c.edge.label) for c in cpu.children] == [("at::native::scale_stub", "call")]
    assert [(c.node.symbol.qname, c.edge.label) for c in cpu.children[0].children] == [
        ("at::native::scale_kernel", "stub")
    ]
    assert [(c.node.symbol.qname, c.node.layer.value, c.edge.label) for c in cuda.children] == [
        ("at::native::apply", "cpp", "call"),
        ("cudnnScale", "vendor", "call"),
    ]
    assert [(c.node.symbol.qname, c.edge.label, path_line(c.edge.site)) for c in cuda.children[0].children] == [
        ("at::native::visit", "fnptr", ("aten/src/ATen/native/Scale.cpp", 11)),
    ]
    cuda_only = traced(tmp_path / "cuda", CPP_TREE, "aten::scale", max_depth=1, backend="cuda")
    assert children(cuda_only) == [("at::native::scale_cuda", "dispatch:CUDA", "exact")]


def test_cycles_are_cut_and_shown(tmp_path: Path):
    files = {"loop.py": "def ping(n):\n    return pong(n)\n\ndef pong(n):\n    return ping(n - 1)\n"}
    report = traced(tmp_path, files, "loop.ping", max_depth=5)
    pong = report.trace.tree.children[0]
    assert (pong.node.symbol.qname, [(c.node.symbol.qname, c.stop) for c in pong.children]) == (
        "loop.pong",
        [("loop.ping", "cycle")],
    )


def test_graph_edges_are_computed_once_per_node(sample_store, sample_root):
    graph = CallGraph(sample_store, sample_root)
    node = graph.node(sample_store.symbols_with_qname("at::native::_convolution")[0])
    assert graph.edges(node) is graph.edges(node)
    # backend cuda: the mkldnn branch is pruned, the cuDNN and slow ones are kept; one edge per callee
    assert [
        (e.target.symbol.qname, e.label, e.site.line)
        for e in graph.edges(node)
        if e.target.symbol.qname.startswith("aten::")
    ] == [
        ("aten::cudnn_convolution", "call", 259),
        ("aten::add.Tensor", "call", 264),
        ("aten::_slow_conv2d_forward", "call", 274),
        ("aten::empty.memory_format", "call", 278),
    ]


# -- callers and callees --------------------------------------------------------------------


def listed(report) -> list[tuple]:
    return [
        (n.depth, n.node.layer.value, n.node.symbol.qname, n.edge.label, path_line(n.edge.site)) for n in report.found
    ]


def test_callers_of_cudnn_lead_back_up_to_conv2d(sample_store, sample_root):
    report = neighbours_of(sample_store, sample_root, "cudnnConvolutionForward", "callers", depth=25)
    assert listed(report)[:6] == [
        (
            1,
            "cpp",
            "at::native::raw_cudnn_convolution_forward_out_32bit",
            "call",
            ("aten/src/ATen/native/cudnn/Conv_v7.cpp", 110),
        ),
        (
            2,
            "cpp",
            "at::native::split_batch_dim_to_32bit_out",
            "fnptr",
            ("aten/src/ATen/native/cudnn/Conv_v7.cpp", 124),
        ),
        (
            3,
            "cpp",
            "at::native::raw_cudnn_convolution_forward_out",
            "call",
            ("aten/src/ATen/native/cudnn/Conv_v7.cpp", 124),
        ),
        (
            4,
            "cpp",
            "at::native::cudnn_convolution_forward_out",
            "call",
            ("aten/src/ATen/native/cudnn/ConvShared.cpp", 61),
        ),
        (5, "cpp", "at::native::cudnn_convolution", "call", ("aten/src/ATen/native/cudnn/ConvShared.cpp", 72)),
        (6, "yaml", "aten::cudnn_convolution", "dispatch:CUDA", ("aten/src/ATen/native/native_functions.yaml", 90)),
    ]
    top = [
        (n.depth, n.node.symbol.qname, n.node.self_class, n.edge.label)
        for n in report.found
        if n.node.symbol.qname.endswith("Conv2d")
    ]
    assert top == [(20, "torch.nn.modules.conv.Conv2d", "torch.nn.modules.conv.Conv2d", "method")]
    assert not report.truncated


def test_callers_of_an_operator_a_kernel_and_a_function_passed_to_a_call(sample_store, sample_root):
    assert listed(neighbours_of(sample_store, sample_root, "aten::cudnn_convolution", "callers")) == [
        # the generated inline of Functions.h:73 calls at::_ops::cudnn_convolution::call (line 76)
        (1, "cpp", "at::cudnn_convolution", "call", ("aten/src/ATen/Functions.h", 76)),
        (1, "cpp", "at::native::_convolution", "call", ("aten/src/ATen/native/Convolution.cpp", 259)),
        (
            1,
            "binding",
            "torch._C._VariableFunctions.cudnn_convolution",
            "binding",
            ("torch/_C/_VariableFunctions.pyi", 19),
        ),
    ]
    assert listed(neighbours_of(sample_store, sample_root, "at::native::relu_kernel_cuda", "callers", depth=2)) == [
        (1, "cpp", "at::native::relu_stub", "stub", ("aten/src/ATen/native/cuda/Activation.cu", 32)),
        (2, "cpp", "at::native::relu", "call", ("aten/src/ATen/native/Activation.cpp", 14)),
        (2, "cpp", "at::native::relu_", "call", ("aten/src/ATen/native/Activation.cpp", 21)),
    ]
    assert listed(
        neighbours_of(sample_store, sample_root, "torch.nn.functional.max_pool2d_with_indices", "callers", depth=2)
    ) == [
        # the closure boolean_dispatch made for max_pool2d calls it: `return if_true(...)`
        (1, "python", "torch.nn.functional.max_pool2d", "call", ("torch/_jit_internal.py", 57)),
        (2, "python", "torch.nn.modules.pooling.MaxPool2d.forward", "call", ("torch/nn/modules/pooling.py", 56)),
    ]
    # the name itself stands for that closure, as in a trace: its callers are the calls of the name
    report = neighbours_of(sample_store, sample_root, "torch.nn.functional.max_pool2d", "callers")
    assert (report.start.symbol.path, report.start.symbol.line) == ("torch/_jit_internal.py", 49)
    assert listed(report) == [
        (1, "python", "torch.nn.modules.pooling.MaxPool2d.forward", "call", ("torch/nn/modules/pooling.py", 56)),
    ]


def test_callers_of_a_lambda_are_the_function_it_is_handed_to(sample_store, sample_root):
    # python_variable.cpp:347 hands the lambda written there to THPTensor_fillFromHost (122),
    # which calls it as `draw(engine)` (130); THPTensor_normal_ (342) wrote and handed it
    assert listed(neighbours_of(sample_store, sample_root, "<lambda at line 347>", "callers", depth=2)) == [
        (1, "cpp", "THPTensor_fillFromHost", "fnptr", ("torch/csrc/autograd/python_variable.cpp", 347)),
        (2, "cpp", "THPTensor_normal_", "call", ("torch/csrc/autograd/python_variable.cpp", 347)),
    ]


def test_callees_follow_every_backend(sample_store, sample_root):
    assert listed(neighbours_of(sample_store, sample_root, "aten::relu", "callees", depth=2)) == [
        (1, "cpp", "at::native::relu", "dispatch:CPU", ("aten/src/ATen/native/native_functions.yaml", 127)),
        # `self.scalar_type()`, `self.sizes()`...: accessors of the tensor, no edge
        (2, "yaml", "aten::empty.memory_format", "call", ("aten/src/ATen/native/Activation.cpp", 13)),
        (2, "cpp", "at::native::relu_stub", "call", ("aten/src/ATen/native/Activation.cpp", 14)),
    ]


def test_neighbour_bad_input(sample_store, sample_root):
    with pytest.raises(UsageError, match="--depth must be at least 1"):
        neighbours_of(sample_store, sample_root, "aten::relu", "callers", depth=0)
    with pytest.raises(UnknownSymbolError):
        neighbours_of(sample_store, sample_root, "nothing_called_this", "callers")


def test_locals_assigned_from_each_other_do_not_loop(tmp_path: Path):
    files = {"m.py": "def f():\n    a = b\n    b = a\n    a()\n    return g()\n\ndef g():\n    pass\n"}
    assert children(traced(tmp_path, files, "m.f", max_depth=1)) == [("m.g", "call", "exact")]


# -- the Python call graph ------------------------------------------------------------------

CALLGRAPH_TREE = {
    "pkg/__init__.py": "",
    "pkg/util.py": "def helper():\n    return max(1, 2)\n",
    "pkg/mod.py": (
        "import os\n"
        "from ext.parent import parent_fn\n"
        "from . import util\n"
        "\n"
        "class A:\n"
        "    def __init__(self):\n"
        "        self.x = 1\n"
        "    def m(self):\n"
        "        return self.n()\n"
        "    def n(self):\n"
        "        return util.helper()\n"
        "\n"
        "def deco(fn):\n"
        "    return fn\n"
        "\n"
        "@deco\n"
        "def main():\n"
        "    a = A()\n"
        "    a.m()\n"
        "    unknown.append(1)\n"
        "    print(len([1]))\n"
        "    parent_fn()\n"
        "    os.path.join('a')\n"
        "\n"
        "main()\n"
    ),
}


def test_callgraph_is_a_pycg_adjacency_list(tmp_path: Path):
    root = write_tree(tmp_path / "tree", CALLGRAPH_TREE)
    refresh(str(root), tmp_path / "index.sqlite", jobs=1)
    store = IndexStore.open(tmp_path / "index.sqlite")
    try:
        graph = python_call_graph(store, str(root))
    finally:
        store.close()
    assert graph == {
        "pkg": [],
        "pkg.mod": ["pkg.mod.deco", "pkg.mod.main"],
        "pkg.mod.deco": [],
        "pkg.mod.A.__init__": [],
        "pkg.mod.A.m": ["pkg.mod.A.n"],
        "pkg.mod.A.n": ["pkg.util.helper"],
        "pkg.mod.main": [
            "<builtin>.len",
            "<builtin>.print",
            "ext.parent.parent_fn",
            "os.path.join",
            "pkg.mod.A.__init__",
            "pkg.mod.A.m",
        ],
        "pkg.util": [],
        "pkg.util.helper": ["<builtin>.max"],
    }


def test_a_call_of_a_decorated_function_runs_what_the_decorators_made(tmp_path: Path):
    files = {
        "deco.py": (
            "def logged(fn):\n"  # 1
            "    def wrapper(*args):\n"  # 2
            "        return fn(*args)\n"  # 3
            "    return wrapper\n"  # 4
            "\n"
            "def register(name):\n"  # 6
            "    def apply(fn):\n"  # 7
            "        return fn\n"  # 8
            "    return apply\n"  # 9
            "\n"
            "@logged\n"  # 11
            "@register('x')\n"  # 12
            "def work():\n"  # 13
            "    helper()\n"  # 14
            "\n"
            "def helper():\n"  # 16
            "    pass\n"
            "\n"
            "def main():\n"  # 19
            "    work()\n"  # 20
        )
    }
    # `work` is what logged returned: its wrapper, which calls the function register passed on
    report = traced(tmp_path, files, "deco.main", max_depth=3)
    hops, node = [], report.trace.tree
    while node.children:
        (node,) = node.children
        hops.append((node.node.symbol.qname, node.node.symbol.line, node.edge.label, path_line(node.edge.site)))
    assert hops == [
        ("deco.logged.wrapper", 2, "call", ("deco.py", 20)),
        ("deco.work", 13, "call", ("deco.py", 3)),
        ("deco.helper", 16, "call", ("deco.py", 14)),
    ]
    # the definition itself calls only what its body calls
    assert [
        (c.node.symbol.qname, path_line(c.edge.site))
        for c in traced(tmp_path / "again", files, "deco.work", max_depth=1).trace.tree.children
    ] == [
        ("deco.helper", ("deco.py", 14)),
    ]


def test_cpp_plain_names_through_using_declarations_and_directives(tmp_path: Path):
    files = {
        "aten/src/ATen/native/Use.cpp": (
            "using namespace at::native::detail;\n"
            "using at::cuda::blas::gemm;\n"
            "namespace other {\n"
            "void caller() {\n"
            "  helper();\n"
            "  gemm(1);\n"
            "  blas_util::norm();\n"
            "}\n"
            "}\n"
            "namespace at::native::detail { void helper() {} namespace blas_util { void norm() {} } }\n"
            "namespace at::cuda::blas { void gemm(int) {} }\n"
        )
    }
    assert children(traced(tmp_path, files, "other::caller", max_depth=1)) == [
        ("at::native::detail::helper", "call", "exact"),
        ("at::cuda::blas::gemm", "call", "exact"),
        ("at::native::detail::blas_util::norm", "call", "exact"),
    ]


def test_cpp_overloads_are_told_apart_by_their_number_of_arguments(tmp_path: Path):
    files = {
        "aten/src/ATen/native/Over.cpp": (
            "namespace at::native {\n"
            "static int pick(int a) { return a; }\n"
            "static int pick(int a, int b, int c = 0) { return b; }\n"
            "static int pick(const char* s, ...) { return 0; }\n"
            "int one() { return pick(f(1, 2)); }\n"
            "int two() { return pick(1,\n"
            "                        std::max<int>(2, 3)); }\n"
            "int none() { return pick(); }\n"
            "static int span(int a) { return a; }\n"
            "static int span(int a, int b) { return b; }\n"
            "int both() { return span(1, 2) + span(3); }\n"
            "}\n"
        )
    }
    root = write_tree(tmp_path / "tree", files)
    refresh(str(root), tmp_path / "index.sqlite", jobs=1)
    store = IndexStore.open(tmp_path / "index.sqlite")
    try:

        def lines_called(caller: str) -> list[tuple[int, str]]:
            report = trace_symbol(store, str(root), caller, max_depth=1)
            return [
                (c.node.symbol.line, c.edge.resolution.value)
                for c in report.trace.tree.children
                if c.node.symbol.name == "pick"
            ]

        assert lines_called("at::native::one") == [
            (2, "ambiguous"),
            (4, "ambiguous"),
        ]  # one argument: (int) or (s, ...)
        # two arguments: (a, b, c = 0) or (s, ...); a number is no `const char*` (argument_kinds.py)
        assert lines_called("at::native::two") == [(3, "exact")]
        assert lines_called("at::native::none") == [
            (2, "ambiguous"),
            (3, "ambiguous"),
            (4, "ambiguous"),
        ]  # none fits: all kept
        report = trace_symbol(store, str(root), "at::native::both", max_depth=1)
        assert [
            (c.node.symbol.line, c.edge.resolution.value, path_line(c.edge.site)) for c in report.trace.tree.children
        ] == [
            (10, "exact", ("aten/src/ATen/native/Over.cpp", 11)),
            (9, "exact", ("aten/src/ATen/native/Over.cpp", 11)),
        ]
    finally:
        store.close()


def test_methods_defined_apart_take_their_defaults_from_the_declaration(tmp_path: Path):
    # ProcessGroupNCCL.cpp's two collective overloads: the definitions, outside the class,
    # do not repeat the header's default arguments; a call of four arguments fits neither by
    # its definition's parameters, and is the overload that needs the fewest of them defaulted
    files = {
        "pg.hpp": (
            "struct PG {\n"
            "  int collective(int a, int b, int op, const char* title = nullptr);\n"
            "  int collective(int a, int b, int pre, int post, int op, const char* title = nullptr);\n"
            "  int allreduce(int a);\n"
            "};\n"
        ),
        "pg.cpp": (
            '#include "pg.hpp"\n'  # 1
            "int PG::collective(int a, int b, int pre, int post, int op, const char* title) { return a; }\n"  # 2
            "int PG::collective(int a, int b, int op, const char* title) { return b; }\n"  # 3
            "int PG::allreduce(int a) { return collective(a, a, 1); }\n"  # 4
        ),
    }
    root = write_tree(tmp_path / "tree", files)
    with indexed(root, tmp_path) as (store, _graph):
        report = trace_symbol(store, str(root), "PG::allreduce", max_depth=1)
        assert [(c.node.symbol.line, c.edge.resolution.value) for c in report.trace.tree.children] == [(3, "exact")]


def test_overload_declarations_are_not_what_runs(tmp_path: Path):
    files = {
        "ov.py": (
            "from typing import overload\n"
            "\n"
            "class Net:\n"
            "    @overload\n"
            "    def forward(self, x: int) -> int: ...\n"
            "    @overload\n"
            "    def forward(self, x: str) -> str: ...\n"
            "    def forward(self, x):\n"
            "        return x\n"
            "    def run(self):\n"
            "        return self.forward(1)\n"
        )
    }
    report = traced(tmp_path, files, "ov.Net.run", max_depth=1)
    assert [(c.node.symbol.qname, c.node.symbol.line, c.edge.resolution.value) for c in report.trace.tree.children] == [
        ("ov.Net.forward", 8, "exact"),
    ]


def test_paths_through_one_method_in_two_contexts_rank_without_comparing_node_keys(tmp_path: Path):
    # Base.helper is reached as itself (`Base.helper(None)`, no class of `self` known) and on an
    # A (`self.helper()` in A.run): two nodes whose keys differ only in None against "ctx.A",
    # at the same cost to the target. Ranking them compared the keys (a TypeError on the real
    # tree: torch._compile's `inner`, reached plain and with AdamW as `self`).
    files = {
        "ctx.py": (
            "def target():\n"
            "    pass\n"
            "\n"
            "class Base:\n"
            "    def helper(self):\n"
            "        target()\n"
            "\n"
            "class A(Base):\n"
            "    def run(self):\n"
            "        self.helper()\n"
            "\n"
            "def main():\n"
            "    A().run()\n"
            "    Base.helper(None)\n"
        )
    }
    report = traced(tmp_path, files, "ctx.main", to="target")
    assert report.trace.paths is not None
    assert [[(hop.node.symbol.qname, hop.node.self_class) for hop in path] for path in report.trace.paths] == [
        [("ctx.main", None), ("ctx.Base.helper", None), ("ctx.target", None)],
        [("ctx.main", None), ("ctx.A.run", "ctx.A"), ("ctx.Base.helper", "ctx.A"), ("ctx.target", None)],
    ]


def test_a_kernel_registered_by_a_name_relative_to_the_registering_namespace(tmp_path: Path):
    # cuda/BinaryDivTrueKernel.cu:60 `REGISTER_DISPATCH(div_true_stub, &binary_internal::div_true_kernel_cuda)`
    # in at::native names at::native::binary_internal::div_true_kernel_cuda (:20)
    files = {
        "aten/src/ATen/native/BinaryOps.cpp": (
            "namespace at::native {\n"  # 1
            "DEFINE_DISPATCH(div_true_stub);\n"  # 2
            "void div_out(TensorIteratorBase& iter) { div_true_stub(iter.device_type(), iter); }\n"  # 3
            "}\n"
        ),
        "aten/src/ATen/native/cuda/BinaryDivTrueKernel.cu": (
            "namespace at::native {\n"  # 1
            "namespace binary_internal {\n"  # 2
            "void div_true_kernel_cuda(TensorIteratorBase& iter) {}\n"  # 3
            "}\n"
            "REGISTER_DISPATCH(div_true_stub, &binary_internal::div_true_kernel_cuda);\n"  # 5
            "}\n"
        ),
    }
    root = write_tree(tmp_path / "tree", files)
    with indexed(root, tmp_path) as (store, _graph):
        report = trace_symbol(store, str(root), "at::native::div_out", to="div_true_kernel_cuda")
        assert [
            [(h.node.symbol.qname, h.node.symbol.line, h.edge.label if h.edge else None) for h in path]
            for path in report.trace.paths or []
        ] == [
            [
                ("at::native::div_out", 3, None),
                ("at::native::div_true_stub", 2, "call"),
                ("at::native::binary_internal::div_true_kernel_cuda", 3, "stub"),
            ]
        ]


def test_a_base_method_run_on_a_derived_object_takes_the_derived_overrides(tmp_path: Path):
    # python_engine.cpp: get_python_engine() returns its `static PythonEngine engine` as an
    # Engine&; PythonEngine::execute calls Engine::execute, whose execute_with_graph_task(...) on
    # `this` is PythonEngine's override (engine.cpp:1283), which calls Engine's back
    files = {
        "engine.cpp": (
            "namespace eng {\n"  # 1
            "struct Engine {\n"  # 2
            "  virtual int execute(int x);\n"  # 3
            "  virtual int run_task(int x);\n"  # 4
            "  void thread_main(int x) {}\n"  # 5
            "};\n"  # 6
            "struct PythonEngine : public Engine {\n"  # 7
            "  int execute(int x) override;\n"  # 8
            "  int run_task(int x) override;\n"  # 9
            "  static Engine& get();\n"  # 10
            "};\n"  # 11
            "int Engine::execute(int x) { return run_task(x); }\n"  # 12
            "int Engine::run_task(int x) { thread_main(x); return x; }\n"  # 13
            "int PythonEngine::execute(int x) { return Engine::execute(x); }\n"  # 14
            "int PythonEngine::run_task(int x) { return Engine::run_task(x); }\n"  # 15
            "Engine& PythonEngine::get() { static PythonEngine engine; return engine; }\n"  # 16
            "int run_backward(int x) { auto& engine = PythonEngine::get(); return engine.execute(x); }\n"  # 17
            "}\n"
        )
    }
    root = write_tree(tmp_path / "tree", files)
    with indexed(root, tmp_path) as (store, _graph):
        report = trace_symbol(store, str(root), "eng::run_backward", to="thread_main")
        assert [[(h.node.symbol.qname, h.node.symbol.line) for h in path] for path in report.trace.paths or []] == [
            [
                ("eng::run_backward", 17),
                ("eng::PythonEngine::execute", 14),
                ("eng::Engine::execute", 12),
                ("eng::PythonEngine::run_task", 15),
                ("eng::Engine::run_task", 13),
                ("eng::Engine::thread_main", 5),
            ]
        ]
