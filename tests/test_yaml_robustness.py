"""native_functions.yaml and derivatives.yaml that are hostile or wrong: the work stays bounded
by the file's size, nothing raises, and every problem is one diagnostic that says what and where."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from conftest import write_tree

from explorer.index.build import refresh
from explorer.model import DerivativeEntry, Diagnostic, DispatchEntry, OperatorInfo, SymbolKind
from explorer.parsers import yaml_ops
from explorer.parsers.yaml_ops import parse_derivatives, parse_native_functions

OPERATORS = "aten/src/ATen/native/native_functions.yaml"
DERIVATIVES = "tools/autograd/derivatives.yaml"


def laughs(levels: int) -> bytes:
    """A "billion laughs": each level is a list of nine aliases of the level before, so the
    last alias stands for 9**levels strings, written in a few hundred bytes."""
    lines = [
        "- name: x(Tensor self) -> Tensor",
        '  a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]',
    ]
    lines += [f"  a{level}: &a{level} [{', '.join([f'*a{level - 1}'] * 9)}]" for level in range(1, levels)]
    lines.append(f"  self: *a{levels - 1}")
    return ("\n".join(lines) + "\n").encode()


# -- aliases ---------------------------------------------------------------------------------


def test_billion_laughs_is_refused_with_one_diagnostic():
    source = laughs(9)
    assert len(source) == 567
    facts = parse_derivatives(DERIVATIVES, source)
    # a0 stands for 37 nodes and characters (a list and nine 3-letter strings), a1 for 334,
    # a2 for 3,007, a3 (line 5) for 27,064: the first to cross 8 * 567 + 10,000
    assert facts.diagnostics == [
        Diagnostic(
            DERIVATIVES,
            "aliases expand past 14,536 nodes and characters at line 5 (the limit for a file of 567 bytes)",
            skipped=True,
        )
    ]
    assert facts.derivatives == [] and facts.symbols == []


def test_aliases_that_stand_for_9_to_the_30th_strings_stop_as_early():
    # Were any part of the expansion done, this would not finish.
    facts = parse_derivatives(DERIVATIVES, laughs(30))
    [diagnostic] = facts.diagnostics
    assert diagnostic.skipped and diagnostic.reason.startswith("aliases expand past ")
    assert " at line 5 " in diagnostic.reason


def test_billion_laughs_in_native_functions_dispatch_is_refused():
    levels = "\n".join(f"    k{level}: &k{level} [{', '.join([f'*k{level - 1}'] * 9)}]" for level in range(1, 12))
    source = f"- func: relu(Tensor self) -> Tensor\n  tags:\n    k0: &k0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n{levels}\n  dispatch: *k11\n"
    facts = parse_native_functions(OPERATORS, source.encode())
    assert len(source) == 770
    assert facts.diagnostics == [  # k3 (line 6) stands for 27,064 nodes and characters
        Diagnostic(
            OPERATORS, "aliases expand past 16,160 nodes and characters at line 6 (the limit for a file of 770 bytes)"
        )
    ]
    assert facts.symbols == [] and facts.dispatch == []


def test_aliases_within_the_budget_are_read_as_what_they_stand_for():
    source = b"""\
- func: a(Tensor x) -> Tensor
  dispatch: &both
    CPU: a_kernel
    CUDA: a_kernel

- func: b(Tensor x) -> Tensor
  dispatch: *both
