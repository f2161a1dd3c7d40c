"""Python doors: operators on tensors run Tensor's methods, and a closure a factory made is
known by the name a module binds it to.

An operator on a value the solver knows is a tensor runs the method Python's data model
names (`a + b` is `a.__add__(b)`; `1 - x`, where an int has no such method, `x.__rsub__(1)`;
`x[i]` is `x.__getitem__(i)`; `x += y` is `x.__iadd__(y)`), found as PyTorch finds it: in
torch/_tensor.py's Python (`__rsub__`); else a Tensor method that is an operator of
native_functions.yaml (`__and__`, `matmul`); else torch._C.TensorBase's method as the extension
binds it, an entry of its C++ method table (`__truediv__`, wrapping the generated binding of
div) or the stub's declaration (`__add__`), whose binding edges go to the operators of the
method it wraps (tools/autograd/templates/python_variable_methods.cpp: `__add__` is the binding
of add, `__iadd__` of add_); else those operators directly (`__iadd__`, where nothing declares
it). The edge is an `operator` edge at the operator's line.

A module's `name = factory(...)` whose call returns a closure (torch/_jit_internal.py's
boolean_dispatch makes torch.nn.functional.max_pool2d) is that closure, shown under the name at
the closure's definition; each such call's closure calls what that call passed, and a call the
closure makes only where a local differs from its default (`if flag:` after `flag = default`,
default False) comes after those it makes otherwise.

The fixture is the bundled tree with one user module beside it and a few operators added to
its native_functions.yaml (the bundled tree has add.Tensor, add.out, relu, softmax.int among
the Tensor methods, not these). Every expected hop was read off these files at the lines
given; the bundled tree's own (mynet/layers.py, torch/_tensor.py, torch/_jit_internal.py,
torch/nn/functional.py, torch/_C/__init__.pyi) at the lines quoted beside each expectation.
"""

from __future__ import annotations

import shutil

import pytest

from explorer.analysis.trace import trace_symbol
from explorer.index.build import refresh
from explorer.index.store import IndexStore
from explorer.resolve.graph import CallGraph
from tests.places import path_line

