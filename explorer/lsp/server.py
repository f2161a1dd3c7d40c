"""The language server: one thin handler per LSP request, each turning protocol positions into
a query of explorer's own modules (the CLI's) and explorer's records back into protocol types.

The workspace's first folder is the project (`--root`); `initializationOptions` may name
`trees` (other source trees) and `pythonEnv`, as the CLI's `--tree` and `--python-env`.
The indexes are brought up to date when the first request comes and again after a file is
saved; a request is answered from the index as it was last refreshed.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest, JsonRpcServerNotInitialized
from pygls.io_ import StdoutWriter, run_async
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import to_fs_path

from explorer import __version__
from explorer.analysis import (
    DEFAULT_MAX_NODES,
    callers_of,
    describe,
    hop_cost,
    implementations,
    symbols_at,
    symbols_called_at,
    trace_symbol,
)
from explorer.config import find_config, resolve_settings
from explorer.diagram.build import trace_diagram
from explorer.diagram.fold import shape
from explorer.errors import ExplorerError, UsageError
from explorer.index import IndexReader, IndexStore, WalkOptions
from explorer.lsp.buffers import Buffer, buffer_of
from explorer.lsp.hierarchy import node_data, node_of
from explorer.lsp.positions import column_of, line_range, path_of, span_range, uri_of
from explorer.lsp.stream import FramedReader
from explorer.model import CallEdge, CallNode, Layer, Resolution, Symbol, SymbolKind, Tree, TreeKind
from explorer.names import search_symbols
from explorer.render.diagram import default_file_name, render_diagram
from explorer.render.links import LinkTemplate
from explorer.render.progress import reported
from explorer.resolve import (
    CallGraph,
    FlowEdges,  # noqa: F401 - loaded with the server, not by its first request
    SourceLines,
    layer_of,
)
from explorer.workspace import TreeNotReady, TreeRequest, cache_folder, open_workspace

# The initializationOptions the server reads (the CLI's --tree and --python-env); others are
# said to be ignored, so that a misspelt one is not silently without effect
INITIALIZATION_OPTIONS = frozenset({"trees", "pythonEnv"})

_KINDS = {
    SymbolKind.MODULE: lsp.SymbolKind.Module,
    SymbolKind.CLASS: lsp.SymbolKind.Class,
    SymbolKind.FUNCTION: lsp.SymbolKind.Function,
    SymbolKind.METHOD: lsp.SymbolKind.Method,
    SymbolKind.VARIABLE: lsp.SymbolKind.Variable,
    SymbolKind.ALIAS: lsp.SymbolKind.Variable,
    SymbolKind.NAMESPACE: lsp.SymbolKind.Namespace,
    SymbolKind.STRUCT: lsp.SymbolKind.Struct,
    SymbolKind.ENUM: lsp.SymbolKind.Enum,
    SymbolKind.FIELD: lsp.SymbolKind.Field,
    SymbolKind.KERNEL: lsp.SymbolKind.Function,
    SymbolKind.STRUCTURED_KERNEL: lsp.SymbolKind.Function,
    SymbolKind.META_FUNCTION: lsp.SymbolKind.Function,
    SymbolKind.DISPATCH_STUB: lsp.SymbolKind.Variable,
    SymbolKind.DISPATCH_REGISTRATION: lsp.SymbolKind.Event,
    SymbolKind.MACRO: lsp.SymbolKind.Constant,
    SymbolKind.PYBIND: lsp.SymbolKind.Function,
    SymbolKind.METHOD_TABLE: lsp.SymbolKind.Function,
    SymbolKind.EXTENSION: lsp.SymbolKind.Package,
    SymbolKind.OPERATOR: lsp.SymbolKind.Operator,
    SymbolKind.EXTERNAL: lsp.SymbolKind.Function,
}
_SEARCH_LIMIT = 100
TRACE_COMMAND = "explorer.traceToVendor"
DIAGRAM_COMMAND = "explorer.openDiagram"
_TRACEABLE = frozenset(
    {SymbolKind.FUNCTION, SymbolKind.METHOD, SymbolKind.KERNEL, SymbolKind.STRUCTURED_KERNEL, SymbolKind.OPERATOR}
)
_HOVER_HOPS = 8


@dataclass
class Session:
    """The open indexes of a workspace, and what queries share between requests."""

    root: str
    reader: IndexReader
    graph: CallGraph
    sources: SourceLines
    closing: ExitStack
    # an open document whose text differs from its file as saved (lsp/buffers.py), by path
    buffer: Callable[[str], Buffer | None] = lambda path: None


class IndexNotReady(TreeNotReady):
    """A tree's index is missing or out of date and is being built in the background."""


