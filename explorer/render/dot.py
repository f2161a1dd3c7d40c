"""A diagram as graphviz DOT source.

One cluster per layer, top to bottom in the order a call flows (Python, bindings, operators,
ATen C++, CUDA kernels, vendor libraries), a colour per layer, a shape per kind of definition,
and a legend of what the drawing uses. Nothing here runs graphviz: DOT needs only the Python
package, and the same diagram gives the same bytes every time.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

import graphviz

from explorer.diagram.model import FILE, MORE, Diagram, DiagramEdge, DiagramNode, Emphasis
from explorer.model import EdgeKind, Layer
from explorer.render.links import LinkTemplate


@dataclass(frozen=True, slots=True)
class LayerStyle:
    title: str
    fill: str  # node fill
    border: str  # node border, and the cluster's label colour
    background: str  # cluster fill


LAYER_STYLES: dict[Layer, LayerStyle] = {  # every layer (tests/test_every_layer_is_drawn.py)
    Layer.PYTHON: LayerStyle("Python (torch.nn, functional)", "#dbe8f7", "#2f5d9a", "#f4f8fd"),
    Layer.BINDING: LayerStyle("Bindings (torch._C)", "#e9e0f7", "#6a3fb5", "#f8f5fd"),
    Layer.YAML: LayerStyle("Operators (native_functions.yaml)", "#fff0c2", "#a8780a", "#fffbef"),
    Layer.CPP: LayerStyle("ATen C++", "#dcf0dc", "#2e7d32", "#f5fbf5"),
    Layer.CUDA: LayerStyle("CUDA kernels", "#fde3cf", "#c4530f", "#fff8f3"),
    Layer.VENDOR: LayerStyle("Vendor libraries (cuDNN, cuBLAS, MKLDNN)", "#f9d6d9", "#a4202f", "#fdf4f5"),
}

# (graphviz shape, extra style, what the legend calls it), by SymbolKind value
KIND_SHAPES = {
    "module": ("tab", "", "module"),
    "class": ("box3d", "", "class"),
    "function": ("box", "rounded", "function"),
    "method": ("box", "rounded", "method"),
    "alias": ("note", "", "alias / variable"),
    "variable": ("note", "", "alias / variable"),
    "operator": ("box", "diagonals", "operator"),
    "kernel": ("cds", "", "CUDA kernel"),
    "impl_func": ("component", "", "registration macro"),
    "meta_func": ("component", "", "registration macro"),
    "dispatch_stub": ("component", "", "registration macro"),
    "dispatch_registration": ("component", "", "registration macro"),
    "macro": ("component", "", "registration macro"),
    "external": ("cylinder", "", "vendor API"),
    FILE: ("folder", "", "file (--collapse)"),
    MORE: ("box", "dashed", "folded (--max-nodes)"),
}
_OTHER_SHAPE = ("box", "", "definition")

PATH_COLOUR = "#d1361f"
FAINT_BORDER = "#c9c9c9"
FAINT_FILL = "#f6f6f6"
FAINT_TEXT = "#9a9a9a"
_FONT = "Helvetica"


def edge_label(edge: DiagramEdge) -> str:
    """How an edge was reached, where that is not a plain call: the dispatch key, alias, fnptr..."""
    kind = edge.kind
    label = "" if kind in (EdgeKind.CALL, EdgeKind.METHOD) else kind.removeprefix(f"{EdgeKind.DISPATCH.value}:")
    return f"{label} ?" if edge.uncertain else label


def location_text(node: DiagramNode) -> str:
    if node.kind == MORE:
        return ""
    if node.path is None:
        if node.layer is Layer.VENDOR:
            return "vendor library"
        return "not defined in the tree" if node.layer in (Layer.CPP, Layer.CUDA) else "generated at build time"
    return node.path if node.kind == FILE or node.line is None else f"{node.path}:{node.line}"


def to_dot(diagram: Diagram, links: LinkTemplate) -> str:
    graph = graphviz.Digraph(name="explorer", comment=diagram.title)
    graph.attr(
        rankdir="TB",
        newrank="true",
        label=diagram.title,
        labelloc="t",
        fontname=_FONT,
        fontsize="16",
        nodesep="0.3",
        ranksep="0.45",
        outputorder="edgesfirst",
        tooltip=diagram.title,
    )
    graph.attr("node", fontname=_FONT, fontsize="11", margin="0.14,0.06")
    graph.attr("edge", fontname=_FONT, fontsize="9", arrowsize="0.7")
    if any(node.spine for node in diagram.nodes):
        graph.attr(ranksep="0.3")  # a 20-hop path, one rank a hop: as short as stays legible
        # Paths: the first as one straight line down (graphviz keeps a group's nodes in a
        # column and pulls its heavy edges straight), the others beside it. Layers are the
        # nodes' colours here: boxes per layer would bend a path that crosses them many times.
        for node in diagram.nodes:
            graph.node(
                node.id,
                **_node_attributes(node, LAYER_STYLES[node.layer], links),
                **({"group": "spine"} if node.spine else {}),
            )
    else:
        for layer, style in LAYER_STYLES.items():
            members = [node for node in diagram.nodes if node.layer is layer]
            if not members:
                continue
            with graph.subgraph(name=f"cluster_{layer.value}") as cluster:
                cluster.attr(
                    label=style.title,
                    style="filled,rounded",
                    fillcolor=style.background,
                    color=style.border,
                    fontcolor=style.border,
                    fontsize="13",
                    labeljust="l",
                    penwidth="1",
                )
                for node in members:
                    cluster.node(node.id, **_node_attributes(node, style, links))
    qnames = {node.id: node.qname for node in diagram.nodes}
    for edge in diagram.edges:
        graph.edge(
            edge.source, edge.target, **_edge_attributes(edge, qnames), **({"weight": "20"} if edge.spine else {})
        )
    _legend(graph, diagram)
    source: str = graph.source  # graphviz is untyped
    return source


def _node_attributes(node: DiagramNode, style: LayerStyle, links: LinkTemplate) -> dict[str, str]:
    shape, extra, _ = KIND_SHAPES.get(node.kind, _OTHER_SHAPE)
    faint = node.emphasis is Emphasis.CONTEXT
    styles = ["filled", *([extra] if extra else [])]
    if node.note is not None and node.note.startswith("not expanded"):
        styles.append("dashed")
    attributes = {
        "id": node.id,
        "shape": shape,
        "style": ",".join(styles),
        "fillcolor": FAINT_FILL if faint else style.fill,
        "color": FAINT_BORDER if faint else (PATH_COLOUR if node.emphasis is Emphasis.PATH else style.border),
        "fontcolor": FAINT_TEXT if faint else "#1f1f1f",
        "penwidth": "2.2" if node.start or node.emphasis is Emphasis.PATH else "1",
        "label": _label(node, faint),
        "tooltip": node.qname + (f" ({node.note})" if node.note else ""),
    }
    if node.matched:
        attributes["peripheries"] = "2"
    url = links.url(node)
    if url is not None:
        attributes["URL"] = url
        attributes["target"] = "_top"
    return attributes


def _label(node: DiagramNode, faint: bool) -> str:
    """An HTML-like label: the short name in bold, the file:line under it, then any note."""
    grey = FAINT_TEXT if faint else "#555555"
    rows = [f"<b>{escape(node.name)}</b>"]
    where = location_text(node)
    if where:
        rows.append(f'<font point-size="9" color="{grey}">{escape(where)}</font>')
    if node.note is not None:
        rows.append(f'<font point-size="9" color="{grey}"><i>{escape(node.note)}</i></font>')
    return "<" + "<br/>".join(rows) + ">"


def _edge_attributes(edge: DiagramEdge, qnames: dict[str, str]) -> dict[str, str]:
    attributes = {"id": f"{edge.source}-{edge.target}-{edge.kind}", "edgetooltip": _edge_tooltip(edge, qnames)}
    label = edge_label(edge)
    if label:
        attributes["label"] = f" {label} "
    if edge.kind == EdgeKind.FNPTR:
        attributes["style"] = "dashed"
    if edge.emphasis is Emphasis.PATH:
        attributes.update(color=PATH_COLOUR, fontcolor=PATH_COLOUR, penwidth="2.2")
    elif edge.emphasis is Emphasis.CONTEXT:
        attributes.update(color=FAINT_BORDER, fontcolor=FAINT_TEXT)
    else:
        attributes.update(color="#4d4d4d", fontcolor="#333333")
    return attributes


def _edge_tooltip(edge: DiagramEdge, qnames: dict[str, str]) -> str:
    text = f"{qnames[edge.source]} -> {qnames[edge.target]}: {edge.kind}"
    if edge.uncertain:
        text += " (ambiguous: several definitions fit)"
    if edge.site is not None:
        text += f", at {edge.site.path}:{edge.site.line}"
    return text


def _legend(graph: graphviz.Digraph, diagram: Diagram) -> None:
    """The layers, kinds and edge styles this diagram uses: a table of colours and notes, and
    under it one sample node per shape, stacked by invisible edges."""
    layers = [layer for layer in LAYER_STYLES if any(node.layer is layer for node in diagram.nodes)]
    rows = ['<tr><td colspan="2"><b>legend</b></td></tr>']
    for layer in layers:
        style = LAYER_STYLES[layer]
        rows.append(f'<tr><td bgcolor="{style.fill}" width="18"> </td><td align="left">{escape(style.title)}</td></tr>')
    notes = []
    if any(edge.emphasis is Emphasis.PATH for edge in diagram.edges):
        notes.append(f'<font color="{PATH_COLOUR}">red, bold: on a path to --to</font>')
    if any(edge.spine for edge in diagram.edges):
        notes.append("the straight line down: the first path listed")
    if any(edge.emphasis is Emphasis.CONTEXT for edge in diagram.edges):
        notes.append(f'<font color="{FAINT_TEXT}">grey: also called, off the paths</font>')
    if any(edge.kind == EdgeKind.FNPTR for edge in diagram.edges):
        notes.append("dashed edge: function pointer")
    if any(edge.uncertain for edge in diagram.edges):
        notes.append('"?": one of several fitting definitions')
    notes.append("edge labels: dispatch key, or how the call is made")
    rows.extend(f'<tr><td colspan="2" align="left">{note}</td></tr>' for note in notes)
    table = '<<table border="0" cellborder="0" cellspacing="1" cellpadding="2">' + "".join(rows) + "</table>>"
    shapes: dict[tuple[str, str], list[str]] = {}  # (shape, style) -> what it stands for
    for node in diagram.nodes:
        shape, extra, meaning = KIND_SHAPES.get(node.kind, _OTHER_SHAPE)
        meanings = shapes.setdefault((shape, extra), [])
        if meaning not in meanings:
            meanings.append(meaning)
    with graph.subgraph(name="cluster_legend") as legend:
        legend.attr(label="", style="rounded", color="#bbbbbb")
        legend.node("legend", label=table, shape="plaintext", fontsize="9", id="legend")
        with legend.subgraph(name="legend_shapes") as row:  # one row of samples under the table
            row.attr(rank="same")
            for number, ((shape, extra), meanings) in enumerate(shapes.items()):
                name = f"legend_shape{number}"
                row.node(
                    name,
                    label=" / ".join(meanings),
                    shape=shape,
                    style=",".join(["filled", *([extra] if extra else [])]),
                    fillcolor="white",
                    fontsize="9",
                    height="0.3",
                    margin="0.08,0.02",
                    id=name,
                )
                legend.edge("legend", name, style="invis")
