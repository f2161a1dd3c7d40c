"""The language server: one thin handler per LSP request, each turning protocol positions into
a query of explorer's own modules (the CLI's) and explorer's records back into protocol types
(convert.py). The session the handlers answer from, and its background refresh, are in
session.py.

The workspace's first folder is the project (`--root`); `initializationOptions` may name
`trees` (other source trees) and `pythonEnv`, as the CLI's `--tree` and `--python-env`.
The indexes are brought up to date when the first request comes and again after a file is
saved; a request is answered from the index as it was last refreshed.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading

from lsprotocol import types as lsp
from pygls.io_ import StdoutWriter, run_async

from explorer.analysis import (
    DEFAULT_MAX_NODES,
    called_node,
    callers_of,
    implementations,
    trace_symbol,
)
from explorer.diagram.build import trace_diagram
from explorer.diagram.fold import shape
from explorer.folders import cache_folder
from explorer.lsp.convert import (
    definitions_at,
    hierarchy_item,
    hierarchy_steps,
    hover_text,
    in_buffer,
    information_of,
    location_of,
    name_range,
    site_location,
    symbols_at_position,
)
from explorer.lsp.positions import path_of
from explorer.lsp.session import ExplorerServer, read_options
from explorer.lsp.stream import FramedReader
from explorer.model import SymbolKind
from explorer.names import search_symbols
from explorer.render.diagram import default_file_name, render_diagram
from explorer.render.links import LinkTemplate
from explorer.resolve import (
    FlowEdges,  # noqa: F401 - loaded with the server, not by its first request
)

_SEARCH_LIMIT = 100
TRACE_COMMAND = "explorer.traceToVendor"
DIAGRAM_COMMAND = "explorer.openDiagram"
_TRACEABLE = frozenset(
    {SymbolKind.FUNCTION, SymbolKind.METHOD, SymbolKind.KERNEL, SymbolKind.STRUCTURED_KERNEL, SymbolKind.OPERATOR}
)


server = ExplorerServer()


@server.feature(lsp.INITIALIZE)
def initialize(ls: ExplorerServer, params: lsp.InitializeParams) -> None:
    ls.options, ignored = read_options(params.initialization_options)
    for line in ignored:
        ls.window_log_message(lsp.LogMessageParams(lsp.MessageType.Warning, line))


@server.feature(lsp.INITIALIZED)
def initialized(ls: ExplorerServer, params: lsp.InitializedParams) -> None:
    ls.start_refresh()


@server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: ExplorerServer, params: lsp.DidSaveTextDocumentParams) -> None:
    ls.start_refresh()


@server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: ExplorerServer, params: lsp.DidChangeWatchedFilesParams) -> None:
    ls.start_refresh()


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: ExplorerServer, params: lsp.DidOpenTextDocumentParams) -> None:
    """pygls keeps the document's text; registered so that clients send it (and its changes)."""


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: ExplorerServer, params: lsp.DidChangeTextDocumentParams) -> None:
    """Kept by pygls; a position in it is matched to the saved file when asked about."""


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: ExplorerServer, params: lsp.DidCloseTextDocumentParams) -> None:
    """Answers in the file go back to its lines as saved."""


