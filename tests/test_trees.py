"""Several trees at once: a user project, source trees joined with --tree, and the installed
distributions its imports name, found in the project's Python environment.

The project here is a copy of the bundled sample_repo/mini_app; the source tree is sample_repo;
the "installed" torch is a wheel-like folder made from sample_repo's own Python and YAML (no
C++), with a dist-info folder. The hops are those test_bundled_extension.py read off the
bundled sources, now located in the tree that has them."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from explorer.analysis.trace import trace_symbol
from explorer.errors import UnknownSymbolError, UsageError
from explorer.folders import SAMPLE_ROOT
from explorer.index.build import refresh
from explorer.model import SymbolKind, TreeKind
from explorer.names.lookup import look_up
from explorer.resolve import CallGraph
from explorer.workspace import (
    Distribution,
    TreeRequest,
    Workspace,
    find_distributions,
    find_environment,
    open_workspace,
    source_version,
)
from explorer.workspace import environment as environment_module
from tests.command_line import invoke
from tests.places import path_line

SAMPLE = str(SAMPLE_ROOT)
OPS = f"{SAMPLE}/mini_ops/csrc"
MODULE = f"{SAMPLE}/torch/nn/modules/module.py"


def _refresh(tree, index_path, options, leave_out) -> None:
    refresh(tree.root, index_path, jobs=1, options=options, leave_out=leave_out)


@contextmanager
def workspace(root: Path, *trees: str, python: str | None = None) -> Iterator[Workspace]:
    with open_workspace(TreeRequest(str(root), None, trees, python), _refresh) as opened:
        yield opened


def hops(opened: Workspace, query: str, to: str, backend: str = "cuda") -> list[tuple]:
    report = trace_symbol(opened.reader, opened.root, query, to=to, backend=backend)
    assert report.trace.paths, f"no path from {query} to {to}"
    return [
        (
            h.node.symbol.qname,
            h.node.symbol.path,
            h.node.symbol.line,
            h.edge.label if h.edge else None,
            path_line(h.edge.site) if h.edge else None,
        )
        for h in report.trace.paths[0]
    ]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The user's project, outside every other tree: the bundled mini_app."""
    root = tmp_path / "project"
    shutil.copytree(SAMPLE_ROOT / "mini_app", root / "mini_app")
    return root


def make_wheel(site: Path, version: str = "9.9.0") -> Path:
    """An installed torch as a wheel lays it out: torch/ (Python and stubs), torchgen/'s
    packaged native_functions.yaml, a C++ header that must not be read, and dist-info."""
    site.mkdir(parents=True, exist_ok=True)
    for source in (SAMPLE_ROOT / "torch").rglob("*"):
        if source.suffix in (".py", ".pyi"):
            target = site / "torch" / source.relative_to(SAMPLE_ROOT / "torch")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
    packaged = site / "torchgen" / "packaged" / "ATen" / "native"
    packaged.mkdir(parents=True)
    shutil.copyfile(SAMPLE_ROOT / "aten/src/ATen/native/native_functions.yaml", packaged / "native_functions.yaml")
    (site / "torchgen" / "__init__.py").write_text("")
    (site / "torch" / "include" / "ATen").mkdir(parents=True)
    (site / "torch" / "include" / "ATen" / "Functions.h").write_text("namespace at { int conv2d(); }\n")
    info = site / f"torch-{version}.dist-info"
    info.mkdir()
    (info / "top_level.txt").write_text("torch\ntorchgen\n")
    (info / "RECORD").write_text("torch/__init__.py,,\ntorchgen/__init__.py,,\n")
    return site


@pytest.fixture
def environment(tmp_path: Path) -> Path:
    """A virtual environment folder with the wheel-like torch installed."""
    folder = tmp_path / "env"
    (folder).mkdir()
    (folder / "pyvenv.cfg").write_text("home = /usr/bin\n")
    make_wheel(folder / "lib" / "python3.11" / "site-packages")
    return folder


# -- the project beside a source tree --------------------------------------------------------


