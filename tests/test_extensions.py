"""Extensions: pybind11 bindings, TORCH_LIBRARY and RegisterOperators registrations, C++
autograd Functions, and which Python module an extension is, read from its build files. The
fixture is a small extension package written here (torch itself is outside the tree, as in an
extension's own checkout); every expected hop was read off the fixture's text below."""

from __future__ import annotations

import pytest
from conftest import write_tree

from explorer.analysis.trace import trace_symbol
from explorer.index.build import refresh
from explorer.index.store import IndexStore
from explorer.model import SymbolKind
from explorer.names.extensions import ExtensionModules
from explorer.resolve.graph import CallGraph
from tests.places import path_line

EXTENSION = {
    "setup.py": (
        "from setuptools import setup\n"
        "from torch.utils.cpp_extension import CUDAExtension\n"
        "\n"
        "setup(\n"
        "    name='myext',\n"
        "    ext_modules=[CUDAExtension('myext._C', sources=['myext/csrc/bind.cpp', 'myext/csrc/scale.cu'])],\n"  # 6
        ")\n"
    ),
    "myext/__init__.py": "",
    "myext/ops.py": (
        "import torch\n"  # 1
        "from myext import _C\n"
        "\n"
        "\n"
        "def scale(x):\n"  # 5
        "    return _C.scale(x)\n"  # 6
        "\n"
        "\n"
        "def add_one(x):\n"  # 9
        "    return torch.ops.myext.add_one(x)\n"  # 10
        "\n"
        "\n"
        "def legacy(x):\n"  # 13
        "    return torch.ops.myext_legacy.legacy_op(x)\n"  # 14
        "\n"
        "\n"
        "def ghost(x):\n"  # 17
        "    return _C.ghost(x)\n"  # 18
        "\n"
        "\n"
        "class Scaler(torch.nn.Module):\n"  # 21
        "    def forward(self, x):\n"  # 22
        "        return scale(x)\n"  # 23
    ),
    "myext/csrc/bind.cpp": (
        "#include <torch/extension.h>\n"  # 1
        '#include "scale.h"\n'
        "\n"
        "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n"  # 4
        '  m.def("scale", &myext::scale, "scale");\n'  # 5
        '  py::class_<myext::Counter>(m, "Counter")\n'  # 6
        "      .def(py::init<int>())\n"  # 7
        '      .def("step", &myext::Counter::step);\n'  # 8
        '  auto sub = m.def_submodule("sub");\n'  # 9
        '  sub.def("twice", py::overload_cast<int>(&myext::twice));\n'  # 10
        '  m.def("ghost", &myext::ghost);\n'  # 11
        "}\n"
    ),
    "myext/csrc/scale.cu": (
        "namespace myext {\n"  # 1
        "__global__ void scale_kernel(float* data) {}\n"  # 2
        "\n"
        "at::Tensor scale(const at::Tensor& x) {\n"  # 4
        "  scale_kernel<<<1, 32>>>(nullptr);\n"  # 5
        "  return x;\n"
        "}\n"
        "\n"
        "int twice(int x) { return 2 * x; }\n"  # 9
        "\n"
        "struct Counter {\n"  # 11
        "  Counter(int start) {}\n"  # 12
        "  int step() { return 1; }\n"  # 13
        "};\n"
        "}  // namespace myext\n"
    ),
    "myext/csrc/ops.cpp": (
        "namespace myext {\n"  # 1
        "at::Tensor add_one_cpu(const at::Tensor& x) { return x; }\n"  # 2
        "\n"
        "TORCH_LIBRARY(myext, m) {\n"  # 4
        '  m.def("add_one(Tensor x) -> Tensor");\n'  # 5
        '  m.def(TORCH_SELECTIVE_SCHEMA("myext::add_one.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)"));\n'  # 6
        "}\n"
        "\n"
        "TORCH_LIBRARY_IMPL(myext, CPU, m) {\n"  # 9
        '  m.impl("add_one", TORCH_FN(add_one_cpu));\n'  # 10
        "}\n"
        "}  // namespace myext\n"
    ),
    "myext/csrc/ops.cu": (
        "namespace myext {\n"  # 1
        "namespace {\n"
        "__global__ void add_one_kernel(float* data) {}\n"  # 3
        "}  // namespace\n"
        "\n"
        "at::Tensor add_one_cuda(const at::Tensor& x) {\n"  # 6
        "  add_one_kernel<<<1, 1>>>(nullptr);\n"  # 7
        "  return x;\n"
        "}\n"
        "\n"
        "TORCH_LIBRARY_IMPL(myext, CUDA, m) {\n"  # 11
        '  m.impl(TORCH_SELECTIVE_NAME("myext::add_one"), &add_one_cuda);\n'  # 12
        "}\n"
        "}  // namespace myext\n"
    ),
    "myext/csrc/legacy.cpp": (
        "using torch::autograd::AutogradContext;\n"  # 1
        "\n"
        "at::Tensor legacy_cuda(at::Tensor x);\n"  # 3
        "\n"
        "struct LegacyFn : public torch::autograd::Function<LegacyFn> {\n"  # 5
        "  static variable_list forward(AutogradContext* ctx, Variable x) {\n"  # 6
        "    return {legacy_cuda(x)};\n"  # 7
        "  }\n"
        "  static variable_list backward(AutogradContext* ctx, variable_list g) { return g; }\n"  # 9
        "};\n"
        "\n"
        "at::Tensor legacy_op(at::Tensor x) {\n"  # 12
        "  return LegacyFn::apply(x)[0];\n"  # 13
        "}\n"
        "\n"
        "at::Tensor legacy_op_again(at::Tensor x) { return x; }\n"  # 16
        "\n"
        "static auto registry = torch::RegisterOperators()\n"  # 18
        '    .op("myext_legacy::legacy_op", &legacy_op)\n'  # 19
        '    .op("myext_legacy::legacy_op", &legacy_op_again);\n'  # 20
    ),
    "myext/csrc/legacy_cuda.cu": (
        "__global__ void legacy_kernel(float* data) {}\n"  # 1
        "\n"
        "at::Tensor legacy_cuda(at::Tensor x) {\n"  # 3
        "  legacy_kernel<<<1, 1>>>(nullptr);\n"  # 4
        "  return x;\n"
        "}\n"
    ),
    # a second extension whose setup.py computes its name: its binding is still indexed
    "other/setup.py": (
        "from torch.utils.cpp_extension import CppExtension\n"
        "NAME = 'other'\n"
        "ext = CppExtension(f'{NAME}._C', sources=SOURCES)\n"
    ),
    "other/csrc/binding.cpp": (
        "int hello() { return 1; }\n"  # 1
        "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n"
        '  m.def("hello", &hello);\n'  # 3
        "}\n"
    ),
}