OPS = (
    "from torch import Tensor\n"  # 1
    "\n"
    "\n"
    "def ops(x: Tensor, w: Tensor, b: Tensor, i: int):\n"  # 4
    "    y = x @ w + b\n"  # 5  __matmul__, then __add__
    "    z = 1 - y\n"  # 6  int has none: y.__rsub__(1)
    "    n = -z\n"  # 7  __neg__
    "    r = n[i]\n"  # 8  __getitem__
    "    r += b\n"  # 9  __iadd__
    "    m = r & y\n"  # 10 __and__, an operator itself
    "    return m < 0\n"  # 11 __lt__
    "\n"
    "\n"
    "def either(if_true, if_false, default=False):\n"  # 14
    "    def chosen(t):\n"  # 15
    "        use = default\n"  # 16
    "        if use:\n"  # 17
    "            return if_true(t)\n"  # 18
    "        return if_false(t)\n"  # 19
    "\n"
    "    return chosen\n"  # 21
    "\n"
    "\n"
    "def grow(t):\n"  # 24
    "    return t.relu()\n"
    "\n"
    "\n"
    "def shrink(t):\n"  # 28
    "    return t.softmax(0)\n"
    "\n"
    "\n"
    "act = either(grow, shrink)\n"  # 32
    "swapped = either(shrink, grow, default=True)\n"  # 33
    "\n"
    "\n"
    "def run(x: Tensor):\n"  # 36
    "    return act(x) + swapped(x)\n"  # 37
    "\n"
    "\n"
    "def step(x: Tensor):\n"  # 40
    "    loss = x.softmax(0)\n"  # 41
    "    loss.backward()\n"  # 42
    "\n"
    "\n"
    "def divide(x: Tensor, y: Tensor, i: int):\n"  # 45
    "    q = x / y\n"  # 46 __truediv__, in the C++ method table
    "    return q[i]\n"  # 47 __getitem__, in it too
    "\n"
    "\n"
    "def rows(x: Tensor):\n"  # 50
    "    return x.size(-2)\n"  # 51 written by hand in the table
    "\n"
    "\n"
    "from torch._C import TensorBase\n"  # 54
    "\n"
    "\n"
    "def rows_of(x):\n"  # 57
    "    return TensorBase.size(x, -2)\n"  # 58 the same entry, named
)
# TensorBase's methods as python_variable.cpp and python_variable_methods.cpp bind them: a
# table entry wrapping the generated binding of div (line 14), one naming a function the file
# defines (15, THPVariable_getitem at 9), the type object and the module it is added to
METHODS_CPP = (
    "namespace torch {\n"  # 1
    "namespace autograd {\n"
    "\n"
    "template <PyObject* (*Func)(PyObject*, PyObject*, PyObject*)>\n"  # 4
    "static PyObject* TypeError_to_NotImplemented_(PyObject* self, PyObject* args, PyObject* kwargs) {\n"
    "  return Func(self, args, kwargs);\n"
    "}\n"
    "\n"
    "static PyObject* THPVariable_getitem(PyObject* self, PyObject* index) {\n"  # 9
    "  return nullptr;\n"
    "}\n"
    "\n"
    "static PyMethodDef variable_methods[] = {\n"  # 13
    '    {"__truediv__", castPyCFunctionWithKeywords(TypeError_to_NotImplemented_<THPVariable_div>), METH_VARARGS | METH_KEYWORDS, NULL},\n'
    '    {"__getitem__", (PyCFunction)THPVariable_getitem, METH_O, NULL},\n'  # 15
    '    {"size", castPyCFunctionWithKeywords(THPVariable_size), METH_VARARGS | METH_KEYWORDS, NULL},\n'  # 16
    "    {nullptr}};\n"
    "\n"
    'PyTypeObject THPVariableType = {PyVarObject_HEAD_INIT(nullptr, 0) "torch._C.TensorBase", sizeof(THPVariable)};\n'
    "\n"
    "bool THPVariable_initModule(PyObject* module) {\n"  # 21
    "  static std::vector<PyMethodDef> methods;\n"
    "  THPUtils_addPyMethodDefs(methods, variable_methods);\n"
    "  THPVariableType.tp_methods = methods.data();\n"
    '  PyModule_AddObject(module, "TensorBase", (PyObject*)&THPVariableType);\n'
    "  return true;\n"
    "}\n"
    "\n"
    'static struct PyModuleDef torchmodule = {PyModuleDef_HEAD_INIT, "torch._C", nullptr, -1, nullptr};\n'
    "\n"
    "PyObject* initModule() {\n"
    "  PyObject* module = PyModule_Create(&torchmodule);\n"
    "  THPVariable_initModule(module);\n"
    "  return module;\n"
    "}\n"
    "\n"
    "static PyObject* THPVariable_size(PyObject* self, PyObject* args, PyObject* kwargs) {\n"  # 37
    "  return nullptr;\n"
    "}\n"
    "\n"
    "} // namespace autograd\n"
    "} // namespace torch\n"
)
METHODS = "torch/csrc/autograd/python_variable_methods.cpp"
# Tensor methods the bundled tree's native_functions.yaml lacks, appended to it: each entry's
# line, counted from the end of the bundled file, is in OPERATORS
ADDED_YAML = (
    "\n"  # +1
    "- func: matmul(Tensor self, Tensor other) -> Tensor\n"  # +2
    "  variants: function, method\n"
    "\n"
    "- func: add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)\n"  # +5
    "  variants: method\n"
    "\n"
    "- func: lt.Scalar(Tensor self, Scalar other) -> Tensor\n"  # +8
    "  variants: method, function\n"
    "\n"
    "- func: lt.Tensor(Tensor self, Tensor other) -> Tensor\n"  # +11
    "  variants: method, function\n"
    "\n"
    "- func: __and__.Tensor(Tensor self, Tensor other) -> Tensor\n"  # +14
    "  variants: method, function\n"
    "\n"
    "- func: div.Tensor(Tensor self, Tensor other) -> Tensor\n"  # +17
    "  variants: function, method\n"
    "\n"
    "- func: size.int(Tensor self, int dim) -> int\n"  # +20
    "  variants: function\n"
    "\n"
    "- func: size.Dimname(Tensor self, Dimname dim) -> int\n"  # +23
    "  variants: function, method\n"
)
OPERATORS = {
    "aten::matmul": 2,
    "aten::add_.Tensor": 5,
    "aten::lt.Scalar": 8,
    "aten::lt.Tensor": 11,
    "aten::__and__.Tensor": 14,
    "aten::div.Tensor": 17,
    "aten::size.int": 20,
    "aten::size.Dimname": 23,
}
YAML = "aten/src/ATen/native/native_functions.yaml"
STUBS = "torch/_C/__init__.pyi"
TENSOR = "torch/_tensor.py"
# torch/_tensor.py:31-36: `@functools.wraps(f) def wrapped(*args, **kwargs)` (32) calls
# has_torch_function (34), handle_torch_function (35) and `f(*args, **kwargs)` (36);
# :106 `@_handle_torch_function_and_wrap_type_error_to_not_implemented` on :107 `def __rsub__`
WRAPPED = "torch._tensor._handle_torch_function_and_wrap_type_error_to_not_implemented.wrapped"


