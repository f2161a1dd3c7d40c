"""Keeping a large diagram readable.

- `collapse_layers` (--collapse python|cpp|...): a layer's definitions become one node per
  file (a vendor library's functions, one node per library), and the edges between them merge.
- `only_paths` (--only-paths): the --to paths without what is beside them.
- `fold_widest` (--max-nodes N): while the diagram is over N nodes, the definition with the
  most children has them folded into one "+N more" node, so wide fan-outs go first and the
  spine of the trace stays. The start and the nodes on a --to path are never folded.
`shape` applies them in that order.
"""

from __future__ import annotations

import dataclasses
import posixpath
from collections import deque

from explorer.diagram.model import FILE, MORE, Diagram, DiagramEdge, DiagramNode, Emphasis
from explorer.model import EdgeKind, Layer
from explorer.parsers.vendors import vendor_library

_STRONGER = {Emphasis.CONTEXT: 0, Emphasis.NORMAL: 1, Emphasis.PATH: 2}


def collapse_layers(diagram: Diagram, layers: set[Layer]) -> Diagram:
    groups: dict[tuple[Layer, str], list[DiagramNode]] = {}
    for node in diagram.nodes:
        if node.layer in layers and node.kind != MORE:
            groups.setdefault((node.layer, _group_of(node)), []).append(node)
    if not groups:
        return diagram
    replaced: dict[str, str] = {}  # member id -> group id
    group_nodes: dict[str, DiagramNode] = {}
    for number, ((layer, group), members) in enumerate(groups.items()):
        group_id = f"f{number}"
        for member in members:
            replaced[member.id] = group_id
        group_nodes[group_id] = _group_node(group_id, layer, group, members)
    nodes: list[DiagramNode] = []
    for node in diagram.nodes:
        owner = replaced.get(node.id)
        if owner is None:
            nodes.append(node)
        elif owner in group_nodes:  # placed where its first member was
            nodes.append(group_nodes.pop(owner))
    edges: dict[tuple[str, str, str], DiagramEdge] = {}
    for edge in diagram.edges:
        source, target = replaced.get(edge.source, edge.source), replaced.get(edge.target, edge.target)
        if source == target:
            continue  # a call inside one file
        key = (source, target, edge.kind)
        known = edges.get(key)
        if known is None or _STRONGER[edge.emphasis] > _STRONGER[known.emphasis]:
            edges[key] = dataclasses.replace(edge, source=source, target=target)
    root = replaced.get(diagram.root, diagram.root)
    return dataclasses.replace(diagram, nodes=tuple(nodes), edges=tuple(edges.values()), root=root)


def _group_of(node: DiagramNode) -> str:
    if node.path is not None:
        return node.path
    if node.layer is Layer.VENDOR:
        return vendor_library(node.qname) or "vendor"
    return "generated torch._C bindings"


def _group_node(group_id: str, layer: Layer, group: str, members: list[DiagramNode]) -> DiagramNode:
    lines = [m.line for m in members if m.line is not None]
    count = sum(_weight(m) for m in members)
    return DiagramNode(
        id=group_id,
        name=posixpath.basename(group) if members[0].path is not None else group,
        qname=group,
        layer=layer,
        kind=FILE,
        path=members[0].path,
        line=min(lines) if lines else None,
        emphasis=max((m.emphasis for m in members), key=_STRONGER.__getitem__),
        start=any(m.start for m in members),
        matched=any(m.matched for m in members),
        note=f"{count} definition{'s' if count != 1 else ''}",
        members=tuple(q for m in members for q in (m.members or (m.qname,))),
    )


def _weight(node: DiagramNode) -> int:
    """How many definitions a node stands for."""
    return len(node.members) if node.members else 1


