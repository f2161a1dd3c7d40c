"""Tensors as a type: a method called on a value the solver knows is a tensor is its operator,
exactly; on a value known not to be one (a set) it is no operator at all; on a value nothing is
known of it stays a name-only guess. The fixture is the bundled tree with one user module
beside it; every expected edge was read off the fixture and the tree's native_functions.yaml
(`softmax.int`, the only overload `softmax(0)` fits, line 138)."""

from __future__ import annotations

import json
import shutil

import pytest

from explorer.index.build import refresh
from explorer.index.store import IndexStore
from explorer.resolve.graph import CallGraph
from tests.places import path_line

FLOWS = (
    "import torch\n"  # 1
    "from typing import Optional\n"
    "from torch import Tensor\n"
    "def on_tensor(x):\n"  # 4
    "    y = torch.relu(x)\n"  # 5
    "    return y.softmax(0)\n"  # 6
    "\n"
    "\n"
    "def on_set(items):\n"  # 9
    "    seen = set()\n"
    "    seen.add(items)\n"  # 11
    "    return seen\n"
    "\n"
    "\n"
    "def on_unknown(v):\n"  # 15
    "    return v.softmax(0)\n"  # 16
    "\n"
    "\n"
    "def declared(v: Tensor, w: Optional[torch.Tensor] = None, n: int = 0):\n"  # 19
    "    v.softmax(0)\n"  # 20
    "    w.add(v)\n"  # 21
    "    return n.relu_()\n"  # 22
    "\n"
    "\n"
    "def add_unknown(v):\n"  # 25
    "    return v.add(1)\n"  # 26
)
# A second method overload of add (the bundled tree has one), so that a name-only call has
# two candidates.
ADD_SCALAR = (
    "\n- func: add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor\n"
    "  variants: function, method\n"
    "  dispatch:\n"
    "    CompositeExplicitAutograd: add\n"
)


@pytest.fixture(scope="module")
def flows(tmp_path_factory: pytest.TempPathFactory, sample_root: str):
    root = tmp_path_factory.mktemp("flows") / "tree"
    shutil.copytree(sample_root, root)
    (root / "user").mkdir()
    (root / "user" / "__init__.py").write_text("")
    (root / "user" / "flows.py").write_text(FLOWS)
    with open(root / "aten/src/ATen/native/native_functions.yaml", "a") as yaml:
        yaml.write(ADD_SCALAR)
    refresh(str(root), root.parent / "index.sqlite", jobs=1)
    store = IndexStore.open(root.parent / "index.sqlite")
    yield store, str(root)
    store.close()


def edges(flows, qname: str) -> list[tuple]:
    store, root = flows
    graph = CallGraph(store, root, "all")
    (symbol,) = store.symbols_with_qname(qname)
    return [
        (path_line(e.site), e.label, e.resolution.value, e.target.symbol.qname) for e in graph.edges(graph.node(symbol))
    ]


def test_a_method_of_a_tensor_is_its_operator_exactly(flows):
    assert edges(flows, "user.flows.on_tensor") == [
        (("user/flows.py", 5), "binding", "exact", "torch._C._VariableFunctions.relu"),
        (("user/flows.py", 6), "method", "exact", "aten::softmax.int"),
    ]


def test_a_method_of_a_set_is_no_operator(flows):
    assert edges(flows, "user.flows.on_set") == []


def test_a_method_of_an_unknown_value_stays_a_name_only_guess(flows):
    assert edges(flows, "user.flows.on_unknown") == [(("user/flows.py", 16), "method", "name", "aten::softmax.int")]


def test_a_parameter_declared_a_tensor_is_one(flows):
    # `v: Tensor` and `w: Optional[torch.Tensor]` are tensors (add has two method overloads
    # here). `n: int` declares nothing the solver uses: the int it holds has no relu_, and
    # what callers pass it is unknown, so the call stays the name-only guess
    assert edges(flows, "user.flows.declared") == [
        (("user/flows.py", 20), "method", "exact", "aten::softmax.int"),
        (("user/flows.py", 21), "method", "ambiguous", "aten::add.Tensor"),
        (("user/flows.py", 21), "method", "ambiguous", "aten::add.Scalar"),
        (("user/flows.py", 22), "method", "name", "aten::relu_"),
    ]


def test_a_name_only_guess_stays_one_however_many_overloads_fit(flows):
    assert edges(flows, "user.flows.add_unknown") == [
        (("user/flows.py", 26), "method", "name", "aten::add.Tensor"),
        (("user/flows.py", 26), "method", "name", "aten::add.Scalar"),
    ]


def test_calls_inside_f_strings_run(tmp_path):
    # `{g()}`, `{h(1):>{width()}}` (a call in a format spec's own field), `{k()!r}`, and
    # f-strings joined to plain ones: each call runs when the string is made (callers found
    # them already, from the call sites; the value flow did not look inside)
    from tests.command_line import invoke
    from tests.conftest import write_tree

    source = (
        "def g():\n    return 1\n\n\n"
        'def f():\n    return f"{g()} and {h(1):>{width()}}" "x" f"{k()!r}" + f\'{m()}\'\n\n\n'
        "def h(x):\n    return x\n\n\ndef width():\n    return 4\n\n\ndef k():\n    return 0\n\n\ndef m():\n    return 2\n"
    )
    root = write_tree(tmp_path / "tree", {"mod.py": source})
    result = invoke(["callgraph", "--root", str(root)])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["mod.f"] == ["mod.g", "mod.h", "mod.k", "mod.m", "mod.width"]


def test_an_iterator_that_is_its_own_instance_is_iterated_once(tmp_path):
    # `__iter__` returns self, and `__next__` comes from a base outside the tree: iterating an
    # instance gives the instance again, whose iteration must not start over for ever (on
    # PyTorch 2.4 it did, until the stack or the step limit gave out)
    from tests.command_line import invoke
    from tests.conftest import write_tree

    source = (
        "from outside import Base\n\n\n"  # 1
        "class Loop(Base):\n"  # 4
        "    def __iter__(self):\n"  # 5
        "        return self\n\n\n"
        "def walk():\n"  # 9
        "    for item in Loop():\n"  # 10
        "        use(item)\n\n\n"  # 11
        "def use(x):\n"  # 14
        "    return x\n"
    )
    root = write_tree(tmp_path / "tree", {"mod.py": source})
    result = invoke(["callgraph", "--root", str(root)])
    assert (result.exit_code, result.stderr) == (0, "")
    assert json.loads(result.stdout)["mod.walk"] == ["mod.Loop.__iter__", "mod.use"]
