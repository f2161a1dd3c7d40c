"""The Neovim set-up as docs/editor.md writes it (editors/nvim/explorer.lua as lua/explorer.lua,
`require("explorer").setup({...})` in init.lua), in Neovim headless, on a copy of the bundled
tree with no .git: one server per project root, the root override, outgoing calls listed at
the definitions they reach, and a code lens's trace shown as a list. tests/nvim/config_probe.lua
records what a user would see. Neovim 0.7.2 (Debian's) is what installs here; newer versions
are not tested. Expected lines were read off sample_repo (the chain as tests/test_trace.py
verifies it)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.folders import SAMPLE_ROOT

NVIM = shutil.which("nvim")
REPO = Path(__file__).resolve().parent.parent
PROBE = REPO / "tests" / "nvim" / "config_probe.lua"
pytestmark = pytest.mark.skipif(NVIM is None, reason="Neovim (nvim) is not installed")


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled tree copied where no .git is above it."""
    root = tmp_path_factory.mktemp("nvim") / "sample"
    shutil.copytree(SAMPLE_ROOT, root, ignore=shutil.ignore_patterns("__pycache__", "build"))
    return root


def neovim(tmp_path: Path, tree: Path, setup: str, files: list[str], clients: int = 1) -> dict:
    config = tmp_path / "config"
    (config / "lua").mkdir(parents=True)
    shutil.copyfile(REPO / "editors" / "nvim" / "explorer.lua", config / "lua" / "explorer.lua")
    command = json.dumps([sys.executable, "-m", "explorer", "lsp"])[1:-1]  # a Lua list's items
    init = config / "init.lua"
    init.write_text(
        f'vim.opt.runtimepath:prepend("{config}")\nrequire("explorer").setup({{ cmd = {{ {command} }}{setup} }})\n'
    )
    out = tmp_path / "answers.json"
    env = {
        **os.environ,
        "EXPLORER_CACHE_DIR": str(tmp_path.parent / "cache"),
        "EXPLORER_PYTHON_ENV": "none",
        "EXPLORER_NVIM_ROOT": str(tree),
        "EXPLORER_NVIM_OUT": str(out),
        "EXPLORER_NVIM_FILES": ",".join(files),
        "EXPLORER_NVIM_CLIENTS": str(clients),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "XDG_DATA_HOME": str(tmp_path / "xdg"),
        "XDG_STATE_HOME": str(tmp_path / "xdg"),
    }
    subprocess.run(
        [NVIM, "--headless", "-u", str(init), "-c", f"luafile {PROBE}"],
        cwd=tree,
        env=env,
        timeout=150,
        check=True,
        stdin=subprocess.DEVNULL,
        capture_output=True,
    )
    return json.loads(out.read_text())


def test_one_server_per_project_and_the_calls_as_lists(tmp_path, tree):
    answers = neovim(tmp_path, tree, "", ["torch/nn/modules/conv.py", "torch/nn/functional.py"])
    assert answers["errors"] == []
    # no marker above either file: the folder Neovim started in; one server for both buffers
    assert answers["clients"] == [["explorer", str(tree)]]
    # conv.py:244 self._conv_forward(...): listed at its definition, conv.py:228
    assert answers["outgoing"] == [
        ["torch/nn/modules/conv.py", 228, "torch.nn.modules.conv.Conv2d._conv_forward  python · method"]
    ]
    # conv.py:228 _conv_forward is called at conv.py:244, in forward
    assert answers["incoming"] == [
        ["torch/nn/modules/conv.py", 244, "torch.nn.modules.conv.Conv2d.forward  python · method"]
    ]
    # the code lens on conv.py:243 traces to the nearest vendor call, in the chain's order: the
    # padding branch, conv.py:231 F.pad, down to `AT_CUDA_CHECK(cudaMalloc(&data, nbytes))`
    # (EmptyTensor.cpp:24), each hop at its definition, the vendor API (no source) at its call
    trace = [item[:2] for item in answers["trace"]]
    assert trace[:3] == [
        ["torch/nn/modules/conv.py", 243],
        ["torch/nn/modules/conv.py", 228],
        ["torch/nn/functional.py", 70],
    ]
    assert trace[-1] == ["aten/src/ATen/cuda/EmptyTensor.cpp", 24]
    assert answers["trace"][-1][2] == "  AT_CUDA_CHECK(cudaMalloc(&data, nbytes));"


def test_a_marker_nearer_the_file_makes_its_own_project_unless_the_root_is_given(tmp_path, tree):
    files = ["torch/nn/modules/conv.py", "mini_ops/ops.py"]  # mini_ops holds a setup.py
    found = neovim(tmp_path / "markers", tree, "", files, clients=2)
    assert found["clients"] == [["explorer", str(tree)], ["explorer", str(tree / "mini_ops")]]
    given = neovim(tmp_path / "given", tree, f', root = "{tree}"', files)
    assert given["clients"] == [["explorer", str(tree)]]
