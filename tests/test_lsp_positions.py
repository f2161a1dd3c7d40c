"""Where a call is, as the editor highlights it (lsp/positions.call_range): a Location's column
counts the line's UTF-8 bytes (the parsers' count), LSP's characters count UTF-16 units."""

from __future__ import annotations

from lsprotocol import types as lsp

from explorer.lsp.positions import call_range
from explorer.parsers.python import parse_python


def highlighted(text: str, place: lsp.Range) -> str:
    assert place.start.line == place.end.line
    return text[place.start.character : place.end.character]


def test_the_callee_is_highlighted_from_the_parser_s_column():
    source = 'def g(x):\n    s = "日本語"; y = F.conv2d(x)\n    return (a + b)(y)\n'
    calls = {site.callee: site for site in parse_python("m.py", source.encode()).calls}
    line = source.splitlines()[1]
    conv = calls["F.conv2d"]
    # 19 characters in, 25 bytes (three characters of three bytes each before it)
    assert (conv.line, conv.column) == (2, 25)
    place = call_range(conv.line, line, conv.column)
    assert (place.start.line, place.start.character, highlighted(line, place)) == (1, 19, "F.conv2d")


def test_a_character_beyond_the_basic_plane_is_two_lsp_units():
    line = 'x = "😀"; torch.relu(x)'
    place = call_range(1, line, len('x = "😀"; '.encode()))
    assert (place.start.character, place.end.character) == (10, 20)  # the emoji counts 2 units
    assert line[9:19] == "torch.relu"


def test_names_of_each_language_are_highlighted_whole():
    for line, column, callee in [
        ("  Tensor out = at::native::add(a, b);", 15, "at::native::add"),
        ("  stream->synchronize();", 2, "stream->synchronize"),
        ("  ::cudaGetLastError();", 2, "::cudaGetLastError"),
        ("@functools.wraps(fn)", 0, "@functools.wraps"),
        ("  kernel<<<grid, block>>>(x);", 2, "kernel"),
    ]:
        assert highlighted(line, call_range(1, line, column)) == callee


def test_without_a_column_or_a_name_at_it_the_whole_line():
    line = "    CUDA: cudnn_convolution"
    assert highlighted(line, call_range(90, line, None)) == line
    line = "    return (a + b)(y)"
    assert highlighted(line, call_range(3, line, line.index("("))) == line


def test_a_call_in_a_chain_reaches_the_name_it_runs():
    # the three calls of the chain all start at `builder` (their column); each is highlighted
    # up to the name of the definition it runs, where the line writes it
    line = "    out = builder().add(x).build()"
    start = line.index("builder")
    assert [highlighted(line, call_range(1, line, start, name)) for name in ("builder", "add", "build")] == [
        "builder",
        "builder().add",
        "builder().add(x).build",
    ]
    # a name the line does not call there (a method reached as `__call__`): the callee written
    line = "        y = self.conv(x)"
    assert highlighted(line, call_range(1, line, line.index("self"), "forward")) == "self.conv"


def test_template_arguments_and_subscripts_are_part_of_the_callee():
    line = "  auto m = std::numeric_limits<int32_t>::max();"
    assert highlighted(line, call_range(1, line, line.index("std"))) == "std::numeric_limits<int32_t>::max"
    line = "        a[0].item()"
    assert highlighted(line, call_range(1, line, 8)) == "a[0].item"