@server.feature(lsp.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
def did_change_workspace_folders(ls: ExplorerServer, params: lsp.DidChangeWorkspaceFoldersParams) -> None:
    ls.start_refresh()  # the folders are trees: the next request after it reopens them all


@server.feature(lsp.TEXT_DOCUMENT_CODE_LENS)
def code_lens(ls: ExplorerServer, params: lsp.CodeLensParams) -> list[lsp.CodeLens]:
    """On each function, method, kernel and operator: trace it to a vendor call, or draw it."""
    session = ls.current()
    path = path_of(params.text_document.uri, session.root) if session is not None else None
    if session is None or path is None:
        return []
    lenses = []
    for symbol in session.reader.symbols_in_file(path):
        if symbol.kind in _TRACEABLE:
            place = in_buffer(session, path, name_range(session, symbol))
            lenses.append(
                lsp.CodeLens(
                    place, lsp.Command(title="trace to vendor call", command=TRACE_COMMAND, arguments=[symbol.qname])
                )
            )
            lenses.append(
                lsp.CodeLens(place, lsp.Command(title="diagram", command=DIAGRAM_COMMAND, arguments=[symbol.qname]))
            )
    return lenses


@server.command(TRACE_COMMAND)
def trace_to_vendor(ls: ExplorerServer, qname: str) -> list[lsp.Location]:
    """The best chain from a definition to a vendor API call (as `trace --to` ranks paths), as
    locations: each hop's definition; the vendor API, which has no source, at its call."""
    session = ls.current()
    if session is None:
        return []
    report = trace_symbol(session.reader, session.root, qname, backend="cuda", to_vendor=True, paths=1)
    locations = []
    for hop in (report.trace.paths or [[]])[0]:
        found = location_of(session, hop.node.symbol)
        if found is None and hop.edge is not None:
            found = site_location(session, hop.edge.site, hop.node.symbol.name)
        if found is not None:
            locations.append(found)
    return locations


@server.command(DIAGRAM_COMMAND)
def open_diagram(ls: ExplorerServer, qname: str) -> str | None:
    """Write the HTML diagram of a definition's trace (in explorer's cache folder) and return its
    file URI for the client to open."""
    session = ls.current()
    if session is None:
        return None
    report = trace_symbol(session.reader, session.root, qname, backend="cuda")
    diagram = shape(trace_diagram(report), max_nodes=DEFAULT_MAX_NODES, collapse=set(), paths_only=False)
    content = render_diagram(diagram, "html", LinkTemplate.parse(None, session.root), session.sources)
    folder = cache_folder() / "diagrams"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / default_file_name(qname, "html")
    target.write_bytes(content)
    return target.as_uri()


@server.feature(lsp.WORKSPACE_SYMBOL)
def workspace_symbol(ls: ExplorerServer, params: lsp.WorkspaceSymbolParams) -> list[lsp.SymbolInformation]:
    session = ls.current()
    if session is None:
        return []
    if not params.query.strip():
        return []
    hits = search_symbols(session.reader, params.query, _SEARCH_LIMIT)
    return [info for hit in hits if (info := information_of(session, hit.symbol)) is not None]


@server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def document_symbol(ls: ExplorerServer, params: lsp.DocumentSymbolParams) -> list[lsp.SymbolInformation]:
    session = ls.current()
    if session is None:
        return []
    path = path_of(params.text_document.uri, session.root)
    if path is None:
        return []
    return [
        info
        for symbol in session.reader.symbols_in_file(path)
        if symbol.kind is not SymbolKind.MODULE and (info := information_of(session, symbol)) is not None
    ]


@server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
def definition(ls: ExplorerServer, params: lsp.DefinitionParams) -> list[lsp.Location]:
    return definitions_at(ls.current(), params.text_document.uri, params.position)


@server.feature(lsp.TEXT_DOCUMENT_DECLARATION)
def declaration(ls: ExplorerServer, params: lsp.DeclarationParams) -> list[lsp.Location]:
    """A definition is where explorer knows a name from (a C++ declaration in a header is not indexed)."""
    return definitions_at(ls.current(), params.text_document.uri, params.position)


@server.feature(lsp.TEXT_DOCUMENT_IMPLEMENTATION)
def implementation(ls: ExplorerServer, params: lsp.ImplementationParams) -> list[lsp.Location]:
    session = ls.current()
    if session is None:
        return []
    found = implementations(session.graph, symbols_at_position(session, params.text_document.uri, params.position))
    return [location for symbol in found if (location := location_of(session, symbol)) is not None]


@server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
def references(ls: ExplorerServer, params: lsp.ReferenceParams) -> list[lsp.Location]:
    session = ls.current()
    if session is None:
        return []
    found: dict[tuple[str, int, int], lsp.Location] = {}
    for symbol in symbols_at_position(session, params.text_document.uri, params.position):
        if params.context.include_declaration and (own := location_of(session, symbol)) is not None:
            found.setdefault((own.uri, own.range.start.line, own.range.start.character), own)
        for _, edge in callers_of(session.graph, called_node(session.graph, symbol), every_call=True):
            if (site := site_location(session, edge.site, symbol.name)) is not None:
                found.setdefault((site.uri, site.range.start.line, site.range.start.character), site)
    return list(found.values())


@server.feature(lsp.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY)
def prepare_call_hierarchy(ls: ExplorerServer, params: lsp.CallHierarchyPrepareParams) -> list[lsp.CallHierarchyItem]:
    session = ls.current()
    if session is None:
        return []
    return [
        hierarchy_item(session, session.graph.node(symbol), None, None)
        for symbol in symbols_at_position(session, params.text_document.uri, params.position)
    ]


@server.feature(lsp.CALL_HIERARCHY_OUTGOING_CALLS)
def outgoing_calls(
    ls: ExplorerServer, params: lsp.CallHierarchyOutgoingCallsParams
) -> list[lsp.CallHierarchyOutgoingCall]:
    return [
        lsp.CallHierarchyOutgoingCall(to=item, from_ranges=ranges)
        for item, ranges in hierarchy_steps(ls.current(), params.item, False)
    ]


@server.feature(lsp.CALL_HIERARCHY_INCOMING_CALLS)
def incoming_calls(
    ls: ExplorerServer, params: lsp.CallHierarchyIncomingCallsParams
) -> list[lsp.CallHierarchyIncomingCall]:
    return [
        lsp.CallHierarchyIncomingCall(from_=item, from_ranges=ranges)
        for item, ranges in hierarchy_steps(ls.current(), params.item, True)
    ]


@server.feature(lsp.TEXT_DOCUMENT_HOVER)
def hover(ls: ExplorerServer, params: lsp.HoverParams) -> lsp.Hover | None:
    session = ls.current()
    if session is None:
        return None
    symbols = symbols_at_position(session, params.text_document.uri, params.position)
    if not symbols:
        return None
    return lsp.Hover(lsp.MarkupContent(lsp.MarkupKind.Markdown, hover_text(session, symbols[0])))


class _OneLine(logging.Formatter):
    """The server's log, on stderr (which clients show in a log panel): one line per problem,
    no traceback."""

    def formatException(self, exc_info: object) -> str:
        return ""

    def format(self, record: logging.LogRecord) -> str:
        return super().format(record).split("\n", 1)[0]


def serve() -> None:
    """Speak LSP on stdin and stdout until the client exits (or goes away: stdin closes)."""
    handler = logging.StreamHandler()
    handler.setFormatter(_OneLine("explorer lsp: %(levelname)s %(message)s"))
    for name in ("pygls", "explorer"):
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.propagate = False
    # pygls's start_io, with the input read as LSP frames it (stream.py)
    server._stop_event = threading.Event()
    reader = FramedReader(sys.stdin.buffer, server.thread_pool)
    server.protocol.set_writer(StdoutWriter(sys.stdout.buffer))
    try:
        asyncio.run(
            run_async(
                stop_event=server._stop_event,
                reader=reader,
                protocol=server.protocol,
                logger=logging.getLogger("pygls"),
                error_handler=server.report_server_error,
            )
        )
    except BrokenPipeError:
        logging.getLogger("explorer").error("the client went away (its end of the output closed)")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()  # type: ignore[no-untyped-call]  # pygls leaves it unannotated
    if reader.broken is not None:
        sys.stderr.write(f"explorer lsp: error: the input is not an LSP stream: {reader.broken}\n")
        raise SystemExit(1)