@pytest.fixture(scope="module")
def extension(tmp_path_factory: pytest.TempPathFactory):
    root = write_tree(tmp_path_factory.mktemp("extension") / "tree", EXTENSION)
    index = root.parent / "index.sqlite"
    refresh(str(root), index, jobs=1)
    store = IndexStore.open(index)
    yield store, str(root)
    store.close()


def hops(extension, query: str, to: str, backend: str = "cuda") -> list[tuple]:
    store, root = extension
    report = trace_symbol(store, root, query, to=to, backend=backend)
    assert report.trace.paths, f"no path from {query} to {to}"
    return [
        (
            hop.node.symbol.qname,
            hop.node.symbol.path,
            hop.node.symbol.line,
            hop.edge.label if hop.edge else None,
            path_line(hop.edge.site) if hop.edge else None,
        )
        for hop in report.trace.paths[0]
    ]


def test_a_pybind11_binding_leads_from_python_to_the_cuda_kernel(extension):
    # torch is outside the tree: calling a torch.nn.Module subclass runs its forward
    assert hops(extension, "myext.ops.Scaler", "scale_kernel") == [
        ("myext.ops.Scaler", "myext/ops.py", 21, None, None),
        ("myext.ops.Scaler.forward", "myext/ops.py", 22, "method", None),
        ("myext.ops.scale", "myext/ops.py", 5, "call", ("myext/ops.py", 23)),
        ("myext._C.scale", "myext/csrc/bind.cpp", 5, "pybind", ("myext/ops.py", 6)),
        ("myext::scale", "myext/csrc/scale.cu", 4, "pybind", ("myext/csrc/bind.cpp", 5)),
        ("myext::scale_kernel", "myext/csrc/scale.cu", 2, "launch", ("myext/csrc/scale.cu", 5)),
    ]


