"""A user's own model (sample_repo/mynet/) traced through its attributes to the vendor calls
and kernels, and checked against a run of the bundled runtime.

The model, read off mynet/net.py and mynet/layers.py:
- Net.__init__ (net.py:9) keeps `self.stem = nn.Sequential(conv3x3(3, c), nn.BatchNorm2d(c),
  nn.ReLU())` (:11), `self.blocks = nn.ModuleList([BasicBlock(c) ...])` (:12),
  `self.pool = nn.MaxPool2d(8)` (:13), `self.fc = nn.Linear(c, classes)` (:14) and
  `self.heads = {"logits": self.fc}` (:16), a plain dict;
- Net.forward (:18) calls `self.stem(x)` (:19), iterates `self.blocks` (:20), calls each
  `block(x)` (:21), `SoftExp.apply(x)` (:22), `self.pool(x)` (:23) and
  `self.heads["logits"](x)` (:24);
- conv3x3 (layers.py:8) returns a layer; SoftExp (layers.py:13) is a torch.autograd.Function
  whose forward (:17) calls torch.exp (:18) and ctx.save_for_backward (:19); BasicBlock.forward
  (:39) calls self.conv1, self.bn1 and self.relu (:40).
Below the model, each chain is the one the bundled tree's own tests verify hop by hop
(test_trace.py, test_sample_idioms.py): module.py:233 `__call__ = _wrapped_call_impl`, :187
`self._call_impl`, :198 `forward_call(*args, **kwargs)`; container.py:81 `module(input)`.
"""

from __future__ import annotations

import dataclasses
import json
import shutil

import pytest

from explorer.analysis.trace import trace_symbol
from explorer.resolve.graph import CallGraph
from tests.command_line import invoke
from tests.places import path_line

MODULE = "torch/nn/modules/module.py"
CALL = ("torch.nn.modules.module.Module.__call__", MODULE, 233)
WRAPPED = ("torch.nn.modules.module.Module._wrapped_call_impl", MODULE, 186)
CALL_IMPL = ("torch.nn.modules.module.Module._call_impl", MODULE, 189)
NET = ("mynet.net.Net", "mynet/net.py", 8)
NET_FORWARD = ("mynet.net.Net.forward", "mynet/net.py", 18)
INTO_NET = [NET, CALL, WRAPPED, CALL_IMPL, NET_FORWARD]
INTO_STEM = [
    WRAPPED,
    CALL_IMPL,
    ("torch.nn.modules.container.Sequential.forward", "torch/nn/modules/container.py", 79),
    WRAPPED,
    CALL_IMPL,
]
NATIVE = "aten/src/ATen/native"
YAML = f"{NATIVE}/native_functions.yaml"

needs_compiler = pytest.mark.skipif(
    shutil.which("c++") is None, reason="no C++ compiler: the bundled runtime cannot be built"
)


def paths(store, root, query, to):
    report = trace_symbol(store, root, query, to=to, backend="cuda")
    assert report.trace.paths, f"no path from {query} to {to}"
    return [
        [(hop.node.symbol.qname, hop.node.symbol.path, hop.node.symbol.line) for hop in path]
        for path in report.trace.paths
    ]


def sites(store, root, query, to):
    """The call site of each hop of the first path."""
    report = trace_symbol(store, root, query, to=to, backend="cuda")
    return [path_line(hop.edge.site) if hop.edge else None for hop in report.trace.paths[0]]


def test_the_net_reaches_the_cudnn_convolution_through_its_stem(sample_store, sample_root):
    first = paths(sample_store, sample_root, "mynet.Net", "cudnnConvolutionForward")[0]
    assert first == INTO_NET + INTO_STEM + [
        ("torch.nn.modules.conv.Conv2d.forward", "torch/nn/modules/conv.py", 243),
        ("torch.nn.modules.conv.Conv2d._conv_forward", "torch/nn/modules/conv.py", 228),
        ("torch.nn.functional.conv2d", "torch/nn/functional.py", 37),
        ("torch._C._VariableFunctions.conv2d", "torch/_C/_VariableFunctions.pyi", 14),
        ("aten::conv2d", YAML, 74),
        ("at::native::conv2d_symint", f"{NATIVE}/Convolution.cpp", 173),
        ("aten::convolution", YAML, 63),
        ("at::native::convolution", f"{NATIVE}/Convolution.cpp", 218),
        ("aten::_convolution", YAML, 69),
        ("at::native::_convolution", f"{NATIVE}/Convolution.cpp", 228),
        ("aten::cudnn_convolution", YAML, 88),
        ("at::native::cudnn_convolution", f"{NATIVE}/cudnn/ConvShared.cpp", 65),
        ("at::native::cudnn_convolution_forward_out", f"{NATIVE}/cudnn/ConvShared.cpp", 43),
        ("at::native::raw_cudnn_convolution_forward_out", f"{NATIVE}/cudnn/Conv_v7.cpp", 119),
        ("at::native::split_batch_dim_to_32bit_out", f"{NATIVE}/cudnn/Conv_v7.cpp", 67),
        ("at::native::raw_cudnn_convolution_forward_out_32bit", f"{NATIVE}/cudnn/Conv_v7.cpp", 91),
        ("cudnnConvolutionForward", None, None),
    ]
    # the model's own hops: self.stem(x), then the Sequential's module(input)
    assert sites(sample_store, sample_root, "mynet.Net", "cudnnConvolutionForward")[5:9] == [
        ("mynet/net.py", 19),
        (MODULE, 187),
        (MODULE, 198),
        ("torch/nn/modules/container.py", 81),
    ]


