"""`callers` of a tensor method's operator leave out the calls of that method on a local that
holds one of Python's own types (`seen = set()`, then `seen.add(x)`), as trace does: they
read what the local is assigned from off the flow facts (resolve/flow/edges.py,
builtin_types_held). A local that may hold anything else stays a caller by name."""

from __future__ import annotations

import pytest

from explorer.analysis import neighbours_of
from explorer.resolve import CallGraph
from tests.conftest import indexed_tree
from tests.places import path_line

NATIVE_FUNCTIONS = """\
- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  variants: function, method
  dispatch:
    CPU: add_cpu
"""

STUB = """\
class TensorBase:
    def add(self, other: TensorBase, *, alpha: float = 1) -> TensorBase: ...
"""

STEPS = """\
def shift(t, other):
    return t.add(other)


def unique(items):
    seen = set()
    for item in items:
        seen.add(item)
    return seen


def grouped(items, fast):
    groups = {} if fast else dict()
    groups.add(items)


def either(items, fast):
    found = set() if fast else make_bag()
    found.add(items)


def shadowed(items):
    set = make_bag
    bag = set()
    bag.add(items)


def given(seen):
    seen = seen or set()
    seen.add(1)


def nested(items):
    kept = set()

    def keep(item):
        kept.add(item)
        return item.add(item)

    return keep
"""


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory):
    files = {
        "aten/src/ATen/native/native_functions.yaml": NATIVE_FUNCTIONS,
        "torch/__init__.py": "",
        "torch/_C/__init__.pyi": STUB,
        "user/steps.py": STEPS,
    }
    with indexed_tree(tmp_path_factory.mktemp("builtin_receivers") / "tree", files) as opened:
        yield opened


def test_a_method_of_a_local_set_is_no_caller_of_the_tensor_method(tree):
    store, root = tree
    report = neighbours_of(store, root, "aten::add.Tensor", "callers")
    python = [(n.node.symbol.qname, n.edge.resolution.value, path_line(n.edge.site)) for n in report.found]
    assert [row for row in python if row[0].startswith("user.")] == [
        # make_bag's value is not read (a function's return): what the local holds is open
        ("user.steps.either", "name", ("user/steps.py", 19)),
        # a parameter: what the callers pass
        ("user.steps.given", "name", ("user/steps.py", 30)),
        # a dict has no `add`: the call is not a dict's method (trace keeps it by name too)
        ("user.steps.grouped", "name", ("user/steps.py", 14)),
        # `item.add` in the nested function; `kept.add` (37) is the set of the function around it
        ("user.steps.nested.keep", "name", ("user/steps.py", 38)),
        # `set` rebound in the function: not the builtin
        ("user.steps.shadowed", "name", ("user/steps.py", 25)),
        ("user.steps.shift", "name", ("user/steps.py", 2)),
    ]


def test_trace_and_callers_agree_on_the_set(tree):
    store, root = tree
    graph = CallGraph(store, root, "all")
    (unique,) = store.symbols_with_qname("user.steps.unique")
    assert [e.target.symbol.qname for e in graph.edges(graph.node(unique))] == []
    (grouped,) = store.symbols_with_qname("user.steps.grouped")
    assert [(e.target.symbol.qname, e.resolution.value) for e in graph.edges(graph.node(grouped))] == [
        ("aten::add.Tensor", "name")
    ]
