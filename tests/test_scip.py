"""`explorer scip` on the bundled tree, decoded with the bindings generated from scip.proto.
Every range and relationship below was read off sample_repo (SCIP lines are 0-based)."""

from __future__ import annotations

import pytest

from explorer.scip import scip_pb2
from tests.command_line import invoke
from tests.conftest import write_tree

SAMPLE = "explorer . sample_repo . "


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[scip_pb2.Index, list[str]]:
    written = tmp_path_factory.mktemp("scip") / "index.scip"
    result = invoke(["scip", "-o", str(written)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"wrote {written}: 209 documents, ")
    return scip_pb2.Index.FromString(written.read_bytes()), result.stderr.splitlines()


@pytest.fixture(scope="module")
def index(exported: tuple[scip_pb2.Index, list[str]]) -> scip_pb2.Index:
    return exported[0]


def test_the_export_says_how_far_it_is(exported, sample_root):
    # not a terminal: a line at the start, one every tenth no sooner than 5 s apart, one at the end
    lines = [line for line in exported[1] if not line.startswith("note: ")]
    assert lines[0] == f"exporting {sample_root}: 209 files to read"
    assert lines[-2] == f"exporting {sample_root}: read 209 files; writing the index"
    assert lines[-1].startswith(f"exported {sample_root}: 209 files in ")
    assert all(line.startswith(f"exporting {sample_root}: ") and "/209 files (" in line for line in lines[1:-2])


def test_a_fresh_call_graph_is_taken_every_so_many_files(sample_store, sample_root, monkeypatch):
    from explorer.resolve.graph import CallGraph
    from explorer.scip import index as scip

    made: list[CallGraph] = []

    def graph() -> CallGraph:
        made.append(CallGraph(sample_store, sample_root, "all"))
        return made[-1]

    monkeypatch.setattr(scip, "_FILES_PER_GRAPH", 50)
    done: list[int] = []
    bounded, counts = scip.scip_index(
        sample_store, graph, sample_root, "sample_repo", scip.scip_files(sample_store), done.append
    )
    assert len(made) == 5 and done == list(range(1, 210))  # files 1-49, 50-99, ..., 200-209
    made.clear()
    monkeypatch.setattr(scip, "_FILES_PER_GRAPH", 1000)
    whole, whole_counts = scip.scip_index(
        sample_store, graph, sample_root, "sample_repo", scip.scip_files(sample_store)
    )
    assert len(made) == 1
    # on the bundled tree no reference needs what a caller read by another graph passes
    assert bounded.SerializeToString() == whole.SerializeToString() and counts == whole_counts


def test_only_operators_and_kernels_implement_something(index):
    # a Python function's call of a binding has the binding's edge kind too: it implements
    # nothing (TensorBase#dim() was said to implement init.py's _calculate_fan_in_and_fan_out)
    languages = {d.language for d in index.documents for s in d.symbols if s.relationships}
    assert languages == {"yaml", "cpp", "cuda"}
    assert not [
        s.symbol for d in index.documents if d.relative_path.endswith(".pyi") for s in d.symbols if s.relationships
    ]


def test_every_call_of_a_callee_is_a_reference(index):
    # conv.py:230 and conv.py:239, both `F.conv2d(` in Conv2d._conv_forward (the first call of a
    # callee was the only one before)
    conv2d = SAMPLE + "torch/nn/functional/conv2d."
    assert [list(o.range) for o in document(index, "torch/nn/modules/conv.py").occurrences if o.symbol == conv2d] == [
        [229, 21, 27],
        [238, 17, 23],
    ]


def test_a_call_reached_twice_is_one_reference(index):
    # torch/nn/init.py:54 `tensor.dim()`, `tensor: Tensor`: TensorBase.dim, reached as the
    # tensor's method and as the stub's binding; one occurrence
    assert [
        o.symbol.rsplit(" ", 1)[1] for o in document(index, "torch/nn/init.py").occurrences if o.range[0] == 53
    ] == ["torch/_C/TensorBase#dim()."]


def _references(index: scip_pb2.Index, path: str) -> set[tuple[int, str]]:
    return {(o.range[0], o.symbol) for o in document(index, path).occurrences if not o.symbol_roles}


def _paths(index: scip_pb2.Index) -> list[str]:
    return [d.relative_path for d in index.documents]


def document(index: scip_pb2.Index, path: str) -> scip_pb2.Document:
    return next(d for d in index.documents if d.relative_path == path)


def occurrences(index: scip_pb2.Index, path: str, line: int) -> list[tuple[list[int], str, int]]:
    return sorted(
        (list(o.range), o.symbol, o.symbol_roles) for o in document(index, path).occurrences if o.range[0] == line
    )


def implements(index: scip_pb2.Index, path: str, symbol: str) -> list[str]:
    (information,) = [s for s in document(index, path).symbols if s.symbol == symbol]
    return sorted(r.symbol for r in information.relationships if r.is_implementation)


def test_metadata_and_one_document_per_file_read(index, sample_store):
    assert (index.metadata.tool_info.name, index.metadata.text_document_encoding) == ("explorer", scip_pb2.UTF8)
    assert index.metadata.project_root.startswith("file://") and index.metadata.project_root.endswith("/sample_repo")
    assert sorted(d.relative_path for d in index.documents) == sample_store.project_files()
    assert document(index, "torch/nn/modules/conv.py").language == "python"


def test_definitions_and_references_at_their_names(index):
    # conv.py:243 `    def forward(self, input: Tensor) -> Tensor:` defines Conv2d.forward at columns 8-15;
    # conv.py:244 `        return self._conv_forward(...)` refers to _conv_forward at 20-33
    assert occurrences(index, "torch/nn/modules/conv.py", 242) == [
        ([242, 8, 15], SAMPLE + "torch/nn/modules/conv/Conv2d#forward().", scip_pb2.Definition),
    ]
    assert occurrences(index, "torch/nn/modules/conv.py", 243) == [
        ([243, 20, 33], SAMPLE + "torch/nn/modules/conv/Conv2d#_conv_forward().", 0),
    ]
    # conv.py:230 `            return F.conv2d(`: the alias conv2d = _add_docstr(...) of functional.py:37
    assert ([229, 21, 27], SAMPLE + "torch/nn/functional/conv2d.", 0) in occurrences(
        index, "torch/nn/modules/conv.py", 229
    )
    # Conv_v7.cpp:110 `  AT_CUDNN_CHECK(cudnnConvolutionForward(`: the vendor API, an external symbol
    assert ([109, 17, 40], "explorer . vendor . cudnnConvolutionForward().", 0) in occurrences(
        index, "aten/src/ATen/native/cudnn/Conv_v7.cpp", 109
    )
    assert "explorer . vendor . cudnnConvolutionForward()." in {s.symbol for s in index.external_symbols}


def test_cross_language_edges_are_implementation_relationships(index):
    yaml = "aten/src/ATen/native/native_functions.yaml"
    # native_functions.yaml:74 conv2d binds the two stubs of _VariableFunctions.pyi (lines 14, 16)
    assert implements(index, yaml, SAMPLE + "aten/conv2d().") == [
        SAMPLE + "torch/_C/_VariableFunctions/conv2d().",
        SAMPLE + "torch/_C/_VariableFunctions/conv2d(+1).",
    ]
    # its CompositeImplicitAutograd row names conv2d_symint (Convolution.cpp:173)
    assert implements(index, "aten/src/ATen/native/Convolution.cpp", SAMPLE + "at/native/conv2d_symint().") == [
        SAMPLE + "aten/conv2d()."
    ]
    # `CUDA: cudnn_convolution` names both definitions, each side of an #if: each implements it
    for path, symbol in (
        ("aten/src/ATen/native/cudnn/ConvPlaceholders.cpp", "at/native/cudnn_convolution()."),
        ("aten/src/ATen/native/cudnn/ConvShared.cpp", "at/native/cudnn_convolution(+1)."),
    ):
        assert implements(index, path, SAMPLE + symbol) == [SAMPLE + "aten/cudnn_convolution()."]


def test_a_folder_to_write_to_or_a_missing_under_is_one_line(tmp_path):
    folder = invoke(["scip", "-o", str(tmp_path)])
    assert (folder.exit_code, folder.stderr) == (2, f"error: -o {tmp_path}: a folder; give the file to write\n")
    missing = invoke(["scip", "-o", str(tmp_path / "x.scip"), "--under", "no/such"])
    assert missing.exit_code == 2 and missing.stderr.startswith("error: --under no/such: no such folder in ")
    assert not (tmp_path / "x.scip").exists()


def test_under_a_folder_a_kernel_still_implements_its_operator(tmp_path):
    # the dispatch table is in native_functions.yaml, outside the folder written
    written = tmp_path / "cudnn.scip"
    result = invoke(["scip", "-o", str(written), "--under", "aten/src/ATen/native/cudnn"])
    assert result.exit_code == 0, result.output
    index = scip_pb2.Index.FromString(written.read_bytes())
    assert {d.relative_path.rsplit("/", 1)[0] for d in index.documents} == {"aten/src/ATen/native/cudnn"}
    assert implements(
        index, "aten/src/ATen/native/cudnn/ConvShared.cpp", SAMPLE + "at/native/cudnn_convolution(+1)."
    ) == [
        SAMPLE + "aten/cudnn_convolution().",
    ]


def test_a_definition_whose_calls_nest_past_the_stack_is_left_out_and_counted(sample_store, sample_root, monkeypatch):
    from explorer.resolve.graph import CallGraph
    from explorer.scip.index import scip_files, scip_index

    graph = CallGraph(sample_store, sample_root, "all")
    edges = graph.edges_by_site

    def deep(node):
        if node.symbol.qname == "torch.nn.modules.conv.Conv2d.forward":
            raise RecursionError("maximum recursion depth exceeded")
        return edges(node)

    monkeypatch.setattr(graph, "edges_by_site", deep)
    index, counts = scip_index(
        sample_store, lambda: graph, sample_root, "sample_repo", scip_files(sample_store, "torch/nn/modules")
    )
    assert counts.too_deep == 1
    conv = document(index, "torch/nn/modules/conv.py")
    # its definition stays; its reference to _conv_forward (conv.py:244) is left out, the rest of the file is written
    assert [list(o.range) for o in conv.occurrences if o.range[0] in (242, 243)] == [[242, 8, 15]]
    assert any(
        o.range[0] == 229 and not o.symbol_roles for o in conv.occurrences
    )  # conv.py:230 F.conv2d, from _conv_forward


def test_definitions_read_in_part_are_said_in_a_note(tmp_path, monkeypatch):
    # the solver's limit made small enough for f and g (h calls nothing): their calls are
    # found by name, and the export says so
    from explorer.resolve.flow import solver

    monkeypatch.setattr(solver, "STEPS_PER_START", 3)
    root = write_tree(
        tmp_path / "tree",
        {"m.py": "def h(): pass\n\n\ndef f():\n    h()\n\n\ndef g():\n    fn = h\n    fn()\n    f()\n"},
    )
    result = invoke(["scip", "--root", str(root), "-o", str(tmp_path / "m.scip")])
    assert result.exit_code == 0, result.output
    reason = "its values flow through more code than one query follows (more than 3 steps); its calls are found by name"
    assert result.stderr == (
        f"note: 2 definitions could not be read in full (m.py:4 m.f: {reason}; m.py:8 m.g: {reason}); "
        "some of their calls may be missing\n"
    )
    (document,) = scip_pb2.Index.FromString((tmp_path / "m.scip").read_bytes()).documents
    # h() at m.py:5 and f() at m.py:11; fn() at m.py:10 reaches h, whose name the line does
    # not write: no range to give it
    assert sorted(o.range[0] + 1 for o in document.occurrences if not o.symbol_roles) == [5, 11]


def test_it_writes_over_its_own_index_only(tmp_path):
    mine = tmp_path / "index.scip"
    assert invoke(["scip", "-o", str(mine)]).exit_code == 0
    assert invoke(["scip", "-o", str(mine)]).exit_code == 0  # an index explorer wrote: replaced
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    refused = invoke(["scip", "-o", str(notes)])
    assert (refused.exit_code, refused.stderr) == (
        1,
        f"error: not writing {notes}: it exists and is not a file explorer wrote; remove it or name another file\n",
    )
    assert notes.read_text() == "my notes\n"
    link = tmp_path / "link.scip"
    link.symlink_to(mine)
    assert invoke(["scip", "-o", str(link)]).exit_code == 0
    assert link.is_symlink() and scip_pb2.Index.FromString(mine.read_bytes()).metadata.tool_info.name == "explorer"


def test_a_reference_is_the_call_s_name_not_an_earlier_mention_on_its_line(tmp_path):
    # m.py:6 `    kept = h; y = h(x) + h(y)`: the name h is written three times; the calls at
    # bytes 18 and 25 are the references (the first mention, at 11, is a read, no call). Before,
    # the first mention was taken, and the second call was left out (one edge a line).
    root = write_tree(
        tmp_path / "tree", {"m.py": "def h(x):\n    return x\n\n\ndef g(x, y):\n    kept = h; y = h(x) + h(y)\n"}
    )
    result = invoke(["scip", "--root", str(root), "-o", str(tmp_path / "m.scip")])
    assert result.exit_code == 0, result.output
    (document,) = scip_pb2.Index.FromString((tmp_path / "m.scip").read_bytes()).documents
    assert [list(o.range) for o in document.occurrences if not o.symbol_roles] == [[5, 18, 19], [5, 25, 26]]
