"""The code is formatted and linted as pyproject.toml's [tool.ruff] says (ruff, from the test extras)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_RUFF = [sys.executable, "-m", "ruff"]
pytestmark = pytest.mark.skipif(
    shutil.which("ruff") is None and subprocess.run([*_RUFF, "--version"], capture_output=True).returncode != 0,
    reason="ruff is not installed",
)


def test_ruff_finds_no_lint():
    result = subprocess.run([*_RUFF, "check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_code_is_formatted():
    result = subprocess.run([*_RUFF, "format", "--check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