class _Protocol(LanguageServerProtocol):
    """pygls answers nothing to a request whose parameters it cannot read (it logs the error),
    nor to one after `shutdown` (it logs a warning): a client would wait on either for ever.
    The first gets LSP's InvalidParams error, the second InvalidRequest, as the protocol says."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if "id" in data and "method" in data:  # a request, which the client waits on
                self._send_response(data["id"], None, error.to_response_error())
            raise

    def handle_message(self, message: Any) -> None:
        if self._shutdown and getattr(message, "method", "exit") != "exit" and getattr(message, "id", None) is not None:
            refused = JsonRpcInvalidRequest("the server was asked to shut down: it answers no more requests")
            self._send_response(message.id, None, refused.to_response_error())
            return
        super().handle_message(message)


class ExplorerServer(LanguageServer):
    """Requests are answered from the indexes as a background refresh last left them: the
    refresh runs in a thread of its own (on start, after a save, when watched files change),
    and the next request after it finishes reopens them. SQLite's write-ahead log gives each
    reader a consistent snapshot while the refresh writes; a rebuilt index replaces the old
    file only when complete (index/build.py)."""

    def __init__(self) -> None:
        super().__init__("explorer", __version__, protocol_cls=_Protocol)
        self.session: Session | None = None
        self.options: dict = {}  # the client's initializationOptions
        self.problem: str | None = None  # why the last refresh failed, if it did
        self._refreshed = threading.Event()  # a refresh finished since the session was opened
        self._lock = threading.Lock()
        self._refreshing = False
        self._again = False  # a change came in while refreshing: refresh once more
        self._said_waiting = False
        # Work-done progress, for clients that show it: one token per background refresh.
        self._loop: asyncio.AbstractEventLoop | None = None
        self._progress: str | None = None  # the open token
        self._progress_begun: set[str] = set()
        self._progress_count = 0
        self._buffers: dict[str, tuple[int | None, Buffer | None]] = {}  # path -> (document version, buffer)

    def tree_request(self) -> TreeRequest:
        """The workspace as trees: its root (else its first folder) is the project; its other
        folders and initializationOptions' `trees` join it, as --tree does."""
        try:
            workspace = self.workspace
        except RuntimeError:  # a request before `initialize`: LSP's own error for it
            raise JsonRpcServerNotInitialized() from None
        folders = [path for uri in workspace.folders if (path := to_fs_path(uri)) is not None]
        root = workspace.root_path or (folders[0] if folders else os.getcwd())
        others = [folder for folder in folders if os.path.abspath(folder) != os.path.abspath(root)]
        # initializationOptions first, then the environment, then the project's configuration
        try:
            config = find_config(root)
        except UsageError as error:  # said once where answers wait, as a failed refresh is
            self.problem, config = str(error), None
        given = {"trees": list(self.options.get("trees", ())) or None, "python-env": self.options.get("pythonEnv")}
        settings = resolve_settings(given, config)
        trees, python = settings["trees"].value, settings["python-env"].value
        listed = [str(tree) for tree in trees] if isinstance(trees, list) else []
        return TreeRequest(root, None, (*others, *listed), python if isinstance(python, str) else None)

    def start_refresh(self) -> None:
        """Refresh every tree's index in the background (called from the server's loop)."""
        with self._lock:
            if self._refreshing:
                self._again = True
                return
            self._refreshing = True
        self._loop = asyncio.get_event_loop()
        self._begin_progress()
        threading.Thread(target=self._refresh_all, name="explorer-refresh", daemon=True).start()

    def _begin_progress(self) -> None:
        window = self.client_capabilities.window if self.client_capabilities is not None else None
        if window is None or not window.work_done_progress:
            return
        self._progress_count += 1
        token = self._progress = f"explorer-index-{self._progress_count}"

        def created(*_: object) -> None:  # the client has the token: begin (and end, if done already)
            self._progress_begun.add(token)
            self.work_done_progress.begin(
                token, lsp.WorkDoneProgressBegin(title="explorer: indexing", message=self.tree_request().root)
            )
            if self._progress != token:
                self.work_done_progress.end(token, lsp.WorkDoneProgressEnd(message=self.problem or "indexed"))

        self.work_done_progress.create(token, created)

    def _end_progress(self) -> None:
        token, self._progress = self._progress, None
        if token is not None and token in self._progress_begun:
            self.work_done_progress.end(token, lsp.WorkDoneProgressEnd(message=self.problem or "indexed"))

    def _refresh_all(self) -> None:
        """Run `explorer index` over every tree in a process of its own (its parser workers
        must not be forked from this server's threads), as often as changes came in."""
        while True:
            request = self.tree_request()
            command = [sys.executable, "-m", "explorer", "index", "--root", request.root or os.getcwd()]
            command += [argument for tree in request.trees for argument in ("--tree", tree)]
            command += ["--python-env", request.python] if request.python else []
            try:
                # run in the project, so that it finds the configuration this server read
                with subprocess.Popen(
                    command,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    text=True,
                    errors="replace",
                    cwd=request.root if request.root and os.path.isdir(request.root) else None,
                ) as done:
                    said = [line.rstrip("\n") for line in self._passed_on(done.stderr)]
                said = [line for line in said if line.strip()]
                self.problem = (
                    (said[-1] if said else f"explorer index exited with {done.returncode}") if done.returncode else None
                )
            except OSError as error:
                self.problem = f"cannot run explorer index: {error}"
            self._refreshed.set()
            with self._lock:
                if not self._again:
                    self._refreshing = False
                    if self._loop is not None:
                        self._loop.call_soon_threadsafe(self._end_progress)
                    return
                self._again = False

    def _passed_on(self, lines: Iterable[str] | None) -> Iterator[str]:
        """The indexing process's lines, as they come; its progress lines are passed on to
        the editor as work-done reports (a percentage where they count files)."""
        for line in lines or ():
            if (said := reported(line)) is not None and self._loop is not None:
                self._loop.call_soon_threadsafe(self._report_progress, *said)
            yield line

    def _report_progress(self, message: str, percentage: int | None) -> None:
        token = self._progress
        if token is not None and token in self._progress_begun:
            self.work_done_progress.report(token, lsp.WorkDoneProgressReport(message=message, percentage=percentage))

    def current(self) -> Session | None:
        """The indexes as the last refresh left them; None while none can be read yet."""
        if self.session is not None and not self._refreshed.is_set():
            return self.session
        self._refreshed.clear()
        closing = ExitStack()
        try:
            # the trees that are ready answer now; the others join when the refresh is done
            opened = closing.enter_context(open_workspace(self.tree_request(), _only_if_ready, partial=True))
        except (IndexNotReady, ExplorerError, OSError) as error:
            closing.close()
            if self.session is None:
                self._say_waiting(str(error))
            return self.session  # the previous one, if any, until the refresh is done
        if self.session is not None:
            self.session.closing.close()
        sources = SourceLines(opened.root)
        self._buffers.clear()  # the files as saved may have changed with the index
        self.session = Session(
            opened.root,
            opened.reader,
            CallGraph(opened.reader, opened.root, "all"),
            sources,
            closing,
            lambda path: self._buffer(opened.root, sources, path),
        )
        if opened.waiting:
            self._said_waiting = True  # answers come now: no "indexing, answers come when done"
            self.window_log_message(
                lsp.LogMessageParams(
                    lsp.MessageType.Info,
                    "explorer: answering without "
                    f"{len(opened.waiting)} trees until they are indexed: {'; '.join(opened.waiting[:3])}",
                )
            )
        return self.session

    def _buffer(self, root: str, sources: SourceLines, path: str) -> Buffer | None:
        """The editor's open document of `path`, where its text differs from the file."""
        document = next((d for uri, d in self.workspace.text_documents.items() if path_of(uri, root) == path), None)
        if document is None:
            return None
        cached = self._buffers.get(path)
        if cached is None or cached[0] != document.version:
            cached = self._buffers[path] = (document.version, buffer_of(sources.of_file(path), document.source))
        return cached[1]

    def _say_waiting(self, why: str) -> None:
        if not self._said_waiting:
            self._said_waiting = True
            message = (
                self.problem or f"explorer is indexing {self.tree_request().root}; answers come when it is done ({why})"
            )
            self.window_show_message(lsp.ShowMessageParams(lsp.MessageType.Info, message))


