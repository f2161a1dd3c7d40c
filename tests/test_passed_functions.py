"""A name assigned from a call that makes no closure (`hook = functools.partial(helper, 1)`)
is taken to call the functions passed to it, read off the value-flow facts of the statement.
Lines and names were counted off the source written here."""

from __future__ import annotations

import pytest

from explorer.resolve.flow.facts import FlowFacts
from explorer.resolve.graph import CallGraph
from tests.conftest import indexed_tree
from tests.places import path_line

SOURCE = (
    "import functools\n"  # 1
    "from pkg.other import far\n"
    "\n"
    "def helper(x):\n"  # 4
    "    return x\n"
    "\n"
    "def other(x):\n"  # 7
    "    return x\n"
    "\n"
    "hook = functools.partial(helper, 1)\n"  # 10
    "first, second = pair(helper, *others)\n"  # 11
    "T = TypeVar('T')\n"  # 12
    "wrapped = register(far, key=other)\n"  # 13
    "class Holder:\n"  # 14
    "    global made\n"  # 15
    "    made = make(other)\n"  # 16
)
OTHER = "def far():\n    pass\n"


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory):
    files = {"m.py": SOURCE, "pkg/__init__.py": "", "pkg/other.py": OTHER}
    with indexed_tree(tmp_path_factory.mktemp("passed") / "tree", files) as opened:
        yield opened


def test_the_names_a_statement_passes_to_its_call(tree):
    store, _ = tree
    module = FlowFacts(store).module_scope("m")
    assert module is not None
    assert module.passed_names("hook", 10) == ("helper",)
    # each target of an unpacking gets what the call was passed; `*others` passes `others`
    assert module.passed_names("first", 11) == module.passed_names("second", 11) == ("helper", "others")
    assert module.passed_names("T", 12) == ()
    assert module.passed_names("wrapped", 13) == ("far", "other")
    assert module.passed_names("wrapped", 12) == ()  # another line binds no such name
    holder = FlowFacts(store).class_scope("m.Holder")
    assert holder is not None and holder.passed_names("made", 16) == ("other",)


@pytest.mark.parametrize(
    "qname, expected",
    [
        ("m.hook", [(("m.py", 10), "m.helper", "m.py", 4)]),
        ("m.first", [(("m.py", 11), "m.helper", "m.py", 4)]),
        ("m.T", []),
        ("m.wrapped", [(("m.py", 13), "pkg.other.far", "pkg/other.py", 1), (("m.py", 13), "m.other", "m.py", 7)]),
    ],
)
def test_calling_the_name_calls_the_functions_passed(tree, qname, expected):
    store, root = tree
    graph = CallGraph(store, root, "all")
    (variable,) = store.symbols_with_qname(qname)
    found = [
        (path_line(e.site), e.target.symbol.qname, e.target.symbol.path, e.target.symbol.line)
        for e in graph.edges(graph.node(variable))
    ]
    assert found == expected
    assert all(e.label == "call" for e in graph.edges(graph.node(variable)))
