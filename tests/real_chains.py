"""Chains of PyTorch 2.4.0 verified by hand, hop by hop, from the source (the
MetaX-MACA/mcPytorch fork: upstream code and its `#if defined(USE_MACA)` branches), and how
a trace is scored against them. Used by tests/test_real_chains.py and
benchmarks/chain_bench.py; nothing here was derived by running explorer.

A chain: the query, the --to target (the kernel launched or the vendor API called), the hops
from the definition the query names to the target as (qualified name, path, line), with,
for each hop after the first, where the hop before calls it (`evidence`). A chain follows
the upstream CUDA branch (USE_MACA undefined), which is what a reader of PyTorch reads;
where the fork's branch gives other hops, they are an `alternative`, as right as the chain.
CHAINS holds the operator chains and, after them, BINDING_CHAINS: chains through PyTorch's own
bindings (pybind11 in init functions, CPython method tables and type slots, TORCH_LIBRARY
operators outside the yaml), macro-written launches, tensor operators and factory-made functions;
the conventions they name hops by are written above BINDING_CHAINS.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Hop = tuple[str, "str | None", "int | None"]


@dataclass(frozen=True)
class Chain:
    family: str
    query: str
    to: str
    hops: tuple[Hop, ...]
    evidence: tuple[str, ...] = ()
    branch: str = ""
    alternatives: tuple[tuple[Hop, ...], ...] = ()
    backend: str = "cuda"  # the device whose kernels the chain takes (`trace --backend`)

    def accepted(self) -> list[tuple[Hop, ...]]:
        return [self.hops, *self.alternatives]


@dataclass(frozen=True)
class Score:
    """How a trace did on one chain: the rank of the first listed path that is the chain (or
    an alternative; None: not listed), and where the first path differs from the chain."""

    chain: Chain
    rank: int | None
    paths_found: int
    differences: list[str] = field(default_factory=list)

    @property
    def right(self) -> bool:
        return self.rank == 1


def hops_of(path) -> tuple[Hop, ...]:
    return tuple((hop.node.symbol.qname, hop.node.symbol.path, hop.node.symbol.line) for hop in path)


def score(chain: Chain, paths: list, paths_found: int, variant_paths: list | None = None) -> Score:
    """A listed path counts for the chain when it is the chain or stands for it: a variant that
    reaches another specialisation at a hop, which the output lists beside it."""
    listed = [hops_of(path) for path in paths]
    variants = [[hops_of(other) for other in others] for others in variant_paths or [[] for _ in paths]]
    accepted = chain.accepted()
    rank = next(
        (
            number
            for number, (hops, others) in enumerate(zip(listed, variants), start=1)
            if hops in accepted or any(other in accepted for other in others)
        ),
        None,
    )
    differences = _differences(chain.hops, listed[0]) if listed and rank != 1 else []
    if not listed:
        differences = ["no path found"]
    return Score(chain, rank, paths_found, differences)


def _differences(truth: tuple[Hop, ...], found: tuple[Hop, ...]) -> list[str]:
    """Hop by hop, where the first path found leaves the chain."""
    lines = []
    for index in range(max(len(truth), len(found))):
        want = truth[index] if index < len(truth) else None
        got = found[index] if index < len(found) else None
        if want != got:
            lines.append(f"hop {index}: expected {_hop_text(want)}, first path has {_hop_text(got)}")
    return lines


def _hop_text(hop: Hop | None) -> str:
    if hop is None:
        return "nothing"
    name, path, line = hop
    return f"{name} ({path}:{line})" if path else name


Y = "aten/src/ATen/native/native_functions.yaml"
BLAS = "aten/src/ATen/native/cuda/Blas.cpp"
CUBLAS = "aten/src/ATen/cuda/CUDABlas.cpp"
CONV = "aten/src/ATen/native/Convolution.cpp"
SHAPE = "aten/src/ATen/native/cuda/Shape.cu"
INDEXING = "aten/src/ATen/native/cuda/Indexing.cu"
REDUCE = "aten/src/ATen/native/cuda/Reduce.cuh"
SOFTMAX = "aten/src/ATen/native/cuda/SoftMax.cu"
LOOPS = "aten/src/ATen/native/cuda/Loops.cuh"
CUDA_LOOPS = "aten/src/ATen/native/cuda/CUDALoops.cuh"
LAYER_NORM = "aten/src/ATen/native/cuda/layer_norm_kernel.cu"
UNARY_OPS = "aten/src/ATen/native/UnaryOps.cpp"


def unary_chain(
    operator: str,
    line: int,
    out_line: int,
    impl_line: int,
    stub_line: int,
    kernel_file: str,
    kernel_line: int,
    gpu_kernel_call: int,
) -> Chain:
    """An elementwise unary operator of UnaryOps.cpp: `- func: op` delegates to `op.out`, whose
    CPU and CUDA kernel is `op_out`, written by CREATE_UNARY_TORCH_IMPL_FUNC(op_out, op_stub) at
    `impl_line`; the stub (DEFINE_DISPATCH at `stub_line`) reaches `op_kernel_cuda`, which hands
    a lambda to gpu_kernel at `gpu_kernel_call` for real types, and on as for exp."""
    name = operator.removeprefix("aten::")
    head = (
        (operator, Y, line),
        (f"{operator}.out", Y, out_line),
        (f"at::native::{name}_out", UNARY_OPS, impl_line),
        (f"at::native::{name}_stub", UNARY_OPS, stub_line),
        (f"at::native::{name}_kernel_cuda", kernel_file, kernel_line),
        ("at::native::gpu_kernel", LOOPS, 80),
        ("at::native::gpu_kernel_impl", CUDA_LOOPS, 383),
    )
    return Chain(
        "elementwise unary",
        operator,
        "vectorized_elementwise_kernel",
        (
            *head,
            ("at::native::launch_vectorized_kernel", CUDA_LOOPS, 247),
            ("at::native::vectorized_elementwise_kernel", CUDA_LOOPS, 63),
        ),
        (
            f"yaml:{line + 2 if name == 'sqrt' else line + 1} structured_delegate: {name}.out",
            f"yaml: {name}.out lists CPU, CUDA: {name}_out",
            f"UnaryOps.cpp:{impl_line} CREATE_UNARY_TORCH_IMPL_FUNC({name}_out, {name}_stub)",
            f"{kernel_file.rsplit('/', 1)[-1]}: REGISTER_DISPATCH({name}_stub, &{name}_kernel_cuda)",
            f"{kernel_file.rsplit('/', 1)[-1]}:{gpu_kernel_call} gpu_kernel(iter, []GPU_LAMBDA(scalar_t a) -> scalar_t {{...}})",
            "Loops.cuh:99 gpu_kernel_impl(iter, f)",
            "CUDALoops.cuh:404 launch_vectorized_kernel(numel, f, data)",
            "CUDALoops.cuh:256 vectorized_elementwise_kernel<4, func_t, array_t><<<...>>>(N, f, data)",
        ),
        "float32, contiguous; upstream launch_vectorized_kernel (CUDALoops.cuh:247), the MACA one (174) is the alternative",
        (
            (
                *head,
                ("at::native::launch_vectorized_kernel", CUDA_LOOPS, 174),
                ("at::native::vectorized_elementwise_kernel", CUDA_LOOPS, 63),
            ),
        ),
    )


CHAINS: list[Chain] = [
    Chain(
        "cuDNN convolution forward",
        "torch.nn.functional.conv2d",
        "cudnnConvolutionForward",
        (
            ("torch.nn.functional.conv2d", "torch/nn/functional.py", 87),
            ("torch._C._VariableFunctions.conv2d", None, None),
            ("aten::conv2d", Y, 1707),
            ("at::native::conv2d_symint", CONV, 945),
            ("aten::convolution", Y, 1668),
            ("at::native::convolution", CONV, 1178),
            ("aten::_convolution", Y, 1690),
            ("at::native::_convolution", CONV, 1521),
            ("aten::cudnn_convolution", Y, 1869),
            ("at::native::cudnn_convolution", "aten/src/ATen/native/cudnn/ConvShared.cpp", 240),
            ("at::native::cudnn_convolution_forward_out", "aten/src/ATen/native/cudnn/ConvShared.cpp", 205),
            ("at::native::raw_cudnn_convolution_forward_out", "aten/src/ATen/native/cudnn/Conv_v8.cpp", 1172),
            ("at::native::raw_cudnn_convolution_forward_out_v7", "aten/src/ATen/native/cudnn/Conv_v7.cpp", 780),
            ("at::native::split_batch_dim_to_32bit_out", "aten/src/ATen/native/cudnn/Conv_v7.cpp", 606),
            ("at::native::raw_cudnn_convolution_forward_out_32bit", "aten/src/ATen/native/cudnn/Conv_v7.cpp", 697),
            ("at::native::AlgoIterator::try_all", "aten/src/ATen/native/cudnn/Conv_v7.cpp", 545),
            ("at::native::<lambda at line 743>", "aten/src/ATen/native/cudnn/Conv_v7.cpp", 743),
            ("cudnnConvolutionForward", None, None),
        ),
        (
            "torch/nn/functional.py:87 conv2d = _add_docstr(torch.conv2d, ...)",
            "yaml:1707 conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, ...) (int padding: not conv2d.padding)",
            "yaml:1709 CompositeImplicitAutograd: conv2d_symint",
            "Convolution.cpp:965 at::convolution_symint(...)",
            "yaml:1670 CompositeExplicitAutograd: convolution",
            "Convolution.cpp:1189 at::_convolution(... 13 arguments)",
            "yaml:1692 CompositeExplicitAutograd: _convolution",
            "Convolution.cpp:1605 at::cudnn_convolution(...) for ConvBackend::Cudnn",
            "yaml:1871 CUDA: cudnn_convolution",
            "ConvShared.cpp:262 cudnn_convolution_forward_out(...)",
            "ConvShared.cpp:227 raw_cudnn_convolution_forward_out(...)",
            "Conv_v8.cpp:1200 raw_cudnn_convolution_forward_out_v7(...) (cuDNN v8 API off by default)",
            "Conv_v7.cpp:791 split_batch_dim_to_32bit_out(..., raw_cudnn_convolution_forward_out_32bit)",
            "Conv_v7.cpp:625 func_32bit(...): the function passed is called by split_batch_dim_to_32bit_out",
            "Conv_v7.cpp:742 AlgoIterator<cudnnConvolutionFwdAlgoPerf_t>(args, benchmark).try_all([&](...) {...})",
            "Conv_v7.cpp:552 f(algoPerf) in try_all (and 564): the lambda handed to it (743)",
            "Conv_v7.cpp:759 cudnnConvolutionForward(...) in the lambda",
        ),
        "upstream; _convolution is taken apart by the fork's #if in Convolution.cpp and found again by braces",
    ),
    Chain(
        "BLAS",
        "aten::mm",
        "cublasSgemm",
        (
            ("aten::mm", Y, 4099),
            ("aten::mm.out", Y, 4107),
            ("at::native::mm_out_cuda", BLAS, 527),
            ("at::native::addmm_out_cuda_impl", BLAS, 199),
            ("at::cuda::blas::gemm", CUBLAS, 1125),
            ("at::cuda::blas::gemm_internal", CUBLAS, 1008),
            ("at::cuda::blas::gemm_internal_cublas", CUBLAS, 808),
            ("cublasSgemm", None, None),
        ),
        (
            "yaml:4100 structured_delegate: mm.out",
            "yaml:4111 CUDA: mm_out_cuda",
            "Blas.cpp:528 addmm_out_cuda_impl(...)",
            "Blas.cpp:393 at::cuda::blas::gemm<scalar_t>(...): for float, template <> gemm<float> at CUDABlas.cpp:1125",
            "CUDABlas.cpp:1131 gemm_internal<float>(...) (tunable ops off by default)",
            "CUDABlas.cpp:1014 gemm_internal_cublas<float>(...) (cuBLAS is the default backend, not cuBLASLt)",
            "CUDABlas.cpp:816 cublasSgemm(...)",
        ),
        "float32; self 2-D so not the Lt interface (Blas.cpp:230 wants a 1-D bias)",
    ),
    Chain(
        "BLAS",
        "aten::addmm",
        "cublasSgemm",
        (
            ("aten::addmm", Y, 6965),
            ("aten::addmm.out", Y, 6954),
            ("at::native::addmm_out_cuda", BLAS, 519),
            ("at::native::addmm_out_cuda_impl", BLAS, 199),
            ("at::cuda::blas::gemm", CUBLAS, 1125),
            ("at::cuda::blas::gemm_internal", CUBLAS, 1008),
            ("at::cuda::blas::gemm_internal_cublas", CUBLAS, 808),
            ("cublasSgemm", None, None),
        ),
        (
            "yaml:6966 structured_delegate: addmm.out",
            "yaml:6958 CUDA: addmm_out_cuda",
            "Blas.cpp:520 addmm_out_cuda_impl(...)",
            "Blas.cpp:393 at::cuda::blas::gemm<scalar_t>(...)",
            "CUDABlas.cpp:1131 gemm_internal<float>(...)",
            "CUDABlas.cpp:1014 gemm_internal_cublas<float>(...)",
            "CUDABlas.cpp:816 cublasSgemm(...)",
        ),
        "float32 with a 2-D self: useLtInterface stays false (Blas.cpp:230)",
    ),
    Chain(
        "batched BLAS",
        "aten::bmm",
        "cublasSgemmStridedBatched",
        (
            ("aten::bmm", Y, 1339),
            ("aten::bmm.out", Y, 1349),
            ("at::native::bmm_out_cuda", BLAS, 538),
            ("at::native::baddbmm_out_cuda_impl", BLAS, 435),
            ("at::cuda::blas::bgemm", CUBLAS, 729),
            ("at::cuda::blas::bgemm_internal", CUBLAS, 608),
            ("at::cuda::blas::bgemm_internal_cublas", CUBLAS, 475),
            ("cublasSgemmStridedBatched", None, None),
        ),
        (
            "yaml:1340 structured_delegate: bmm.out",
            "yaml:1354 CUDA: bmm_out_cuda",
            "Blas.cpp:543 baddbmm_out_cuda_impl(result, result, ...)",
            "Blas.cpp:499 at::cuda::blas::bgemm<scalar_t>(...) (batch > 1)",
            "CUDABlas.cpp:735 bgemm_internal<float>(...)",
            "CUDABlas.cpp:614 bgemm_internal_cublas<float>(...)",
            "CUDABlas.cpp:483 cublasSgemmStridedBatched(...)",
        ),
        "float32, batch of more than one matrix",
    ),
    Chain(
        "reduction",
        "aten::sum.dim_IntList",
        "reduce_kernel",
        (
            ("aten::sum.dim_IntList", Y, 5733),
            ("aten::sum.IntList_out", Y, 5748),
            ("at::native::sum_out", "aten/src/ATen/native/ReduceOps.cpp", 1194),
            ("at::native::sum_stub", "aten/src/ATen/native/ReduceOps.cpp", 429),
            ("at::native::sum_kernel_cuda", "aten/src/ATen/native/cuda/ReduceSumProdKernel.cu", 173),
            ("at::native::sum_functor::operator()", "aten/src/ATen/native/cuda/ReduceSumProdKernel.cu", 15),
            ("at::native::gpu_reduce_kernel", REDUCE, 1005),
            ("at::native::launch_reduce_kernel", REDUCE, 778),
            ("at::native::reduce_kernel", REDUCE, 188),
        ),
        (
            "yaml:5735 structured_delegate: sum.IntList_out",
            "yaml:5752 CPU, CUDA: sum_out",
            "ReduceOps.cpp:1215 sum_stub(iter.device_type(), iter)",
            "ReduceSumProdKernel.cu:211 REGISTER_DISPATCH(sum_stub, &sum_kernel_cuda)",
            "ReduceSumProdKernel.cu:177 sum_functor<scalar_t>{}(iter) (float: the primary template)",
            "ReduceSumProdKernel.cu:16 gpu_reduce_kernel<scalar_t, out_t>(...)",
            "Reduce.cuh:1112 launch_reduce_kernel<...>(config, reduce)",
            "Reduce.cuh:785 reduce_kernel<...><<<grid, block, shared_memory, stream>>>(reduction)",
        ),
        "float32 (not Half/BFloat16, which reduce_dispatch sends to OpFunctor specialisations)",
    ),
    Chain(
        "concatenation",
        "aten::cat",
        "CatArrayBatchedCopy",
        (
            ("aten::cat", Y, 1374),
            ("aten::cat.out", Y, 1382),
            ("at::native::cat_out_cuda", SHAPE, 1679),
            ("at::native::parallel_cat", SHAPE, 1569),
            ("at::native::CatArrayBatchedCopy", SHAPE, 145),
        ),
        (
            "yaml:1375 structured_delegate: cat.out",
            "yaml:1388 CUDA: cat_out_cuda",
            "Shape.cu:1825 parallel_cat<scalar_t, CAT_ARRAY_BATCH_SIZE, 1>(...) (contiguous, same dtype)",
            "Shape.cu:1662 HANDLE_CASE(1): the macro at 1655 launches CatArrayBatchedCopy<...><<<...>>>",
        ),
        "upstream: the #else of `#ifdef USE_MACA` at Shape.cu:1736; the MACA branch calls maca_parallel_cat, which launches"
        " MACA_CatArrayBatchedCopy, another kernel",
    ),
    Chain(
        "indexing",
        "aten::index_select",
        "indexSelectSmallIndex",
        (
            ("aten::index_select", Y, 9143),
            ("at::native::index_select_cuda", INDEXING, 2094),
            ("at::native::index_select_out_cuda", INDEXING, 2054),
            ("at::native::index_select_out_cuda_impl", INDEXING, 1801),
            ("at::native::indexSelectSmallIndex", INDEXING, 1701),
        ),
        (
            "yaml:9148 CUDA: index_select_cuda",
            "Indexing.cu:2096 at::native::index_select_out_cuda(self, dim, index, out)",
            "Indexing.cu:2076 index_select_out_cuda_impl<scalar_t>(out, self, dim, index)",
            "Indexing.cu:1921 SMALL_INDEX(...): the body's macro at 1845 launches indexSelectSmallIndex<...><<<...>>>",
        ),
        "at most 16 indices (the small-index kernel); both #if sides of Indexing.cu:1915 launch it through SMALL_INDEX",
    ),
    Chain(
        "softmax",
        "aten::_softmax",
        "cunn_SoftMaxForward",
        (
            ("aten::_softmax", Y, 5498),
            ("aten::_softmax.out", Y, 5505),
            ("at::native::softmax_cuda_out", SOFTMAX, 1188),
            ("at::native::host_softmax", SOFTMAX, 678),
            ("at::native::cunn_SoftMaxForward", SOFTMAX, 607),
        ),
        (
            "yaml:5499 structured_delegate: _softmax.out",
            "yaml:5509 CUDA: softmax_cuda_out",
            "SoftMax.cu:1193 host_softmax<SoftMaxForwardEpilogue, false>(...)",
            "SoftMax.cu:770 cunn_SoftMaxForward<...><<<grid, block, ...>>>(...)",
        ),
        "a softmax dimension over 1024 elements (shorter ones take dispatch_softmax_forward's persistent kernel)",
    ),
    Chain(
        "pooling",
        "aten::max_pool2d_with_indices",
        "max_pool_forward_nchw",
        (
            ("aten::max_pool2d_with_indices", Y, 12249),
            ("aten::max_pool2d_with_indices.out", Y, 12240),
            ("at::native::max_pool2d_with_indices_out_cuda", "aten/src/ATen/native/cuda/DilatedMaxPool2d.cu", 299),
            ("at::native::max_pool_forward_nchw", "aten/src/ATen/native/cuda/DilatedMaxPool2d.cu", 50),
        ),
        (
            "yaml:12251 structured_delegate: max_pool2d_with_indices.out",
            "yaml:12245 CUDA: max_pool2d_with_indices_out_cuda",
            "DilatedMaxPool2d.cu:430 max_pool_forward_nchw<scalar_t, scalar_t><<<...>>>(...) for MemoryFormat::Contiguous",
        ),
        "NCHW contiguous input; the launch is outside the fork's #ifdef USE_MACA (which covers channels-last)",
    ),
    Chain(
        "pooling",
        "aten::avg_pool2d",
        "avg_pool2d_out_cuda_frame",
        (
            ("aten::avg_pool2d", Y, 12132),
            ("aten::avg_pool2d.out", Y, 12119),
            ("at::native::avg_pool2d_out_cuda", "aten/src/ATen/native/cuda/AveragePool2d.cu", 249),
            ("at::native::avg_pool2d_out_cuda_frame", "aten/src/ATen/native/cuda/AveragePool2d.cu", 33),
        ),
        (
            "yaml:12134 structured_delegate: avg_pool2d.out",
            "yaml:12128 CUDA: avg_pool2d_out_cuda",
            "AveragePool2d.cu:331 avg_pool2d_out_cuda_frame<scalar_t, accscalar_t><<<...>>>(...) for MemoryFormat::Contiguous",
        ),
        "NCHW contiguous input",
    ),
    Chain(
        "interpolation",
        "aten::upsample_bilinear2d",
        "upsample_bilinear2d_out_frame",
        (
            ("aten::upsample_bilinear2d", Y, 12576),
            ("aten::upsample_bilinear2d.out", Y, 12568),
            ("at::native::upsample_bilinear2d_out_cuda", "aten/src/ATen/native/cuda/UpSampleBilinear2d.cu", 847),
            (
                "at::native::upsample_bilinear2d_out_cuda_template",
                "aten/src/ATen/native/cuda/UpSampleBilinear2d.cu",
                262,
            ),
            ("at::native::upsample_bilinear2d_out_frame", "aten/src/ATen/native/cuda/UpSampleBilinear2d.cu", 35),
        ),
        (
            "yaml:12578 structured_delegate: upsample_bilinear2d.out",
            "yaml:12573 CUDA: upsample_bilinear2d_out_cuda",
            "UpSampleBilinear2d.cu:854 upsample_bilinear2d_out_cuda_template(...)",
            "UpSampleBilinear2d.cu:348 upsample_bilinear2d_out_frame<scalar_t, accscalar_t><<<...>>>(...) (not channels-last)",
        ),
        "NCHW contiguous input; the kernel stands behind C10_LAUNCH_BOUNDS_1(1024)",
    ),
    Chain(
        "losses",
        "aten::nll_loss_forward",
        "nll_loss_forward_reduce_cuda_kernel_2d",
        (
            ("aten::nll_loss_forward", Y, 11550),
            ("aten::nll_loss_forward.output", Y, 11542),
            ("at::native::nll_loss_forward_out_cuda", "aten/src/ATen/native/cuda/Loss.cu", 592),
            ("at::native::nll_loss_forward_out_cuda_template", "aten/src/ATen/native/cuda/Loss.cu", 276),
            ("at::native::nll_loss_forward_reduce_cuda_kernel_2d", "aten/src/ATen/native/cuda/Loss.cu", 230),
        ),
        (
            "yaml:11552 structured_delegate: nll_loss_forward.output",
            "yaml:11547 CUDA: nll_loss_forward_out_cuda",
            "Loss.cu:601 nll_loss_forward_out_cuda_template(...)",
            "Loss.cu:385 nll_loss_forward_reduce_cuda_kernel_2d<...><<<1, ...>>>(...) for 2-D input, mean reduction",
        ),
        "a batch of class scores (2-D input) with reduction='mean'",
    ),
    Chain(
        "elementwise unary",
        "aten::exp",
        "vectorized_elementwise_kernel",
        (
            ("aten::exp", Y, 2549),
            ("aten::exp.out", Y, 2561),
            ("at::native::exp_out", "aten/src/ATen/native/UnaryOps.cpp", 334),
            ("at::native::exp_stub", "aten/src/ATen/native/UnaryOps.cpp", 999),
            ("at::native::exp_kernel_cuda", "aten/src/ATen/native/cuda/UnaryOpsKernel.cu", 38),
            ("at::native::gpu_kernel", LOOPS, 80),
            ("at::native::gpu_kernel_impl", CUDA_LOOPS, 383),
            ("at::native::launch_vectorized_kernel", CUDA_LOOPS, 247),
            ("at::native::vectorized_elementwise_kernel", CUDA_LOOPS, 63),
        ),
        (
            "yaml:2551 structured_delegate: exp.out",
            "yaml:2566 CPU, CUDA: exp_out",
            "UnaryOps.cpp:334 CREATE_UNARY_TORCH_IMPL_FUNC(exp_out, exp_stub): the macro at 301 writes exp_stub(device_type(), *this)",
            "UnaryOpsKernel.cu:279 REGISTER_DISPATCH(exp_stub, &exp_kernel_cuda)",
            "UnaryOpsKernel.cu:64 gpu_kernel(iter, []GPU_LAMBDA(scalar_t a) -> scalar_t {...}) for real types",
            "Loops.cuh:99 gpu_kernel_impl(iter, f)",
            "CUDALoops.cuh:404 launch_vectorized_kernel(numel, f, data) (contiguous)",
            "CUDALoops.cuh:256 vectorized_elementwise_kernel<4, func_t, array_t><<<...>>>(N, f, data)",
        ),
        "upstream launch_vectorized_kernel (the #else of `#ifdef USE_MACA` at CUDALoops.cuh:172); the MACA side, at 174,"
        " launches the same kernel",
        (
            (
                ("aten::exp", Y, 2549),
                ("aten::exp.out", Y, 2561),
                ("at::native::exp_out", "aten/src/ATen/native/UnaryOps.cpp", 334),
                ("at::native::exp_stub", "aten/src/ATen/native/UnaryOps.cpp", 999),
                ("at::native::exp_kernel_cuda", "aten/src/ATen/native/cuda/UnaryOpsKernel.cu", 38),
                ("at::native::gpu_kernel", LOOPS, 80),
                ("at::native::gpu_kernel_impl", CUDA_LOOPS, 383),
                ("at::native::launch_vectorized_kernel", CUDA_LOOPS, 174),
                ("at::native::vectorized_elementwise_kernel", CUDA_LOOPS, 63),
            ),
        ),
    ),
    Chain(
        "normalisation",
        "aten::native_layer_norm",
        "vectorized_layer_norm_kernel",
        (
            ("aten::native_layer_norm", Y, 3260),
            ("at::native::layer_norm_cuda", LAYER_NORM, 1575),
            ("at::native::LayerNormKernelImpl", LAYER_NORM, 901),
            ("at::native::LayerNormKernelImplInternal", LAYER_NORM, 855),
            ("at::native::launch_vectorized_layer_norm_kernel", LAYER_NORM, 759),
            ("at::native::vectorized_layer_norm_kernel", LAYER_NORM, 316),
        ),
        (
            "yaml:3263 CUDA: layer_norm_cuda",
            "layer_norm_kernel.cu:1609 LayerNormKernelImpl(*X, *gamma, *beta, M, N, eps, &Y, &mean, &rstd)",
            "layer_norm_kernel.cu:918 LayerNormKernelImplInternal<scalar_t, acc_t>(...)",
            "layer_norm_kernel.cu:888 launch_vectorized_layer_norm_kernel(...) (float, aligned, N a multiple of the vector size)",
            "layer_norm_kernel.cu:782 vectorized_layer_norm_kernel<<<blocks, threads, nshared, stream>>>(...)",
        ),
        "float32, aligned rows (the vectorised path; otherwise RowwiseMomentsCUDAKernel and LayerNormForwardCUDAKernel)",
    ),
    Chain(
        "normalisation",
        "aten::cudnn_batch_norm",
        "cudnnBatchNormalizationForwardTrainingEx",
        (
            ("aten::cudnn_batch_norm", Y, 1858),
            ("at::native::cudnn_batch_norm", "aten/src/ATen/native/cudnn/BatchNorm.cpp", 121),
            ("cudnnBatchNormalizationForwardTrainingEx", None, None),
        ),
        (
            "yaml:1860 CUDA: cudnn_batch_norm",
            "cudnn/BatchNorm.cpp:213 cudnnBatchNormalizationForwardTrainingEx(...) when training",
        ),
        "cuDNN enabled (the definition at BatchNorm.cpp:19 is the #if !AT_CUDNN_ENABLED() stub); training",
    ),
    Chain(
        "reduction",
        "aten::amax",
        "reduce_kernel",
        (
            ("aten::amax", Y, 3834),
            ("aten::amax.out", Y, 3839),
            ("at::native::amax_out", "aten/src/ATen/native/ReduceOps.cpp", 1695),
            ("at::native::max_values_stub", "aten/src/ATen/native/ReduceOps.cpp", 438),
            ("at::native::max_values_kernel_cuda", "aten/src/ATen/native/cuda/ReduceMaxValuesKernel.cu", 35),
            ("at::native::max_values_kernel_cuda_impl", "aten/src/ATen/native/cuda/ReduceMaxValuesKernel.cu", 28),
            ("at::native::gpu_reduce_kernel", REDUCE, 1005),
            ("at::native::launch_reduce_kernel", REDUCE, 778),
            ("at::native::reduce_kernel", REDUCE, 188),
        ),
        (
            "yaml:3836 structured_delegate: amax.out",
            "yaml:3842 CPU, CUDA: amax_out",
            "ReduceOps.cpp:1699 max_values_stub(iter.device_type(), iter)",
            "ReduceMaxValuesKernel.cu:59 REGISTER_DISPATCH(max_values_stub, &max_values_kernel_cuda)",
            "ReduceMaxValuesKernel.cu:38 max_values_kernel_cuda_impl<scalar_t>(iter)",
            "ReduceMaxValuesKernel.cu:29 gpu_reduce_kernel<scalar_t, scalar_t>(iter, func_wrapper<acc_t>(MaxNanFunctor<acc_t>()), ...)",
            "Reduce.cuh:1112 launch_reduce_kernel<...>(config, reduce)",
            "Reduce.cuh:785 reduce_kernel<...><<<...>>>(reduction)",
        ),
        "a non-empty input",
    ),
    Chain(
        "embedding",
        "aten::embedding",
        "indexSelectSmallIndex",
        (
            ("aten::embedding", Y, 2280),
            ("at::native::embedding_symint", "aten/src/ATen/native/Embedding.cpp", 37),
            ("aten::index_select", Y, 9143),
            ("at::native::index_select_cuda", INDEXING, 2094),
            ("at::native::index_select_out_cuda", INDEXING, 2054),
            ("at::native::index_select_out_cuda_impl", INDEXING, 1801),
            ("at::native::indexSelectSmallIndex", INDEXING, 1701),
        ),
        (
            "yaml:2282 CompositeExplicitAutograd: embedding_symint",
            "Embedding.cpp:45 weight.index_select(0, indices) for 1-D indices (a Tensor method: the operator)",
            "yaml:9148 CUDA: index_select_cuda",
            "Indexing.cu:2096 at::native::index_select_out_cuda(self, dim, index, out)",
            "Indexing.cu:2076 index_select_out_cuda_impl<scalar_t>(out, self, dim, index)",
            "Indexing.cu:1921 SMALL_INDEX(...) launches indexSelectSmallIndex<...><<<...>>>",
        ),
        "1-D indices, at most 16 of them",
    ),
    Chain(
        "reduction",
        "aten::argmax",
        "reduce_kernel",
        (
            ("aten::argmax", Y, 810),
            ("aten::argmax.out", Y, 816),
            ("at::native::argmax_out", "aten/src/ATen/native/ReduceOps.cpp", 1738),
            ("at::native::argmax_argmin_impl", "aten/src/ATen/native/ReduceOps.cpp", 1704),
            ("at::native::argmax_stub", "aten/src/ATen/native/ReduceOps.cpp", 439),
            ("at::native::argmax_kernel_cuda", "aten/src/ATen/native/cuda/ReduceArgMaxKernel.cu", 29),
            ("at::native::argmax_kernel_cuda_impl", "aten/src/ATen/native/cuda/ReduceArgMaxKernel.cu", 21),
            ("at::native::gpu_reduce_kernel", REDUCE, 1005),
            ("at::native::launch_reduce_kernel", REDUCE, 778),
            ("at::native::reduce_kernel", REDUCE, 188),
        ),
        (
            "yaml:811 structured_delegate: argmax.out",
            "yaml:819 CPU, CUDA: argmax_out",
            "ReduceOps.cpp:1743 argmax_argmin_impl(self, dim, keepdim, result, argmax_stub)",
            "ReduceOps.cpp:1734 stub(iter.device_type(), iter): the stub passed in",
            "ReduceArgMaxKernel.cu:44 REGISTER_DISPATCH(argmax_stub, &argmax_kernel_cuda)",
            "ReduceArgMaxKernel.cu:39 argmax_kernel_cuda_impl<scalar_t>(iter) (float)",
            "ReduceArgMaxKernel.cu:22 gpu_reduce_kernel<scalar_t, int64_t>(...)",
            "Reduce.cuh:1112 launch_reduce_kernel<...>(config, reduce)",
            "Reduce.cuh:785 reduce_kernel<...><<<...>>>(reduction)",
        ),
        "float32 (Half and BFloat16 take argmax_kernel_cuda_impl<at::Half, float> at line 34, the same definition)",
    ),
    unary_chain("aten::sqrt", 5781, 5799, 359, 1031, "aten/src/ATen/native/cuda/UnaryOpsKernel.cu", 135, 161),
    unary_chain("aten::log", 3448, 3460, 340, 1009, "aten/src/ATen/native/cuda/UnaryLogKernels.cu", 19, 43),
    Chain(
        "normalisation",
        "aten::native_batch_norm",
        "batch_norm_collect_statistics_kernel",
        (
            ("aten::native_batch_norm", Y, 4295),
            ("at::native::batch_norm_cuda", "aten/src/ATen/native/cuda/Normalization.cu", 461),
            ("at::native::batch_norm_cuda_out", "aten/src/ATen/native/cuda/Normalization.cu", 435),
            ("at::native::batch_norm_mean_var", "aten/src/ATen/native/cuda/Normalization.cu", 306),
            ("at::native::batch_norm_stats_cuda_template", "aten/src/ATen/native/cuda/Normalization.cuh", 815),
            ("at::native::batch_norm_collect_statistics_kernel", "aten/src/ATen/native/cuda/Normalization.cuh", 275),
        ),
        (
            "yaml:4298 CUDA: batch_norm_cuda",
            "Normalization.cu:469 at::native::batch_norm_cuda_out(...)",
            "Normalization.cu:441 batch_norm_mean_var(self, save_mean, save_invstd) when training",
            "Normalization.cu:313 batch_norm_stats_cuda_template<scalar_t, int32_t, Var>(...) for Impl::Contiguous",
            "Normalization.cuh:842 batch_norm_collect_statistics_kernel<...><<<blocks, threads, 0, stream>>>(...)",
        ),
        "training, contiguous NCHW input (the native kernel, not cuDNN)",
    ),
    Chain(
        "normalisation",
        "aten::native_group_norm",
        "RowwiseMomentsCUDAKernel",
        (
            ("aten::native_group_norm", Y, 2969),
            ("at::native::native_group_norm", "aten/src/ATen/native/group_norm.cpp", 62),
            ("at::native::GroupNormKernel", "aten/src/ATen/native/group_norm.cpp", 210),
            ("at::native::GroupNormKernelImpl", "aten/src/ATen/native/cuda/group_norm_kernel.cu", 676),
            ("at::native::GroupNormKernelImplInternal", "aten/src/ATen/native/cuda/group_norm_kernel.cu", 574),
            ("at::native::RowwiseMomentsCUDAKernel", "aten/src/ATen/native/cuda/group_norm_kernel.cu", 37),
        ),
        (
            "yaml:2971 CPU, CUDA: native_group_norm",
            "group_norm.cpp:100 GroupNormKernel(X.device().type(), ...): the DispatchStub defined at 210",
            "group_norm_kernel.cu:1047 REGISTER_DISPATCH(GroupNormKernel, &GroupNormKernelImpl)",
            "group_norm_kernel.cu:694 GroupNormKernelImplInternal<scalar_t>(...)",
            "group_norm_kernel.cu:620 RowwiseMomentsCUDAKernel<T><<<N * G, ...>>>(...)",
        ),
        "upstream: the #else side of the fork's `#ifdef USE_MACA` fast path at group_norm_kernel.cu:610",
    ),
    Chain(
        "softmax",
        "aten::_log_softmax",
        "cunn_SoftMaxForward",
        (
            ("aten::_log_softmax", Y, 3675),
            ("aten::_log_softmax.out", Y, 3679),
            ("at::native::log_softmax_cuda_out", SOFTMAX, 1164),
            ("at::native::host_softmax", SOFTMAX, 678),
            ("at::native::cunn_SoftMaxForward", SOFTMAX, 607),
        ),
        (
            "yaml:3676 structured_delegate: _log_softmax.out",
            "yaml:3683 CUDA: log_softmax_cuda_out",
            "SoftMax.cu:1169 host_softmax<LogSoftMaxForwardEpilogue, true>(...)",
            "SoftMax.cu:770 cunn_SoftMaxForward<...><<<grid, block, ...>>>(...)",
        ),
        "a dimension over 1024 elements, as for _softmax",
    ),
    Chain(
        "interpolation",
        "aten::upsample_nearest2d",
        "upsample_nearest2d_out_frame",
        (
            ("aten::upsample_nearest2d", Y, 12746),
            ("aten::upsample_nearest2d.out", Y, 12730),
            ("at::native::upsample_nearest2d_out_cuda", "aten/src/ATen/native/cuda/UpSampleNearest2d.cu", 446),
            ("at::native::upsample_nearest2d_out_cuda_template", "aten/src/ATen/native/cuda/UpSampleNearest2d.cu", 206),
            ("at::native::upsample_nearest2d_out_frame", "aten/src/ATen/native/cuda/UpSampleNearest2d.cu", 41),
        ),
        (
            "yaml:12748 structured_delegate: upsample_nearest2d.out",
            "yaml:12735 CUDA: upsample_nearest2d_out_cuda",
            "UpSampleNearest2d.cu:452 upsample_nearest2d_out_cuda_template<nearest_neighbor_compute_source_index>(...)",
            "UpSampleNearest2d.cu:314 upsample_nearest2d_out_frame<...><<<grid, block, 0, stream>>>(...) (not channels-last)",
        ),
        "NCHW contiguous input; the kernel stands behind C10_LAUNCH_BOUNDS_1(1024)",
    ),
    Chain(
        "losses",
        "aten::nll_loss2d_forward",
        "nll_loss2d_forward_kernel",
        (
            ("aten::nll_loss2d_forward", Y, 11581),
            ("at::native::nll_loss2d_forward_cuda", "aten/src/ATen/native/cuda/NLLLoss2d.cu", 480),
            ("at::native::nll_loss2d_forward_out_cuda_template", "aten/src/ATen/native/cuda/NLLLoss2d.cu", 231),
            ("at::native::nll_loss2d_forward_kernel", "aten/src/ATen/native/cuda/NLLLoss2d.cu", 82),
        ),
        (
            "yaml:11585 CUDA: nll_loss2d_forward_cuda",
            "NLLLoss2d.cu:488 nll_loss2d_forward_out_cuda_template(...)",
            "NLLLoss2d.cu:327 nll_loss2d_forward_kernel<...><<<...>>>(...) with a reduction",
        ),
        "reduction='mean' (Reduction::None launches nll_loss2d_forward_no_reduce_kernel at 272)",
    ),
]


# Chains through PyTorch's own bindings and the other doors out of Python (issue 24), read hop by
# hop from the source like those above. How their hops are named:
# - a Python definition by its module's qualified name (`torch.serialization.save`); a query may
#   use the public name a package re-exports (`torch.save`, `torch.cuda.Stream`); a class queried
#   is its class line, then the method a call of it runs (`Parameter(data)`: `__new__`);
# - a pybind11 `.def` (or `m.def`) by the Python name it binds, at the line of its `.def(`
#   (`torch._C.PyTorchFileWriter.write_record`), `.def(py::init<...>())` as `__init__`; a lambda
#   it binds is a hop of its own, `ns::<lambda at line N>` at the lambda's line, ns the
#   namespaces (and class bodies) around it as written; a callable handed to a helper that calls
#   it (ProcessGroupNCCL::collective's `fn(...)`) likewise, after the helper; a lambda that a
#   dispatch macro (AT_DISPATCH_*, BOOL_SWITCH) invokes in place is its function's own code;
# - a PyMethodDef entry (a module's or a type's tp_methods) by the Python name of the module or
#   type object it is added to, at the entry's line, then the C function it names; a type
#   object's tp_new slot as `__new__` at the slot's line;
# - an operator a TORCH_LIBRARY block defines (`c10d::allreduce_`) at its `m.def(` line, and the
#   kernel a TORCH_LIBRARY_IMPL registers for the tensor's key after it, as for the yaml's;
# - a virtual call by the override the object in hand runs (ProcessGroupNCCL's, the native
#   caching allocator's, PythonEngine's), not the base's declaration;
# - a C++ definition at the line its declaration begins, after any template header and
#   C10_LAUNCH_BOUNDS (`std::tuple<...>` on the line above `_flash_attention_forward(`: that
#   line, as cunn_SoftMaxForward is SoftMax.cu:607, the `__global__ void` above its name);
# - a function a macro defines (`IMPL_ALLREDUCE(CUDA)`, `TORCH_IMPL_FUNC(topk_out_cuda)`,
#   `DEFINE_FLASH_FORWARD_KERNEL(flash_fwd_kernel, ...)`) at the invocation's line;
# - a call into code the tree vendors under third_party (miniz) or a vendor library (NCCL, the
#   CUDA runtime) by its name, path None: third_party is not indexed by default.
SER = "torch/serialization.py"
JIT_INIT = "torch/csrc/jit/python/init.cpp"
INLINE = "caffe2/serialize/inline_container.cc"
C10D_PY = "torch/distributed/distributed_c10d.py"
C10D_INIT = "torch/csrc/distributed/c10d/init.cpp"
PROCESS_GROUP = "torch/csrc/distributed/c10d/ProcessGroup.hpp"
C10D_OPS = "torch/csrc/distributed/c10d/Ops.cpp"
PG_NCCL = "torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp"
AUTOGRAD = "torch/autograd/__init__.py"
GRAPH = "torch/autograd/graph.py"
PY_ENGINE = "torch/csrc/autograd/python_engine.cpp"
ENGINE = "torch/csrc/autograd/engine.cpp"
CUDA_MODULE = "torch/csrc/cuda/Module.cpp"
CUDA_MEMORY = "torch/cuda/memory.py"
STREAMS = "torch/cuda/streams.py"
ALLOCATOR_H = "c10/cuda/CUDACachingAllocator.h"
ALLOCATOR = "c10/cuda/CUDACachingAllocator.cpp"
NATIVE_ALLOCATOR = "c10::cuda::CUDACachingAllocator::Native"
PY_VARIABLE = "torch/csrc/autograd/python_variable.cpp"
TORCH_FUNCTIONS = "torch/csrc/autograd/python_torch_functions_manual.cpp"
TENSOR_NEW = "torch/csrc/utils/tensor_new.cpp"
SCRIPT = "torch/jit/_script.py"
SCRIPT_INIT = "torch/csrc/jit/python/script_init.cpp"
IR_EMITTER = "torch/csrc/jit/frontend/ir_emitter.cpp"
TOPK = "aten/src/ATen/native/cuda/TensorTopK.cu"
FLASH = "aten/src/ATen/native/transformers/cuda/flash_attn"
FUNCTIONAL = "torch/nn/functional.py"

# ProcessGroupNCCL::collective's two overloads and the lambda the 8-argument one calls: the
# common tail of the allreduce-based chains (allreduce_impl's lambda at 3212)
_NCCL_ALLREDUCE_TAIL = (
    ("c10d::ProcessGroupNCCL::allreduce_impl", PG_NCCL, 3206),
    ("c10d::ProcessGroupNCCL::collective", PG_NCCL, 3095),
    ("c10d::ProcessGroupNCCL::collective", PG_NCCL, 2513),
    ("c10d::ProcessGroupNCCL::<lambda at line 3212>", PG_NCCL, 3212),
    ("ncclAllReduce", None, None),
)
_NCCL_ALLREDUCE_TAIL_EVIDENCE = (
    'ProcessGroupNCCL.cpp:3209 collective(tensor, tensor, [&](...) {...}, OpType::ALLREDUCE, "nccl:all_reduce"):'
    " the 5-argument template (ProcessGroupNCCL.hpp:721)",
    "ProcessGroupNCCL.cpp:3102 collective(input, output, fn, [](...) {}, [](...) {}, opType, ...): the 8-argument one",
    "ProcessGroupNCCL.cpp:2616 fn(input, output, comm, ncclStream) inside C10D_NCCL_CHECK_TIMEOUT (NCCL >= 2.14;"
    " C10D_NCCL_CHECK at 2612 before)",
    "ProcessGroupNCCL.cpp:3219 ncclAllReduce(input.data_ptr(), output.data_ptr(), input.numel(), ...)",
)

# torch.jit.script of a plain function, up to the compilation unit
_JIT_FUNCTION_HEAD = (
    ("torch.jit._script.script", SCRIPT, 1217),
    ("torch.jit._script._script_impl", SCRIPT, 1086),
    ("torch._C._jit_script_compile", SCRIPT_INIT, 1619),
    ("torch::jit::<lambda at line 1621>", SCRIPT_INIT, 1621),
    ("torch::jit::script_compile_function", SCRIPT_INIT, 406),
    ("torch::jit::CompilationUnit::define", IR_EMITTER, 5446),
)
_JIT_FUNCTION_HEAD_EVIDENCE = (
    "_script.py:1432 _script_impl(obj=obj, optimize=optimize, ...)",
    "_script.py:1204 torch._C._jit_script_compile(qualified_name, ast, _rcb, get_default_args(obj)) for a function",
    'script_init.cpp:1621 the lambda m.def("_jit_script_compile", ...) binds (initJitScriptBindings, called with'
    " torch._C by init.cpp:2260)",
    "script_init.cpp:1628 script_compile_function(name, def, defaults, rcb)",
    "script_init.cpp:412 cu->define(QualifiedName(name.prefix()), {}, {}, {def}, {pythonResolver(rcb)}, nullptr,"
    " true): the overload of many definitions",
)

BINDING_CHAINS: list[Chain] = [
    Chain(
        "serialization",
        "torch.save",
        "mz_zip_writer_add_mem_ex_v2",
        (
            ("torch.serialization.save", SER, 598),
            ("torch.serialization._save", SER, 803),
            ("torch._C.PyTorchFileWriter.write_record", JIT_INIT, 1427),
            ("torch::jit::<lambda at line 1429>", JIT_INIT, 1429),
            ("caffe2::serialize::PyTorchStreamWriter::writeRecord", INLINE, 679),
            ("mz_zip_writer_add_mem_ex_v2", None, None),
        ),
        (
            "serialization.py:652 _save(obj, opened_zipfile, ...) (_use_new_zipfile_serialization defaults to True)",
            "serialization.py:866 zip_file.write_record('data.pkl', data_value, len(data_value)): zip_file is the"
            " torch._C.PyTorchFileWriter that `with _open_zipfile_writer(f)` (651) entered (_opener.__enter__, 440);"
            " bytes take the first overload, whose const char* pybind11's string caster loads from bytes",
            'init.cpp:1429 the lambda .def("write_record", ...) binds',
            "init.cpp:1435 self.writeRecord(name, data, size)",
            "inline_container.cc:698 mz_zip_writer_add_mem_ex_v2(...) (miniz, vendored under third_party/miniz-2.1.0)",
        ),
        "the pickle record (and 'byteorder', a str, through the same overload); a tensor's storage takes the"
        " c10::Storage overload at 1451, the alternative",
        (
            (
                ("torch.serialization.save", SER, 598),
                ("torch.serialization._save", SER, 803),
                ("torch._C.PyTorchFileWriter.write_record", JIT_INIT, 1451),
                ("torch::jit::<lambda at line 1453>", JIT_INIT, 1453),
                ("caffe2::serialize::PyTorchStreamWriter::writeRecord", INLINE, 679),
                ("mz_zip_writer_add_mem_ex_v2", None, None),
            ),
        ),
    ),
    Chain(
        "serialization",
        "torch.save",
        "mz_zip_writer_init_v2",
        (
            ("torch.serialization.save", SER, 598),
            ("torch.serialization._open_zipfile_writer", SER, 519),
            ("torch.serialization._open_zipfile_writer_file.__init__", SER, 484),
            ("torch._C.PyTorchFileWriter.__init__", JIT_INIT, 1389),
            ("caffe2::serialize::PyTorchStreamWriter::PyTorchStreamWriter", INLINE, 624),
            ("caffe2::serialize::PyTorchStreamWriter::setup", INLINE, 636),
            ("mz_zip_writer_init_v2", None, None),
        ),
        (
            "serialization.py:651 with _open_zipfile_writer(f) as opened_zipfile",
            "serialization.py:525 container(name_or_buffer): container = _open_zipfile_writer_file (522) for a path",
            "serialization.py:496 torch._C.PyTorchFileWriter(self.name) (an ASCII file name)",
            "init.cpp:1389 .def(py::init<std::string>()): PyTorchStreamWriter(const std::string&)",
            "inline_container.cc:626 setup(file_name)",
            "inline_container.cc:671 mz_zip_writer_init_v2(ar_.get(), 0, MZ_ZIP_FLAG_WRITE_ZIP64)",
        ),
        "a path with an ASCII name (a non-ASCII one or a buffer takes the py::init lambda at 1390)",
    ),
    Chain(
        "serialization",
        "torch.load",
        "mz_zip_reader_extract_to_mem",
        (
            ("torch.serialization.load", SER, 889),
            ("torch.serialization._load", SER, 1414),
            ("torch._C.PyTorchFileReader.get_record", JIT_INIT, 1567),
            ("torch::jit::<lambda at line 1569>", JIT_INIT, 1569),
            ("caffe2::serialize::PyTorchStreamReader::getRecord", INLINE, 344),
            ("mz_zip_reader_extract_to_mem", None, None),
        ),
        (
            "serialization.py:1097 return _load(opened_zipfile, map_location, pickle_module, ...) (weights_only unset:"
            " False in 2.4)",
            "serialization.py:1423 zip_file.get_record(byteordername) (a file torch.save wrote has it); :1518 for data.pkl",
            'init.cpp:1569 the lambda .def("get_record", ...) binds',
            "init.cpp:1570 self.getRecord(key): the one-argument overload",
            "inline_container.cc:355 mz_zip_reader_extract_to_mem(ar_.get(), key, retval.get(), stat.m_uncomp_size, 0)",
        ),
        "a zip-format file (not TorchScript), weights_only left unset",
    ),
    Chain(
        "serialization",
        "torch.load",
        "mz_zip_reader_init",
        (
            ("torch.serialization.load", SER, 889),
            ("torch.serialization._open_zipfile_reader.__init__", SER, 479),
            ("torch._C.PyTorchFileReader.__init__", JIT_INIT, 1563),
            ("torch::jit::<lambda at line 1563>", JIT_INIT, 1563),
            ("caffe2::serialize::PyTorchStreamReader::PyTorchStreamReader", INLINE, 130),
            ("caffe2::serialize::PyTorchStreamReader::init", INLINE, 136),
            ("mz_zip_reader_init", None, None),
        ),
        (
            "serialization.py:1072 with _open_zipfile_reader(opened_file) as opened_zipfile",
            "serialization.py:480 torch._C.PyTorchFileReader(name_or_buffer): opened_file is the Python file"
            " _open_file_like opened (1065), which py::init<std::string> (1562) does not take",
            "init.cpp:1563 py::init([](const py::object& buffer) {...}): the lambda makes the reader",
            "init.cpp:1565 std::make_shared<PyTorchStreamReader>(std::move(adapter)): the shared_ptr<ReadAdapterInterface>"
            " constructor",
            "inline_container.cc:133 init()",
            "inline_container.cc:158 mz_zip_reader_init(ar_.get(), size, 0)",
        ),
        "loading from a path or a file object (both reach PyTorchFileReader as a Python file)",
    ),
    Chain(
        "distributed collectives",
        "torch.distributed.all_reduce",
        "ncclAllReduce",
        (
            ("torch.distributed.distributed_c10d.all_reduce", C10D_PY, 2216),
            ("torch._C._distributed_c10d.ProcessGroup.allreduce", C10D_INIT, 1736),
            ("c10d::ProcessGroup::allreduce", PROCESS_GROUP, 154),
            ("c10d::allreduce_", C10D_OPS, 21),
            ("c10d::ops::allreduce_CUDA", C10D_OPS, 183),
            ("c10d::ProcessGroupNCCL::allreduce", PG_NCCL, 3232),
            *_NCCL_ALLREDUCE_TAIL,
        ),
        (
            "distributed_c10d.py:2288 group.allreduce([tensor], opts): a list and AllreduceOptions, the first overload",
            "init.cpp:1738 &::c10d::ProcessGroup::allreduce",
            'ProcessGroup.hpp:168 op.call(...), op the handle of findSchemaOrThrow("c10d::allreduce_", "") (159)',
            "Ops.cpp:503 REGISTER_C10D_OP(allreduce_): REGISTER_C10D_OP1(allreduce_, CUDA) (493) writes"
            ' m.impl("allreduce_", allreduce_CUDA) (487) for a CUDA tensor',
            "Ops.cpp:183 IMPL_ALLREDUCE(CUDA): the macro's process_group->getBackend(CUDA)->allreduce(...) (174), the NCCL"
            " backend's override",
            "ProcessGroupNCCL.cpp:3277 allreduce_impl(tensor, opts) (no intra-node comm, not float8)",
            *_NCCL_ALLREDUCE_TAIL_EVIDENCE,
        ),
        "a dense CUDA tensor on a NCCL process group (the default group; ProcessGroup dispatches through c10d::allreduce_)",
    ),
    Chain(
        "distributed collectives",
        "torch.distributed.broadcast",
        "ncclBcast",
        (
            ("torch.distributed.distributed_c10d.broadcast", C10D_PY, 2173),
            ("torch._C._distributed_c10d.ProcessGroup.broadcast", C10D_INIT, 1717),
            ("c10d::ProcessGroup::broadcast", PROCESS_GROUP, 128),
            ("c10d::broadcast_", C10D_OPS, 19),
            ("c10d::ops::broadcast_CUDA", C10D_OPS, 159),
            ("c10d::ProcessGroupNCCL::broadcast", PG_NCCL, 3331),
            ("c10d::ProcessGroupNCCL::collective", PG_NCCL, 3095),
            ("c10d::ProcessGroupNCCL::collective", PG_NCCL, 2513),
            ("c10d::ProcessGroupNCCL::<lambda at line 3365>", PG_NCCL, 3365),
            ("ncclBcast", None, None),
        ),
        (
            "distributed_c10d.py:2205 default_pg.broadcast([tensor], opts) (group None): the first overload",
            "init.cpp:1719 &::c10d::ProcessGroup::broadcast",
            'ProcessGroup.hpp:145 op.call(...), op the handle of findSchemaOrThrow("c10d::broadcast_", "") (133)',
            'Ops.cpp:502 REGISTER_C10D_OP(broadcast_): m.impl("broadcast_", broadcast_CUDA) for a CUDA tensor',
            "Ops.cpp:159 IMPL_BROADCAST(CUDA): the macro's process_group->getBackend(CUDA)->broadcast(...) (147)",
            'ProcessGroupNCCL.cpp:3362 collective(tensor, tensor, [&](...) {...}, OpType::BROADCAST, "nccl:broadcast",'
            " avoidRecordStreams)",
            "ProcessGroupNCCL.cpp:3102 collective(input, output, fn, [](...) {}, [](...) {}, opType, ...)",
            "ProcessGroupNCCL.cpp:2616 fn(input, output, comm, ncclStream)",
            "ProcessGroupNCCL.cpp:3370 ncclBcast(input.data_ptr(), input.numel(), ...)",
        ),
        "a CUDA tensor on the default NCCL group",
    ),
    Chain(
        "distributed collectives",
        "torch.distributed.all_gather",
        "ncclAllGather",
        (
            ("torch.distributed.distributed_c10d.all_gather", C10D_PY, 3040),
            ("torch._C._distributed_c10d.ProcessGroup.allgather", C10D_INIT, 1798),
            ("c10d::ProcessGroup::allgather", PROCESS_GROUP, 215),
            ("c10d::allgather_", C10D_OPS, 25),
            ("c10d::ops::allgather_CUDA", C10D_OPS, 225),
            ("c10d::ProcessGroupNCCL::allgather", PG_NCCL, 3521),
            ("c10d::ProcessGroupNCCL::collective", PG_NCCL, 2513),
            ("c10d::ProcessGroupNCCL::<lambda at line 3558>", PG_NCCL, 3558),
            ("ncclAllGather", None, None),
        ),
        (
            "distributed_c10d.py:3106 default_pg.allgather([tensor_list], [tensor]) (group None): lists, the first overload",
            "init.cpp:1800 &::c10d::ProcessGroup::allgather",
            'ProcessGroup.hpp:229 op.call(...), op the handle of findSchemaOrThrow("c10d::allgather_", "") (220)',
            'Ops.cpp:505 REGISTER_C10D_OP(allgather_): m.impl("allgather_", allgather_CUDA) for CUDA tensors',
            "Ops.cpp:225 IMPL_ALLGATHER(CUDA): the macro's process_group->getBackend(CUDA)->allgather(...) (214)",
            "ProcessGroupNCCL.cpp:3555 collective(inputTensor, outputFlattened, [&](...) {...}, [](...) {...}, [&](...) {...},"
            ' OpType::ALLGATHER, "nccl:all_gather") (outputs of one size): the 8-argument overload itself',
            "ProcessGroupNCCL.cpp:2616 fn(input, output, comm, ncclStream)",
            "ProcessGroupNCCL.cpp:3566 ncclAllGather(input.data_ptr(), output.data_ptr(), input.numel(), ...)",
        ),
        "CUDA tensors of one size on the default NCCL group (otherwise _broadcast_oop per rank)",
    ),
    Chain(
        "distributed collectives",
        "torch.distributed.barrier",
        "ncclAllReduce",
        (
            ("torch.distributed.distributed_c10d.barrier", C10D_PY, 3899),
            ("torch._C._distributed_c10d.ProcessGroup.barrier", C10D_INIT, 1957),
            ("c10d::ProcessGroup::barrier", PROCESS_GROUP, 576),
            ("c10d::barrier", C10D_OPS, 49),
            ("c10d::ops::barrierCUDA", C10D_OPS, 442),
            ("c10d::ProcessGroupNCCL::barrier", PG_NCCL, 3866),
            *_NCCL_ALLREDUCE_TAIL,
        ),
        (
            "distributed_c10d.py:3936 default_pg.barrier(opts=opts): group's default, GroupMember.WORLD, was evaluated when"
            " the module was imported, before any group existed, so it is None",
            "init.cpp:1959 &::c10d::ProcessGroup::barrier",
            'ProcessGroup.hpp:605 op.call(tensor, ...), op the handle of findSchemaOrThrow("c10d::barrier", "") (598),'
            " tensor on opts.device (CUDA for NCCL)",
            'Ops.cpp:516 REGISTER_C10D_OP(barrier): m.impl("barrier", barrierCUDA) (barrier##DEV, no underscore)',
            "Ops.cpp:442 IMPL_BARRIER(CUDA): the macro's process_group->getBackend(CUDA)->barrier(...) (436)",
            "ProcessGroupNCCL.cpp:3917 allreduce_impl(barrierTensor): a barrier is an allreduce of one byte",
            *_NCCL_ALLREDUCE_TAIL_EVIDENCE,
        ),
        "the default NCCL group",
    ),
    Chain(
        "autograd engine",
        "torch.Tensor.backward",
        "Engine::execute",
        (
            ("torch._tensor.Tensor.backward", "torch/_tensor.py", 465),
            ("torch.autograd.backward", AUTOGRAD, 183),
            ("torch.autograd.graph._engine_run_backward", GRAPH, 763),
            ("torch._C._ImperativeEngine.run_backward", PY_ENGINE, 440),
            ("THPEngine_run_backward", PY_ENGINE, 170),
            ("torch::autograd::python::PythonEngine::execute", PY_ENGINE, 125),
            ("torch::autograd::Engine::execute", ENGINE, 1190),
        ),
        (
            "_tensor.py:521 torch.autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)",
            "autograd/__init__.py:289 _engine_run_backward(tensors, grad_tensors_, ...)",
            "graph.py:768 Variable._execution_engine.run_backward(...): _execution_engine = ImperativeEngine() (variable.py:15),"
            " torch._C._ImperativeEngine (variable.py:3), the type python_engine.cpp:505 adds to torch._C",
            "python_engine.cpp:441 castPyCFunctionWithKeywords(THPEngine_run_backward)",
            "python_engine.cpp:363 engine.execute(...): get_python_engine() (362) is the static PythonEngine, execute virtual",
            "python_engine.cpp:139 Engine::execute(roots, inputs, keep_graph, create_graph, accumulate_grad, outputs)",
        ),
        "a plain Tensor (no __torch_function__ override)",
    ),
    Chain(
        "autograd engine",
        "torch.autograd.backward",
        "Node::operator()",
        (
            ("torch.autograd.backward", AUTOGRAD, 183),
            ("torch.autograd.graph._engine_run_backward", GRAPH, 763),
            ("torch._C._ImperativeEngine.run_backward", PY_ENGINE, 440),
            ("THPEngine_run_backward", PY_ENGINE, 170),
            ("torch::autograd::python::PythonEngine::execute", PY_ENGINE, 125),
            ("torch::autograd::Engine::execute", ENGINE, 1190),
            ("torch::autograd::python::PythonEngine::execute_with_graph_task", PY_ENGINE, 147),
            ("torch::autograd::Engine::execute_with_graph_task", ENGINE, 1307),
            ("torch::autograd::Engine::thread_main", ENGINE, 523),
            ("torch::autograd::Engine::evaluate_function", ENGINE, 991),
            ("torch::autograd::call_function", ENGINE, 940),
            ("torch::autograd::Node::operator()", "torch/csrc/autograd/function.h", 150),
        ),
        (
            "autograd/__init__.py:289 _engine_run_backward(tensors, grad_tensors_, ...)",
            "graph.py:768 Variable._execution_engine.run_backward(...)",
            "python_engine.cpp:441 castPyCFunctionWithKeywords(THPEngine_run_backward)",
            "python_engine.cpp:363 engine.execute(...) on the PythonEngine",
            "python_engine.cpp:139 Engine::execute(...)",
            "engine.cpp:1283 execute_with_graph_task(graph_task, std::move(graph_root), std::move(input_buffer)) (one root):"
            " virtual, PythonEngine's override",
            "python_engine.cpp:152 Engine::execute_with_graph_task(...)",
            "engine.cpp:1336 thread_main(graph_task): the calling thread drives a CPU graph (not re-entrant)",
            "engine.cpp:579 evaluate_function(local_graph_task, task.fn_.get(), task.inputs_, ...)",
            "engine.cpp:1041 call_function(graph_task, func, inputs)",
            "engine.cpp:975 fn(std::move(inputs)) (no post hooks), Node::operator() calls the node's virtual apply (function.h:178)",
        ),
        "a CPU graph; a CUDA graph's nodes run in the device thread's thread_main (thread_init, engine.cpp:387), the same"
        " thread_main -> evaluate_function -> call_function",
    ),
    Chain(
        "autograd engine",
        "torch.autograd.grad",
        "Engine::execute",
        (
            ("torch.autograd.grad", AUTOGRAD, 300),
            ("torch.autograd.graph._engine_run_backward", GRAPH, 763),
            ("torch._C._ImperativeEngine.run_backward", PY_ENGINE, 440),
            ("THPEngine_run_backward", PY_ENGINE, 170),
            ("torch::autograd::python::PythonEngine::execute", PY_ENGINE, 125),
            ("torch::autograd::Engine::execute", ENGINE, 1190),
        ),
        (
            "autograd/__init__.py:436 _engine_run_backward(t_outputs, grad_outputs_, ..., accumulate_grad=False)"
            " (is_grads_batched False; the batched path calls it at 422 from the nested vjp)",
            "graph.py:768 Variable._execution_engine.run_backward(...)",
            "python_engine.cpp:441 castPyCFunctionWithKeywords(THPEngine_run_backward)",
            "python_engine.cpp:363 engine.execute(...) on the PythonEngine",
            "python_engine.cpp:139 Engine::execute(...)",
        ),
        "is_grads_batched=False",
    ),
    Chain(
        "CUDA runtime",
        "torch.cuda.synchronize",
        "cudaDeviceSynchronize",
        (
            ("torch.cuda.synchronize", "torch/cuda/__init__.py", 885),
            ("torch._C._cuda_synchronize", CUDA_MODULE, 1803),
            ("THCPModule_cudaSynchronize", CUDA_MODULE, 446),
            ("c10::cuda::device_synchronize", "c10/cuda/CUDAFunctions.cpp", 136),
            ("cudaDeviceSynchronize", None, None),
        ),
        (
            "torch/cuda/__init__.py:895 torch._C._cuda_synchronize()",
            'Module.cpp:1803 {"_cuda_synchronize", THCPModule_cudaSynchronize, METH_NOARGS, nullptr} (_THCPModule_methods,'
            " added to torch._C)",
            "Module.cpp:449 c10::cuda::device_synchronize()",
            "CUDAFunctions.cpp:141 C10_CUDA_CHECK(cudaDeviceSynchronize())",
        ),
        "",
    ),
    Chain(
        "CUDA memory statistics",
        "torch.cuda.memory_allocated",
        "DeviceCachingAllocator::getStats",
        (
            ("torch.cuda.memory.memory_allocated", CUDA_MEMORY, 377),
            ("torch.cuda.memory.memory_stats", CUDA_MEMORY, 173),
            ("torch.cuda.memory.memory_stats_as_nested_dict", CUDA_MEMORY, 278),
            ("torch._C._cuda_memoryStats", CUDA_MODULE, 1769),
            ("THCPModule_memoryStats", CUDA_MODULE, 551),
            ("c10::cuda::CUDACachingAllocator::getDeviceStats", ALLOCATOR_H, 388),
            (f"{NATIVE_ALLOCATOR}::NativeCachingAllocator::getDeviceStats", ALLOCATOR, 3246),
            (f"{NATIVE_ALLOCATOR}::DeviceCachingAllocator::getStats", ALLOCATOR, 1437),
        ),
        (
            'memory.py:391 memory_stats(device=device).get("allocated_bytes.all.current", 0)',
            "memory.py:271 memory_stats_as_nested_dict(device=device)",
            "memory.py:283 torch._C._cuda_memoryStats(device) (CUDA initialized)",
            'Module.cpp:1769 {"_cuda_memoryStats", THCPModule_memoryStats, METH_O, nullptr}',
            "Module.cpp:582 c10::cuda::CUDACachingAllocator::getDeviceStats(device_index)",
            "CUDACachingAllocator.h:389 get()->getDeviceStats(device): CUDAAllocator's virtual, the native allocator's"
            " override (the default backend, CUDACachingAllocator.cpp:3401)",
            "CUDACachingAllocator.cpp:3248 device_allocator[device]->getStats()",
        ),
        "the native caching allocator (PYTORCH_CUDA_ALLOC_CONF without backend:cudaMallocAsync)",
    ),
    Chain(
        "CUDA memory statistics",
        "torch.cuda.empty_cache",
        "cudaFree",
        (
            ("torch.cuda.memory.empty_cache", CUDA_MEMORY, 158),
            ("torch._C._cuda_emptyCache", CUDA_MODULE, 1768),
            ("THCPModule_emptyCache", CUDA_MODULE, 544),
            ("c10::cuda::CUDACachingAllocator::emptyCache", ALLOCATOR_H, 372),
            (f"{NATIVE_ALLOCATOR}::NativeCachingAllocator::emptyCache", ALLOCATOR, 3081),
            (f"{NATIVE_ALLOCATOR}::DeviceCachingAllocator::emptyCache", ALLOCATOR, 1412),
            (f"{NATIVE_ALLOCATOR}::DeviceCachingAllocator::release_cached_blocks", ALLOCATOR, 2566),
            (f"{NATIVE_ALLOCATOR}::DeviceCachingAllocator::release_blocks", ALLOCATOR, 2703),
            (f"{NATIVE_ALLOCATOR}::DeviceCachingAllocator::release_block", ALLOCATOR, 2609),
            ("cudaFree", None, None),
        ),
        (
            "memory.py:170 torch._C._cuda_emptyCache() (CUDA initialized)",
            'Module.cpp:1768 {"_cuda_emptyCache", THCPModule_emptyCache, METH_NOARGS, nullptr}',
            "Module.cpp:546 c10::cuda::CUDACachingAllocator::emptyCache()",
            "CUDACachingAllocator.h:373 get()->emptyCache(): the native allocator's override",
            "CUDACachingAllocator.cpp:3083 da->emptyCache() for each device",
            "CUDACachingAllocator.cpp:1415 release_cached_blocks(context)",
            "CUDACachingAllocator.cpp:2572 release_blocks(large_blocks, context)",
            "CUDACachingAllocator.cpp:2718 release_block(block, context) (a whole segment, not expandable)",
            "CUDACachingAllocator.cpp:2622 C10_CUDA_CHECK(cudaFree((void*)block->ptr))",
        ),
        "the native caching allocator, without expandable segments",
    ),
    Chain(
        "CUDA events",
        "torch.cuda.Event.record",
        "cudaEventRecord",
        (
            ("torch.cuda.streams.Event.record", STREAMS, 177),
            ("torch._C._CudaEventBase.record", "torch/csrc/cuda/Event.cpp", 192),
            ("THCPEvent_record", "torch/csrc/cuda/Event.cpp", 125),
            ("at::cuda::CUDAEvent::record", "aten/src/ATen/cuda/CUDAEvent.h", 113),
            ("cudaEventRecord", None, None),
        ),
        (
            "streams.py:185 super().record(stream): Event's base torch._C._CudaEventBase (streams.py:141)",
            'Event.cpp:192 {(char*)"record", THCPEvent_record, METH_O, nullptr} in THCPEvent_methods, the tp_methods of'
            " THCPEventType, added to torch._C as _CudaEventBase (Event.cpp:246)",
            "Event.cpp:129 self->cuda_event.record(stream->cuda_stream): the CUDAStream overload",
            "CUDAEvent.h:121 AT_CUDA_CHECK(cudaEventRecord(event_, stream))",
        ),
        "",
    ),
    Chain(
        "CUDA events",
        "torch.cuda.Event.synchronize",
        "cudaEventSynchronize",
        (
            ("torch.cuda.streams.Event.synchronize", STREAMS, 216),
            ("torch._C._CudaEventBase.synchronize", "torch/csrc/cuda/Event.cpp", 196),
            ("THCPEvent_synchronize", "torch/csrc/cuda/Event.cpp", 160),
            ("at::cuda::CUDAEvent::synchronize", "aten/src/ATen/cuda/CUDAEvent.h", 163),
            ("cudaEventSynchronize", None, None),
        ),
        (
            "streams.py:225 super().synchronize()",
            'Event.cpp:196 {(char*)"synchronize", THCPEvent_synchronize, METH_NOARGS, nullptr}',
            "Event.cpp:164 self->cuda_event.synchronize()",
            "CUDAEvent.h:169 AT_CUDA_CHECK(cudaEventSynchronize(event_)) (a recorded event)",
        ),
        "an event already recorded",
    ),
    Chain(
        "CUDA streams",
        "torch.cuda.Stream.synchronize",
        "cudaStreamSynchronize",
        (
            ("torch.cuda.streams.Stream.synchronize", STREAMS, 94),
            ("torch._C._CudaStreamBase.synchronize", "torch/csrc/cuda/Stream.cpp", 150),
            ("THCPStream_synchronize", "torch/csrc/cuda/Stream.cpp", 116),
            ("c10::cuda::CUDAStream::synchronize", "c10/cuda/CUDAStream.h", 131),
            ("c10::cuda::stream_synchronize", "c10/cuda/CUDAFunctions.h", 100),
            ("cudaStreamSynchronize", None, None),
        ),
        (
            "streams.py:100 super().synchronize(): Stream's base torch._C._CudaStreamBase (streams.py:15)",
            'Stream.cpp:150 {"synchronize", THCPStream_synchronize, METH_NOARGS, nullptr}',
            "Stream.cpp:120 self->cuda_stream.synchronize(): an at::cuda::CUDAStream (Stream.h:10), c10::cuda's through"
            " at::cuda's `using namespace c10::cuda` (c10/macros/Macros.h:171)",
            "CUDAStream.h:133 c10::cuda::stream_synchronize(stream())",
            "CUDAFunctions.h:110 C10_CUDA_CHECK(cudaStreamSynchronize(stream))",
        ),
        "",
    ),
    Chain(
        "CUDA streams",
        "torch.cuda.Stream",
        "getStreamFromPool",
        (
            ("torch.cuda.streams.Stream", STREAMS, 15),
            ("torch.cuda.streams.Stream.__new__", STREAMS, 32),
            ("torch._C._CudaStreamBase.__new__", "torch/csrc/cuda/Stream.cpp", 195),
            ("THCPStream_pynew", "torch/csrc/cuda/Stream.cpp", 16),
            ("c10::cuda::getStreamFromPool", "c10/cuda/CUDAStream.cpp", 319),
        ),
        (
            "streams.py:32 Stream(...) runs __new__",
            "streams.py:35 super().__new__(cls, priority=priority, **kwargs) (device None)",
            "Stream.cpp:195 THCPStream_pynew, /* tp_new */ in THCPStreamType",
            "Stream.cpp:70 at::cuda::getStreamFromPool(priority): no stream_id, device_index or stream_ptr given; the int"
            " overload (CUDAStream.cpp:344 takes a bool)",
        ),
        "torch.cuda.Stream() with no device (a device enters torch.cuda.device first, 38)",
    ),
    Chain(
        "tensor creation",
        "torch.nn.Parameter",
        "init_pyobj",
        (
            ("torch.nn.parameter.Parameter", "torch/nn/parameter.py", 13),
            ("torch.nn.parameter.Parameter.__new__", "torch/nn/parameter.py", 34),
            ("torch._C.TensorBase._make_subclass", PY_VARIABLE, 1755),
            ("THPVariable_make_subclass", PY_VARIABLE, 687),
            ("THPVariable_NewWithVar", PY_VARIABLE, 2007),
            ("c10::impl::PyObjectSlot::init_pyobj", "c10/core/impl/PyObjectSlot.h", 27),
        ),
        (
            "parameter.py:34 Parameter(data) runs __new__",
            "parameter.py:40 torch.Tensor._make_subclass(cls, data, requires_grad): torch.Tensor (_tensor.py:82) inherits"
            " it from torch._C.TensorBase",
            "python_variable.cpp:1756 castPyCFunctionWithKeywords(THPVariable_make_subclass) in extra_methods, which"
            " THPVariable_initModule adds to TensorBase's tp_methods (2377-2378, 2382)",
            "python_variable.cpp:735 THPVariable_NewWithVar((PyTypeObject*)cls, data, DEFINITELY_UNINITIALIZED)",
            "python_variable.cpp:2103 var.unsafeGetTensorImpl()->pyobj_slot()->init_pyobj(getPyInterpreter(), obj, status)",
        ),
        "data a plain torch.Tensor (a subclass takes data.detach() at 43)",
    ),
    Chain(
        "tensor creation",
        "torch.tensor",
        "recursive_store",
        (
            ("torch._C._VariableFunctions.tensor", TORCH_FUNCTIONS, 962),
            ("torch::autograd::THPVariable_tensor", TORCH_FUNCTIONS, 245),
            ("torch::utils::tensor_ctor", TENSOR_NEW, 1435),
            ("torch::utils::internal_new_from_data", TENSOR_NEW, 290),
            ("torch::utils::recursive_store", TENSOR_NEW, 204),
        ),
        (
            "python_torch_functions_manual.cpp:963 castPyCFunctionWithKeywords(THPVariable_tensor) in"
            " torch_functions_manual, gathered into _VariableFunctions' tp_methods (1127-1128)",
            "python_torch_functions_manual.cpp:262 torch::utils::tensor_ctor(...)",
            "tensor_new.cpp:1454 internal_new_from_data(...)",
            "tensor_new.cpp:437 recursive_store(...) for a non-empty Python sequence (not a Tensor, array or storage)",
        ),
        "torch.tensor([...]) of Python numbers; torch.tensor is torch._C._VariableFunctions.tensor (torch/__init__.py:1717)",
    ),
    Chain(
        "tensor creation",
        "torch.tensor",
        "_empty_generic",
        (
            ("torch._C._VariableFunctions.tensor", TORCH_FUNCTIONS, 962),
            ("torch::autograd::THPVariable_tensor", TORCH_FUNCTIONS, 245),
            ("torch::utils::tensor_ctor", TENSOR_NEW, 1435),
            ("torch::utils::internal_new_from_data", TENSOR_NEW, 290),
            ("aten::empty.memory_format", Y, 2372),
            ("at::native::empty_cpu", "aten/src/ATen/native/TensorFactories.cpp", 255),
            ("at::detail::empty_cpu", "aten/src/ATen/EmptyTensor.cpp", 261),
            ("at::detail::empty_cpu", "aten/src/ATen/EmptyTensor.cpp", 254),
            ("at::detail::empty_generic", "aten/src/ATen/EmptyTensor.cpp", 195),
            ("at::detail::_empty_generic", "aten/src/ATen/EmptyTensor.cpp", 161),
        ),
        (
            "python_torch_functions_manual.cpp:963 castPyCFunctionWithKeywords(THPVariable_tensor)",
            "python_torch_functions_manual.cpp:262 torch::utils::tensor_ctor(...)",
            "tensor_new.cpp:1454 internal_new_from_data(...)",
            "tensor_new.cpp:435 at::empty(sizes, opts.pinned_memory(pin_memory)): torchgen's at::empty(IntArrayRef,"
            " TensorOptions, ...) of empty.memory_format, CPU options (at::initialTensorOptions())",
            "yaml:2374 CPU: empty_cpu",
            "TensorFactories.cpp:257 at::detail::empty_cpu(size, dtype_opt, layout_opt, device_opt, pin_memory_opt,"
            " memory_format_opt)",
            "EmptyTensor.cpp:273 empty_cpu(size, dtype, pin_memory, memory_format_opt)",
            "EmptyTensor.cpp:258 empty_generic(size, allocator, cpu_ks, dtype, memory_format_opt)",
            "EmptyTensor.cpp:201 _empty_generic(size, allocator, ks, scalar_type, memory_format_opt)",
        ),
        "a list of Python numbers: the tensor is made on the CPU, then moved by .to(device) (tensor_new.cpp:463)",
        backend="cpu",
    ),
    Chain(
        "TorchScript compiler",
        "torch.jit.script",
        "CompilationUnit::define",
        _JIT_FUNCTION_HEAD,
        _JIT_FUNCTION_HEAD_EVIDENCE,
        "a plain Python function, not compiled before; a class takes the alternative (_script.py:1183"
        " _compile_and_register_class, _recursive.py:62 torch._C._jit_script_class_compile, script_init.cpp:1729 the"
        ' lambda m.def("_jit_script_class_compile", ...) (1727) binds, :1778 cu->define(classname, props, propRcbs,'
        " methodDefs, methodRcbs, &self)), the same entry point",
        (
            (
                ("torch.jit._script.script", SCRIPT, 1217),
                ("torch.jit._script._script_impl", SCRIPT, 1086),
                ("torch.jit._recursive._compile_and_register_class", "torch/jit/_recursive.py", 56),
                ("torch._C._jit_script_class_compile", SCRIPT_INIT, 1727),
                ("torch::jit::<lambda at line 1729>", SCRIPT_INIT, 1729),
                ("torch::jit::CompilationUnit::define", IR_EMITTER, 5446),
            ),
        ),
    ),
    Chain(
        "TorchScript compiler",
        "torch.jit.script",
        "to_ir::to_ir",
        (
            *_JIT_FUNCTION_HEAD,
            ("torch::jit::GraphFunction::ensure_defined", "torch/csrc/jit/api/function_impl.cpp", 78),
            ("torch::jit::CompilationUnit::<lambda at line 5406>", IR_EMITTER, 5406),
            ("torch::jit::to_ir::to_ir", IR_EMITTER, 659),
        ),
        (
            *_JIT_FUNCTION_HEAD_EVIDENCE,
            "ir_emitter.cpp:5511 function->ensure_defined(): Function's virtual (ATen/core/function.h:77), on the"
            " GraphFunction that the one-definition define (5388, called at 5489) made at 5432",
            "function_impl.cpp:82 creator(*this): function_creator_, the creator lambda (ir_emitter.cpp:5406) that define"
            " handed to GraphFunction's constructor (5432; function_impl.h:20 stores it)",
            "ir_emitter.cpp:5417 to_ir(def, _resolver, self, method): the compiler proper, constructing the graph",
        ),
        "a plain Python function: the definition is compiled to a graph when CompilationUnit::define ensures it",
    ),
    Chain(
        "macro-launched kernels",
        "aten::topk",
        "sbtopk::gatherTopK",
        (
            ("aten::topk", Y, 10061),
            ("aten::topk.values", Y, 10054),
            ("at::native::topk_out_cuda", "aten/src/ATen/native/cuda/TensorTopK.cpp", 47),
            ("at::native::launch_gather_topk_kernel", TOPK, 793),
            ("at::native::sbtopk::launch", TOPK, 181),
            ("at::native::sbtopk::gatherTopK", TOPK, 40),
        ),
        (
            "yaml:10063 structured_delegate: topk.values",
            "yaml:10058 CUDA: topk_out_cuda",
            "TensorTopK.cpp:67 launch_gather_topk_kernel(self, k, dim, largest, values, indices) (should_use_sort false:"
            " disable_sort_for_topk() with CUB's scan by key)",
            "TensorTopK.cu:897 RUN_T(uint32_t): RUN_T (837) writes RUN_DIM(INDEX_T) (886) inside its AT_DISPATCH lambda,"
            " RUN_DIM (826) writes RUN_MB(INDEX_T, 2) (830), RUN_MB (819) RUN_K(INDEX_T, DIM, sbtopk::launch) (823) when"
            " should_use_multiblock is false, and RUN_K (804) sbtopk::launch<scalar_t, INDEX_T, DIM>(...) (805)",
            "TensorTopK.cu:200 gatherTopK<T, IndexType, Dim, false><<<grid, block, 0, stream>>>(...)",
        ),
        "a (16, 1000) float32 input, k small, along the last dim: 16 slices of 1000 take the single-block path",
    ),
    Chain(
        "macro-launched kernels",
        "aten::topk",
        "radixFindKthValues",
        (
            ("aten::topk", Y, 10061),
            ("aten::topk.values", Y, 10054),
            ("at::native::topk_out_cuda", "aten/src/ATen/native/cuda/TensorTopK.cpp", 47),
            ("at::native::launch_gather_topk_kernel", TOPK, 793),
            ("at::native::mbtopk::launch", TOPK, 642),
            ("at::native::mbtopk::radixFindKthValues", TOPK, 249),
        ),
        (
            "yaml:10063 structured_delegate: topk.values",
            "yaml:10058 CUDA: topk_out_cuda",
            "TensorTopK.cpp:67 launch_gather_topk_kernel(...)",
            "TensorTopK.cu:897 RUN_T(uint32_t) -> RUN_DIM (886) -> RUN_MB(INDEX_T, 1) (828) -> RUN_K(INDEX_T, DIM,"
            " mbtopk::launch) (821) when should_use_multiblock(numInputSlices, sliceSize) -> mbtopk::launch<...>(...) (805)",
            "TensorTopK.cu:708 radixFindKthValues<T, IndexType, Bitwise, Dim><<<grid, block, 0, stream>>>(...)",
        ),
        "one slice of 1,000,000 float32 values (multi-block with CUB's scan by key)",
    ),
    Chain(
        "macro-launched kernels",
        "aten::_flash_attention_forward",
        "flash_fwd_kernel",
        (
            ("aten::_flash_attention_forward", Y, 14747),
            ("at::native::_flash_attention_forward", "aten/src/ATen/native/transformers/cuda/attention.cu", 841),
            ("pytorch_flash::mha_fwd", f"{FLASH}/flash_api.cpp", 345),
            ("pytorch_flash::run_mha_fwd", f"{FLASH}/flash_api.cpp", 245),
            ("pytorch_flash::run_mha_fwd_", f"{FLASH}/kernels/flash_fwd_hdim64_fp16_sm80.cu", 11),
            ("pytorch_flash::run_mha_fwd_hdim64", f"{FLASH}/flash_fwd_launch_template.h", 185),
            ("pytorch_flash::run_flash_fwd", f"{FLASH}/flash_fwd_launch_template.h", 58),
            ("pytorch_flash::flash_fwd_kernel", f"{FLASH}/flash_fwd_launch_template.h", 35),
        ),
        (
            "yaml:14750 CUDA: _flash_attention_forward",
            "attention.cu:918 pytorch_flash::mha_fwd(...) (no cumulative sequence lengths: dense)",
            "flash_api.cpp:516 run_mha_fwd(params, stream) (seqlen_k > 0)",
            "flash_api.cpp:249 run_mha_fwd_<elem_type, kHeadDim>(params, stream) inside FP16_SWITCH (246, cutlass::half_t)"
            " and HEADDIM_SWITCH (247, 64); num_splits stays 0 with dropout (set_params_splitkv, 310-311)",
            "kernels/flash_fwd_hdim64_fp16_sm80.cu:12 run_mha_fwd_hdim64<cutlass::half_t>(params, stream) in the explicit"
            " specialization template<> run_mha_fwd_<cutlass::half_t, 64> (10-11)",
            "flash_fwd_launch_template.h:197 run_flash_fwd<Flash_fwd_kernel_traits<Headdim, 128, 64, 4, false, false, T>,"
            " Is_dropout, Is_causal>(params, stream) (DROPOUT_SWITCH at 187 true)",
            "flash_fwd_launch_template.h:93 kernel<<<grid, Kernel_traits::kNThreads, smem_size, stream>>>(params), kernel ="
            " &flash_fwd_kernel<...> (81) inside the BOOL_SWITCH/EVENK_SWITCH/LOCAL_SWITCH/ALIBI_SWITCH lambdas; the"
            " kernel is DEFINE_FLASH_FORWARD_KERNEL(flash_fwd_kernel, bool Is_dropout, ...) (macro at 31)",
        ),
        "fp16, head dim 33-64, dropout_p > 0, dense inputs, USE_FLASH_ATTENTION",
    ),
    Chain(
        "Python doors",
        "torch.nn.functional.max_pool2d",
        "max_pool_forward_nchw",
        (
            ("torch.nn.functional.max_pool2d", "torch/_jit_internal.py", 493),
            ("torch.nn.functional._max_pool2d", FUNCTIONAL, 774),
            ("torch._C._VariableFunctions.max_pool2d", None, None),
            ("aten::max_pool2d", Y, 3850),
            ("at::native::max_pool2d", "aten/src/ATen/native/Pooling.cpp", 140),
            ("aten::max_pool2d_with_indices", Y, 12249),
            ("aten::max_pool2d_with_indices.out", Y, 12240),
            ("at::native::max_pool2d_with_indices_out_cuda", "aten/src/ATen/native/cuda/DilatedMaxPool2d.cu", 299),
            ("at::native::max_pool_forward_nchw", "aten/src/ATen/native/cuda/DilatedMaxPool2d.cu", 50),
        ),
        (
            "_jit_internal.py:503 if_false(*args, **kwargs): return_indices not given, dispatch_flag = default False;"
            ' functional.py:799 max_pool2d = boolean_dispatch(..., if_false=_max_pool2d (804), func_name="max_pool2d")',
            "functional.py:796 torch.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)",
            "yaml:3850 max_pool2d(Tensor self, int[2] kernel_size, ...)",
            "yaml:3852 CompositeImplicitAutograd: max_pool2d",
            "Pooling.cpp:162 at::max_pool2d_with_indices(...) (not quantized, not mkldnn)",
            "yaml:12251 structured_delegate: max_pool2d_with_indices.out",
            "yaml:12245 CUDA: max_pool2d_with_indices_out_cuda",
            "DilatedMaxPool2d.cu:430 max_pool_forward_nchw<scalar_t, scalar_t><<<...>>>(...) for MemoryFormat::Contiguous",
        ),
        "return_indices left False (the if_true branch, max_pool2d_with_indices, reaches the same kernel in fewer hops);"
        " NCHW contiguous CUDA input",
    ),
    Chain(
        "Python doors",
        "torch.nn.functional.normalize",
        "div_true_kernel_cuda",
        (
            ("torch.nn.functional.normalize", FUNCTIONAL, 4794),
            ("torch._C.TensorBase.__truediv__", "tools/autograd/templates/python_variable_methods.cpp", 1242),
            ("aten::div.Tensor", Y, 2123),
            ("aten::div.out", Y, 2141),
            ("at::native::div_out", "aten/src/ATen/native/BinaryOps.cpp", 446),
            ("at::native::div_true_stub", "aten/src/ATen/native/BinaryOps.cpp", 380),
            (
                "at::native::binary_internal::div_true_kernel_cuda",
                "aten/src/ATen/native/cuda/BinaryDivTrueKernel.cu",
                20,
            ),
        ),
        (
            "functional.py:4817 input / denom (out None): Tensor has no __truediv__ of its own (_tensor.py), so"
            " TensorBase's",
            "python_variable_methods.cpp:1242 TypeError_to_NotImplemented_<THPVariable_div>: THPVariable_div, generated"
            " from the yaml's div overloads, binds div(Tensor other) to div.Tensor",
            "yaml:2126 structured_delegate: div.out",
            "yaml:2146 CPU, CUDA: div_out",
            "BinaryOps.cpp:447 div_true_stub(device_type(), *this)",
            "BinaryDivTrueKernel.cu:60 REGISTER_DISPATCH(div_true_stub, &binary_internal::div_true_kernel_cuda)",
        ),
        "a CUDA input; the method table is the template tools/autograd/templates/python_variable_methods.cpp, copied"
        " into the generated file at build time",
    ),
]
CHAINS += BINDING_CHAINS


# torch.nn.Conv2d's first path to cudnnConvolutionForward on 2.4.0, from Conv2d.forward
# (torch/nn/modules/conv.py:457) on: (qualified name, path, line, how the hop before reaches
# it). Used by test_real_torch.py (trace) and test_lsp_real.py (the call hierarchy).
CONV2D_FORWARD_TO_CUDNN: list[tuple[str, str | None, int | None, str]] = [
    ("torch.nn.modules.conv.Conv2d._conv_forward", "torch/nn/modules/conv.py", 449, "method"),
    ("torch.nn.functional.conv2d", "torch/nn/functional.py", 87, "call"),
    ("torch._C._VariableFunctions.conv2d", None, None, "alias"),  # generated at build time
    ("aten::conv2d", "aten/src/ATen/native/native_functions.yaml", 1707, "binding"),
    ("at::native::conv2d_symint", "aten/src/ATen/native/Convolution.cpp", 945, "dispatch:CompositeImplicitAutograd"),
    ("aten::convolution", "aten/src/ATen/native/native_functions.yaml", 1668, "call"),
    ("at::native::convolution", "aten/src/ATen/native/Convolution.cpp", 1178, "dispatch:CompositeExplicitAutograd"),
    ("aten::_convolution", "aten/src/ATen/native/native_functions.yaml", 1690, "call"),
    # the function the vendor's #if took apart, found again by braces
    ("at::native::_convolution", "aten/src/ATen/native/Convolution.cpp", 1521, "dispatch:CompositeExplicitAutograd"),
    ("aten::cudnn_convolution", "aten/src/ATen/native/native_functions.yaml", 1869, "call"),
    ("at::native::cudnn_convolution", "aten/src/ATen/native/cudnn/ConvShared.cpp", 240, "dispatch:CUDA"),
    ("at::native::cudnn_convolution_forward_out", "aten/src/ATen/native/cudnn/ConvShared.cpp", 205, "call"),
    ("at::native::raw_cudnn_convolution_forward_out", "aten/src/ATen/native/cudnn/Conv_v8.cpp", 1172, "call"),
    ("at::native::raw_cudnn_convolution_forward_out_v7", "aten/src/ATen/native/cudnn/Conv_v7.cpp", 780, "call"),
    ("at::native::split_batch_dim_to_32bit_out", "aten/src/ATen/native/cudnn/Conv_v7.cpp", 606, "call"),
    ("at::native::raw_cudnn_convolution_forward_out_32bit", "aten/src/ATen/native/cudnn/Conv_v7.cpp", 697, "fnptr"),
    # Conv_v7.cpp:742 AlgoIterator<...>(args, benchmark).try_all([&](...) {...}): try_all
    # (545) calls the lambda (743) as f(algoPerf) (552), which calls cudnnConvolutionForward (759)
    ("at::native::AlgoIterator::try_all", "aten/src/ATen/native/cudnn/Conv_v7.cpp", 545, "method"),
    ("at::native::<lambda at line 743>", "aten/src/ATen/native/cudnn/Conv_v7.cpp", 743, "fnptr"),
    ("cudnnConvolutionForward", None, None, "call"),
]
