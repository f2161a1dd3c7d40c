"""The Emacs set-up as docs/editor.md writes it (editors/emacs/explorer-lsp.el on the load
path, `(require 'explorer-lsp)`, `(explorer-lsp-setup)`), in Emacs in batch mode with eglot, on
a copy of the bundled tree marked as a project by a setup.cfg at its top:
tests/emacs/eglot_probe.el records what a user would see. Emacs 28.2 with eglot 1.9 (Debian's
emacs-nox and elpa-eglot) is what installs here. Expected lines were read off sample_repo."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.folders import SAMPLE_ROOT

EMACS = shutil.which("emacs")
REPO = Path(__file__).resolve().parent.parent
PROBE = REPO / "tests" / "emacs" / "eglot_probe.el"


def _has_eglot() -> bool:
    if EMACS is None:
        return False
    found = subprocess.run(
        [EMACS, "--batch", "--eval", "(progn (package-initialize) (require 'eglot))"], capture_output=True, timeout=60
    )
    return found.returncode == 0


pytestmark = pytest.mark.skipif(not _has_eglot(), reason="Emacs with eglot is not installed")


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict:
    work = tmp_path_factory.mktemp("emacs")
    tree = work / "sample"
    shutil.copytree(SAMPLE_ROOT, tree, ignore=shutil.ignore_patterns("__pycache__", "build"))
    (tree / "setup.cfg").write_text("")  # the project's top, the weakest of the markers
    out = work / "answers.json"
    env = {
        **os.environ,
        "EXPLORER_CACHE_DIR": str(work / "cache"),
        "EXPLORER_PYTHON_ENV": "none",
        "HOME": str(work / "home"),
        "EXPLORER_EMACS_CONFIG": str(REPO / "editors" / "emacs"),
        "EXPLORER_EMACS_ROOT": str(tree),
        "EXPLORER_EMACS_OUT": str(out),
        "EXPLORER_EMACS_COMMAND": json.dumps([sys.executable, "-m", "explorer", "lsp"]),
    }
    done = subprocess.run(
        [EMACS, "--batch", "--eval", "(package-initialize)", "-l", str(PROBE)],
        cwd=tree,
        env=env,
        timeout=240,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = dict(json.loads(out.read_text()))
    assert "error" not in found, found
    return found


def test_one_server_per_project_root_started_with_the_configured_command(answers):
    assert answers["server_command"] == [sys.executable, "-m", "explorer", "lsp"]
    assert answers["same_server"] is True and answers["servers"] == 1


def test_a_marker_nearer_the_file_makes_its_own_project_unless_the_root_is_given(answers):
    # setup.cfg at the tree's top; mini_ops/setup.py nearer mini_ops/ops.py, and a setup.py
    # comes before a setup.cfg among the markers
    assert answers["conv_root"] == "./"
    assert answers["nested_root"] == "mini_ops/"
    assert answers["nested_root_given"] == "./"


def test_definition_crosses_from_python_into_the_binding_and_workspace_symbols_reach_cpp(answers):
    # conv.py:230 `F.conv2d(` -> functional.py:37 `conv2d = _add_docstr(torch.conv2d, ...)`
    assert answers["definition"] == [["torch/nn/functional.py", 37]]
    # aten/src/ATen/native/cudnn/ConvShared.cpp:43 `void cudnn_convolution_forward_out(...`
    assert answers["symbols"][0] == ["aten/src/ATen/native/cudnn/ConvShared.cpp", 43]
