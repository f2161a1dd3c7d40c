"""native_functions.yaml: operators, overloads, dispatch tables and torchgen's implicit rules."""

from __future__ import annotations

from explorer.model import DispatchEntry, OperatorInfo, SymbolKind
from explorer.parsers.yaml_ops import operator_name, parse_native_functions

PATH = "aten/src/ATen/native/native_functions.yaml"
SOURCE = b"""\
# comment
- func: conv2d(Tensor input, Tensor weight) -> Tensor
  dispatch:
    CompositeImplicitAutograd: conv2d_symint

- func: conv2d.padding(Tensor input, str padding="valid") -> Tensor
  python_module: nn

- func: relu(Tensor self) -> Tensor
  variants: function, method
  dispatch:
    CPU, CUDA: relu
    MkldnnCPU: at::native::mkldnn_relu

- func: addmm(Tensor self, Tensor mat1, Tensor mat2) -> Tensor
  structured_delegate: addmm.out
  variants: function, method

- func: addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  autogen: addmm.other, addmm.third
  dispatch:
    CPU: addmm_out_cpu
"""


def test_operator_names_keep_the_overload():
    assert operator_name("conv2d.padding(Tensor input) -> Tensor") == "conv2d.padding"


def test_operators_are_symbols_with_the_schema_as_signature():
    facts = parse_native_functions(PATH, SOURCE)
    assert [(s.qname, s.name, s.kind, s.line, s.end_line, s.target) for s in facts.symbols] == [
        ("aten::conv2d", "conv2d", SymbolKind.OPERATOR, 2, 4, None),
        ("aten::conv2d.padding", "conv2d", SymbolKind.OPERATOR, 6, 7, None),
        ("aten::relu", "relu", SymbolKind.OPERATOR, 9, 13, None),
        ("aten::addmm", "addmm", SymbolKind.OPERATOR, 15, 17, "aten::addmm.out"),
        ("aten::addmm.out", "addmm", SymbolKind.OPERATOR, 19, 23, None),
    ]
    assert facts.symbols[1].signature == 'conv2d.padding(Tensor input, str padding="valid") -> Tensor'


def test_dispatch_tables_expand_joined_keys_and_implicit_defaults():
    facts = parse_native_functions(PATH, SOURCE)
    assert facts.dispatch == [
        DispatchEntry("aten::conv2d", "CompositeImplicitAutograd", "at::native::conv2d_symint", 4),
        # no dispatch: block means a CompositeImplicitAutograd kernel named after the op
        DispatchEntry("aten::conv2d.padding", "CompositeImplicitAutograd", "at::native::conv2d", 6),
        DispatchEntry("aten::relu", "CPU", "at::native::relu", 12),
        DispatchEntry("aten::relu", "CUDA", "at::native::relu", 12),
        DispatchEntry("aten::relu", "MkldnnCPU", "at::native::mkldnn_relu", 13),
        DispatchEntry("aten::addmm.out", "CPU", "at::native::addmm_out_cpu", 23),
    ]


def test_operator_facts():
    facts = parse_native_functions(PATH, SOURCE)
    assert facts.operators == [
        OperatorInfo("aten::conv2d", ("function",), None, False, None, ()),
        OperatorInfo("aten::conv2d.padding", ("function",), "nn", False, None, ()),
        OperatorInfo("aten::relu", ("function", "method"), None, False, None, ()),
        OperatorInfo("aten::addmm", ("function", "method"), None, False, "aten::addmm.out", ()),
        OperatorInfo("aten::addmm.out", ("function",), None, True, None, ("aten::addmm.other", "aten::addmm.third")),
    ]


def test_malformed_yaml_is_a_diagnostic_not_a_crash():
    facts = parse_native_functions(PATH, b"- func: relu(Tensor self) -> Tensor\n  dispatch: [unclosed\n")
    assert facts.symbols == []
    [diagnostic] = facts.diagnostics
    # the problem's wording is the YAML loader's (libyaml's or PyYAML's); the line is ours
    assert diagnostic.skipped and diagnostic.reason.startswith("invalid YAML at line 3: ")
    assert "\n" not in diagnostic.reason


def test_bad_entries_are_reported_and_the_others_kept():
    source = b"- func: a(Tensor x) -> Tensor\n- variants: function\n- func: b(Tensor x) -> Tensor\n  func: c(Tensor x) -> Tensor\n- just text\n- func: d(Tensor x) -> Tensor\n"
    facts = parse_native_functions(PATH, source)
    assert [s.qname for s in facts.symbols] == ["aten::a", "aten::d"]
    assert [d.reason for d in facts.diagnostics] == [
        "line 2: entry has no 'func'",
        "line 3: duplicate key 'func'",
        "line 5: entry is not a mapping",
    ]


def test_yaml_tags_are_not_constructed():
    facts = parse_native_functions(
        PATH, b"- func: a(Tensor x) -> Tensor\n  tags: !!python/object/apply:os.system ['echo hi']\n"
    )
    assert [s.qname for s in facts.symbols] == ["aten::a"]


def test_derivatives_give_each_operator_its_formulas():
    from explorer.model import DerivativeEntry
    from explorer.parsers.yaml_ops import parse_derivatives

    source = b"""\
- name: convolution(Tensor input, Tensor weight, Tensor? bias) -> Tensor
  input, weight, bias: "grad.defined() ? convolution_backward(grad, input) : std::tuple<Tensor, Tensor, Tensor>()"
  result: convolution_jvp(input_p, input_t)

- name: max_pool2d_with_indices(Tensor self) -> (Tensor, Tensor)
  self: max_pool2d_with_indices_backward(grad, self, result1)
  output_differentiability: [True, False]

- self: no name here
"""
    facts = parse_derivatives("tools/autograd/derivatives.yaml", source)
    assert facts.derivatives == [
        DerivativeEntry(
            "aten::convolution",
            1,
            3,
            (
                (
                    "input, weight, bias",
                    "grad.defined() ? convolution_backward(grad, input) : std::tuple<Tensor, Tensor, Tensor>()",
                ),
                ("result", "convolution_jvp(input_p, input_t)"),
            ),
        ),
        DerivativeEntry(
            "aten::max_pool2d_with_indices",
            5,
            7,
            (
                ("self", "max_pool2d_with_indices_backward(grad, self, result1)"),
                ("output_differentiability", "[True, False]"),
            ),
        ),
    ]
    assert [d.reason for d in facts.diagnostics] == ["line 9: entry has no 'name'"]
