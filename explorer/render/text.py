"""Terminal views of explorer's records, with rich."""

from __future__ import annotations

from rich.console import Console, Group
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from explorer.index.build import RefreshReport
from explorer.model import Language, Symbol
from explorer.query.details import SymbolDetails
from explorer.query.search import SearchHit

_LEXERS = {Language.PYTHON: "python", Language.CPP: "cpp", Language.CUDA: "cuda", Language.YAML: "yaml"}


def location(symbol: Symbol) -> str:
    if symbol.path is None:
        return "(vendor library)"
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
