"""`explorer run --python` on CUDA, from runs recorded on an NVIDIA H100 (torch 2.11.0+cu130,
Python 3.12, 2026-11-27): each folder of tests/data/h100_runs holds the program, explorer's two
recordings of it (python-events.json, profile.json: what profile_bootstrap.py wrote there)
and the interpreter's probe. They are replayed here through the merge and the naming, so
what a GPU run gives is tested on machines without one; the opt-in part maps the kernels to
a PyTorch 2.4.0 source tree (EXPLORER_REAL_TORCH) and lays the run over its static graph.

Expected values come from the raw recordings (the kernel an operator launched is the device
event whose `linked` id is the operator's correlation id) and from reading the 2.4.0 source.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from explorer.index.store import IndexStore
from explorer.model import Layer
from explorer.runtime.events import read_python
from explorer.runtime.model import Reach, RunFrame, RunTrace
from explorer.runtime.profile_events import read_profile
from explorer.runtime.profiler import build_trace
from explorer.runtime.request import RunRequest
from explorer.runtime.torch_install import TorchInstall
from tests.places import path_line

RUNS = Path(__file__).resolve().parent / "data" / "h100_runs"


def replay(name: str, store: IndexStore | None = None) -> RunTrace:
    folder = RUNS / name
    recorded = TorchInstall(**json.loads((folder / "install.json").read_text()))
    # the device's wheel is not here: no Python source or packaged YAML is read from it
    install = dataclasses.replace(recorded, package="/nonexistent/site-packages/torch", torchgen=None)
    request = RunRequest(
        code=(folder / "program.py").read_text(), script=None, argv=(), root="/nonexistent", python=install.python
    )
    return build_trace(
        request, install, store, read_python(folder / "python-events.json"), read_profile(folder / "profile.json")
    )


def frames(frame: RunFrame) -> Iterator[RunFrame]:
    yield frame
    for child in frame.children:
        yield from frames(child)


def raw_events(name: str) -> list[list[object]]:
    return json.loads((RUNS / name / "profile.json").read_text())["events"]


def test_torch_2_11_events_are_told_apart_by_kind():
    # torch 2.11's profiler has no activity_type: it wrote every host event as "cpu_op" and
    # every device event as "kernel" (profile_bootstrap.py's fallback)
    assert Counter(row[2] for row in raw_events("sign")) == {"cpu_op": 222, "kernel": 40}
    names: dict[str, set[str]] = {}
    for event in read_profile(RUNS / "sign" / "profile.json").events:
        names.setdefault(event.kind, set()).add(event.name)
    assert names["overhead"] == {
        "Activity Buffer Request",
        "Instrumentation",
        "Lazy Function Loading",
        "Resource",
        "Runtime Triggered Module Loading",
    }
    assert names["cuda_runtime"] == {
        "cudaDeviceGetStreamPriorityRange",
        "cudaDeviceSynchronize",
        "cudaFuncGetAttributes",
        "cudaGetDeviceCount",
        "cudaGetDeviceProperties_v2",
        "cudaHostAlloc",
        "cudaLaunchKernel",
        "cudaMalloc",
        "cudaMemcpyAsync",
        "cudaPeekAtLastError",
        "cudaStreamIsCapturing",
        "cudaStreamSynchronize",
    }
    assert names["gpu_memcpy"] == {"Memcpy DtoH (Device -> Pageable)", "Memcpy DtoH (Device -> Pinned)"}
    assert sorted(name for name in names["cpu_op"] if not name.startswith("aten::")) == ["detach"]


def test_a_cuda_call_the_profiler_cannot_name_is_no_operator():
    # three host events of the conv run are named "INVALID" (kineto's name for a CUDA API
    # callback it does not know), written as "cpu_op" like every host event of torch 2.11
    assert sum(1 for row in raw_events("conv") if row[0] == "INVALID") == 3
    unnamed = [
        event for event in read_profile(RUNS / "conv" / "profile.json").events if event.name.startswith("(a CUDA")
    ]
    assert [(event.kind, event.name) for event in unnamed] == [
        ("cuda_runtime", "(a CUDA API call the profiler does not name)")
    ] * 3
    shown = [
        (frame.name, frame.layer) for frame in frames(replay("conv").root) if frame.name in ("INVALID", unnamed[0].name)
    ]
    assert shown == [("(a CUDA API call the profiler does not name)", Layer.VENDOR)]


def test_api_calls_under_an_operator_with_no_static_edge_are_unattributed_not_missed(
    sample_root: str, sample_store: IndexStore
):
    from explorer.runtime.compare import compare_run

    comparison = compare_run(sample_store, sample_root, replay("conv", sample_store).root, every_native_call=False)
    # the CUDA API calls the recording holds inside aten::cudnn_convolution's interval, in order
    # of their first call, without the profiler's own records and the launch call; cuDNN makes
    # them, and sample_repo's cudnn_convolution (ConvShared.cpp) calls none of them
    assert [(edge.caller.name, edge.callee.name) for edge in comparison.unattributed] == [
        ("at::native::cudnn_convolution", name)
        for name in (
            "cudaFree",
            "cudaGetDeviceCount",
            "cudaDriverGetVersion",
            "cudaDeviceGetAttribute",
            "cudaGetDeviceProperties_v2",
            "cudaPeekAtLastError",
            "cudaStreamCreateWithFlags",
            "cudaMalloc",
            "cudaMemsetAsync",
            "cudaHostAlloc",
            "cudaHostGetDevicePointer",
            "(a CUDA API call the profiler does not name)",
            "cudaFuncSetAttribute",
            "cudaOccupancyAvailableDynamicSMemPerBlock",
            "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
            "cudaOccupancyMaxActiveClusters",
            "cudaGetSymbolAddress",
        )
    ]
    assert not [edge for edge in comparison.dynamic_only if edge.callee.layer is Layer.VENDOR]


def test_an_operator_s_kernel_sits_under_it_without_the_launch_call_or_the_profiler_s_own_records():
    trace = replay("sign")
    everything = list(frames(trace.root))
    shown = {frame.name for frame in everything}
    assert not shown & {
        "cudaLaunchKernel",
        "Lazy Function Loading",
        "Instrumentation",
        "Resource",
        "Activity Buffer Request",
        "Runtime Triggered Module Loading",
    }
    (binding,) = [f for f in everything if f.name == "torch._C._VariableFunctions.sign"]
    (operator,) = binding.children
    (kernel,) = operator.children
    assert (operator.name, operator.layer, operator.reach) == ("aten::sign", Layer.YAML, Reach.PROFILED)
    # no tree given: a kernel of PyTorch's, without a source, not a vendor's
    assert (kernel.name, kernel.layer, kernel.path, kernel.reach) == (
        "at::native::vectorized_elementwise_kernel",
        Layer.CUDA,
        None,
        Reach.LAUNCH,
    )
    # the raw recording agrees: aten::sign's one kernel is the sign functor's vectorized kernel
    rows = raw_events("sign")
    (sign_row,) = [row for row in rows if row[0] == "aten::sign"]
    launched = [row[0] for row in rows if row[2] == "kernel" and row[8] == sign_row[7]]
    assert len(launched) == 1 and launched[0].startswith(
        "void at::native::vectorized_elementwise_kernel<4, at::native::sign_kernel_cuda"
    )
    # CUDA API calls are vendor calls where they ran: the allocation under empty.memory_format
    vendor = Counter(f.name for f in everything if f.layer is Layer.VENDOR)
    assert vendor["cudaMalloc"] == 1 and vendor["Memcpy DtoH (Device -> Pinned)"] == 9
    assert all(
        f.path is None and not f.children for f in everything if f.layer is Layer.VENDOR and f.reach is Reach.LAUNCH
    )
    # Python 3.12: Tensor methods' returns were matched to their calls as the run was recorded,
    # so Python called after `t.numel()` sits beside it, not inside (_tensor_str.py:643 of
    # torch 2.11 calls _tensor_str (332) from _str_intern (416))
    (intern,) = [f for f in everything if f.name == "torch._tensor_str._str_intern"]
    assert [(c.name, path_line(c.site)) for c in intern.children if c.name == "torch._tensor_str._tensor_str"] == [
        ("torch._tensor_str._tensor_str", ("/opt/torch/.venv/lib/python3.12/site-packages/torch/_tensor_str.py", 643))
    ]


def _bootstrap_module():
    path = Path(__file__).resolve().parents[1] / "explorer" / "runtime" / "profile_bootstrap.py"
    spec = importlib.util.spec_from_file_location("explorer_profile_bootstrap_under_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_builtin_method_s_return_matches_its_call_though_each_event_gets_a_new_bound_method():
    # Python 3.12 hands the hook one bound method object at `t.numel()`'s c_call and another
    # at its c_return: matched by identity, every Tensor method stayed open and the Python
    # calls after it nested inside it (seen on the H100 run of `sign`).
    bootstrap = _bootstrap_module()

    class FakeTensor(list):  # a builtin method bound to an instance, as Tensor.numel is
        pass

    recorder = bootstrap.ProfilingRecorder([], 100, None)
    recorder.tensor_type = FakeTensor
    tensor = FakeTensor()
    frame = sys._getframe()
    at_call, at_return = tensor.append, tensor.append
    assert at_call is not at_return
    recorder.hook(frame, "c_call", at_call)
    recorder.hook(frame, "c_return", at_return)
    assert [event[0] for event in recorder.events] == [bootstrap.C_CALL, bootstrap.C_RETURN]
    assert recorder.builtins == ["torch._C.TensorBase.append"] and recorder.open_builtins == []


# -- with the PyTorch 2.4.0 source tree (opt-in) ---------------------------------------------

# Every kernel the six runs launched that PyTorch 2.4.0 defines, with its definition (read in
# the tree); the others are cuDNN's, cuBLAS's and CUB's, copies and fills, and two kernels
# 2.11 has and 2.4.0 does not (mbtopk::computeBlockDigitCounts and computeDigitCumSum).
KERNELS_IN_TREE = {
    "at::native::bitonicSortKVInPlace": ("aten/src/ATen/native/cuda/SortUtils.cuh", 90),
    "at::native::distribution_elementwise_grid_stride_kernel": (
        "aten/src/ATen/native/cuda/DistributionTemplates.h",
        81,
    ),
    "at::native::elementwise_kernel": ("aten/src/ATen/native/cuda/CUDALoops.cuh", 292),
    "at::native::index_elementwise_kernel": ("aten/src/ATen/native/cuda/IndexKernel.cu", 33),
    "at::native::mbtopk::computeBlockwiseKthCounts": ("aten/src/ATen/native/cuda/TensorTopK.cu", 478),
    "at::native::mbtopk::computeBlockwiseWithinKCounts": ("aten/src/ATen/native/cuda/TensorTopK.cu", 400),
    "at::native::mbtopk::fill": ("aten/src/ATen/native/cuda/TensorTopK.cu", 238),
    "at::native::mbtopk::gatherTopK": ("aten/src/ATen/native/cuda/TensorTopK.cu", 496),
    "at::native::nll_loss_backward_reduce_cuda_kernel_2d": ("aten/src/ATen/native/cuda/Loss.cu", 452),
    "at::native::nll_loss_forward_reduce_cuda_kernel_2d": ("aten/src/ATen/native/cuda/Loss.cu", 230),
    "at::native::reduce_kernel": ("aten/src/ATen/native/cuda/Reduce.cuh", 188),
    "at::native::sbtopk::gatherTopK": ("aten/src/ATen/native/cuda/TensorTopK.cu", 40),
    "at::native::unrolled_elementwise_kernel": ("aten/src/ATen/native/cuda/CUDALoops.cuh", 164),
    "at::native::vectorized_elementwise_kernel": ("aten/src/ATen/native/cuda/CUDALoops.cuh", 63),
    "softmax_warp_backward": ("aten/src/ATen/native/cuda/PersistentSoftmax.cuh", 361),
    "softmax_warp_forward": ("aten/src/ATen/native/cuda/PersistentSoftmax.cuh", 57),
}
RUN_NAMES = ("conv", "mlp", "sdpa", "sign", "topk_large", "topk_small")


@pytest.mark.real_torch
def test_every_kernel_the_runs_launched_maps_to_its_definition_or_is_a_vendor_s(real_tree: tuple[str, IndexStore]):
    _, store = real_tree
    launched: dict[str, set[tuple[Layer, str | None, int | None]]] = {}
    for name in RUN_NAMES:
        for frame in frames(replay(name, store).root):
            if frame.reach is Reach.LAUNCH:
                launched.setdefault(frame.name, set()).add((frame.layer, frame.path, frame.line))
    in_tree = {name: where for name, where in launched.items() if any(layer is Layer.CUDA for layer, _, _ in where)}
    assert {name: where.pop()[1:] for name, where in in_tree.items()} == KERNELS_IN_TREE
    assert all(where == {(Layer.VENDOR, None, None)} for name, where in launched.items() if name not in in_tree)
    assert len(launched) - len(in_tree) == 16


@pytest.mark.real_torch
def test_the_static_graph_confirms_the_launches_through_c_plus_plus_the_profiler_does_not_see(
    real_tree: tuple[str, IndexStore],
):
    from explorer.runtime.compare import compare_run

    root, store = real_tree
    topk = compare_run(store, root, replay("topk_small", store).root, every_native_call=False)
    confirmed = {(edge.caller.name, edge.callee.name) for edge in topk.confirmed}
    # TensorTopK.cpp:67 launch_gather_topk_kernel -> TensorTopK.cu:897 RUN_T ... -> sbtopk::launch
    # -> TensorTopK.cu:200 gatherTopK<<<...>>> (tests/real_chains.py has every hop)
    assert ("at::native::topk_out_cuda", "at::native::sbtopk::gatherTopK") in confirmed
    sign = compare_run(store, root, replay("sign", store).root, every_native_call=False)
    confirmed = {(edge.caller.name, edge.callee.name) for edge in sign.confirmed}
    # aten::sign's structured delegate sign.out (yaml 9574: CUDA: sign_out) runs TORCH_IMPL_FUNC(sign_out)
    # (UnaryOps.cpp), whose sign_stub reaches sign_kernel_cuda and gpu_kernel's vectorized launch
    assert ("aten::sign", "at::native::sign_out") in confirmed
    assert ("at::native::sign_out", "at::native::vectorized_elementwise_kernel") in confirmed
    conv = compare_run(store, root, replay("conv", store).root, every_native_call=False)
    confirmed = {(edge.caller.name, edge.callee.name) for edge in conv.confirmed}
    # `model.to(dev_rank)` -> Module._apply's `t.to(...)`: TensorBase's method table entry
    # written by hand (python_variable_methods.cpp:1308), THPVariable_to (:958), whose
    # dispatch_to (:400-:425) calls self.to(...): aten::to's overloads
    assert ("torch._C.TensorBase.to", "aten::to.dtype_layout") in confirmed
    assert not [edge for edge in conv.dynamic_only if edge.caller.name.startswith("torch._C.TensorBase.")]
    # every native call the bundled runtime would have recorded is not asked of a profiled run
    assert not [
        n
        for n in sign.not_taken
        if n.edge.target.layer in (Layer.CPP, Layer.CUDA) and n.edge.target.symbol.kind.value in ("function", "method")
    ]