def test_the_project_reaches_kernels_in_a_joined_tree_each_hop_located_in_its_tree(project):
    into_forward = [
        ("mini_app.model.App", "mini_app/model.py", 10, None, None),
        ("torch.nn.modules.module.Module.__call__", MODULE, 233, "method", None),
        ("torch.nn.modules.module.Module._wrapped_call_impl", MODULE, 186, "alias", (MODULE, 233)),
        ("torch.nn.modules.module.Module._call_impl", MODULE, 189, "method", (MODULE, 187)),
        ("mini_app.model.App.forward", "mini_app/model.py", 16, "method", (MODULE, 198)),
    ]
    with workspace(project, SAMPLE) as opened:
        assert [(t.name, t.root, t.kind) for t in opened.trees] == [
            ("project", str(project), TreeKind.PROJECT),
            ("sample_repo", SAMPLE, TreeKind.SOURCE),
        ]
        # self.block(x) (model.py:18), where self.block = ScaledClamp(factor) (model.py:14)
        assert hops(opened, "mini_app.model.App", "clamp_add_kernel") == [
            *into_forward,
            ("torch.nn.modules.module.Module._wrapped_call_impl", MODULE, 186, "method", ("mini_app/model.py", 18)),
            ("torch.nn.modules.module.Module._call_impl", MODULE, 189, "method", (MODULE, 187)),
            ("mini_ops.layers.ScaledClamp.forward", f"{SAMPLE}/mini_ops/layers.py", 15, "method", (MODULE, 198)),
            ("mini_ops.ops.clamp_add", f"{SAMPLE}/mini_ops/ops.py", 17, "call", (f"{SAMPLE}/mini_ops/layers.py", 17)),
            ("mini_ops::clamp_add", f"{OPS}/ops.cpp", 30, "op_registration", (f"{SAMPLE}/mini_ops/ops.py", 19)),
            ("mini_ops::clamp_add_cuda", f"{OPS}/kernels.cu", 54, "dispatch:CUDA", (f"{OPS}/kernels.cu", 86)),
            ("mini_ops::clamp_add_kernel", f"{OPS}/kernels.cu", 22, "launch", (f"{OPS}/kernels.cu", 65)),
        ]
        # self.conv(x) (model.py:17), where self.conv = torch.nn.Conv2d(...) (model.py:13)
        conv = hops(opened, "mini_app.model.App.forward", "cudnnConvolutionForward")
        assert conv[:6] == [
            ("mini_app.model.App.forward", "mini_app/model.py", 16, None, None),
            ("torch.nn.modules.module.Module._wrapped_call_impl", MODULE, 186, "method", ("mini_app/model.py", 17)),
            ("torch.nn.modules.module.Module._call_impl", MODULE, 189, "method", (MODULE, 187)),
            (
                "torch.nn.modules.conv.Conv2d.forward",
                f"{SAMPLE}/torch/nn/modules/conv.py",
                243,
                "method",
                (MODULE, 198),
            ),
            (
                "torch.nn.modules.conv.Conv2d._conv_forward",
                f"{SAMPLE}/torch/nn/modules/conv.py",
                228,
                "method",
                (f"{SAMPLE}/torch/nn/modules/conv.py", 244),
            ),
            (
                "torch.nn.functional.conv2d",
                f"{SAMPLE}/torch/nn/functional.py",
                37,
                "call",
                (f"{SAMPLE}/torch/nn/modules/conv.py", 230),
            ),
        ]
        assert conv[-1] == (
            "cudnnConvolutionForward",
            None,
            None,
            "call",
            (f"{SAMPLE}/aten/src/ATen/native/cudnn/Conv_v7.cpp", 110),
        )
        assert len(conv) == 20


def test_the_project_hides_its_own_packages_in_trees_joined_after_it(project):
    """sample_repo has a mini_app too: as on sys.path, the project's comes first and the
    joined tree's copy is not read (one definition, in the project)."""
    (project / "mini_app" / "model.py").write_text("def run(x):\n    return x\n")
    with workspace(project, SAMPLE) as opened:
        assert [(s.qname, s.path, s.line) for s in look_up(opened.reader, "mini_app.model.run").symbols] == [
            ("mini_app.model.run", "mini_app/model.py", 1),
        ]
        with pytest.raises(UnknownSymbolError):
            look_up(opened.reader, "mini_app.model.App")
        # the joined tree's C++ is read, its call sites located in it (scale.cpp:26)
        assert [(path, site.caller, site.line) for path, site in opened.reader.call_sites_of("scale_cuda")] == [
            (f"{OPS}/scale.cpp", "mini_ops::scale", 26),
        ]


def test_calls_and_flow_facts_are_read_from_the_tree_holding_the_file(project):
    with workspace(project, SAMPLE) as opened:
        reader = opened.reader
        assert [c.callee for c in reader.calls_in("mini_app.model.run", "mini_app/model.py")] == [
            "mini_ops.soft_square"
        ]
        assert [c.callee for c in reader.calls_in("mini_ops.ops.clamp_add", f"{SAMPLE}/mini_ops/ops.py")] == [
            "torch.ops.mini_ops.clamp_add"
        ]
        assert reader.calls_in("mini_ops.ops.clamp_add", "/elsewhere/mini_ops/ops.py") == []
        assert reader.python_flow(f"{SAMPLE}/mini_ops/ops.py") is not None
        assert reader.tree_relative(f"{SAMPLE}/mini_ops/ops.py") == "mini_ops/ops.py"
        assert reader.compiled_only(f"{SAMPLE}/mini_ops/ops.py") is None


def _shape_check_edges(opened: Workspace, path: str) -> list[tuple]:
    """check_input_shape_forward (Convolution.cpp:35) calls `params.is_padding_neg()` and
    `params.is_stride_nonpos()` on a `const ConvParams&`, a name the file's anonymous namespace
    brings in with `using at::native::ConvParams;` (Convolution.cpp:14)."""
    reader = opened.reader
    graph = CallGraph(reader, opened.root, "all")
    (checks,) = [s for s in reader.symbols_in_file(path) if s.qname == "check_input_shape_forward"]
    return [(e.target.symbol.qname, e.resolution.value, path_line(e.site)) for e in graph.edges(graph.node(checks))]


