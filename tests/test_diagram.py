"""Diagrams of traces and callers/callees: what the DOT says (read back by graphviz itself),
what the SVG holds, how folding and collapsing shape a graph, and the CLI's files and errors."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import pytest

from explorer.analysis.neighbours import neighbours_of
from explorer.analysis.trace import trace_symbol
from explorer.diagram.build import neighbours_diagram, trace_diagram
from explorer.diagram.fold import collapse_layers, fold_widest, only_paths
from explorer.diagram.model import MORE, Diagram, DiagramEdge, DiagramNode, Emphasis
from explorer.model import Layer
from explorer.render.dot import LAYER_STYLES, PATH_COLOUR, to_dot
from explorer.render.links import LinkTemplate
from tests.command_line import invoke

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz's dot program is not installed")

CONV2D_PATH = [
    "Conv2d",
    "Module.__call__",
    "Module._wrapped_call_impl",
    "Module._call_impl",
    "Conv2d.forward",
    "Conv2d._conv_forward",
    "conv2d",
    "_VariableFunctions.conv2d",
    "aten::conv2d",
    "conv2d_symint",
    "aten::convolution",
    "convolution",
    "aten::_convolution",
    "_convolution",
    "aten::cudnn_convolution",
    "cudnn_convolution",
    "cudnn_convolution_forward_out",
    "raw_cudnn_convolution_forward_out",
    "split_batch_dim_to_32bit_out",
    "raw_cudnn_convolution_forward_out_32bit",
    "cudnnConvolutionForward",
]


@pytest.fixture(scope="module")
def conv2d(sample_store, sample_root) -> Diagram:
    report = trace_symbol(sample_store, sample_root, "torch.nn.Conv2d", to="cudnnConvolutionForward")
    return trace_diagram(report)


def laid_out(dot_source: str) -> dict:
    """The DOT as graphviz reads it: `dot -Tjson` names every cluster, node and edge."""
    finished = subprocess.run(["dot", "-Tjson"], input=dot_source.encode(), capture_output=True, check=True)
    return json.loads(finished.stdout)


def names_by_id(diagram: Diagram) -> dict[str, str]:
    return {node.id: node.name for node in diagram.nodes}


# -- building --------------------------------------------------------------------------------


def test_trace_with_to_highlights_both_paths_and_keeps_the_rest_faint(conv2d):
    names = names_by_id(conv2d)
    path_edges = [(names[e.source], names[e.target], e.kind) for e in conv2d.edges if e.emphasis is Emphasis.PATH]
    assert path_edges[:20] == [
        (a, b, kind)
        for a, b, kind in zip(
            CONV2D_PATH,
            CONV2D_PATH[1:],
            [
                "method",
                "alias",
                "method",
                "method",
                "method",
                "call",
                "alias",
                "binding",
                "dispatch:CompositeImplicitAutograd",
                "call",
                "dispatch:CompositeExplicitAutograd",
                "call",
                "dispatch:CompositeExplicitAutograd",
                "call",
                "dispatch:CUDA",
                "call",
                "call",
                "call",
                "fnptr",
                "call",
            ],
        )
    ]
    assert path_edges[20:] == [  # the conv2d.padding overload, which calls aten::conv2d
        ("_VariableFunctions.conv2d", "aten::conv2d.padding", "binding"),
        ("aten::conv2d.padding", "conv2d_padding_symint", "dispatch:CompositeImplicitAutograd"),
        ("conv2d_padding_symint", "aten::conv2d", "call"),
    ]
    context = [n.name for n in conv2d.nodes if n.emphasis is Emphasis.CONTEXT]
    # (Convolution.cpp:221's `auto& ctx = at::globalContext()` makes ctx.deterministicCuDNN() and
    # three more Context.h methods context; Conv_v7.cpp's args.idesc.desc() is Descriptor::desc)
    assert len(conv2d.nodes) == 49 and len(context) == 26
    # `_pair = _ntuple(2)`: calling _pair runs the `parse` that _ntuple returned, shown as _pair
    assert {"pad", "_pair", "select_conv_backend", "getCudnnHandle", "aten::_slow_conv2d_forward"} <= set(context)
    start = conv2d.node(conv2d.root)
    assert (start.qname, start.start, start.path, start.line) == (
        "torch.nn.modules.conv.Conv2d",
        True,
        "torch/nn/modules/conv.py",
        187,
    )
    assert [n.name for n in conv2d.nodes if n.matched] == ["cudnnConvolutionForward"]


def test_only_paths_leaves_the_paths(conv2d):
    kept = only_paths(conv2d)
    assert [n.name for n in kept.nodes] == [*CONV2D_PATH, "aten::conv2d.padding", "conv2d_padding_symint"]
    assert len(kept.edges) == 23


def test_callers_diagram_draws_arrows_from_caller_to_callee(sample_store, sample_root):
    report = neighbours_of(sample_store, sample_root, "cudnnConvolutionForward", "callers", 3)
    diagram = neighbours_diagram(report)
    names = names_by_id(diagram)
    assert diagram.upward
    assert [(names[e.source], names[e.target], e.kind) for e in diagram.edges] == [
        ("raw_cudnn_convolution_forward_out_32bit", "cudnnConvolutionForward", "call"),
        ("split_batch_dim_to_32bit_out", "raw_cudnn_convolution_forward_out_32bit", "fnptr"),
        ("raw_cudnn_convolution_forward_out", "split_batch_dim_to_32bit_out", "call"),
    ]


# -- folding ---------------------------------------------------------------------------------


def _node(node_id: str, emphasis: Emphasis = Emphasis.NORMAL) -> DiagramNode:
    return DiagramNode(node_id, node_id, f"q.{node_id}", Layer.CPP, "function", f"{node_id}.cpp", 1, emphasis=emphasis)


def _graph(edges: list[tuple[str, str]], path: set[str] = frozenset(), upward: bool = False) -> Diagram:  # type: ignore[assignment]
    ids = list(dict.fromkeys(node for edge in edges for node in edge))
    nodes = tuple(_node(i, Emphasis.PATH if i in path else Emphasis.NORMAL) for i in ids)
    made = tuple(
        DiagramEdge(a, b, "call", Emphasis.PATH if a in path and b in path else Emphasis.NORMAL) for a, b in edges
    )
    return Diagram("t", nodes, made, ids[0] if not upward else edges[0][1], upward)


def test_fold_takes_the_widest_fan_out_first_and_counts_what_it_hides():
    # r -> a -> (a1..a5); r -> b -> b1 -> b2: 10 nodes; a's five children fold first.
    edges = [("r", "a"), ("r", "b"), ("b", "b1"), ("b1", "b2")] + [("a", f"a{i}") for i in range(1, 6)]
    folded = fold_widest(_graph(edges), 6)
    assert [n.id for n in folded.nodes] == ["r", "a", "b", "b1", "b2", "m0"]
    more = folded.node("m0")
    assert (more.kind, more.name, more.members) == (MORE, "+5 more", ("q.a1", "q.a2", "q.a3", "q.a4", "q.a5"))
    assert ("a", "m0") in [(e.source, e.target) for e in folded.edges]


def test_a_shared_child_is_folded_once_under_one_owner_and_a_path_is_never_folded():
    # s is called by both a and b; the walk meets it from b, a path node, first. The path
    # r -> b -> t stays whatever the budget.
    edges = [("r", "a"), ("r", "b"), ("a", "s"), ("b", "s"), ("a", "x"), ("b", "t"), ("s", "s1")]
    folded = fold_widest(_graph(edges, path={"r", "b", "t"}), 2)
    assert [n.id for n in folded.nodes if n.kind != MORE] == ["r", "b", "t"]
    # Equal widths: the deeper fan-out first.
    assert [(n.id, n.members) for n in folded.nodes if n.kind == MORE] == [
        ("m0", ("q.s", "q.s1")),
        ("m1", ("q.a", "q.x")),
    ]
    assert [(e.source, e.target) for e in folded.edges] == [("r", "b"), ("b", "t"), ("b", "m0"), ("r", "m1")]


def test_fold_stops_near_the_budget_rather_than_far_below_it():
    # A chain r -> c1 -> ... -> c9 with one wide node at the end: folding the chain's head
    # would leave 2 nodes; the fold of the wide end leaves the asked-for 12.
    edges = [("r", "c1")] + [(f"c{i}", f"c{i + 1}") for i in range(1, 9)] + [("c9", f"w{i}") for i in range(8)]
    folded = fold_widest(_graph(edges), 12)
    assert len(folded.nodes) == 11
    assert [n.name for n in folded.nodes if n.kind == MORE] == ["+8 more"]


def test_fold_on_a_callers_diagram_follows_edges_backwards():
    edges = [("c1", "root"), ("c2", "root"), ("c3", "c1"), ("c4", "c1"), ("c5", "c1")]
    folded = fold_widest(_graph(edges, upward=True), 4)
    assert [(e.source, e.target) for e in folded.edges] == [("c1", "root"), ("c2", "root"), ("m0", "c1")]


def test_collapse_folds_a_layer_into_one_node_per_file(conv2d):
    collapsed = collapse_layers(conv2d, {Layer.CPP})
    files = [(n.name, n.note) for n in collapsed.nodes if n.kind == "file"]
    assert files == [
        ("Convolution.cpp", "8 definitions"),
        ("ConvShared.cpp", "4 definitions"),
        ("Conv_v7.cpp", "5 definitions"),
        ("SymInt.h", "2 definitions"),
        ("Context.cpp", "1 definition"),
        ("Context.h", "4 definitions"),
        ("ConvUtils.h", "2 definitions"),
        ("ConvPlaceholders.cpp", "1 definition"),
        ("Handle.cpp", "1 definition"),
        ("Descriptors.h", "1 definition"),
    ]
    assert len(collapsed.nodes) == 30
    assert all(e.source != e.target for e in collapsed.edges)
    names = names_by_id(collapsed)
    assert ("aten::_convolution", "Convolution.cpp", "dispatch:CompositeExplicitAutograd") in [
        (names[e.source], names[e.target], e.kind) for e in collapsed.edges
    ]


# -- DOT and SVG -------------------------------------------------------------------------------


def test_dot_is_byte_identical_across_runs(sample_store, sample_root, conv2d):
    links = LinkTemplate.parse(None, sample_root)
    again = trace_diagram(trace_symbol(sample_store, sample_root, "torch.nn.Conv2d", to="cudnnConvolutionForward"))
    assert to_dot(conv2d, links) == to_dot(again, links)


@needs_dot
def test_dot_of_paths_draws_the_first_as_a_spine_with_labels_and_highlighted_edges(conv2d, sample_root):
    links = LinkTemplate.parse("https://github.com/pytorch/pytorch/blob/v2.4.0/{file}#L{line}", sample_root)
    graph = laid_out(to_dot(conv2d, links))
    objects = graph["objects"]
    # paths: no box per layer (a path crossing them twenty times would bend round each); the
    # layer is the node's colour, and the legend says which
    assert [o["name"] for o in objects if o["name"].startswith("cluster_")] == ["cluster_legend"]
    by_name = {conv2d.node(o["name"]).name: o for o in objects if o["name"].startswith("n")}
    assert (
        by_name["Conv2d"]["fillcolor"],
        by_name["aten::conv2d"]["fillcolor"],
        by_name["conv2d_symint"]["fillcolor"],
    ) == (LAYER_STYLES[Layer.PYTHON].fill, LAYER_STYLES[Layer.YAML].fill, LAYER_STYLES[Layer.CPP].fill)
    # the first path listed is one group, its hops heavy edges: graphviz draws it straight down
    spine = [o for o in objects if o.get("group") == "spine"]
    assert sorted(conv2d.node(o["name"]).name for o in spine) == sorted(CONV2D_PATH)
    name_of = {o["_gvid"]: conv2d.node(o["name"]).name for o in objects if o["name"].startswith("n")}
    heavy = [(name_of[e["tail"]], name_of[e["head"]]) for e in graph["edges"] if e.get("weight") == "20"]
    assert sorted(heavy) == sorted(itertools.pairwise(CONV2D_PATH))
    assert len({round(float(o["pos"].split(",")[0])) for o in spine}) == 1  # one column: the line is straight
    conv = by_name["Conv2d"]
    assert conv["tooltip"] == "torch.nn.modules.conv.Conv2d"
    assert conv["URL"] == "https://github.com/pytorch/pytorch/blob/v2.4.0/torch/nn/modules/conv.py#L187"
    assert conv["label"] == '<b>Conv2d</b><br/><font point-size="9" color="#555555">torch/nn/modules/conv.py:187</font>'
    assert (conv["shape"], by_name["aten::conv2d"]["shape"], by_name["cudnnConvolutionForward"]["shape"]) == (
        "box3d",
        "box",
        "cylinder",
    )
    assert by_name["cudnnConvolutionForward"]["peripheries"] == "2"
    assert "URL" not in by_name["cudnnConvolutionForward"]  # no source to link to
    labelled = {
        (name_of[e["tail"]], name_of[e["head"]]): e
        for e in graph["edges"]
        if e["tail"] in name_of and e["head"] in name_of
    }
    assert labelled[("aten::cudnn_convolution", "cudnn_convolution")]["label"] == " CUDA ? "
    assert labelled[("aten::conv2d", "conv2d_symint")]["label"] == " CompositeImplicitAutograd "
    assert labelled[("Module.__call__", "Module._wrapped_call_impl")]["label"] == " alias "
    assert labelled[("Conv2d.forward", "Conv2d._conv_forward")].get("label", "") == ""  # a plain call
    pointer = labelled[("split_batch_dim_to_32bit_out", "raw_cudnn_convolution_forward_out_32bit")]
    assert (pointer["label"], pointer["style"], pointer["color"]) == (" fnptr ", "dashed", PATH_COLOUR)
    red = [(name_of[e["tail"]], name_of[e["head"]]) for e in graph["edges"] if e.get("color") == PATH_COLOUR]
    assert sorted(red) == sorted(
        [
            *itertools.pairwise(CONV2D_PATH),
            ("_VariableFunctions.conv2d", "aten::conv2d.padding"),
            ("aten::conv2d.padding", "conv2d_padding_symint"),
            ("conv2d_padding_symint", "aten::conv2d"),
        ]
    )
    assert labelled[("_convolution", "select_conv_backend")]["color"] == "#c9c9c9"  # faint


def test_dot_of_a_tree_boxes_each_layer(sample_store, sample_root):
    report = trace_symbol(sample_store, sample_root, "torch.nn.Conv2d", max_depth=12)
    graph = laid_out(to_dot(trace_diagram(report), LinkTemplate.parse(None, sample_root)))
    clusters = {o["name"]: o for o in graph["objects"] if o["name"].startswith("cluster_")}
    assert list(clusters)[:4] == ["cluster_python", "cluster_binding", "cluster_yaml", "cluster_cpp"]
    assert list(clusters)[-1] == "cluster_legend"
    assert [clusters[c]["label"] for c in list(clusters)[:4]] == [
        "Python (torch.nn, functional)",
        "Bindings (torch._C)",
        "Operators (native_functions.yaml)",
        "ATen C++",
    ]
    assert not any(o.get("group") for o in graph["objects"])


@needs_dot
def test_svg_holds_named_nodes_tooltips_and_links(tmp_path, sample_root):
    result = invoke(
        [
            "trace",
            "torch.nn.Conv2d",
            "--to",
            "cudnnConvolutionForward",
            "--format",
            "svg",
            "-o",
            str(tmp_path / "conv2d.svg"),
        ]
    )
    assert result.exit_code == 0, result.output
    # the two paths alone (21 hops, and conv2d.padding's 2 beside them): 23 nodes, 23 edges
    assert result.stdout == f"wrote {tmp_path / 'conv2d.svg'} (23 nodes, 23 edges)\n"
    svg = ElementTree.parse(tmp_path / "conv2d.svg").getroot()
    ns = {"svg": "http://www.w3.org/2000/svg", "xlink": "http://www.w3.org/1999/xlink"}
    nodes = {g.get("id"): g for g in svg.iterfind(".//svg:g[@class='node']", ns)}
    assert len([i for i in nodes if i.startswith("n")]) == 23
    texts = [t.text for t in nodes["n0"].iterfind(".//svg:text", ns)]
    assert texts == ["Conv2d", "torch/nn/modules/conv.py:187"]
    anchor = nodes["n0"].find(".//svg:a", ns)
    assert anchor.get(f"{{{ns['xlink']}}}title") == "torch.nn.modules.conv.Conv2d"
    assert anchor.get(f"{{{ns['xlink']}}}href") == "file://" + os.path.join(
        os.path.abspath(sample_root), "torch/nn/modules/conv.py"
    )
    width, height = (float(svg.get(side).removesuffix("pt")) for side in ("width", "height"))
    assert width < 1000 and height < 2000  # a column a screen wide, not 11,000 pixels across
    context = cli(
        "trace",
        "torch.nn.Conv2d",
        "--to",
        "cudnnConvolutionForward",
        "--format",
        "svg",
        "--context",
        "-o",
        str(tmp_path / "c.svg"),
    )
    assert (
        context.stdout == f"wrote {tmp_path / 'c.svg'} (49 nodes, 56 edges)\n"
    )  # and, faint, what each hop calls besides


# -- the command line --------------------------------------------------------------------------


def cli(*args: str):
    result = invoke(list(args))
    assert "Traceback" not in result.output
    return result


def test_dot_goes_to_stdout_and_is_the_same_twice():
    first = cli("trace", "torch.nn.Conv2d", "--to", "cudnnConvolutionForward", "--format", "dot")
    second = cli("trace", "torch.nn.Conv2d", "--to", "cudnnConvolutionForward", "--format", "dot")
    assert first.exit_code == 0 and first.stdout == second.stdout
    assert first.stdout.startswith(
        "// torch.nn.modules.conv.Conv2d to cudnnConvolutionForward (backend cuda)\ndigraph explorer {"
    )


@needs_dot
def test_without_o_a_file_named_after_the_symbol_is_written_here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli("callers", "cudnnConvolutionForward", "--depth", "2", "--format", "png")
    assert result.exit_code == 0
    assert result.stdout == "wrote cudnnConvolutionForward.callers.png (3 nodes, 2 edges)\n"
    assert (tmp_path / "cudnnConvolutionForward.callers.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir()] == ["cudnnConvolutionForward.callers.png"]


def test_max_nodes_and_only_paths_shape_the_cli_output():
    folded = cli(
        "trace",
        "torch.nn.Conv2d",
        "--to",
        "cudnnConvolutionForward",
        "--format",
        "dot",
        "--max-nodes",
        "20",
        "--context",
    )
    assert folded.stdout.count("more</b>") == 5  # convolution's Context methods fold into a box of their own
    paths = cli("trace", "torch.nn.Conv2d", "--to", "cudnnConvolutionForward", "--format", "dot")
    assert paths.stdout.count("<b>") - 1 == 23  # every node, and the legend's title
    assert (
        cli("trace", "torch.nn.Conv2d", "--to", "cudnnConvolutionForward", "--format", "dot", "--only-paths").stdout
        == paths.stdout
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "svg", "--json"], "--json prints the trace as JSON; it does not combine with --format svg"),
        (["--format", "gif"], "unknown --format 'gif'; one of: tree, dot, svg, png, html"),
        (["-o", "x.svg"], "-o writes a diagram: add --format dot, svg, png or html"),
        (["--format", "dot", "--only-paths"], "--only-paths is about the paths to a --to match: add --to"),
        (["--format", "dot", "--context"], "--context is about the paths to a --to match: add --to"),
        (
            ["--to", "x", "--format", "dot", "--context", "--only-paths"],
            "--only-paths and --context ask for opposite drawings: give one",
        ),
        (
            ["--format", "dot", "--collapse", "java"],
            "unknown layer 'java' for --collapse; one of: python, binding, yaml, cpp, cuda, vendor",
        ),
        (["--format", "dot", "--max-nodes", "1"], "--max-nodes must be at least 2"),
        (
            ["--format", "dot", "--link-template", "{file}#{lineno}"],
            "--link-template '{file}#{lineno}': unknown field {lineno}; use {file}, {line}, {path}, {symbol}",
        ),
    ],
)
def test_bad_diagram_options_are_one_line_errors_with_exit_2(args, message):
    result = cli("trace", "torch.nn.Conv2d", *args)
    assert result.exit_code == 2
    assert result.stderr == f"error: {message}\n"


def test_unwritable_output_is_an_error_and_leaves_nothing(tmp_path):
    target = tmp_path / "missing" / "x.dot"
    result = cli("trace", "torch.nn.Conv2d", "--format", "dot", "-o", str(target))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: cannot write {target}: No such file or directory")
    assert not (tmp_path / "missing").exists()


def test_no_path_draws_nothing_and_exits_1(tmp_path):
    result = cli(
        "trace", "torch.nn.ReLU", "--to", "cudnnConvolutionForward", "--format", "dot", "-o", str(tmp_path / "x.dot")
    )
    assert result.exit_code == 1
    assert (
        result.stderr
        == "error: no path from torch.nn.modules.activation.ReLU to cudnnConvolutionForward (backend cuda); nothing drawn\n"
    )
    assert not (tmp_path / "x.dot").exists()


def test_without_the_dot_program_svg_says_how_to_install_it_and_dot_still_works(tmp_path):
    # A PATH with nothing on it, so no `dot`. The interpreter is named by its own path: a
    # symlink to a virtual environment's interpreter would no longer find its pyvenv.cfg
    # and would run as the base interpreter, without explorer's dependencies.
    empty = tmp_path / "bin"
    empty.mkdir()
    env = {**os.environ, "PATH": str(empty)}
    command = [sys.executable, "-m", "explorer", "trace", "torch.nn.Conv2d", "--format"]
    svg = subprocess.run([*command, "svg", "-o", str(tmp_path / "x.svg")], env=env, capture_output=True, text=True)
    assert svg.returncode == 1
    assert svg.stderr.count("\n") == 1 and "Traceback" not in svg.stderr
    assert "sudo apt-get install graphviz` (Debian/Ubuntu), `brew install graphviz` (macOS)" in svg.stderr
    assert "conda install -c conda-forge graphviz" in svg.stderr
    assert not (tmp_path / "x.svg").exists()
    dot = subprocess.run([*command, "dot"], env=env, capture_output=True, text=True)
    assert dot.returncode == 0 and dot.stdout.startswith(
        "// torch.nn.modules.conv.Conv2d (backend cuda)\ndigraph explorer {"
    )
