"""Where a trace starts when the name it is given has several overloads (issue 24, item 5): one
entry whose root is the name, each overload a starting point below it, the paths from the
overload a plain call takes first, and the output saying which overload each path starts from.

Every expected hop was read off the files (file:line in the comments), the bundled tree's and
the small tree written here; none was copied from explorer's output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.analysis.trace import TraceReport, trace_symbol
from explorer.index.build import refresh
from explorer.index.store import IndexStore
from explorer.model import Language, Symbol, SymbolKind
from explorer.names.lookup import plain_call_order
from explorer.render.json_out import trace_json
from tests.command_line import invoke
from tests.conftest import write_tree
from tests.places import path_line

YAML = "aten/src/ATen/native/native_functions.yaml"
FUNCS = "torch/_C/_VariableFunctions.pyi"
BINARY = "aten/src/ATen/native/BinaryOps.cpp"
CPU_KERNEL = "aten/src/ATen/native/cpu/BinaryOpsKernel.cpp"


def hops(path) -> list[tuple]:
    """(qname, path, line, edge label, call site) of each hop."""
    return [
        (
            hop.node.symbol.qname,
            hop.node.symbol.path,
            hop.node.symbol.line,
            hop.edge.label if hop.edge else None,
            path_line(hop.edge.site) if hop.edge else None,
        )
        for hop in path
    ]


def starts(report: TraceReport) -> list[tuple]:
    """(rank, qname, line, why) of each overload of the entry, in its order."""
    assert report.entry is not None
    return [(o.rank, o.node.symbol.qname, o.node.symbol.line, o.why) for o in report.entry.overloads]


# -- the rule ------------------------------------------------------------------------------------


def operator(schema: str, line: int) -> Symbol:
    name = schema.split("(")[0]
    return Symbol(f"aten::{name}", name.split(".")[0], SymbolKind.OPERATOR, Language.YAML, YAML, line, None, schema)


def test_a_plain_call_takes_the_functional_tensor_overload():
    # schemas as PyTorch 2.4.0's native_functions.yaml writes them (lines 547, 570, 613;
    # 5724, 5733, 5744, 5748; 2123, 2151)
    add = [
        operator("add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", 613),
        operator("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)", 570),
        operator("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", 547),
    ]
    assert [(o.qname, why) for o, why in plain_call_order(add)] == [
        ("aten::add.Tensor", "a plain call takes it"),
        ("aten::add.Scalar", "needs Scalar other"),
        ("aten::add.out", "out= only"),
    ]
    total = [
        operator(
            "sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
            5748,
        ),
        operator(
            "sum.dim_DimnameList(Tensor self, Dimname[1] dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
            5744,
        ),
        operator(
            "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", 5733
        ),
        operator("sum(Tensor self, *, ScalarType? dtype=None) -> Tensor", 5724),
    ]
    assert [(o.qname, why) for o, why in plain_call_order(total)] == [
        ("aten::sum", "a plain call takes it"),
        ("aten::sum.dim_IntList", "needs int[1]? dim"),
        ("aten::sum.dim_DimnameList", "needs Dimname[1] dim"),
        ("aten::sum.IntList_out", "out= only"),
    ]
    div = [
        operator("div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor", 2151),
        operator("div.Tensor(Tensor self, Tensor other) -> Tensor", 2123),
    ]
    assert [(o.qname, why) for o, why in plain_call_order(div)] == [
        ("aten::div.Tensor", "a plain call takes it"),
        ("aten::div.Tensor_mode", "needs str? rounding_mode"),  # keyword-only, but no default
    ]


# -- the bundled tree ----------------------------------------------------------------------------


def test_torch_add_starts_from_both_overloads_of_its_binding(sample_store, sample_root):
    # torch/__init__.py:65 `from torch._C._VariableFunctions import *`; _VariableFunctions.pyi:58-61
    # declares add twice (@overload); native_functions.yaml:29 add.Tensor and :35 add.out, both
    # function variants (add.out by default), are what the binding runs
    report = trace_symbol(sample_store, sample_root, "torch.add", max_depth=1)
    assert (report.start.symbol.qname, report.start.symbol.path, report.start.symbol.line) == (
        "torch._C._VariableFunctions.add",
        FUNCS,
        59,
    )
    assert report.other_matches == []  # the second @overload stub is the same binding
    assert starts(report) == [
        (1, "aten::add.Tensor", 29, "a plain call takes it"),
        (2, "aten::add.out", 35, "out= only"),
    ]
    assert [(c.node.symbol.qname, c.edge.label, path_line(c.edge.site)) for c in report.trace.tree.children] == [
        ("aten::add.Tensor", "binding", (FUNCS, 59)),
        ("aten::add.out", "binding", (FUNCS, 59)),
    ]


def test_paths_from_the_plain_call_overload_come_first_even_when_longer(sample_store, sample_root):
    report = trace_symbol(sample_store, sample_root, "torch.add", to="add_kernel", backend="cpu")
    stub = ("torch._C._VariableFunctions.add", FUNCS, 59, None, None)
    below_out = [
        # yaml:39 `CPU, CUDA: add_out` -> BinaryOps.cpp:55 TORCH_IMPL_FUNC(add_out)
        ("at::native::add_out", BINARY, 55, "dispatch:CPU", (YAML, 39)),
        # BinaryOps.cpp:57 `add_stub(device_type(), ...)`, the stub DEFINE_DISPATCH makes at :39
        ("at::native::add_stub", BINARY, 39, "call", (BINARY, 57)),
        # cpu/BinaryOpsKernel.cpp:38 REGISTER_DISPATCH(add_stub, &add_kernel), add_kernel at :11
        ("at::native::add_kernel", CPU_KERNEL, 11, "stub", (CPU_KERNEL, 38)),
    ]
    assert [hops(path) for path in report.trace.paths] == [
        [
            stub,
            ("aten::add.Tensor", YAML, 29, "binding", (FUNCS, 59)),
            ("aten::add.out", YAML, 35, "structured", (YAML, 29)),  # yaml:31 structured_delegate: add.out
            *below_out,
        ],
        [stub, ("aten::add.out", YAML, 35, "binding", (FUNCS, 59)), *below_out],  # one hop shorter, ranked after
    ]
    assert report.trace.paths_found == 2


def test_text_says_how_many_overloads_and_which_each_path_starts_from():
    result = invoke(["trace", "torch.add", "--to", "add_kernel", "--backend", "cpu"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[:4] == [
        "torch.add: 2 overloads, all traced; a plain call takes aten::add.Tensor",
        "2 paths from torch._C._VariableFunctions.add (2 overloads) to add_kernel (backend cpu)",
        "",
        "path 1: 5 hops, from aten::add.Tensor, overload 1 of 2: a plain call takes it",
    ]
    assert lines[5].split() == [
        "1",
        "yaml",
        "aten::add.Tensor",
        f"{YAML}:29",
        "←",
        "binding,",
        "overload",
        "1",
        "of",
        "2:",
        "a",
        "plain",
        "call",
        "takes",
        "it,",
        "at",
        f"{FUNCS}:59",
    ]
    assert lines[11] == "path 2: 4 hops, from aten::add.out, overload 2 of 2: out= only"


def test_json_names_the_overloads_and_the_one_each_path_starts_from(sample_store, sample_root):
    report = trace_symbol(sample_store, sample_root, "torch.add", to="add_kernel", backend="cpu")
    out = json.loads(json.dumps(trace_json(report, sample_root, "add_kernel")))
    assert out["entry"] == {
        "name": "torch.add",
        "root": "torch._C._VariableFunctions.add",
        "count": 2,
        "noun": "overload",
        "ranked": True,
        "plain_call": "aten::add.Tensor",
        "overloads": [
            {"rank": 1, "symbol": "aten::add.Tensor", "file": YAML, "line": 29, "why": "a plain call takes it"},
            {"rank": 2, "symbol": "aten::add.out", "file": YAML, "line": 35, "why": "out= only"},
        ],
    }
    assert out["path_overloads"] == [1, 2]
    assert [[hop.get("overload") for hop in path] for path in out["paths"]] == [
        [None, 1, None, None, None, None],
        [None, 2, None, None, None],
    ]
    assert [child["overload"] for child in out["tree"]["children"]] == [1, 2]
    # one definition: no entry
    single = trace_json(trace_symbol(sample_store, sample_root, "torch.nn.ReLU", max_depth=1), sample_root, None)
    assert "entry" not in single


def test_torch_conv2d_ranks_the_overload_declared_first_when_both_fit(sample_store, sample_root):
    # yaml:74 conv2d(Tensor input, Tensor weight, ...) and :78 conv2d.padding(..., str padding="valid", ...):
    # both need tensors only; the YAML declares conv2d first
    report = trace_symbol(sample_store, sample_root, "torch.conv2d", to="cudnnConvolutionForward")
    assert starts(report) == [
        (1, "aten::conv2d", 74, "a plain call takes it"),
        (2, "aten::conv2d.padding", 78, "a plain call fits it too; declared later"),
    ]
    firsts = [
        (path[1].node.symbol.qname, path[2].node.symbol.qname, path[2].node.symbol.line) for path in report.trace.paths
    ]
    assert firsts == [
        ("aten::conv2d", "at::native::conv2d_symint", 173),  # yaml:76 CompositeImplicitAutograd: conv2d_symint
        ("aten::conv2d.padding", "at::native::conv2d_padding_symint", 188),  # yaml:81
    ]


def test_an_operator_name_typed_bare_is_its_overloads(sample_store, sample_root):
    report = trace_symbol(sample_store, sample_root, "add", max_depth=1)
    root = report.start.symbol
    assert (root.qname, root.path, report.start.layer.value) == ("aten::add", None, "yaml")
    assert starts(report) == [
        (1, "aten::add.Tensor", 29, "a plain call takes it"),
        (2, "aten::add.out", 35, "out= only"),
    ]
    # the other definitions named add, not traced, Python before C++: torch/_C/__init__.pyi:63
    # TensorBase.add, Functions.h:239 at::add, core/Tensor.h:35 Tensor::add (the @overload
    # stubs at _VariableFunctions.pyi:58-61 are declarations, left out beside definitions)
    assert [(s.qname, s.path, s.line) for s in report.other_matches] == [
        ("torch._C.TensorBase.add", "torch/_C/__init__.pyi", 63),
        ("at::add", "aten/src/ATen/Functions.h", 239),
        ("at::Tensor::add", "aten/src/ATen/core/Tensor.h", 35),
    ]
    # --max-depth counts from the overloads: each shows what it runs (yaml:31 structured_delegate
    # add.out; yaml:39 `CPU, CUDA: add_out`, BinaryOps.cpp:55, the CUDA key on the cuda backend)
    tree = report.trace.tree
    assert [
        (c.node.symbol.qname, [(g.node.symbol.qname, g.edge.label, g.stop) for g in c.children]) for c in tree.children
    ] == [
        ("aten::add.Tensor", [("aten::add.out", "structured", "depth limit")]),
        ("aten::add.out", [("at::native::add_out", "dispatch:CUDA", "depth limit")]),
    ]


def test_a_cpp_function_overloaded_is_one_entry_with_nothing_ranking_its_overloads(sample_store, sample_root):
    # aten/src/ATen/Functions.h:14 conv2d(..., IntArrayRef padding = 0, ...) calls
    # at::_ops::conv2d::call at :17; :29 conv2d(..., std::string_view padding, ...) calls
    # at::_ops::conv2d_padding::call at :32; both pass c10::fromIntArrayRefSlow(stride) (c10/core/SymIntArrayRef.h:11)
    report = trace_symbol(sample_store, sample_root, "at::conv2d", max_depth=1)
    assert report.entry is not None and not report.entry.ranked
    assert starts(report) == [(1, "at::conv2d", 14, ""), (2, "at::conv2d", 29, "")]
    children = [
        [(g.node.symbol.qname, g.node.symbol.line, path_line(g.edge.site)) for g in c.children]
        for c in report.trace.tree.children
    ]
    assert children == [
        [
            ("aten::conv2d", 74, ("aten/src/ATen/Functions.h", 17)),
            ("c10::fromIntArrayRefSlow", 11, ("aten/src/ATen/Functions.h", 17)),
        ],
        [
            ("aten::conv2d.padding", 78, ("aten/src/ATen/Functions.h", 32)),
            ("c10::fromIntArrayRefSlow", 11, ("aten/src/ATen/Functions.h", 32)),
        ],
    ]


def test_a_dispatch_stub_declared_and_defined_is_no_entry(sample_store, sample_root):
    # BinaryOps.h:14 DECLARE_DISPATCH and BinaryOps.cpp:39 DEFINE_DISPATCH name one stub (the
    # first by path is traced, as before); the REGISTER_DISPATCH lines are registrations
    report = trace_symbol(sample_store, sample_root, "at::native::add_stub", max_depth=1)
    assert report.entry is None
    assert (report.start.symbol.kind.value, report.start.symbol.path, report.start.symbol.line) == (
        "dispatch_stub",
        BINARY,
        39,
    )


def test_a_class_its_modules_stub_declares_again_is_no_entry(tmp_path: Path):
    # torch/nn/parameter.py defines Parameter, parameter.pyi declares it: the module's runs
    files = {
        "pkg/parameter.py": "class Parameter:\n    def __new__(cls, data=None):\n        return make(data)\n\ndef make(d):\n    return d\n",
        "pkg/parameter.pyi": "class Parameter:\n    def __new__(cls, data=...) -> Parameter: ...\n",
    }
    root = write_tree(tmp_path / "tree", files)
    refresh(str(root), tmp_path / "index.sqlite", jobs=1)
    store = IndexStore.open(tmp_path / "index.sqlite")
    try:
        report = trace_symbol(store, str(root), "pkg.parameter.Parameter", to="make")
        assert report.entry is None
        assert [hops(path) for path in report.trace.paths or []] == [
            [
                ("pkg.parameter.Parameter", "pkg/parameter.py", 1, None, None),
                ("pkg.parameter.Parameter.__new__", "pkg/parameter.py", 2, "method", None),
                ("pkg.parameter.make", "pkg/parameter.py", 5, "call", ("pkg/parameter.py", 3)),
            ]
        ]
    finally:
        store.close()


# -- a small tree ----------------------------------------------------------------------------------

BLEND = {
    YAML: (
        "- func: blend.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor\n"  # 1
        "  variants: function, method\n"  # 2
        "  dispatch:\n"  # 3
        "    CompositeExplicitAutograd: blend_scalar\n"  # 4
        "\n"  # 5
        "- func: blend.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)\n"  # 6
        "  variants: function\n"  # 7
        "  dispatch:\n"  # 8
        "    CUDA: blend_out_cuda\n"  # 9
        "\n"  # 10
        "- func: blend.Tensor_mode(Tensor self, Tensor other, *, str rounding_mode) -> Tensor\n"  # 11
        "  variants: function\n"  # 12
        "  dispatch:\n"  # 13
        "    CUDA: blend_mode_cuda\n"  # 14
        "\n"  # 15
        "- func: blend.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n"  # 16
        "  variants: function, method\n"  # 17
        "  dispatch:\n"  # 18
        "    CUDA: blend_cuda\n"  # 19
        "\n"  # 20
        "- func: blend.inplace(Tensor(a!) self, Tensor other) -> Tensor(a!)\n"  # 21
        "  variants: function\n"  # 22
        "  dispatch:\n"  # 23
        "    CUDA: blend_inplace_cuda\n"  # 24
        "\n"  # 25
        "- func: blend.weighted(Tensor self, Tensor other, Tensor? weight=None) -> Tensor\n"  # 26
        "  variants: function\n"  # 27
        "  dispatch:\n"  # 28
        "    CUDA: blend_weighted_cuda\n"  # 29
    ),
    "src/Blend.cu": (
        "namespace at::native {\n"  # 1
        "__global__ void blend_kernel(float* p) {}\n"  # 2
        "void blend_launch(float* p) { blend_kernel<<<1, 1>>>(p); }\n"  # 3
        "Tensor blend_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha) { blend_launch(nullptr); return self; }\n"  # 4
        "Tensor blend_weighted_cuda(const Tensor& self, const Tensor& other, const std::optional<Tensor>& weight) { blend_kernel<<<1, 1>>>(nullptr); return self; }\n"  # 5
        "Tensor blend_scalar(const Tensor& self, const Scalar& other, const Scalar& alpha) { blend_kernel<<<1, 1>>>(nullptr); return self; }\n"  # 6
        "Tensor blend_mode_cuda(const Tensor& self, const Tensor& other, std::string_view mode) { blend_kernel<<<1, 1>>>(nullptr); return self; }\n"  # 7
        "Tensor& blend_inplace_cuda(Tensor& self, const Tensor& other) { blend_kernel<<<1, 1>>>(nullptr); return self; }\n"  # 8
        "Tensor& blend_out_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out) { blend_kernel<<<1, 1>>>(nullptr); return out; }\n"  # 9
        "void mix(float* p) { blend_launch(p); }\n"  # 10
        "void mix(float* p, int n) { blend_kernel<<<1, 1>>>(p); }\n"  # 11
        "}\n"  # 12
    ),
    "src/Many.cpp": "".join(f"void many(T{n} x) {{}}\n" for n in range(13)),  # lines 1-13
    "pkg/__init__.py": "",
    "pkg/mod.py": (
        "import sys\n"  # 1
        "\n"  # 2
        "\n"  # 3
        "def _fast(x):\n"  # 4
        "    return x\n"  # 5
        "\n"  # 6
        "\n"  # 7
        "def _slow(x):\n"  # 8
        "    return x\n"  # 9
        "\n"  # 10
        "\n"  # 11
        'if sys.platform == "win32":\n'  # 12
        "    def run(x):\n"  # 13
        "        return _slow(x)\n"  # 14
        "else:\n"  # 15
        "    def run(x):\n"  # 16
        "        return _fast(x)\n"  # 17
    ),
}
KERNEL = ("at::native::blend_kernel", "src/Blend.cu", 2)


@pytest.fixture(scope="module")
def blend(tmp_path_factory: pytest.TempPathFactory):
    base = tmp_path_factory.mktemp("blend")
    root = write_tree(base / "tree", BLEND)
    refresh(str(root), base / "index.sqlite", jobs=1)
    store = IndexStore.open(base / "index.sqlite")
    yield store, str(root)
    store.close()


def test_every_overload_starts_a_path_in_the_order_a_plain_call_tries_them(blend):
    store, root = blend
    # no torch/_C stub in this tree: torch.blend is the generated binding of the six function variants
    report = trace_symbol(store, root, "torch.blend", to="blend_kernel")
    assert (report.start.symbol.qname, report.start.symbol.path, report.start.layer.value) == (
        "torch._C._VariableFunctions.blend",
        None,
        "binding",
    )
    assert starts(report) == [
        (1, "aten::blend.Tensor", 16, "a plain call takes it"),
        (2, "aten::blend.weighted", 26, "a plain call fits it too; declared later"),  # `Tensor? weight=None`
        (3, "aten::blend.Scalar", 1, "needs Scalar other"),
        (4, "aten::blend.Tensor_mode", 11, "needs str rounding_mode"),
        (5, "aten::blend.inplace", 21, "in-place"),  # `Tensor(a!) self`
        (6, "aten::blend.out", 6, "out= only"),
    ]
    root_hop = ("torch._C._VariableFunctions.blend", None, None, None, None)
    launch = lambda line: (*KERNEL, "launch", ("src/Blend.cu", line))  # noqa: E731
    assert [hops(path) for path in report.trace.paths] == [
        # blend.Tensor's path is the longest (through blend_launch, Blend.cu:4 -> :3) and still first
        [
            root_hop,
            ("aten::blend.Tensor", YAML, 16, "binding", None),
            ("at::native::blend_cuda", "src/Blend.cu", 4, "dispatch:CUDA", (YAML, 19)),
            ("at::native::blend_launch", "src/Blend.cu", 3, "call", ("src/Blend.cu", 4)),
            launch(3),
        ],
        [
            root_hop,
            ("aten::blend.weighted", YAML, 26, "binding", None),
            ("at::native::blend_weighted_cuda", "src/Blend.cu", 5, "dispatch:CUDA", (YAML, 29)),
            launch(5),
        ],
        [
            root_hop,
            ("aten::blend.Scalar", YAML, 1, "binding", None),
            ("at::native::blend_scalar", "src/Blend.cu", 6, "dispatch:CompositeExplicitAutograd", (YAML, 4)),
            launch(6),
        ],
        [
            root_hop,
            ("aten::blend.Tensor_mode", YAML, 11, "binding", None),
            ("at::native::blend_mode_cuda", "src/Blend.cu", 7, "dispatch:CUDA", (YAML, 14)),
            launch(7),
        ],
        [
            root_hop,
            ("aten::blend.inplace", YAML, 21, "binding", None),
            ("at::native::blend_inplace_cuda", "src/Blend.cu", 8, "dispatch:CUDA", (YAML, 24)),
            launch(8),
        ],
        [
            root_hop,
            ("aten::blend.out", YAML, 6, "binding", None),
            ("at::native::blend_out_cuda", "src/Blend.cu", 9, "dispatch:CUDA", (YAML, 9)),
            launch(9),
        ],
    ]
    out = trace_json(report, root, "blend_kernel")
    assert out["path_overloads"] == [1, 2, 3, 4, 5, 6]


def test_the_operator_name_typed_bare_is_the_same_entry_under_a_root_of_its_own(blend):
    store, root = blend
    report = trace_symbol(store, root, "blend", max_depth=1)
    assert (report.start.symbol.qname, report.start.symbol.path) == ("aten::blend", None)
    assert [
        (c.node.symbol.qname, c.edge.label, [g.node.symbol.qname for g in c.children])
        for c in report.trace.tree.children
    ] == [
        ("aten::blend.Tensor", "call", ["at::native::blend_cuda"]),
        ("aten::blend.weighted", "call", ["at::native::blend_weighted_cuda"]),
        ("aten::blend.Scalar", "call", ["at::native::blend_scalar"]),
        ("aten::blend.Tensor_mode", "call", ["at::native::blend_mode_cuda"]),
        ("aten::blend.inplace", "call", ["at::native::blend_inplace_cuda"]),
        ("aten::blend.out", "call", ["at::native::blend_out_cuda"]),
    ]


def test_cpp_overloads_rank_by_cost_alone(blend):
    store, root = blend
    # Blend.cu:10 mix(float*) reaches the kernel through blend_launch; :11 mix(float*, int) launches it
    report = trace_symbol(store, root, "at::native::mix", to="blend_kernel")
    assert report.entry is not None and (report.entry.count, report.entry.ranked, report.entry.made) == (2, False, True)
    assert [hops(path)[1:] for path in report.trace.paths] == [
        [("at::native::mix", "src/Blend.cu", 11, "call", None), (*KERNEL, "launch", ("src/Blend.cu", 11))],
        [
            ("at::native::mix", "src/Blend.cu", 10, "call", None),
            ("at::native::blend_launch", "src/Blend.cu", 3, "call", ("src/Blend.cu", 10)),
            (*KERNEL, "launch", ("src/Blend.cu", 3)),
        ],
    ]
    assert [report.entry.overload_of(path).rank for path in report.trace.paths] == [2, 1]


def test_a_python_name_defined_on_both_sides_of_an_if(blend):
    store, root = blend
    # pkg/mod.py:13 run (win32) returns _slow(x) at :14 (_slow at :8); :16 run returns _fast(x) at :17 (_fast at :4)
    report = trace_symbol(store, root, "pkg.mod.run", max_depth=1)
    assert report.entry is not None and report.entry.noun == "definition"
    assert [
        (c.node.symbol.line, [(g.node.symbol.qname, g.node.symbol.line, path_line(g.edge.site)) for g in c.children])
        for c in report.trace.tree.children
    ] == [
        (13, [("pkg.mod._slow", 8, ("pkg/mod.py", 14))]),
        (16, [("pkg.mod._fast", 4, ("pkg/mod.py", 17))]),
    ]
    to_fast = trace_symbol(store, root, "pkg.mod.run", to="_fast")
    assert [hops(path)[1:] for path in to_fast.trace.paths] == [
        [
            ("pkg.mod.run", "pkg/mod.py", 16, "call", None),
            ("pkg.mod._fast", "pkg/mod.py", 4, "call", ("pkg/mod.py", 17)),
        ],
    ]


def test_past_a_dozen_overloads_the_first_dozen_are_followed(blend):
    store, root = blend
    report = trace_symbol(store, root, "many", max_depth=1)
    assert report.entry is not None
    assert (report.entry.count, [o.node.symbol.line for o in report.entry.overloads]) == (13, list(range(1, 13)))
    assert report.entry.overloads[0].edge.candidates[-1] == "... and 1 more"
    result = invoke(["trace", "many", "--root", root, "--max-depth", "1"])
    assert (
        result.stdout.splitlines()[0]
        == "many: 13 overloads, the first 12 traced; no call to choose between them: their paths rank by cost alone"
    )


def test_text_of_an_entry_with_a_root_of_its_own(blend):
    _, root = blend
    result = invoke(["trace", "at::native::mix", "--root", root, "--to", "blend_kernel"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[:4] == [
        "at::native::mix: 2 overloads, all traced; no call to choose between them: their paths rank by cost alone",
        "2 paths from at::native::mix (2 overloads) to blend_kernel (backend cuda)",
        "",
        "path 1: 2 hops, from at::native::mix, overload 2 of 2",
    ]
    assert lines[4].split() == ["0", "cuda", "at::native::mix", "(2", "overloads)"]
    assert lines[5].split() == [
        "1",
        "cuda",
        "at::native::mix",
        "src/Blend.cu:11",
        "←",
        "call,",
        "overload",
        "2",
        "of",
        "2",
    ]
    tree = invoke(["trace", "pkg.mod.run", "--root", root, "--max-depth", "1"]).stdout.splitlines()
    assert (
        tree[0]
        == "pkg.mod.run: 2 definitions, all traced; no call to choose between them: their paths rank by cost alone"
    )
    assert tree[1].split() == ["python", "pkg.mod.run", "(2", "definitions)"]
    assert tree[2].split() == [
        "├──",
        "python",
        "pkg.mod.run",
        "pkg/mod.py:13",
        "←",
        "call,",
        "definition",
        "1",
        "of",
        "2",
    ]


def test_tracing_an_entry_twice_gives_the_same_json(blend, tmp_path: Path):
    store, root = blend
    first, again = (
        json.dumps(trace_json(trace_symbol(store, root, "torch.blend", to="blend_kernel"), root, "blend_kernel"))
        for _ in range(2)
    )
    assert first == again
