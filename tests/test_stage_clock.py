"""The index build's CPU per stage (explorer/stage_clock.py), on a fake clock: a nested stage's
time is taken out of the stage around it, and nothing is counted while the clock is off."""

from __future__ import annotations

import pytest

from explorer import stage_clock


@pytest.fixture
def ticks(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [0.0]
    monkeypatch.setattr(stage_clock.time, "process_time", lambda: now[0])
    return now


def test_a_nested_stage_is_taken_out_of_the_outer_one(ticks):
    stage_clock.start()
    with stage_clock.stage("python facts"):
        ticks[0] += 1.0
        with stage_clock.stage("tree-sitter parse"):
            ticks[0] += 2.0
        ticks[0] += 0.5
        with stage_clock.stage("tree-sitter parse"):
            ticks[0] += 3.0
    with stage_clock.stage("SQLite writes"):
        ticks[0] += 4.0
    assert stage_clock.stop() == {"python facts": 1.5, "tree-sitter parse": 5.0, "SQLite writes": 4.0}


def test_nothing_is_counted_while_the_clock_is_off(ticks):
    with stage_clock.stage("python facts"):
        ticks[0] += 1.0
    stage_clock.start()
    assert stage_clock.stop() == {}
    with stage_clock.stage("python facts"):
        ticks[0] += 1.0
    assert stage_clock.stop() == {}
