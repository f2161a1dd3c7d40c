"""Valid Python the tree-sitter grammar cannot read, written so that it can, by libcst.

tree-sitter's Python grammar has gaps: it takes a starred parenthesised or bracketed value in
a bare tuple for an error (`return *(f(x)), *rest`, `host, *rest = endpoint, *[]`, both in
PyTorch 2.4), and the facts of that statement (its calls, what flows where) would be lost.
libcst reads Python exactly. Where tree-sitter stopped in a file Python accepts, libcst
parses the file, and each bare tuple with a starred element in the statements tree-sitter
stopped in is put in brackets, which changes nothing it means; tree-sitter reads the result
and the facts come from it as from any other file.

Nothing moves: the bracket opening the tuple takes the place of the space before it
(`return *a, *b` -> `return(*a, *b)`), the closing one the place of the space after it or
the end of its line, so every line and column stays where the file has it (call sites
point into the file as written). Where a bracket has no such place (`x=a, *(b)`), the file
is left as it is, indexed in part, and reported as before.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer import treesitter as tsx
from explorer.model import Language

_ERROR_LINES_KEPT = 64  # past this many errors the file is no gap in the grammar but a broken file


@dataclass(frozen=True, slots=True, order=True)
class _Insertion:
    line: int  # 1-based
    column: int  # in characters, as libcst counts them
    text: str
    replaces: bool = True  # the space at the column, or else goes before it


def repaired(source: bytes, tree: tsx.Tree) -> tuple[bytes, tsx.Tree] | None:
    """The file with its grammar's gaps bridged and tree-sitter's tree of it, or None where
    libcst cannot read the file, there is nothing to bridge, or tree-sitter still stops. The
    facts are read from the bridged text: the tree's offsets are into it."""
    stopped = _error_lines(tree.root_node)
    if not stopped or len(stopped) > _ERROR_LINES_KEPT:
        return None
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError:
        return None
    insertions = _bracketed_tuples(text, stopped)
    if not insertions:
        return None
    bridged_source = _inserted(text, insertions).encode("utf-8")
    bridged = tsx.parse(Language.PYTHON, bridged_source)
    return None if bridged.root_node.has_error else (bridged_source, bridged)


def _error_lines(root: tsx.Node) -> set[int]:
    """The lines of every place tree-sitter stopped at."""
    lines: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            lines.update(range(tsx.line(node), tsx.end_line(node) + 1))
        elif node.has_error:
            stack.extend(node.children)
    return lines


def _bracketed_tuples(text: str, stopped: set[int]) -> list[_Insertion]:
    """Where brackets go: around each bare tuple with a starred element that is a value (an
    assignment's target `a, *b = ...` reads as it is) on the lines tree-sitter stopped at."""
    # libcst is a fifth of a second to import: only a file with a gap pays it
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    from explorer.parsers.python_libcst import UnreadableSource, parse_module

    try:
        module = parse_module(text)
        positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    except (UnreadableSource, RecursionError):  # its metadata walk recurses, a level per level of nesting
        return []
    targets = {id(node.target) for node in positions if isinstance(node, (cst.AssignTarget, cst.For, cst.CompFor))}
    lines = text.split("\n")
    insertions: list[_Insertion] = []
    for node, where in positions.items():
        if (
            not isinstance(node, cst.Tuple)
            or node.lpar
            or id(node) in targets
            or not any(isinstance(element, cst.StarredElement) for element in node.elements)
            or not stopped.intersection(range(where.start.line, where.end.line + 1))
        ):
            continue
        start, end = where.start, where.end
        first, last = lines[start.line - 1], lines[end.line - 1]
        if not first[start.column :].startswith(module.code_for_node(node).split("\n", 1)[0]):
            return []  # libcst counts lines or columns otherwise than here (a lone carriage return)
        before, after = first[: start.column], last[end.column :]
        if not (before[-1:] in (" ", "\t") and before.strip()) or not (after.strip() == "" or after[0] in " \t"):
            return []  # a bracket would move what follows it on the line: the file stays as it is
        insertions.append(_Insertion(start.line, start.column - 1, "("))
        insertions.append(_Insertion(end.line, end.column, ")", replaces=after[:1] in (" ", "\t")))
    return insertions


def _inserted(text: str, insertions: list[_Insertion]) -> str:
    """The text with each bracket in place, right to left on each line so that the columns
    still to come are those libcst gave."""
    lines = text.split("\n")
    for insertion in sorted(insertions, reverse=True):
        line = lines[insertion.line - 1]
        rest = insertion.column + 1 if insertion.replaces else insertion.column
        lines[insertion.line - 1] = line[: insertion.column] + insertion.text + line[rest:]
    return "\n".join(lines)
