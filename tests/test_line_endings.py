"""A line is what tree-sitter counts: text ended by `\\n`. Form feeds (PEP 8 allows them between
sections), U+2028 in a string and CRLF endings above a definition do not shift what `show`
prints for it, nor what a query reads of it."""

from __future__ import annotations

from explorer.index.files import split_lines
from tests.command_line import invoke
from tests.conftest import write_tree


def test_split_lines_ends_lines_at_newlines_only():
    assert split_lines("a\r\nb\x0cc\u2028d\x85e\ne\n") == ["a", "b\x0cc\u2028d\x85e", "e"]
    assert split_lines("") == [] and split_lines("x") == ["x"] and split_lines("x\n\n") == ["x", ""]


def test_show_prints_the_definitions_own_lines(tmp_path):
    source = 'x = 1\n\x0c\ns = "a\u2028b\x1cc"\ndef g():\r\n    return 2\r\n'
    root = write_tree(tmp_path / "tree", {"m.py": source.encode("utf-8")})
    result = invoke(["show", "m.g", "--root", str(root)])
    assert result.exit_code == 0, result.output
    assert "defined at m.py:4-5 (python)" in result.stdout
    assert "4 def g():" in result.stdout and "5     return 2" in result.stdout
    assert "s = " not in result.stdout and "x = 1" not in result.stdout


def test_a_function_a_multi_line_macro_defines_in_a_crlf_file():
    from explorer.model import Language
    from explorer.parsers import parse_file

    source = "#define DEFINE_FN(name) \\\n__global__ void name() { \\\n  helper(); \\\n}\nDEFINE_FN(alpha)\nvoid beta() { helper(); }\n"
    found = []
    for ending in ("\n", "\r\n"):
        facts = parse_file("m.cu", Language.CUDA, source.replace("\n", ending).encode())
        found.append(
            (
                sorted((s.qname, s.kind.value, s.line) for s in facts.symbols),
                sorted((c.caller, c.callee, c.line) for c in facts.calls),
            )
        )
    assert (
        found[0]
        == found[1]
        == (
            [("DEFINE_FN", "macro", 1), ("alpha", "kernel", 5), ("beta", "function", 6)],
            [("alpha", "helper", 5), ("beta", "helper", 6), ("m.cu", "DEFINE_FN", 5)],
        )
    )
