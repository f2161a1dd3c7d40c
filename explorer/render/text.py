"""Terminal views of explorer's records, with rich."""

from __future__ import annotations

from rich.console import Console, Group
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from explorer.index.build import RefreshReport
from explorer.model import CallEdge, CallNode, Language, Layer, Resolution, Symbol
from explorer.query.details import SymbolDetails
from explorer.query.neighbours import NeighbourReport
from explorer.query.trace import TraceNode, TraceReport
from explorer.query.search import SearchHit

_LEXERS = {Language.PYTHON: "python", Language.CPP: "cpp", Language.CUDA: "cuda", Language.YAML: "yaml"}


def location(symbol: Symbol) -> str:
    if symbol.path is None:
        return "(vendor library)" if symbol.lang == "vendor" else "(generated at build time: no source)"
    return f"{symbol.path}:{symbol.line}"


def report_text(console: Console, report: RefreshReport, verbose: bool) -> None:
    stats = report.stats
    skipped = len(report.skipped)
    console.print(
        f"Indexed {stats.parsed:,} files ({report.parsed:,} parsed now, {report.unchanged:,} unchanged, "
        f"{report.removed:,} removed): {stats.symbols:,} symbols, {stats.calls:,} call sites "
        f"in {report.seconds:.2f}s",
        highlight=False,
    )
    line = f"Skipped {skipped:,} file{'s' if skipped != 1 else ''}"
    if report.partial:
        line += f"; {len(report.partial):,} problem{'s' if len(report.partial) != 1 else ''} in indexed files"
    if (skipped or report.partial) and not verbose:
        line += " (--verbose lists them)"
    console.print(line, highlight=False)
    if verbose:
        for diagnostic in report.skipped:
            console.print(f"  skipped {diagnostic.path}: {diagnostic.reason}", highlight=False, markup=False)
        for diagnostic in report.partial:
            console.print(f"  problem {diagnostic.path}: {diagnostic.reason}", highlight=False, markup=False)
    console.print(f"Index: {report.index_path}", highlight=False, markup=False)


def search_text(console: Console, hits: list[SearchHit]) -> None:
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    table.add_column("kind")
    table.add_column("symbol", overflow="fold")
    table.add_column("location", overflow="fold")
    for hit in hits:
        table.add_row(hit.symbol.kind.value, Text(hit.symbol.qname), Text(location(hit.symbol), style="cyan"))
    console.print(table)


def details_text(console: Console, details: SymbolDetails) -> None:
    symbol = details.symbol
    title = Text.assemble((symbol.kind.value, "bold magenta"), " ", (symbol.qname, "bold"))
    console.print(title)
    if symbol.path is not None:
        end = f"-{symbol.end_line}" if symbol.end_line and symbol.end_line != symbol.line else ""
        console.print(Text(f"  defined at {symbol.path}:{symbol.line}{end} ({symbol.lang.value})", style="cyan"))
    if symbol.signature and symbol.kind.value != "external":
        console.print(Text(f"  {symbol.signature}"))
    if details.operator is not None:
        _operator_text(console, details)
        _derivatives_text(console, details)
    if symbol.target is not None and details.operator is None:  # an operator's delegate is in its table
        console.print(Text(f"  refers to {symbol.target}"))
    for target in details.resolves_to:
        console.print(Text(f"    -> {target.kind.value} {target.qname}  {location(target)}"))
    if details.first_call_site is not None:
        path, line = details.first_call_site
        console.print(Text(f"  {symbol.signature}; {details.call_sites} call site(s), first at {path}:{line}"))
    if details.snippet is not None and details.snippet.text.strip():
        syntax = Syntax(
            details.snippet.text, _LEXERS.get(symbol.lang, "text"), line_numbers=True,
            start_line=details.snippet.first_line, word_wrap=False, theme="ansi_dark",
        )
        console.print(Panel(syntax, title=details.snippet.path, title_align="left", expand=False))


def _operator_text(console: Console, details: SymbolDetails) -> None:
    info = details.operator
    assert info is not None
    facts = [f"variants: {', '.join(info.variants)}"]
    if info.python_module:
        facts.append(f"python_module: {info.python_module}")
    if info.structured:
        facts.append("structured")
    if info.structured_delegate:
        facts.append(f"structured_delegate: {info.structured_delegate}")
    if info.autogen:
        facts.append(f"autogen: {', '.join(info.autogen)}")
    console.print(Text("  " + "; ".join(facts)))
    if not details.kernels:
        return
    table = Table(title=None, box=None, header_style="bold", pad_edge=False)
    table.add_column("dispatch key")
    table.add_column("kernel", overflow="fold")
    table.add_column("defined at", overflow="fold")
    for row in details.kernels:
        where = ", ".join(location(s) for s in row.definitions) or "(not found in the tree)"
        key = row.key if row.via is None else f"{row.key} (via {row.via})"
        table.add_row(key, Text(row.kernel), Text(where, style="cyan"))
    console.print(Group(Text("  dispatch:"), table))


