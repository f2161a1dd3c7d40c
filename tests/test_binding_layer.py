"""PyTorch's own binding layer: pybind11 registered inside init functions on a module handed in
(`torch::jit::initJITBindings(module)`), submodules, bound classes and their methods, and
CPython type objects added to a module. The fixture mirrors torch/csrc's shapes in a few small
files written here; every expected name and line was read off the fixture's text below."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest
from conftest import write_tree

from explorer.analysis.details import describe
from explorer.analysis.trace import trace_symbol
from explorer.index.build import refresh
from explorer.index.store import IndexStore
from explorer.model import Layer, Resolution, SymbolKind
from explorer.names.lookup import find
from explorer.parsers.cpp import parse_cpp
from explorer.resolve.graph import CallGraph
from tests.places import path_line

MODULE_CPP = (
    "#include <Python.h>\n"  # 1
    "static PyObject* module;\n"
    "static std::vector<PyMethodDef> methods;\n"
    "PyObject* initModule() {\n"  # 4
    "  static struct PyModuleDef torchmodule = {\n"
    '      PyModuleDef_HEAD_INIT, "torch._C", nullptr, -1, methods.data()};\n'
    "  module = PyModule_Create(&torchmodule);\n"  # 7
    "  THPEvent_init(module);\n"  # 8
    "  torch::jit::initJITBindings(module);\n"  # 9
    "  return module;\n"
    "}\n"
)

TREE = {
    "torch/__init__.py": "from torch import serialization\n",
    "torch/_C/__init__.pyi": (
        "class PyTorchFileWriter:\n"  # 1
        "    def __init__(self, name: str) -> None: ...\n"
        "    def write_record(self, name: str, data: bytes, size: int) -> None: ...\n"  # 3
        "class Event:\n"  # 4
        "    def record(self) -> None: ...\n"
        "def _jit_pass_lower(graph) -> None: ...\n"  # 6
    ),
    "torch/serialization.py": (
        "import torch\n"  # 1
        "\n"
        "\n"
        "def save(obj, f):\n"  # 4
        "    writer = torch._C.PyTorchFileWriter(f)\n"  # 5
        "    writer.write_record('data.pkl', obj, 0)\n"  # 6
    ),
    "torch/csrc/Module.cpp": MODULE_CPP,
    "torch/csrc/jit/python/init.cpp": (
        "namespace torch::jit {\n"  # 1
        "void initPassBindings(py::module& m) {\n"  # 2
        '  m.def("_jit_pass_fold", &foldGraph);\n'  # 3
        "}\n"
        "void initJITBindings(PyObject* module) {\n"  # 5
        "  auto m = py::handle(module).cast<py::module>();\n"  # 6
        '  auto jit = m.def_submodule("_jit");\n'  # 7
        '  py::class_<PyTorchStreamWriter>(m, "PyTorchFileWriter")\n'  # 8
        "      .def(py::init<std::string>())\n"  # 9
        '      .def("write_record", [](PyTorchStreamWriter& self, const std::string& name, const char* data, size_t size) {\n'  # 10
        "        self.writeRecord(name, data, size);\n"  # 11
        "      });\n"
        '  m.def("_jit_pass_lower", &lowerGraph);\n'  # 13
        "  initPassBindings(jit);\n"  # 14
        "}\n"
        "void initOrphanBindings(PyObject* module) {\n"  # 16
        "  auto m = py::handle(module).cast<py::module>();\n"
        '  m.def("_orphan", &lowerGraph);\n'  # 18
        "}\n"
        "}  // namespace torch::jit\n"
    ),
    "torch/csrc/jit/serialization/writer.cpp": (
        "namespace torch::jit {\n"  # 1
        "PyTorchStreamWriter::PyTorchStreamWriter(std::string name) {}\n"  # 2
        "void PyTorchStreamWriter::writeRecord(const std::string& name, const void* data, size_t size) {\n"  # 3
        "  writeEndOfFile();\n"
        "}\n"
        "void PyTorchStreamWriter::writeEndOfFile() {}\n"  # 6
        "void lowerGraph(std::shared_ptr<Graph>& graph) {}\n"  # 7
        "void foldGraph(std::shared_ptr<Graph>& graph) {}\n"  # 8
        "}  // namespace torch::jit\n"
    ),
    "torch/csrc/Event.cpp": (
        "static PyObject* THPEvent_pynew(PyTypeObject* type, PyObject* args, PyObject* kwargs) { return nullptr; }\n"  # 1
        "static PyObject* THPEvent_record(PyObject* self, PyObject* args) { return nullptr; }\n"  # 2
        "static PyObject* THPEvent_get_device(THPEvent* self, void* unused) { return nullptr; }\n"  # 3
        "static PyObject* THPEvent_repr(THPEvent* self) { return nullptr; }\n"  # 4
        "static struct PyGetSetDef THPEvent_properties[] = {\n"  # 5
        '    {"device", (getter)THPEvent_get_device, nullptr, nullptr, nullptr},\n'  # 6
        "    {nullptr}};\n"
        "static PyMethodDef THPEvent_methods[] = {\n"  # 8
        '    {(char*)"record", THPEvent_record, METH_VARARGS | METH_KEYWORDS, nullptr},\n'  # 9
        "    {nullptr}};\n"
        "PyTypeObject THPEventType = {\n"  # 11
        '    PyVarObject_HEAD_INIT(nullptr, 0) "torch.Event", /* tp_name */\n'  # 12
        "    sizeof(THPEvent), /* tp_basicsize */\n"
        "    0, /* tp_itemsize */\n"
        "    nullptr, /* tp_dealloc */\n"
        "    0, /* tp_vectorcall_offset */\n"
        "    nullptr, /* tp_getattr */\n"
        "    nullptr, /* tp_setattr */\n"
        "    nullptr, /* tp_reserved */\n"
        "    (reprfunc)THPEvent_repr, /* tp_repr */\n"  # 20
        "};\n"
        "void THPEvent_init(PyObject* module) {\n"  # 22
        "  THPEventType.tp_methods = THPEvent_methods;\n"  # 23
        "  THPEventType.tp_getset = THPEvent_properties;\n"
        "  THPEventType.tp_new = THPEvent_pynew;\n"  # 25
        '  if (PyModule_AddObject(module, "Event", (PyObject*)&THPEventType) < 0) {\n'  # 26
        "    throw python_error();\n"
        "  }\n"
        "}\n"
    ),
    "torch/csrc/distributed/c10d/init.cpp": (
        "namespace torch::distributed::c10d {\n"  # 1
        "PyObject* c10d_init(PyObject* _unused, PyObject* noargs) {\n"  # 2
        '  auto torch_C_module = THPObjectPtr(PyImport_ImportModule("torch._C"));\n'
        "  auto torch_C_m = py::handle(torch_C_module).cast<py::module>();\n"
        '  auto m = torch_C_m.def_submodule("_distributed_c10d", "distributed c10d bindings");\n'  # 5
        "  auto module = py::handle(m).cast<py::module>();\n"
        "  auto processGroup =\n"
        '      py::class_<::c10d::ProcessGroup, c10::intrusive_ptr<::c10d::ProcessGroup>>(module, "ProcessGroup")\n'  # 8
        '          .def("allreduce", &::c10d::ProcessGroup::allreduce);\n'  # 9
        '  intrusive_ptr_class_<::c10d::ProcessGroup::Options>(processGroup, "Options")\n'  # 10
        '      .def_readwrite("timeout", &::c10d::ProcessGroup::Options::timeout);\n'  # 11
        "  Py_RETURN_TRUE;\n"
        "}\n"
        "}\n"
    ),
}


@contextlib.contextmanager
def indexed(root, tmp_path) -> Iterator[tuple[IndexStore, CallGraph]]:
    """The tree at `root` indexed, its store open and its call graph over every backend."""
    refresh(str(root), tmp_path / "index.sqlite", jobs=1)
    store = IndexStore.open(tmp_path / "index.sqlite")
    try:
        yield store, CallGraph(store, str(root), "all")
    finally:
        store.close()


def in_index_order(expected: list[tuple]) -> list[tuple]:
    return sorted(expected, key=lambda b: (b[1], b[2], b[0]))


def _moved(qname: str, prefixes: tuple[str, ...]) -> str:
    for prefix in prefixes:
        if qname == prefix or qname.startswith(prefix + "."):
            return "torch._D" + qname.removeprefix("torch._C")
    return qname


@pytest.fixture()
def tree(tmp_path):
    root = write_tree(tmp_path / "tree", TREE)
    return root, tmp_path / "index.sqlite"


def bindings(index) -> list[tuple]:
    """Every pybind11 and type-object binding of the index, bound classes included:
    (qname, file, line, target)."""
    store = IndexStore.open(index)
    try:
        return [
            tuple(row)
            for row in store.db.execute(
                "SELECT s.qname, f.path, s.line, s.target FROM symbols s JOIN files f ON f.id = s.file_id"
                " WHERE s.kind IN ('pybind', 'method_table', 'bound_class') ORDER BY f.path, s.line, s.qname"
            )
        ]
    finally:
        store.close()


EXPECTED = [
    ("torch._C.Event", "torch/csrc/Event.cpp", 11, "THPEvent"),
    ("torch._C.Event.__new__", "torch/csrc/Event.cpp", 25, "THPEvent_pynew"),
    ("torch._C.Event.device", "torch/csrc/Event.cpp", 6, "THPEvent_get_device"),
    ("torch._C.Event.record", "torch/csrc/Event.cpp", 9, "THPEvent_record"),
    ("torch._C.Event.__repr__", "torch/csrc/Event.cpp", 20, "THPEvent_repr"),
    ("torch._C._distributed_c10d.ProcessGroup", "torch/csrc/distributed/c10d/init.cpp", 8, "c10d::ProcessGroup"),
    (
        "torch._C._distributed_c10d.ProcessGroup.allreduce",
        "torch/csrc/distributed/c10d/init.cpp",
        9,
        "c10d::ProcessGroup::allreduce",
    ),
    (
        "torch._C._distributed_c10d.ProcessGroup.Options",
        "torch/csrc/distributed/c10d/init.cpp",
        10,
        "c10d::ProcessGroup::Options",
    ),
    (
        "torch._C._distributed_c10d.ProcessGroup.Options.timeout",
        "torch/csrc/distributed/c10d/init.cpp",
        11,
        "c10d::ProcessGroup::Options::timeout",
    ),
    ("torch._C._jit._jit_pass_fold", "torch/csrc/jit/python/init.cpp", 3, "torch::jit::foldGraph"),
    ("torch._C.PyTorchFileWriter", "torch/csrc/jit/python/init.cpp", 8, "torch::jit::PyTorchStreamWriter"),
    (
        "torch._C.PyTorchFileWriter.__init__",
        "torch/csrc/jit/python/init.cpp",
        9,
        "torch::jit::PyTorchStreamWriter::PyTorchStreamWriter",
    ),
    (
        "torch._C.PyTorchFileWriter.write_record",
        "torch/csrc/jit/python/init.cpp",
        10,
        "torch::jit::<lambda at line 10>",
    ),
    ("torch._C._jit_pass_lower", "torch/csrc/jit/python/init.cpp", 13, "torch::jit::lowerGraph"),
    # nothing in the tree calls initOrphanBindings: its module stays the parameter, said so
    (
        "<arg 0 of torch::jit::initOrphanBindings>._orphan",
        "torch/csrc/jit/python/init.cpp",
        18,
        "torch::jit::lowerGraph",
    ),
]


def test_bindings_on_a_module_handed_in_are_named_by_the_module_the_caller_passes(tree):
    root, index = tree
    refresh(str(root), index, jobs=1)
    assert bindings(index) == in_index_order(EXPECTED)


def test_a_refresh_names_bindings_again_when_a_caller_changes(tree):
    root, index = tree
    refresh(str(root), index, jobs=1)
    module = root / "torch/csrc/Module.cpp"
    # the caller now hands the JIT bindings a submodule of its own
    module.write_text(
        MODULE_CPP.replace(
            "torch::jit::initJITBindings(module);", 'torch::jit::initJITBindings(PyImport_ImportModule("torch._D"));'
        )
    )
    refresh(str(root), index, jobs=1)
    moved = ("torch._C.PyTorchFileWriter", "torch._C._jit", "torch._C._jit_pass_lower")
    expected = [(_moved(q, moved), *rest) for q, *rest in EXPECTED]
    assert bindings(index) == in_index_order(expected)
    # and with no caller left, the parameter's placeholder comes back; a new index agrees
    module.write_text(MODULE_CPP.replace("  torch::jit::initJITBindings(module);\n", ""))
    refresh(str(root), index, jobs=1)
    refreshed = bindings(index)
    assert (
        "<arg 0 of torch::jit::initJITBindings>.PyTorchFileWriter.write_record",
        "torch/csrc/jit/python/init.cpp",
        10,
        "torch::jit::<lambda at line 10>",
    ) in refreshed
    fresh = root.parent / "fresh.sqlite"
    refresh(str(root), fresh, jobs=1)
    assert bindings(fresh) == refreshed


def test_a_method_of_a_bound_class_is_reached_through_an_instance(tree):
    root, index = tree
    refresh(str(root), index, jobs=1)
    store = IndexStore.open(index)
    try:
        report = trace_symbol(store, str(root), "torch.serialization.save", to="writeEndOfFile", backend="all")
        hops = [
            (
                h.node.symbol.qname,
                h.node.symbol.path,
                h.node.symbol.line,
                h.edge.label if h.edge else None,
                path_line(h.edge.site) if h.edge else None,
            )
            for h in report.trace.paths[0]
        ]
    finally:
        store.close()
    assert hops == [
        ("torch.serialization.save", "torch/serialization.py", 4, None, None),
        # `writer` is an instance of the bound class: its method is the one the .def binds
        (
            "torch._C.PyTorchFileWriter.write_record",
            "torch/csrc/jit/python/init.cpp",
            10,
            "pybind",
            ("torch/serialization.py", 6),
        ),
        (
            "torch::jit::<lambda at line 10>",
            "torch/csrc/jit/python/init.cpp",
            10,
            "pybind",
            ("torch/csrc/jit/python/init.cpp", 10),
        ),
        # `self.writeRecord(...)` on the lambda's `PyTorchStreamWriter& self`
        (
            "torch::jit::PyTorchStreamWriter::writeRecord",
            "torch/csrc/jit/serialization/writer.cpp",
            3,
            "method",
            ("torch/csrc/jit/python/init.cpp", 11),
        ),
        (
            "torch::jit::PyTorchStreamWriter::writeEndOfFile",
            "torch/csrc/jit/serialization/writer.cpp",
            6,
            "call",
            ("torch/csrc/jit/serialization/writer.cpp", 4),
        ),
    ]


def bound(path: str, source: str) -> list[tuple]:
    """The bindings one file makes, as parsed: (qname, kind, line, target)."""
    return [
        (s.qname, s.kind.value, s.line, s.target)
        for s in parse_cpp(path, source.encode()).symbols
        if s.kind in (SymbolKind.PYBIND, SymbolKind.METHOD_TABLE, SymbolKind.BOUND_CLASS)
    ]


def test_every_branch_of_a_conditional_inside_a_def_chain_is_read():
    source = (
        "void initJITBindings(PyObject* module) {\n"  # 1
        "  auto m = py::handle(module).cast<py::module>();\n"
        '  m.def("_a", &a)\n'  # 3
        "#if defined(BUILDING_TESTS)\n"
        '      .def("_tests", []() { return true; })\n'  # 5
        "#else\n"
        '      .def("_tests", []() { return false; })\n'  # 7
        "#endif\n"
        '      .def("_b", &b);\n'  # 9
        '  m.def("_c", &c);\n'  # 10
        "}\n"
    )
    assert bound("torch/csrc/x.cpp", source) == [
        ("<arg 0 of initJITBindings>._a", "pybind", 3, "a"),
        ("<arg 0 of initJITBindings>._tests", "pybind", 5, "<lambda at line 5>"),
        ("<arg 0 of initJITBindings>._tests", "pybind", 7, "<lambda at line 7>"),
        ("<arg 0 of initJITBindings>._b", "pybind", 9, "b"),
        ("<arg 0 of initJITBindings>._c", "pybind", 10, "c"),
    ]


def test_a_method_table_entry_inside_a_conditional_and_a_type_under_two_names():
    source = (
        "static PyMethodDef methods[] = {\n"  # 1
        '    {"_cuda_init", THCPModule_init, METH_NOARGS, nullptr},\n'
        "#ifdef USE_NCCL\n"
        '    {"_nccl_version", THCPModule_nccl_version, METH_NOARGS, nullptr},\n'  # 4
        "#endif\n"
        "    {nullptr}};\n"
        'PyTypeObject THPVariableType = {PyVarObject_HEAD_INIT(nullptr, 0) "torch._C.TensorBase", sizeof(THPVariable)};\n'  # 7
        'static PyMethodDef extra_methods[] = {{"_make_subclass", THPVariable_make_subclass, METH_STATIC, nullptr}, {nullptr}};\n'  # 8
        "bool THPVariable_initModule(PyObject* module) {\n"  # 9
        "  static std::vector<PyMethodDef> all;\n"
        "  THPUtils_addPyMethodDefs(all, extra_methods);\n"
        "  THPVariableType.tp_methods = all.data();\n"
        '  PyModule_AddObject(module, "TensorBase", (PyObject*)&THPVariableType);\n'
        '  PyModule_AddObject(module, "_TensorBase", (PyObject*)&THPVariableType);\n'
        "  return true;\n"
        "}\n"
    )
    assert sorted(bound("torch/csrc/cuda/Module.cpp", source)) == [
        ("<arg 0 of THPVariable_initModule>.TensorBase", "bound_class", 7, "THPVariable"),
        ("<arg 0 of THPVariable_initModule>.TensorBase._make_subclass", "method_table", 8, "THPVariable_make_subclass"),
        ("<arg 0 of THPVariable_initModule>._TensorBase", "bound_class", 7, "THPVariable"),
        (
            "<arg 0 of THPVariable_initModule>._TensorBase._make_subclass",
            "method_table",
            8,
            "THPVariable_make_subclass",
        ),
        # a table no type holds: PyTorch's own, added to torch._C by Module.cpp
        ("torch._C._cuda_init", "method_table", 2, "THCPModule_init"),
        ("torch._C._nccl_version", "method_table", 4, "THCPModule_nccl_version"),
    ]


def test_a_helper_names_a_class_after_the_string_each_caller_passes(tmp_path):
    files = {
        "torch/csrc/utils/python_raii.h": (
            "namespace torch::impl { template <typename GuardT>\n"  # 1
            "void py_context_manager(const py::module& m, const char* name) {\n"  # 2
            "  py::class_<RAIIContextManager<GuardT>>(m, name)\n"  # 3
            '      .def("__enter__", [](RAIIContextManager<GuardT>& guard) { guard.enter(); });\n'  # 4
            "}}\n"
        ),
        "torch/csrc/autograd/init.cpp": (
            "PyObject* THPAutograd_initExtension(PyObject* _unused, PyObject* unused) {\n"  # 1
            '  auto torch_C_module = THPObjectPtr(PyImport_ImportModule("torch._C"));\n'
            "  auto _C_m = py::handle(torch_C_module).cast<py::module>();\n"
            '  py_context_manager<DisableAutocast>(_C_m, "_DisableAutocast");\n'  # 4
            '  py_context_manager<InferenceMode>(_C_m, "_InferenceMode");\n'  # 5
            "  Py_RETURN_TRUE;\n"
            "}\n"
        ),
        # a caller that C++ lookup takes to the helper: the global one still counts
        "torch/csrc/utils/python_dispatch.cpp": (
            "namespace torch::impl::dispatch {\n"
            "void initDispatchBindings(PyObject* module) {\n"
            "  auto m = py::handle(module).cast<py::module>();\n"
            '  py_context_manager<ExcludeGuard>(m, "_ExcludeDispatchKeyGuard");\n'
            "}\n"
            "}\n"
        ),
    }
    root = write_tree(tmp_path / "tree", files)
    refresh(str(root), tmp_path / "index.sqlite", jobs=1)
    # one class per call: the module and the name of one call go together, never crossed; the
    # global-namespace call reaches torch::impl::py_context_manager (by a using-directive in PyTorch)
    dispatch = (
        "<arg 0 of torch::impl::dispatch::initDispatchBindings>._ExcludeDispatchKeyGuard"  # no caller in the tree
    )
    assert [(q, p, line) for q, p, line, _ in bindings(tmp_path / "index.sqlite")] == [
        (dispatch, "torch/csrc/utils/python_raii.h", 3),
        ("torch._C._DisableAutocast", "torch/csrc/utils/python_raii.h", 3),
        ("torch._C._InferenceMode", "torch/csrc/utils/python_raii.h", 3),
        (f"{dispatch}.__enter__", "torch/csrc/utils/python_raii.h", 4),
        ("torch._C._DisableAutocast.__enter__", "torch/csrc/utils/python_raii.h", 4),
        ("torch._C._InferenceMode.__enter__", "torch/csrc/utils/python_raii.h", 4),
    ]


def test_operators_pybind11_binds_are_special_methods():
    source = (
        "void initDispatchBindings(PyObject* module) {\n"  # 1
        "  auto m = py::handle(module).cast<py::module>();\n"
        '  py::class_<c10::DispatchKeySet>(m, "DispatchKeySet")\n'  # 3
        "      .def(py::self | py::self)\n"  # 4
        "      .def(py::self -= py::self)\n"  # 5
        "      .def(float() * py::self)\n"  # 6
        "      .def(-py::self)\n"  # 7
        "      .def(hash(py::self))\n"  # 8
        "      .def(py::self < py::self)\n"  # 9
        "      .def(float() < py::self);\n"  # 10: `1.0 < keys` runs keys.__gt__(1.0), as in Python
        "}\n"
    )
    assert bound("torch/csrc/utils/python_dispatch.cpp", source) == [
        ("<arg 0 of initDispatchBindings>.DispatchKeySet", "bound_class", 3, "c10::DispatchKeySet"),
        ("<arg 0 of initDispatchBindings>.DispatchKeySet.__or__", "pybind", 4, "operator|"),
        ("<arg 0 of initDispatchBindings>.DispatchKeySet.__isub__", "pybind", 5, "operator-="),
        ("<arg 0 of initDispatchBindings>.DispatchKeySet.__rmul__", "pybind", 6, "operator*"),
        ("<arg 0 of initDispatchBindings>.DispatchKeySet.__neg__", "pybind", 7, "operator-"),
        ("<arg 0 of initDispatchBindings>.DispatchKeySet.__hash__", "pybind", 8, "std::hash"),
        ("<arg 0 of initDispatchBindings>.DispatchKeySet.__lt__", "pybind", 9, "operator<"),
        ("<arg 0 of initDispatchBindings>.DispatchKeySet.__gt__", "pybind", 10, "operator<"),
    ]


def test_a_bound_operator_function_and_a_wrapped_function_are_targets():
    source = (
        "void initDispatchBindings(PyObject* module) {\n"  # 1
        "  auto m = py::handle(module).cast<py::module>();\n"
        '  py::class_<c10::DispatchKeySet>(m, "DispatchKeySet")\n'  # 3
        '      .def("__or__", &c10::DispatchKeySet::operator|)\n'  # 4
        '      .def("capture_end", torch::wrap_pybind_function_no_gil(&at::cuda::CUDAGraph::capture_end));\n'  # 5
        "}\n"
    )
    assert bound("torch/csrc/utils/python_dispatch.cpp", source)[1:] == [
        ("<arg 0 of initDispatchBindings>.DispatchKeySet.__or__", "pybind", 4, "c10::DispatchKeySet::operator|"),
        ("<arg 0 of initDispatchBindings>.DispatchKeySet.capture_end", "pybind", 5, "at::cuda::CUDAGraph::capture_end"),
    ]


def test_a_binding_target_a_using_declaration_brings_in(tmp_path):
    files = {
        "caffe2/serialize/inline_container.h": (
            "namespace caffe2::serialize {\n"  # 1
            "class PyTorchStreamWriter {\n"
            " public:\n"
            "  std::string archiveName() { return archive_name_; }\n"  # 4
            "};\n"
            "}\n"
        ),
        "torch/csrc/jit/python/init.cpp": (
            "namespace torch::jit {\n"  # 1
            "using caffe2::serialize::PyTorchStreamWriter;\n"
            "void initJITBindings(PyObject* module) {\n"  # 3
            "  auto m = py::handle(module).cast<py::module>();\n"
            '  py::class_<PyTorchStreamWriter>(m, "PyTorchFileWriter")\n'
            '      .def("archive_name", &PyTorchStreamWriter::archiveName);\n'  # 6
            "}\n"
            "}\n"
        ),
    }
    root = write_tree(tmp_path / "tree", files)
    with indexed(root, tmp_path) as (store, graph):
        (binding,) = list(store.symbols_of_kind_named(SymbolKind.PYBIND, "archive_name"))
        assert [
            (e.target.symbol.qname, e.target.symbol.path, e.target.symbol.line, e.label)
            for e in graph.edges(graph.node(binding))
        ] == [
            ("caffe2::serialize::PyTorchStreamWriter::archiveName", "caffe2/serialize/inline_container.h", 4, "pybind"),
        ]


def test_a_class_bound_from_cpp_with_no_stub_is_constructed(tree):
    root, index = tree
    (root / "torch/_C/__init__.pyi").unlink()  # PyTorch's tree holds the template __init__.pyi.in only
    refresh(str(root), index, jobs=1)
    store = IndexStore.open(index)
    try:
        graph = CallGraph(store, str(root), "all")
        (save,) = store.symbols_with_qname("torch.serialization.save")
        edges = [
            (e.target.symbol.qname, e.target.symbol.path, e.target.symbol.line, e.label, path_line(e.site))
            for e in graph.edges(graph.node(save))
        ]
        (cls,) = [s for s in store.symbols_with_qname("torch._C.PyTorchFileWriter") if s.kind is SymbolKind.BOUND_CLASS]
        made = [(e.target.symbol.qname, e.target.symbol.line, e.label) for e in graph.edges(graph.node(cls))]
    finally:
        store.close()
    # the call of the class runs what its py::init binds (init.cpp:9), as calling a Python
    # class reaches its __init__
    assert (
        "torch._C.PyTorchFileWriter.__init__",
        "torch/csrc/jit/python/init.cpp",
        9,
        "call",
        ("torch/serialization.py", 5),
    ) in edges
    # and so does the class (init.cpp:8), where a trace starts from it
    assert made == [("torch._C.PyTorchFileWriter.__init__", 9, "call")]


def test_a_lambda_a_wrapper_is_handed_is_the_binding_target_and_a_definition():
    source = (
        "namespace torch::onnx {\n"  # 1
        "void initONNXBindings(PyObject* module) {\n"
        "  auto m = py::handle(module).cast<py::module>();\n"
        "  m.def(\n"  # 4
        '      "_jit_pass_onnx_assign_output_shape",\n'
        "      ::torch::wrap_pybind_function(\n"
        "          [](std::shared_ptr<Graph>& graph, bool onnx_shape_inference) {\n"  # 7
        "            ONNXAssignOutputShape(graph, onnx_shape_inference);\n"  # 8
        "          }));\n"
        "}\n"
        "}\n"
    )
    facts = parse_cpp("torch/csrc/onnx/init.cpp", source.encode())
    assert bound("torch/csrc/onnx/init.cpp", source) == [
        (
            "<arg 0 of torch::onnx::initONNXBindings>._jit_pass_onnx_assign_output_shape",
            "pybind",
            4,
            "torch::onnx::<lambda at line 7>",
        ),
    ]
    assert [(c.caller, c.callee, c.line) for c in facts.calls if c.callee == "ONNXAssignOutputShape"] == [
        ("torch::onnx::<lambda at line 7>", "ONNXAssignOutputShape", 8),
    ]


def test_a_class_bound_through_a_local_type_alias_binds_what_the_alias_names():
    source = (
        "namespace torch::impl {\n"  # 1
        "template <typename GuardT, typename... GuardArgs>\n"
        "void py_context_manager(const py::module& m, const char* name) {\n"  # 3
        "  using ContextManagerT = RAIIContextManager<GuardT, GuardArgs...>;\n"
        "  py::class_<ContextManagerT>(m, name)\n"  # 5
        "      .def(py::init<GuardArgs...>());\n"  # 6
        "}\n"
        "}\n"
    )
    placeholder = "<arg 0 of torch::impl::py_context_manager>.<arg 1 of torch::impl::py_context_manager>"
    assert bound("torch/csrc/utils/python_raii.h", source) == [
        (placeholder, "bound_class", 5, "torch::impl::RAIIContextManager"),
        (f"{placeholder}.__init__", "pybind", 6, "torch::impl::RAIIContextManager::RAIIContextManager"),
    ]


BASES_TREE = {
    "torch/csrc/Module.cpp": MODULE_CPP.replace("torch::jit::initJITBindings", "torch::jit::initJitScriptBindings"),
    "torch/_C/__init__.pyi": (
        "class ScriptObject:\n"  # 1
        "    def _method_names(self) -> list[str]: ...\n"
        "class ScriptModule(ScriptObject):\n"  # 3
        "    def _method_names(self) -> list[str]: ...\n"  # 4
        "class ListType:\n"  # 5
        "    def kind(self) -> str: ...\n"  # 6
    ),
    "torch/jit/_script.py": (
        "import torch\n"  # 1
        "\n"
        "\n"
        "def names():\n"  # 4
        "    cpp_module = torch._C.ScriptModule()\n"  # 5
        "    return cpp_module._method_names()\n"  # 6
    ),
    "torch/csrc/jit/python/script_init.cpp": (
        "namespace torch::jit {\n"  # 1
        "void initJitScriptBindings(PyObject* module) {\n"  # 2
        "  auto m = py::handle(module).cast<py::module>();\n"
        '  py::class_<Object>(m, "ScriptObject")\n'  # 4
        '      .def("_method_names", &Object::methodNames);\n'  # 5
        '  py::class_<Module, Object>(m, "ScriptModule", py::dynamic_attr())\n'  # 6
        '      .def("save", &Module::save);\n'  # 7
        '  py::class_<Type, TypePtr>(m, "Type")\n'  # 8
        '      .def("kind", &Type::kindName);\n'  # 9
        '  py::class_<ListType, Type, ListTypePtr>(m, "ListType");\n'  # 10
        "}\n"
        "}\n"
    ),
    "torch/csrc/jit/api/object.cpp": (
        "namespace torch::jit {\n"  # 1
        "std::vector<std::string> Object::methodNames() const { return {}; }\n"  # 2
        "void Module::save() {}\n"  # 3
        "std::string Type::kindName() const { return {}; }\n"  # 4
        "}\n"
    ),
}


def test_a_method_bound_on_a_base_class_serves_its_subclasses(tmp_path):
    root = write_tree(tmp_path / "tree", BASES_TREE)
    refresh(str(root), tmp_path / "index.sqlite", jobs=1)
    assert [
        (q, line, target)
        for q, p, line, target in bindings(tmp_path / "index.sqlite")
        if p.endswith("script_init.cpp") and q in ("torch._C.ScriptModule", "torch._C.ListType")
    ] == [
        ("torch._C.ScriptModule", 6, "torch::jit::Module"),
        ("torch._C.ListType", 10, "torch::jit::ListType"),
    ]
    store = IndexStore.open(tmp_path / "index.sqlite")
    try:
        graph = CallGraph(store, str(root), "all")
        # the stub declares _method_names on ScriptModule (stub line 4); C++ binds it on
        # ScriptObject (script_init.cpp:5), a base both in the stub and in py::class_<Module, Object>
        found = find(store, "torch._C.ScriptModule._method_names")
        assert [(s.qname, s.path, s.line) for s in found.symbols] == [
            ("torch._C.ScriptObject._method_names", "torch/csrc/jit/python/script_init.cpp", 5),
            ("torch._C.ScriptModule._method_names", "torch/_C/__init__.pyi", 4),
        ]
        # ListType's stub has no base; py::class_<ListType, Type, ListTypePtr> does (Type, line 8)
        found = find(store, "torch._C.ListType.kind")
        assert next((s.qname, s.line) for s in found.symbols) == ("torch._C.Type.kind", 9)
        # a call on a ScriptModule value reaches the C++ the base's binding names
        (names,) = store.symbols_with_qname("torch.jit._script.names")
        hops = [(e.target.symbol.qname, e.target.symbol.line) for e in graph.edges(graph.node(names))]
        # (the class itself, as the stub declares it at line 3, is called first)
        assert hops == [("torch._C.ScriptModule", 3), ("torch._C.ScriptObject._method_names", 5)]
        (binding,) = [
            s for s in store.symbols_with_qname("torch._C.ScriptObject._method_names") if s.kind is SymbolKind.PYBIND
        ]
        assert [(e.target.symbol.qname, e.target.symbol.line) for e in graph.edges(graph.node(binding))] == [
            ("torch::jit::Object::methodNames", 2),
        ]
    finally:
        store.close()


def test_a_data_member_a_binding_reads_and_writes_is_its_target(tmp_path):
    files = {
        "torch/csrc/Module.cpp": MODULE_CPP.replace(
            "torch::jit::initJITBindings(module)", "torch::distributed::rpc::rpc_init(module)"
        ),
        "torch/csrc/distributed/rpc/types.h": (
            "namespace torch::distributed::rpc {\n"  # 1
            "struct WorkerInfo {\n"
            "  const std::string name_;\n"  # 3
            "  const worker_id_t id_;\n"  # 4
            "};\n"
            "}\n"
        ),
        "torch/csrc/distributed/rpc/init.cpp": (
            "namespace torch::distributed::rpc {\n"  # 1
            "void rpc_init(PyObject* module) {\n"
            "  auto m = py::handle(module).cast<py::module>();\n"
            '  py::class_<WorkerInfo>(m, "WorkerInfo")\n'  # 4
            '      .def_readonly("name", &WorkerInfo::name_)\n'  # 5
            '      .def_readonly("id", &WorkerInfo::id_);\n'  # 6
            "}\n"
            "}\n"
        ),
    }
    types = "torch/csrc/distributed/rpc/types.h"
    assert binding_targets(tmp_path, files, ["WorkerInfo.name", "WorkerInfo.id"]) == {
        "WorkerInfo.name": [("torch::distributed::rpc::WorkerInfo::name_", SymbolKind.FIELD, types, 3, Layer.CPP)],
        "WorkerInfo.id": [("torch::distributed::rpc::WorkerInfo::id_", SymbolKind.FIELD, types, 4, Layer.CPP)],
    }


def binding_targets(tmp_path, files: dict[str, str], names: list[str]) -> dict[str, list[tuple]]:
    """The tree indexed; for each binding `torch._C.<name>`, what its edges reach."""
    root = write_tree(tmp_path / "tree", files)
    with indexed(root, tmp_path) as (store, graph):
        edges = {}
        for name in names:
            (binding,) = [s for s in store.symbols_with_qname(f"torch._C.{name}") if s.kind is SymbolKind.PYBIND]
            edges[name] = [
                (
                    e.target.symbol.qname,
                    e.target.symbol.kind,
                    e.target.symbol.path,
                    e.target.symbol.line,
                    e.target.layer,
                )
                for e in graph.edges(graph.node(binding))
            ]
        return edges


def test_an_object_header_written_without_a_semicolon_loses_nothing_after_it():
    # python_engine.cpp: `struct THPEngine { PyObject_HEAD };` made the rest of the file an
    # error, and the autograd engine's method table with it
    source = (
        "struct THPEngine {\n"  # 1
        "  PyObject_HEAD\n"
        "};\n"
        "PyObject* THPEngine_run_backward(PyObject* self, PyObject* args, PyObject* kwargs) { return nullptr; }\n"  # 4
        "static struct PyMethodDef THPEngine_methods[] = {\n"  # 5
        '    {(char*)"run_backward",\n'  # 6
        "     castPyCFunctionWithKeywords(THPEngine_run_backward),\n"
        "     METH_VARARGS | METH_KEYWORDS,\n"
        "     nullptr},\n"
        "    {nullptr}};\n"
        "PyTypeObject THPEngineType = {\n"  # 11
        '    PyVarObject_HEAD_INIT(nullptr, 0) "torch._C._EngineBase", /* tp_name */\n'
        "    sizeof(THPEngine), /* tp_basicsize */\n"
        "};\n"
        "bool THPEngine_initModule(PyObject* module) {\n"  # 15
        "  THPEngineType.tp_methods = THPEngine_methods;\n"
        '  PyModule_AddObject(module, "_ImperativeEngine", (PyObject*)&THPEngineType);\n'  # 17
        "  return true;\n"
        "}\n"
    )
    assert bound("torch/csrc/autograd/python_engine.cpp", source) == [
        ("<arg 0 of THPEngine_initModule>._ImperativeEngine.run_backward", "method_table", 6, "THPEngine_run_backward"),
        ("<arg 0 of THPEngine_initModule>._ImperativeEngine", "bound_class", 11, "THPEngine"),
    ]
    assert [
        (s.qname, s.line)
        for s in parse_cpp("torch/csrc/autograd/python_engine.cpp", source.encode()).symbols
        if s.kind is SymbolKind.FUNCTION
    ] == [("THPEngine_run_backward", 4), ("THPEngine_initModule", 15)]


def test_a_base_handed_as_a_class_value_is_a_base():
    source = (
        "namespace torch::distributed::c10d {\n"  # 1
        "void init(PyObject* module) {\n"
        "  auto m = py::handle(module).cast<py::module>();\n"
        '  auto processGroup = py::class_<::c10d::ProcessGroup>(m, "ProcessGroup");\n'  # 4
        "  auto processGroupOptions =\n"
        '      intrusive_ptr_class_<::c10d::ProcessGroup::Options>(processGroup, "Options", R"(doc)");\n'  # 6
        '  auto processGroupNCCL = py::class_<::c10d::ProcessGroupNCCL, ::c10d::Backend>(m, "ProcessGroupNCCL");\n'  # 7
        '  intrusive_ptr_class_<::c10d::ProcessGroupNCCL::Options>(processGroupNCCL, "Options", processGroupOptions);\n'  # 8
        "}\n"
        "}\n"
    )
    classes = [
        (s.line, s.signature)
        for s in parse_cpp("torch/csrc/distributed/c10d/init.cpp", source.encode()).symbols
        if s.kind is SymbolKind.BOUND_CLASS
    ]
    assert classes == [
        (4, "class ProcessGroup: binds ::c10d::ProcessGroup"),
        (6, "class Options: binds ::c10d::ProcessGroup::Options"),
        (7, "class ProcessGroupNCCL(c10d::Backend): binds ::c10d::ProcessGroupNCCL"),
        (8, "class Options(c10d::ProcessGroup::Options): binds ::c10d::ProcessGroupNCCL::Options"),
    ]


def test_a_function_a_named_wrapper_is_handed_and_a_vendor_api_are_targets(tmp_path):
    files = {
        "torch/csrc/Module.cpp": MODULE_CPP.replace(
            "torch::jit::initJITBindings(module)", "torch::cuda::shared::initNvtxBindings(module)"
        ),
        "torch/csrc/cuda/shared/nvtx.cpp": (
            "namespace torch::cuda::shared {\n"  # 1
            "void initNvtxBindings(PyObject* module) {\n"
            "  auto m = py::handle(module).cast<py::module>();\n"
            '  auto nvtx = m.def_submodule("_nvtx", "libNvToolsExt.so bindings");\n'
            '  nvtx.def("rangePushA", nvtxRangePushA);\n'  # 5
            '  nvtx.def("_substitute", wrap_pybind_function(substitute));\n'  # 6
            "}\n"
            "void substitute(Graph& graph) {}\n"  # 8
            "}\n"
        ),
    }
    assert binding_targets(tmp_path, files, ["_nvtx.rangePushA", "_nvtx._substitute"]) == {
        # NVTX's own function, outside the tree: the end of the chain, said to be a vendor API
        "_nvtx.rangePushA": [("nvtxRangePushA", SymbolKind.EXTERNAL, None, None, Layer.VENDOR)],
        "_nvtx._substitute": [
            ("torch::cuda::shared::substitute", SymbolKind.FUNCTION, "torch/csrc/cuda/shared/nvtx.cpp", 8, Layer.CPP)
        ],
    }


def test_a_member_no_lookup_finds_is_guessed_by_its_class_and_name_and_said_so(tmp_path):
    files = {
        "torch/csrc/Module.cpp": MODULE_CPP.replace(
            "torch::jit::initJITBindings(module)", "torch::jit::initPythonIRBindings(module)"
        ),
        "aten/src/ATen/core/type.cpp": (
            "namespace c10 {\n"  # 1
            "ListTypePtr ListType::ofInts() { return nullptr; }\n"  # 2
            "}\n"
        ),
        # PyTorch brings c10::ListType into torch::jit by a using-declaration a header's macro
        # writes (ir.h's C10_FORALL_TYPES(C10_USING)); a lookup from torch::jit misses it
        "torch/csrc/jit/python/python_ir.cpp": (
            "namespace torch::jit {\n"  # 1
            "void initPythonIRBindings(PyObject* module_) {\n"
            "  auto m = py::handle(module_).cast<py::module>();\n"
            '  py::class_<ListType, Type, ListTypePtr>(m, "ListType")\n'
            '      .def_static("ofInts", &ListType::ofInts);\n'  # 5
            "}\n"
            "}\n"
        ),
    }
    root = write_tree(tmp_path / "tree", files)
    with indexed(root, tmp_path) as (store, graph):
        (binding,) = [s for s in store.symbols_with_qname("torch._C.ListType.ofInts") if s.kind is SymbolKind.PYBIND]
        edges = [
            (e.target.symbol.qname, e.target.symbol.path, e.target.symbol.line, e.resolution)
            for e in graph.edges(graph.node(binding))
        ]
    assert edges == [("c10::ListType::ofInts", "aten/src/ATen/core/type.cpp", 2, Resolution.NAME)]


def test_a_binding_of_a_pure_virtual_reaches_the_overrides(tmp_path):
    files = {
        "torch/csrc/Module.cpp": MODULE_CPP.replace(
            "torch::jit::initJITBindings(module)", "torch::distributed::c10d::c10d_init(module)"
        ),
        "torch/csrc/distributed/c10d/Store.hpp": (
            "namespace c10d {\n"  # 1
            "class TORCH_API Store : public torch::CustomClassHolder {\n"
            " public:\n"
            "  virtual int64_t add(const std::string& key, int64_t value) = 0;\n"  # 4
            "};\n"
            "}\n"
        ),
        "torch/csrc/distributed/c10d/TCPStore.cpp": (
            "namespace c10d {\n"  # 1
            "class TORCH_API TCPStore : public Store {};\n"  # 2
            "class PrefixStore : public TCPStore {};\n"  # 3
            "class Unrelated {};\n"  # 4
            "int64_t TCPStore::add(const std::string& key, int64_t value) { return 0; }\n"  # 5
            "int64_t PrefixStore::add(const std::string& key, int64_t value) { return 0; }\n"  # 6
            "int64_t Unrelated::add(const std::string& key, int64_t value) { return 0; }\n"  # 7
            "}\n"
        ),
        "torch/csrc/distributed/c10d/init.cpp": (
            "namespace torch::distributed::c10d {\n"  # 1
            "void c10d_init(PyObject* module) {\n"
            "  auto m = py::handle(module).cast<py::module>();\n"
            '  py::class_<::c10d::Store>(m, "Store")\n'
            '      .def("add", &::c10d::Store::add);\n'  # 5
            "}\n"
            "}\n"
        ),
    }
    store_cpp = "torch/csrc/distributed/c10d/TCPStore.cpp"
    # each override a candidate (TCPStore directly, PrefixStore through it); Unrelated::add is none
    assert binding_targets(tmp_path, files, ["Store.add"]) == {
        "Store.add": [
            ("c10d::TCPStore::add", SymbolKind.METHOD, store_cpp, 5, Layer.CPP),
            ("c10d::PrefixStore::add", SymbolKind.METHOD, store_cpp, 6, Layer.CPP),
        ],
    }


def test_a_binding_of_a_member_a_base_class_defines_reaches_the_base(tmp_path):
    files = {
        "torch/csrc/Module.cpp": MODULE_CPP.replace(
            "torch::jit::initJITBindings(module)", "torch::jit::initPythonIRBindings(module)"
        ),
        "aten/src/ATen/core/jit_type.h": (
            "namespace c10 {\n"  # 1
            "template <TypeKind K, typename T>\n"
            "struct SingleElementType : public SharedType {\n"  # 3
            "  const TypePtr& getElementType() const { return elem; }\n"  # 4
            "};\n"
            "struct TORCH_API ListType\n"  # 6
            "    : public SingleElementType<TypeKind::ListType, ListType> {\n"
            "};\n"
            "}\n"
            "namespace torch::jit {\n"  # 10
            "struct Value {\n"
            "  const std::string& debugName() const { return name_; }\n"  # 12
            "};\n"
            "struct Use : public Value {};\n"  # 14
            "}\n"
        ),
        "torch/csrc/jit/python/python_ir.cpp": (
            "namespace torch::jit {\n"  # 1
            "void initPythonIRBindings(PyObject* module_) {\n"
            "  auto m = py::handle(module_).cast<py::module>();\n"
            '  py::class_<ListType, Type, ListTypePtr>(m, "ListType")\n'
            '      .def("getElementType", &ListType::getElementType);\n'  # 5
            '  py::class_<Use>(m, "Use")\n'
            '      .def("debugName", &Use::debugName);\n'  # 7
            "}\n"
            "}\n"
        ),
    }
    header = "aten/src/ATen/core/jit_type.h"
    assert binding_targets(tmp_path, files, ["ListType.getElementType", "Use.debugName"]) == {
        # c10::ListType is found by its name only (a using-declaration brings it into torch::jit)
        "ListType.getElementType": [
            ("c10::SingleElementType::getElementType", SymbolKind.METHOD, header, 4, Layer.CPP)
        ],
        # torch::jit::Use is found by lookup; debugName is its base Value's
        "Use.debugName": [("torch::jit::Value::debugName", SymbolKind.METHOD, header, 12, Layer.CPP)],
    }


def test_a_constructor_a_class_does_not_write_is_the_class(tmp_path):
    files = {
        "torch/csrc/Module.cpp": MODULE_CPP.replace(
            "torch::jit::initJITBindings(module)", "torch::distributed::c10d::c10d_init(module)"
        ),
        "torch/csrc/distributed/c10d/Backend.hpp": (
            "namespace c10d {\n"  # 1
            "struct TORCH_API DistributedBackendOptions {\n"  # 2
            "  c10::intrusive_ptr<::c10d::Store> store;\n"
            "  int group_rank;\n"
            "};\n"
            "}\n"
        ),
        "torch/csrc/distributed/c10d/init.cpp": (
            "namespace torch::distributed::c10d {\n"  # 1
            "void c10d_init(PyObject* module) {\n"
            "  auto m = py::handle(module).cast<py::module>();\n"
            '  py::class_<::c10d::DistributedBackendOptions>(m, "_DistributedBackendOptions")\n'
            "      .def(py::init<>());\n"  # 5
            "}\n"
            "}\n"
        ),
    }
    assert binding_targets(tmp_path, files, ["_DistributedBackendOptions.__init__"]) == {
        "_DistributedBackendOptions.__init__": [
            (
                "c10d::DistributedBackendOptions",
                SymbolKind.STRUCT,
                "torch/csrc/distributed/c10d/Backend.hpp",
                2,
                Layer.CPP,
            ),
        ],
    }


def test_the_init_of_a_type_object_made_by_its_tp_new_is_its_new(tree):
    root, index = tree
    refresh(str(root), index, jobs=1)
    store = IndexStore.open(index)
    try:
        found = find(store, "torch._C.Event.__init__")
    finally:
        store.close()
    # Event.cpp sets tp_new (line 25) and no tp_init: constructing an Event runs THPEvent_pynew
    assert [(s.qname, s.path, s.line, s.target) for s in found.symbols] == [
        ("torch._C.Event.__new__", "torch/csrc/Event.cpp", 25, "THPEvent_pynew"),
    ]


CUDA_EVENT_TREE = {
    "torch/csrc/Module.cpp": MODULE_CPP.replace("THPEvent_init(module)", "THCPEvent_init(module)"),
    "torch/_C/__init__.pyi": "class _CudaEventBase:\n    def synchronize(self) -> None: ...\n",
    "torch/_streambase.py": (
        "class _EventBase:\n"  # 1
        "    def synchronize(self):\n"  # 2
        "        raise NotImplementedError()\n"
    ),
    "torch/cuda/streams.py": (
        "import torch\n"  # 1
        "from torch._streambase import _EventBase\n"
        "\n"
        "\n"
        "class Event(torch._C._CudaEventBase, _EventBase):\n"  # 5
        "    def __new__(cls, enable_timing=False):\n"  # 6
        "        return super().__new__(cls, enable_timing=enable_timing)\n"  # 7
        "\n"
        "    def synchronize(self):\n"  # 9
        "        super().synchronize()\n"  # 10
    ),
    "torch/csrc/cuda/Event.cpp": (
        "static PyObject* THCPEvent_pynew(PyTypeObject* type, PyObject* args, PyObject* kwargs) { return nullptr; }\n"  # 1
        "static PyObject* THCPEvent_synchronize(PyObject* self, PyObject* noargs) { return nullptr; }\n"  # 2
        "static PyMethodDef THCPEvent_methods[] = {\n"  # 3
        '    {(char*)"synchronize", THCPEvent_synchronize, METH_NOARGS, nullptr},\n'  # 4
        "    {nullptr}};\n"
        "PyTypeObject THCPEventType = {\n"  # 6
        '    PyVarObject_HEAD_INIT(nullptr, 0) "torch._C._CudaEventBase", /* tp_name */\n'
        "};\n"
        "void THCPEvent_init(PyObject* module) {\n"  # 9
        "  THCPEventType.tp_methods = THCPEvent_methods;\n"
        "  THCPEventType.tp_new = THCPEvent_pynew;\n"  # 11
        '  PyModule_AddObject(module, "_CudaEventBase", (PyObject*)&THCPEventType);\n'
        "}\n"
    ),
}


def test_a_python_subclass_of_a_bound_class_reaches_the_bound_base(tmp_path):
    root = write_tree(tmp_path / "tree", CUDA_EVENT_TREE)
    with indexed(root, tmp_path) as (store, graph):

        def hops(qname: str) -> list[tuple]:
            (symbol,) = [s for s in store.symbols_with_qname(qname) if s.path and s.path.endswith(".py")]
            return [
                (e.target.symbol.qname, e.target.symbol.path, e.target.symbol.line)
                for e in graph.edges(graph.node(symbol))
            ]

        event = "torch/csrc/cuda/Event.cpp"
        # super().synchronize(): the type object's method comes before _EventBase's in the MRO
        assert hops("torch.cuda.streams.Event.synchronize") == [("torch._C._CudaEventBase.synchronize", event, 4)]
        # constructing an Event runs its __new__, whose super().__new__ is the type's tp_new
        assert hops("torch.cuda.streams.Event") == [("torch.cuda.streams.Event.__new__", "torch/cuda/streams.py", 6)]
        assert hops("torch.cuda.streams.Event.__new__") == [("torch._C._CudaEventBase.__new__", event, 11)]


def test_a_method_called_on_what_a_function_returns_is_that_class_s_or_its_overrides(tmp_path):
    files = {
        "c10/cuda/CUDACachingAllocator.h": (
            "namespace c10::cuda::CUDACachingAllocator {\n"  # 1
            "class CUDAAllocator : public Allocator {\n"
            " public:\n"
            "  virtual void emptyCache() = 0;\n"  # 4
            "};\n"
            "inline CUDAAllocator* get() { return allocator.load(); }\n"  # 6
            "inline void emptyCache() { return get()->emptyCache(); }\n"  # 7
            "inline void cacheInfo() {\n"  # 8
            "  auto allocator = get();\n"
            "  allocator->emptyCache();\n"  # 10
            "}\n"
            "}\n"
        ),
        "c10/cuda/CUDACachingAllocator.cpp": (
            "namespace c10::cuda::CUDACachingAllocator {\n"  # 1
            "namespace Native {\n"
            "class NativeCachingAllocator : public CUDAAllocator {\n"  # 3
            "  void emptyCache() override { release(); }\n"  # 4
            "  std::vector<std::unique_ptr<DeviceCachingAllocator>> device_allocator;\n"  # 5
            "  DeviceStats getDeviceStats(c10::DeviceIndex device) override {\n"  # 6
            "    return device_allocator[device]->getStats();\n"  # 7
            "  }\n"
            "  void emptyAll() {\n"  # 9
            "    for (auto& da : device_allocator)\n"
            "      da->emptyCache();\n"  # 11
            "  }\n"
            "};\n"
            "class DeviceCachingAllocator {\n"  # 14
            "  DeviceStats getStats() { return stats; }\n"  # 15
            "  void emptyCache() { release_cached_blocks(); }\n"  # 16
            "};\n"
            "}\n"
            "}\n"
        ),
    }
    root = write_tree(tmp_path / "tree", files)
    with indexed(root, tmp_path) as (store, graph):
        edges = {}
        for name in ("emptyCache", "cacheInfo"):
            (caller,) = store.symbols_with_qname(f"c10::cuda::CUDACachingAllocator::{name}")
            edges[name] = [
                (e.target.symbol.qname, e.target.symbol.path, e.target.symbol.line)
                for e in graph.edges(graph.node(caller))
            ]
    namespace = "c10::cuda::CUDACachingAllocator"
    # get() returns CUDAAllocator*, whose emptyCache is pure virtual: the override runs, called
    # on get()'s result or on a local `auto` it initialises
    expected = [
        (f"{namespace}::get", "c10/cuda/CUDACachingAllocator.h", 6),
        (f"{namespace}::Native::NativeCachingAllocator::emptyCache", "c10/cuda/CUDACachingAllocator.cpp", 4),
    ]
    assert edges == {"emptyCache": expected, "cacheInfo": expected}
    store = IndexStore.open(tmp_path / "index.sqlite")
    try:
        graph = CallGraph(store, str(root), "all")
        reached = {}
        for method in ("getDeviceStats", "emptyAll"):
            (symbol,) = store.symbols_with_qname(f"{namespace}::Native::NativeCachingAllocator::{method}")
            reached[method] = [(e.target.symbol.qname, e.target.symbol.line) for e in graph.edges(graph.node(symbol))]
    finally:
        store.close()
    # a data member of the caller's own class, subscripted or ranged over: the vector's element,
    # a unique_ptr's pointee
    assert reached == {
        "getDeviceStats": [(f"{namespace}::Native::DeviceCachingAllocator::getStats", 15)],
        "emptyAll": [(f"{namespace}::Native::DeviceCachingAllocator::emptyCache", 16)],
    }


def test_a_method_called_on_a_parameter_s_data_member_is_the_member_class_s(tmp_path):
    files = {
        "aten/src/ATen/cuda/CUDAEvent.h": (
            "namespace at::cuda {\n"  # 1
            "struct CUDAEvent {\n"
            "  void record(const CUDAStream& stream) { cudaEventRecord(event_, stream); }\n"  # 3
            "};\n"
            "}\n"
        ),
        "torch/csrc/cuda/Event.h": (
            "struct THCPEvent {\n"  # 1
            "  at::cuda::CUDAEvent cuda_event;\n"  # 2
            "};\n"
        ),
        "torch/csrc/cuda/Event.cpp": (
            "static PyObject* THCPEvent_record(PyObject* _self, PyObject* _stream) {\n"  # 1
            "  auto self = (THCPEvent*)_self;\n"
            "  self->cuda_event.record(stream);\n"  # 3
            "}\n"
            "static void record_on(THCPEvent* self, const CUDAStream& stream) {\n"  # 5
            "  self->cuda_event.record(stream);\n"  # 6
            "}\n"
        ),
    }
    root = write_tree(tmp_path / "tree", files)
    with indexed(root, tmp_path) as (store, graph):
        edges = {}
        for name in ("record_on", "THCPEvent_record"):
            (caller,) = store.symbols_with_qname(name)
            edges[name] = [
                (e.target.symbol.qname, e.target.symbol.path, e.target.symbol.line)
                for e in graph.edges(graph.node(caller))
            ]
    # self is a THCPEvent* (a parameter; a local cast from the PyObject* handed in), whose
    # cuda_event (Event.h:2) is an at::cuda::CUDAEvent
    record = [("at::cuda::CUDAEvent::record", "aten/src/ATen/cuda/CUDAEvent.h", 3)]
    assert edges == {"record_on": record, "THCPEvent_record": record}


def test_a_function_declared_to_return_a_bound_class_returns_an_instance_of_it(tmp_path):
    files = dict(TREE)
    files["torch/distributed/distributed_c10d.py"] = (
        "from torch._C._distributed_c10d import ProcessGroup\n"  # 1
        "\n"
        "\n"
        "class GroupMember:\n"  # 4
        "    WORLD = None\n"
        "\n"
        "\n"
        "def _get_default_group() -> ProcessGroup:\n"  # 8
        "    return GroupMember.WORLD\n"
        "\n"
        "\n"
        "def all_reduce(tensor, group=None):\n"  # 12
        "    if group is None:\n"
        "        group = _get_default_group()\n"  # 14
        "    work = group.allreduce([tensor])\n"  # 15
        "    return work\n"
    )
    root = write_tree(tmp_path / "tree", files)
    with indexed(root, tmp_path) as (store, graph):
        (caller,) = store.symbols_with_qname("torch.distributed.distributed_c10d.all_reduce")
        edges = [
            (e.target.symbol.qname, e.target.symbol.path, e.target.symbol.line, path_line(e.site))
            for e in graph.edges(graph.node(caller))
        ]
    # _get_default_group's body returns a global nothing in the tree sets; its annotation says
    # a ProcessGroup, the class c10d/init.cpp:8 binds, whose allreduce init.cpp:9 binds
    site = "torch/distributed/distributed_c10d.py"
    assert edges == [
        ("torch.distributed.distributed_c10d._get_default_group", site, 8, (site, 14)),
        ("torch._C._distributed_c10d.ProcessGroup.allreduce", "torch/csrc/distributed/c10d/init.cpp", 9, (site, 15)),
    ]


DISPATCH_TREE = {
    "torch/csrc/distributed/c10d/ProcessGroup.hpp": (
        "namespace c10d {\n"  # 1
        "class Backend {\n"
        " public:\n"
        "  virtual c10::intrusive_ptr<Work> allreduce(std::vector<at::Tensor>& tensors) = 0;\n"  # 4
        "};\n"
        "class ProcessGroupNCCL : public Backend {\n"  # 6
        " public:\n"
        "  c10::intrusive_ptr<Work> allreduce(std::vector<at::Tensor>& tensors) override { return impl(tensors); }\n"  # 8
        "};\n"
        "class ProcessGroup {\n"  # 10
        " public:\n"
        "  c10::intrusive_ptr<Backend> getBackend(c10::DeviceType deviceType) { return backend_; }\n"  # 12
        "  virtual c10::intrusive_ptr<Work> allreduce(std::vector<at::Tensor>& tensors) {\n"  # 13
        "    static auto op = c10::Dispatcher::singleton()\n"
        '        .findSchemaOrThrow("c10d::allreduce_", "")\n'
        "        .typed<int(at::TensorList)>();\n"
        "    return op.call(tensors);\n"  # 17
        "  }\n"
        "};\n"
        "}\n"
    ),
    "torch/csrc/distributed/c10d/Ops.cpp": (
        "namespace c10d {\n"  # 1
        "namespace ops {\n"
        "std::tuple<int, int> allreduce_CUDA(at::TensorList tensors,\n"  # 3
        "    const c10::intrusive_ptr<ProcessGroup>& process_group, int64_t timeout) {\n"
        "  return process_group->getBackend(c10::DeviceType::CUDA)->allreduce(tensors);\n"  # 5
        "}\n"
        "TORCH_LIBRARY(c10d, m) {\n"
        '  m.def("allreduce_(Tensor[] tensors, int timeout) -> Tensor[]");\n'  # 8
        "}\n"
        "TORCH_LIBRARY_IMPL(c10d, CUDA, m) {\n"
        '  m.impl("allreduce_", allreduce_CUDA);\n'  # 11
        "}\n"
        "}  // namespace ops\n"
        "}  // namespace c10d\n"
    ),
    "torch/csrc/autograd/engine.cpp": (
        "namespace torch::autograd {\n"  # 1
        "struct Node {\n"
        "  variable_list operator()(variable_list&& inputs) { return apply(std::move(inputs)); }\n"  # 3
        "};\n"
        "static variable_list call_function(Node* func, variable_list inputs) {\n"  # 5
        "  auto& fn = *func;\n"
        "  return fn(std::move(inputs));\n"  # 7
        "}\n"
        "struct Engine {\n"  # 9
        "  virtual void execute_with_graph_task() {}\n"  # 10
        "  void execute() { execute_with_graph_task(); }\n"  # 11
        "};\n"
        "struct PythonEngine : public Engine {\n"  # 13
        "  void execute_with_graph_task() override {}\n"  # 14
        "};\n"
        "}\n"
    ),
}


def test_dispatcher_handles_returned_objects_and_virtual_calls_reach_what_runs(tmp_path):
    root = write_tree(tmp_path / "tree", DISPATCH_TREE)
    with indexed(root, tmp_path) as (store, graph):

        def reached(qname: str) -> list[tuple]:
            (symbol,) = store.symbols_with_qname(qname)
            return [
                (e.target.symbol.qname, e.target.symbol.line, e.label)
                for e in graph.edges(graph.node(symbol))
                if e.target.symbol.path is not None
            ]

        # op.call(...) on the handle findSchemaOrThrow("c10d::allreduce_", "") made: the operator
        assert reached("c10d::ProcessGroup::allreduce") == [("c10d::allreduce_", 8, "call")]
        # getBackend(...) returns c10::intrusive_ptr<Backend>, whose allreduce is pure virtual
        assert reached("c10d::ops::allreduce_CUDA") == [
            ("c10d::ProcessGroup::getBackend", 12, "method"),
            ("c10d::ProcessGroupNCCL::allreduce", 8, "method"),
        ]
        # `auto& fn = *func;` with `Node* func`: fn(...) is Node's call operator
        assert reached("torch::autograd::call_function") == [("torch::autograd::Node::operator()", 3, "method")]
        # a virtual method called on `this` may run a derived class's override
        assert reached("torch::autograd::Engine::execute") == [
            ("torch::autograd::Engine::execute_with_graph_task", 10, "call"),
            ("torch::autograd::PythonEngine::execute_with_graph_task", 14, "call"),
        ]


def test_a_binding_lambda_is_its_own_file_s_whatever_another_file_has_at_that_line(tmp_path):
    def lambda_file(name: str) -> str:
        return (
            "namespace torch::jit {\n"  # 1
            f"void init{name}Bindings(PyObject* module) {{\n"
            "  auto m = py::handle(module).cast<py::module>();\n"
            f'  m.def("_{name}", [](int x) {{ return {name}(x); }});\n'  # 4
            "}\n"
            "}\n"
        )

    files = {
        "torch/csrc/Module.cpp": MODULE_CPP.replace(
            "torch::jit::initJITBindings(module);",
            "torch::jit::initIrBindings(module);\n  torch::jit::initScriptBindings(module);",
        ),
        "torch/csrc/jit/python/python_ir.cpp": lambda_file("Ir"),
        "torch/csrc/jit/python/script_init.cpp": lambda_file("Script"),
    }
    root = write_tree(tmp_path / "tree", files)
    with indexed(root, tmp_path) as (store, graph):
        (binding,) = [s for s in store.symbols_with_qname("torch._C._Script") if s.kind is SymbolKind.PYBIND]
        edges = [
            (e.target.symbol.qname, e.target.symbol.path, e.target.symbol.line)
            for e in graph.edges(graph.node(binding))
        ]
        shown = [(s.qname, s.path, s.line) for s in describe(store, str(root), binding).resolves_to]
    # both files write `torch::jit::<lambda at line 4>`; the binding is script_init.cpp's
    expected = [("torch::jit::<lambda at line 4>", "torch/csrc/jit/python/script_init.cpp", 4)]
    assert edges == expected and shown == expected


def test_a_table_a_type_object_gets_after_its_initializer_left_the_slot_empty():
    # python_variable.cpp: THPVariableType's initializer writes `nullptr, /* tp_methods */`; its
    # module init fills the slot with a vector extra_methods was added to
    source = (
        "static PyObject* THPVariable_make_subclass(PyObject* _ignored, PyObject* args, PyObject* kwargs) { return nullptr; }\n"  # 1
        "static PyMethodDef extra_methods[] = {\n"  # 2
        '    {"_make_subclass", castPyCFunctionWithKeywords(THPVariable_make_subclass), METH_STATIC | METH_VARARGS | METH_KEYWORDS, nullptr},\n'  # 3
        "    {nullptr}};\n"
        "PyTypeObject THPVariableType = {\n"  # 5
        '    PyVarObject_HEAD_INIT(nullptr, 0) "torch._C.TensorBase", /* tp_name */\n'
        "    sizeof(THPVariable), /* tp_basicsize */\n"
        "    0, /* tp_itemsize */\n"
        "    nullptr, /* tp_dealloc */\n"
        "    0, /* tp_vectorcall_offset */\n"
        "    nullptr, /* tp_getattr */\n"
        "    nullptr, /* tp_setattr */\n"
        "    nullptr, /* tp_reserved */\n"
        "    nullptr, /* tp_repr */\n"
        "    nullptr, /* tp_as_number */\n"
        "    nullptr, /* tp_as_sequence */\n"
        "    nullptr, /* tp_as_mapping */\n"
        "    nullptr, /* tp_hash */\n"
        "    nullptr, /* tp_call */\n"
        "    nullptr, /* tp_str */\n"
        "    nullptr, /* tp_getattro */\n"
        "    nullptr, /* tp_setattro */\n"
        "    nullptr, /* tp_as_buffer */\n"
        "    nullptr, /* tp_flags */\n"
        "    nullptr, /* tp_doc */\n"
        "    nullptr, /* tp_traverse */\n"
        "    nullptr, /* tp_clear */\n"
        "    nullptr, /* tp_richcompare */\n"
        "    0, /* tp_weaklistoffset */\n"
        "    nullptr, /* tp_iter */\n"
        "    nullptr, /* tp_iternext */\n"
        "    nullptr, /* tp_methods */\n"
        "};\n"
        "bool THPVariable_initModule(PyObject* module) {\n"
        "  static std::vector<PyMethodDef> methods;\n"
        "  THPUtils_addPyMethodDefs(methods, extra_methods);\n"
        "  THPVariableType.tp_methods = methods.data();\n"
        '  PyModule_AddObject(module, "TensorBase", (PyObject*)&THPVariableType);\n'
        "  return true;\n"
        "}\n"
    )
    assert [b for b in bound("torch/csrc/autograd/python_variable.cpp", source) if b[1] == "method_table"] == [
        ("<arg 0 of THPVariable_initModule>.TensorBase._make_subclass", "method_table", 3, "THPVariable_make_subclass"),
    ]


TEMPLATE_BIND_TREE = {
    "torch/csrc/Module.cpp": MODULE_CPP,
    "torch/csrc/jit/python/init.cpp": (
        "namespace torch::jit {\n"  # 1
        "template <typename Policy>\n"  # 2
        "struct slot_dict_impl {\n"  # 3
        "  bool contains(const std::string& name) const { return true; }\n"  # 4
        "  static void bind(const py::module& m, const char* name) {\n"  # 5
        "    py::class_<slot_dict_impl<Policy>>(m, name)\n"  # 6
        '        .def("contains", &slot_dict_impl<Policy>::contains);\n'  # 7
        "  }\n"
        "};\n"
        "void initJITBindings(PyObject* module) {\n"  # 10
        "  auto m = py::handle(module).cast<py::module>();\n"
        '  slot_dict_impl<detail::ModulePolicy>::bind(m, "ModuleDict");\n'  # 12
        '  auto tree = m.def_submodule("_jit_tree_views");\n'  # 13
        '  py::class_<Def>(tree, "Def").def("name", &Def::name);\n'  # 14
        "}\n"
        "struct Def { int name() const { return 0; } };\n"  # 16
        "}\n"
    ),
}


def the_binding(
    store, graph, qname: str, kind: SymbolKind
) -> tuple[str | None, int | None, list[tuple[str, int | None]]]:
    """The one binding of that name and kind: its file, line, and what its edges reach."""
    (binding,) = [s for s in store.symbols_with_qname(qname) if s.kind is kind]
    return (
        binding.path,
        binding.line,
        [(e.target.symbol.qname, e.target.symbol.line) for e in graph.edges(graph.node(binding))],
    )


def test_a_template_classs_bind_function_binds_under_the_name_it_is_handed(tmp_path):
    # slot_dict_impl<detail::ModulePolicy>::bind(m, "ModuleDict") (script_init.cpp:1347) calls the
    # template's static bind, whose py::class_ takes the module and the name it is handed
    root = write_tree(tmp_path / "tree", TEMPLATE_BIND_TREE)
    with indexed(root, tmp_path) as (store, graph):
        assert the_binding(store, graph, "torch._C.ModuleDict.contains", SymbolKind.PYBIND) == (
            "torch/csrc/jit/python/init.cpp",
            7,
            [("torch::jit::slot_dict_impl::contains", 4)],
        )


def test_a_name_a_stub_declares_in_torch_C_but_cpp_binds_in_a_submodule_is_found_there(tmp_path):
    # torch/_C/__init__.pyi.in declares `class Def` with `def name(self)` in torch._C;
    # python_tree_views.cpp binds them in torch._C._jit_tree_views
    root = write_tree(tmp_path / "tree", TEMPLATE_BIND_TREE)
    with indexed(root, tmp_path) as (store, _graph):
        for query, bound in [
            ("torch._C.Def.name", "torch._C._jit_tree_views.Def.name"),
            ("torch._C.Def", "torch._C._jit_tree_views.Def"),
        ]:
            resolution = find(store, query)
            assert resolution is not None
            assert ([(s.qname, s.line) for s in resolution.symbols], resolution.via) == (
                [(bound, 14)],
                [f"{query} -> {bound} (bound in another module)"],
            )
        assert find(store, "torch._C.name") is None  # a method's name alone is no function's


ADDED_TABLE_TREE = {
    "torch/csrc/Module.cpp": (
        "#include <Python.h>\n"
        "PyObject* initModule() {\n"
        '  static struct PyModuleDef torchmodule = {PyModuleDef_HEAD_INIT, "torch._C", nullptr, -1, nullptr};\n'
        "  PyObject* module = PyModule_Create(&torchmodule);\n"
        "  THPVariable_initModule(module);\n"
        "  return module;\n"
        "}\n"
    ),
    # tools/autograd/templates/python_variable_methods.cpp: Tensor's methods, defined apart
    "tools/autograd/templates/python_variable_methods.cpp": (
        "namespace torch::autograd {\n"  # 1
        "static PyObject* THPVariable_cuda(PyObject* self, PyObject* args) { return self; }\n"  # 2
        "PyMethodDef variable_methods[] = {\n"  # 3
        '  {"cuda", castPyCFunctionWithKeywords(THPVariable_cuda), METH_VARARGS, nullptr},\n'  # 4
        "  {nullptr}\n"
        "};\n"
        "}\n"
    ),
    # torch/csrc/autograd/python_variable.cpp: the table added to TensorBase's type object
    "torch/csrc/autograd/python_variable.cpp": (
        "namespace torch::autograd {\n"  # 1
        "extern PyMethodDef variable_methods[];\n"
        "}\n"
        'PyTypeObject THPVariableType = {PyVarObject_HEAD_INIT(nullptr, 0) "torch._C.TensorBase", sizeof(THPVariable)};\n'
        "bool THPVariable_initModule(PyObject* module) {\n"  # 5
        "  static std::vector<PyMethodDef> methods;\n"
        "  THPUtils_addPyMethodDefs(methods, torch::autograd::variable_methods);\n"  # 7
        "  THPVariableType.tp_methods = methods.data();\n"  # 8
        '  PyModule_AddObject(module, "TensorBase", (PyObject*)&THPVariableType);\n'
        '  PyModule_AddObject(module, "_TensorBase", (PyObject*)&THPVariableType);\n'  # its old name too
        "  return true;\n"
        "}\n"
    ),
}


def test_a_method_table_another_file_adds_to_a_type_is_that_types(tmp_path):
    # python_variable.cpp:2376 THPUtils_addPyMethodDefs(methods, torch::autograd::variable_methods),
    # methods then TensorBase's tp_methods; the table is defined in python_variable_methods.cpp:1231
    root = write_tree(tmp_path / "tree", ADDED_TABLE_TREE)
    with indexed(root, tmp_path) as (store, graph):
        # under both names the module gives the type, which one line hands the table
        for name in ("torch._C.TensorBase.cuda", "torch._C._TensorBase.cuda"):
            assert the_binding(store, graph, name, SymbolKind.METHOD_TABLE) == (
                "tools/autograd/templates/python_variable_methods.cpp",
                4,
                [("torch::autograd::THPVariable_cuda", 2)],
            )
