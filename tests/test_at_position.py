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


CALLED_THROUGH_NAMES = """import functional as F


class A:
    def run(self, x):
        return x

    def __call__(self, x):
        return x


def f():
    a = A()
    go = a.run
    go(1)
    a(2)
    act = F.relu
    act(3)
    return a.run(4)
"""


def test_a_name_a_call_is_made_through_means_what_the_call_runs(tmp_path: Path):
    # Before, each of these was looked up by its own name (`go`, `a`, `act`) and found nothing:
    # the call graph's edges were matched by the name of what they lead to alone.
    root = write_tree(
        tmp_path / "tree",
        {"m.py": CALLED_THROUGH_NAMES, "functional.py": "def relu(x):\n    return x\n"},
    )
    refresh(str(root), tmp_path / "index.sqlite", jobs=1)
    store = IndexStore.open(tmp_path / "index.sqlite")
    lines = CALLED_THROUGH_NAMES.splitlines()
    try:
        graph = CallGraph(store, str(root))
        found = {
            (line, word): [
                (s.qname, s.path, s.line)
                for s in symbols_at(graph, store, "m.py", line, lines[line - 1], lines[line - 1].index(word) + 1)
            ]
            for line, word in ((15, "go"), (16, "a"), (18, "act"), (19, "run"))
        }
    finally:
        store.close()
    assert found == {
        (15, "go"): [("m.A.run", "m.py", 5)],  # a bound method held in a local: the method
        (16, "a"): [("m.A", "m.py", 4)],  # an object called (A.__call__ runs): its class
        (18, "act"): [("functional.relu", "functional.py", 1)],  # a function held in a local
        (19, "run"): [("m.A.run", "m.py", 5)],  # the callee's own name, as before
    }


def test_a_name_in_python_is_not_looked_up_among_cpp_definitions(tmp_path: Path):
    # `self.dropout(x)` on an attribute a parameter set: nothing says what it holds, and the
    # name alone found the C++ data member `Options::dropout` (as `self.out_proj` in PyTorch's
    # benchmarks/transformer/sdp.py found MultiheadAttentionImpl::out_proj). A Python name
    # reaches C++ only through a binding; a C++ name never reaches Python.
    python = "class Block:\n    def __init__(self, dropout):\n        self.dropout = dropout\n\n    def forward(self, x):\n        return self.dropout(x)\n"
    cpp = "struct Options {\n  double dropout;\n};\n\nint forward(int x) {\n  return helper(x);\n}\n"
    root = write_tree(
        tmp_path / "tree", {"m.py": python, "options.h": cpp, "helper.py": "def helper(x):\n    return x\n"}
    )
    refresh(str(root), tmp_path / "index.sqlite", jobs=1)
    store = IndexStore.open(tmp_path / "index.sqlite")
    try:
        graph = CallGraph(store, str(root))
        py_line, cpp_line = python.splitlines()[5], cpp.splitlines()[5]
        in_python = symbols_at(graph, store, "m.py", 6, py_line, py_line.index("dropout") + 1)
        in_cpp = symbols_at(graph, store, "options.h", 6, cpp_line, cpp_line.index("helper") + 1)
    finally:
        store.close()
    # helper, called in C++, is only a Python function's name
    assert ([s.qname for s in in_python], [s.qname for s in in_cpp]) == ([], [])


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
