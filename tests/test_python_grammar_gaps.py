"""Valid Python the tree-sitter grammar cannot read (a starred bracketed value in a bare
tuple, as PyTorch 2.4 writes twice) is read through libcst: brackets put around the tuple,
where they move nothing, and the file indexed whole. Every line and column below was
counted off the sources written here."""

from __future__ import annotations

import pytest

from explorer.model import SymbolKind
from explorer.parsers.python import parse_python
from explorer.resolve.graph import CallGraph
from tests.conftest import indexed_tree
from tests.places import path_line

PARTIAL = "the Python grammar cannot read line {} (valid Python); indexed the rest"


def calls(source: bytes) -> list[tuple[str, int, int]]:
    return [(c.callee, c.line, c.column) for c in parse_python("m.py", source).calls]


def test_a_starred_value_in_a_returned_tuple_is_read_whole_and_keeps_its_columns():
    source = b"def f(args):\n    return *(g(*args)), *args\n\ndef after():\n    h()\n"
    facts = parse_python("m.py", source)
    assert facts.diagnostics == []
    # `g` is at column 13 of the file as written (`    return *(`), not of the bracketed text
    assert [(c.callee, c.line, c.column) for c in facts.calls] == [("g", 2, 13), ("h", 5, 4)]
    assert {s.qname for s in facts.symbols if s.kind is SymbolKind.FUNCTION} == {"m.f", "m.after"}
    assert '["return",["tuple",[["elem",["call",["name","g"' in facts.flow


def test_a_starred_list_in_an_assigned_tuple_with_a_comment_after_it():
    assert calls(b"def f(x):\n    a, *b = x, *[h(1)]  # c\n    return a\n") == [("h", 2, 17)]
    assert parse_python("m.py", b"def f(x):\n    a, *b = x, *[h(1)]  # c\n").diagnostics == []


def test_windows_line_endings_are_bridged_too():
    facts = parse_python("m.py", b"def f(x):\r\n    return *(g(x)), x\r\n")
    assert facts.diagnostics == [] and [(c.callee, c.line, c.column) for c in facts.calls] == [("g", 2, 13)]


@pytest.mark.parametrize(
    "source, line",
    [
        # no space before the tuple: a bracket there would move the rest of the line
        (b"def f(x):\n    y=x, *(g())\n    return y\n", 2),
        # code right after the tuple: its closing bracket would move `; k()`
        (b"def f(x):\n    y = x, *(g()); k()\n", 2),
        # libcst rejects the file (`else(` with no space, which CPython runs)
        (b"def f(x):\n    d = 2 if x else( 2 if d else 3)\n    return *(g(x)), x\n", 3),
    ],
    ids=["no-space-before", "code-after", "libcst-rejects"],
)
def test_a_gap_that_cannot_be_bridged_without_moving_anything_is_reported_as_before(source, line):
    facts = parse_python("m.py", source)
    assert [d.reason for d in facts.diagnostics] == [PARTIAL.format(line)]
    assert ("g", line, source.split(b"\n")[line - 1].index(b"g(")) in calls(source)


DEEP_FOR_PYTHON = (
    "the Python grammar cannot read line 2, and the file is nested too deeply for Python's parser to check it;"
    " indexed what parsed"
)


@pytest.mark.parametrize(
    "nested, reason",
    [
        # valid, but nested past what libcst is given
        ("y = " + " + ".join(["a"] * 300) + "\n", PARTIAL.format(2)),
        # a chain that crashes libcst's parser (and that Python's own cannot check either)
        ("if a:\n    pass\n" + "elif a:\n    pass\n" * 9000, DEEP_FOR_PYTHON),
    ],
    ids=["300-operators", "9000-elifs"],
)
def test_a_file_with_a_gap_nested_too_deeply_for_libcst_is_not_handed_to_it(nested, reason):
    source = ("def f(x):\n    return *(g(x)), x\n" + nested).encode()
    facts = parse_python("m.py", source)
    assert [d.reason for d in facts.diagnostics] == [reason]
    assert ("g", 2, 13) in calls(source)


GAPS = (
    "def helper():\n"  # 1
    "    return 1\n"
    "\n"
    "\n"
    "def run():\n"  # 5
    "    fn, *_ = helper, *[]\n"  # 6: the statement the grammar cannot read
    "    return fn()\n"  # 7
)


def test_what_flows_through_the_bridged_statement_is_followed(tmp_path):
    """`fn` holds `helper` only by the statement tree-sitter cannot read: without it the
    solver knows nothing of `fn`, and `run` calls nothing."""
    with indexed_tree(tmp_path / "tree", {"gaps.py": GAPS}) as (store, root):
        assert store.partial() == []  # the file is read whole
        graph = CallGraph(store, root, "all")
        (run,) = store.symbols_with_qname("gaps.run")
        found = [
            (path_line(e.site), e.label, e.resolution.value, e.target.symbol.qname, e.target.symbol.line)
            for e in graph.edges(graph.node(run))
        ]
    assert found == [(("gaps.py", 7), "call", "exact", "gaps.helper", 1)]
