"""`explorer run --chrome-trace FILE`: a trace the PyTorch profiler wrote, mapped to source
without running anything.

tests/data/chrome_traces/conv_relu_backward.json was written here by torch 2.13.0 (CPU) running
conv_relu_backward.py beside it (`prof.export_chrome_trace`): 61 operators, one thread. The
expected locations were read off sample_repo: conv2d is native_functions.yaml:74, its
CompositeImplicitAutograd row (line 76) names conv2d_symint, Convolution.cpp:173; relu is
line 123, its `CPU, CUDA` row (127) names relu, Activation.cpp:11; _slow_conv2d_forward is
line 200, its CPU row (203) names slow_conv2d_forward_cpu, ConvolutionMM2d.cpp:101.

tests/data/chrome_traces/h100_conv_sign.json.gz was written on an NVIDIA H100 by torch
2.11.0+cu130 running h100_conv_sign.py beside it (gzipped here, as tensorboard_trace_handler
writes them): 13 operators, 7 device events. Which operator launched each device event was
read off the raw trace (the runtime call sharing the event's `correlation`, inside the
innermost operator on its thread). The kernel linking is also tested on small traces written
in the test (older traces repeat the correlation as `External id`).
h100_train_step.json.gz is a training step of h100_train_step.py on the same machine, written by
tensorboard_trace_handler with Python stacks on: its backward runs on the autograd engine's
own thread.
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

from explorer.runtime.chrome_trace import read_chrome_trace
from tests.command_line import invoke
from tests.conftest import write_tree

TRACE = Path(__file__).resolve().parent / "data" / "chrome_traces" / "conv_relu_backward.json"


def cli(*args: str):
    result = invoke(list(args))
    assert "Traceback" not in result.output
    return result


def top(document: dict, name: str) -> dict:
    return next(child for child in document["tree"]["children"] if child["name"] == name)


def test_every_operator_of_the_trace_is_read_and_nothing_else():
    profile, python_functions = read_chrome_trace(TRACE)
    raw = json.loads(TRACE.read_text())["traceEvents"]
    assert sum(1 for event in raw if event.get("cat") == "cpu_op") == 61
    assert [event.kind for event in profile.events] == ["cpu_op"] * 61  # the "Trace" span and the flow arrows left out
    assert [event.name for event in profile.events[:3]] == ["aten::conv2d", "aten::convolution", "aten::_convolution"]
    assert python_functions == 0 and profile.overload_names is False


def test_operators_nest_and_map_to_the_tree_as_a_run_does():
    result = cli("run", "--chrome-trace", str(TRACE), "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["runtime"] == "recorded trace" and document["native_events"] == 61
    conv2d = top(document, "aten::conv2d")
    assert (conv2d["path"], conv2d["line"]) == ("aten/src/ATen/native/native_functions.yaml", 74)
    kernel = conv2d["children"][0]
    assert (kernel["name"], kernel["path"], kernel["line"], kernel["key"]) == (
        "at::native::conv2d_symint",
        "aten/src/ATen/native/Convolution.cpp",
        173,
        "CompositeImplicitAutograd",
    )
    assert kernel["site"] == {"path": "aten/src/ATen/native/native_functions.yaml", "line": 76}
    relu_kernel = top(document, "aten::relu")["children"][0]
    assert (relu_kernel["name"], relu_kernel["path"], relu_kernel["line"], relu_kernel["key"]) == (
        "at::native::relu",
        "aten/src/ATen/native/Activation.cpp",
        11,
        "CPU",
    )
    # conv2d -> convolution -> _convolution -> thnn_conv2d -> _slow_conv2d_forward, each under its kernel
    slow = _find(conv2d, "aten::_slow_conv2d_forward")
    assert (slow["path"], slow["line"]) == ("aten/src/ATen/native/native_functions.yaml", 200)
    assert (slow["children"][0]["name"], slow["children"][0]["path"], slow["children"][0]["line"]) == (
        "at::native::slow_conv2d_forward_cpu",
        "aten/src/ATen/native/ConvolutionMM2d.cpp",
        101,
    )
    assert document["notes"] == [
        "read from a profiler trace: nothing ran; operators are named without their overloads (the trace has none)",
    ]


def _find(frame: dict, name: str) -> dict:
    if frame["name"] == name:
        return frame
    for child in frame["children"]:
        found = _find(child, name)
        if found:
            return found
    return {}


def test_the_text_view_says_it_read_a_trace(tmp_path):
    packed = tmp_path / "trace.pt.trace.json.gz"
    packed.write_bytes(gzip.compress(TRACE.read_bytes()))  # tensorboard_trace_handler(use_gzip=True)
    result = cli("run", "--chrome-trace", str(packed))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == f"{packed}  (a recorded profiler trace; 61 operators and device events)"
    assert "aten::conv2d  aten/src/ATen/native/native_functions.yaml:74  ← profiled" in result.stdout


# -- CUDA kernels, on traces written here in the profiler's format ------------------------------


def _x(category: str, name: str, tid: object, ts: float, dur: float, **args: object) -> dict:
    return {"ph": "X", "cat": category, "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur, "args": args}


def cuda_trace() -> dict:
    """relu on CUDA: its launch call comes after an operator inside it has ended (so the
    operator running it is relu, not that one); a copy made by cudaMemcpyAsync inside
    aten::copy_; a kernel whose launch lies outside every operator. `External id` repeats
    the correlation, as older traces have it: it must not be trusted."""
    return {
        "traceEvents": [
            _x("cpu_op", "aten::relu", 7, 100.0, 50.0, **{"External id": 1}),
            _x("cpu_op", "aten::empty", 7, 105.0, 3.0, **{"External id": 2}),
            _x("cuda_runtime", "cudaLaunchKernel", 7, 120.0, 5.0, correlation=40, **{"External id": 40}),
            _x(
                "kernel",
                "at::native::relu_cuda_kernel(float const*, float*, long)",
                "stream 7",
                300.0,
                2.0,
                correlation=40,
                **{"External id": 40},
            ),
            _x("cpu_op", "aten::copy_", 7, 200.0, 20.0, **{"External id": 3}),
            _x("cuda_runtime", "cudaMemcpyAsync", 7, 205.0, 5.0, correlation=41, **{"External id": 41}),
            _x("gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", "stream 7", 310.0, 1.0, correlation=41),
            _x("cuda_runtime", "cudaLaunchKernel", 7, 400.0, 5.0, correlation=42),
            _x("kernel", "void stray_kernel(int)", "stream 7", 410.0, 1.0, correlation=42),
            _x("python_function", "torch/nn/functional.py(1500): relu", 7, 90.0, 70.0),
            {"ph": "s", "cat": "ac2g", "id": 40, "pid": 1, "tid": 7, "ts": 120.0},
        ]
    }


def test_a_kernel_goes_under_the_operator_running_its_launch(tmp_path):
    path = tmp_path / "relu_cuda.json"
    path.write_text(json.dumps(cuda_trace()))
    profile, python_functions = read_chrome_trace(path)
    assert python_functions == 1
    operators = {event.correlation: event.name for event in profile.events if event.kind == "cpu_op"}
    linked = {event.name: operators.get(event.linked) for event in profile.events if event.device == "cuda"}
    assert linked == {
        "at::native::relu_cuda_kernel(float const*, float*, long)": "aten::relu",  # aten::empty had ended
        "Memcpy DtoH (Device -> Pageable)": "aten::copy_",
        "void stray_kernel(int)": None,
    }
    result = cli("run", "--chrome-trace", str(path), "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    relu = top(document, "aten::relu")
    launched = [
        (child["name"], child["layer"], child["path"], child["line"])
        for child in _walk(relu)
        if child["reach"] == "launch"
    ]
    # sample_repo: `__global__ void relu_cuda_kernel` at aten/src/ATen/native/cuda/Activation.cu:11, in at::native
    assert launched == [("at::native::relu_cuda_kernel", "cuda", "aten/src/ATen/native/cuda/Activation.cu", 11)]
    assert document["notes"][-2:] == [
        "the trace's 1 Python function events (with_stack=True) are not shown: operators are placed by their own nesting",
        "1 device events had no launching operator in the trace: not shown",
    ]


H100_TRACE = TRACE.with_name("h100_conv_sign.json.gz")


def test_every_device_event_of_a_real_cuda_trace_is_under_the_operator_that_launched_it():
    result = cli("run", "--chrome-trace", str(H100_TRACE), "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    launched = [
        (parent["name"], child["name"][:48], child["layer"], child["path"], child["line"])
        for parent, child in _pairs(document["tree"])
        if child["reach"] == "launch"
    ]
    # sample_repo: elementwise_kernel at aten/src/ATen/native/cuda/Loops.cuh:29, reduce_kernel at
    # Reduce.cuh:25; cuDNN's kernel, the fills and the copy have no source: vendor frames.
    # The two fills (cudnn's workspace) are one frame, folded.
    assert launched == [
        ("at::native::cudnn_convolution", "Memset (Device)", "vendor", None, None),
        ("at::native::cudnn_convolution", "sm80_xmma_fprop_implicit_gemm_f32f32_f32f32_f32_", "vendor", None, None),
        ("aten::add_", "at::native::elementwise_kernel", "cuda", "aten/src/ATen/native/cuda/Loops.cuh", 29),
        ("aten::sign", "at::native::vectorized_elementwise_kernel", "vendor", None, None),
        ("at::native::sum", "at::native::reduce_kernel", "cuda", "aten/src/ATen/native/cuda/Reduce.cuh", 25),
        ("aten::_local_scalar_dense", "Memcpy DtoH (Device -> Pinned)", "vendor", None, None),
    ]


def test_a_cuda_call_the_profiler_cannot_name_is_said_to_be_one_not_an_operator():
    # kineto wrote three runtime calls (callback id 468, inside cudnn_convolution) as "INVALID"
    result = cli("run", "--chrome-trace", str(H100_TRACE))
    assert result.exit_code == 0, result.output
    assert "INVALID" not in result.stdout
    (line,) = [line for line in result.stdout.splitlines() if "profiler does not name" in line]
    assert line.endswith("vendor  (a CUDA API call the profiler does not name)  (vendor library)  ← profiled  ×3")


def test_what_the_engine_runs_for_a_backward_node_after_it_goes_under_the_node():
    # On the engine's thread, "autograd::engine::evaluate_function: AddmmBackward0" holds the
    # node's own event (t, mm, t, mm, t) and then aten::sum and aten::view, the engine summing
    # the bias's gradient to its shape; the wrapper is not shown, so they go under the node.
    result = cli("run", "--chrome-trace", str(H100_TRACE.with_name("h100_train_step.json.gz")), "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    tops = [child["name"] for child in document["tree"]["children"]]
    backward = tops[tops.index("NllLossBackward0") :]
    assert backward == [
        "NllLossBackward0",
        "LogSoftmaxBackward0",
        "AddmmBackward0",
        "torch::autograd::AccumulateGrad",
        "TBackward0",
        "torch::autograd::AccumulateGrad",
        "ViewBackward0",
        "ReluBackward0",
        "ConvolutionBackward0",
        "torch::autograd::AccumulateGrad",
        "aten::_foreach_add_",
        "cudaDeviceSynchronize",
    ]
    addmm = top(document, "AddmmBackward0")
    assert [child["name"] for child in addmm["children"]] == [
        "aten::t",
        "aten::mm",
        "aten::t",
        "aten::mm",
        "aten::t",
        "aten::sum",
        "aten::view",
    ]


def _pairs(frame: dict):
    for child in frame["children"]:
        yield frame, child
        yield from _pairs(child)


def _walk(frame: dict):
    for child in frame["children"]:
        yield child
        yield from _walk(child)


# -- what a user may get wrong ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (None, "cannot read {path}: No such file or directory"),
        (b"{not json", "{path}: not a JSON trace"),
        (b'{"schemaVersion": 1}', "{path}: not a profiler trace (no traceEvents list)"),
        (
            b'{"traceEvents": [{"ph": "X", "cat": "Trace", "name": "x", "ts": 1, "dur": 2}]}',
            "{path}: no operators or kernels in this trace",
        ),
        (gzip.compress(b"[1, 2")[:20], "{path}: a damaged gzip file"),
    ],
)
def test_a_file_that_is_no_trace_is_one_line(tmp_path, content, said):
    path = tmp_path / "trace.json"
    if content is not None:
        path.write_bytes(content)
    result = cli("run", "--chrome-trace", str(path))
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: " + said.format(path=path)), lines


def test_a_trace_and_a_program_together_is_a_usage_error():
    result = cli("run", "--chrome-trace", str(TRACE), "-c", "print(1)")
    assert (result.exit_code, result.stderr) == (
        2,
        "error: --chrome-trace reads a trace already recorded: give no program to run\n",
    )


# -- the real tree (opt-in) --------------------------------------------------------------------


@pytest.mark.skipif(
    not os.environ.get("EXPLORER_REAL_TORCH"), reason="set EXPLORER_REAL_TORCH to a PyTorch 2.4.0 source tree"
)
def test_on_the_real_tree_operators_reach_their_kernels():
    # PyTorch 2.4.0: conv2d is native_functions.yaml:1707, its CompositeImplicitAutograd row
    # (1709) names conv2d_symint, Convolution.cpp:945
    result = cli("run", "--chrome-trace", str(TRACE), "--root", os.environ["EXPLORER_REAL_TORCH"], "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    conv2d = top(document, "aten::conv2d")
    assert (conv2d["path"], conv2d["line"]) == ("aten/src/ATen/native/native_functions.yaml", 1707)
    assert (conv2d["children"][0]["name"], conv2d["children"][0]["path"], conv2d["children"][0]["line"]) == (
        "at::native::conv2d_symint",
        "aten/src/ATen/native/Convolution.cpp",
        945,
    )


def test_an_operator_without_its_overload_is_looked_up_in_its_own_namespace(tmp_path):
    # quantized::mul is registered on line 3 of library.cpp, a line before aten::mul's YAML
    # entries (lines 4 and 7): the profiler's bare `aten::mul` is aten's, at its first overload
    root = write_tree(
        tmp_path / "tree",
        {
            "aten/src/ATen/native/native_functions.yaml": (
                "- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n"
                "  variants: function, method\n"
                "\n"
                "- func: mul.Tensor(Tensor self, Tensor other) -> Tensor\n"
                "  variants: function, method\n"
                "\n"
                "- func: mul.Scalar(Tensor self, Scalar other) -> Tensor\n"
            ),
            "aten/src/ATen/native/quantized/library.cpp": (
                "#include <torch/library.h>\n"
                "TORCH_LIBRARY(quantized, m) {\n"
                '  m.def("quantized::mul(Tensor qa, Tensor qb, float scale, int zero_point) -> Tensor qc");\n'
                "}\n"
            ),
        },
    )
    trace = tmp_path / "mul.json"
    trace.write_text(json.dumps({"traceEvents": [_x("cpu_op", "aten::mul", 1, 10.0, 5.0)]}))
    result = cli("run", "--chrome-trace", str(trace), "--root", str(root), "--json")
    assert result.exit_code == 0, result.output
    mul = top(json.loads(result.stdout), "aten::mul")
    assert (mul["path"], mul["line"]) == ("aten/src/ATen/native/native_functions.yaml", 4)
