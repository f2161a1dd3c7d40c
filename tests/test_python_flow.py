"""Tensors as a type: a method called on a value the solver knows is a tensor is its operator,
exactly; on a value known not to be one (a set) it is no operator at all; on a value nothing is
known of it stays a name-only guess. The fixture is the bundled tree with one user module
beside it; every expected edge was read off the fixture and the tree's native_functions.yaml
(`softmax.int`, the only overload `softmax(0)` fits, line 138)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from explorer.index.build import refresh
from explorer.index.store import IndexStore
from explorer.query.graph import CallGraph

FLOWS = (
    "import torch\n"                    # 1
    "\n"
    "\n"
    "def on_tensor(x):\n"               # 4
    "    y = torch.relu(x)\n"           # 5
    "    return y.softmax(0)\n"         # 6
    "\n"
    "\n"
    "def on_set(items):\n"              # 9
    "    seen = set()\n"
    "    seen.add(items)\n"             # 11
    "    return seen\n"
    "\n"
    "\n"
    "def on_unknown(v):\n"              # 15
    "    return v.softmax(0)\n"         # 16
)


@pytest.fixture(scope="module")
def flows(tmp_path_factory: pytest.TempPathFactory, sample_root: str):
    root = tmp_path_factory.mktemp("flows") / "tree"
    shutil.copytree(sample_root, root)
    (root / "user").mkdir()
    (root / "user" / "__init__.py").write_text("")
    (root / "user" / "flows.py").write_text(FLOWS)
    refresh(str(root), root.parent / "index.sqlite", jobs=1)
    store = IndexStore.open(root.parent / "index.sqlite")
    yield store, str(root)
    store.close()


def edges(flows, qname: str) -> list[tuple]:
    store, root = flows
    graph = CallGraph(store, root, "all")
    (symbol,) = store.symbols_with_qname(qname)
    return [(e.site, e.kind, e.resolution.value, e.target.symbol.qname) for e in graph.edges(graph.node(symbol))]


def test_a_method_of_a_tensor_is_its_operator_exactly(flows):
    assert edges(flows, "user.flows.on_tensor") == [
        (("user/flows.py", 5), "binding", "exact", "torch._C._VariableFunctions.relu"),
        (("user/flows.py", 6), "method", "exact", "aten::softmax.int"),
    ]


def test_a_method_of_a_set_is_no_operator(flows):
    assert edges(flows, "user.flows.on_set") == []


def test_a_method_of_an_unknown_value_stays_a_name_only_guess(flows):
    assert edges(flows, "user.flows.on_unknown") == [(("user/flows.py", 16), "method", "name", "aten::softmax.int")]
