"""Operator chains of PyTorch 2.4.0 verified by hand, hop by hop, from the source (the
MetaX-MACA/mcPytorch fork: upstream code and its `#if defined(USE_MACA)` branches), and how
a trace is scored against them. Used by tests/test_real_chains.py and
benchmarks/chain_bench.py; nothing here was derived by running explorer.

A chain: the query, the --to target (the kernel launched or the vendor API called), the hops
from the definition the query names to the target as (qualified name, path, line), with,
for each hop after the first, where the hop before calls it (`evidence`). A chain follows
the upstream CUDA branch (USE_MACA undefined), which is what a reader of PyTorch reads;
where the fork's branch gives other hops, they are an `alternative`, as right as the chain.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Hop = tuple[str, "str | None", "int | None"]


@dataclass(frozen=True)
class Chain:
    family: str
    query: str
    to: str
    hops: tuple[Hop, ...]
    evidence: tuple[str, ...] = ()
    branch: str = ""
    alternatives: tuple[tuple[Hop, ...], ...] = ()

    def accepted(self) -> list[tuple[Hop, ...]]:
        return [self.hops, *self.alternatives]


@dataclass(frozen=True)
class Score:
    """How a trace did on one chain: the rank of the first listed path that is the chain (or
    an alternative; None: not listed), and where the first path differs from the chain."""

    chain: Chain
    rank: int | None
    paths_found: int
    differences: list[str] = field(default_factory=list)

    @property
    def right(self) -> bool:
        return self.rank == 1


def hops_of(path) -> tuple[Hop, ...]:
    return tuple((hop.node.symbol.qname, hop.node.symbol.path, hop.node.symbol.line) for hop in path)


def score(chain: Chain, paths: list, paths_found: int) -> Score:
    listed = [hops_of(path) for path in paths]
    accepted = chain.accepted()
    rank = next((number for number, hops in enumerate(listed, start=1) if hops in accepted), None)
    differences = _differences(chain.hops, listed[0]) if listed and rank != 1 else []
    if not listed:
        differences = ["no path found"]
    return Score(chain, rank, paths_found, differences)


def _differences(truth: tuple[Hop, ...], found: tuple[Hop, ...]) -> list[str]:
    """Hop by hop, where the first path found leaves the chain."""
    lines = []
    for index in range(max(len(truth), len(found))):
        want = truth[index] if index < len(truth) else None
        got = found[index] if index < len(found) else None
        if want != got:
            lines.append(f"hop {index}: expected {_hop_text(want)}, first path has {_hop_text(got)}")
    return lines


def _hop_text(hop: Hop | None) -> str:
    if hop is None:
        return "nothing"
    name, path, line = hop
    return f"{name} ({path}:{line})" if path else name


CHAINS: list[Chain] = []