def test_torch_ops_reach_the_kernel_registered_for_each_backend(extension):
    assert hops(extension, "myext.ops.add_one", "add_one_kernel") == [
        ("myext.ops.add_one", "myext/ops.py", 9, None, None),
        ("myext::add_one", "myext/csrc/ops.cpp", 5, "op_registration", ("myext/ops.py", 10)),
        ("myext::add_one_cuda", "myext/csrc/ops.cu", 6, "dispatch:CUDA", ("myext/csrc/ops.cu", 12)),
        ("myext::add_one_kernel", "myext/csrc/ops.cu", 3, "launch", ("myext/csrc/ops.cu", 7)),
    ]
    assert hops(extension, "myext.ops.add_one", "add_one_cpu", backend="cpu")[1:] == [
        ("myext::add_one", "myext/csrc/ops.cpp", 5, "op_registration", ("myext/ops.py", 10)),
        ("myext::add_one_cpu", "myext/csrc/ops.cpp", 2, "dispatch:CPU", ("myext/csrc/ops.cpp", 10)),
    ]


def test_register_operators_and_a_cpp_autograd_function(extension):
    assert hops(extension, "myext.ops.legacy", "legacy_kernel") == [
        ("myext.ops.legacy", "myext/ops.py", 13, None, None),
        ("myext_legacy::legacy_op", "myext/csrc/legacy.cpp", 19, "op_registration", ("myext/ops.py", 14)),
        ("legacy_op", "myext/csrc/legacy.cpp", 12, "dispatch:CompositeImplicitAutograd", ("myext/csrc/legacy.cpp", 19)),
        ("LegacyFn::forward", "myext/csrc/legacy.cpp", 6, "autograd", ("myext/csrc/legacy.cpp", 13)),
        ("legacy_cuda", "myext/csrc/legacy_cuda.cu", 3, "call", ("myext/csrc/legacy.cpp", 7)),
        ("legacy_kernel", "myext/csrc/legacy_cuda.cu", 1, "launch", ("myext/csrc/legacy_cuda.cu", 4)),
    ]


def test_an_operator_registered_twice_is_ambiguous_between_its_kernels(extension):
    store, root = extension
    graph = CallGraph(store, root, "cuda")
    (operator,) = list(store.symbols_with_qname("myext_legacy::legacy_op"))[:1]
    edges = [
        (e.target.symbol.qname, e.label, e.resolution.value, e.candidates, path_line(e.site))
        for e in graph.edges(graph.node(operator))
    ]
    rivals = ("legacy_op", "legacy_op_again")
    assert edges == [
        ("legacy_op", "dispatch:CompositeImplicitAutograd", "ambiguous", rivals, ("myext/csrc/legacy.cpp", 19)),
        ("legacy_op_again", "dispatch:CompositeImplicitAutograd", "ambiguous", rivals, ("myext/csrc/legacy.cpp", 20)),
    ]


def test_a_binding_of_a_function_the_tree_lacks_is_shown_unresolved(extension):
    store, root = extension
    graph = CallGraph(store, root, "cuda")
    (ghost,) = store.symbols_with_qname("myext.ops.ghost")
    (binding,) = [e.target for e in graph.edges(graph.node(ghost))]
    assert (binding.symbol.qname, binding.symbol.path, binding.symbol.line) == (
        "myext._C.ghost",
        "myext/csrc/bind.cpp",
        11,
    )
    assert [
        (e.target.symbol.qname, e.target.symbol.path, e.label, e.resolution.value) for e in graph.edges(binding)
    ] == [
        ("myext::ghost", None, "pybind", "name"),
    ]


def test_the_bindings_of_a_pybind11_module(extension):
    store, _ = extension
    names = ("__init__", "step", "ghost", "hello", "scale", "twice")
    found = sorted(
        (s.qname, s.line, s.target) for name in names for s in store.symbols_of_kind_named(SymbolKind.PYBIND, name)
    )
    assert found == [
        ("TORCH_EXTENSION_NAME.Counter.__init__", 7, "myext::Counter::Counter"),
        ("TORCH_EXTENSION_NAME.Counter.step", 8, "myext::Counter::step"),
        ("TORCH_EXTENSION_NAME.ghost", 11, "myext::ghost"),
        ("TORCH_EXTENSION_NAME.hello", 3, "hello"),
        ("TORCH_EXTENSION_NAME.scale", 5, "myext::scale"),
        ("TORCH_EXTENSION_NAME.sub.twice", 10, "myext::twice"),
    ]