"""
    facts = parse_native_functions(OPERATORS, source)
    assert facts.diagnostics == []
    # the shared dispatch block is where it is written, at its anchor
    assert facts.dispatch == [
        DispatchEntry("aten::a", "CPU", "at::native::a_kernel", 3),
        DispatchEntry("aten::a", "CUDA", "at::native::a_kernel", 4),
        DispatchEntry("aten::b", "CPU", "at::native::a_kernel", 3),
        DispatchEntry("aten::b", "CUDA", "at::native::a_kernel", 4),
    ]
    # an entry ends at its alias, not at its anchor's lines
    assert [(s.qname, s.line, s.end_line) for s in facts.symbols] == [("aten::a", 1, 4), ("aten::b", 6, 7)]


def test_derivative_formulas_through_an_alias_are_spelt_out():
    source = b"- name: a(Tensor self) -> Tensor\n  self: &grad [grad, {x: 1}]\n- name: b(Tensor self) -> Tensor\n  self: *grad\n"
    facts = parse_derivatives(DERIVATIVES, source)
    assert facts.derivatives == [
        DerivativeEntry("aten::a", 1, 2, (("self", "[grad, x: 1]"),)),
        DerivativeEntry("aten::b", 3, 4, (("self", "[grad, x: 1]"),)),
    ]


@pytest.mark.parametrize(
    ("source", "line", "alias"),
    [
        (b"- name: x(Tensor self)\n  self: &loop [grad, *loop]\n", 2, "loop"),  # inside its own anchor
        (b"- name: x(Tensor self)\n  self: *nowhere\n", 2, "nowhere"),
        (b"- name: x(Tensor self)\n  self: *later\n- name: y(Tensor self)\n  self: &later grad\n", 2, "later"),
    ],
)
def test_an_alias_must_refer_to_a_node_that_ends_before_it(source: bytes, line: int, alias: str):
    facts = parse_derivatives(DERIVATIVES, source)
    assert facts.diagnostics == [
        Diagnostic(
            DERIVATIVES, f"invalid YAML at line {line}: alias *{alias} does not refer to a node that ends before it"
        )
    ]
    assert facts.derivatives == []


# -- nesting ---------------------------------------------------------------------------------


@pytest.mark.parametrize("parse", [parse_native_functions, parse_derivatives])
@pytest.mark.parametrize(("opening", "closing"), [(b"[", b"]"), (b"{a: ", b"}")])
def test_ten_thousand_nested_levels_are_one_diagnostic(parse, opening: bytes, closing: bytes):
    source = (
        b"- func: x(Tensor self) -> Tensor\n  name: x(Tensor self)\n  self: "
        + opening * 10_000
        + b"1"
        + closing * 10_000
        + b"\n"
    )
    facts = parse("x.yaml", source)
    assert facts.diagnostics == [Diagnostic("x.yaml", "nested more than 100 levels deep at line 3")]
    assert facts.symbols == [] and facts.derivatives == [] and facts.dispatch == []


def test_a_million_nested_levels_stop_where_the_limit_is_met():
    # libyaml's scanner slows quadratically with flow nesting (a minute at 40,000 levels):
    # reading stops at level 101, wherever the brackets end.
    source = b"- name: x(Tensor self)\n  self: " + b"[" * 1_000_000 + b"]" * 1_000_000 + b"\n"
    assert parse_derivatives(DERIVATIVES, source).diagnostics == [
        Diagnostic(DERIVATIVES, "nested more than 100 levels deep at line 2")
    ]


def test_deep_block_nesting_is_one_diagnostic():
    keys = "".join("  " * (level + 1) + f"k{level}:\n" for level in range(150))
    facts = parse_derivatives(DERIVATIVES, f"- name: x(Tensor self)\n  self:\n{keys}".encode())
    # the top list and the entry are two levels, self's value the third: k98's value is the 101st
    assert facts.diagnostics == [Diagnostic(DERIVATIVES, "nested more than 100 levels deep at line 102")]


def test_nesting_up_to_the_limit_is_read():
    source = b"- name: x(Tensor self)\n  self: " + b"[" * 98 + b"]" * 98 + b"\n"  # 2 + 98 levels
    facts = parse_derivatives(DERIVATIVES, source)
    assert facts.diagnostics == []
    assert facts.derivatives == [DerivativeEntry("aten::x", 1, 2, (("self", "[" * 98 + "]" * 98),))]
    one_more = parse_derivatives(DERIVATIVES, source.replace(b"[", b"[[", 1).replace(b"]", b"]]", 1))
    assert [d.reason for d in one_more.diagnostics] == ["nested more than 100 levels deep at line 2"]


# -- bad bytes and bad documents ---------------------------------------------------------------


def test_a_nul_byte_is_named_with_its_line():
    facts = parse_native_functions(OPERATORS, b"- func: a(Tensor x) -> Tensor\n- func: b(Tensor\x00 x) -> Tensor\n")
    assert facts.diagnostics == [Diagnostic(OPERATORS, "invalid YAML at line 2: a NUL byte")]


def test_bytes_that_are_not_utf8_are_named_with_their_line():
    facts = parse_native_functions(OPERATORS, b"- func: a(Tensor x) -> Tensor\n# \xc3\xa9\n- func: b\xff\n")
    [diagnostic] = facts.diagnostics
    # libyaml words the problem; the line is counted from its byte offset
    assert diagnostic.skipped and diagnostic.reason.startswith("invalid YAML at line 3: ")


def test_lines_end_at_line_feeds_only_as_everywhere_in_explorer():
    # YAML also ends a line at a lone carriage return and at U+2028; tree-sitter and the
    # rest of explorer do not, and a line must name the same text whichever file it is in
    source = (
        b"- func: a(Tensor x) -> Tensor\r  dispatch:\r    CPU: k\n"
        b"- func: b(Tensor x) -> Tensor\r\n  dispatch:\xe2\x80\xa8    CUDA: k\n"
        b"- func: c(Tensor x) -> Tensor\n"
    )
    facts = parse_native_functions(OPERATORS, source)
    assert facts.diagnostics == []
    assert [(s.qname, s.line, s.end_line) for s in facts.symbols] == [
        ("aten::a", 1, 1),
        ("aten::b", 2, 3),
        ("aten::c", 4, 4),
    ]
    assert [(e.operator, e.key, e.line) for e in facts.dispatch] == [
        ("aten::a", "CPU", 1),
        ("aten::b", "CUDA", 3),
        ("aten::c", "CompositeImplicitAutograd", 4),
    ]
    [diagnostic] = parse_derivatives(DERIVATIVES, b"-\rn").diagnostics  # found by the fuzz test: was line 3 of 1
    assert diagnostic.reason.startswith("invalid YAML at line 1: ")


def test_a_second_document_is_refused():
    facts = parse_derivatives(DERIVATIVES, b"- name: a(Tensor x)\n---\n- name: b(Tensor x)\n")
    assert facts.diagnostics == [
        Diagnostic(DERIVATIVES, "invalid YAML at line 2: a second document; expected a single one")
    ]


def test_a_key_that_is_a_list_is_an_entry_problem():
    facts = parse_native_functions(
        OPERATORS, b"- ? [a, b]\n  : c\n  func: a(Tensor x) -> Tensor\n- func: b(Tensor x) -> Tensor\n"
    )
    assert [s.qname for s in facts.symbols] == ["aten::b"]
    assert facts.diagnostics == [
        Diagnostic(OPERATORS, "line 1: the key at line 1 is not a single value", skipped=False)
    ]


# -- duplicates ------------------------------------------------------------------------------


def test_an_operator_defined_twice_keeps_the_first():
    source = b"""\