def _only_if_ready(tree: Tree, index_path: Path, options: WalkOptions | None, leave_out: frozenset[str]) -> None:
    """Opening for a request: nothing is refreshed; an index that cannot serve is not used."""
    reason = IndexStore.unusable_reason(index_path, tree.root)
    if reason is not None:
        raise IndexNotReady(f"{tree.name}: {reason}")
    # An installed distribution is handed over for refreshing only when its RECORD changed; a
    # source folder an editable install names (.pth) is handed over each time, and is ready.
    if tree.kind is TreeKind.INSTALLED:
        raise IndexNotReady(f"{tree.name}: installed again")


server = ExplorerServer()


@server.feature(lsp.INITIALIZE)
def initialize(ls: ExplorerServer, params: lsp.InitializeParams) -> None:
    ls.options = params.initialization_options if isinstance(params.initialization_options, dict) else {}
    unknown = sorted(str(name) for name in ls.options if name not in INITIALIZATION_OPTIONS)
    if unknown:
        ls.window_log_message(
            lsp.LogMessageParams(
                lsp.MessageType.Warning,
                (
                    f"explorer: initializationOptions {', '.join(unknown)} ignored (it reads {', '.join(sorted(INITIALIZATION_OPTIONS))})"
                ),
            )
        )


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
            place = _in_buffer(session, path, _name_range(session, symbol))
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
        found = _location(session, hop.node.symbol)
        if found is None and hop.edge is not None and hop.edge.site is not None:
            found = _site_location(session, hop.edge.site)
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
    return [info for hit in hits if (info := _information(session, hit.symbol)) is not None]


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
        if symbol.kind is not SymbolKind.MODULE and (info := _information(session, symbol)) is not None
    ]