@pytest.fixture(scope="module")
def doors(tmp_path_factory: pytest.TempPathFactory, sample_root: str):
    root = tmp_path_factory.mktemp("doors") / "tree"
    shutil.copytree(sample_root, root)
    (root / "user").mkdir()
    (root / "user" / "__init__.py").write_text("")
    (root / "user" / "ops.py").write_text(OPS)
    (root / METHODS).write_text(METHODS_CPP)
    yaml = root / YAML
    bundled_lines = len(yaml.read_text().splitlines())
    with open(yaml, "a") as out:
        out.write(ADDED_YAML)
    refresh(str(root), root.parent / "index.sqlite", jobs=1)
    store = IndexStore.open(root.parent / "index.sqlite")
    yield store, str(root), {name: bundled_lines + offset for name, offset in OPERATORS.items()}
    store.close()


def edges_of(graph: CallGraph, node) -> list[tuple]:
    return [
        (
            path_line(e.site),
            e.label,
            e.resolution.value,
            e.target.symbol.qname,
            e.target.symbol.path,
            e.target.symbol.line,
        )
        for e in graph.edges(node)
    ]


def node_of(store, graph: CallGraph, qname: str):
    (symbol,) = store.symbols_with_qname(qname)
    return graph.node(symbol)


def test_operators_on_tensors_run_tensor_methods(doors):
    store, root, line = doors
    graph = CallGraph(store, root, "all")
    at = "user/ops.py"
    assert edges_of(graph, node_of(store, graph, "user.ops.ops")) == [
        # x @ w + b: x, w, b are declared tensors; matmul's one overload, add's one that takes
        # one argument (add.out needs out=)
        ((at, 5), "operator", "exact", "aten::matmul", YAML, line["aten::matmul"]),
        ((at, 5), "operator", "exact", "torch._C.TensorBase.__add__", STUBS, 94),
        # 1 - y: y.__rsub__(1), which torch/_tensor.py defines, through its decorator's wrapper
        ((at, 6), "operator", "exact", WRAPPED, TENSOR, 32),
        # -z: a method the stub declares on TensorBase (torch/_C/__init__.pyi:93)
        ((at, 7), "operator", "exact", "torch._C.TensorBase.__neg__", STUBS, 93),
        # n[i]: the method table's entry, before the stub's declaration (__init__.pyi:95)
        ((at, 8), "operator", "exact", "torch._C.TensorBase.__getitem__", METHODS, 15),
        # r += b: __iadd__, the binding of add_ (python_variable_methods.cpp)
        ((at, 9), "operator", "exact", "aten::add_.Tensor", YAML, line["aten::add_.Tensor"]),
        # r & y: __and__ is an operator of native_functions.yaml itself
        ((at, 10), "operator", "exact", "aten::__and__.Tensor", YAML, line["aten::__and__.Tensor"]),
        # m < 0: __lt__, the binding of lt, whose two overloads both take one argument
        ((at, 11), "operator", "ambiguous", "aten::lt.Scalar", YAML, line["aten::lt.Scalar"]),
        ((at, 11), "operator", "ambiguous", "aten::lt.Tensor", YAML, line["aten::lt.Tensor"]),
    ]


