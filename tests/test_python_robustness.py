"""Python files that are hostile or broken: deep nesting, very wide files, NUL bytes, errors
Python's own parser cannot place. Nothing raises, the work stays in proportion to the file,
and every diagnostic names a line of the file."""

from __future__ import annotations

import warnings

import pytest

from explorer.model import CallKind, CallSite, Diagnostic, ImportBinding, SymbolKind
from explorer.parsers.python import parse_python

# Valid Python the tree-sitter grammar cannot read: Python's own parser is then asked.
NEW_SYNTAX = b"def h(args):\n    return *(g(*args)), *args\n"


def symbols(source: bytes) -> list[tuple[str, SymbolKind, int]]:
    return [(s.qname, s.kind, s.line) for s in parse_python("m.py", source).symbols if s.kind is not SymbolKind.MODULE]


# -- NUL bytes and lines Python's parser cannot give ---------------------------------------------


def test_a_nul_byte_is_named_with_its_line_and_the_rest_is_indexed():
    source = b"x = 1\n" * 2 + b"def f():\n    y = 2\x00\n" + b"def g():\n    pass\n"
    facts = parse_python("m.py", source)
    assert facts.diagnostics == [
        Diagnostic("m.py", "NUL byte at line 4: Python cannot read this file; indexed the rest", skipped=False)
    ]
    assert symbols(source) == [
        ("m.x", SymbolKind.VARIABLE, 1),
        ("m.x", SymbolKind.VARIABLE, 2),
        ("m.f", SymbolKind.FUNCTION, 3),
        ("m.g", SymbolKind.FUNCTION, 5),
    ]


def test_a_nul_byte_in_a_string_does_not_end_the_file():
    # tree-sitter's scanner would take it for the end of the file and lose g
    source = b'a = "s\x00"\nb = "\x00\x00"\ndef g():\n    return h()\n'
    facts = parse_python("m.py", source)
    assert [d.reason for d in facts.diagnostics] == [
        "NUL byte at line 1: Python cannot read this file; indexed the rest"
    ]
    assert symbols(source) == [
        ("m.a", SymbolKind.VARIABLE, 1),
        ("m.b", SymbolKind.VARIABLE, 2),
        ("m.g", SymbolKind.FUNCTION, 3),
    ]
    assert facts.calls == [CallSite("m.g", "h", "h", 4, 11)]


def test_a_file_that_is_one_nul_byte():
    facts = parse_python("m.py", b"\x00")
    assert [d.reason for d in facts.diagnostics] == [
        "NUL byte at line 1: Python cannot read this file; indexed the rest"
    ]


@pytest.mark.parametrize(
    ("source", "line"),
    [
        (b"# -*- coding: bogus -*-\nx = (\n", 2),  # Python names no line for a bad encoding
        (b"x = 1\r\ry = = 2\r", 1),  # Python counts lines at a lone carriage return, tree-sitter does not
    ],
)
def test_a_syntax_error_python_cannot_place_is_placed_by_tree_sitter(source: bytes, line: int):
    [diagnostic] = parse_python("m.py", source).diagnostics
    assert diagnostic.reason.startswith(f"syntax error near line {line}: ") and not diagnostic.skipped
    assert diagnostic.reason.endswith("; indexed what parsed") and "None" not in diagnostic.reason


def test_every_syntax_diagnostic_names_a_line_of_the_file():
    for source in (
        b"x = (\n",
        b"def f(:\n",
        b"class",
        b"\n\n\n)",
        b"'''",
        b"x = \xff\n",
        b"@\n",
        b"lambda: (yield)\n)",
    ):
        [diagnostic] = parse_python("m.py", source).diagnostics
        line = int(diagnostic.reason.split(" line ", 1)[1].split(":")[0].split(",")[0].split(" ")[0])
        assert 1 <= line <= source.count(b"\n") + 1, (source, diagnostic.reason)


