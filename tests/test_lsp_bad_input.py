"""`explorer lsp` fed what a broken or impatient client sends: bytes that are no JSON, requests
before `initialize`, an unknown method, parameters of the wrong type, and then no more input
(the client went away). Each request gets an LSP error, and each problem is logged in one line; the server ends
cleanly when its input ends, without a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest


def frame(message: dict | bytes) -> bytes:
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def responses(stdout: bytes) -> list[dict]:
    found = []
    for part in stdout.split(b"Content-Length: ")[1:]:
        found.append(json.loads(part.split(b"\r\n\r\n", 1)[1]))
    return found


def test_bad_input_gets_errors_and_the_server_ends_with_its_input(tmp_path):
    position = {"line": 0, "character": 0}
    sent = b"".join(
        [
            frame(b"{not json"),
            frame(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "textDocument/definition",
                    "params": {"textDocument": {"uri": "file:///x.py"}, "position": position},
                }
            ),
            frame({"jsonrpc": "2.0", "id": 2, "method": "no/such/method", "params": {}}),
            frame({"jsonrpc": "2.0", "id": 3, "method": "textDocument/hover", "params": {"textDocument": {"uri": 7}}}),
        ]
    )
    env = {**os.environ, "EXPLORER_CACHE_DIR": str(tmp_path), "EXPLORER_PYTHON_ENV": "none"}
    done = subprocess.run(
        [sys.executable, "-m", "explorer", "lsp"], input=sent, capture_output=True, timeout=60, env=env
    )
    assert done.returncode == 0
    errors = {answer["id"]: answer["error"]["code"] for answer in responses(done.stdout) if "id" in answer}
    assert errors == {1: -32002, 2: -32601, 3: -32602}  # ServerNotInitialized, MethodNotFound, InvalidParams
    said = done.stderr.decode().splitlines()
    assert "Traceback" not in done.stderr.decode()
    assert all(line.startswith("explorer lsp: ") for line in said)
    assert said == [
        "explorer lsp: ERROR Unable to handle message",
        'explorer lsp: ERROR Exception occurred for message "1"',
        "explorer lsp: WARNING Failed to handle request 2, unknown method 'no/such/method'",
        "explorer lsp: ERROR Unable to deserialize message",
        "explorer lsp: ERROR Unable to handle message",
    ]


def test_a_source_folder_an_editable_install_names_is_ready_and_a_reinstalled_package_is_not(tmp_path):
    """Opening the trees for a request refreshes nothing: an installed package whose RECORD
    changed waits for the background refresh, but the source folder of an editable install
    (handed over each time, with its walk options) is served as it is indexed."""
    from explorer.index.build import refresh
    from explorer.index.files import WalkOptions
    from explorer.lsp.session import IndexNotReady, only_if_ready
    from explorer.model import Tree, TreeKind

    folder = tmp_path / "src"
    (folder / "mylib").mkdir(parents=True)
    (folder / "mylib" / "__init__.py").write_text("def f():\n    return 1\n")
    index = tmp_path / "mylib.sqlite"
    refresh(str(folder), index, jobs=1)
    options = WalkOptions(only=("mylib",))
    only_if_ready(Tree("mylib", str(folder), TreeKind.SOURCE, None, ("mylib",)), index, options, frozenset())
    installed = Tree("mylib 1.0", str(folder), TreeKind.INSTALLED, "1.0", ("mylib",), "mylib-1.0.dist-info:10:20")
    with pytest.raises(IndexNotReady, match=r"^mylib 1\.0: installed again$"):
        only_if_ready(installed, index, options, frozenset())


def _serve(sent: bytes, tmp_path, timeout: int = 60) -> subprocess.CompletedProcess:
    env = {**os.environ, "EXPLORER_CACHE_DIR": str(tmp_path / "cache"), "EXPLORER_PYTHON_ENV": "none"}
    return subprocess.run(
        [sys.executable, "-m", "explorer", "lsp"], input=sent, capture_output=True, timeout=timeout, env=env
    )


_EARLY = frame({"jsonrpc": "2.0", "id": 1, "method": "workspace/symbol", "params": {"query": "f"}})  # before initialize


@pytest.mark.parametrize(
    ("broken", "why"),
    [
        (b"hello world\r\n\r\n" + _EARLY, "not an LSP header: 'hello world'"),
        (b"Content-Length: abc\r\n\r\n{}" + _EARLY, "a Content-Length that is not a number: 'abc'"),
        (
            b"Content-Length: 99999999999\r\n\r\n" + _EARLY,
            "a message of 99,999,999,999 bytes (at most 67,108,864 are read)",
        ),
        (b"\r\n" + _EARLY, "a message without a Content-Length header"),
        (b"X-Header: " + b"x" * 10_000 + b"\r\n" + _EARLY, "a header line longer than 8192 bytes"),
        (b'Content-Length: 50\r\n\r\n{"jsonrpc"', "the stream ended 40 bytes before the end of a message"),
        (b"Content-Length: 50\r\n", "the stream ended inside a message's headers"),
        (b"\x00\xff\xfe garbage without an end", "the stream ended inside a header line"),
    ],
)
def test_a_stream_that_breaks_lsps_framing_ends_the_server_in_one_line(tmp_path, broken, why):
    # before: pygls skipped what it could not read and took the next message for part of
    # this one, answering nothing more and never exiting, or allocated the length it was told
    done = _serve(_EARLY + broken, tmp_path)
    assert done.returncode == 1
    assert [answer["id"] for answer in responses(done.stdout) if "id" in answer] == [
        1
    ]  # the message before it, answered
    assert done.stderr.decode().splitlines()[-1] == f"explorer lsp: error: the input is not an LSP stream: {why}"
    assert "Traceback" not in done.stderr.decode()


def test_requests_after_shutdown_are_refused_not_left_waiting(tmp_path):
    root = tmp_path / "tree"
    root.mkdir()
    (root / "m.py").write_text("def f():\n    return 1\n")
    sent = b"".join(
        [
            frame(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {"processId": None, "rootUri": root.as_uri(), "capabilities": {}},
                }
            ),
            frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
            frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}),
            frame({"jsonrpc": "2.0", "id": 3, "method": "workspace/symbol", "params": {"query": "f"}}),
            frame({"jsonrpc": "2.0", "method": "exit"}),
        ]
    )
    done = _serve(sent, tmp_path)
    answers = {answer["id"]: answer for answer in responses(done.stdout) if "id" in answer}
    assert sorted(answers) == [1, 2, 3]
    assert answers[2]["result"] is None
    assert answers[3]["error"]["code"] == -32600  # InvalidRequest
    assert "Traceback" not in done.stderr.decode()


def test_a_hover_on_a_fifo_or_an_endless_device_answers(tmp_path):
    root = tmp_path / "tree"
    root.mkdir()
    (root / "m.py").write_text("def f():\n    return 1\n")
    os.mkfifo(root / "pipe.py")  # no writer will ever come: reading it would wait for ever
    (root / "zero.py").symlink_to("/dev/zero")  # never ends
    position = {"line": 0, "character": 4}
    sent = b"".join(
        [
            frame(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {"processId": None, "rootUri": root.as_uri(), "capabilities": {}},
                }
            ),
            frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
            frame(
                {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "method": "textDocument/hover",
                    "params": {"textDocument": {"uri": (root / "pipe.py").as_uri()}, "position": position},
                }
            ),
            frame(
                {
                    "jsonrpc": "2.0",
                    "id": 3,
                    "method": "textDocument/hover",
                    "params": {"textDocument": {"uri": (root / "zero.py").as_uri()}, "position": position},
                }
            ),
            frame(
                {
                    "jsonrpc": "2.0",
                    "id": 4,
                    "method": "textDocument/hover",
                    "params": {"textDocument": {"uri": (root / "m.py").as_uri()}, "position": position},
                }
            ),
            frame({"jsonrpc": "2.0", "id": 5, "method": "shutdown"}),
            frame({"jsonrpc": "2.0", "method": "exit"}),
        ]
    )
    env = {**os.environ, "EXPLORER_CACHE_DIR": str(tmp_path / "cache"), "EXPLORER_PYTHON_ENV": "none"}
    indexed = subprocess.run(
        [sys.executable, "-m", "explorer", "index", "--root", str(root)], capture_output=True, env=env, timeout=120
    )
    assert indexed.returncode == 0  # the server answers from it at once (pipe.py: skipped, not a regular file)
    done = _serve(sent, tmp_path, timeout=120)
    answers = {answer["id"]: answer for answer in responses(done.stdout) if "id" in answer}
    assert sorted(answers) == [1, 2, 3, 4, 5]
    assert answers[2].get("result") is None and answers[3].get("result") is None
    assert "m.f" in json.dumps(answers[4]["result"])


def _lying(message: dict, extra: int) -> bytes:
    """A frame whose Content-Length says `extra` bytes more than its body holds."""
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % (len(body) + extra) + body


class _OpenClient:
    """A client that keeps the server's input open, as an editor does, and waits for answers."""

    def __init__(self, tmp_path) -> None:
        env = {**os.environ, "EXPLORER_CACHE_DIR": str(tmp_path / "cache"), "EXPLORER_PYTHON_ENV": "none"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "explorer", "lsp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self.received = b""
        self.answers: dict[int, dict] = {}
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        while chunk := os.read(self.process.stdout.fileno(), 65536):
            self.received += chunk
            try:
                self.answers = {answer["id"]: answer for answer in responses(self.received) if "id" in answer}
            except ValueError:
                pass  # a message still coming

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def wait_for(self, ident: int, seconds: float = 30) -> dict | None:
        deadline = time.monotonic() + seconds
        while ident not in self.answers and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.answers.get(ident)

    def close(self) -> str:
        assert self.process.stdin is not None and self.process.stderr is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)
        return self.process.stderr.read().decode()