def test_which_module_an_extension_is(extension):
    store, _ = extension
    modules = ExtensionModules(store)
    # listed among setup.py's sources
    assert [(m.dotted, m.derived) for m in modules.module_names("myext/csrc/bind.cpp", "TORCH_EXTENSION_NAME.sub")] == [
        ("myext._C.sub", False)
    ]
    # setup.py computes the name: named after the file, and marked so
    assert [(m.dotted, m.derived) for m in modules.module_names("other/csrc/binding.cpp", "TORCH_EXTENSION_NAME")] == [
        ("binding", True)
    ]
    assert [s.qname for s in modules.python_bindings("binding.hello")] == ["binding.hello"]
    assert modules.python_bindings("binding.hello")[0].signature.endswith(
        "[module name derived from the file name: no build declaration names this module]"
    )
    assert [(s.qname, s.path, s.line, s.target) for s in store.extension_modules()] == [
        ("myext._C", "setup.py", 6, "myext/csrc/bind.cpp;myext/csrc/scale.cu"),
    ]
    assert {s.kind for s in store.symbols_with_qname("myext._C")} == {SymbolKind.EXTENSION}


def test_registrations_are_found_by_search(extension):
    store, _root = extension
    from explorer.names.search import search_symbols

    # the Python API first; the operators C++ registers next, with their schemas
    assert [(r.symbol.qname, r.symbol.kind.value, r.symbol.signature) for r in search_symbols(store, "add_one", 3)] == [
        ("myext.ops.add_one", "function", "def add_one(x)"),
        ("myext::add_one", "operator", "add_one(Tensor x) -> Tensor"),
        ("myext::add_one.out", "operator", "myext::add_one.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)"),
    ]


REGISTRATION_FORMS = (
    "namespace at { namespace functorch {\n"  # 1
    "TORCH_LIBRARY_IMPL(aten, FuncTorchBatched, m) {\n"  # 2
    '  m.impl("conv2d", native::conv2d_symint);\n'  # 3
    '  m.impl("mul.Tensor", static_cast<decltype(&ATEN_FN2(mul, Tensor))>(native::mul));\n'  # 4
    '  m.impl("cat.names", CppFunction::makeFallthrough());\n'  # 5
    '  m.impl(TORCH_SELECTIVE_NAME("quantized::conv_unpack"), TORCH_FN(QConvUnpack<2>::run));\n'  # 6
    '  m.impl("relu", [](const Tensor& self) { return relu_impl(self); });\n'  # 7
    "}\n"
    "TORCH_LIBRARY(quantized, m) {\n"  # 9
    '  m.def("linear(Tensor x) -> Tensor", torch::dispatch(c10::DispatchKey::CPU, TORCH_FN(linear_cpu)));\n'  # 10
    '  m.def("bad name with spaces");\n'  # 11
    "}\n"
    "}}\n"
)


def test_how_registrations_write_their_kernels():
    from explorer.model import Language
    from explorer.parsers.cpp import parse_cpp

    facts = parse_cpp("reg.cpp", REGISTRATION_FORMS.encode(), Language.CPP)
    assert [(d.operator, d.key, d.kernel, d.line) for d in facts.dispatch] == [
        ("aten::conv2d", "FuncTorchBatched", "at::functorch::native::conv2d_symint", 3),
        ("aten::mul.Tensor", "FuncTorchBatched", "at::functorch::native::mul", 4),
        # line 5, a fallthrough: the key is skipped, no kernel
        ("quantized::conv_unpack", "FuncTorchBatched", "at::functorch::QConvUnpack::run", 6),
        ("aten::relu", "FuncTorchBatched", "at::functorch::<lambda at line 7>", 7),
        ("quantized::linear", "CPU", "at::functorch::linear_cpu", 10),
    ]
    # a schema that names no operator defines none
    assert [(s.qname, s.line) for s in facts.symbols if s.kind is SymbolKind.OPERATOR] == [("quantized::linear", 10)]
    # a lambda kernel is a definition of its own, holding the calls inside it
    lambdas = [(s.qname, s.kind.value, s.line) for s in facts.symbols if "<lambda" in s.qname]
    assert lambdas == [("at::functorch::<lambda at line 7>", "function", 7)]
    assert [(c.caller, c.callee, c.line) for c in facts.calls if c.callee == "relu_impl"] == [
        ("at::functorch::<lambda at line 7>", "relu_impl", 7)
    ]


