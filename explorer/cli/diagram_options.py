"""The diagram options that trace, callers, callees and run share, checked together, and writing the result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from explorer.cli.common import stdout
from explorer.diagram import FORMATS
from explorer.errors import UsageError
from explorer.model import Layer
from explorer.output_files import write_output

if TYPE_CHECKING:
    from explorer.diagram.model import Diagram


@dataclass(frozen=True, slots=True)
class DiagramRequest:
    output_format: str
    output: str | None
    max_nodes: int
    collapse: tuple[Layer, ...]
    link_template: str | None
    only_paths: bool = False

    @property
    def wanted(self) -> bool:
        return self.output_format != "tree"


def diagram_request(
    output_format: str,
    output: str | None,
    max_nodes: int,
    collapse: list[str] | None,
    link_template: str | None,
    *,
    json: bool = False,
    only_paths: bool = False,
    to: str | None = None,
    context: bool = False,
) -> DiagramRequest:
    """Check the options together before any work is done."""
    if output_format not in ("tree", *FORMATS):
        raise UsageError(f"unknown --format {output_format!r}; one of: tree, {', '.join(FORMATS)}")
    drawing = output_format != "tree"
    if json and drawing:
        raise UsageError("--json prints the trace as JSON; it does not combine with --format " + output_format)
    if output is not None and not drawing:
        raise UsageError("-o writes a diagram: add --format dot, svg, png or html")
    if (only_paths or context) and to is None:
        raise UsageError(
            f"{'--only-paths' if only_paths else '--context'} is about the paths to a --to match: add --to"
        )
    if only_paths and context:
        raise UsageError("--only-paths and --context ask for opposite drawings: give one")
    if max_nodes < 2:
        raise UsageError("--max-nodes must be at least 2")
    layers = []
    for name in collapse or []:
        try:
            layers.append(Layer(name))
        except ValueError:
            raise UsageError(
                f"unknown layer {name!r} for --collapse; one of: {', '.join(layer.value for layer in Layer)}"
            ) from None
    # with --to, the paths alone unless --context asks for what is beside them
    return DiagramRequest(
        output_format, output, max_nodes, tuple(layers), link_template, to is not None and not context
    )


def write_diagram(
    diagram: Diagram, request: DiagramRequest, root: str, query: str, direction: str | None = None
) -> None:
    """Shape the diagram as asked, render it, and write it (DOT without -o: to stdout)."""
    # graphviz and the renderers load only when a diagram is drawn
    from explorer.diagram.fold import shape
    from explorer.render.diagram import default_file_name, render_diagram
    from explorer.render.links import LinkTemplate
    from explorer.resolve import SourceLines

    links = LinkTemplate.parse(request.link_template, root)
    diagram = shape(diagram, max_nodes=request.max_nodes, collapse=set(request.collapse), paths_only=request.only_paths)
    content = render_diagram(diagram, request.output_format, links, SourceLines(root))
    if request.output is None and request.output_format == "dot":
        stdout.file.write(content.decode("utf-8"))
        return
    written = write_output(request.output or default_file_name(query, request.output_format, direction), content)
    if written is None:
        return  # into a stream (`-`, a pipe, a device): the diagram is all it gets
    stdout.print(f"wrote {written} ({len(diagram.nodes)} nodes, {len(diagram.edges)} edges)", markup=False)
