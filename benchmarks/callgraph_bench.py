"""`explorer callgraph` against PyCG and pyan3 (when installed), in the same run.

    PYCG=/path/to/pycg PYAN3=/path/to/pyan3 python benchmarks/callgraph_bench.py --root /path/to/pytorch [--repeat 3] [--limit 600]

1. Accuracy on our case folders (tests/callgraph_cases/): n/N exact, edge precision and
   recall, for explorer and for PyCG given the same folders (each case's main.py and every
   module beside it as entry points, the folder as the package root).
2. CPU on torch/nn: explorer's `callgraph` of an index of torch/nn (built first, not timed;
   the cold index is timed on its own line), and PyCG and pyan3 over the same .py files. CPU
   is user + system time of the command and its children, median of --repeat runs. pyan3
   matches calls to definitions by name (no value flow); its graph is not in PyCG's naming,
   so it is timed here, not scored in 1. A tool's first run that passes --limit seconds is
   stopped and reported unfinished, and not run again.
3. All of torch/: `explorer callgraph` with the index built, wall time and peak memory.
A tool that is not found is skipped. This script asserts nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import arguments

CASES = Path(__file__).resolve().parent.parent / "tests" / "callgraph_cases"


UNFINISHED = -9  # the return code of a run stopped at --limit


def cpu_and_peak(
    command: list[str], env: dict[str, str], limit: float | None = None
) -> tuple[float, float, float, subprocess.CompletedProcess]:
    """CPU seconds (user + system), wall seconds and peak resident MiB of one command, read
    from its own rusage (wait4), with its output kept; stopped after `limit` seconds."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err, env=env)
        while True:  # wait4 itself, not Popen.wait, which would reap the rusage away
            pid, status, usage = os.wait4(process.pid, os.WNOHANG if limit is not None else 0)
            if pid:
                break
            if time.perf_counter() - started > limit:  # type: ignore[operator]
                process.kill()
                limit = None
            else:
                time.sleep(0.2)
        wall = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        result = subprocess.CompletedProcess(command, os.waitstatus_to_exitcode(status), out.read(), err.read())
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024, result


def edges(graph: dict[str, list[str]]) -> set[tuple[str, str]]:
    return {(caller, callee) for caller, callees in graph.items() for callee in callees}


def score(name: str, graphs: dict[Path, dict[str, list[str]] | None]) -> None:
    exact = tp = fp = fn = failed = 0
    for case, got in graphs.items():
        want = json.loads((case / "callgraph.json").read_text())
        if got is None:
            failed += 1
            got = {}
        w, g = edges(want), edges(got)
        exact += w == g
        tp, fp, fn = tp + len(w & g), fp + len(g - w), fn + len(w - g)
    precision = tp / (tp + fp) if tp + fp else 0.0
    print(
        f"  {name:9} {exact}/{len(graphs)} exact, edge precision {precision:.3f}, recall {tp / (tp + fn):.3f}"
        + (f" ({failed} cases failed to run)" if failed else "")
    )


def explorer_graphs(env: dict[str, str]) -> dict[Path, dict[str, list[str]] | None]:
    graphs: dict[Path, dict[str, list[str]] | None] = {}
    for case in sorted(p.parent for p in CASES.rglob("callgraph.json")):
        result = subprocess.run(
            [sys.executable, "-m", "explorer", "callgraph", "--root", str(case)], capture_output=True, env=env
        )
        graphs[case] = json.loads(result.stdout) if result.returncode == 0 else None
    return graphs


def pycg_graphs(pycg: str) -> dict[Path, dict[str, list[str]] | None]:
    graphs: dict[Path, dict[str, list[str]] | None] = {}
    for case in sorted(p.parent for p in CASES.rglob("callgraph.json")):
        entries = sorted(str(p) for p in case.rglob("*.py"))
        result = subprocess.run([pycg, "--package", str(case), *entries], capture_output=True, cwd=case)
        try:
            graphs[case] = json.loads(result.stdout) if result.returncode == 0 else None
        except json.JSONDecodeError:
            graphs[case] = None
    return graphs


