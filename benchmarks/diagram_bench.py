"""Diagram rendering speed on a real PyTorch tree with a warm index.

    python benchmarks/diagram_bench.py --root /path/to/pytorch [--repeat 5]

Figures (medians of --repeat runs of the command as a user types it, start-up included):
- trace, text: `explorer trace torch.nn.Conv2d --to cudnnConvolutionForward` (reference: the
  same trace without a diagram);
- `--format dot|svg|png|html -o FILE` of that trace (target < 3 s for each);
- dot -Tsvg: graphviz's own layout of the DOT the trace gives (reference: the share of a
  rendering that is graphviz's).
Ratios are against the text trace measured in the same run. This script asserts nothing.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile

from common import arguments, median_seconds

TARGET_SECONDS = 3.0


def main() -> None:
    args = arguments(__doc__, repeat=5)
    root = args.root
    explorer = [sys.executable, "-m", "explorer.cli"]
    trace = [*explorer, "trace", "torch.nn.Conv2d", "--to", "cudnnConvolutionForward", "--root", root]
    with tempfile.TemporaryDirectory(prefix="explorer-diagram-bench-") as scratch:
        env = {**os.environ, "EXPLORER_CACHE_DIR": os.path.join(scratch, "cache")}
        print(f"indexing {root} ...", flush=True)
        subprocess.run([*explorer, "index", "--root", root], check=True, stdout=subprocess.DEVNULL, env=env)
        dot_source = subprocess.run([*trace, "--format", "dot"], check=True, capture_output=True, env=env).stdout
        results = [("trace, text (reference)", median_seconds(trace, args.repeat, env), False)]
        for output_format in ("dot", "svg", "png", "html"):
            output = os.path.join(scratch, f"conv2d.{output_format}")
            command = [*trace, "--format", output_format, "-o", output]
            results.append((f"trace --format {output_format}", median_seconds(command, args.repeat, env), True))
        results.append(
            (
                "dot -Tsvg of that DOT (graphviz alone)",
                median_seconds(["dot", "-Tsvg"], args.repeat, env, dot_source),
                False,
            )
        )
    reference = results[0][1]
    width = max(len(name) for name, _, _ in results)
    nodes = len(re.findall(rb"^\s+[nmf]\d+ \[", dot_source, re.MULTILINE))  # not the legend
    print(f"\nruns: {args.repeat} each (median); cores: {os.cpu_count()}; diagram: {nodes} nodes\n")
    for name, seconds, targeted in results:
        note = f"{seconds / reference:.2f}x text trace; target < {TARGET_SECONDS:g} s" if targeted else ""
        print(f"{name:<{width}}  {seconds:6.2f} s  {note}")


if __name__ == "__main__":
    main()
