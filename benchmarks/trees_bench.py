"""What joining trees costs: a warm query over a user's project plus a PyTorch checkout (and
the project's environment) against the same query over the checkout alone, in the same run.

    python benchmarks/trees_bench.py --root /path/to/pytorch [--env /path/to/venv] [--repeat 5]

--env names an environment folder with torch installed (a wheel). Figures (medians; the
joined runs alternate with the checkout-alone runs, and each ratio is the median of the
pairs' ratios, so the machine's drift falls on both sides):
- alone: `explorer trace torch.nn.Conv2d --to cudnnConvolutionForward --root CHECKOUT`;
- joined: the same trace with `--root PROJECT --tree CHECKOUT` (PROJECT: a small model);
- joined + env: also `--python-env ENV`, whose torch the checkout hides (said, not read);
- wheel only: `--root PROJECT --python-env ENV`, the trace reaching the wheel's operators;
- indexing the wheel: `explorer index --root PROJECT --python-env ENV` in an empty cache,
  once (what the first query after installing torch pays).
Every index is brought up to date before timing. This script asserts nothing.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import arguments

_MODEL = (
    "import torch\n\n\nclass Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.conv = torch.nn.Conv2d(3, 8, 3)\n\n    def forward(self, x):\n        return self.conv(x)\n"
)


def _seconds(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - started


def _paired(command: list[str], reference: list[str], repeat: int, env: dict[str, str]) -> tuple[float, float, float]:
    """Median seconds of `command` and `reference`, run in turn, and the median ratio of pairs."""
    pairs = [(_seconds(command, env), _seconds(reference, env)) for _ in range(repeat)]
    return (
        statistics.median(a for a, _ in pairs),
        statistics.median(b for _, b in pairs),
        statistics.median(a / b for a, b in pairs),
    )


def main() -> None:
    import argparse

    extra = argparse.ArgumentParser(add_help=False)
    extra.add_argument("--env", default=None)
    known, rest = extra.parse_known_args()
    sys.argv = [sys.argv[0], *rest]
    args = arguments(__doc__, repeat=5)
    explorer = [sys.executable, "-m", "explorer.cli"]
    query = ["trace", "torch.nn.Conv2d", "--to", "cudnnConvolutionForward"]
    with tempfile.TemporaryDirectory(prefix="explorer-trees-bench-") as work:
        project = Path(work) / "project"
        (project / "mynet").mkdir(parents=True)
        (project / "mynet" / "__init__.py").write_text("")
        (project / "mynet" / "model.py").write_text(_MODEL)
        env = {**os.environ, "EXPLORER_CACHE_DIR": str(Path(work) / "cache"), "EXPLORER_PYTHON_ENV": "none"}
        alone = [*explorer, *query, "--root", args.root]
        joined = [*explorer, *query, "--root", str(project), "--tree", args.root]
        runs = [("joined: project + checkout", joined)]
        if known.env:
            runs.append(("joined + env: project + checkout + installed torch", [*joined, "--python-env", known.env]))
        print(f"indexing {args.root} ...", flush=True)
        for _, command in [("alone", alone), *runs]:
            subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        print(f"\nruns: {args.repeat} each (median); cores: {os.cpu_count()}\n")
        for name, command in runs:
            seconds, reference, ratio = _paired(command, alone, args.repeat, env)
            print(f"{name:<52}  {seconds:6.2f} s   checkout alone {reference:6.2f} s   ratio {ratio:.2f}")
        if known.env:
            wheel = [*explorer, "trace", "mynet.model.Net.forward", "--root", str(project), "--python-env", known.env]
            fresh = {**env, "EXPLORER_CACHE_DIR": str(Path(work) / "fresh-cache")}
            first = _seconds([*explorer, "index", "--root", str(project), "--python-env", known.env], fresh)
            print(f"{'indexing the installed torch (once per install)':<52}  {first:6.2f} s")
            warm = statistics.median(_seconds(wheel, fresh) for _ in range(args.repeat))
            print(f"{'wheel only: trace mynet.model.Net.forward':<52}  {warm:6.2f} s")


if __name__ == "__main__":
    main()