def test_a_cpp_file_s_using_declarations_are_read_in_whichever_tree_holds_it(project, tmp_path):
    # Joined, or the project beside a small joined tree, the file's usings were asked of by
    # a path no tree stored them under (or taken for a Python module no small tree defines):
    # the calls through ConvParams fell to name-only.
    expected = [
        ("at::native::ConvParams::is_padding_neg", "exact", ("aten/src/ATen/native/Convolution.cpp", 41)),
        ("at::native::ConvParams::is_stride_nonpos", "exact", ("aten/src/ATen/native/Convolution.cpp", 42)),
    ]
    conv = "aten/src/ATen/native/Convolution.cpp"
    with workspace(project, SAMPLE) as opened:
        joined = _shape_check_edges(opened, f"{SAMPLE}/{conv}")
        usings = [(b.name, b.target) for b in opened.reader.usings_in(f"{SAMPLE}/{conv}")]
    small = tmp_path / "small"
    (small / "helpers").mkdir(parents=True)
    (small / "helpers" / "__init__.py").write_text("def helper():\n    return 1\n")
    with workspace(SAMPLE_ROOT, str(small)) as opened:
        beside_a_small_tree = _shape_check_edges(opened, conv)
    assert [(q, r, (p.removeprefix(f"{SAMPLE}/"), n)) for q, r, (p, n) in joined] == expected
    assert beside_a_small_tree == expected
    assert usings == [("ConvBackend", "at::native::ConvBackend"), ("ConvParams", "at::native::ConvParams")]


def _every_definition_s_edges(opened: Workspace, prefix: str) -> dict[tuple, list[tuple]]:
    reader = opened.reader
    graph = CallGraph(reader, opened.root, "all")
    found = {}
    python = {s.path.removeprefix(prefix) for s in reader.python_scopes() if s.path and s.path.startswith(prefix)}
    for path in sorted(python | set(_native_files())):
        for symbol in reader.symbols_in_file(prefix + path):
            if symbol.kind in _CALLING and symbol.path is not None:
                found[(path, symbol.qname, symbol.line)] = sorted(
                    (e.target.symbol.qname, e.kind.value, e.resolution.value, path_line(e.site))
                    for e in graph.edges(graph.node(symbol))
                )
    return found


_CALLING = frozenset({SymbolKind.FUNCTION, SymbolKind.METHOD, SymbolKind.KERNEL, SymbolKind.STRUCTURED_KERNEL})


def _native_files() -> list[str]:
    return [
        str(path.relative_to(SAMPLE_ROOT))
        for path in SAMPLE_ROOT.rglob("*")
        if path.suffix in (".cpp", ".cu", ".h", ".cuh") and "third_party" not in path.parts
    ]


def test_a_tree_joined_to_a_project_answers_as_it_does_alone(tmp_path):
    # every definition of the bundled tree, Python and C++: the same edges (target, kind,
    # certainty, the call's line within its tree) read alone or joined after a project (one
    # that provides none of the tree's packages, which would hide the tree's own)
    project = tmp_path / "project"
    (project / "myapp").mkdir(parents=True)
    (project / "myapp" / "__init__.py").write_text("import torch\n\n\ndef run(x):\n    return torch.relu(x)\n")
    with workspace(SAMPLE_ROOT) as opened:
        alone = _every_definition_s_edges(opened, "")
    with workspace(project, SAMPLE) as opened:
        joined = {
            key: [(q, k, r, (p.removeprefix(f"{SAMPLE}/"), n) if p else None) for q, k, r, (p, n) in edges]
            for key, edges in _every_definition_s_edges(opened, f"{SAMPLE}/").items()
        }
    assert len(alone) > 500
    assert {key: edges for key, edges in joined.items() if edges != alone.get(key)} == {}
    assert set(joined) == set(alone)


# -- installed packages -----------------------------------------------------------------------