_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"processId": None, "rootUri": None, "capabilities": {}},
}


@pytest.mark.parametrize("then_next", [False, True])
def test_a_content_length_too_large_is_answered_not_waited_on(tmp_path, then_next):
    # before: the server waited for the bytes the header promised, the client for the answer
    client = _OpenClient(tmp_path)
    try:
        client.send(frame(_INITIALIZE))
        assert client.wait_for(1) is not None
        lying = _lying({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}, extra=40)
        # then_next: the next message comes in the same write, inside the bytes the lie promised
        client.send(lying + frame({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}) if then_next else lying)
        assert client.wait_for(2) == {"jsonrpc": "2.0", "id": 2, "result": None}
        if then_next:  # read and answered (refused: the server was asked to shut down)
            answer = client.wait_for(3)
            assert answer is not None and answer["error"]["code"] == -32600
    finally:
        log = client.close()
    assert (
        "explorer lsp: a message's Content-Length said 89 bytes but it held 49: answered it, and read on from the next message"
        in log
    )
    assert "Traceback" not in log


def _initialize_with(options: dict, tmp_path) -> bytes:
    """The initialize request of a one-file project, with these initializationOptions."""
    root = tmp_path / "tree"
    root.mkdir()
    (root / "m.py").write_text("def f():\n    return 1\n")
    params = {"processId": None, "rootUri": root.as_uri(), "capabilities": {}, "initializationOptions": options}
    return frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})


