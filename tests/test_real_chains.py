"""The truth set (real_chains.py) traced on a real PyTorch 2.4.0 tree, when
EXPLORER_REAL_TORCH names one: each chain must be the first path listed.

    EXPLORER_REAL_TORCH=/path/to/pytorch python3 -m pytest tests/test_real_chains.py -rA

A failure says the rank of the true path (or that it was not listed) and every hop where the
first path leaves it; the last test prints right n/N and the ranks.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from explorer.index.store import IndexStore
from explorer.query.trace import trace_symbol
from real_chains import CHAINS, Chain, score

REAL_TREE = os.environ.get("EXPLORER_REAL_TORCH")
PATHS_LISTED = 200  # deep enough to tell "ranked low" from "not found"

pytestmark = [
    pytest.mark.real_torch,
    pytest.mark.skipif(not REAL_TREE, reason="set EXPLORER_REAL_TORCH to a PyTorch 2.4.0 source tree"),
]


@pytest.fixture(scope="module")
def store(real_tree: tuple[str, IndexStore]) -> IndexStore:
    """The real tree's index, built once for every opt-in test of the session (conftest)."""
    return real_tree[1]


def traced(store: IndexStore, chain: Chain):
    report = trace_symbol(
        store, str(Path(REAL_TREE).resolve()), chain.query, to=chain.to, paths=PATHS_LISTED, backend=chain.backend,
    )
    return score(chain, report.trace.paths or [], report.trace.paths_found, report.trace.variant_paths)


@pytest.mark.parametrize("chain", CHAINS, ids=[f"{c.family}:{c.query}" for c in CHAINS])
def test_the_true_chain_is_the_first_path(store, chain):
    result = traced(store, chain)
    where = f"ranked {result.rank} of {result.paths_found}" if result.rank else f"not among {result.paths_found} paths"
    assert result.right, f"{chain.query} -> {chain.to}: {where}\n" + "\n".join(result.differences)


def test_at_least_all_but_one_chain_is_right(store):
    results = [traced(store, chain) for chain in CHAINS]
    right = sum(result.right for result in results)
    ranks = [result.rank for result in results]
    print(f"\nright {right}/{len(results)}; ranks of the true path: {ranks}")
    assert len(CHAINS) >= 25
    assert right >= len(results) - 1