def fold_widest(diagram: Diagram, max_nodes: int) -> Diagram:
    """Folds work on a spanning tree of the diagram: each node belongs to the first parent
    that reaches it (along --to paths first), so a definition that several nodes call is
    folded once, under its owner, and the edges from the others are dropped with it."""
    nodes = {node.id: node for node in diagram.nodes}
    children = _spanning_tree(diagram)
    order = {node_id: position for position, node_id in enumerate(nodes)}
    depth = _depths(diagram.root, children)
    done: set[str] = set()  # parents folded already, or whose fold would save nothing
    more_parent: dict[str, str] = {}  # each "+N more" node -> the node it hangs under
    while len(nodes) > max_nodes:
        foldable = {
            parent: [child for child in kids if nodes[child].emphasis is not Emphasis.PATH]
            for parent, kids in children.items()
            if parent not in done and parent in nodes
        }
        folds_of = {
            parent: [node_id for child in kids for node_id in _subtree(child, children)]
            for parent, kids in foldable.items()
            if kids
        }
        # A fold replaces its nodes by one: the widest fold that leaves at least max_nodes
        # nodes, else the smallest, so that a diagram is not folded far below what was asked.
        excess = len(nodes) - max_nodes

        def preference(parent: str) -> tuple[bool, int, int, int]:  # used within this pass only
            saves = len(folds_of[parent]) - 1  # noqa: B023
            fits = saves <= excess  # noqa: B023
            return (fits, len(foldable[parent]) if fits else -saves, depth.get(parent, 0), -order[parent])  # noqa: B023

        candidates = [parent for parent, folded in folds_of.items() if len(folded) >= 2]  # "+1 more" saves nothing
        if not candidates:
            break
        parent = max(candidates, key=preference)
        done.add(parent)
        folded = folds_of[parent]
        more = _more_node(f"m{len(more_parent)}", [nodes.pop(node_id) for node_id in folded], nodes[parent])
        more_parent[more.id] = parent
        nodes[more.id] = more
        order[more.id] = len(order)
        children[parent] = [child for child in children[parent] if child in nodes] + [more.id]
    edges = [edge for edge in diagram.edges if edge.source in nodes and edge.target in nodes]
    for more_id, parent in more_parent.items():
        if more_id in nodes:  # not itself folded into a later one
            caller, callee = (more_id, parent) if diagram.upward else (parent, more_id)
            edges.append(DiagramEdge(caller, callee, EdgeKind.CALL, nodes[more_id].emphasis))
    return dataclasses.replace(diagram, nodes=tuple(nodes.values()), edges=tuple(edges))


def _spanning_tree(diagram: Diagram) -> dict[str, list[str]]:
    """Each node under the first parent a breadth-first walk meets, walking the --to path
    edges before any other, so no path node hangs under a node that may be folded."""
    owner: dict[str, str] = {}
    reached = {diagram.root}
    for edges in (
        [edge for edge in diagram.edges if edge.emphasis is Emphasis.PATH],
        list(diagram.edges),
    ):
        links = _children(edges, diagram.upward)
        queue = deque([diagram.root] + [n.id for n in diagram.nodes if n.id in reached and n.id != diagram.root])
        while queue:
            current = queue.popleft()
            for child in links.get(current, ()):
                if child not in reached:
                    reached.add(child)
                    owner[child] = current
                    queue.append(child)
    children: dict[str, list[str]] = {}
    for node in diagram.nodes:  # in diagram order, so folds are the same every run
        if node.id in owner:
            children.setdefault(owner[node.id], []).append(node.id)
    return children


def _subtree(top: str, children: dict[str, list[str]]) -> list[str]:
    found, stack = [], [top]
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(reversed(children.get(current, [])))
    return found


def _more_node(node_id: str, folded: list[DiagramNode], parent: DiagramNode) -> DiagramNode:
    count = sum(_weight(node) for node in folded)
    return DiagramNode(
        id=node_id,
        name=f"+{count} more",
        qname=f"{count} definitions folded under {parent.qname} (--max-nodes)",
        layer=folded[0].layer,
        kind=MORE,
        path=None,
        line=None,
        emphasis=Emphasis.CONTEXT if parent.emphasis is Emphasis.PATH else parent.emphasis,
        members=tuple(q for node in folded for q in (node.members or (node.qname,))),
    )


def _tree_edge(edge: DiagramEdge, upward: bool) -> tuple[str, str]:
    """An edge as (parent, child) in the direction the report was discovered."""
    return (edge.target, edge.source) if upward else (edge.source, edge.target)


def _children(edges: list[DiagramEdge], upward: bool) -> dict[str, list[str]]:
    children: dict[str, list[str]] = {}
    for edge in edges:
        parent, child = _tree_edge(edge, upward)
        kids = children.setdefault(parent, [])
        if child not in kids:
            kids.append(child)
    return children


def _depths(root: str, children: dict[str, list[str]]) -> dict[str, int]:
    depth = {root: 0}
    queue = deque([root])
    while queue:
        current = queue.popleft()
        for child in children.get(current, ()):
            if child not in depth:
                depth[child] = depth[current] + 1
                queue.append(child)
    return depth


def shape(diagram: Diagram, *, max_nodes: int, collapse: set[Layer] | None = None, paths_only: bool = False) -> Diagram:
    """The diagram as the options ask: paths only, layers collapsed, then folded to size."""
    if paths_only:
        diagram = only_paths(diagram)
    if collapse:
        diagram = collapse_layers(diagram, collapse)
    return fold_widest(diagram, max_nodes)


def only_paths(diagram: Diagram) -> Diagram:
    """--only-paths: what lies on a path to a --to match, without the faint context."""
    nodes = tuple(node for node in diagram.nodes if node.emphasis is Emphasis.PATH)
    edges = tuple(edge for edge in diagram.edges if edge.emphasis is Emphasis.PATH)
    return dataclasses.replace(diagram, nodes=nodes, edges=edges)