def test_the_net_reaches_the_cudnn_batch_norm_and_the_relu_kernel(sample_store, sample_root):
    norm = paths(sample_store, sample_root, "mynet.Net", "cudnnBatchNormalizationForwardTraining")[0]
    assert norm == INTO_NET + INTO_STEM + [
        ("torch.nn.modules.batchnorm._BatchNorm.forward", "torch/nn/modules/batchnorm.py", 90),
        ("torch.nn.functional.batch_norm", "torch/nn/functional.py", 96),
        ("torch._C._VariableFunctions.batch_norm", "torch/_C/_VariableFunctions.pyi", 30),
        ("aten::batch_norm", YAML, 42),
        ("at::native::batch_norm", f"{NATIVE}/Normalization.cpp", 183),
        ("aten::_batch_norm_impl_index", YAML, 46),
        ("at::native::_batch_norm_impl_index", f"{NATIVE}/Normalization.cpp", 141),
        ("aten::cudnn_batch_norm", YAML, 83),
        ("at::native::cudnn_batch_norm", f"{NATIVE}/cudnn/BatchNorm.cpp", 36),
        ("cudnnBatchNormalizationForwardTraining", None, None),
    ]
    relu = paths(sample_store, sample_root, "mynet.Net", "relu_cuda_kernel")[0]
    assert relu == INTO_NET + INTO_STEM + [
        ("torch.nn.modules.activation.ReLU.forward", "torch/nn/modules/activation.py", 23),
        ("torch.nn.functional.relu", "torch/nn/functional.py", 136),
        ("torch._C._VariableFunctions.relu", "torch/_C/_VariableFunctions.pyi", 36),
        ("aten::relu", YAML, 123),
        ("at::native::relu", f"{NATIVE}/Activation.cpp", 11),
        ("at::native::relu_stub", f"{NATIVE}/Activation.cpp", 9),
        ("at::native::relu_kernel_cuda", f"{NATIVE}/cuda/Activation.cu", 20),
        ("at::native::relu_cuda_kernel", f"{NATIVE}/cuda/Activation.cu", 11),
    ]


def test_the_net_reaches_cublas_through_the_head_it_keeps_in_a_dict(sample_store, sample_root):
    first = paths(sample_store, sample_root, "mynet.Net", "cublasSgemm")[0]
    assert first == [
        *INTO_NET,
        WRAPPED,
        CALL_IMPL,
        ("torch.nn.modules.linear.Linear.forward", "torch/nn/modules/linear.py", 66),
        ("torch.nn.functional.linear", "torch/nn/functional.py", 58),
        ("torch._C._nn.linear", "torch/_C/_nn.pyi", 9),
        ("aten::linear", YAML, 104),
        ("at::native::linear", f"{NATIVE}/Linear.cpp", 9),
        ("aten::addmm", YAML, 171),
        ("aten::addmm.out", YAML, 165),
        ("at::native::addmm_out_cuda", f"{NATIVE}/cuda/Blas.cpp", 65),
        ("at::native::addmm_out_cuda_impl", f"{NATIVE}/cuda/Blas.cpp", 34),
        ("at::cuda::blas::gemm", "aten/src/ATen/cuda/CUDABlas.cpp", 37),
        ("at::cuda::blas::gemm_internal", "aten/src/ATen/cuda/CUDABlas.cpp", 52),
        ("cublasSgemm", None, None),
    ]
    assert sites(sample_store, sample_root, "mynet.Net", "cublasSgemm")[5] == (
        "mynet/net.py",
        24,
    )  # self.heads["logits"](x)


def test_a_block_taken_from_the_module_list_reaches_the_convolution_through_its_own_attribute(
    sample_store, sample_root
):
    first = paths(sample_store, sample_root, "mynet.layers.BasicBlock", "cudnnConvolutionForward")[0]
    assert first[:6] == [
        ("mynet.layers.BasicBlock", "mynet/layers.py", 28),
        CALL,
        WRAPPED,
        CALL_IMPL,
        ("mynet.layers.BasicBlock.forward", "mynet/layers.py", 39),
        WRAPPED,
    ]
    assert sites(sample_store, sample_root, "mynet.layers.BasicBlock", "cudnnConvolutionForward")[5] == (
        "mynet/layers.py",
        40,
    )