- func: relu(Tensor self) -> Tensor
  dispatch:
    CPU: relu_cpu

- func: relu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)

- func: relu(Tensor self) -> Tensor
  variants: method
  dispatch:
    CUDA: relu_cuda
"""
    facts = parse_native_functions(OPERATORS, source)
    assert facts.diagnostics == [
        Diagnostic(
            OPERATORS, "line 7: operator aten::relu defined again (first at line 1); kept the first", skipped=False
        )
    ]
    assert [(s.qname, s.line) for s in facts.symbols] == [("aten::relu", 1), ("aten::relu.out", 5)]
    assert [(o.operator, o.variants) for o in facts.operators] == [
        ("aten::relu", ("function",)),
        ("aten::relu.out", ("function",)),
    ]
    assert facts.dispatch == [
        DispatchEntry("aten::relu", "CPU", "at::native::relu_cpu", 3),
        DispatchEntry("aten::relu.out", "CompositeImplicitAutograd", "at::native::relu_out", 5),
    ]


def test_an_operator_defined_three_times_is_reported_twice():
    entry = b"- func: relu(Tensor self) -> Tensor\n"
    facts = parse_native_functions(OPERATORS, entry * 3)
    assert [d.reason for d in facts.diagnostics] == [
        "line 2: operator aten::relu defined again (first at line 1); kept the first",
        "line 3: operator aten::relu defined again (first at line 1); kept the first",
    ]
    assert len(facts.symbols) == len(facts.operators) == len(facts.dispatch) == 1


def test_a_dispatch_key_given_twice_in_one_entry_keeps_the_first():
    source = b"""\
- func: relu(Tensor self) -> Tensor
  dispatch:
    CPU: relu_cpu
    MPS: relu_mps
    CPU, CUDA: relu_generic