def test_pythons_warnings_do_not_stand_in_for_the_syntax_error():
    # An invalid escape is a warning from Python's parser; where warnings are errors it would
    # have been reported instead of the real problem on line 2.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        [diagnostic] = parse_python("m.py", b'x = "\\l"\ny = = 1\n').diagnostics
    assert diagnostic.reason.startswith("syntax error at line 2: ")


# -- deep nesting --------------------------------------------------------------------------------


@pytest.mark.parametrize(("opening", "closing"), [(b"(", b")"), (b"[", b"]"), (b"{", b"}"), (b"g(", b")")])
def test_two_thousand_nested_brackets_are_read(opening: bytes, closing: bytes):
    source = (
        b"def g(x):\n    return x\n\ndef f():\n    return "
        + opening * 2000
        + b"1"
        + closing * 2000
        + b"\n\ndef after():\n    pass\n"
    )
    facts = parse_python("m.py", source)
    assert facts.diagnostics == []
    assert symbols(source) == [
        ("m.g", SymbolKind.FUNCTION, 1),
        ("m.f", SymbolKind.FUNCTION, 4),
        ("m.after", SymbolKind.FUNCTION, 7),
    ]
    if opening == b"g(":
        assert facts.calls == [CallSite("m.f", "g", "m.g", 5, 11 + 2 * depth) for depth in range(2000)]
    else:
        assert facts.calls == []


def test_deep_nesting_with_a_syntax_error_is_placed():
    source = b"def f():\n    return " + b"g(" * 2000 + b"1" + b")" * 2000 + b"\n\nx = = 1\n"
    facts = parse_python("m.py", source)
    [diagnostic] = facts.diagnostics
    # Python's tokenizer stops at 200 nested brackets, on line 2
    assert diagnostic.reason.startswith("syntax error at line 2: ") and not diagnostic.skipped
    assert len(facts.calls) == 2000


@pytest.mark.parametrize(
    "deep", [b"x = 1" + b"+1" * 100_000, b"x = " + b"-" * 100_000 + b"1", b"x = " + b"not " * 100_000 + b"a"]
)
def test_python_giving_up_on_deep_nesting_is_a_diagnostic(deep: bytes):
    # Python's parser raises RecursionError or MemoryError on these
    facts = parse_python("m.py", NEW_SYNTAX + deep + b"\n")
    assert facts.diagnostics == [
        Diagnostic(
            "m.py",
            "the Python grammar cannot read line 2, and the file is nested too deeply for Python's parser to check it;"
            " indexed what parsed",
            skipped=False,
        )
    ]
    assert ("m.x", SymbolKind.VARIABLE, 3) in symbols(NEW_SYNTAX + deep + b"\n")


def test_a_docstring_built_from_five_thousand_strings_is_still_an_alias():
    source = b"import torch\nconv = _add_docstr(torch.conv2d, " + b'"doc" + ' * 5000 + b'"end")\n'
    [alias] = [s for s in parse_python("m.py", source).symbols if s.qname == "m.conv"]
    assert (alias.kind, alias.target, alias.signature) == (
        SymbolKind.ALIAS,
        "torch.conv2d",
        "conv = _add_docstr(torch.conv2d, ...)",
    )


def test_a_docstring_in_three_thousand_parentheses_is_still_an_alias():
    source = b"import torch\nconv = _add_docstr(torch.conv2d, " + b"(" * 3000 + b'"doc"' + b")" * 3000 + b")\n"
    [alias] = [s for s in parse_python("m.py", source).symbols if s.qname == "m.conv"]
    assert (alias.kind, alias.target) == (SymbolKind.ALIAS, "torch.conv2d")


