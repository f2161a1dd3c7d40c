"""The one place that talks to the tree-sitter binding.

The binding's API moved between releases (captures moved to `QueryCursor` in 0.25), so every
other module goes through these few functions. Queries are data: `.scm` files under
`grammars/<language>/`, compiled once per process. Rows are converted from tree-sitter's
0-based numbering to 1-based lines here and nowhere else.
"""

from __future__ import annotations

from functools import cache

import tree_sitter as ts
import tree_sitter_cpp
import tree_sitter_cuda
import tree_sitter_python

from explorer.folders import GRAMMARS_DIR
from explorer.model import Language
from explorer.stage_clock import stage

Node = ts.Node
Tree = ts.Tree

_GRAMMAR_MODULES = {
    Language.PYTHON: tree_sitter_python,
    Language.CPP: tree_sitter_cpp,
    Language.CUDA: tree_sitter_cuda,
}


@cache
def _language(lang: Language) -> ts.Language:
    return ts.Language(_GRAMMAR_MODULES[lang].language())


@cache
def _parser(lang: Language) -> ts.Parser:
    return ts.Parser(_language(lang))


def parse(lang: Language, source: bytes) -> Tree:
    with stage("tree-sitter parse"):
        return _parser(lang).parse(source)


@cache
def query(lang: Language, *names: str) -> ts.Query:
    """Compile the concatenation of `grammars/<folder>/<name>.scm` files for `lang`.

    A name may say which folder it comes from (`cpp/calls`), so the CUDA grammar, which is a
    superset of C++, reuses the C++ queries and adds its own.
    """
    parts = []
    for name in names:
        folder, _, stem = name.rpartition("/")
        path = GRAMMARS_DIR / (folder or lang.value) / f"{stem}.scm"
        parts.append(path.read_text(encoding="utf-8"))
    return ts.Query(_language(lang), "\n".join(parts))


def captures(q: ts.Query, node: Node) -> dict[str, list[Node]]:
    """Each capture's nodes in document order (outer before inner). The binding's own order
    varies with what the process queried before, and parsers that keep the first of several
    nodes (a namespace reopened) would then depend on which files a worker read earlier."""
    with stage("tree-sitter queries"):
        found = ts.QueryCursor(q).captures(node)
    return {name: sorted(nodes, key=_document_order) for name, nodes in found.items()}


def _document_order(node: Node) -> tuple[int, int]:
    return node.start_byte, -node.end_byte


def line(node: Node) -> int:
    return node.start_point[0] + 1


def end_line(node: Node) -> int:
    """The last line with any of the node in it (a node ending at a line break ends on the
    line before: its end point is column 0 of the next row)."""
    row, column = node.end_point
    return row + 1 if column > 0 or row == node.start_point[0] else row


def text(node: Node | None) -> str:
    """A node's source text ("" for a missing node)."""
    if node is None:
        return ""
    data = node.text  # the binding slices a new bytes object at every read: read it once
    return (
        "" if data is None else data.decode("utf-8", "replace")
    )  # positional: called millions of times, keywords cost


def head(node: Node, end_byte: int) -> str:
    """The node's source text up to `end_byte` (a header before a body)."""
    return (node.text or b"")[: end_byte - node.start_byte].decode("utf-8", errors="replace")


def field(node: Node, name: str) -> Node:
    """A child field that the grammar (or the query that found `node`) guarantees."""
    child = node.child_by_field_name(name)
    if child is None:
        raise ValueError(f"{node.type} at line {line(node)} has no {name}")
    return child
