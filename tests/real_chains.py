"""Operator chains of PyTorch 2.4.0 verified by hand, hop by hop, from the source (the
MetaX-MACA/mcPytorch fork: upstream code and its `#if defined(USE_MACA)` branches), and how
a trace is scored against them. Used by tests/test_real_chains.py and
benchmarks/chain_bench.py; nothing here was derived by running explorer.

A chain: the query, the --to target (the kernel launched or the vendor API called), the hops
from the definition the query names to the target as (qualified name, path, line), with,
for each hop after the first, where the hop before calls it (`evidence`). A chain follows
the upstream CUDA branch (USE_MACA undefined), which is what a reader of PyTorch reads;
where the fork's branch gives other hops, they are an `alternative`, as right as the chain.
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


def score(chain: Chain, paths: list, paths_found: int) -> Score:
    listed = [hops_of(path) for path in paths]
    accepted = chain.accepted()
    rank = next((number for number, hops in enumerate(listed, start=1) if hops in accepted), None)
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


def unary_chain(operator: str, line: int, out_line: int, impl_line: int, stub_line: int, kernel_file: str, kernel_line: int,
                gpu_kernel_call: int) -> Chain:
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
        "elementwise unary", operator, "vectorized_elementwise_kernel",
        (*head, ("at::native::launch_vectorized_kernel", CUDA_LOOPS, 247), ("at::native::vectorized_elementwise_kernel", CUDA_LOOPS, 63)),
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
        ((*head, ("at::native::launch_vectorized_kernel", CUDA_LOOPS, 174), ("at::native::vectorized_elementwise_kernel", CUDA_LOOPS, 63)),),
    )


CHAINS: list[Chain] = [
    Chain(
        "cuDNN convolution forward", "torch.nn.functional.conv2d", "cudnnConvolutionForward",
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
            "Conv_v7.cpp:791 the function passed is called by split_batch_dim_to_32bit_out",
            "Conv_v7.cpp:759 cudnnConvolutionForward(...)",
        ),
        "upstream; _convolution is taken apart by the fork's #if in Convolution.cpp and found again by braces",
    ),
    Chain(
        "BLAS", "aten::mm", "cublasSgemm",
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
        "BLAS", "aten::addmm", "cublasSgemm",
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
        "batched BLAS", "aten::bmm", "cublasSgemmStridedBatched",
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
        "reduction", "aten::sum.dim_IntList", "reduce_kernel",
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
        "concatenation", "aten::cat", "CatArrayBatchedCopy",
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
        "indexing", "aten::index_select", "indexSelectSmallIndex",
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
        "softmax", "aten::_softmax", "cunn_SoftMaxForward",
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
        "pooling", "aten::max_pool2d_with_indices", "max_pool_forward_nchw",
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
        "pooling", "aten::avg_pool2d", "avg_pool2d_out_cuda_frame",
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
        "interpolation", "aten::upsample_bilinear2d", "upsample_bilinear2d_out_frame",
        (
            ("aten::upsample_bilinear2d", Y, 12576),
            ("aten::upsample_bilinear2d.out", Y, 12568),
            ("at::native::upsample_bilinear2d_out_cuda", "aten/src/ATen/native/cuda/UpSampleBilinear2d.cu", 847),
            ("at::native::upsample_bilinear2d_out_cuda_template", "aten/src/ATen/native/cuda/UpSampleBilinear2d.cu", 262),
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
        "losses", "aten::nll_loss_forward", "nll_loss_forward_reduce_cuda_kernel_2d",
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
        "elementwise unary", "aten::exp", "vectorized_elementwise_kernel",
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
        "normalisation", "aten::native_layer_norm", "vectorized_layer_norm_kernel",
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
        "normalisation", "aten::cudnn_batch_norm", "cudnnBatchNormalizationForwardTrainingEx",
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
        "reduction", "aten::amax", "reduce_kernel",
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
        "embedding", "aten::embedding", "indexSelectSmallIndex",
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
        "reduction", "aten::argmax", "reduce_kernel",
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
        "normalisation", "aten::native_batch_norm", "batch_norm_collect_statistics_kernel",
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
        "normalisation", "aten::native_group_norm", "RowwiseMomentsCUDAKernel",
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
        "softmax", "aten::_log_softmax", "cunn_SoftMaxForward",
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
        "interpolation", "aten::upsample_nearest2d", "upsample_nearest2d_out_frame",
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
        "losses", "aten::nll_loss2d_forward", "nll_loss2d_forward_kernel",
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