def test_tags_given_with_a_schema_are_no_kernel():
    from explorer.model import Language
    from explorer.parsers.cpp import parse_cpp

    source = b'TORCH_LIBRARY(quantized, m) {\n  m.def(TORCH_SELECTIVE_SCHEMA("quantized::cat(Tensor[] qx) -> Tensor"), {at::Tag::pt2_compliant_tag});\n}\n'
    facts = parse_cpp("library.cpp", source, Language.CPP)
    assert ([(s.qname, s.line) for s in facts.symbols if s.kind is SymbolKind.OPERATOR], facts.dispatch) == (
        [("quantized::cat", 2)],
        [],
    )


def callers(extension, query: str, depth: int) -> list[tuple]:
    from explorer.analysis.neighbours import neighbours_of

    store, root = extension
    report = neighbours_of(store, root, query, "callers", depth)
    # (the registration block that names a kernel is no caller of it: the registration is the edge)
    return [(n.depth, n.node.symbol.qname, n.node.symbol.path, n.node.symbol.line, n.edge.label) for n in report.found]


def test_callers_lead_back_up_through_registrations_and_bindings(extension):
    assert callers(extension, "myext::add_one_kernel", 3) == [
        (1, "myext::add_one_cuda", "myext/csrc/ops.cu", 6, "launch"),
        (2, "myext::add_one", "myext/csrc/ops.cpp", 5, "dispatch:CUDA"),
        (3, "myext.ops.add_one", "myext/ops.py", 9, "op_registration"),
    ]
    assert callers(extension, "myext::scale", 3) == [
        (1, "myext._C.scale", "myext/csrc/bind.cpp", 5, "pybind"),
        (2, "myext.ops.scale", "myext/ops.py", 5, "pybind"),
        (3, "myext.ops.Scaler.forward", "myext/ops.py", 22, "call"),
    ]
    assert callers(extension, "LegacyFn::forward", 2) == [
        (1, "legacy_op", "myext/csrc/legacy.cpp", 12, "autograd"),
        # registered twice under one name: both registrations
        (2, "myext_legacy::legacy_op", "myext/csrc/legacy.cpp", 19, "dispatch:CompositeImplicitAutograd"),
        (2, "myext_legacy::legacy_op", "myext/csrc/legacy.cpp", 20, "dispatch:CompositeImplicitAutograd"),
    ]


METHOD_TABLES = (
    "static PyObject* ext_sync(PyObject* self, PyObject* args) { return nullptr; }\n"  # 1
    "static PyMethodDef module_methods[] = {\n"  # 2
    '    {"sync", ext_sync, METH_NOARGS, nullptr},\n'  # 3
    '    {"sync_kw", castPyCFunctionWithKeywords(ext_sync_kw), METH_VARARGS | METH_KEYWORDS, nullptr},\n'  # 4
    "    {nullptr}};\n"
    'static struct PyModuleDef ext_module = {PyModuleDef_HEAD_INIT, "ext.core", nullptr, -1, module_methods};\n'  # 6
    "static PyMethodDef stream_methods[] = {\n"  # 7
    '    {"query", (PyCFunction)(void (*)(void))stream_query, METH_NOARGS, nullptr},\n'  # 8
    "    {nullptr}};\n"
    'static PyTypeObject StreamType = {PyVarObject_HEAD_INIT(nullptr, 0) "ext.Stream", sizeof(int)};\n'  # 10
    "void init() { StreamType.tp_methods = stream_methods; }\n"  # 11
    'static PyMethodDef orphan_methods[] = {{"lonely", lonely, METH_O, nullptr}, {nullptr}};\n'  # 12
)


def test_the_entries_of_method_tables_and_whose_they_are():
    from explorer.model import Language
    from explorer.parsers.cpp import parse_cpp

    facts = parse_cpp("src/ext.cpp", METHOD_TABLES.encode(), Language.CPP)
    entries = [
        (s.qname, s.line, s.target, s.signature.endswith("named after the file]"))
        for s in facts.symbols
        if s.kind is SymbolKind.METHOD_TABLE
    ]
    assert entries == [
        ("ext.core.sync", 3, "ext_sync", False),  # the PyModuleDef naming the table
        ("ext.core.sync_kw", 4, "ext_sync_kw", False),
        ("ext.Stream.query", 8, "stream_query", False),  # the type whose tp_methods it becomes
        ("ext.lonely", 12, "lonely", True),  # nothing names it: the file's name
    ]


