"""A user's project beside a real PyTorch: a 2.4.0 source checkout (EXPLORER_REAL_TORCH) and
an environment folder with the torch 2.13.0 wheel installed (EXPLORER_REAL_TORCH_ENV).

    EXPLORER_REAL_TORCH=~/src/pytorch EXPLORER_REAL_TORCH_ENV=~/venvs/torch python3 -m pytest tests/test_real_trees.py

Every hop below was read off those sources (file:line), not off explorer's output."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from explorer.analysis.trace import trace_symbol
from explorer.index.build import refresh
from explorer.workspace import TreeRequest, Workspace, open_workspace
from tests.places import path_line

CHECKOUT = os.environ.get("EXPLORER_REAL_TORCH")
ENVIRONMENT = os.environ.get("EXPLORER_REAL_TORCH_ENV")
MODEL = """import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        x = F.relu(self.conv(x))
        x = x.mean((2, 3))
        return self.fc(x)
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("user") / "project"
    (root / "mynet").mkdir(parents=True)
    (root / "mynet" / "__init__.py").write_text("")
    (root / "mynet" / "model.py").write_text(MODEL)
    return root


@contextmanager
def workspace(project: Path, trees: tuple[str, ...], python: str) -> Iterator[Workspace]:
    def refresh_tree(tree, index_path, options, leave_out) -> None:
        refresh(tree.root, index_path, options=options, leave_out=leave_out)

    with open_workspace(TreeRequest(str(project), None, trees, python), refresh_tree) as opened:
        yield opened


def first_path(opened: Workspace, query: str, to: str) -> list[tuple]:
    report = trace_symbol(opened.reader, opened.root, query, to=to)
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


@pytest.mark.skipif(not CHECKOUT, reason="set EXPLORER_REAL_TORCH to a PyTorch 2.4.0 source tree")
def test_the_users_net_reaches_cudnn_in_the_checkout_through_its_attribute(project):
    checkout = str(Path(CHECKOUT).resolve())
    if (Path(checkout) / "version.txt").read_text().strip() != "2.4.0":
        pytest.skip("the expected lines are those of PyTorch 2.4.0")
    module, conv = f"{checkout}/torch/nn/modules/module.py", f"{checkout}/torch/nn/modules/conv.py"
    yaml, native = f"{checkout}/aten/src/ATen/native/native_functions.yaml", f"{checkout}/aten/src/ATen/native"
    with workspace(project, (checkout,), ENVIRONMENT or "none") as opened:
        assert [t.name for t in opened.trees] == ["project", Path(checkout).name]
        if ENVIRONMENT:  # torch 2.13.0 installed there: said, not read beside 2.4.0
            assert len(opened.notes) == 1 and opened.notes[0].startswith("note: torch 2.13.0")
        assert first_path(opened, "mynet.model.Net.forward", "cudnnConvolutionForward") == [
            ("mynet.model.Net.forward", "mynet/model.py", 12, None, None),
            # self.conv(x) at model.py:13, self.conv = nn.Conv2d(...) at model.py:9
            ("torch.nn.modules.module.Module._wrapped_call_impl", module, 1549, "method", ("mynet/model.py", 13)),
            ("torch.nn.modules.module.Module._call_impl", module, 1555, "method", (module, 1553)),
            ("torch.nn.modules.conv.Conv2d.forward", conv, 457, "method", (module, 1562)),
            ("torch.nn.modules.conv.Conv2d._conv_forward", conv, 449, "method", (conv, 458)),
            ("torch.nn.functional.conv2d", f"{checkout}/torch/nn/functional.py", 87, "call", (conv, 451)),
            ("torch._C._VariableFunctions.conv2d", None, None, "alias", (f"{checkout}/torch/nn/functional.py", 87)),
            ("aten::conv2d", yaml, 1707, "binding", None),
            (
                "at::native::conv2d_symint",
                f"{native}/Convolution.cpp",
                945,
                "dispatch:CompositeImplicitAutograd",
                (yaml, 1709),
            ),
            ("aten::convolution", yaml, 1668, "call", (f"{native}/Convolution.cpp", 965)),
            (
                "at::native::convolution",
                f"{native}/Convolution.cpp",
                1178,
                "dispatch:CompositeExplicitAutograd",
                (yaml, 1670),
            ),
            ("aten::_convolution", yaml, 1690, "call", (f"{native}/Convolution.cpp", 1189)),
            (
                "at::native::_convolution",
                f"{native}/Convolution.cpp",
                1521,
                "dispatch:CompositeExplicitAutograd",
                (yaml, 1692),
            ),
            ("aten::cudnn_convolution", yaml, 1869, "call", (f"{native}/Convolution.cpp", 1605)),
            ("at::native::cudnn_convolution", f"{native}/cudnn/ConvShared.cpp", 240, "dispatch:CUDA", (yaml, 1871)),
            (
                "at::native::cudnn_convolution_forward_out",
                f"{native}/cudnn/ConvShared.cpp",
                205,
                "call",
                (f"{native}/cudnn/ConvShared.cpp", 262),
            ),
            (
                "at::native::raw_cudnn_convolution_forward_out",
                f"{native}/cudnn/Conv_v8.cpp",
                1172,
                "call",
                (f"{native}/cudnn/ConvShared.cpp", 227),
            ),
            (
                "at::native::raw_cudnn_convolution_forward_out_v7",
                f"{native}/cudnn/Conv_v7.cpp",
                780,
                "call",
                (f"{native}/cudnn/Conv_v8.cpp", 1200),
            ),
            (
                "at::native::split_batch_dim_to_32bit_out",
                f"{native}/cudnn/Conv_v7.cpp",
                606,
                "call",
                (f"{native}/cudnn/Conv_v7.cpp", 791),
            ),
            # the function pointer split_batch_dim_to_32bit_out calls as func_32bit (Conv_v7.cpp:625),
            # then AlgoIterator::try_all (742) and the lambda it is handed (743), which calls
            # cuDNN (759): as the checkout read alone has it. Joined, before the file's
            # using-declarations were read there, AlgoIterator was not found and the lambda's
            # call was taken for the function's own.
            (
                "at::native::raw_cudnn_convolution_forward_out_32bit",
                f"{native}/cudnn/Conv_v7.cpp",
                697,
                "fnptr",
                (f"{native}/cudnn/Conv_v7.cpp", 625),
            ),
            (
                "at::native::AlgoIterator::try_all",
                f"{native}/cudnn/Conv_v7.cpp",
                545,
                "method",
                (f"{native}/cudnn/Conv_v7.cpp", 742),
            ),
            (
                "at::native::<lambda at line 743>",
                f"{native}/cudnn/Conv_v7.cpp",
                743,
                "fnptr",
                (f"{native}/cudnn/Conv_v7.cpp", 552),
            ),
            ("cudnnConvolutionForward", None, None, "call", (f"{native}/cudnn/Conv_v7.cpp", 759)),
        ]