def test_a_method_the_stub_declares_binds_the_operators_of_the_method_it_wraps(doors):
    # torch/_C/__init__.pyi:94 `def __add__(self, other: Any) -> Tensor: ...` on TensorBase:
    # python_variable_methods.cpp's __add__ wraps THPVariable_add; of add's overloads, add.Tensor
    # takes one argument (add.out needs out=)
    store, root, _ = doors
    graph = CallGraph(store, root, "all")
    (add,) = [
        e.target
        for e in graph.edges(node_of(store, graph, "user.ops.ops"))
        if e.target.symbol.qname.endswith("__add__")
    ]
    assert edges_of(graph, add) == [((STUBS, 94), "binding", "exact", "aten::add.Tensor", YAML, 29)]


def test_an_operator_method_of_the_cpp_method_table_binds_what_its_function_does(doors):
    store, root, line = doors
    graph = CallGraph(store, root, "all")
    at = "user/ops.py"
    divide = graph.edges(node_of(store, graph, "user.ops.divide"))
    assert [
        (path_line(e.site), e.label, e.target.symbol.qname, e.target.symbol.path, e.target.symbol.line) for e in divide
    ] == [
        ((at, 46), "operator", "torch._C.TensorBase.__truediv__", METHODS, 14),
        ((at, 47), "operator", "torch._C.TensorBase.__getitem__", METHODS, 15),
    ]
    truediv, getitem = (e.target for e in divide)
    # TypeError_to_NotImplemented_<THPVariable_div>: the generated binding of div (no such
    # function in the tree), so div's operator; THPVariable_getitem is the file's own (line 9)
    assert edges_of(graph, truediv) == [
        ((METHODS, 14), "binding", "exact", "aten::div.Tensor", YAML, line["aten::div.Tensor"])
    ]
    assert edges_of(graph, getitem) == [
        ((METHODS, 15), "method_table", "exact", "torch::autograd::THPVariable_getitem", METHODS, 9),
    ]


def test_a_method_the_method_table_writes_by_hand_is_that_entry_not_an_operator(doors):
    # `x.size(-2)`: the table's own entry (line 16, THPVariable_size at line 37), though
    # native_functions.yaml has a method overload of size (size.Dimname; size.int is a function)
    store, root, _ = doors
    graph = CallGraph(store, root, "all")
    rows = node_of(store, graph, "user.ops.rows")
    assert edges_of(graph, rows) == [(("user/ops.py", 51), "method", "exact", "torch._C.TensorBase.size", METHODS, 16)]
    (edge,) = graph.edges(rows)
    assert edges_of(graph, edge.target) == [
        ((METHODS, 16), "method_table", "exact", "torch::autograd::THPVariable_size", METHODS, 37)
    ]
    # `TensorBase.size(x, -2)`: the entry too, not the stub's binding of size's operators
    (named,) = graph.edges(node_of(store, graph, "user.ops.rows_of"))
    assert (path_line(named.site), named.target.symbol.qname, named.target.symbol.path, named.target.symbol.line) == (
        ("user/ops.py", 58),
        "torch._C.TensorBase.size",
        METHODS,
        16,
    )


def test_a_method_torch_tensor_defines_in_python_is_that_method(doors):
    # `loss.backward()`: Tensor.backward, torch/_tensor.py:56, not an operator (there is none)
    store, root, _ = doors
    graph = CallGraph(store, root, "all")
    assert edges_of(graph, node_of(store, graph, "user.ops.step")) == [
        (("user/ops.py", 41), "method", "exact", "aten::softmax.int", YAML, 138),
        (("user/ops.py", 42), "method", "exact", "torch._tensor.Tensor.backward", TENSOR, 56),
    ]