def test_an_installed_wheel_is_read_for_python_and_yaml_and_its_chains_end_at_the_compiled_kernel(
    tmp_path, environment
):
    root = tmp_path / "net"
    (root / "net").mkdir(parents=True)
    (root / "net" / "__init__.py").write_text("")
    (root / "net" / "model.py").write_text(
        "import torch\n\n\nclass Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.conv = torch.nn.Conv2d(3, 3, 3)\n\n    def forward(self, x):\n        return self.conv(x)\n"
    )
    site = str(environment / "lib" / "python3.11" / "site-packages")
    with workspace(root, python=str(environment)) as opened:
        assert [(t.name, t.root, t.kind, t.only) for t in opened.trees] == [
            ("project", str(root), TreeKind.PROJECT, ()),
            ("torch 9.9.0", site, TreeKind.INSTALLED, ("torch", "torchgen")),
        ]
        reader = opened.reader
        with pytest.raises(UnknownSymbolError):  # torch/include is C++: not read
            look_up(reader, "at::conv2d")
        chain = hops(opened, "net.model.Net.forward", "aten::conv2d")
        assert chain == [
            ("net.model.Net.forward", "net/model.py", 9, None, None),
            (
                "torch.nn.modules.module.Module._wrapped_call_impl",
                f"{site}/torch/nn/modules/module.py",
                186,
                "method",
                ("net/model.py", 10),
            ),
            (
                "torch.nn.modules.module.Module._call_impl",
                f"{site}/torch/nn/modules/module.py",
                189,
                "method",
                (f"{site}/torch/nn/modules/module.py", 187),
            ),
            (
                "torch.nn.modules.conv.Conv2d.forward",
                f"{site}/torch/nn/modules/conv.py",
                243,
                "method",
                (f"{site}/torch/nn/modules/module.py", 198),
            ),
            (
                "torch.nn.modules.conv.Conv2d._conv_forward",
                f"{site}/torch/nn/modules/conv.py",
                228,
                "method",
                (f"{site}/torch/nn/modules/conv.py", 244),
            ),
            (
                "torch.nn.functional.conv2d",
                f"{site}/torch/nn/functional.py",
                37,
                "call",
                (f"{site}/torch/nn/modules/conv.py", 230),
            ),
            (
                "torch._C._VariableFunctions.conv2d",
                f"{site}/torch/_C/_VariableFunctions.pyi",
                14,
                "alias",
                (f"{site}/torch/nn/functional.py", 37),
            ),
            (
                "aten::conv2d",
                f"{site}/torchgen/packaged/ATen/native/native_functions.yaml",
                74,
                "binding",
                (f"{site}/torch/_C/_VariableFunctions.pyi", 14),
            ),
        ]
        report = trace_symbol(reader, opened.root, "aten::conv2d", backend="cuda")
        (kernel,) = list(report.trace.tree.children)
        assert (kernel.node.symbol.qname, kernel.node.symbol.path, kernel.edge.label, kernel.edge.resolution.value) == (
            "at::native::conv2d_symint",
            None,
            "dispatch:CompositeImplicitAutograd",
            "name",
        )
        assert kernel.node.symbol.signature == (
            "compiled into torch 9.9.0, installed without its C++ sources: add a source checkout with --tree PATH to follow it"
        )
        assert kernel.children == ()
        # native_functions.yaml:90 `CUDA: cudnn_convolution`: this build has no lib/libtorch_cuda, so no CUDA kernel at all
        cuda = trace_symbol(reader, opened.root, "aten::cudnn_convolution", backend="cuda").trace.tree.children
        assert [(c.node.symbol.qname, c.edge.label, c.node.symbol.signature) for c in cuda] == [
            (
                "at::native::cudnn_convolution",
                "dispatch:CUDA",
                "not in torch 9.9.0: a build without CUDA (no lib/libtorch_cuda) has no CUDA kernels",
            ),
        ]
    (Path(site) / "torch" / "lib").mkdir()
    (Path(site) / "torch" / "lib" / "libtorch_cuda.so").write_bytes(b"")  # a CUDA build's library, beside the Python
    with workspace(root, python=str(environment)) as opened:
        cuda = trace_symbol(opened.reader, opened.root, "aten::cudnn_convolution", backend="cuda").trace.tree.children
        assert [c.node.symbol.signature for c in cuda] == [
            "compiled into torch 9.9.0, installed without its C++ sources: add a source checkout with --tree PATH to follow it",
        ]


def test_an_installed_tree_is_refreshed_only_when_its_distribution_changes(tmp_path, environment):
    root = tmp_path / "app"
    root.mkdir()
    (root / "app.py").write_text("import torch\n")
    site = environment / "lib" / "python3.11" / "site-packages"
    with workspace(root, python=str(environment)) as opened:
        assert look_up(opened.reader, "torch.nn.functional.conv2d").symbols[0].line == 37
    functional = site / "torch" / "nn" / "functional.py"
    functional.write_text("\n\n" + functional.read_text())
    with workspace(root, python=str(environment)) as opened:  # not walked: same install
        assert look_up(opened.reader, "torch.nn.functional.conv2d").symbols[0].line == 37
    (site / "torch-9.9.0.dist-info" / "RECORD").write_text("torch/__init__.py,,\n")  # installed again
    with workspace(root, python=str(environment)) as opened:
        assert look_up(opened.reader, "torch.nn.functional.conv2d").symbols[0].line == 39


def test_a_wheel_beside_a_checkout_of_another_version_is_said_once_and_only_its_stubs_read(project, environment):
    with workspace(project, SAMPLE, python=str(environment)) as opened:
        assert [(t.name, t.stubs_only) for t in opened.trees] == [
            ("project", False),
            ("sample_repo", False),
            ("torch 9.9.0", True),
        ]
        version = source_version(SAMPLE)
        assert opened.notes == [
            f"note: torch 9.9.0 installed in {environment} is not read: sample_repo at {SAMPLE}"
            f"{f' (version {version})' if version else ''} provides torch, torchgen instead; only its stubs (.pyi) are, "
            "for the names the checkout has none for (stubs its build generates)"
        ]
        assert all(
            s.path and s.path.startswith(SAMPLE) for s in look_up(opened.reader, "torch.nn.functional.conv2d").symbols
        )
        # the checkout has its own stubs here (the two @overload lines, 14 and 16): the wheel's same names add nothing
        assert [(s.path, s.line) for s in look_up(opened.reader, "torch._C._VariableFunctions.conv2d").symbols] == [
            (f"{SAMPLE}/torch/_C/_VariableFunctions.pyi", 14),
            (f"{SAMPLE}/torch/_C/_VariableFunctions.pyi", 16),
        ]
        assert opened.reader.operators_named("conv2d") and all(  # operators: the checkout's YAML alone
            s.path.startswith(SAMPLE) for s in opened.reader.operators_named("conv2d")
        )


def test_a_project_that_provides_the_package_reads_no_stubs_of_the_wheel(tmp_path, environment):
    # the bundled tree's own torch, with a wheel installed beside it: nothing of the wheel is read
    # (indexing it would cost a new user's first command half a minute, for names of another torch)
    project = tmp_path / "tree"
    shutil.copytree(SAMPLE, project, ignore=shutil.ignore_patterns("__pycache__"))
    with workspace(project, python=str(environment)) as opened:
        assert [(t.name, t.stubs_only) for t in opened.trees] == [("project", False)]


