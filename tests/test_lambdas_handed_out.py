"""A lambda handed to code outside the tree (`assertRaises(E, lambda: f(x))`) runs there; its
calls, which the index gives to the definition the lambda is written in, are that
definition's calls, answered by the name rules, in callees and in callers alike. A lambda the
solver sees called gives its calls once. A call of a local is, for callers, a call of each
name the flow facts say it is assigned from. Lines were counted off the source written here."""

from __future__ import annotations

import pytest

from explorer.analysis.neighbours import neighbours_of
from explorer.resolve.graph import CallGraph
from tests.conftest import indexed_tree
from tests.places import path_line

SOURCE = (
    "import unittest\n"  # 1
    "\n"
    "def helper(x):\n"  # 3
    "    return x\n"
    "\n"
    "def other():\n"  # 6
    "    return 2\n"
    "\n"
    "class T(unittest.TestCase):\n"  # 9
    "    def test_it(self):\n"  # 10
    "        self.assertRaises(ValueError, lambda: helper(1))\n"  # 11
    "        run(lambda: (lambda: other())())\n"  # 12
    "\n"
    "def invoked():\n"  # 14
    "    f = lambda: helper(2)\n"  # 15
    "    return f()\n"  # 16
    "\n"
    "def through_local(fast):\n"  # 18
    "    fn = helper if fast else other\n"  # 19
    "    return fn(3)\n"  # 20
    "\n"
    "def shadowed():\n"  # 22
    "    helper = other\n"  # 23: a local named as the module's function
    "    return helper(4)\n"  # 24
    "\n"
    "class Opt:\n"  # 26
    "    def add(self, x):\n"  # 27
    "        return x\n"
    "\n"
    "def train():\n"  # 30
    "    opt = Opt()\n"  # 31
    "    def closure():\n"  # 32
    "        return opt.add(1)\n"  # 33: the enclosing function's local
    "    def shadow(opt):\n"  # 34
    "        return opt.add(2)\n"  # 35: a parameter of its own, not train's opt
    "    return closure, shadow\n"
    "\n"
    "def wrapper_factory():\n"  # 38
    "    def unpack(args):\n"  # 39
    "        return args\n"
    "    def wrapped(*args):\n"  # 41
    "        return unpack(args)\n"  # 42: the sibling closure, a free name
    "    return wrapped\n"
)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory):
    with indexed_tree(tmp_path_factory.mktemp("lambdas") / "tree", {"m.py": SOURCE}) as opened:
        yield opened


def callees(tree, qname: str) -> list[tuple]:
    store, root = tree
    graph = CallGraph(store, root, "all")
    (symbol,) = store.symbols_with_qname(qname)
    return [
        (path_line(e.site), e.label, e.resolution.value, e.target.symbol.qname)
        for e in graph.edges_by_site(graph.node(symbol))
    ]


def test_calls_in_lambdas_handed_to_code_outside_the_tree(tree):
    assert [edge for edge in callees(tree, "m.T.test_it") if edge[3].startswith("m.")] == [
        (("m.py", 11), "call", "exact", "m.helper"),
        (("m.py", 12), "call", "exact", "m.other"),  # in a lambda in a lambda
    ]


def test_a_lambda_the_solver_sees_called_gives_its_calls_once(tree):
    assert callees(tree, "m.invoked") == [(("m.py", 15), "call", "exact", "m.helper")]


def test_callers_find_the_definition_the_lambda_is_written_in(tree):
    store, root = tree
    report = neighbours_of(store, root, "m.helper", "callers")
    assert [(n.node.symbol.qname, path_line(n.edge.site)) for n in report.found] == [
        ("m.T.test_it", ("m.py", 11)),
        ("m.invoked", ("m.py", 15)),
    ]


def test_a_call_of_a_local_is_of_each_name_it_is_assigned_from(tree):
    # trace solves `fn`; callers, which find `helper(4)` by its name, read what the local
    # `helper` is assigned from off the flow facts: `other`, not the module's helper
    store, root = tree
    assert callees(tree, "m.through_local") == [
        (("m.py", 20), "call", "exact", "m.helper"),
        (("m.py", 20), "call", "exact", "m.other"),
    ]
    assert callees(tree, "m.shadowed") == [(("m.py", 24), "call", "exact", "m.other")]
    callers_of_helper = neighbours_of(store, root, "m.helper", "callers").found
    assert "m.shadowed" not in [n.node.symbol.qname for n in callers_of_helper]


def test_a_member_of_a_local_is_the_member_of_the_class_that_made_it(tree):
    # callers read `opt = Opt()` off the flow facts of the enclosing function; a parameter of
    # the same name hides it
    store, root = tree
    report = neighbours_of(store, root, "m.Opt.add", "callers")
    assert [(n.node.symbol.qname, n.edge.label, path_line(n.edge.site)) for n in report.found] == [
        ("m.train.closure", "method", ("m.py", 33)),
    ]


def test_a_closure_calling_its_sibling_started_on_its_own(tree):
    # started at `wrapped` (nothing calls wrapper_factory first), `unpack` is a free name the
    # function around it defines: the name rules find that def, as Python looks it up
    assert callees(tree, "m.wrapper_factory.wrapped") == [(("m.py", 42), "call", "exact", "m.wrapper_factory.unpack")]
