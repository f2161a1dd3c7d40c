"""ScopeMap: the innermost definition around an offset, asked between additions in any order,
against a plain scan of every interval; and a file of 40,000 definitions on one line."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.model import Language
from explorer.parsers import parse_file
from explorer.parsers.common import ScopeMap


def _nested(draws: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Intervals that nest and never overlap partially, made from (start, length) draws."""
    intervals: list[tuple[int, int]] = []
    for start, length in draws:
        end = start + length
        if all(end <= a or start >= b or (a <= start and end <= b) or (start <= a and b <= end) for a, b in intervals):
            if (start, end) not in intervals:
                intervals.append((start, end))
    return intervals


def _innermost(intervals: list[tuple[int, int, str]], offset: int, outermost: str) -> str:
    holding = [(end - start, name) for start, end, name in intervals if start <= offset < end]
    return min(holding)[1] if holding else outermost


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 200), st.integers(1, 80)), max_size=40),
    st.lists(st.integers(0, 300), max_size=40),
)
def test_lookups_between_additions_agree_with_a_scan(draws, offsets):
    intervals = [(start, end, f"d{number}") for number, (start, end) in enumerate(_nested(draws))]
    scopes = ScopeMap("file")
    added: list[tuple[int, int, str]] = []
    for place, interval in enumerate(intervals):
        scopes.add(*interval)
        added.append(interval)
        for offset in offsets[place % 3 :: 3]:  # some lookups after each addition
            assert scopes.innermost(offset) == _innermost(added, offset, "file")
    for offset in offsets:
        assert scopes.innermost(offset) == _innermost(added, offset, "file")


def test_definitions_added_in_the_files_order_are_not_sorted_again_and_again():
    source = " ".join(f"__global__ void k{number}(float* x) {{ g{number}(x); }}" for number in range(40_000)).encode()
    started = time.process_time()
    facts = parse_file("one_line.cu", Language.CUDA, source)
    assert sorted((s.qname, s.line) for s in facts.symbols) == sorted((f"k{number}", 1) for number in range(40_000))
    assert sorted((call.caller, call.callee) for call in facts.calls) == sorted(
        (f"k{n}", f"g{n}") for n in range(40_000)
    )
    # minutes before (sorted at every lookup); seconds now. A hang guard, not a benchmark.
    assert time.process_time() - started < 120