def test_each_call_of_the_net_forward_reaches_exactly_what_its_attribute_holds(sample_store, sample_root):
    graph = CallGraph(sample_store, sample_root, "cuda")
    (forward,) = list(sample_store.symbols_with_qname("mynet.net.Net.forward"))
    node = dataclasses.replace(graph.node(forward), self_class="mynet.net.Net")
    edges = sorted((e.site.line, e.kind, e.target.symbol.qname, e.target.self_class) for e in graph.edges(node))
    assert edges == [
        (19, "method", "torch.nn.modules.module.Module._wrapped_call_impl", "torch.nn.modules.container.Sequential"),
        (20, "method", "torch.nn.modules.container.ModuleList.__iter__", "torch.nn.modules.container.ModuleList"),
        (21, "method", "torch.nn.modules.module.Module._wrapped_call_impl", "mynet.layers.BasicBlock"),
        (22, "method", "torch.autograd.function.Function.apply", "mynet.layers.SoftExp"),
        (23, "method", "torch.nn.modules.module.Module._wrapped_call_impl", "torch.nn.modules.pooling.MaxPool2d"),
        (24, "method", "torch.nn.modules.module.Module._wrapped_call_impl", "torch.nn.modules.linear.Linear"),
    ]


def test_the_custom_autograd_function_runs_its_forward(sample_store, sample_root):
    first = paths(sample_store, sample_root, "mynet.Net", "aten::exp")[0]
    assert first == [
        *INTO_NET,
        ("torch.autograd.function.Function.apply", "torch/autograd/function.py", 44),
        ("mynet.layers.SoftExp.forward", "mynet/layers.py", 17),
        ("torch._C._VariableFunctions.exp", "torch/_C/_VariableFunctions.pyi", 70),
        ("aten::exp", YAML, 211),
    ]


NET_RUN = (
    "import torch\nfrom mynet import Net\nnet = Net().to('cuda')\nout = net(torch.randn(2, 3, 8, 8, device='cuda'))\n"
)


@needs_compiler
def test_a_run_of_the_net_confirms_its_attribute_hops_with_nothing_dynamic_only():
    result = invoke(["run", "--json", "--compare", "--backend-device", "cuda", "-c", NET_RUN])
    assert result.exit_code == 0, result.output
    comparison = json.loads(result.stdout)["comparison"]
    assert comparison["dynamic_only"] == []
    confirmed = {(edge["caller"], edge["callee"]) for edge in comparison["confirmed"]}
    assert {
        ("mynet.net.Net.forward", "torch.nn.modules.module.Module._wrapped_call_impl"),
        ("mynet.net.Net.forward", "torch.autograd.function.Function.apply"),
        ("torch.autograd.function.Function.apply", "mynet.layers.SoftExp.forward"),
        ("mynet.layers.SoftExp.forward", "torch._C._VariableFunctions.exp"),
        ("mynet.layers.SoftExp.forward", "torch.autograd.function.FunctionCtx.save_for_backward"),
        ("mynet.layers.BasicBlock.forward", "torch.nn.modules.module.Module._wrapped_call_impl"),
        ("torch.nn.modules.module.Module._call_impl", "mynet.net.Net.forward"),
        ("torch.nn.modules.module.Module._call_impl", "mynet.layers.BasicBlock.forward"),
        ("torch.nn.modules.module.Module._call_impl", "torch.nn.modules.container.Sequential.forward"),
        ("torch.nn.modules.module.Module._call_impl", "torch.nn.modules.conv.Conv2d.forward"),
        ("torch.nn.modules.module.Module._call_impl", "torch.nn.modules.batchnorm._BatchNorm.forward"),
        ("torch.nn.modules.module.Module._call_impl", "torch.nn.modules.activation.ReLU.forward"),
        ("torch.nn.modules.module.Module._call_impl", "torch.nn.modules.linear.Linear.forward"),
        ("at::native::raw_cudnn_convolution_forward_out_32bit", "cudnnConvolutionForward"),
        ("at::cuda::blas::gemm_internal", "cublasSgemm"),
        ("torch.nn.modules.module.Module._apply", "torch.nn.modules.module.Module._apply"),  # .to() over the children
    } <= confirmed
    # not taken on cuda: params.use_mkldnn, params.is_dilated (Convolution.cpp:164, 168), after use_cudnn returns;
    # and torch._C.TensorBase.__add__ (what `out + x` at layers.py:42 runs) to aten::add.Tensor, which the
    # run reaches through the binding torch._C.TensorBase.add, a name the comparison does not match to __add__
    # also not taken: the deleters empty_cpu and empty_cuda hand to the storage (EmptyTensor.cpp:34,
    # cuda/EmptyTensor.cpp:27), which run when it is freed, and the lambdas Tensor.cpp's methods hand
    # to for_each_offset, which the net's ops do not call
    assert (len(comparison["confirmed"]), len(comparison["not_taken"])) == (267, 88)