def test_torch_ops_names_pick_overloads(extension, sample_store):
    from explorer.names.extensions import registered_operators

    store, _ = extension
    assert [s.qname for s in registered_operators(store, "torch.ops.myext.add_one")] == [
        "myext::add_one",
        "myext::add_one.out",
    ]
    assert [s.qname for s in registered_operators(store, "torch.ops.myext.add_one.default")] == ["myext::add_one"]
    assert [s.qname for s in registered_operators(store, "torch.ops.myext.add_one.out")] == ["myext::add_one.out"]
    assert registered_operators(store, "torch.ops.myext.nothing") == []
    assert registered_operators(store, "torch.nn.functional.relu") is None  # not a torch.ops name
    # the YAML's operators are torch.ops.aten's
    assert [(s.qname, s.path) for s in registered_operators(sample_store, "torch.ops.aten.add.Tensor")] == [
        ("aten::add.Tensor", "aten/src/ATen/native/native_functions.yaml"),
    ]


def test_a_lambda_outside_any_registration_is_no_binding_but_a_lambda_handed_to_a_call():
    from explorer.model import Language, SymbolKind
    from explorer.parsers.cpp import parse_cpp

    facts = parse_cpp("a.cpp", b'void f() { builder.def("x", [](int a) { return g(a); }); }\n', Language.CPP)
    assert sorted((s.qname, s.kind) for s in facts.symbols) == [
        ("<lambda at line 1>", SymbolKind.FUNCTION),
        ("f", SymbolKind.FUNCTION),
    ]
    assert [(c.caller, c.callee, c.name_args) for c in facts.calls] == [
        ("f", "builder.def", ("[]1",)),
        ("<lambda at line 1>", "g", ()),
    ]


CMAKE_PROJECT = {
    "CMakeLists.txt": (
        "cmake_minimum_required(VERSION 3.18)\n"
        "project(fast LANGUAGES CXX)\n"
        "find_package(pybind11 REQUIRED)  # pybind11_add_module( in a comment\n"
        "file(GLOB EXTRA csrc/extra/*.cpp)\n"
        "pybind11_add_module(_fast MODULE\n"  # 5
        "    csrc/bind.cpp  # the bindings\n"
        '    "${CMAKE_CURRENT_SOURCE_DIR}/csrc/ops.cpp"\n'
        "    ${EXTRA})\n"  # 8
        "pybind11_add_module(${GENERATED_NAME} csrc/gen.cpp)\n"  # a computed name: no declaration
    ),
    "csrc/bind.cpp": (
        "namespace fast { int add(int a, int b); }\n"
        "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n"
        '  m.def("add", &fast::add);\n'  # 3
        "}\n"
    ),
    "csrc/ops.cpp": "namespace fast {\nint add(int a, int b) { return a + b; }\n}\n",  # add: 2
    "fast/__init__.py": "import _fast\n\n\ndef add(a, b):\n    return _fast.add(a, b)\n",  # 4, 5
}


def test_a_cmake_pybind11_module_names_its_sources(tmp_path):
    root = write_tree(tmp_path / "tree", CMAKE_PROJECT)
    refresh(str(root), tmp_path / "index.sqlite", jobs=1)
    store = IndexStore.open(tmp_path / "index.sqlite")
    try:
        assert [(s.qname, s.path, s.line, s.end_line, s.target) for s in store.extension_modules()] == [
            ("_fast", "CMakeLists.txt", 5, 8, "csrc/bind.cpp;csrc/ops.cpp"),
        ]
        modules = ExtensionModules(store)
        assert [(m.dotted, m.derived) for m in modules.module_names("csrc/bind.cpp", "TORCH_EXTENSION_NAME")] == [
            ("_fast", False)
        ]
        report = trace_symbol(store, str(root), "fast.add", to="fast::add")
        assert [
            (h.node.symbol.qname, h.node.symbol.path, h.node.symbol.line, h.edge.label if h.edge else None)
            for h in report.trace.paths[0]
        ] == [
            ("fast.add", "fast/__init__.py", 4, None),
            ("_fast.add", "csrc/bind.cpp", 3, "pybind"),
            ("fast::add", "csrc/ops.cpp", 2, "pybind"),
        ]
    finally:
        store.close()


