"""Tracing speed on a real PyTorch tree with a warm index, against grep in the same run.

    python benchmarks/trace_bench.py --root /path/to/pytorch [--repeat 5]

Figures (medians of --repeat runs of the command as a user types it, start-up included):
- trace: `explorer trace torch.nn.Conv2d --to cudnnConvolutionForward` (target < 2 s);
- callers: `explorer callers cudnnConvolutionForward --depth 3` (target < 2 s);
- callgraph: `explorer callgraph` over torch/optim, a 10k-line package (target < 5 s), its
  index built first and not counted;
- reference: `grep -rn cudnnConvolutionForward` over the tree, the first step of doing it by
  hand; for the call graph, Python's own parser run over torch/optim (start-up included).
The index of the tree is brought up to date before timing. This script asserts nothing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from common import arguments, median_seconds

_PARSE_ALL = "import ast, pathlib, sys; [ast.parse(p.read_bytes()) for p in pathlib.Path(sys.argv[1]).rglob('*.py')]"


def main() -> None:
    args = arguments(__doc__, repeat=5)
    root = args.root
    package = str(Path(root) / "torch" / "optim")
    explorer = [sys.executable, "-m", "explorer.cli"]
    with tempfile.TemporaryDirectory(prefix="explorer-trace-bench-") as cache:
        env = {**os.environ, "EXPLORER_CACHE_DIR": cache}
        print(f"indexing {root} and {package} ...", flush=True)
        for tree in (root, package):
            subprocess.run([*explorer, "index", "--root", tree], check=True, stdout=subprocess.DEVNULL, env=env)
        lines = sum(len(path.read_bytes().splitlines()) for path in Path(package).rglob("*.py"))
        figures = [
            ("grep -rn cudnnConvolutionForward (reference)", ["grep", "-rn", "cudnnConvolutionForward", root], None),
            (
                "trace Conv2d --to cudnnConvolutionForward",
                [*explorer, "trace", "torch.nn.Conv2d", "--to", "cudnnConvolutionForward", "--root", root],
                2.0,
            ),
            (
                "callers cudnnConvolutionForward --depth 3",
                [*explorer, "callers", "cudnnConvolutionForward", "--depth", "3", "--root", root],
                2.0,
            ),
            ("ast.parse of torch/optim (reference)", [sys.executable, "-c", _PARSE_ALL, package], None),
            (f"callgraph torch/optim ({lines:,} lines)", [*explorer, "callgraph", "--root", package], 5.0),
        ]
        results = [
            (name, median_seconds(command, args.repeat, env, check=False), target) for name, command, target in figures
        ]
    grep_tree, grep_package = results[0][1], results[3][1]
    width = max(len(name) for name, _, _ in results)
    print(f"\nruns: {args.repeat} each (median); cores: {os.cpu_count()}\n")
    for name, seconds, target in results:
        reference = grep_package if "callgraph" in name else grep_tree
        against = "ast.parse" if "callgraph" in name else "grep"
        note = "" if target is None else f"{seconds / reference:.1f}x {against}; target < {target:g} s"
        print(f"{name:<{width}}  {seconds:6.2f} s  {note}")


if __name__ == "__main__":
    main()