def test_a_decorated_tensor_method_calls_only_what_its_decorator_was_given(doors):
    # the wrapper made for __rsub__ (torch/_tensor.py:106) calls __rsub__ (:107), not also
    # __radd__ (:112), which the same decorator wraps at :111
    store, root, _ = doors
    graph = CallGraph(store, root, "all")
    (rsub,) = [e.target for e in graph.edges(node_of(store, graph, "user.ops.ops")) if e.target.symbol.qname == WRAPPED]
    assert edges_of(graph, rsub) == [
        ((TENSOR, 34), "call", "exact", "torch.overrides.has_torch_function", "torch/overrides.py", 52),
        ((TENSOR, 35), "call", "exact", "torch.overrides.handle_torch_function", "torch/overrides.py", 85),
        ((TENSOR, 36), "call", "exact", "torch._tensor.Tensor.__rsub__", TENSOR, 107),
    ]


def test_a_closure_a_factory_made_is_known_by_its_public_name(doors):
    store, root, _ = doors
    graph = CallGraph(store, root, "all")
    at = "user/ops.py"
    run = graph.edges(node_of(store, graph, "user.ops.run"))
    # `act(x) + swapped(x)` (37): each name is the closure `chosen` (15) its own call made;
    # the sum of what they return (relu's, softmax's tensors) runs __add__
    assert [
        (path_line(e.site), e.label, e.target.symbol.qname, e.target.symbol.path, e.target.symbol.line) for e in run
    ] == [
        ((at, 37), "call", "user.ops.act", at, 15),
        ((at, 37), "operator", "torch._C.TensorBase.__add__", STUBS, 94),
        ((at, 37), "call", "user.ops.swapped", at, 15),
    ]
    act, _, swapped = (e.target for e in run)
    # act = either(grow, shrink): default False, so `return if_false(t)` (19) first
    assert edges_of(graph, act) == [
        ((at, 19), "call", "exact", "user.ops.shrink", at, 28),
        ((at, 18), "call", "exact", "user.ops.grow", at, 24),
    ]
    # swapped = either(shrink, grow, default=True): `if use: return if_true(t)` (18) first
    assert edges_of(graph, swapped) == [
        ((at, 18), "call", "exact", "user.ops.shrink", at, 28),
        ((at, 19), "call", "exact", "user.ops.grow", at, 24),
    ]
    # traced from the name (its module-level definition, 32), the same calls; the node the
    # name stands for is the one the call at 37 reaches
    assert edges_of(graph, node_of(store, graph, "user.ops.act")) == edges_of(graph, act)
    assert graph.flow.named_closure(node_of(store, graph, "user.ops.act").symbol) == act


def test_the_residual_connection_reaches_the_add_kernel(sample_store, sample_root):
    # mynet/layers.py:42 `return self.relu(out + x)`: out.__add__(x), which the stub declares on
    # TensorBase (torch/_C/__init__.pyi:94); native_functions.yaml:29 add.Tensor
    # (structured_delegate: add.out), :35 add.out, :39 `CPU, CUDA: add_out`;
    # BinaryOps.cpp:55 TORCH_IMPL_FUNC(add_out) calls add_stub (:57), DEFINE_DISPATCH at :39;
    # BinaryAddKernel.cu:25 add_kernel_cuda, registered at :49
    report = trace_symbol(sample_store, sample_root, "mynet.layers.BasicBlock", to="add_kernel_cuda", backend="cuda")
    module = "torch/nn/modules/module.py"
    assert [
        (
            hop.node.symbol.qname,
            hop.node.symbol.path,
            hop.node.symbol.line,
            hop.edge.label if hop.edge else None,
            path_line(hop.edge.site) if hop.edge else None,
        )
        for hop in report.trace.paths[0]
    ] == [
        ("mynet.layers.BasicBlock", "mynet/layers.py", 28, None, None),
        ("torch.nn.modules.module.Module.__call__", module, 233, "method", None),
        ("torch.nn.modules.module.Module._wrapped_call_impl", module, 186, "alias", (module, 233)),
        ("torch.nn.modules.module.Module._call_impl", module, 189, "method", (module, 187)),
        ("mynet.layers.BasicBlock.forward", "mynet/layers.py", 39, "method", (module, 198)),
        ("torch._C.TensorBase.__add__", STUBS, 94, "operator", ("mynet/layers.py", 42)),
        ("aten::add.Tensor", YAML, 29, "binding", (STUBS, 94)),
        ("aten::add.out", YAML, 35, "structured", (YAML, 29)),
        ("at::native::add_out", "aten/src/ATen/native/BinaryOps.cpp", 55, "dispatch:CUDA", (YAML, 39)),
        (
            "at::native::add_stub",
            "aten/src/ATen/native/BinaryOps.cpp",
            39,
            "call",
            ("aten/src/ATen/native/BinaryOps.cpp", 57),
        ),
        (
            "at::native::add_kernel_cuda",
            "aten/src/ATen/native/cuda/BinaryAddKernel.cu",
            25,
            "stub",
            ("aten/src/ATen/native/cuda/BinaryAddKernel.cu", 49),
        ),
    ]


