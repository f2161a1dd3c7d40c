"""The tree's tests are indexed and searchable, but kept out of what production code runs:
kernels that tests register for a production operator, and test functions a production name
could mean, unless asked for (--tests). The fixture is written here; lines read off its text."""

from __future__ import annotations

import pytest
from conftest import write_tree

from explorer.analysis.details import describe
from explorer.analysis.neighbours import neighbours_of
from explorer.index.build import refresh
from explorer.index.store import IndexStore
from explorer.names.search import search_symbols
from explorer.names.test_code import is_test_code

TREE = {
    "aten/src/ATen/native/native_functions.yaml": (
        "- func: empty.memory_format(SymInt[] size, *, ScalarType? dtype=None) -> Tensor\n"  # 1
        "  dispatch:\n"
        "    CPU: empty_cpu\n"  # 3
    ),
    "aten/src/ATen/native/TensorFactories.cpp": (
        "namespace at::native {\n"  # 1
        "Tensor empty_cpu(IntArrayRef size, std::optional<ScalarType> dtype) { return Tensor(); }\n"  # 2
        "}\n"
    ),
    "aten/src/ATen/test/extension_backend_test.cpp": (
        "Tensor empty_override(SymIntArrayRef size, std::optional<ScalarType> dtype) { return Tensor(); }\n"  # 1
        "TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {\n"  # 2
        '  m.impl("empty.memory_format", empty_override);\n'  # 3
        "}\n"
    ),
    "test/cpp_extensions/my_ops.cpp": (
        "Tensor twice(const Tensor& x) { return x; }\n"  # 1
        "TORCH_LIBRARY(myops, m) {\n"  # 2
        '  m.def("twice(Tensor x) -> Tensor", twice);\n'  # 3
        "}\n"
    ),
}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    root = write_tree(tmp_path_factory.mktemp("tests_apart") / "tree", TREE)
    index = root.parent / "index.sqlite"
    refresh(str(root), index, jobs=1)
    store = IndexStore.open(index)
    yield store, str(root)
    store.close()


def callees(indexed, query: str, tests: bool = False) -> list[tuple]:
    store, root = indexed
    report = neighbours_of(store, root, query, "callees", tests=tests)
    return [(n.node.symbol.qname, n.node.symbol.path, n.node.symbol.line, n.edge.label) for n in report.found]


def test_what_is_test_code():
    assert [
        is_test_code(p)
        for p in (
            "aten/src/ATen/test/basic.cpp",
            "test/cpp_extensions/my_ops.cpp",
            "c10/test/util/Half_test.cpp",
            "test_torch.py",
            "torch/testing/_internal/common_utils.py",
            "aten/src/ATen/native/TensorFactories.cpp",
            "tools/latest.py",
            None,
        )
    ] == [True, True, True, True, False, False, False, False]


def test_a_kernel_a_test_registers_is_left_out_of_a_production_operator(indexed):
    assert callees(indexed, "aten::empty.memory_format") == [
        ("at::native::empty_cpu", "aten/src/ATen/native/TensorFactories.cpp", 2, "dispatch:CPU"),
    ]
    assert callees(indexed, "aten::empty.memory_format", tests=True) == [
        ("at::native::empty_cpu", "aten/src/ATen/native/TensorFactories.cpp", 2, "dispatch:CPU"),
        ("empty_override", "aten/src/ATen/test/extension_backend_test.cpp", 1, "dispatch:PrivateUse1"),
    ]
    store, root = indexed
    (operator,) = store.symbols_with_qname("aten::empty.memory_format")
    shown = describe(store, root, operator)
    assert ([(row.key, row.kernel) for row in shown.kernels], shown.test_kernels) == (
        [("CPU", "at::native::empty_cpu")],
        1,
    )
    everything = describe(store, root, operator, tests=True)
    assert ([row.key for row in everything.kernels], everything.test_kernels) == (["CPU", "PrivateUse1"], 0)


def test_an_operator_the_tests_define_keeps_its_own_kernels(indexed):
    assert callees(indexed, "myops::twice") == [
        ("twice", "test/cpp_extensions/my_ops.cpp", 1, "dispatch:CompositeImplicitAutograd"),
    ]


def test_test_code_is_still_searchable(indexed):
    store, _ = indexed
    assert [(hit.symbol.qname, hit.symbol.path) for hit in search_symbols(store, "empty_override")] == [
        ("empty_override", "aten/src/ATen/test/extension_backend_test.cpp"),
    ]