@pytest.mark.skipif(not ENVIRONMENT, reason="set EXPLORER_REAL_TORCH_ENV to an environment with torch 2.13.0 installed")
def test_with_only_the_wheel_the_net_reaches_the_operator_and_says_where_a_checkout_continues(project):
    with workspace(project, (), ENVIRONMENT) as opened:
        (installed,) = opened.trees[1:]
        if installed.name != "torch 2.13.0+cpu":
            pytest.skip("the expected lines are those of the torch 2.13.0+cpu wheel")
        site = installed.root
        module, conv = f"{site}/torch/nn/modules/module.py", f"{site}/torch/nn/modules/conv.py"
        yaml = f"{site}/torchgen/packaged/ATen/native/native_functions.yaml"
        assert first_path(opened, "mynet.model.Net.forward", "aten::conv2d") == [
            ("mynet.model.Net.forward", "mynet/model.py", 12, None, None),
            ("torch.nn.modules.module.Module._wrapped_call_impl", module, 1774, "method", ("mynet/model.py", 13)),
            ("torch.nn.modules.module.Module._call_impl", module, 1782, "method", (module, 1778)),
            ("torch.nn.modules.conv.Conv2d.forward", conv, 564, "method", (module, 1789)),
            ("torch.nn.modules.conv.Conv2d._conv_forward", conv, 546, "method", (conv, 565)),
            ("torch.nn.functional.conv2d", f"{site}/torch/nn/functional.py", 102, "call", (conv, 548)),
            # the wheel ships the generated stubs a checkout lacks
            (
                "torch._C._VariableFunctions.conv2d",
                f"{site}/torch/_C/_VariableFunctions.pyi",
                9797,
                "alias",
                (f"{site}/torch/nn/functional.py", 102),
            ),
            ("aten::conv2d", yaml, 1701, "binding", (f"{site}/torch/_C/_VariableFunctions.pyi", 9797)),
        ]
        report = trace_symbol(opened.reader, opened.root, "aten::conv2d")
        (kernel,) = report.trace.tree.children
        assert (kernel.node.symbol.qname, kernel.node.symbol.path, kernel.edge.label, path_line(kernel.edge.site)) == (
            "at::native::conv2d_symint",
            None,
            "dispatch:CompositeImplicitAutograd",
            (yaml, 1703),
        )
        assert kernel.node.symbol.signature.startswith(
            "compiled into torch 2.13.0+cpu, installed without its C++ sources"
        )
