"""torchgen's generated C++ names: each reading of a name, and calls of them resolved to their
operator by C++ name lookup. The fixture is written here; every line was read off its text."""

from __future__ import annotations

import pytest
from conftest import write_tree

from explorer.index.build import refresh
from explorer.index.store import IndexStore
from explorer.resolve.generated_api import GeneratedName, generated
from explorer.resolve.graph import CallGraph
from tests.places import path_line


def test_the_readings_of_a_generated_name():
    assert generated("at::add_out") == [
        GeneratedName("add", None, True, None, False),
        GeneratedName("add_out", None, False, None, False),
    ]
    assert generated("at::conv2d_symint") == [
        GeneratedName("conv2d", None, False, None, True),
        GeneratedName("conv2d_symint", None, False, None, False),
    ]
    assert generated("at::cpu::scatter_outf") == [
        GeneratedName("scatter", None, True, "cpu", False),
        GeneratedName("scatter_outf", None, False, "cpu", False),
    ]
    assert generated("at::_ops::add_Tensor::redispatch") == [
        GeneratedName("add", "Tensor", False, None, False),
        GeneratedName("add_Tensor", "", False, None, False),
    ]
    assert generated("at::_ops::relu::call") == [GeneratedName("relu", "", False, None, False)]
    assert generated("at::native::add") == []  # NativeFunctions.h declares kernels, defined in the tree
    assert generated("c10::add") == []


YAML = (
    "- func: _foo(Tensor self) -> Tensor\n"  # 1
    "  dispatch:\n"
    "    CPU: foo_cpu\n"
    "\n"
    "- func: scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor\n"  # 5
    "  dispatch:\n"
    "    CPU: scatter_cpu\n"
    "\n"
    "- func: is_available() -> bool\n"  # 9
    "\n"
    "- func: xlogy.OutTensor(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)\n"  # 11
    "  dispatch:\n"
    "    CPU: xlogy_out\n"
)

TREE = {
    "aten/src/ATen/native/native_functions.yaml": YAML,
    "aten/src/ATen/native/Foo.cpp": (
        "namespace at::native {\n"  # 1
        "Tensor foo_cpu(const Tensor& self) { return self; }\n"
        "Tensor scatter_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) { return self; }\n"
        "Tensor composite(const Tensor& self, const Tensor& index) {\n"  # 4
        "  auto a = _foo_symint(self);\n"  # 5
        "  auto b = at::cpu::scatter(self, 0, index, 1);\n"  # 6
        "  bool c = at::cuda::is_available();\n"  # 7
        "  at::xlogy_out(a, self, index);\n"  # 8
        "  return a;\n"
        "}\n"
        "}\n"
    ),
    "aten/src/ATen/cuda/Available.cpp": (
        "namespace at::cuda {\n"  # 1
        "bool is_available() { return false; }\n"  # 2
        "}\n"
    ),
}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = write_tree(tmp_path_factory.mktemp("generated") / "tree", TREE)
    index = root.parent / "index.sqlite"
    refresh(str(root), index, jobs=1)
    opened = IndexStore.open(index)
    yield opened, str(root)
    opened.close()


def test_calls_of_generated_names_reach_their_operator(store):
    opened, root = store
    graph = CallGraph(opened, root, "all")
    (composite,) = opened.symbols_with_qname("at::native::composite")
    edges = [
        (e.target.symbol.qname, e.target.symbol.path, e.target.symbol.line, e.label, path_line(e.site))
        for e in graph.edges(graph.node(composite))
    ]
    assert edges == [
        # unqualified in at::native: C++ finds at::_foo_symint, generated for aten::_foo
        ("aten::_foo", "aten/src/ATen/native/native_functions.yaml", 1, "call", ("aten/src/ATen/native/Foo.cpp", 5)),
        # the CPU fast path of aten::scatter.value
        (
            "aten::scatter.value",
            "aten/src/ATen/native/native_functions.yaml",
            5,
            "call",
            ("aten/src/ATen/native/Foo.cpp", 6),
        ),
        # at::cuda::is_available is written by hand: the definition, not the operator of that name
        ("at::cuda::is_available", "aten/src/ATen/cuda/Available.cpp", 2, "call", ("aten/src/ATen/native/Foo.cpp", 7)),
        # an out= overload told by its schema (`*, Tensor(a!) out`), not by its overload's name
        (
            "aten::xlogy.OutTensor",
            "aten/src/ATen/native/native_functions.yaml",
            11,
            "call",
            ("aten/src/ATen/native/Foo.cpp", 8),
        ),
    ]