@server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
def definition(ls: ExplorerServer, params: lsp.DefinitionParams) -> list[lsp.Location]:
    return _definitions(ls.current(), params.text_document.uri, params.position)


@server.feature(lsp.TEXT_DOCUMENT_DECLARATION)
def declaration(ls: ExplorerServer, params: lsp.DeclarationParams) -> list[lsp.Location]:
    """A definition is where explorer knows a name from (a C++ declaration in a header is not indexed)."""
    return _definitions(ls.current(), params.text_document.uri, params.position)


@server.feature(lsp.TEXT_DOCUMENT_IMPLEMENTATION)
def implementation(ls: ExplorerServer, params: lsp.ImplementationParams) -> list[lsp.Location]:
    session = ls.current()
    if session is None:
        return []
    found = implementations(session.graph, _at(session, params.text_document.uri, params.position))
    return [location for symbol in found if (location := _location(session, symbol)) is not None]


@server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
def references(ls: ExplorerServer, params: lsp.ReferenceParams) -> list[lsp.Location]:
    session = ls.current()
    if session is None:
        return []
    found: dict[tuple[str, int], lsp.Location] = {}
    for symbol in _at(session, params.text_document.uri, params.position):
        if params.context.include_declaration and (own := _location(session, symbol)) is not None:
            found.setdefault((own.uri, own.range.start.line), own)
        for _, edge in callers_of(session.graph, CallNode(symbol, layer_of(symbol))):
            if edge.site is not None:
                site = _site_location(session, edge.site)
                found.setdefault((site.uri, site.range.start.line), site)
    return list(found.values())


@server.feature(lsp.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY)
def prepare_call_hierarchy(ls: ExplorerServer, params: lsp.CallHierarchyPrepareParams) -> list[lsp.CallHierarchyItem]:
    session = ls.current()
    if session is None:
        return []
    return [
        _item(session, session.graph.node(symbol), None, None)
        for symbol in _at(session, params.text_document.uri, params.position)
    ]


@server.feature(lsp.CALL_HIERARCHY_OUTGOING_CALLS)
def outgoing_calls(
    ls: ExplorerServer, params: lsp.CallHierarchyOutgoingCallsParams
) -> list[lsp.CallHierarchyOutgoingCall]:
    return [
        lsp.CallHierarchyOutgoingCall(to=item, from_ranges=ranges)
        for item, ranges in _steps(ls.current(), params.item, False)
    ]


@server.feature(lsp.CALL_HIERARCHY_INCOMING_CALLS)
def incoming_calls(
    ls: ExplorerServer, params: lsp.CallHierarchyIncomingCallsParams
) -> list[lsp.CallHierarchyIncomingCall]:
    return [
        lsp.CallHierarchyIncomingCall(from_=item, from_ranges=ranges)
        for item, ranges in _steps(ls.current(), params.item, True)
    ]


