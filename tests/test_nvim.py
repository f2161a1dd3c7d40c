"""A real editor: Neovim's built-in LSP client, headless, driven by tests/nvim/lsp_probe.lua,
asks explorer's server for workspace symbols and both call hierarchies on the bundled tree.
Skipped where Neovim is not installed (.ci/run installs it)."""

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
PROBE = Path(__file__).parent / "nvim" / "lsp_probe.lua"


@pytest.mark.skipif(NVIM is None, reason="Neovim (nvim) is not installed")
def test_neovim_follows_calls_through_explorer_lsp(tmp_path: Path):
    out = tmp_path / "answers.json"
    env = {
        **os.environ,
        "EXPLORER_CACHE_DIR": str(tmp_path / "cache"),
        "EXPLORER_PYTHON_ENV": "none",
        "EXPLORER_NVIM_ROOT": str(SAMPLE_ROOT),
        "EXPLORER_NVIM_OUT": str(out),
        "EXPLORER_NVIM_SERVER": json.dumps([sys.executable, "-m", "explorer", "lsp"]),
    }
    subprocess.run(
        [NVIM, "--headless", "--clean", "-c", f"luafile {PROBE}"],
        env=env,
        timeout=300,
        check=True,
        stdin=subprocess.DEVNULL,
        capture_output=True,
    )
    answers = json.loads(out.read_text())
    assert answers["errors"] == []
    assert answers["symbols"][:3] == [
        "aten::cudnn_convolution",
        "at::native::cudnn_convolution",
        "at::native::cudnn_convolution",
    ]
    assert answers["outgoing"] == [
        # conv.py:244 self._conv_forward(...)
        [["torch.nn.modules.conv.Conv2d._conv_forward", "python · method"]],
        # conv.py:230 and :239 F.conv2d, :231 F.pad, :235 _pair(0) (utils.py:27 _pair = _ntuple(2, ...): its parse, named _pair)
        [
            ["torch.nn.functional.conv2d", "python · call"],
            ["torch.nn.functional.pad", "python · call"],
            ["torch.nn.modules.utils._pair", "python · call"],
        ],
        # functional.py:37 conv2d = _add_docstr(torch.conv2d, ...): the binding
        [["torch._C._VariableFunctions.conv2d", "binding · alias"]],
    ]
    assert answers["incoming"] == [
        # kernels.cu:65 the launch in clamp_add_cuda; kernels.cu:86 its CUDA registration
        [["mini_ops::clamp_add_cuda", "cuda · launch"]],
        [["mini_ops::clamp_add", "yaml · dispatch:CUDA"]],
    ]
