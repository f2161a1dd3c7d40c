"""CPU time per stage of an index build, for benchmarks/index_bench.py's breakdown.

Off unless a caller starts it, and then it counts in this process only (an in-process build,
`jobs=1`). Each stage's time is its own: a stage inside another (the tree-sitter parse inside
a file's Python facts) is taken out of the outer one, so the figures add up to the whole.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

_totals: dict[str, float] | None = None
_inner: list[float] = []  # per open stage, the CPU its nested stages used


def start() -> None:
    global _totals
    _totals = {}
    _inner.clear()


def stop() -> dict[str, float]:
    """The CPU-seconds of each stage since start(), and the clock off again."""
    global _totals
    totals, _totals = _totals or {}, None
    return totals


@contextmanager
def stage(name: str) -> Iterator[None]:
    if _totals is None:
        yield
        return
    began = time.process_time()
    _inner.append(0.0)
    try:
        yield
    finally:
        elapsed = time.process_time() - began
        nested = _inner.pop()
        _totals[name] = _totals.get(name, 0.0) + elapsed - nested
        if _inner:
            _inner[-1] += elapsed