def test_a_checkout_without_its_generated_stubs_takes_them_from_the_wheel(tmp_path, project, environment):
    """A real checkout has no torch/_C/_VariableFunctions.pyi (the build generates it): the
    binding hop of a chain is located in the installed wheel's stub, and the chain goes on
    into the checkout's YAML and C++."""
    checkout = tmp_path / "checkout"
    shutil.copytree(SAMPLE, checkout, ignore=shutil.ignore_patterns("__pycache__"))
    (checkout / "torch" / "_C" / "_VariableFunctions.pyi").unlink()
    site = environment / "lib" / "python3.11" / "site-packages"
    with workspace(project, str(checkout), python=str(environment)) as opened:
        path = hops(opened, "torch.nn.functional.conv2d", "cudnnConvolutionForward")
    functional = f"{checkout}/torch/nn/functional.py"
    assert path[:4] == [
        ("torch.nn.functional.conv2d", functional, 37, None, None),
        # functional.py:37 conv2d = _add_docstr(torch.conv2d, ...): the stub of the wheel, its line 14
        (
            "torch._C._VariableFunctions.conv2d",
            f"{site}/torch/_C/_VariableFunctions.pyi",
            14,
            "alias",
            (functional, 37),
        ),
        (
            "aten::conv2d",
            f"{checkout}/aten/src/ATen/native/native_functions.yaml",
            74,
            "binding",
            (f"{site}/torch/_C/_VariableFunctions.pyi", 14),
        ),
        (
            "at::native::conv2d_symint",
            f"{checkout}/aten/src/ATen/native/Convolution.cpp",
            173,
            "dispatch:CompositeImplicitAutograd",
            (f"{checkout}/aten/src/ATen/native/native_functions.yaml", 76),
        ),
    ]
    assert path[-1][0] == "cudnnConvolutionForward"


def test_the_cli_joins_trees_and_says_what_it_cannot_use(project, environment):
    result = invoke(
        ["search", "clamp_add_cuda", "--root", str(project), "--tree", SAMPLE, "--python-env", str(environment)]
    )
    assert result.exit_code == 0, result.output
    assert (
        "sample_repo:mini_ops/csrc/kernels.cu:54" in result.stdout
    )  # another tree's file: its name, then the path in it
    assert result.stderr.count("note: torch 9.9.0 installed in") == 1
    missing = invoke(["search", "x", "--root", str(project), "--tree", str(project / "nowhere")])
    assert (missing.exit_code, missing.stderr) == (2, f"error: --tree {project / 'nowhere'}: not a folder\n")
    bad_env = invoke(["search", "x", "--root", str(project), "--python-env", str(project / "nowhere")])
    assert (bad_env.exit_code, bad_env.stderr) == (
        2,
        f"error: --python-env {project / 'nowhere'}: not a Python interpreter or environment folder\n",
    )
    joined = invoke(["search", "clamp_add_cuda", "--root", str(project)], env={"EXPLORER_TREES": SAMPLE})
    assert "sample_repo:mini_ops/csrc/kernels.cu:54" in joined.stdout


# -- finding the environment ------------------------------------------------------------------