def test_max_pool2d_is_the_closure_boolean_dispatch_made(sample_store, sample_root):
    # pooling.py:56 `return F.max_pool2d(` in MaxPool2d.forward (:55); functional.py:262
    # `max_pool2d = boolean_dispatch(..., default=False, if_true=max_pool2d_with_indices,
    # if_false=_max_pool2d)`; _jit_internal.py:49 `def fn`, :56 `if flag:`, :57 `return
    # if_true(...)`, :58 `return if_false(...)`; _max_pool2d at functional.py:236,
    # max_pool2d_with_indices at :198
    report = trace_symbol(sample_store, sample_root, "torch.nn.modules.pooling.MaxPool2d.forward", max_depth=2)
    (pool,) = report.trace.tree.children
    assert (
        pool.node.symbol.qname,
        pool.node.symbol.path,
        pool.node.symbol.line,
        pool.edge.label,
        path_line(pool.edge.site),
    ) == (
        "torch.nn.functional.max_pool2d",
        "torch/_jit_internal.py",
        49,
        "call",
        ("torch/nn/modules/pooling.py", 56),
    )
    assert [
        (c.node.symbol.qname, c.node.symbol.path, c.node.symbol.line, c.edge.label, path_line(c.edge.site))
        for c in pool.children
    ] == [
        ("torch.nn.functional._max_pool2d", "torch/nn/functional.py", 236, "call", ("torch/_jit_internal.py", 58)),
        (
            "torch.nn.functional.max_pool2d_with_indices",
            "torch/nn/functional.py",
            198,
            "call",
            ("torch/_jit_internal.py", 57),
        ),
    ]


def test_a_trace_of_max_pool2d_starts_at_the_closure_and_takes_the_default_branch_first(sample_store, sample_root):
    # functional.py:262 `max_pool2d = boolean_dispatch(..., default=False, if_true=max_pool2d_with_indices,
    # if_false=_max_pool2d)`: the closure (_jit_internal.py:49) starts its flag at `default` (:50)
    # and runs if_false (:58) unless asked: _max_pool2d (functional.py:236) -> torch.max_pool2d
    # (:259) first, although if_true's path to the kernel is shorter
    report = trace_symbol(sample_store, sample_root, "torch.nn.functional.max_pool2d", to="max_pool_forward_nchw")
    first = [(h.node.symbol.qname, h.node.symbol.path, h.node.symbol.line) for h in report.trace.paths[0]]
    assert first == [
        ("torch.nn.functional.max_pool2d", "torch/_jit_internal.py", 49),
        ("torch.nn.functional._max_pool2d", "torch/nn/functional.py", 236),
        ("torch._C._VariableFunctions.max_pool2d", "torch/_C/_VariableFunctions.pyi", 45),
        ("aten::max_pool2d", YAML, 109),
        ("at::native::max_pool2d", "aten/src/ATen/native/Pooling.cpp", 10),
        ("aten::max_pool2d_with_indices", YAML, 190),
        ("aten::max_pool2d_with_indices.out", YAML, 183),
        ("at::native::max_pool2d_with_indices_out_cuda", "aten/src/ATen/native/cuda/DilatedMaxPool2d.cu", 53),
        ("at::native::max_pool_forward_nchw", "aten/src/ATen/native/cuda/DilatedMaxPool2d.cu", 18),
    ]
    # the if_true branch is listed, after it
    assert any(
        h.node.symbol.qname == "torch.nn.functional.max_pool2d_with_indices" and h.edge.off_default
        for path in report.trace.paths[1:]
        for h in path
        if h.edge
    )