def _derivatives_text(console: Console, details: SymbolDetails) -> None:
    for path, entry in details.derivatives:
        console.print(Text(f"  autograd formulas at {path}:{entry.line}", style="cyan"))
        for gradients, formula in entry.formulas:
            console.print(Text(f"    {gradients}: {formula}"))


LAYER_STYLES = {
    Layer.PYTHON: "green", Layer.BINDING: "magenta", Layer.YAML: "yellow",
    Layer.CPP: "blue", Layer.CUDA: "bright_blue", Layer.VENDOR: "red",
}


def hop_text(node: CallNode, edge: CallEdge | None) -> Text:
    """`cpp  at::native::cudnn_convolution  aten/.../ConvShared.cpp:240  ← dispatch:CUDA, ambiguous (2)`."""
    text = Text.assemble(
        (f"{node.layer.value:<7}", LAYER_STYLES[node.layer]), " ",
        (node.symbol.qname, "bold"), "  ",
        (location(node.symbol), "cyan"),
    )
    if edge is not None:
        how = edge.kind
        if edge.resolution is not Resolution.EXACT:
            how += f", {edge.resolution.value}"
            if edge.candidates:
                how += f" ({len(edge.candidates)} candidates)"
        if edge.site is not None:
            how += f", at {edge.site[0]}:{edge.site[1]}"
        text.append(f"  ← {how}", "dim")
    return text


def trace_text(console: Console, report: TraceReport, to: str | None) -> None:
    trace = report.trace
    if report.other_matches:
        others = ", ".join(s.qname for s in report.other_matches[:5])
        console.print(Text(f"{len(report.other_matches) + 1} definitions match; tracing the first (also: {others})", "dim"))
    if to is None:
        console.print(_tree(trace.tree))
        return
    if not trace.paths:
        console.print(Text(f"no path from {report.start.symbol.qname} to /{to}/ (backend {report.backend})"))
        if trace.deepest:
            console.print(Text("deepest definitions reached:"))
            for hop in trace.deepest:
                console.print(Text("  ").append_text(hop_text(hop.node, None)))
        return
    more = f" (the {len(trace.paths)} shortest shown)" if trace.paths_found > len(trace.paths) else ""
    count = f"at least {trace.paths_found}" if trace.paths_capped else str(trace.paths_found)
    console.print(Text(f"{count} path{'s' if trace.paths_found != 1 else ''} from "
                       f"{report.start.symbol.qname} to /{to}/ (backend {report.backend}){more}", "bold"))
    for number, path in enumerate(trace.paths, start=1):
        console.print()
        console.print(Text(f"path {number}: {len(path) - 1} hops", "bold"))
        for step, hop in enumerate(path):
            console.print(Text(f"{step:>3}  ").append_text(hop_text(hop.node, hop.edge)))


def _tree(hop: TraceNode) -> Tree:
    label = hop_text(hop.node, hop.edge)
    if hop.stop is not None:
        label.append(f"  [{hop.stop}]", "italic yellow")
    tree = Tree(label)
    for child in hop.children:
        tree.add(_tree(child))
    return tree


def neighbours_text(console: Console, report: NeighbourReport) -> None:
    """One line per definition, indented by depth, saying how it connects to the one above."""
    console.print(hop_text(report.start, None))
    arrow = "called by" if report.direction == "callers" else "calls"
    for found in report.found:
        line = Text("  " * found.depth + f"{arrow} ", "dim")
        edge = found.edge
        node_text = hop_text(found.node, None)
        how = edge.kind + (f", {edge.resolution.value}" if edge.resolution is not Resolution.EXACT else "")
        if edge.site is not None:
            how += f", at {edge.site[0]}:{edge.site[1]}"
        node_text.append(f"  ({how}; {found.via.symbol.qname})", "dim")
        console.print(line.append_text(node_text))
    if not report.found:
        console.print(Text(f"no {report.direction} found", "dim"))
    if report.truncated:
        console.print(Text("(truncated: more definitions than listed; narrow with --depth)", "italic yellow"))
