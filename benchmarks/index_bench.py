"""Index and search speed on a real PyTorch tree, against universal-ctags in the same run.

    python benchmarks/index_bench.py --root /path/to/pytorch [--repeat 3]

The tree is copied to a temporary folder first, so the one-changed-file case can edit a file
without touching the original. Figures (medians of --repeat runs unless noted):
- cold index: `explorer index --rebuild --jobs 1` and `--jobs 2`, wall and CPU (the command and
  its parser workers), vs `ctags -R` over the same copy: the CPU of one job against ctags', and
  the wall of two jobs against one's;
- no-change refresh: `explorer index` when nothing changed (the check every query makes);
- one changed file: `explorer index` after appending a line to one C++ and one Python file;
- search: `search()` in-process, median over a query set, after one warm-up query;
- peak memory: the sum of resident memory of the indexer and its workers, sampled;
- where the CPU goes: one more cold `--jobs 1` build in a process of its own with
  explorer/stage_clock.py on, each stage's CPU-seconds (its own, nested stages taken out) and
  its share in units of ctags' CPU: the tree-sitter parse and queries are the floor any
  tree-sitter indexer pays, the rest is explorer's.
Targets from the issue are printed beside each figure; this script asserts nothing.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from common import arguments

from explorer.index.store import IndexStore
from explorer.names.search import search_symbols

QUERIES = [
    "conv2d",
    "Conv2d",
    "cudnnconvfwd",
    "relu",
    "batch_norm",
    "at::native::conv",
    "nn.Conv2d",
    "addmm_out_cuda",
    "cudnn_convolution",
    "softmax",
    "lstm",
    "max_pool2d",
    "embedding",
    "TORCH_IMPL",
    "Linear",
    "gemm",
    "dropout",
    "index_select",
    "xyzzy_not_there",
    "cbn",
]


def timed(command: list[str], env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - started


def _tree_rss_kib(pid: int) -> int:
    """Resident memory of a process and all its descendants, from /proc (children lists
    rather than a scan of every process, so sampling costs the measured run little)."""
    total, pending = 0, [pid]
    while pending:
        current = pending.pop()
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as handle:
                    pending.extend(int(child) for child in handle.read().split())
            with open(f"/proc/{current}/status") as handle:
                for line in handle:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


def cpu_seconds_of_children() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed_with_peak_memory(command: list[str], env: dict[str, str]) -> tuple[float, int, float]:
    """Wall seconds, peak resident KiB of the process tree, and CPU seconds of the command and
    every process it waited for (its parser workers)."""
    cpu_before = cpu_seconds_of_children()
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _tree_rss_kib(process.pid))
            time.sleep(0.2)

    sampler = threading.Thread(target=sample)
    sampler.start()
    process.wait()
    elapsed = time.perf_counter() - started
    done.set()
    sampler.join()
    if process.returncode != 0:
        raise SystemExit(f"command failed: {' '.join(command)}")
    return elapsed, peak, cpu_seconds_of_children() - cpu_before


# Run in a process of its own: the build's CPU per stage, as JSON on stdout.
_BREAKDOWN = """
import json, sys, time
from pathlib import Path
from explorer import stage_clock
from explorer.index.build import refresh
stage_clock.start()
began = time.process_time()
refresh(sys.argv[1], Path(sys.argv[2]), jobs=1, rebuild=True)
total = time.process_time() - began
stages = stage_clock.stop()
stages["everything else (walk, compare, merge, progress)"] = total - sum(stages.values())
print(json.dumps({"total": total, "stages": stages}))
"""


def cpu_breakdown(tree: Path, index: Path, env: dict[str, str]) -> tuple[float, dict[str, float]]:
    """The CPU-seconds of one in-process cold build, and of each of its stages."""
    done = subprocess.run(
        [sys.executable, "-c", _BREAKDOWN, str(tree), str(index)], env=env, check=True, capture_output=True, text=True
    )
    measured = json.loads(done.stdout.strip().splitlines()[-1])
    return measured["total"], measured["stages"]


def main() -> None:
    args = arguments(__doc__, repeat=3)
    ctags = shutil.which("ctags")
    if ctags is None:
        raise SystemExit("universal-ctags is needed for the reference figure (apt-get install universal-ctags)")
    explorer = [sys.executable, "-m", "explorer.cli"]

    with tempfile.TemporaryDirectory(prefix="explorer-bench-") as scratch:
        tree = Path(scratch) / "tree"
        print(f"copying {args.root} ...", flush=True)
        shutil.copytree(args.root, tree, symlinks=True)
        index = Path(scratch) / "index.sqlite"
        # the tree alone, as ctags reads it: `explorer index` would also index the installed
        # packages the tree imports (numpy, scipy...), once, in the first cold run only
        env = {**os.environ, "EXPLORER_CACHE_DIR": scratch, "EXPLORER_PYTHON_ENV": "none"}
        tags = Path(scratch) / "tags"

        ctags_runs, ctags_cpu = [], []
        for _ in range(args.repeat):
            cpu_before = cpu_seconds_of_children()
            ctags_runs.append(timed([ctags, "-R", "-f", str(tags), str(tree)]))
            ctags_cpu.append(cpu_seconds_of_children() - cpu_before)
        cold: dict[int, list[tuple[float, int, float]]] = {1: [], 2: []}
        for _ in range(args.repeat):
            for jobs in (1, 2):
                cold[jobs].append(
                    timed_with_peak_memory(
                        [
                            *explorer,
                            "index",
                            "--rebuild",
                            "--jobs",
                            str(jobs),
                            "--root",
                            str(tree),
                            "--index",
                            str(index),
                        ],
                        env,
                    )
                )
        refresh_runs = [
            timed([*explorer, "index", "--root", str(tree), "--index", str(index)], env)
            for _ in range(max(5, args.repeat))
        ]
        edited = [tree / "aten/src/ATen/native/Convolution.cpp", tree / "torch/nn/modules/conv.py"]
        changed_runs = []
        for number in range(max(5, args.repeat)):
            target = edited[number % len(edited)]
            with open(target, "a", encoding="utf-8") as handle:
                handle.write(
                    f"\n// benchmark edit {number}\n" if target.suffix == ".cpp" else f"\n# benchmark edit {number}\n"
                )
            changed_runs.append(timed([*explorer, "index", "--root", str(tree), "--index", str(index)], env))

        breakdown_total, breakdown = cpu_breakdown(tree, Path(scratch) / "breakdown.sqlite", env)

        store = IndexStore.open(index)
        search_symbols(store, "warm up")
        per_query = {}
        for query in QUERIES:
            samples = []
            for _ in range(max(5, args.repeat)):
                started = time.perf_counter()
                search_symbols(store, query)
                samples.append(time.perf_counter() - started)
            per_query[query] = statistics.median(samples)
        stats = store.stats()
        store.close()

    ctags_median, ctags_cpu_median = statistics.median(ctags_runs), statistics.median(ctags_cpu)
    wall = {jobs: statistics.median(run[0] for run in runs) for jobs, runs in cold.items()}
    cpu = {jobs: statistics.median(run[2] for run in runs) for jobs, runs in cold.items()}
    peaks = [run[1] for runs in cold.values() for run in runs]
    search_median = statistics.median(per_query.values())
    rows = [
        ("ctags -R (reference)", f"{ctags_median:.2f} s", f"{ctags_cpu_median:.2f} CPU-s"),
        (
            "cold index, --jobs 1",
            f"{wall[1]:.2f} s",
            f"{cpu[1]:.1f} CPU-s: {cpu[1] / ctags_cpu_median:.1f}x ctags' CPU (target <= 8x)",
        ),
        (
            "cold index, --jobs 2",
            f"{wall[2]:.2f} s",
            f"{cpu[2]:.1f} CPU-s; wall {wall[2] / wall[1]:.2f}x --jobs 1's (target <= 0.55x)",
        ),
        ("no-change refresh", f"{statistics.median(refresh_runs):.2f} s", "target < 1 s"),
        ("one changed file", f"{statistics.median(changed_runs):.2f} s", "target < 1.5 s"),
        (
            "search, in-process",
            f"{search_median * 1000:.1f} ms",
            f"target < 50 ms; slowest {max(per_query.values()) * 1000:.1f} ms",
        ),
        ("peak memory (indexer + workers)", f"{max(peaks) / 1024 / 1024:.2f} GiB", "target < 1.5 GiB"),
    ]
    print(f"\ntree: {args.root}: {stats.files:,} files, {stats.symbols:,} symbols, {stats.calls:,} call sites")
    print(f"runs: {args.repeat} (cold), {max(5, args.repeat)} (refresh, edit, each query); cores: {os.cpu_count()}\n")
    width = max(len(name) for name, _, _ in rows)
    for name, value, note in rows:
        print(f"{name:<{width}}  {value:>9}  {note}")
    print("\nsearch medians per query (ms): " + ", ".join(f"{q} {t * 1000:.1f}" for q, t in per_query.items()))
    print(f"\nwhere a --jobs 1 cold build's CPU goes (one instrumented run, {breakdown_total:.1f} CPU-s in all):")
    floor = sum(seconds for name, seconds in breakdown.items() if name.startswith("tree-sitter"))
    for name, seconds in sorted(breakdown.items(), key=lambda item: -item[1]):
        print(
            f"  {name:<48} {seconds:6.1f} CPU-s  {seconds / ctags_cpu_median:5.1f}x ctags'  {100 * seconds / breakdown_total:4.1f}%"
        )
    print(
        f"  the tree-sitter parse and queries (the floor): {floor / ctags_cpu_median:.1f}x ctags' CPU; "
        f"the rest: {(breakdown_total - floor) / ctags_cpu_median:.1f}x"
    )


if __name__ == "__main__":
    main()