@server.feature(lsp.TEXT_DOCUMENT_HOVER)
def hover(ls: ExplorerServer, params: lsp.HoverParams) -> lsp.Hover | None:
    session = ls.current()
    if session is None:
        return None
    symbols = _at(session, params.text_document.uri, params.position)
    if not symbols:
        return None
    return lsp.Hover(lsp.MarkupContent(lsp.MarkupKind.Markdown, _hover_text(session, symbols[0])))


# -- from records to the protocol and back ----------------------------------------------------


def _at(session: Session, uri: str, position: lsp.Position) -> list[Symbol]:
    path = path_of(uri, session.root)
    if path is None:
        return []
    line = position.line + 1
    buffer = session.buffer(path)
    if buffer is None:
        text = session.sources.line(path, line)
        return symbols_at(session.graph, session.reader, path, line, text, column_of(text, position.character))
    # a line the saved file also has is read in the index at its saved number; one only the
    # buffer has by the calls its text makes, else by the name under the cursor (line 0
    # holds nothing in the index)
    text = buffer.line(line)
    column = column_of(text, position.character)
    saved = buffer.map.saved_line(line)
    if saved is None:
        called = symbols_called_at(session.reader, buffer.calls(path), line, text, column)
        if called:
            return called
    return symbols_at(session.graph, session.reader, path, saved or 0, text, column)


def _in_buffer(session: Session, path: str, place: lsp.Range) -> lsp.Range:
    """A range of the file as saved, moved to the lines of its open buffer, if it has one."""
    buffer = session.buffer(path)
    if buffer is None:
        return place
    start, end = buffer.map.buffer_line(place.start.line + 1) - 1, buffer.map.buffer_line(place.end.line + 1) - 1
    return lsp.Range(lsp.Position(start, place.start.character), lsp.Position(max(start, end), place.end.character))


def _definitions(session: Session | None, uri: str, position: lsp.Position) -> list[lsp.Location]:
    if session is None:
        return []
    return [location for symbol in _at(session, uri, position) if (location := _location(session, symbol)) is not None]


def _location(session: Session, symbol: Symbol) -> lsp.Location | None:
    if symbol.path is None or symbol.line is None:
        return None
    return lsp.Location(
        uri_of(symbol.path, session.root), _in_buffer(session, symbol.path, _name_range(session, symbol))
    )


def _name_range(session: Session, symbol: Symbol) -> lsp.Range:
    """The definition's name on its first line (the whole line if it is not written there)."""
    text = session.sources.line(symbol.path or "", symbol.line or 1)
    at = _name_column(text, symbol.name)
    return (
        line_range(symbol.line or 1, text, at, at + len(symbol.name)) if at >= 0 else line_range(symbol.line or 1, text)
    )


def _name_column(text: str, name: str) -> int:
    """Where `name` is written on a line as a whole identifier, or -1."""
    found = re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text)
    return found.start() if found is not None else -1


def _site_location(session: Session, site: tuple[str, int]) -> lsp.Location:
    path, line = site
    return lsp.Location(
        uri_of(path, session.root), _in_buffer(session, path, line_range(line, session.sources.line(path, line)))
    )


def _information(session: Session, symbol: Symbol) -> lsp.SymbolInformation | None:
    location = _location(session, symbol)
    if location is None:
        return None
    return lsp.SymbolInformation(
        name=symbol.qname, kind=_KINDS[symbol.kind], location=location, container_name=layer_of(symbol).value
    )


def _item(
    session: Session,
    node: CallNode,
    edge: CallEdge | None,
    site: tuple[str, int] | None,
    near: lsp.CallHierarchyItem | None = None,
) -> lsp.CallHierarchyItem:
    """A node of the call graph as a call hierarchy item. One without source (a vendor API, a
    kernel the tree lacks, a binding generated at build time) is placed at the call that
    reaches it, or where there is none at the item it was reached from (`near`), and its
    detail says so."""
    symbol = node.symbol
    detail = _detail(symbol, edge)
    if symbol.path is not None and symbol.line is not None:
        text = session.sources.of_file(symbol.path)
        last = min(symbol.end_line or symbol.line, max(len(text), symbol.line))
        whole = _in_buffer(
            session, symbol.path, span_range(symbol.line, last, text[last - 1] if 0 < last <= len(text) else "")
        )
        uri, selection = (
            uri_of(symbol.path, session.root),
            _in_buffer(session, symbol.path, _name_range(session, symbol)),
        )
    elif site is not None:
        place = _site_location(session, site)
        uri, whole, selection = place.uri, place.range, place.range
    elif near is not None:
        uri, whole, selection = near.uri, near.selection_range, near.selection_range
    else:
        uri, whole, selection = uri_of(".", session.root), line_range(1, ""), line_range(1, "")
    return lsp.CallHierarchyItem(
        name=symbol.qname,
        kind=_KINDS[symbol.kind],
        uri=uri,
        range=whole,
        selection_range=selection,
        detail=detail,
        data=node_data(node),
    )


