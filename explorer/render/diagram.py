"""A diagram in the format asked for: DOT text, or what graphviz draws from it (SVG, PNG),
or the HTML viewer around the SVG."""

from __future__ import annotations

import re

from explorer.diagram.model import Diagram
from explorer.render.dot import to_dot
from explorer.render.html import to_html
from explorer.render.image import render
from explorer.render.links import LinkTemplate
from explorer.resolve import SourceLines


def render_diagram(diagram: Diagram, output_format: str, links: LinkTemplate, sources: SourceLines) -> bytes:
    dot_source = to_dot(diagram, links)
    if output_format == "dot":
        return dot_source.encode("utf-8")
    if output_format == "html":
        return to_html(diagram, render(dot_source, "svg"), links, sources).encode("utf-8")
    return render(dot_source, output_format)


def default_file_name(query: str, output_format: str, direction: str | None = None) -> str:
    """`torch.nn.Conv2d.svg`, `aten__conv2d.callers.png`: the query, safe as a file name."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", query).strip("._") or "diagram"
    return f"{stem}.{direction}.{output_format}" if direction else f"{stem}.{output_format}"
