"""Terminal views of explorer's records, with rich."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING

from rich.console import Console, Group
from rich.text import Text

from explorer.index import RefreshReport
from explorer.model import CallEdge, CallNode, Language, Layer, Location, Resolution, Symbol, Tree, TreeKind
from explorer.names import target_heading
from explorer.render.places import shown_path
from explorer.resolve import UnreadableDefinition

if TYPE_CHECKING:  # only annotations: a command imports the query layer it runs, no more
    from explorer.analysis import NeighbourReport, Overload, SymbolDetails, TraceNode, TraceReport
    from explorer.config import Setting
    from explorer.names import SearchHit

_LEXERS = {Language.PYTHON: "python", Language.CPP: "cpp", Language.CUDA: "cuda", Language.YAML: "yaml"}
# Characters that would break a record's line or drive the terminal, when a file name (or a
# name made from one) holds them: written as escapes in text output; JSON escapes its own.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_GUIDES = ("    ", "│   ", "├── ", "└── ")  # below a last child, below another, a child, the last child
_NOTES_NAMED = 3  # unreadable definitions named in the note, before "and N more"


def printable(text: str) -> str:
    """`text` with control characters written as escapes (a newline as backslash-n, ESC as
    backslash-x1b), so that one record stays on one line."""
    return _CONTROL.sub(lambda match: match.group().encode("unicode_escape").decode("ascii"), text)


def location(symbol: Symbol) -> str:
    if symbol.path is None:
        if symbol.lang == "vendor":
            return "(vendor library)"
        if symbol.lang == "python":
            return "(generated at build time: no source)"
        return f"({symbol.signature})" if symbol.signature else "(not defined in the tree)"
    return f"{printable(shown_path(symbol.path))}:{symbol.line}"


def site_text(site: Location) -> str:
    """`file:line`; the file alone where no line is known (never `:0`)."""
    path = printable(shown_path(site.path))
    return f"{path}:{site.line}" if site.line > 0 else path


def unreadable_note(unreadable: tuple[UnreadableDefinition, ...]) -> str | None:
    """One line saying which definitions could not be read in full (the solver stopped in
    them: their values flow deeper than Python's stack, or through more code than one query
    follows), and what that costs."""
    if not unreadable:
        return None
    named = "; ".join(
        f"{printable(shown_path(d.path))}:{d.line} {printable(d.qname)}: {printable(d.reason)}"
        for d in unreadable[:_NOTES_NAMED]
    )
    if len(unreadable) > _NOTES_NAMED:
        named += f"; and {len(unreadable) - _NOTES_NAMED:,} more"
    count = f"{len(unreadable):,} definition{'s' if len(unreadable) != 1 else ''}"
    whose = "its" if len(unreadable) == 1 else "their"
    return f"note: {count} could not be read in full ({named}); some of {whose} calls may be missing"


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
    left_out = report.left_out
    if left_out:
        rules = Counter(diagnostic.reason for diagnostic in left_out)
        said = "; ".join(
            f"{count:,} {rule}" for rule, count in sorted(rules.items(), key=lambda item: (-item[1], item[0]))
        )
        folders = f"{len(left_out):,} folder{'s' if len(left_out) != 1 else ''}"
        console.print(
            f"Left out by rule: {folders} ({said}){'' if verbose else ' (--verbose lists them)'}",
            highlight=False,
            markup=False,
        )
        if verbose:
            for diagnostic in left_out:
                console.print(f"  left out {diagnostic.path}/: {diagnostic.reason}", highlight=False, markup=False)
    console.print(f"Index: {report.index_path}", highlight=False, markup=False)


def trees_text(console: Console, trees: list[Tree]) -> None:
    """The trees joined to the project, one line each."""
    for tree in trees:
        version = f" {tree.version}" if tree.version and tree.kind is not TreeKind.INSTALLED else ""
        kind = f"{tree.kind.value}, its stubs only" if tree.stubs_only else tree.kind.value
        console.print(f"Joined: {tree.name}{version} ({kind}) {tree.root}", highlight=False, markup=False)


def search_text(console: Console, hits: list[SearchHit]) -> None:
    """One line per symbol in aligned columns. Not a rich Table: that folds a cell wider than
    the console onto several lines, and a generated name can be 100,000 characters long."""
    rows = [(hit.symbol.kind.value, printable(hit.symbol.qname), location(hit.symbol)) for hit in hits]
    kind_width = max([len("kind"), *(len(kind) for kind, _, _ in rows)])
    symbol_width = max([len("symbol"), *(len(qname) for _, qname, _ in rows)])
    console.print(Text(f"{'kind':<{kind_width}}  {'symbol':<{symbol_width}}  location", "bold"), soft_wrap=True)
    for kind, qname, where in rows:
        console.print(
            Text.assemble(f"{kind:<{kind_width}}  {qname:<{symbol_width}}  ", (where, "cyan")), soft_wrap=True
        )


def details_text(console: Console, details: SymbolDetails) -> None:
    symbol = details.symbol
    title = Text.assemble((symbol.kind.value, "bold magenta"), " ", (printable(symbol.qname), "bold"))
    console.print(title)
    if symbol.path is not None:
        end = f"-{symbol.end_line}" if symbol.end_line and symbol.end_line != symbol.line else ""
        console.print(
            Text(
                f"  defined at {printable(shown_path(symbol.path))}:{symbol.line}{end} ({symbol.lang.value})",
                style="cyan",
            )
        )
    if symbol.signature and symbol.kind.value != "external":
        console.print(Text(f"  {printable(symbol.signature)}"))
    if details.operator is not None or details.kernels:
        _operator_text(console, details)
        _derivatives_text(console, details)
    if symbol.target is not None and details.operator is None:  # an operator's delegate is in its table
        console.print(Text(f"  refers to {printable(symbol.target)}"))
    for target in details.resolves_to:
        console.print(Text(f"    -> {target.kind.value} {printable(target.qname)}  {location(target)}"))
    if details.first_call_site is not None:
        first = site_text(details.first_call_site)
        console.print(Text(f"  {printable(symbol.signature)}; {details.call_sites} call site(s), first at {first}"))
    if details.snippet is not None and details.snippet.text.strip():
        from rich.panel import Panel  # pygments, for `show` alone: 10 ms of every other command's start
        from rich.syntax import Syntax

        # Highlighted only where colours show: compiling a lexer's patterns costs 60 ms.
        lexer = _LEXERS.get(symbol.lang, "text") if console.color_system is not None else "text"
        syntax = Syntax(
            details.snippet.text,
            lexer,
            line_numbers=True,
            start_line=details.snippet.first_line,
            word_wrap=False,
            theme="ansi_dark",
        )
        left_out = details.snippet.lines_left_out
        more = (
            Text(
                f"{left_out} more line{'s' if left_out != 1 else ''} to line {details.snippet.first_line + len(details.snippet.text.splitlines()) + left_out - 1}; "
                "--lines N shows more"
            )
            if left_out
            else None
        )
        console.print(
            Panel(
                syntax,
                title=Text(printable(shown_path(details.snippet.path))),
                title_align="left",
                expand=False,
                subtitle=more,
                subtitle_align="left",
            )
        )


def _operator_text(console: Console, details: SymbolDetails) -> None:
    info = details.operator
    if info is not None:  # an operator C++ registers (TORCH_LIBRARY) has its schema only
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
    if details.test_kernels:
        console.print(
            Text(
                f"  ({details.test_kernels} kernel(s) registered by the tree's tests left out; --tests shows them)",
                style="dim",
            )
        )
    if not details.kernels:
        return
    from rich.table import Table  # for `show` alone

    table = Table(title=None, box=None, header_style="bold", pad_edge=False)
    table.add_column("dispatch key")
    table.add_column("kernel", overflow="fold")
    table.add_column("defined at", overflow="fold")
    for row in details.kernels:
        where = ", ".join(location(s) for s in row.definitions) or "(not found in the tree)"
        key = row.key if row.via is None else f"{row.key} (via {row.via})"
        table.add_row(printable(key), Text(printable(row.kernel)), Text(where, style="cyan"))
    console.print(Group(Text("  dispatch:"), table))


def _derivatives_text(console: Console, details: SymbolDetails) -> None:
    for path, entry in details.derivatives:
        console.print(Text(f"  autograd formulas at {printable(shown_path(path))}:{entry.line}", style="cyan"))
        for gradients, formula in entry.formulas:
            console.print(Text(f"    {printable(gradients)}: {printable(formula)}"))


LAYER_STYLES: dict[Layer, str] = {  # every layer (tests/test_every_layer_is_drawn.py)
    Layer.PYTHON: "green",
    Layer.BINDING: "magenta",
    Layer.YAML: "yellow",
    Layer.CPP: "blue",
    Layer.CUDA: "bright_blue",
    Layer.VENDOR: "red",
}


def hop_text(node: CallNode, edge: CallEdge | None, *, overload: str | None = None, where: str | None = None) -> Text:
    """`cpp  at::native::cudnn_convolution  aten/.../ConvShared.cpp:240  ← dispatch:CUDA, ambiguous (2)`.
    `overload`: the hop is an entry's overload, and this says which (`overload 1 of 3: a plain
    call takes it`) in place of the candidates; `where`: in place of the location."""
    text = Text.assemble(
        (f"{node.layer.value:<7}", LAYER_STYLES[node.layer]),
        " ",
        (printable(node.symbol.qname), "bold"),
        "  ",
        (where if where is not None else location(node.symbol), "cyan"),
    )
    if edge is not None:
        how = edge.label
        if overload is not None:
            how += f", {overload}"
        elif edge.resolution is not Resolution.EXACT:
            how += f", {edge.resolution.value}"
            if edge.candidates:
                how += f" ({len(edge.candidates)} candidates)"
        if edge.site is not None:
            how += f", at {site_text(edge.site)}"
        text.append(f"  ← {how}", "dim")
    return text


def trace_text(console: Console, report: TraceReport, to: str | None) -> None:
    trace = report.trace
    entry = report.entry
    start = printable(report.start.symbol.qname)
    if entry is not None:
        console.print(Text(entry_heading(report), "bold"), soft_wrap=True)
    if report.other_matches:
        if entry is None:
            others = ", ".join(printable(s.qname) for s in report.other_matches[:5])
            console.print(
                Text(f"{len(report.other_matches) + 1} definitions match; tracing the first (also: {others})", "dim")
            )
        else:  # each name once: a C++ function's overloads are one name
            names = list(dict.fromkeys(s.qname for s in report.other_matches))
            more = f" and {len(names) - 5} more" if len(names) > 5 else ""
            console.print(
                Text(f"also matching, not traced: {', '.join(printable(n) for n in names[:5])}{more}", "dim"),
                soft_wrap=True,
            )
    if to is None:
        _print_lines(console, list(_tree_lines(trace.tree, report)))
        return
    target = printable(target_heading(to))
    if entry is not None:
        start += f" ({entry.count} {entry.noun}s)"
    if report.target_closest is not None:
        closest = (
            f"; closest: {', '.join(printable(name) for name in report.target_closest)}"
            if report.target_closest
            else ""
        )
        console.print(Text(f"no definition in the trees is named like --to {target}{closest}"), soft_wrap=True)
        return
    if not trace.paths:
        console.print(Text(f"no path from {start} to {target} (backend {report.backend})"))
        if trace.deepest:
            console.print(Text("deepest definitions reached:"))
            for hop in trace.deepest:
                console.print(Text("  ").append_text(hop_text(hop.node, None)), soft_wrap=True)
        return
    more = f" (the best {len(trace.paths)} shown; --paths N for more)" if trace.paths_found > len(trace.paths) else ""
    count = f"at least {trace.paths_found}" if trace.paths_capped else str(trace.paths_found)
    console.print(
        Text(
            f"{count} path{'s' if trace.paths_found != 1 else ''} from "
            f"{start} to {target} (backend {report.backend}){more}",
            "bold",
        )
    )
    lines: list[Text] = []
    for number, path in enumerate(trace.paths, start=1):
        variants = trace.variants[number - 1] if number <= len(trace.variants) else 1
        also = (
            f" (and {variants - 1} more through other overloads or specialisations of its hops)" if variants > 1 else ""
        )
        overload = entry.overload_of(path) if entry is not None else None
        since = (
            f", from {printable(overload.node.symbol.qname)}, {_overload_note(report, overload)}"
            if overload is not None
            else ""
        )
        lines += [Text(""), Text(f"path {number}: {len(path) - 1} hops{since}{also}", "bold")]
        lines += [Text(f"{step:>3}  ").append_text(_trace_hop_text(report, hop, step)) for step, hop in enumerate(path)]
    _print_lines(console, lines)


def entry_heading(report: TraceReport) -> str:
    """`torch.add: 3 overloads, all traced; a plain call takes aten::add.Tensor`."""
    entry = report.entry
    assert entry is not None
    followed = len(entry.overloads)
    traced = "all traced" if followed == entry.count else f"the first {followed} traced"
    if entry.ranked:
        choice = f"a plain call takes {printable(entry.overloads[0].node.symbol.qname)}"
    else:
        choice = "no call to choose between them: their paths rank by cost alone"
    return f"{printable(report.query)}: {entry.count} {entry.noun}s, {traced}; {choice}"


def _overload_note(report: TraceReport, overload: Overload) -> str:
    """`overload 1 of 3: a plain call takes it`."""
    entry = report.entry
    assert entry is not None
    return f"{entry.noun} {overload.rank} of {entry.count}" + (f": {overload.why}" if overload.why else "")


def _trace_hop_text(report: TraceReport, hop: TraceNode, depth: int) -> Text:
    """A hop of a trace: an entry's root and its overloads say what they are."""
    entry = report.entry
    if entry is not None and depth == 0 and entry.made:
        return hop_text(hop.node, hop.edge, where=f"({entry.count} {entry.noun}s)")
    overload = entry.at(hop.node) if entry is not None and depth == 1 else None
    if overload is not None:
        return hop_text(hop.node, hop.edge, overload=_overload_note(report, overload))
    return hop_text(hop.node, hop.edge)


def _print_lines(console: Console, lines: list[Text]) -> None:
    """Many lines in one print: rich's work per print, not per line, is most of the cost."""
    if lines:
        console.print(Text("\n").join(lines), soft_wrap=True)


def _tree_lines(root: TraceNode, report: TraceReport) -> Iterator[Text]:
    """The tree as lines, each hop under its caller with guides drawn as rich's Tree draws
    them. Unlike rich's Tree, a line is never wrapped or cut to the console's width: a hop
    a thousand levels down still gets its one line."""
    yield _tree_label(root, report, 0)
    pending = [(child, "", last) for child, last in reversed(_with_last(root.children))]
    while pending:
        hop, guides, last = pending.pop()
        yield Text(guides + _GUIDES[3 if last else 2]).append_text(_tree_label(hop, report, 1 if not guides else 2))
        below = guides + _GUIDES[0 if last else 1]
        pending += [(child, below, child_last) for child, child_last in reversed(_with_last(hop.children))]


def _with_last(children: tuple[TraceNode, ...]) -> list[tuple[TraceNode, bool]]:
    return [(child, number == len(children) - 1) for number, child in enumerate(children)]


def _tree_label(hop: TraceNode, report: TraceReport, depth: int) -> Text:
    """`depth`: 0 for the root, 1 for its children, 2 for any hop below them."""
    label = _trace_hop_text(report, hop, depth)
    if hop.stop is not None:
        label.append(f"  [{hop.stop}]", "italic yellow")
    return label


def neighbours_text(console: Console, report: NeighbourReport) -> None:
    """One line per definition, indented by depth, saying how it connects to the one above."""
    console.print(hop_text(report.start, None), soft_wrap=True)
    arrow = "called by" if report.direction == "callers" else "calls"
    for found in report.found:
        line = Text("  " * found.depth + f"{arrow} ", "dim")
        edge = found.edge
        node_text = hop_text(found.node, None)
        how = edge.label + (f", {edge.resolution.value}" if edge.resolution is not Resolution.EXACT else "")
        owner = found.node.self_class
        if owner and not found.node.symbol.qname.startswith(f"{owner}."):  # Module.__call__ of self.relu: on a ReLU
            how += f" on {printable(owner.rpartition('.')[2])}"
        if edge.site is not None:
            how += f", at {site_text(edge.site)}"
        node_text.append(f"  ({how}; {printable(found.via.symbol.qname)})", "dim")
        console.print(line.append_text(node_text), soft_wrap=True)
    if not report.found:
        console.print(Text(f"no {report.direction} found", "dim"))
    if report.truncated:
        console.print(Text("(truncated: more definitions than listed; narrow with --depth)", "italic yellow"))


def settings_text(console: Console, file_label: str | None, folder: str | None, settings: list[Setting]) -> None:
    """`explorer config`: the file found (or where it was looked for), then one line per
    setting: its value and where it came from, explorer's default said as such."""
    from explorer.config import KEYS

    if file_label is not None:
        console.print(f"configuration: {printable(file_label)}", markup=False, highlight=False, soft_wrap=True)
    else:
        where = f" from {printable(folder)} upward" if folder else ""
        console.print(
            f"configuration: no pyproject.toml [tool.explorer] or explorer.toml{where}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    width = max(len(setting.name) for setting in settings)
    for setting in settings:
        if setting.value is None:
            value, source = KEYS[setting.name].default, "default"
        else:
            value = (
                ", ".join(setting.value)
                if isinstance(setting.value, list)
                else str(setting.value).lower()
                if isinstance(setting.value, bool)
                else str(setting.value)
            )
            source = setting.source
        console.print(
            f"{setting.name:<{width}}  {printable(value)}  ({printable(source)})",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