def _detail(symbol: Symbol, edge: CallEdge | None) -> str:
    """The layer, how the hop is made and how certain it is: `cuda · dispatch:CUDA`,
    `cpp · call · ambiguous (2 candidates)`, `vendor · call`."""
    parts = [layer_of(symbol).value]
    if edge is not None:
        parts.append(edge.label)
        if edge.resolution is Resolution.AMBIGUOUS:
            parts.append(f"ambiguous ({len(edge.candidates)} candidates)")
        elif edge.resolution is Resolution.NAME:
            parts.append("by name only")
    if symbol.path is None and layer_of(symbol) is not Layer.VENDOR:
        parts.append(symbol.signature or "not defined in the tree")
    return " · ".join(parts)


def _steps(
    session: Session | None, item: lsp.CallHierarchyItem, incoming: bool
) -> list[tuple[lsp.CallHierarchyItem, list[lsp.Range]]]:
    """One step of the call hierarchy from `item`: what it calls, or what calls it, each with
    the lines of the calls (in the caller's file, as LSP has it both ways). Outgoing calls
    come in the order trace ranks its hops: the more certain first, the source's order among
    equals."""
    node = node_of(session.reader, item.data, item.name) if session is not None else None
    if session is None or node is None:
        return []
    if incoming:
        steps = [(caller, edge) for caller, edge in callers_of(session.graph, node)]
    else:
        steps = [(edge.target, edge) for edge in sorted(session.graph.edges(node), key=hop_cost)]
    answered = []
    for other, edge in steps:
        other_item = _item(session, other, edge, edge.site, near=item)
        # a hop without a call in the source (a generated binding to its operator): the range
        # is the caller item's own, so that editors show the hop
        caller = other_item if incoming else item
        ranges = [_site_location(session, edge.site).range] if edge.site is not None else [caller.selection_range]
        answered.append((other_item, ranges))
    return answered


def _hover_text(session: Session, symbol: Symbol) -> str:
    details = describe(session.reader, session.root, symbol, 0)
    where = f"{symbol.path}:{symbol.line}" if symbol.path is not None else "no source in the trees"
    lines = [f"**{symbol.qname}** · {symbol.kind.value} · {layer_of(symbol).value} · `{where}`"]
    if symbol.signature:
        lines += ["```", symbol.signature, "```"]
    for row in details.kernels:
        defined = ", ".join(f"{k.path}:{k.line}" for k in row.definitions[:2]) or "not defined in the tree"
        lines.append(f"- `{row.key}`: {row.kernel} ({defined})")
    for path, entry in details.derivatives[:1]:
        lines += [
            f"- autograd ({path}:{entry.line}): "
            + "; ".join(f"{grads}: {formula}" for grads, formula in entry.formulas[:3])
        ]
    hops = session.graph.edges(session.graph.node(symbol))[:_HOVER_HOPS]
    if hops:
        lines.append("")
        lines.append(
            "next: "
            + ", ".join(f"{edge.target.symbol.qname} ({edge.label}{_at_line(edge.target.symbol)})" for edge in hops)
        )
    return "\n".join(lines)


def _at_line(symbol: Symbol) -> str:
    return f", {symbol.path}:{symbol.line}" if symbol.path is not None else ""


class _OneLine(logging.Formatter):
    """The server's log, on stderr (which clients show in a log panel): one line per problem,
    no traceback."""

    def formatException(self, exc_info) -> str:
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
        server.shutdown()
    if reader.broken is not None:
        sys.stderr.write(f"explorer lsp: error: the input is not an LSP stream: {reader.broken}\n")
        raise SystemExit(1)