def test_definitions_nested_past_pythons_indentation_limit_keep_their_names():
    # Python stops at 100 levels of indentation; tree-sitter reads on. (Each name used to be
    # found by climbing parents, which tree-sitter finds from the root: 500 levels took 6 s.)
    depth = 150
    source = "".join(" " * level + f"def f{level}():\n" for level in range(depth)) + " " * depth + "return g()\n"
    facts = parse_python("m.py", source.encode())
    innermost = "m." + ".".join(f"f{level}" for level in range(depth))
    assert [(s.qname, s.line, s.end_line) for s in facts.symbols if s.name == f"f{depth - 1}"] == [
        (innermost, depth, depth + 1)
    ]
    assert len(facts.symbols) == depth + 1
    assert facts.calls == [CallSite(innermost, "g", "g", depth + 1, depth + len("return "))]
    assert facts.diagnostics == []  # Python is only asked where tree-sitter finds an error


def test_scopes_of_classes_and_functions_inside_each_other():
    source = b"""\
class A:
    x = 1

    def m(self):
        y = 2

        class Local:
            z = 3

            def n(self):
                pass

    if flag:
        w = 4

def f():
    v = 5
    def inner():
        pass

u = 6
"""
    assert symbols(source) == [
        ("m.A", SymbolKind.CLASS, 1),
        ("m.A.x", SymbolKind.VARIABLE, 2),
        ("m.A.m", SymbolKind.METHOD, 4),
        ("m.A.m.Local", SymbolKind.CLASS, 7),
        ("m.A.m.Local.z", SymbolKind.VARIABLE, 8),
        ("m.A.m.Local.n", SymbolKind.METHOD, 10),
        ("m.A.w", SymbolKind.VARIABLE, 14),
        ("m.f", SymbolKind.FUNCTION, 16),
        ("m.f.inner", SymbolKind.FUNCTION, 18),
        ("m.u", SymbolKind.VARIABLE, 21),
    ]


# -- wide files ----------------------------------------------------------------------------------


def test_eight_thousand_functions_in_one_file():
    source = "".join(f"def f{i}():\n    return f{i + 1}()\n\n" for i in range(8000)).encode()
    facts = parse_python("m.py", source)
    assert len(facts.symbols) == 8001 and facts.diagnostics == []
    assert facts.calls[0] == CallSite("m.f0", "f1", "m.f1", 2, 11)
    assert facts.calls[-1] == CallSite("m.f7999", "f8000", "f8000", 23999, 11)  # f8000 is not defined
    assert len(facts.calls) == 8000


def test_a_one_megabyte_line():
    source = b"x = f(" + b"a, " * 330_000 + b"a)\n"
    facts = parse_python("m.py", source)
    assert facts.diagnostics == [] and facts.calls == [CallSite("m", "f", "f", 1, 4)]
    [x] = [s for s in facts.symbols if s.qname == "m.x"]
    assert x.signature.endswith("...") and len(x.signature) == 160


# -- the same bytes, the same facts ----------------------------------------------------------------


def test_the_later_of_two_imports_of_a_name_wins_every_time():
    source = b"from b import x\nimport os.path as os\nfrom a import x\nimport os\nx()\nos.f()\n"
    first = parse_python("m.py", source)
    assert first.calls == [
        CallSite("m", "x", "a.x", 5, 0, CallKind.CALL),
        CallSite("m", "os.f", "os.f", 6, 0, CallKind.CALL),
    ]
    assert first.imports == [
        ImportBinding("m", "os", "os.path", 2),
        ImportBinding("m", "os", "os", 4),
        ImportBinding("m", "x", "b.x", 1),
        ImportBinding("m", "x", "a.x", 3),
    ]
    for _ in range(20):  # the tree-sitter binding hands captures back in varying order
        assert parse_python("m.py", source) == first


def test_a_large_file_parses_to_equal_facts_twice():
    source = b"".join(
        b"import m%d\nfrom p import q%d as r\nclass C%d:\n    @d%d\n    def f(self):\n        return r(m%d.g())\n"
        % ((i,) * 5)
        for i in range(300)
    )
    first = parse_python("m.py", source)
    assert parse_python("m.py", source) == first
    assert [c.qualified for c in first.calls[:3]] == ["p.q299", "m0.g", "p.q299"]  # r is bound last to q299
    assert [c.qualified for c in first.calls if c.kind is CallKind.DECORATOR][:2] == ["d0", "d1"]