def main() -> None:
    args = arguments(__doc__, repeat=3, limit=600)
    pycg = os.environ.get("PYCG") or shutil.which("pycg")
    pyan3 = os.environ.get("PYAN3") or shutil.which("pyan3")
    scratch = Path(tempfile.mkdtemp(prefix="callgraph-bench-"))
    env = {**os.environ, "EXPLORER_CACHE_DIR": str(scratch / "cache")}
    try:
        print("1. our case folders")
        score("explorer", explorer_graphs(env))
        if pycg:
            score("PyCG", pycg_graphs(pycg))
        else:
            print("  PyCG      not installed (pip install pycg, or PYCG=path)")

        nn = Path(args.root) / "torch" / "nn"
        nn_files = sorted(str(p) for p in nn.rglob("*.py"))
        print(f"2. torch/nn ({len(nn_files)} .py files), CPU seconds, median of {args.repeat}")
        cold, _, _, _ = cpu_and_peak([sys.executable, "-m", "explorer", "index", "--root", str(nn)], env)
        print(f"  explorer index (cold, once)  {cold:.2f}")
        ours = [
            cpu_and_peak([sys.executable, "-m", "explorer", "callgraph", "--root", str(nn)], env)
            for _ in range(args.repeat)
        ]
        ours_cpu = statistics.median(run[0] for run in ours)
        print(f"  explorer callgraph           {ours_cpu:.2f}  ({len(json.loads(ours[0][3].stdout))} nodes)")
        if pycg:
            theirs = [cpu_and_peak([pycg, "--package", str(nn.parent), *nn_files], env, args.limit)]
            if theirs[0][3].returncode != UNFINISHED:
                theirs += [
                    cpu_and_peak([pycg, "--package", str(nn.parent), *nn_files], env) for _ in range(args.repeat - 1)
                ]
            if theirs[0][3].returncode == UNFINISHED:
                print(f"  PyCG                         unfinished after {args.limit:.0f} s (stopped)")
            elif theirs[0][3].returncode == 0:
                theirs_cpu = statistics.median(run[0] for run in theirs)
                print(
                    f"  PyCG                         {theirs_cpu:.2f}  ({len(json.loads(theirs[0][3].stdout))} nodes); "
                    f"explorer / PyCG = {ours_cpu / theirs_cpu:.2f}"
                )
            else:
                print(
                    f"  PyCG                         failed: {theirs[0][3].stderr.decode(errors='replace').strip().splitlines()[-1:]}"
                )
        if pyan3:
            pyan = [
                cpu_and_peak([pyan3, *nn_files, "--text", "--no-defines", "--uses"], env) for _ in range(args.repeat)
            ]
            pyan_cpu = statistics.median(run[0] for run in pyan)
            print(
                f"  pyan3                        {pyan_cpu:.2f}  (exit {pyan[0][3].returncode}); explorer / pyan3 = {ours_cpu / pyan_cpu:.2f}"
            )
        else:
            print("  pyan3                        not installed (pip install pyan3, or PYAN3=path)")

        torch_root = Path(args.root) / "torch"
        print("3. all of torch/")
        cpu_and_peak([sys.executable, "-m", "explorer", "index", "--root", str(torch_root)], env)
        cpu, wall, peak, result = cpu_and_peak(
            [sys.executable, "-m", "explorer", "callgraph", "--root", str(torch_root)], env
        )
        if result.returncode == 0:
            print(
                f"  explorer callgraph: {wall:.1f} s wall, {cpu:.1f} s CPU, peak {peak:.0f} MiB, "
                f"{len(json.loads(result.stdout))} nodes (target: 60 s, 1.5 GiB)"
            )
        else:
            print(f"  explorer callgraph failed ({result.returncode}): {result.stderr.decode(errors='replace')[-300:]}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
