"""What the language server finds at a position, read from the index of a small tree."""

from __future__ import annotations

import os
from pathlib import Path

from explorer.analysis.at_position import symbols_at
from explorer.index.build import refresh
from explorer.index.store import IndexStore
from explorer.lsp.positions import path_of
from explorer.names import lookup as lookup_module
from explorer.resolve.graph import CallGraph
from tests.conftest import write_tree

SOURCE = (
    "def relu(x):\n    return x\ndef leaky_relu(x):\n    return x\ndef use(x):\n    return relu(x) + leaky_relu(x)\n"
)


def test_a_called_name_means_the_definition_of_that_name_not_one_ending_in_it(tmp_path: Path):
    root = write_tree(tmp_path / "tree", {"pkg/__init__.py": SOURCE})
    refresh(str(root), tmp_path / "index.sqlite", jobs=1)
    store = IndexStore.open(tmp_path / "index.sqlite")
    try:
        graph = CallGraph(store, str(root))
        line = SOURCE.splitlines()[5]
        on_relu = symbols_at(graph, store, "pkg/__init__.py", 6, line, line.index("relu(x)") + 1)
        on_leaky = symbols_at(graph, store, "pkg/__init__.py", 6, line, line.index("leaky_relu") + 1)
    finally:
        store.close()
    assert [(s.qname, s.path, s.line) for s in on_relu] == [("pkg.relu", "pkg/__init__.py", 1)]
    assert [(s.qname, s.path, s.line) for s in on_leaky] == [("pkg.leaky_relu", "pkg/__init__.py", 3)]


def test_a_document_opened_through_a_link_to_the_tree_is_in_the_tree(tmp_path: Path):
    root = write_tree(tmp_path / "tree", {"pkg/mod.py": "x = 1\n"})
    os.symlink(root, tmp_path / "link")
    assert path_of((tmp_path / "link" / "pkg" / "mod.py").as_uri(), str(root.resolve())) == "pkg/mod.py"
    assert path_of("untitled:Untitled-1", str(root)) is None


def test_a_word_that_names_nothing_finds_nothing_without_working_out_suggestions(tmp_path: Path, monkeypatch):
    root = write_tree(tmp_path / "tree", {"pkg/__init__.py": SOURCE})
    refresh(str(root), tmp_path / "index.sqlite", jobs=1)
    asked: list[str] = []
    monkeypatch.setattr(lookup_module, "suggestions", lambda store, query, count=5: asked.append(query) or [])
    store = IndexStore.open(tmp_path / "index.sqlite")
    try:
        line = "    return x + undefined_name"
        found = symbols_at(CallGraph(store, str(root)), store, "pkg/__init__.py", 4, line, line.index("undefined") + 1)
    finally:
        store.close()
    assert (found, asked) == ([], [])
