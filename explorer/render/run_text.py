"""Terminal view of a traced run: the merged call tree, one frame a line, as `trace` prints
its hops (layer, name, file:line, then how the frame was reached and from where)."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text
from rich.tree import Tree

from explorer.model import Layer, Location
from explorer.render.places import shown_path
from explorer.render.text import LAYER_STYLES, site_text
from explorer.runtime.compare import Comparison, NotTaken
from explorer.runtime.model import RECORDED_TRACE, Reach, RunFrame, RunTrace


def frame_text(frame: RunFrame) -> Text:
    if frame.path and frame.line:
        where = f"{shown_path(frame.path)}:{frame.line}"
    else:
        where = (
            shown_path(frame.path)
            if frame.path
            else "(vendor library)"
            if frame.layer is Layer.VENDOR
            else "(no source)"
        )
    name = f"import {frame.name}" if frame.reach is Reach.IMPORT else frame.name
    text = Text.assemble(
        (f"{frame.layer.value:<7}", LAYER_STYLES[frame.layer]),
        " ",
        (name, "bold"),
        "  ",
        (where, "cyan"),
    )
    how = reach_label(frame)
    if frame.site is not None:
        at = f"at {site_text(frame.site)}"
        how = f"{how}, {at}" if how else at
    if how:
        text.append(f"  ← {how}", "dim")
    if frame.calls > 1:
        text.append(f"  ×{frame.calls}", "bold yellow")
    return text


def reach_label(frame: RunFrame) -> str:
    if frame.reach is Reach.DISPATCH:
        return f"dispatch:{frame.key}"
    if frame.reach in (Reach.CALL, Reach.IMPORT):
        return ""
    return frame.reach.value


def run_summary(trace: RunTrace) -> str:
    """What ran where, and how much was recorded: the line above a run's tree."""
    if trace.runtime == RECORDED_TRACE:
        return f"a recorded profiler trace; {trace.native_events:,} operators and device events"
    events = f"{trace.python_events:,} Python events"
    if trace.runtime == "bundled":
        events += f", {trace.native_events:,} native events"
    return f"{trace.runtime} runtime, device {trace.device}; {events}"


def run_text(console: Console, trace: RunTrace, shown: RunFrame, cut: int = 0) -> None:
    console.print(Text(f"{trace.command}  ({run_summary(trace)})", "bold"))
    console.print(_tree(shown))
    if cut:
        console.print(Text(f"({cut:,} deeper frames not shown: --max-depth)", "italic yellow"))
    for note in trace.notes:
        console.print(Text(f"note: {note}", "yellow"))


def _tree(frame: RunFrame) -> Tree:
    tree = Tree(frame_text(frame))
    for child in frame.children:
        tree.add(_tree(child))
    return tree


def comparison_text(console: Console, comparison: Comparison, within: set[str] | None = None) -> None:
    """The three lists of a --compare, each edge with its call site; `within`: only the
    edges whose caller is one of these definitions (the nodes of a static trace)."""
    if within is not None:
        comparison = Comparison(
            comparison.backend,
            tuple(e for e in comparison.confirmed if e.caller.name in within),
            tuple(e for e in comparison.dynamic_only if e.caller.name in within),
            tuple(i for i in comparison.not_taken if i.caller.name in within),
            comparison.unindexed,
            tuple(e for e in comparison.unattributed if e.caller.name in within),
        )
    console.print()
    console.print(
        Text(
            f"compared with the static call graph (backend {comparison.backend}): {len(comparison.confirmed)} edges confirmed, "
            f"{len(comparison.dynamic_only)} dynamic only, {len(comparison.not_taken)} static edges not taken",
            "bold",
        )
    )
    if comparison.dynamic_only:
        console.print(Text("dynamic only (the static analysis missed these calls):", "bold red"))
        for edge in comparison.dynamic_only:
            console.print(Text(f"  {edge.caller.name} -> {edge.callee.name}{_at(edge.callee.site)}"))
    if comparison.unattributed:
        console.print(
            Text(
                f"{len(comparison.unattributed)} CUDA API calls beneath operators have no static edge: made by the operator's "
                "code or inside a vendor library it calls (the profiler does not say which); not counted above:",
                "bold",
            )
        )
        by_caller_calls: dict[str, list[str]] = {}
        for edge in comparison.unattributed:
            by_caller_calls.setdefault(edge.caller.name, []).append(edge.callee.name)
        for caller, callees in by_caller_calls.items():
            console.print(Text(f"  {caller}: {', '.join(callees)}", "dim"))
    if comparison.not_taken:
        console.print(Text("static edges not taken in this run (and what the caller called instead):", "bold"))
        by_caller: dict[str, list[NotTaken]] = {}
        for item in comparison.not_taken:
            by_caller.setdefault(item.caller.name, []).append(item)
        for caller, items in by_caller.items():
            console.print(Text(f"  {caller}"))
            for item in items:
                console.print(
                    Text(
                        f"    not taken: {item.edge.target.symbol.qname} ({item.edge.label}){_at(item.edge.site)}",
                        "dim",
                    )
                )
            taken = ", ".join(items[0].taken) or "nothing the run recorded"
            console.print(Text(f"    taken:     {taken}", "green"))


def _at(site: Location | None) -> str:
    return f"  at {site.path}:{site.line}" if site else ""