JIT_PROJECT = {
    "app/ops.py": (
        "import torch\n"  # 1
        "from torch.utils.cpp_extension import load, load_inline\n"
        "\n"
        'cpp_source = """\n'  # 4
        "#include <torch/extension.h>\n"
        "torch::Tensor scale_cuda(torch::Tensor x, double factor);\n"
        "torch::Tensor scale(torch::Tensor x, double factor) {\n"  # 7
        "  return scale_cuda(x, factor);\n"  # 8
        "}\n"
        '"""\n'
        "cuda_source = '''\n"  # 11
        "__global__ void scale_kernel(float* out, float factor) { out[0] *= factor; }\n"  # 12
        "torch::Tensor scale_cuda(torch::Tensor x, double factor) {\n"  # 13
        "  scale_kernel<<<1, 1>>>(x.data_ptr<float>(), factor);\n"  # 14
        "  return x;\n"
        "}\n"
        "'''\n"
        "inline = load_inline(\n"  # 18
        "    name='inline_scale', cpp_sources=[cpp_source], cuda_sources=cuda_source,\n"
        "    functions={'scale': 'multiply by a factor'},\n"  # 20
        ")\n"
        "jit = load(name='jit_ext', sources=['csrc/twice.cpp'])\n"  # 22
        "\n"
        "\n"
        "def scale(x, factor):\n"  # 25
        "    return inline.scale(x, factor)\n"  # 26
        "\n"
        "\n"
        "def twice(x):\n"  # 29
        "    return jit.twice(x)\n"  # 30
    ),
    "app/csrc/twice.cpp": (
        "#include <torch/extension.h>\n"
        "torch::Tensor twice(torch::Tensor x) { return x * 2; }\n"  # 2
        "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n"
        '  m.def("twice", &twice);\n'  # 4
        "}\n"
    ),
}


def test_cpp_extension_load_and_load_inline_modules_lead_to_their_cpp(tmp_path):
    """load_inline's C++ is read where the Python file writes it; the module either builder
    returns is the module its name= says, whose functions are its bindings."""
    root = write_tree(tmp_path / "tree", JIT_PROJECT)
    refresh(str(root), tmp_path / "index.sqlite", jobs=1)
    store = IndexStore.open(tmp_path / "index.sqlite")
    try:
        assert [(s.qname, s.line, s.target) for s in store.extension_modules()] == [
            ("inline_scale", 18, "app/ops.py"),
            ("jit_ext", 22, "app/csrc/twice.cpp"),
        ]
        report = trace_symbol(store, str(root), "app.ops.scale", to="scale_kernel")
        assert [
            (
                h.node.symbol.qname,
                h.node.symbol.path,
                h.node.symbol.line,
                h.edge.label if h.edge else None,
                path_line(h.edge.site) if h.edge else None,
            )
            for h in report.trace.paths[0]
        ] == [
            ("app.ops.scale", "app/ops.py", 25, None, None),
            ("inline_scale.scale", "app/ops.py", 20, "pybind", ("app/ops.py", 26)),
            ("scale", "app/ops.py", 7, "pybind", ("app/ops.py", 20)),
            ("scale_cuda", "app/ops.py", 13, "call", ("app/ops.py", 8)),
            ("scale_kernel", "app/ops.py", 12, "launch", ("app/ops.py", 14)),
        ]
        report = trace_symbol(store, str(root), "app.ops.twice", to="^twice$")
        assert [
            (h.node.symbol.qname, h.node.symbol.path, h.node.symbol.line, h.edge.label if h.edge else None)
            for h in report.trace.paths[0]
        ] == [
            ("app.ops.twice", "app/ops.py", 29, None),
            ("jit_ext.twice", "app/csrc/twice.cpp", 4, "pybind"),
            ("twice", "app/csrc/twice.cpp", 2, "pybind"),
        ]
    finally:
        store.close()


