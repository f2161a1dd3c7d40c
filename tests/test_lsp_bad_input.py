"""`explorer lsp` fed what a broken or impatient client sends: bytes that are no JSON, requests
before `initialize`, an unknown method, parameters of the wrong type, and then no more input
(the client went away). Each request gets an LSP error, and each problem is logged in one line; the server ends
cleanly when its input ends, without a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys

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
    sent = b"".join([
        frame(b"{not json"),
        frame({"jsonrpc": "2.0", "id": 1, "method": "textDocument/definition",
               "params": {"textDocument": {"uri": "file:///x.py"}, "position": position}}),
        frame({"jsonrpc": "2.0", "id": 2, "method": "no/such/method", "params": {}}),
        frame({"jsonrpc": "2.0", "id": 3, "method": "textDocument/hover", "params": {"textDocument": {"uri": 7}}}),
    ])
    env = {**os.environ, "EXPLORER_CACHE_DIR": str(tmp_path), "EXPLORER_PYTHON_ENV": "none"}
    done = subprocess.run([sys.executable, "-m", "explorer", "lsp"], input=sent, capture_output=True, timeout=60, env=env)
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
    from explorer.lsp.server import IndexNotReady, _only_if_ready
    from explorer.model import Tree, TreeKind

    folder = tmp_path / "src"
    (folder / "mylib").mkdir(parents=True)
    (folder / "mylib" / "__init__.py").write_text("def f():\n    return 1\n")
    index = tmp_path / "mylib.sqlite"
    refresh(str(folder), index, jobs=1)
    options = WalkOptions(only=("mylib",))
    _only_if_ready(Tree("mylib", str(folder), TreeKind.SOURCE, None, ("mylib",)), index, options, frozenset())
    installed = Tree("mylib 1.0", str(folder), TreeKind.INSTALLED, "1.0", ("mylib",), "mylib-1.0.dist-info:10:20")
    with pytest.raises(IndexNotReady, match="^mylib 1.0: installed again$"):
        _only_if_ready(installed, index, options, frozenset())
