"""`explorer run --python`: programs on real PyTorch, traced with sys.setprofile and the
PyTorch profiler (explorer/runtime/profiler.py).

Three kinds of tests:
- the merge of calls and operators on recordings written here by hand: always run;
- runs of real programs with this interpreter, when it has torch 2.13.0 (the lines below are
  those of that wheel). Whether it has is asked in a subprocess: this process must never
  import real torch, since other tests import the bundled `torch` of sample_repo;
- the same with --root at a PyTorch 2.4.0 source tree named by EXPLORER_REAL_TORCH (opt-in,
  as in test_real_torch.py): the C++ kernels between operators.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from explorer.errors import ExplorerError, UsageError
from explorer.index import IndexReader, WalkOptions, refresh
from explorer.index.store import IndexStore
from explorer.model import Layer, Tree
from explorer.runtime.events import CALL, RETURN, PythonCode, PythonRecording
from explorer.runtime.model import Reach, RunFrame, RunTrace
from explorer.runtime.profile_events import C_CALL, C_RETURN, ProfileRecording, ProfilerEvent
from explorer.runtime.profile_naming import Locator
from explorer.runtime.profiler import build_trace, run_profiled
from explorer.runtime.request import RunRequest
from explorer.runtime.torch_install import TorchInstall, probe_torch
from explorer.workspace import open_installed
from tests.places import path_line

PINNED = "2.13.0"
YAML = "torchgen/packaged/ATen/native/native_functions.yaml"
CONV = "import torch; m = torch.nn.Conv2d(3, 8, 3); m(torch.randn(2, 3, 16, 16))"
LINEAR = "import torch; l = torch.nn.Linear(4, 3); l(torch.randn(2, 4))"


def row(frame: RunFrame) -> tuple[object, ...]:
    """What a frame says, without its children."""
    return (frame.name, frame.layer, frame.path, frame.line, frame.reach, frame.key, frame.calls)


def child(frame: RunFrame, name: str) -> RunFrame:
    found = [c for c in frame.children if c.name == name]
    assert len(found) == 1, f"{name} under {frame.name}: {[c.name for c in frame.children]}"
    return found[0]


def descend(frame: RunFrame, *names: str) -> list[RunFrame]:
    """The frames named, each a child of the one before, starting under `frame`."""
    chain = []
    for name in names:
        frame = child(frame, name)
        chain.append(frame)
    return chain


def every_frame(frame: RunFrame) -> Iterator[RunFrame]:
    yield frame
    for c in frame.children:
        yield from every_frame(c)


# -- the merge, on recordings written by hand ----------------------------------------------

WALL = 1_000_000  # the profiler's clock runs this far ahead of the Recorder's in these tests
SITE = "/site-packages"


def install(cuda: bool = False) -> TorchInstall:
    return TorchInstall("python3", "2.13.0", f"{SITE}/torch", cuda, None)


def python_recording(codes: list[PythonCode], events: list[tuple[int, int, int, int, int]]) -> PythonRecording:
    return PythonRecording(codes, events, exit_code=0, error=None, capped=False, max_events=1000)


def profile_recording(builtins: list[str], events: list[ProfilerEvent], end: int = 10_000) -> ProfileRecording:
    return ProfileRecording(
        builtins=builtins,
        imports=0,
        program_end=end,
        profiling_end=end,
        started=True,
        error=None,
        overload_names=True,
        clock_start=(0, WALL),
        clock_end=(end, WALL + end),
        trace_start=WALL + 10,
        events=events,
    )


def operator(name: str, start: int, end: int, correlation: int, overload: str = "", thread: int = 1) -> ProfilerEvent:
    """A CPU operator, its times on the Recorder's clock (written on the profiler's)."""
    return ProfilerEvent(name, overload, "cpu_op", "cpu", WALL + start, WALL + end, thread, correlation, 0)


PROGRAM = PythonCode("<string>", "<module>", 1, "__main__")
RELU = PythonCode(f"{SITE}/torch/nn/functional.py", "relu", 10, "torch.nn.functional")
HOOK = PythonCode("<string>", "hook", 3, "__main__")


def trace(
    codes: list[PythonCode],
    events: list[tuple[int, int, int, int, int]],
    builtins: list[str],
    profiled: list[ProfilerEvent],
    store: IndexStore | None = None,
    cuda: bool = False,
) -> RunTrace:
    request = RunRequest(code="...", script=None, argv=(), root="/nonexistent", python="python3")
    return build_trace(
        request, install(cuda), store, python_recording(codes, events), profile_recording(builtins, profiled)
    )


def test_an_operator_goes_under_the_builtin_call_it_ran_in_once_the_clocks_agree():
    found = trace(
        [PROGRAM, RELU],
        [
            (CALL, 100, 0, 0, 1),
            (CALL, 200, 1, 1, 1),
            (C_CALL, 300, 0, 12, 0),
            (C_RETURN, 900, 0, 0, 0),
            (C_CALL, 920, 1, 13, 0),
            (C_RETURN, 930, 1, 0, 0),
            (RETURN, 950, 1, 0, 0),
            (RETURN, 1000, 0, 0, 0),
        ],
        ["torch._C._VariableFunctions.relu", "torch._C.TensorBase.size"],
        [
            operator("aten::relu", 400, 800, 1),
            operator("aten::clamp_min", 450, 700, 2),
            operator("aten::empty", 460, 500, 3, overload="memory_format"),
        ],
    )
    (program_call,) = trace_root_children(found)
    assert row(program_call) == (
        "torch.nn.functional.relu",
        Layer.PYTHON,
        "torch/nn/functional.py",
        10,
        Reach.CALL,
        None,
        1,
    )
    assert path_line(program_call.site) == ("<string>", 1)
    # Tensor.size ran no operator: no frame
    (binding,) = program_call.children
    assert (binding.name, binding.layer, binding.reach, path_line(binding.site)) == (
        "torch._C._VariableFunctions.relu",
        Layer.BINDING,
        Reach.BINDING,
        ("torch/nn/functional.py", 12),
    )
    (relu,) = binding.children
    (clamp,) = relu.children
    (empty,) = clamp.children
    assert [(f.name, f.layer, f.reach) for f in (relu, clamp, empty)] == [
        ("aten::relu", Layer.YAML, Reach.PROFILED),
        ("aten::clamp_min", Layer.YAML, Reach.PROFILED),
        ("aten::empty.memory_format", Layer.YAML, Reach.PROFILED),
    ]
    assert found.notes[0].startswith("no --root")
    assert found.native_events == 3


def trace_root_children(found: RunTrace) -> tuple[RunFrame, ...]:
    assert (found.root.name, found.root.layer) == ("<string>", Layer.PYTHON)
    return found.root.children


def test_a_nested_function_is_named_as_the_index_names_its_definition():
    # Python's __qualname__ says `outer.<locals>.inner`; the index (and the bundled runtime's
    # runs) say `outer.inner`: a run's name must be one a query finds
    inner = PythonCode(
        f"{SITE}/torch/nn/modules/module.py", "Module.__setattr__.<locals>.remove_from", 1972, "torch.nn.modules.module"
    )
    found = trace(
        [PROGRAM, inner],
        [(CALL, 100, 0, 0, 1), (CALL, 200, 1, 1, 1), (RETURN, 300, 1, 0, 0), (RETURN, 1000, 0, 0, 0)],
        [],
        [],
    )
    (nested,) = trace_root_children(found)
    assert (nested.name, nested.path, path_line(nested.site)) == (
        "torch.nn.modules.module.Module.__setattr__.remove_from",
        "torch/nn/modules/module.py",
        ("<string>", 1),
    )


def test_python_called_back_from_inside_an_operator_goes_under_that_operator():
    found = trace(
        [PROGRAM, HOOK],
        [
            (CALL, 100, 0, 0, 1),
            (C_CALL, 200, 0, 5, 0),
            (CALL, 400, 1, 0, 1),
            (C_CALL, 420, 1, 4, 0),
            (C_RETURN, 480, 1, 0, 0),
            (RETURN, 500, 1, 0, 0),
            (C_RETURN, 900, 0, 0, 0),
            (RETURN, 1000, 0, 0, 0),
        ],
        ["torch._C._EngineBase.run_backward", "torch._C.TensorBase.mul"],
        [
            operator("autograd::engine::evaluate_function: MulBackward0", 300, 600, 1),
            operator("MulBackward0", 310, 590, 2),
            operator("aten::mul", 430, 470, 3, overload="Tensor"),
        ],
    )
    (backward,) = trace_root_children(found)
    assert backward.name == "torch._C._EngineBase.run_backward"
    (node,) = backward.children  # the evaluate_function wrapper is folded away
    assert row(node) == ("MulBackward0", Layer.CPP, None, None, Reach.PROFILED, None, 1)
    (hook,) = node.children
    assert (hook.name, path_line(hook.site)) == ("__main__.hook", None)
    (mul_binding,) = hook.children
    assert [c.name for c in mul_binding.children] == ["aten::mul.Tensor"]
    assert not any("clocks disagreed" in note for note in found.notes)


def test_another_threads_operators_go_under_a_builtin_waiting_for_them_or_nowhere():
    found = trace(
        [PROGRAM],
        [(CALL, 100, 0, 0, 1), (C_CALL, 200, 0, 2, 0), (C_RETURN, 900, 0, 0, 0), (RETURN, 1000, 0, 0, 0)],
        ["torch._C._EngineBase.run_backward"],
        [
            operator("aten::ones_like", 150, 180, 1),  # the program's thread: its first operator came first
            operator("aten::mm", 300, 400, 2, thread=7),  # the device thread, while run_backward waited
            operator("aten::add", 950, 960, 3, overload="Tensor", thread=7),
        ],  # nobody waited for it
    )
    assert [(f.name, [c.name for c in f.children]) for f in trace_root_children(found)] == [
        ("aten::ones_like", []),
        ("torch._C._EngineBase.run_backward", ["aten::mm"]),
    ]
    assert "1 operators ran on other threads while no torch call waited for them: not shown" in found.notes


def test_a_builtin_found_inside_its_own_operator_is_reported_as_a_clock_disagreement():
    found = trace(
        [PROGRAM],
        [(CALL, 100, 0, 0, 1), (C_CALL, 300, 0, 2, 0), (C_RETURN, 900, 0, 0, 0), (RETURN, 1000, 0, 0, 0)],
        ["torch._C._VariableFunctions.relu"],
        [operator("aten::relu", 290, 800, 1)],  # 10 ns before the c_call: impossible on one clock
    )
    assert any("clocks disagreed" in note for note in found.notes)


@pytest.fixture(scope="module")
def gpu_trace(sample_store: IndexStore) -> RunTrace:
    """A CUDA run, made up: cudnn_convolution launched a kernel and ran aten::empty, which
    launched nothing; a top-level aten::empty launched nothing either."""
    kernel = "void at::native::relu_cuda_kernel(float const*, float*, long)"
    return trace(
        [PROGRAM],
        [(CALL, 100, 0, 0, 1), (C_CALL, 200, 0, 1, 0), (C_RETURN, 900, 0, 0, 0), (RETURN, 1000, 0, 0, 0)],
        ["torch._C._VariableFunctions.relu"],
        [
            operator("aten::cudnn_convolution", 300, 600, 1),
            operator("aten::empty", 310, 320, 2, overload="memory_format"),
            ProfilerEvent(kernel, "", "kernel", "cuda", WALL + 700, WALL + 750, 0, 99, 1),
            ProfilerEvent("cudaLaunchKernel", "", "cuda_runtime", "cpu", WALL + 400, WALL + 410, 1, 99, 1),
            ProfilerEvent(kernel, "", "kernel", "cuda", WALL + 760, WALL + 770, 0, 98, 1),
            operator("aten::empty", 950, 960, 3, overload="memory_format"),
        ],
        store=sample_store,
        cuda=True,
    )


def test_an_operator_that_launched_a_kernel_ran_its_cuda_kernel_and_so_did_what_it_ran(gpu_trace: RunTrace):
    binding, empty = trace_root_children(gpu_trace)
    (convolution,) = binding.children
    assert row(convolution) == (
        "aten::cudnn_convolution",
        Layer.YAML,
        "aten/src/ATen/native/native_functions.yaml",
        88,
        Reach.PROFILED,
        None,
        1,
    )
    (kernel,) = convolution.children
    # of the two definitions (cuDNN and the placeholder raising 'not compiled with cuDNN'), the one doing the work
    assert row(kernel) == (
        "at::native::cudnn_convolution",
        Layer.CPP,
        "aten/src/ATen/native/cudnn/ConvShared.cpp",
        65,
        Reach.DISPATCH,
        "CUDA",
        1,
    )
    assert path_line(kernel.site) == ("aten/src/ATen/native/native_functions.yaml", 90)
    inner_empty, launched = kernel.children
    assert [row(c) for c in child(inner_empty, "at::native::empty_cuda").children] == []
    assert child(inner_empty, "at::native::empty_cuda").key == "CUDA"
    # two launches of one kernel, folded
    assert row(launched) == (
        "at::native::relu_cuda_kernel",
        Layer.CUDA,
        "aten/src/ATen/native/cuda/Activation.cu",
        11,
        Reach.LAUNCH,
        None,
        2,
    )
    # the top-level empty launched nothing and ran under nothing that did: its device is unknown
    assert (empty.name, empty.children) == ("aten::empty.memory_format", ())
    assert any(note.startswith("1 operators launched no device work") for note in gpu_trace.notes)
    assert gpu_trace.native_events == 5


def test_a_decorated_function_is_located_at_its_def_line_as_the_index_does(tmp_path: Path):
    source = tmp_path / "torch" / "m.py"
    source.parent.mkdir()
    source.write_text(
        "import functools\n\n@functools.lru_cache(\n    maxsize=2)\ndef f():\n    pass\n", encoding="utf-8"
    )
    locator = Locator(TorchInstall("python3", "2.13.0", str(tmp_path / "torch"), False, None), None)
    # co_firstlineno is the decorator's line, 3
    assert (locator.python_path(str(source)), locator.definition_line(str(source), 3)) == ("torch/m.py", 5)


# -- the interpreter -----------------------------------------------------------------------


def test_a_missing_interpreter_is_a_usage_error(tmp_path: Path):
    request = RunRequest(
        code="pass", script=None, argv=(), root=str(tmp_path), python=str(tmp_path / "nope" / "python")
    )
    with pytest.raises(UsageError, match="no such interpreter"):
        run_profiled(request, None)


def test_an_interpreter_without_torch_is_an_error_naming_torch(tmp_path: Path):
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True)
    python = str(tmp_path / "venv" / "bin" / "python")
    request = RunRequest(code="pass", script=None, argv=(), root=str(tmp_path), python=python)
    with pytest.raises(ExplorerError) as raised:
        run_profiled(request, None)
    assert not isinstance(raised.value, UsageError) and raised.value.exit_code == 1
    assert str(raised.value) == f"--python {python}: cannot import torch (ModuleNotFoundError: No module named 'torch')"


# -- real runs -----------------------------------------------------------------------------


@pytest.fixture(scope="session")
def real_torch() -> TorchInstall:
    try:
        found = probe_torch(sys.executable)
    except ExplorerError as error:
        pytest.skip(f"no real PyTorch here: {error}")
    if found.version.split("+")[0] != PINNED:
        pytest.skip(f"the expected lines are those of torch {PINNED}, not {found.version}")
    return found


@pytest.fixture(scope="session")
def wheel(real_torch: TorchInstall, tmp_path_factory: pytest.TempPathFactory) -> Iterator[IndexReader]:
    """The index of the interpreter's torch distribution, as `explorer run --python` without
    --root opens it (workspace.open_installed), in a cache folder of its own."""

    def refresh_tree(tree: Tree, index_path: Path, options: WalkOptions | None, leave_out: frozenset[str]) -> None:
        refresh(tree.root, index_path, options=options, leave_out=leave_out)

    with ExitStack() as stack:
        with pytest.MonkeyPatch.context() as patch:  # only while it is built and opened
            patch.setenv("EXPLORER_CACHE_DIR", str(tmp_path_factory.mktemp("wheel-cache")))
            reader = stack.enter_context(open_installed(real_torch.python, "torch", refresh_tree))
        assert reader is not None
        yield reader


def run(
    code: str,
    store: IndexStore | None = None,
    root: str = "/nonexistent",
    wheel: IndexReader | None = None,
    **options: object,
) -> RunTrace:
    request = RunRequest(code=code, script=None, argv=(), root=root, python=sys.executable, **options)  # type: ignore[arg-type]
    return run_profiled(request, store, wheel)


@pytest.fixture(scope="module")
def conv_trace(wheel: IndexReader) -> RunTrace:
    return run(CONV, wheel=wheel)


@pytest.fixture(scope="module")
def linear_trace(wheel: IndexReader) -> RunTrace:
    return run(LINEAR, wheel=wheel)


CONV_CHAIN = [
    (
        "torch.nn.modules.module.Module._wrapped_call_impl",
        Layer.PYTHON,
        "torch/nn/modules/module.py",
        1774,
        Reach.CALL,
        None,
        1,
    ),
    (
        "torch.nn.modules.module.Module._call_impl",
        Layer.PYTHON,
        "torch/nn/modules/module.py",
        1782,
        Reach.CALL,
        None,
        1,
    ),
    ("torch.nn.modules.conv.Conv2d.forward", Layer.PYTHON, "torch/nn/modules/conv.py", 564, Reach.CALL, None, 1),
    ("torch.nn.modules.conv.Conv2d._conv_forward", Layer.PYTHON, "torch/nn/modules/conv.py", 546, Reach.CALL, None, 1),
    (
        "torch._C._VariableFunctions.conv2d",
        Layer.BINDING,
        "torch/_C/_VariableFunctions.pyi",
        9797,
        Reach.BINDING,
        None,
        1,
    ),
    ("aten::conv2d", Layer.YAML, YAML, 1701, Reach.PROFILED, None, 1),
    ("aten::convolution", Layer.YAML, YAML, 1662, Reach.PROFILED, None, 1),
    ("aten::_convolution", Layer.YAML, YAML, 1684, Reach.PROFILED, None, 1),
    # torch 2.13.0's CPU build runs a float32 Conv2d with oneDNN (mkldnn)
    ("aten::mkldnn_convolution", Layer.YAML, YAML, 3998, Reach.PROFILED, None, 1),
]


def test_conv2d_runs_from_the_module_call_down_to_the_mkldnn_operator(conv_trace: RunTrace):
    chain = descend(conv_trace.root, *(name for name, *_ in CONV_CHAIN))
    assert [row(frame) for frame in chain] == CONV_CHAIN
    assert [path_line(frame.site) for frame in chain[:5]] == [
        ("<string>", 1),
        ("torch/nn/modules/module.py", 1778),
        ("torch/nn/modules/module.py", 1789),
        ("torch/nn/modules/conv.py", 565),
        ("torch/nn/modules/conv.py", 560),
    ]
    assert [row(frame) for frame in chain[-1].children] == [
        ("aten::empty.memory_format", Layer.YAML, YAML, 2323, Reach.PROFILED, None, 2),
        ("aten::as_strided_", Layer.YAML, YAML, 929, Reach.PROFILED, None, 1),
        ("aten::resize_", Layer.YAML, YAML, 2396, Reach.PROFILED, None, 1),
    ]


def test_the_program_level_of_the_conv2d_run(conv_trace: RunTrace):
    assert (conv_trace.root.name, conv_trace.root.path, conv_trace.root.line) == ("<string>", "<string>", None)
    assert [(f.name, f.reach) for f in conv_trace.root.children] == [
        ("torch", Reach.IMPORT),  # `import torch`: one frame, nothing of what it ran
        ("torch.nn.modules.conv.Conv2d.__init__", Reach.CALL),
        ("torch._C._VariableFunctions.randn", Reach.BINDING),
        ("torch.nn.modules.module.Module._wrapped_call_impl", Reach.CALL),
    ]
    assert child(conv_trace.root, "torch").children == ()
    randn = child(conv_trace.root, "torch._C._VariableFunctions.randn")
    assert [(f.name, [c.name for c in f.children]) for f in randn.children] == [
        ("aten::randn", ["aten::empty.memory_format", "aten::normal_"]),
    ]
    assert conv_trace.notes == (
        "no --root: operators are not mapped to their C++ kernels (give --root with a PyTorch source tree)",
    )
    assert conv_trace.exit_code == 0 and conv_trace.runtime == sys.executable


def test_the_trace_shows_neither_the_profiler_nor_the_recorder(conv_trace: RunTrace):
    frames = list(every_frame(conv_trace.root))
    assert not [f.name for f in frames if "profil" in f.name or "bootstrap" in f.name]
    assert {f.path.split("/")[0] for f in frames if f.layer is Layer.PYTHON and f.path} == {"<string>", "torch"}
    # the import of torch is one frame; none of the calls it made is there
    assert not [f for f in frames if f.path == "torch/__init__.py" and f.reach is not Reach.IMPORT]


def test_yaml_lines_are_the_func_entries_of_the_wheels_native_functions(conv_trace: RunTrace, real_torch: TorchInstall):
    lines = (Path(real_torch.site) / YAML).read_text(encoding="utf-8").splitlines()
    operators = [f for f in every_frame(conv_trace.root) if f.layer is Layer.YAML]
    assert len(operators) > 10
    for frame in operators:
        assert frame.path == YAML and frame.line is not None
        base, _, overload = frame.name.removeprefix("aten::").partition(".")
        assert lines[frame.line - 1].startswith(f"- func: {base}{'.' + overload if overload else ''}("), frame.name


def test_linear_runs_its_functional_binding_then_addmm(linear_trace: RunTrace):
    chain = descend(
        linear_trace.root,
        "torch.nn.modules.module.Module._wrapped_call_impl",
        "torch.nn.modules.module.Module._call_impl",
        "torch.nn.modules.linear.Linear.forward",
        "torch._C._nn.linear",
        "aten::linear",
    )
    assert [row(frame) for frame in chain[2:]] == [
        (
            "torch.nn.modules.linear.Linear.forward",
            Layer.PYTHON,
            "torch/nn/modules/linear.py",
            130,
            Reach.CALL,
            None,
            1,
        ),
        ("torch._C._nn.linear", Layer.BINDING, "torch/_C/_nn.pyi", 120, Reach.BINDING, None, 1),
        ("aten::linear", Layer.YAML, YAML, 3287, Reach.PROFILED, None, 1),
    ]
    t, addmm = chain[-1].children
    assert [row(f) for f in (t, child(t, "aten::transpose.int"), addmm)] == [
        ("aten::t", Layer.YAML, YAML, 5904, Reach.PROFILED, None, 1),
        ("aten::transpose.int", Layer.YAML, YAML, 6032, Reach.PROFILED, None, 1),
        ("aten::addmm", Layer.YAML, YAML, 6942, Reach.PROFILED, None, 1),
    ]
    assert [f.name for f in addmm.children] == ["aten::expand", "aten::copy_", "aten::resolve_conj"]


def test_a_capped_failing_program_keeps_its_trace_and_says_why(real_torch: TorchInstall):
    found = run("import torch\nfor i in range(50):\n    torch.ones(2)\nraise SystemExit(3)", max_events=20)
    assert found.exit_code == 3 and found.python_events <= 22
    # past the cap the profiler is stopped too: no operators without their Python callers
    assert [(f.name, f.calls) for f in found.root.children] == [
        ("torch", 1),
        ("torch._C._VariableFunctions.ones", 9),
    ]
    assert found.notes[1:] == (
        "Python events capped at 20 (--max-events): later Python calls are not shown",
        "the program exited with code 3",
    )


def test_a_lazy_import_during_the_program_keeps_every_operator_and_the_profiler_quiet(real_torch: TorchInstall):
    # print() of a tensor imports torch._tensor_str: that import once started a second
    # profiler, which ended the first and dropped randn and sign. The profiler's own lines
    # (kineto's `USDT: ... profiler_start`) once came out among the program's.
    command = [
        sys.executable,
        "-m",
        "explorer.cli",
        "run",
        "--python",
        sys.executable,
        "-c",
        "import torch; x = torch.randn(3); y = torch.sign(x); print(y.abs())",
    ]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "EXPLORER_ROOT": str(Path(__file__).resolve().parents[1] / "sample_repo")},
    )
    assert done.returncode == 0, done.stderr
    top = [line for line in done.stdout.splitlines() if line.startswith(("├── ", "└── "))]
    assert [line.split()[1:3] for line in top[:3]] == [
        ["python", "import"],
        ["binding", "torch._C._VariableFunctions.randn"],
        ["binding", "torch._C._VariableFunctions.sign"],
    ]
    assert "aten::randn" in done.stdout and "aten::sign" in done.stdout
    assert "USDT" not in done.stdout + done.stderr and "profiler_start" not in done.stdout + done.stderr
    # the program's own output goes to standard error, apart from the tree
    assert "tensor([1., 1., 1.])" not in done.stdout
    assert "tensor([1., 1., 1.])" in done.stderr.splitlines()


def test_run_joins_other_trees_and_reads_the_program_s_own_environment(real_torch: TorchInstall, tmp_path: Path):
    # A user's project beside a PyTorch source tree (here the bundled one): the operators its
    # program ran are found in the tree joined with --tree, as a query would find them.
    sample = Path(__file__).resolve().parents[1] / "sample_repo"
    (tmp_path / "main.py").write_text(
        "import torch\n\n\ndef step(x):\n    return torch.relu(x)\n\n\nstep(torch.randn(4))\n"
    )
    command = [
        sys.executable,
        "-m",
        "explorer.cli",
        "run",
        "--python",
        sys.executable,
        "--root",
        str(tmp_path),
        "--tree",
        str(sample),
        "--",
        "main.py",
    ]
    env = {key: value for key, value in os.environ.items() if key not in ("EXPLORER_ROOT", "EXPLORER_PYTHON_ENV")}
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    lines = [" ".join(line.split()) for line in done.stdout.splitlines()]
    step = lines.index("└── python __main__.step main.py:4 ← at main.py:8")
    assert [line.lstrip("│ └─├") for line in lines[step + 1 : step + 4]] == [
        f"binding torch._C._VariableFunctions.relu {sample}/torch/_C/_VariableFunctions.pyi:36 ← binding, at main.py:5",
        f"yaml aten::relu {sample}/aten/src/ATen/native/native_functions.yaml:123 ← profiled",
        f"cpp at::native::relu {sample}/aten/src/ATen/native/Activation.cpp:11 ← dispatch:CPU, at "
        f"{sample}/aten/src/ATen/native/native_functions.yaml:127",
    ]
    # --python's environment is the project's: its torch is seen, and hidden by the tree's own
    assert f"note: torch {real_torch.version} installed in" in done.stderr
    assert f"is not read: sample_repo at {sample} provides torch" in done.stderr


def test_cuda_where_there_is_none_is_an_error(real_torch: TorchInstall):
    if real_torch.cuda:
        pytest.skip("this machine has CUDA")
    with pytest.raises(ExplorerError, match=r"--backend-device cuda: .* has no CUDA device"):
        run("pass", device="cuda")


# -- real runs against the PyTorch 2.4.0 source tree ---------------------------------------


@pytest.mark.real_torch
def test_with_root_each_operator_runs_its_kernel_for_the_cpu(
    real_torch: TorchInstall, real_tree: tuple[str, IndexStore]
):
    root, store = real_tree
    found = run(CONV, store, root)
    yaml = "aten/src/ATen/native/native_functions.yaml"
    path = [name for name, *_ in CONV_CHAIN[:5]]
    binding = descend(found.root, *path)[-1]
    kernels = descend(
        binding,
        "aten::conv2d",
        "at::native::conv2d_symint",
        "aten::convolution",
        "at::native::convolution",
        "aten::_convolution",
        "at::native::_convolution",
        "aten::mkldnn_convolution",
        "at::native::mkldnn_convolution",
    )
    assert [(f.name, f.layer, f.path, f.line, f.reach, f.key, path_line(f.site)) for f in kernels] == [
        ("aten::conv2d", Layer.YAML, yaml, 1707, Reach.PROFILED, None, None),
        (
            "at::native::conv2d_symint",
            Layer.CPP,
            "aten/src/ATen/native/Convolution.cpp",
            945,
            Reach.DISPATCH,
            "CompositeImplicitAutograd",
            (yaml, 1709),
        ),
        ("aten::convolution", Layer.YAML, yaml, 1668, Reach.PROFILED, None, None),
        (
            "at::native::convolution",
            Layer.CPP,
            "aten/src/ATen/native/Convolution.cpp",
            1178,
            Reach.DISPATCH,
            "CompositeExplicitAutograd",
            (yaml, 1670),
        ),
        ("aten::_convolution", Layer.YAML, yaml, 1690, Reach.PROFILED, None, None),
        # of the two overloads, the one taking the operator's 13 arguments
        (
            "at::native::_convolution",
            Layer.CPP,
            "aten/src/ATen/native/Convolution.cpp",
            1521,
            Reach.DISPATCH,
            "CompositeExplicitAutograd",
            (yaml, 1692),
        ),
        ("aten::mkldnn_convolution", Layer.YAML, yaml, 4038, Reach.PROFILED, None, None),
        # of the two sides of `#if AT_MKLDNN_ENABLED()`, the one that does the work
        (
            "at::native::mkldnn_convolution",
            Layer.CPP,
            "aten/src/ATen/native/mkldnn/Conv.cpp",
            324,
            Reach.DISPATCH,
            "CompositeExplicitAutograd",
            (yaml, 4040),
        ),
    ]
    empty = child(kernels[-1], "aten::empty.memory_format")
    assert [(f.name, f.path, f.line, f.key) for f in empty.children] == [
        ("at::native::empty_cpu", "aten/src/ATen/native/TensorFactories.cpp", 255, "CPU"),
    ]
    assert found.notes == (
        "--root is PyTorch 2.4.0 but the program ran torch 2.13.0+cpu: operator and kernel locations are the tree's, "
        "Python lines the interpreter's",
    )


def test_without_a_source_tree_run_places_bindings_and_operators_in_the_wheel_s_index(
    real_torch: TorchInstall, tmp_path: Path
):
    # No --root: the interpreter's torch distribution is indexed once (its stubs and packaged
    # native_functions.yaml, the index a project importing torch is given) and read from there.
    command = [sys.executable, "-m", "explorer.cli", "run", "--python", sys.executable, "-c"]
    command.append("import torch; torch.relu(torch.ones(2))")
    env = {key: value for key, value in os.environ.items() if key not in ("EXPLORER_ROOT", "EXPLORER_PYTHON_ENV")}
    env["EXPLORER_CACHE_DIR"] = str(tmp_path / "cache")
    first = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
    assert first.returncode == 0, first.stderr
    lines = [" ".join(line.split()).lstrip("│└├─ ") for line in first.stdout.splitlines()]
    relu = lines.index(
        "binding torch._C._VariableFunctions.relu torch/_C/_VariableFunctions.pyi:24624 ← binding, at <string>:1"
    )
    # torch/_C/_VariableFunctions.pyi:24624 `def relu(input: Tensor) -> Tensor: ...`;
    # native_functions.yaml:5001 `- func: relu(Tensor self) -> Tensor`, 1565 `- func: clamp_min(...)`
    assert lines[relu + 1 : relu + 3] == [
        f"yaml aten::relu {YAML}:5001 ← profiled",
        f"yaml aten::clamp_min {YAML}:1565 ← profiled",
    ]
    indexed = [line for line in first.stderr.splitlines() if line.startswith("indexed torch ")]
    assert len(indexed) == 1 and indexed[0].startswith(f"indexed torch {real_torch.version}: ")
    # the second run reads the same index: nothing indexed, the same tree
    second = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
    assert second.returncode == 0 and "indexing" not in second.stderr and "indexed" not in second.stderr
    assert second.stdout == first.stdout
    assert [path.name.split("-")[0] for path in (tmp_path / "cache").glob("*.sqlite")] == ["torch"]


def test_a_wheel_index_that_cannot_be_written_is_said_and_the_run_goes_on(real_torch: TorchInstall, tmp_path: Path):
    # the cache folder under a file: the wheel's index cannot be built; the run still runs and
    # prints its tree, the bindings and operators unplaced (before the wheel was indexed, run
    # needed no cache folder at all)
    (tmp_path / "a file").write_text("")
    command = [sys.executable, "-m", "explorer.cli", "run", "--python", sys.executable, "-c"]
    command.append("import torch; torch.relu(torch.ones(2))")
    env = {key: value for key, value in os.environ.items() if key not in ("EXPLORER_ROOT", "EXPLORER_PYTHON_ENV")}
    env["EXPLORER_CACHE_DIR"] = str(tmp_path / "a file" / "cache")
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    notes = [line for line in done.stderr.splitlines() if line.startswith("note: cannot write the index at ")]
    assert len(notes) == 1 and notes[0].endswith("; the run's bindings and operators are shown without their places")
    lines = [" ".join(line.split()).lstrip("│└├─ ") for line in done.stdout.splitlines()]
    assert "binding torch._C._VariableFunctions.relu (no source) ← binding, at <string>:1" in lines
    assert "yaml aten::relu (no source) ← profiled" in lines
