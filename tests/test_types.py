"""The package type-checks (the records passed between layers are typed; keep them honest)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.skipif(
    shutil.which("mypy") is None
    and subprocess.run([sys.executable, "-m", "mypy", "--version"], capture_output=True).returncode != 0,
    reason="mypy is not installed",
)
def test_mypy_finds_no_errors():
    root = Path(__file__).resolve().parent.parent
    result = subprocess.run([sys.executable, "-m", "mypy", "explorer"], cwd=root, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout
