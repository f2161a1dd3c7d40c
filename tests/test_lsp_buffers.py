"""Lines of an open buffer matched to the file as saved (explorer/lsp/buffers.py)."""

from __future__ import annotations

from explorer.lsp.buffers import LineMap, buffer_of


def test_lines_both_have_map_both_ways_and_the_others_to_where_they_were():
    saved = ["import torch", "def f():", "    return g()", "def g():", "    return 1"]
    typed = ["import torch", "import os", "def f():", "    return h()", "def g():", "    return 1"]
    lines = LineMap.between(saved, typed)
    assert [lines.saved_line(number) for number in range(1, 7)] == [1, None, 2, None, 4, 5]
    # saved line 3 was replaced by the buffer's line 4
    assert [lines.buffer_line(number) for number in range(1, 6)] == [1, 3, 4, 5, 6]


def test_a_deleted_line_maps_to_where_it_was_and_an_unchanged_buffer_is_none():
    lines = LineMap.between(["a", "b", "c"], ["a", "c"])
    assert [lines.buffer_line(number) for number in (1, 2, 3)] == [1, 2, 2]
    assert buffer_of(["a", "b"], "a\nb\n") is None
    assert buffer_of(["a", "b"], "a\r\nb") is None  # line endings are not a change
    changed = buffer_of(["a", "b"], "a\nb\nc\n")
    assert changed is not None and changed.line(3) == "c" and changed.map.saved_line(3) is None
