"""A diagram as one self-contained HTML page: the SVG inline, with pan and zoom, a search box,
the legend, and a side panel showing a clicked node's name, location and source.

Everything the page needs is in the file (the script and styles in explorer/render/assets are
inlined), so it opens offline and can be mailed or attached to an issue.
"""

from __future__ import annotations

import json
from html import escape
from importlib import resources

from explorer.diagram.model import Diagram, DiagramNode
from explorer.render.dot import LAYER_STYLES, location_text
from explorer.render.links import LinkTemplate
from explorer.resolve import SourceLines

SNIPPET_LINES = 30  # of a definition's source, in the side panel


def to_html(diagram: Diagram, svg: bytes, links: LinkTemplate, sources: SourceLines) -> str:
    details = {node.id: _details(node, links, sources) for node in diagram.nodes}
    # No `<` may stand in the script element's text: `</script` ends it early, and `<!--`
    # followed by `<script` puts the browser's tokenizer in a state where the real end tag no
    # longer ends it (both are common in source text). In JSON, `\u003c` is the same string.
    data = json.dumps(details, ensure_ascii=False, sort_keys=True).replace("<", "\\u003c").replace(">", "\\u003e")
    return _PAGE.format(
        title=escape(diagram.title),
        style=_asset("viewer.css"),
        script=_asset("viewer.js"),
        svg=_inline(svg),
        data=data,
    )


def _details(node: DiagramNode, links: LinkTemplate, sources: SourceLines) -> dict[str, object]:
    snippet: list[str] = []
    more_lines = 0
    if node.path is not None and node.line is not None and not node.members:
        last = node.end_line or node.line
        snippet = sources.of_file(node.path)[node.line - 1 : min(last, node.line - 1 + SNIPPET_LINES)]
        more_lines = max(0, last - node.line + 1 - SNIPPET_LINES)
    return {
        "name": node.name,
        "qname": node.qname,
        "layer": LAYER_STYLES[node.layer].title,
        "kind": node.kind,
        "location": location_text(node),
        "url": links.url(node),
        "note": node.note,
        "members": list(node.members),
        "first_line": node.line,
        "snippet": snippet,
        "more_lines": more_lines,
        "spine": node.spine,  # on the first path: the view opens on these
    }


def _asset(name: str) -> str:
    return resources.files("explorer.render").joinpath("assets", name).read_text(encoding="utf-8")


def _inline(svg: bytes) -> str:
    """The <svg> element alone: the XML prolog and DOCTYPE are not allowed inside HTML."""
    text = svg.decode("utf-8")
    return text[text.index("<svg") :]


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>explorer: {title}</title>
<style>
{style}
</style>
</head>
<body>
<header>
  <h1>{title}</h1>
  <input id="search" type="search" placeholder="search nodes (Enter: next match)" autocomplete="off">
  <span id="matches"></span>
  <button id="zoom-in" title="zoom in">+</button>
  <button id="zoom-out" title="zoom out">&minus;</button>
  <button id="zoom-fit" title="fit to window">fit</button>
</header>
<main>
  <div id="canvas">
{svg}
  </div>
  <aside id="panel">
    <p class="hint">Click a node to see its qualified name, where it is defined and its source.
    Drag to pan, scroll to zoom.</p>
  </aside>
</main>
<script type="application/json" id="explorer-data">{data}</script>
<script>
{script}
</script>
</body>
</html>
"""