def test_the_environment_is_found_as_language_servers_find_it(tmp_path, monkeypatch):
    monkeypatch.delenv("EXPLORER_PYTHON_ENV")
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    project = tmp_path / "project"
    site = project / ".venv" / "lib" / "python3.12" / "site-packages"
    site.mkdir(parents=True)
    (project / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    found = find_environment(str(project), None)
    assert found is not None and (found.where, found.found_by, found.site_folders) == (
        str(project / ".venv"),
        "the project's .venv",
        (os.path.realpath(site),),
    )
    active = tmp_path / "active"
    (active / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
    (active / "pyvenv.cfg").write_text("")
    monkeypatch.setenv("VIRTUAL_ENV", str(active))
    assert find_environment(str(project), None).found_by == "$VIRTUAL_ENV"
    assert find_environment(str(project), "none") is None
    on_path = find_environment(str(project), "python3")  # a command name, found on PATH
    interpreter = shutil.which("python3") or ""
    interpreter = environment_module.pyenv_choice(interpreter) or interpreter  # a pyenv shim: what it would start
    in_venv = os.path.dirname(os.path.dirname(os.path.abspath(interpreter)))  # bin/python3 -> its environment
    expected = in_venv if os.path.isfile(os.path.join(in_venv, "pyvenv.cfg")) else interpreter
    assert on_path is not None and on_path.where == expected and on_path.site_folders
    monkeypatch.setenv("EXPLORER_PYTHON_ENV", str(project / ".venv" / "bin" / "python"))
    with pytest.raises(UsageError):  # no interpreter there
        find_environment(str(project), None)


def test_an_interpreters_answer_is_kept_while_its_file_is_unchanged_and_a_launcher_is_asked_each_time(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("EXPLORER_PYTHON_ENV")
    binary = os.path.realpath(sys.base_exec_prefix + "/bin/python3")  # outside any venv: asked, not read as a folder
    asked: list[str] = []
    real_run = environment_module.subprocess.run
    monkeypatch.setattr(
        environment_module.subprocess, "run", lambda command, **kw: asked.append(command[0]) or real_run(command, **kw)
    )
    first = find_environment(str(tmp_path), binary)
    again = find_environment(str(tmp_path), binary)
    assert first is not None and again == first and asked == [binary]
    # a launcher script (pyenv's shims) may start another interpreter each time
    launcher = tmp_path / "python3"
    launcher.write_text(f'#!/bin/sh\nexec {binary} "$@"\n')
    launcher.chmod(0o755)
    assert find_environment(str(tmp_path), str(launcher)).site_folders == first.site_folders
    assert find_environment(str(tmp_path), str(launcher)).site_folders == first.site_folders
    assert asked == [binary, str(launcher), str(launcher)]
    broken = tmp_path / "broken-python"
    broken.write_text("#!/bin/sh\nexit 1\n")
    broken.chmod(0o755)
    with pytest.raises(UsageError, match="not a Python interpreter or environment folder"):
        find_environment(str(tmp_path), str(broken))


def _pyenv(root: Path, versions: list[str], binary: str) -> Path:
    """A pyenv root as pyenv lays it out: a shim per command, and each version's bin/python3
    (here the test's own interpreter). The shim runs `pyenv exec`, which is not there: a shim
    that is run fails, so an answer says it was read, not run."""
    shim = root / "shims" / "python3"
    shim.parent.mkdir(parents=True)
    shim.write_text(
        '#!/usr/bin/env bash\nset -e\nprogram="${0##*/}"\n\n'
        f'export PYENV_ROOT="{root}"\nexec "{root}/libexec/pyenv" exec "$program" "$@"\n'
    )
    shim.chmod(0o755)
    for version in versions:
        (root / "versions" / version / "bin").mkdir(parents=True)
        (root / "versions" / version / "bin" / "python3").symlink_to(binary)
    return shim


def test_a_pyenv_shim_is_read_as_pyenv_chooses_and_the_chosen_interpreter_is_asked_once(tmp_path, monkeypatch):
    from explorer.workspace import pyenv_choice

    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("EXPLORER_PYTHON_ENV")
    monkeypatch.delenv("PYENV_VERSION", raising=False)
    monkeypatch.delenv("PYENV_DIR", raising=False)
    binary = os.path.realpath(sys.base_exec_prefix + "/bin/python3")
    root = tmp_path / "pyenv"
    shim = _pyenv(root, ["3.99.1", "3.99.2", "bare"], binary)
    (root / "versions" / "bare" / "bin" / "python3").unlink()  # a version without the command
    work = tmp_path / "work" / "deep"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    installed = str(root / "versions" / "{}" / "bin" / "python3")
    assert pyenv_choice(str(shim)) is None  # no version file at all: the system Python
    (root / "version").write_text("# global\n3.99.1\n")
    assert pyenv_choice(str(shim)) == installed.format("3.99.1")
    (tmp_path / "work" / ".python-version").write_text("bare 3.99.2\n")  # the nearest one up, first word of a line
    assert pyenv_choice(str(shim)) is None  # `bare` has no python3, and pyenv tries only the first word
    (tmp_path / "work" / ".python-version").write_text("bare\n3.99.2\n")
    assert pyenv_choice(str(shim)) == installed.format("3.99.2")
    monkeypatch.setenv("PYENV_VERSION", "3.99.1:3.99.2")
    assert pyenv_choice(str(shim)) == installed.format("3.99.1")
    for unfollowed in ("system", "3.99", "../../elsewhere"):  # left to the shim itself
        monkeypatch.setenv("PYENV_VERSION", unfollowed)
        assert pyenv_choice(str(shim)) is None, unfollowed
    assert pyenv_choice(binary) is None  # not a shim

    monkeypatch.setenv("PYENV_VERSION", "3.99.2")
    asked: list[str] = []
    real_run = environment_module.subprocess.run
    monkeypatch.setattr(
        environment_module.subprocess, "run", lambda command, **kw: asked.append(command[0]) or real_run(command, **kw)
    )
    found = find_environment(str(tmp_path), str(shim))
    again = find_environment(str(tmp_path), str(shim))
    assert found is not None and found == again and found.site_folders
    assert (found.where, asked) == (installed.format("3.99.2"), [installed.format("3.99.2")])  # then remembered


def test_pth_paths_are_read_and_their_code_lines_are_not_run(tmp_path):
    env = tmp_path / "env"
    site = env / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    (env / "pyvenv.cfg").write_text("")
    src = tmp_path / "work" / "src"
    (src / "mylib").mkdir(parents=True)
    (src / "mylib" / "__init__.py").write_text("")
    marker = tmp_path / "ran"
    (site / "mylib.pth").write_text(f"{src}\nimport os; open({str(marker)!r}, 'w')\n")
    found = find_environment(str(tmp_path), str(env))
    assert found is not None and found.site_folders == (os.path.realpath(site), str(src))
    assert find_distributions(found, {"mylib", "os"}) == {
        "mylib": Distribution("mylib", "", str(src), ("mylib",), None)
    }
    assert not marker.exists()


def test_distributions_are_read_from_dist_info_with_or_without_top_level_txt(tmp_path):
    site = tmp_path / "site"
    make_wheel(site, "2.13.0+cpu")
    (site / "yaml").mkdir()
    (site / "yaml" / "__init__.py").write_text("")
    info = site / "PyYAML-6.0.dist-info"
    info.mkdir()
    (info / "RECORD").write_text("yaml/__init__.py,sha256=x,1\nPyYAML-6.0.dist-info/RECORD,,\n_yaml/__init__.py,,\n")
    from explorer.workspace import Environment

    found = find_distributions(Environment(str(tmp_path), "test", (str(site),)), {"torch", "torchgen", "yaml", "json"})
    assert sorted((name, d.name, d.version, d.top_level) for name, d in found.items()) == [
        ("torch", "torch", "2.13.0+cpu", ("torch", "torchgen")),
        ("torchgen", "torch", "2.13.0+cpu", ("torch", "torchgen")),
        ("yaml", "PyYAML", "6.0", ("yaml",)),  # _yaml is listed but not installed here
    ]
    assert found["torch"].stamp is not None and found["torch"].stamp.startswith("torch-2.13.0+cpu.dist-info:")


def test_a_distributions_import_names_are_kept_until_its_record_or_top_level_txt_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    site = tmp_path / "site"
    for name in ("yaml", "_yaml"):
        (site / name).mkdir(parents=True)
        (site / name / "__init__.py").write_text("")
    info = site / "PyYAML-6.0.dist-info"
    info.mkdir()
    (info / "RECORD").write_text("yaml/__init__.py,sha256=x,1\nPyYAML-6.0.dist-info/RECORD,,\n")
    from explorer.workspace import Environment

    environment = Environment(str(tmp_path), "test", (str(site),))
    read: list[str] = []
    real_read = environment_module._top_level_from_record
    monkeypatch.setattr(
        environment_module, "_top_level_from_record", lambda record: read.append(record) or real_read(record)
    )

    def providers() -> dict[str, tuple[str, ...]]:
        return {name: d.top_level for name, d in find_distributions(environment, {"yaml", "_yaml"}).items()}

    assert providers() == providers() == {"yaml": ("yaml",), "_yaml": ("_yaml",)}  # _yaml: a folder, no distribution
    assert len(read) == 1  # the second time from the cache folder
    time.sleep(0.02)
    (info / "RECORD").write_text("yaml/__init__.py,sha256=x,1\n_yaml/__init__.py,,\n")  # reinstalled with _yaml
    assert providers() == {"yaml": ("yaml", "_yaml"), "_yaml": ("yaml", "_yaml")}
    (info / "top_level.txt").write_text("yaml\n")  # now listed: it wins over RECORD
    assert providers() == {"yaml": ("yaml",), "_yaml": ("_yaml",)}
    assert len(read) == 2


def test_index_indexes_the_joined_trees_too_and_lists_them(project, environment):
    result = invoke(["index", "--root", str(project), "--tree", SAMPLE, "--python-env", str(environment)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-2:] == [
        f"Joined: sample_repo (source) {SAMPLE}",
        f"Joined: torch 9.9.0 (installed, its stubs only) {environment / 'lib' / 'python3.11' / 'site-packages'}",
    ]
    alone = invoke(["index", "--root", str(project), "--python-env", str(environment), "--json"])
    import json

    assert json.loads(alone.stdout)["trees"] == [
        {
            "name": "torch 9.9.0",
            "kind": "installed",
            "root": str(environment / "lib" / "python3.11" / "site-packages"),
            "version": "9.9.0",
            "packages": ["torch", "torchgen"],
        }
    ]


def test_the_call_graph_is_the_projects_with_callees_resolved_in_the_joined_trees(project):
    from explorer.analysis.callgraph import python_call_graph

    with workspace(project, SAMPLE) as opened:
        assert python_call_graph(opened.reader, opened.root) == {
            "mini_app": [],
            "mini_app.model": [],
            # model.py:12-14: super().__init__(), self.conv = torch.nn.Conv2d(...), self.block = ScaledClamp(factor)
            "mini_app.model.App.__init__": [
                "<builtin>.super",
                "mini_ops.layers.ScaledClamp.__init__",
                "torch.nn.modules.conv.Conv2d.__init__",
                "torch.nn.modules.module.Module.__init__",
                "torch.nn.modules.module.Module.__setattr__",
            ],
            # model.py:17-18: self.conv(x), self.block(x): Module.__call__ is _wrapped_call_impl (module.py:233)
            "mini_app.model.App.forward": ["torch.nn.modules.module.Module._wrapped_call_impl"],
            "mini_app.model.run": ["mini_ops.ops.soft_square"],  # model.py:22
        }


def test_a_tree_inside_the_project_is_read_once_as_its_own_tree(tmp_path):
    """A checkout kept inside the project (deps/sample_repo) is the joined tree's, not the
    project's too; a virtual environment in the project (env/, any name) is never its code."""
    root = tmp_path / "work"
    shutil.copytree(SAMPLE_ROOT / "mini_app", root / "mini_app")
    shutil.copytree(SAMPLE_ROOT, root / "deps" / "sample_repo")
    make_wheel(root / "env" / "lib" / "python3.11" / "site-packages")
    (root / "env" / "pyvenv.cfg").write_text("")
    nested = str(root / "deps" / "sample_repo")
    with workspace(root, nested) as opened:
        assert [(s.qname, s.path) for s in opened.reader.symbols_with_qname("at::native::conv2d_symint")] == [
            ("at::native::conv2d_symint", f"{nested}/aten/src/ATen/native/Convolution.cpp"),
        ]
        assert opened.reader.symbols_with_qname("deps.sample_repo.torch.nn.functional.conv2d") == []
        assert opened.reader.symbols_with_qname("path_line(env.lib.python3.11.site)-packages.torch") == []
    with workspace(root) as alone:  # without the joined tree, the checkout is the project's
        assert [s.path for s in alone.reader.symbols_with_qname("at::native::conv2d_symint")] == [
            "deps/sample_repo/aten/src/ATen/native/Convolution.cpp",
        ]


def test_index_leaves_a_tree_inside_the_project_to_that_tree(tmp_path):
    """`explorer index --tree` with the tree inside the project parses the project's own files
    only (it used to parse the tree's files into the project, then drop them again)."""
    root = tmp_path / "work"
    shutil.copytree(SAMPLE_ROOT / "mini_app", root / "mini_app")
    shutil.copytree(SAMPLE_ROOT, root / "deps" / "sample_repo")
    args = [
        "index",
        "--root",
        str(root),
        "--tree",
        str(root / "deps" / "sample_repo"),
        "--python-env",
        "none",
        "--json",
    ]
    first = json.loads(invoke(args).stdout)
    second = json.loads(invoke(args).stdout)
    # the project's files are mini_app/__init__.py and mini_app/model.py; the tree's 201 are its own
    assert (first["reparsed"], first["removed"], first["files"]) == (2, 0, 2)
    assert (second["reparsed"], second["removed"], second["files"]) == (0, 0, 2)


def test_an_unknown_name_offers_the_projects_own_definitions_first(project):
    # `forward` is defined in 21 places; the project's App.forward (mini_app/model.py:16) is
    # longer than sample_repo's mynet.net.Net.forward, and comes first all the same
    result = invoke(["show", "App.forwrd", "--root", str(project), "--tree", SAMPLE, "--python-env", "none"])
    assert result.exit_code == 1
    assert (
        result.stderr.splitlines()[-1]
        == "error: unknown symbol: App.forwrd; closest: mini_app.model.App.forward, mynet.net.Net.forward"
    )
    alone = invoke(["show", "App.forwrd", "--python-env", "none"])  # the bundled tree alone: the shortest first
    assert alone.stderr.splitlines()[-1].startswith(
        "error: unknown symbol: App.forwrd; closest: mynet.net.Net.forward, "
    )


def test_trace_json_lists_the_trees_its_files_are_in(project):
    import json

    result = invoke(
        [
            "trace",
            "mini_app.model.run",
            "--to",
            "soft_square_kernel",
            "--root",
            str(project),
            "--tree",
            SAMPLE,
            "--json",
        ]
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["trees"] == [
        {"name": "project", "kind": "project", "root": str(project), "version": None, "packages": []},
        {"name": "sample_repo", "kind": "source", "root": SAMPLE, "version": None, "packages": []},
    ]
    # model.py:22 mini_ops.soft_square(x), in the project; the rest in sample_repo
    assert [(hop["symbol"], hop["file"], hop["line"]) for hop in out["paths"][0][:3]] == [
        ("mini_app.model.run", "mini_app/model.py", 21),
        ("mini_ops.ops.soft_square", f"{SAMPLE}/mini_ops/ops.py", 22),
        ("mini_ops_legacy::soft_square", f"{SAMPLE}/mini_ops/csrc/legacy.cpp", 67),
    ]
    alone = json.loads(invoke(["trace", "mini_app.model.run", "--root", str(project), "--json"]).stdout)
    assert "trees" not in alone
    # text writes another tree's locations short: the tree's name and the path within it
    text = invoke(
        ["trace", "mini_app.model.run", "--to", "soft_square_kernel", "--root", str(project), "--tree", SAMPLE]
    )
    hops = [line for line in text.stdout.splitlines() if line.startswith(("  0 ", "  1 ", "  2 "))][:3]
    assert hops == [
        "  0  python  mini_app.model.run  mini_app/model.py:21",
        "  1  python  mini_ops.ops.soft_square  sample_repo:mini_ops/ops.py:22  ← call, at mini_app/model.py:22",
        # ops.py:24 torch.ops.mini_ops_legacy.soft_square(x), the operator legacy.cpp:67 registers
        "  2  yaml    mini_ops_legacy::soft_square  sample_repo:mini_ops/csrc/legacy.cpp:67  ← op_registration, at sample_repo:mini_ops/ops.py:24",
    ]


def test_a_tree_not_ready_is_left_out_of_a_partial_workspace_only(tmp_path, project, environment):
    # the language server opens what is ready and lets the rest join when indexed: here the
    # project is indexed, the environment's torch (which mini_app imports) is not
    from explorer.workspace import TreeNotReady

    def project_only(tree, index_path, options, leave_out) -> None:
        if tree.kind is TreeKind.INSTALLED:
            raise TreeNotReady(f"{tree.name}: not indexed yet")
        _refresh(tree, index_path, options, leave_out)

    request = TreeRequest(str(project), None, (), str(environment))
    with open_workspace(request, project_only, partial=True) as opened:
        assert [t.name for t in opened.trees] == ["project"]
        assert opened.waiting == ["torch 9.9.0: not indexed yet"]
        assert [s.qname for s in opened.reader.symbols_with_qname("mini_app.model.App")] == ["mini_app.model.App"]
    with pytest.raises(TreeNotReady, match=r"^torch 9\.9\.0: not indexed yet$"), open_workspace(request, project_only):
        pass