"""
    facts = parse_native_functions(OPERATORS, source)
    assert facts.diagnostics == [
        Diagnostic(
            OPERATORS,
            "line 5: aten::relu dispatch key CPU given again (first at line 3); kept the first",
            skipped=False,
        )
    ]
    assert facts.dispatch == [
        DispatchEntry("aten::relu", "CPU", "at::native::relu_cpu", 3),
        DispatchEntry("aten::relu", "MPS", "at::native::relu_mps", 4),
        DispatchEntry("aten::relu", "CUDA", "at::native::relu_generic", 5),
    ]
    assert [s.qname for s in facts.symbols] == ["aten::relu"]


def test_a_repeated_yaml_key_in_dispatch_keeps_the_first():
    # PyYAML's own loader would keep the last CPU silently
    source = (
        b"- func: relu(Tensor self) -> Tensor\n  dispatch:\n    CPU: first\n    CPU: second\n    CUDA, CUDA: cuda\n"
    )
    facts = parse_native_functions(OPERATORS, source)
    assert [d.reason for d in facts.diagnostics] == [
        "line 4: aten::relu dispatch key CPU given again (first at line 3); kept the first",
        "line 5: aten::relu dispatch key CUDA given again (first at line 5); kept the first",
    ]
    assert [(e.key, e.kernel, e.line) for e in facts.dispatch] == [
        ("CPU", "at::native::first", 3),
        ("CUDA", "at::native::cuda", 5),
    ]


def test_the_same_dispatch_key_in_two_operators_is_no_repeat():
    source = b"- func: a(Tensor x) -> Tensor\n  dispatch:\n    CPU: a\n- func: b(Tensor x) -> Tensor\n  dispatch:\n    CPU: b\n"
    assert parse_native_functions(OPERATORS, source).diagnostics == []


def test_derivatives_of_one_operator_given_twice_keep_the_first():
    source = (
        b"- name: relu(Tensor self) -> Tensor\n  self: first\n- name: relu(Tensor self) -> Tensor\n  self: second\n"
    )
    facts = parse_derivatives(DERIVATIVES, source)
    assert facts.derivatives == [DerivativeEntry("aten::relu", 1, 2, (("self", "first"),))]
    assert facts.diagnostics == [
        Diagnostic(
            DERIVATIVES,
            "line 3: derivatives of aten::relu defined again (first at line 1); kept the first",
            skipped=False,
        )
    ]


def test_an_operator_repeated_on_one_line_or_through_an_alias_is_a_repeat():
    flow = parse_native_functions(OPERATORS, b"[{func: 'a(Tensor x) -> Tensor'}, {func: 'a(Tensor x) -> Tensor'}]\n")
    assert [d.reason for d in flow.diagnostics] == [
        "line 1: operator aten::a defined again (first at line 1); kept the first"
    ]
    assert len(flow.symbols) == 1
    aliased = parse_native_functions(OPERATORS, b"- &entry\n  func: a(Tensor x) -> Tensor\n- *entry\n")
    # the repeat is where the alias is written, the first where the anchored entry starts
    assert [d.reason for d in aliased.diagnostics] == [
        "line 3: operator aten::a defined again (first at line 1); kept the first"
    ]
    assert [(s.qname, s.line) for s in aliased.symbols] == [("aten::a", 1)]


def test_an_entry_that_fails_is_not_the_first_definition():
    source = b"- func: a(Tensor x) -> Tensor\n  variants: [function]\n- func: a(Tensor x) -> Tensor\n"
    facts = parse_native_functions(OPERATORS, source)
    assert [d.reason for d in facts.diagnostics] == ["line 1: 'variants' must be a single value"]
    assert [(s.qname, s.line) for s in facts.symbols] == [("aten::a", 3)]


def test_overloads_are_different_operators():
    source = b"- func: add.Tensor(Tensor self, Tensor other) -> Tensor\n- func: add.Scalar(Tensor self, Scalar other) -> Tensor\n- func: add(Tensor self) -> Tensor\n"
    facts = parse_native_functions(OPERATORS, source)
    assert facts.diagnostics == [] and len(facts.symbols) == 3


# -- the loaders agree; the index goes on ------------------------------------------------------


def test_the_pure_python_loader_gives_the_same_facts(monkeypatch: pytest.MonkeyPatch):
    source = b"""\
# comment
- func: relu(Tensor self) -> Tensor
  variants: function, method
  dispatch:
    CPU, CUDA: relu
    CPU: again

- func: addmm.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch: &shared
    CPU: addmm_out_cpu
- func: addmm.other(Tensor self) -> Tensor
  dispatch: *shared
"""
    fast = parse_native_functions(OPERATORS, source)
    fast_refusal = parse_derivatives(DERIVATIVES, laughs(9))
    fast_nul = parse_derivatives(DERIVATIVES, b"- name: a\n- name: \x00\n")
    monkeypatch.setattr(yaml_ops, "_Loader", yaml.SafeLoader)
    assert parse_native_functions(OPERATORS, source) == fast
    assert parse_derivatives(DERIVATIVES, laughs(9)) == fast_refusal
    assert parse_derivatives(DERIVATIVES, b"- name: a\n- name: \x00\n") == fast_nul
    assert [s.kind for s in fast.symbols] == [SymbolKind.OPERATOR] * 3
    assert fast.operators[1] == OperatorInfo("aten::addmm.out", ("function",), None, True, None, ())


def test_a_refused_yaml_file_leaves_the_rest_of_the_index_alone(tmp_path: Path):
    root = write_tree(
        tmp_path / "tree",
        {
            DERIVATIVES: laughs(9),
            OPERATORS: b"- func: relu(Tensor self) -> Tensor\n- func: relu(Tensor self) -> Tensor\n",
            "m.py": "def f():\n    pass\n",
        },
    )
    report = refresh(str(root), tmp_path / "index.sqlite", jobs=1)
    assert [(d.path, d.reason) for d in report.skipped] == [
        (DERIVATIVES, "aliases expand past 14,536 nodes and characters at line 5 (the limit for a file of 567 bytes)"),
    ]
    assert [(d.path, d.reason) for d in report.partial] == [
        (OPERATORS, "line 2: operator aten::relu defined again (first at line 1); kept the first"),
    ]
    assert report.stats.files == 3 and report.stats.symbols == 3  # m, m.f and aten::relu
