"""What of a run's tree is shown: identical repeated calls folded, --include/--exclude,
and the depth limit. Each step takes a tree and returns a new one."""

from __future__ import annotations

from dataclasses import replace

from explorer.runtime.model import RunFrame


def fold_repeats(frame: RunFrame) -> RunFrame:
    """Consecutive sibling calls with the same callee and the same calls below become one
    frame that says how many times it ran (a kernel launched per group, a loop of fills)."""
    children = [fold_repeats(child) for child in frame.children]
    folded: list[RunFrame] = []
    for child in children:
        if folded and _same_call(folded[-1], child):
            folded[-1] = replace(folded[-1], calls=folded[-1].calls + child.calls)
        else:
            folded.append(child)
    return replace(frame, children=tuple(folded))


def _same_call(a: RunFrame, b: RunFrame) -> bool:
    return (a.identity(), a.key, a.site) == (b.identity(), b.key, b.site) and _same_children(a, b)


def _same_children(a: RunFrame, b: RunFrame) -> bool:
    return len(a.children) == len(b.children) and all(
        x.identity() == y.identity() and x.calls == y.calls and _same_children(x, y)
        for x, y in zip(a.children, b.children)
    )


def matches(name: str, prefixes: tuple[str, ...]) -> bool:
    """`torch.nn` matches torch.nn.modules.conv.Conv2d.forward, `at::native` matches
    at::native::conv2d_symint: a module, namespace or class prefix, or the whole name."""
    return any(name == prefix or name.startswith((prefix + ".", prefix + "::")) for prefix in prefixes)


def filtered(frame: RunFrame, include: tuple[str, ...], exclude: tuple[str, ...]) -> RunFrame:
    """--exclude drops matching frames with everything below them; --include keeps only
    matching frames, what they call being attached to the nearest kept caller."""
    return replace(frame, children=tuple(_filter_children(frame, include, exclude)))


def _filter_children(frame: RunFrame, include: tuple[str, ...], exclude: tuple[str, ...]) -> list[RunFrame]:
    kept: list[RunFrame] = []
    for child in frame.children:
        if exclude and matches(child.name, exclude):
            continue
        below = _filter_children(child, include, exclude)
        if include and not matches(child.name, include):
            kept.extend(below)
        else:
            kept.append(replace(child, children=tuple(below)))
    return kept


def limited(frame: RunFrame, depth: int) -> tuple[RunFrame, int]:
    """The tree cut `depth` levels below the program; also how many frames were cut."""
    if depth <= 0:
        return replace(frame, children=()), _count(frame) - 1
    cut = 0
    children = []
    for child in frame.children:
        kept, removed = limited(child, depth - 1)
        children.append(kept)
        cut += removed
    return replace(frame, children=tuple(children)), cut


def _count(frame: RunFrame) -> int:
    return 1 + sum(_count(child) for child in frame.children)