def test_an_initialization_option_the_server_does_not_read_is_said_to_be_ignored(tmp_path):
    sent = b"".join(
        [
            _initialize_with({"tree": ["/elsewhere"], "python_env": "x", "trees": []}, tmp_path),
            frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}),
            frame({"jsonrpc": "2.0", "method": "exit"}),
        ]
    )
    done = _serve(sent, tmp_path)
    logged = [answer["params"] for answer in responses(done.stdout) if answer.get("method") == "window/logMessage"]
    assert logged == [
        {"type": 2, "message": "explorer: initializationOptions python_env, tree ignored (it reads pythonEnv, trees)"}
    ]


def test_initialization_options_of_the_wrong_kind_are_said_to_be_ignored(tmp_path):
    # a number where a list of paths goes failed the background refresh with a traceback and
    # answered every request with an internal error; a string was read as a tree per character
    sent = b"".join(
        [
            _initialize_with({"trees": 5, "pythonEnv": ["python3"]}, tmp_path),
            frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
            frame({"jsonrpc": "2.0", "id": 2, "method": "workspace/symbol", "params": {"query": "f"}}),
            frame({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}),
            frame({"jsonrpc": "2.0", "method": "exit"}),
        ]
    )
    done = _serve(sent, tmp_path)
    answers = responses(done.stdout)
    logged = [answer["params"] for answer in answers if answer.get("method") == "window/logMessage"]
    assert logged == [
        {"type": 2, "message": "explorer: initializationOptions trees ignored: 5 is not a list of paths"},
        {"type": 2, "message": "explorer: initializationOptions pythonEnv ignored: ['python3'] is not a path"},
    ]
    assert [answer.get("error") for answer in answers if answer.get("id") == 2] == [None]
    assert "Traceback" not in done.stderr.decode()


def test_one_path_is_a_list_of_one_tree():
    from explorer.lsp.session import EditorOptions, read_options

    assert read_options({"trees": "/src/pytorch"}) == (EditorOptions(("/src/pytorch",)), [])
    assert read_options({"trees": ["/a", "/b"], "pythonEnv": "none"}) == (EditorOptions(("/a", "/b"), "none"), [])
    assert read_options(None) == (EditorOptions(), [])
    assert read_options({"trees": ["/a", 3]}) == (
        EditorOptions(),
        ["explorer: initializationOptions trees ignored: ['/a', 3] is not a list of paths"],
    )


def test_a_call_at_no_line_has_no_place_in_the_editor():
    # a call Python makes that no line writes (unpacking's `__getitem__`, iterating a spread)
    # is at line 0 of its file: no range, where a range at line -1 would fail the request
    from explorer.lsp.convert import site_location
    from explorer.model import Location

    assert site_location(None, Location("m.py", 0)) is None  # type: ignore[arg-type]
    assert site_location(None, None) is None  # type: ignore[arg-type]
