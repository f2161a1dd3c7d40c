"""Tracing overhead of `explorer run` on the bundled reference runtime.

    python benchmarks/run_bench.py [--repeat 5]

Figures (medians of --repeat runs, start-up included, native library already built):
- the program alone: `python -c CODE` with the bundled tree on PYTHONPATH (reference);
- `explorer run -c CODE` on device cuda and on cpu (target < 2 s each), where CODE builds a
  Conv2d and runs its forward on a 2x3x16x16 input;
- the same with --compare (the static comparison added).
Ratios are against the program alone, measured in the same run. This script asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from common import median_seconds

SAMPLE_ROOT = Path(__file__).resolve().parent.parent / "sample_repo"
CODE = "import torch; m = torch.nn.Conv2d(3, 8, 3).to('cuda'); m(torch.randn(2, 3, 16, 16, device='cuda'))"
TARGET_SECONDS = 2.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (median)")
    args = parser.parse_args()
    explorer = [sys.executable, "-m", "explorer.cli", "run"]
    with tempfile.TemporaryDirectory(prefix="explorer-run-bench-") as scratch:
        env = {**os.environ, "EXPLORER_CACHE_DIR": os.path.join(scratch, "cache")}
        plain_env = {**env, "PYTHONPATH": str(SAMPLE_ROOT)}
        print("building the plain and the instrumented library, indexing the bundled tree ...", flush=True)
        subprocess.run([sys.executable, "-c", CODE], check=True, env=plain_env)
        for device in ("cuda", "cpu"):
            subprocess.run(
                [*explorer, "--backend-device", device, "-c", CODE], check=True, stdout=subprocess.DEVNULL, env=env
            )
        results = [
            (
                "the program alone (reference)",
                median_seconds([sys.executable, "-c", CODE], args.repeat, plain_env),
                False,
            )
        ]
        for device in ("cuda", "cpu"):
            command = [*explorer, "--backend-device", device, "-c", CODE]
            results.append((f"explorer run, device {device}", median_seconds(command, args.repeat, env), True))
        command = [*explorer, "--backend-device", "cuda", "--compare", "-c", CODE]
        results.append(("explorer run --compare, device cuda", median_seconds(command, args.repeat, env), True))
    reference = results[0][1]
    width = max(len(name) for name, _, _ in results)
    print(f"\nruns: {args.repeat} each (median); cores: {os.cpu_count()}\nprogram: {CODE}\n")
    for name, seconds, targeted in results:
        note = f"{seconds / reference:.2f}x the program alone; target < {TARGET_SECONDS:g} s" if targeted else ""
        print(f"{name:<{width}}  {seconds:6.2f} s  {note}")


if __name__ == "__main__":
    main()
