"""Step 1 of `explorer run --python` (profiler.py): the interpreter exists and imports torch;
where its torch package and torchgen are, and whether CUDA is available."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
from dataclasses import dataclass

from explorer.errors import ExplorerError, UsageError

_PROBE_MARK = "explorer-torch-probe "


_PROBE = f"""
import json, os, sys, importlib.util
try:
    import torch
except BaseException as error:
    print({_PROBE_MARK!r} + json.dumps({{"error": f"{{type(error).__name__}}: {{error}}"}}))
    sys.exit(0)
spec = importlib.util.find_spec("torchgen")
print({_PROBE_MARK!r} + json.dumps({{
    "version": torch.__version__,
    "package": os.path.dirname(os.path.abspath(torch.__file__)),
    "cuda": bool(torch.cuda.is_available()),
    "torchgen": os.path.dirname(os.path.abspath(spec.origin)) if spec and spec.origin else None,
}}))
"""


@dataclass(frozen=True, slots=True)
class TorchInstall:
    """What the probe learned about the interpreter of --python."""

    python: str  # the interpreter's path
    version: str  # 2.13.0+cpu
    package: str  # the torch package folder
    cuda: bool
    torchgen: str | None  # the torchgen package folder, with the packaged native_functions.yaml

    @property
    def site(self) -> str:
        """The folder holding the torch package: Python paths are shown relative to it."""
        return os.path.dirname(self.package)


@functools.lru_cache(maxsize=8)
def probe_torch(python: str) -> TorchInstall:
    """Importing torch takes seconds: an interpreter is probed once per explorer process
    (a failed probe raises, and is not remembered)."""
    executable = shutil.which(python) if os.sep not in python else (python if os.path.isfile(python) else None)
    if executable is None:
        raise UsageError(f"--python {python}: no such interpreter")
    if not os.access(executable, os.X_OK):
        raise UsageError(f"--python {python}: not executable")
    try:
        completed = subprocess.run([executable, "-c", _PROBE], capture_output=True, text=True, errors="replace")
    except OSError as error:
        raise ExplorerError(f"--python {python}: cannot start it ({error.strerror})") from None
    answers = [line[len(_PROBE_MARK) :] for line in completed.stdout.splitlines() if line.startswith(_PROBE_MARK)]
    if not answers:
        last = (completed.stderr.strip().splitlines() or [f"exit code {completed.returncode}"])[-1]
        raise ExplorerError(f"--python {python}: cannot import torch ({last})")
    found = json.loads(answers[-1])
    if "error" in found:
        raise ExplorerError(f"--python {python}: cannot import torch ({found['error']})")
    return TorchInstall(executable, found["version"], found["package"], found["cuda"], found["torchgen"])
