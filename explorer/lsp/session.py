"""The language server's session: the indexes it answers from, refreshed in the background and
reopened by the next request after a refresh, and the protocol's edge cases pygls leaves open."""

from __future__ import annotations

import asyncio
import os
import reprlib
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
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import to_fs_path

from explorer import __version__
from explorer.config import find_config, resolve_settings
from explorer.errors import ExplorerError, UsageError
from explorer.index import IndexReader, IndexStore, WalkOptions
from explorer.lsp.buffers import Buffer, buffer_of
from explorer.lsp.positions import path_of
from explorer.model import Tree, TreeKind
from explorer.render.progress import reported
from explorer.resolve import (
    CallGraph,
    FlowEdges,  # noqa: F401 - loaded with the server, not by its first request
    SourceLines,
)
from explorer.workspace import TreeNotReady, TreeRequest, open_workspace


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


@dataclass(frozen=True)
class EditorOptions:
    """What the client's initializationOptions set, as the CLI's --tree and --python-env."""

    trees: tuple[str, ...] = ()
    python_env: str | None = None


# the names initializationOptions may hold, and what each must be
INITIALIZATION_OPTIONS = {"trees": "a list of paths", "pythonEnv": "a path"}


def read_options(given: object) -> tuple[EditorOptions, list[str]]:
    """The options a client's initializationOptions set (`trees` one path or a list of them,
    `pythonEnv` a path), and a line for each it holds that explorer ignores: a name it does
    not read, or a value of the wrong kind (a list of paths read as a string would be a tree
    per character)."""
    if not isinstance(given, dict):
        return EditorOptions(), []
    said = []
    unknown = sorted(str(name) for name in given if name not in INITIALIZATION_OPTIONS)
    if unknown:
        said.append(
            f"explorer: initializationOptions {', '.join(unknown)} ignored (it reads {', '.join(sorted(INITIALIZATION_OPTIONS))})"
        )
    trees = given.get("trees")
    trees = [trees] if isinstance(trees, str) else trees
    if trees is not None and not (isinstance(trees, list) and all(isinstance(tree, str) for tree in trees)):
        said.append(_ignored("trees", trees))
        trees = None
    python_env = given.get("pythonEnv")
    if python_env is not None and not isinstance(python_env, str):
        said.append(_ignored("pythonEnv", python_env))
        python_env = None
    return EditorOptions(tuple(trees or ()), python_env), said


def _ignored(name: str, value: object) -> str:
    return (
        f"explorer: initializationOptions {name} ignored: {reprlib.repr(value)} is not {INITIALIZATION_OPTIONS[name]}"
    )


class IndexNotReady(TreeNotReady):
    """A tree's index is missing or out of date and is being built in the background."""


class ServerProtocol(LanguageServerProtocol):
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
        super().__init__("explorer", __version__, protocol_cls=ServerProtocol)
        self.session: Session | None = None
        self.options = EditorOptions()  # what the client's initializationOptions set
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
        given = {"trees": list(self.options.trees) or None, "python-env": self.options.python_env}
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
            opened = closing.enter_context(open_workspace(self.tree_request(), only_if_ready, partial=True))
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


def only_if_ready(tree: Tree, index_path: Path, options: WalkOptions | None, leave_out: frozenset[str]) -> None:
    """Opening for a request: nothing is refreshed; an index that cannot serve is not used."""
    reason = IndexStore.unusable_reason(index_path, tree.root)
    if reason is not None:
        raise IndexNotReady(f"{tree.name}: {reason}")
    # An installed distribution is handed over for refreshing only when its RECORD changed; a
    # source folder an editable install names (.pth) is handed over each time, and is ready.
    if tree.kind is TreeKind.INSTALLED:
        raise IndexNotReady(f"{tree.name}: installed again")
