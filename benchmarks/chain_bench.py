"""The hand-verified operator chains (tests/real_chains.py) traced on a real PyTorch tree:
how many come out right, where the true path ranks, and what each trace costs.

    python benchmarks/chain_bench.py --root /path/to/pytorch [--repeat 3]

Each chain is traced as a user types it, `explorer trace QUERY --to TARGET`, with a warm
index: first with the call graph's kept edges removed (index/kept_edges.py: the first trace
after the index was built or explorer changed works every C++ edge out), then once with
`--json --paths 200` to score it (the true path's rank among the listed paths, 1 being
right), then `--repeat` times as text for the median time with the edges kept by the runs
before. Peak memory is the largest resident set of those runs. Beside each, in the same run, the reference: `grep -rn
TARGET` over the tree, the first step of finding the chain by hand. Asserts nothing.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import arguments

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from real_chains import CHAINS, Chain, Hop


def main() -> None:
    args = arguments(__doc__, repeat=3)
    explorer = [sys.executable, "-m", "explorer.cli"]
    with tempfile.TemporaryDirectory(prefix="explorer-chain-bench-") as cache:
        env = {**os.environ, "EXPLORER_CACHE_DIR": cache}
        print(f"indexing {args.root} ...", flush=True)
        subprocess.run([*explorer, "index", "--root", args.root], check=True, stdout=subprocess.DEVNULL, env=env)
        rows = [_measure(chain, explorer, args.root, args.repeat, env) for chain in CHAINS]
    _report(rows, args.repeat)


def _measure(chain: Chain, explorer: list[str], root: str, repeat: int, env: dict[str, str]) -> dict[str, object]:
    command = [*explorer, "trace", chain.query, "--to", chain.to, "--root", root, "--backend", chain.backend]
    for kept in Path(env["EXPLORER_CACHE_DIR"]).glob("*.edges*"):
        kept.unlink()
    _, first_seconds, first_peak = _run(command, env)
    output, json_seconds, json_peak = _run([*command, "--json", "--paths", "200"], env)
    rank = _rank(chain, json.loads(output) if output else {})
    samples, peaks = [], [first_peak, json_peak]
    for _ in range(repeat):
        _, seconds, peak = _run(command, env)
        samples.append(seconds)
        peaks.append(peak)
    grep = statistics.median(_run(["grep", "-rn", chain.to, root], env)[1] for _ in range(repeat))
    return {
        "chain": chain,
        "rank": rank,
        "seconds": statistics.median(samples),
        "first_seconds": first_seconds,
        "json_seconds": json_seconds,
        "peak_mb": max(peaks) / 1024,
        "grep": grep,
    }


def _run(command: list[str], env: dict[str, str]) -> tuple[str, float, int]:
    """Output, wall time, and the peak resident set (KiB) of one run: waited for with wait4,
    which gives that child's own resource use."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert process.stdout is not None
    output = process.stdout.read()
    process.stdout.close()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return output.decode("utf-8", "replace"), time.perf_counter() - started, usage.ru_maxrss


def _rank(chain: Chain, found: dict) -> int | None:
    """The rank of the listed path that is the true one, or stands for it (a variant through
    another specialisation at a hop, which the output names beside it)."""
    accepted = chain.accepted()
    variants = found.get("variant_paths") or [[] for _ in found.get("paths", [])]
    for number, (path, others) in enumerate(zip(found.get("paths", []), variants), start=1):
        for candidate in (path, *others):
            hops: tuple[Hop, ...] = tuple((hop["symbol"], hop["file"], hop["line"]) for hop in candidate)
            if hops in accepted:
                return number
    return None


def _report(rows: list[dict[str, object]], repeat: int) -> None:
    right = sum(row["rank"] == 1 for row in rows)
    ranks = [row["rank"] for row in rows if row["rank"] is not None]
    print(f"\nchains: {len(rows)}; runs per trace: {repeat} (median); cores: {os.cpu_count()}\n")
    print(
        f"{'family':<26} {'query':<36} {'rank':>5} {'first':>7} {'trace':>7} {'--json':>7} {'peak':>7} {'grep':>6} {'ratio':>6}"
    )
    for row in rows:
        chain = row["chain"]
        rank = "-" if row["rank"] is None else str(row["rank"])
        print(
            f"{chain.family:<26} {chain.query:<36} {rank:>5} {row['first_seconds']:6.2f}s {row['seconds']:6.2f}s {row['json_seconds']:6.2f}s "
            f"{row['peak_mb']:5.0f}MB {row['grep']:5.2f}s {row['seconds'] / row['grep']:5.1f}x"
        )
    print(f"\nright (true path first): {right}/{len(rows)}; true path listed: {len(ranks)}/{len(rows)}")
    if ranks:
        print(f"rank of the true path where listed: median {statistics.median(ranks):g}, worst {max(ranks)}")
    print(
        f"trace time: median {statistics.median(r['seconds'] for r in rows):.2f} s, worst {max(r['seconds'] for r in rows):.2f} s; "
        f"peak memory: worst {max(r['peak_mb'] for r in rows):.0f} MB"
    )
    print(
        f"first trace, no kept edges: median {statistics.median(r['first_seconds'] for r in rows):.2f} s, "
        f"worst {max(r['first_seconds'] for r in rows):.2f} s"
    )


if __name__ == "__main__":
    main()