OPTIONS_REGISTRATIONS = {
    "csrc/ops.cpp": (
        "#include <torch/script.h>\n"
        "namespace myops {\n"
        "at::Tensor add_cpu(const at::Tensor& a, const at::Tensor& b) { return a + b; }\n"  # 3
        "at::Tensor add_cuda(const at::Tensor& a, const at::Tensor& b) { return a + b; }\n"  # 4
        "struct MulKernel final : public c10::OperatorKernel {\n"
        "  at::Tensor operator()(const at::Tensor& a) { return a * 2; }\n"  # 6
        "};\n"
        "static auto registry = torch::RegisterOperators()\n"
        "  .op(torch::RegisterOperators::options()\n"  # 9
        '        .schema("myops::add(Tensor a, Tensor b) -> Tensor")\n'
        "        .kernel<decltype(add_cpu), &add_cpu>(c10::DispatchKey::CPU)\n"  # 11
        "        .kernel<decltype(add_cuda), &add_cuda>(c10::DispatchKey::CUDA))\n"  # 12
        "  .op(torch::RegisterOperators::options()\n"  # 13
        '        .schema("myops::mul(Tensor a) -> Tensor")\n'
        "        .kernel<MulKernel>(c10::DispatchKey::CPU)\n"  # 15
        "        .kernel(c10::DispatchKey::CUDA, [](const at::Tensor& a) { return a * 2; }))\n"  # 16
        '  .op(torch::RegisterOperators::options().schema("myops::neg(Tensor a) -> Tensor")'
        ".catchAllKernel<decltype(add_cpu), &add_cpu>())\n"  # 17
        '  .op("myops::sub(Tensor a) -> Tensor",\n'  # 18
        "      torch::RegisterOperators::options().kernel<decltype(add_cuda), &add_cuda>(c10::DispatchKey::CUDA));\n"  # 19
        "}\n"
    ),
    "myops.py": "import torch\n\n\ndef add(a, b):\n    return torch.ops.myops.add(a, b)\n",  # 4, 5
}


def test_older_registrations_through_register_operators_options(tmp_path):
    root = write_tree(tmp_path / "tree", OPTIONS_REGISTRATIONS)
    refresh(str(root), tmp_path / "index.sqlite", jobs=1)
    store = IndexStore.open(tmp_path / "index.sqlite")
    try:
        operators = ("myops::add", "myops::mul", "myops::neg", "myops::sub")
        assert [(d.key, d.kernel, d.line) for op in operators for d in store.dispatch_of(op)] == [
            ("CPU", "myops::add_cpu", 11),
            ("CUDA", "myops::add_cuda", 12),
            ("CPU", "myops::MulKernel::operator()", 15),
            ("CUDA", "myops::<lambda at line 16>", 16),
            ("CompositeImplicitAutograd", "myops::add_cpu", 17),
            ("CUDA", "myops::add_cuda", 19),  # the schema as the first argument, the options second
        ]
        assert [(s.qname, s.line) for s in store.symbols_with_qname("myops::<lambda at line 16>")] == [
            ("myops::<lambda at line 16>", 16)
        ]
        report = trace_symbol(store, str(root), "myops.add", to="add_cuda")
        assert [
            (
                h.node.symbol.qname,
                h.node.symbol.line,
                h.edge.label if h.edge else None,
                path_line(h.edge.site) if h.edge else None,
            )
            for h in report.trace.paths[0]
        ] == [
            ("myops.add", 4, None, None),
            ("myops::add", 9, "op_registration", ("myops.py", 5)),
            ("myops::add_cuda", 4, "dispatch:CUDA", ("csrc/ops.cpp", 12)),
        ]
        mul = trace_symbol(store, str(root), "myops::mul", backend="cpu")
        assert [(c.node.symbol.qname, c.node.symbol.line, c.edge.label) for c in mul.trace.tree.children] == [
            ("myops::MulKernel::operator()", 6, "dispatch:CPU"),
        ]
    finally:
        store.close()


def test_a_cmake_keyword_no_list_names_is_not_taken_for_a_source_file():
    from explorer.parsers.cmake import parse_cmake

    facts = parse_cmake(
        "ext/CMakeLists.txt",
        b"nanobind_add_module(_ext NB_SUPPRESS_WARNINGS MUSL_DYNAMIC_LIBCPP NB_DOMAIN mine src/a.cpp)\n",
    )
    assert [(s.qname, s.line, s.target) for s in facts.symbols] == [("_ext", 1, "ext/src/a.cpp")]
