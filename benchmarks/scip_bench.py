"""`explorer scip` on a real tree: the time to write the index (a whole process, the project's
index warm) and its size and contents, for the whole tree or the folders given.

    python benchmarks/scip_bench.py --root /path/to/pytorch [--repeat 3] [--under torch/nn] [--under ...]

The index is brought up to date first (not counted). Prints the median wall time, the
largest resident set a run reached, and the counts the command reports. Asserts nothing.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import arguments


def main() -> None:
    args = arguments(__doc__, repeat=3, folders=True)
    folders = args.under or [""]
    env = {**os.environ, "EXPLORER_PYTHON_ENV": "none"}
    subprocess.run(
        [sys.executable, "-m", "explorer", "index", "--root", args.root], check=True, stdout=subprocess.DEVNULL, env=env
    )
    with tempfile.TemporaryDirectory(prefix="explorer-scip-bench-") as work:
        for folder in folders:
            output = Path(work) / "index.scip"
            command = [sys.executable, "-m", "explorer", "scip", "--root", args.root, "-o", str(output)]
            command += ["--under", folder] if folder else []
            samples, said = [], ""
            for _ in range(args.repeat):
                started = time.perf_counter()
                done = subprocess.run(command, check=True, capture_output=True, text=True, env=env)
                samples.append(time.perf_counter() - started)
                said = done.stdout.strip()
            # the largest of every child so far: the runs before this folder's count too
            resident = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
            print(
                f"{folder or 'the whole tree'}: median {statistics.median(samples):.1f} s of {args.repeat}; "
                f"{output.stat().st_size / 1024 / 1024:.1f} MiB; at most {resident:,.0f} MiB resident; {said.split(': ', 1)[1]}"
            )


if __name__ == "__main__":
    main()
