"""The call graph's C++ edges kept between runs (index/kept_edges.py): read back as they were
worked out, never used for another index or another version of the code, and never an error."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from explorer.analysis.trace import trace_symbol
from explorer.folders import default_index_path
from explorer.index.kept_edges import KeptEdges, decode_edges, encode_edges, kept_edges_path
from explorer.model import Layer
from explorer.resolve.graph import CallGraph
from tests.command_line import invoke
from tests.conftest import touch_later, write_tree


def _native_nodes_reached(graph: CallGraph, queries: list[str], store) -> list:
    """Every node within reach of the queries' definitions whose edges the C++ rules give:
    operators, C++ functions, and the callables handed to them (nodes with `passed`)."""
    from explorer.names.lookup import look_up

    seen: dict[tuple, object] = {}
    frontier = [graph.node(symbol) for query in queries for symbol in look_up(store, query).symbols]
    while frontier:
        node = frontier.pop()
        if node.key in seen:
            continue
        seen[node.key] = node
        frontier.extend(edge.target for edge in graph.edges(node))
    return [node for node in seen.values() if node.layer not in (Layer.PYTHON, Layer.BINDING)]


def test_every_native_nodes_edges_read_back_equal(sample_store, sample_root):
    graph = CallGraph(sample_store, sample_root, "all")
    nodes = _native_nodes_reached(
        graph, ["torch.nn.Conv2d", "torch.nn.LSTM", "torch.add", "torch.nn.Linear"], sample_store
    )
    assert len(nodes) == 220  # the bundled tree's, as it is: a count that moves says the walk changed
    assert sum(bool(node.passed) for node in nodes) == 1  # a function handed callables
    assert any(edge.resolution == "ambiguous" and edge.candidates for node in nodes for edge in graph.edges(node))
    assert any(edge.dispatch_key for node in nodes for edge in graph.edges(node))
    for node in nodes:
        edges = graph.edges(node)
        assert decode_edges(encode_edges(edges)) == edges, node.symbol.qname


def test_a_second_run_reads_the_edges_the_first_worked_out(sample_store, sample_root, tmp_path):
    path = tmp_path / "index.sqlite.edges"
    kept = KeptEdges.open(path, "generation one")
    assert kept is not None
    first = trace_symbol(sample_store, sample_root, "torch.nn.Conv2d", to="cudnnConvolutionForward", kept=kept)
    kept.close()
    assert (kept.hits, kept.misses) == (0, 108)  # every native node the trace expanded, worked out once
    worked_out = kept.misses

    again = KeptEdges.open(path, "generation one")
    assert again is not None
    statements: list[str] = []
    again._db.set_trace_callback(statements.append)
    second = trace_symbol(sample_store, sample_root, "torch.nn.Conv2d", to="cudnnConvolutionForward", kept=again)
    again.close()
    assert (again.hits, again.misses) == (worked_out, 0)
    # read a level of the breadth-first walk at a time, never one query per node
    reads = [
        statement for statement in statements if statement.startswith("SELECT node, edges FROM edges WHERE node IN")
    ]
    assert not [statement for statement in statements if "WHERE node = " in statement]
    assert 0 < len(reads) < worked_out // 5
    assert second.trace.paths == first.trace.paths
    assert second.trace.paths_found == first.trace.paths_found

    # another generation (another index, other code) starts empty
    other = KeptEdges.open(path, "generation two")
    assert other is not None
    third = trace_symbol(sample_store, sample_root, "torch.nn.Conv2d", to="cudnnConvolutionForward", kept=other)
    other.close()
    assert (other.hits, other.misses) == (0, worked_out)
    assert third.trace.paths == first.trace.paths


_TREE = {
    "calls.cpp": ("void leaf_one() {}\nvoid leaf_two() {}\nvoid middle() { leaf_one(); }\nvoid top() { middle(); }\n"),
}


def test_an_edited_source_is_never_answered_from_edges_kept_before(tmp_path):
    root = write_tree(tmp_path / "tree", _TREE)
    before = invoke(["trace", "top", "--to", "leaf_two", "--root", str(root)])
    assert before.exit_code == 1 and "no path from top to leaf_two" in before.output
    kept = kept_edges_path(default_index_path(str(root)))
    with sqlite3.connect(kept) as connection:
        assert connection.execute("SELECT count(*) FROM edges").fetchone()[0] == 3  # top, middle, leaf_one
    (root / "calls.cpp").write_text(
        _TREE["calls.cpp"].replace("void middle() { leaf_one(); }", "void middle() { leaf_two(); }")
    )
    touch_later(root / "calls.cpp")
    after = invoke(["trace", "top", "--to", "leaf_two", "--root", str(root)])
    assert after.exit_code == 0, after.output
    assert [line.split()[2] for line in after.stdout.splitlines() if line.startswith("  ")] == [
        "top",
        "middle",
        "leaf_two",
    ]


def test_a_damaged_or_unwritable_cache_only_costs_the_work_again(tmp_path):
    root = write_tree(tmp_path / "tree", _TREE)
    first = invoke(["trace", "top", "--to", "leaf_one", "--root", str(root)])
    assert first.exit_code == 0
    kept = kept_edges_path(default_index_path(str(root)))
    kept.write_bytes(b"this is not a database" * 100)
    for suffix in ("-wal", "-shm"):
        Path(f"{kept}{suffix}").unlink(missing_ok=True)
    damaged = invoke(["trace", "top", "--to", "leaf_one", "--root", str(root)])
    assert (damaged.exit_code, damaged.stdout, damaged.stderr) == (0, first.stdout, "")
    with sqlite3.connect(kept) as connection:  # made again: top and middle (a path ends at its match)
        assert connection.execute("SELECT count(*) FROM edges").fetchone()[0] == 2

    # a row that is not what explorer wrote: the cache is set aside for the run, the answer stays
    with sqlite3.connect(kept) as connection:
        connection.execute("UPDATE edges SET edges = '[1, 2'")
    garbled = invoke(["trace", "top", "--to", "leaf_one", "--root", str(root)])
    assert (garbled.exit_code, garbled.stdout, garbled.stderr) == (0, first.stdout, "")


def test_a_cache_that_cannot_be_opened_is_no_cache(tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    assert KeptEdges.open(blocked / "index.sqlite.edges", "generation") is None  # its folder is a file
