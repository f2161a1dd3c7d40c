"""`explorer run` on the bundled reference runtime: the merged tree from Python through the
binding, operators and kernels down to the vendor call, and its comparison with the static
call graph. The instrumented library is built once (about a minute on 2 cores, then cached)."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.command_line import invoke

pytestmark = pytest.mark.skipif(
    shutil.which("c++") is None, reason="no C++ compiler: the bundled runtime cannot be built"
)

CONV2D = "import torch; m = torch.nn.Conv2d(3, 8, 3).to('cuda'); m(torch.randn(2, 3, 16, 16, device='cuda'))"
LINEAR = "import torch; m = torch.nn.Linear(5, 4); m(torch.randn(3, 5))"
BATCHNORM = (
    "import torch; m = torch.nn.BatchNorm2d(4); m(torch.randn(2, 4, 5, 5)); m.eval(); m(torch.randn(2, 4, 5, 5))"
)


def run_json(*args: str) -> dict:
    result = invoke(["run", "--json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def chain(tree: dict, names: list[str]) -> list[dict]:
    """The frames along `names`, each a child of the one before (searched breadth-first
    for the first name)."""
    queue, first = [tree], None
    while queue and first is None:
        frame = queue.pop(0)
        if frame["name"] == names[0]:
            first = frame
        queue.extend(frame["children"])
    assert first is not None, f"{names[0]} not in the run"
    found = [first]
    for name in names[1:]:
        children = [child for child in found[-1]["children"] if child["name"] == name]
        assert children, f"{name} not called by {found[-1]['name']}: {[c['name'] for c in found[-1]['children']]}"
        found.append(children[0])
    return found


def hops(frames: list[dict]) -> list[tuple]:
    return [
        (f["layer"], f["name"], f"{f['path']}:{f['line']}" if f["line"] else f["path"], f["reach"], f.get("key"))
        for f in frames
    ]


@pytest.fixture(scope="module")
def conv2d_cuda() -> dict:
    return run_json("--compare", "-c", CONV2D)


def test_conv2d_on_cuda_runs_from_the_module_call_to_cudnn(conv2d_cuda):
    frames = chain(
        conv2d_cuda["tree"],
        [
            "torch.nn.modules.module.Module._wrapped_call_impl",
            "torch.nn.modules.module.Module._call_impl",
            "torch.nn.modules.conv.Conv2d.forward",
            "torch.nn.modules.conv.Conv2d._conv_forward",
            "torch._C._VariableFunctions.conv2d",
            "aten::conv2d",
            "at::native::conv2d_symint",
            "aten::convolution",
            "at::native::convolution",
            "aten::_convolution",
            "at::native::_convolution",
            "aten::cudnn_convolution",
            "at::native::cudnn_convolution",
            "at::native::cudnn_convolution_forward_out",
            "at::native::raw_cudnn_convolution_forward_out",
            "at::native::split_batch_dim_to_32bit_out",
            "at::native::raw_cudnn_convolution_forward_out_32bit",
            "cudnnConvolutionForward",
        ],
    )
    assert hops(frames) == [
        ("python", "torch.nn.modules.module.Module._wrapped_call_impl", "torch/nn/modules/module.py:186", "call", None),
        ("python", "torch.nn.modules.module.Module._call_impl", "torch/nn/modules/module.py:189", "call", None),
        ("python", "torch.nn.modules.conv.Conv2d.forward", "torch/nn/modules/conv.py:243", "call", None),
        ("python", "torch.nn.modules.conv.Conv2d._conv_forward", "torch/nn/modules/conv.py:228", "call", None),
        ("binding", "torch._C._VariableFunctions.conv2d", "torch/_C/_VariableFunctions.pyi:14", "binding", None),
        ("yaml", "aten::conv2d", "aten/src/ATen/native/native_functions.yaml:74", "call", None),
        (
            "cpp",
            "at::native::conv2d_symint",
            "aten/src/ATen/native/Convolution.cpp:173",
            "dispatch",
            "CompositeImplicitAutograd",
        ),
        ("yaml", "aten::convolution", "aten/src/ATen/native/native_functions.yaml:63", "call", None),
        (
            "cpp",
            "at::native::convolution",
            "aten/src/ATen/native/Convolution.cpp:218",
            "dispatch",
            "CompositeExplicitAutograd",
        ),
        ("yaml", "aten::_convolution", "aten/src/ATen/native/native_functions.yaml:69", "call", None),
        (
            "cpp",
            "at::native::_convolution",
            "aten/src/ATen/native/Convolution.cpp:228",
            "dispatch",
            "CompositeExplicitAutograd",
        ),
        ("yaml", "aten::cudnn_convolution", "aten/src/ATen/native/native_functions.yaml:88", "call", None),
        ("cpp", "at::native::cudnn_convolution", "aten/src/ATen/native/cudnn/ConvShared.cpp:65", "dispatch", "CUDA"),
        (
            "cpp",
            "at::native::cudnn_convolution_forward_out",
            "aten/src/ATen/native/cudnn/ConvShared.cpp:43",
            "call",
            None,
        ),
        (
            "cpp",
            "at::native::raw_cudnn_convolution_forward_out",
            "aten/src/ATen/native/cudnn/Conv_v7.cpp:119",
            "call",
            None,
        ),
        ("cpp", "at::native::split_batch_dim_to_32bit_out", "aten/src/ATen/native/cudnn/Conv_v7.cpp:67", "call", None),
        (
            "cpp",
            "at::native::raw_cudnn_convolution_forward_out_32bit",
            "aten/src/ATen/native/cudnn/Conv_v7.cpp:91",
            "call",
            None,
        ),
        ("vendor", "cudnnConvolutionForward", None, "call", None),
    ]
    assert frames[-1]["site"] == {"path": "aten/src/ATen/native/cudnn/Conv_v7.cpp", "line": 110}
    assert frames[4]["site"] == {"path": "torch/nn/modules/conv.py", "line": 239}
    # The bias is added by a kernel launch on the emulated device.
    add = chain(
        frames[10],
        [
            "at::native::_convolution",
            "aten::add.Tensor",
            "at::native::structured_add_out::impl",
            "at::native::add_kernel_cuda",
            "at::native::add_broadcast_kernel",
        ],
    )
    assert (add[-1]["layer"], add[-1]["reach"], add[-1]["site"]) == (
        "cuda",
        "launch",
        {"path": "aten/src/ATen/native/cuda/BinaryAddKernel.cu", "line": 41},
    )


def test_conv2d_on_the_cpu_device_takes_the_cpu_kernel_path():
    run = run_json("--backend-device", "cpu", "-c", CONV2D)
    assert run["device"] == "cpu"
    frames = chain(
        run["tree"],
        [
            "aten::_convolution",
            "at::native::_convolution",
            "aten::_slow_conv2d_forward",
            "at::native::slow_conv2d_forward_cpu",
        ],
    )
    assert hops(frames[2:]) == [
        ("yaml", "aten::_slow_conv2d_forward", "aten/src/ATen/native/native_functions.yaml:200", "call", None),
        (
            "cpp",
            "at::native::slow_conv2d_forward_cpu",
            "aten/src/ATen/native/ConvolutionMM2d.cpp:101",
            "dispatch",
            "CPU",
        ),
    ]
    assert "cudnnConvolutionForward" not in json.dumps(run["tree"])


@pytest.mark.parametrize(
    ("device", "code", "confirmed", "not_taken"),
    [
        # on cuda, select_conv_backend returns at use_cudnn: params.use_mkldnn and params.is_dilated
        # (Convolution.cpp:164, 168), methods of its `const ConvParams& params`, are not taken; nor are the
        # deleters empty_cpu and empty_cuda hand to a storage (EmptyTensor.cpp:34, cuda/EmptyTensor.cpp:27),
        # which run when it is freed, nor a lambda handed to for_each_offset that the run's copies do not pass
        ("cuda", CONV2D, 107, 24),
        ("cpu", CONV2D, 76, 23),
        ("cuda", LINEAR, 64, 14),
        ("cpu", LINEAR, 44, 11),
        # on the cpu, `input.is_cuda() && ...` (Normalization.cpp:163) stops before
        # detail::getCUDAHooks().compiledWithCuDNN() (165): CUDAHooksInterface's method, and CUDAHooks'
        # override, are not taken
        ("cuda", BATCHNORM, 80, 18),
        ("cpu", BATCHNORM, 61, 19),
    ],
)
def test_the_static_graph_explains_every_call_of_conv2d_linear_and_batchnorm(device, code, confirmed, not_taken):
    comparison = run_json("--backend-device", device, "--compare", "-c", code)["comparison"]
    assert comparison["dynamic_only"] == []
    assert (len(comparison["confirmed"]), len(comparison["not_taken"])) == (confirmed, not_taken)


def test_the_comparison_names_the_branch_not_taken(conv2d_cuda):
    comparison = conv2d_cuda["comparison"]
    not_taken = {(item["caller"], item["callee"]) for item in comparison["not_taken"]}
    assert ("at::native::_convolution", "aten::mkldnn_convolution") in not_taken
    assert ("at::native::_convolution", "aten::_slow_conv2d_forward") in not_taken
    taken = next(item["taken"] for item in comparison["not_taken"] if item["callee"] == "aten::mkldnn_convolution")
    assert "aten::cudnn_convolution" in taken
    confirmed = {(edge["caller"], edge["callee"], edge["static_kind"]) for edge in comparison["confirmed"]}
    assert ("torch.nn.modules.conv.Conv2d._conv_forward", "torch._C._VariableFunctions.conv2d", "call") in confirmed
    assert ("aten::cudnn_convolution", "at::native::cudnn_convolution", "dispatch:CUDA") in confirmed
    assert ("at::native::raw_cudnn_convolution_forward_out_32bit", "cudnnConvolutionForward", "call") in confirmed


def test_filters_depth_and_the_native_event_cap():
    run = run_json("--include", "at::native", "--max-depth", "2", "-c", CONV2D)
    # the factories of the parameters (on the CPU), .to('cuda') and randn, then the forward;
    # identical neighbours left by the filter are folded
    assert [(c["name"], c.get("calls", 1), [g["name"] for g in c["children"]]) for c in run["tree"]["children"]] == [
        ("at::native::empty_cpu", 4, []),
        ("at::native::empty_cuda", 1, []),
        ("at::native::empty_cpu", 1, []),
        ("at::native::empty_cuda", 1, []),
        ("at::native::empty_cpu", 1, []),
        ("at::native::empty_cuda", 1, []),
        ("at::native::empty_cpu", 1, []),
        ("at::native::conv2d_symint", 1, ["at::native::convolution"]),
    ]
    excluded = json.dumps(run_json("--exclude", "torch.nn.modules.module.Module._call_impl", "-c", CONV2D)["tree"])
    assert "cudnnConvolutionForward" not in excluded and "Conv2d.__init__" in excluded
    capped = run_json("--max-events", "50", "-c", CONV2D)
    assert any(note.startswith("native events capped at 50 (--max-events): ") for note in capped["notes"])


def test_the_text_tree_and_an_svg_diagram(tmp_path):
    result = invoke(["run", "--compare", "-c", LINEAR])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].startswith(
        "python -c 'import torch; m = torch.nn.Linear(5, 4); m(torch.randn(3, 5))'  (bundled runtime, device as written;"
    )
    assert any(
        line.endswith(
            "cpp     at::native::linear  aten/src/ATen/native/Linear.cpp:9  ← dispatch:CompositeImplicitAutograd, at <generated>/RegisterCompositeImplicitAutograd.cpp:57"
        )
        for line in lines
    )
    assert any(
        "compared with the static call graph (backend all):" in line and ", 0 dynamic only," in line for line in lines
    )
    if shutil.which("dot") is not None:
        svg = tmp_path / "run.svg"
        drawn = invoke(["run", "--compare", "--format", "svg", "-o", str(svg), "-c", LINEAR])
        assert drawn.exit_code == 0 and drawn.stdout.startswith(f"wrote {svg} (")
        assert "aten::addmm" in svg.read_text()


def test_a_caller_that_took_none_of_its_edges_says_so():
    # Tensor::contiguous (Tensor.cpp:50) returns *this for a contiguous tensor: clone, at line
    # 52, is not taken, and nothing else it calls is recorded (is_contiguous is inline,
    # TensorBody.h:46); the line said "taken:" and no more
    result = invoke(["run", "--compare", "-c", CONV2D])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    at = lines.index("  at::Tensor::contiguous")
    assert lines[at + 1 : at + 3] == [
        "    not taken: at::Tensor::clone (call)  at aten/src/ATen/core/Tensor.cpp:52",
        "    taken:     nothing the run recorded",
    ]


def test_trace_dynamic_compares_the_static_trace_with_a_run():
    result = invoke(["trace", "torch.nn.Conv2d", "--to", "cudnnConvolutionForward", "--dynamic", CONV2D])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    summary = next(line for line in lines if line.startswith("compared with the static call graph"))
    assert ", 0 dynamic only, " in summary
    at = lines.index("  at::native::_convolution")
    assert (
        lines[at + 1] == "    not taken: aten::mkldnn_convolution (call)  at aten/src/ATen/native/Convolution.cpp:268"
    )
    bad = invoke(["trace", "torch.nn.Conv2d", "--json", "--dynamic", CONV2D])
    assert bad.exit_code == 2 and bad.output.strip().endswith(
        "--dynamic prints the comparison as text; it does not combine with --json or --format"
    )
