"""The language server fed random streams, bounded in time: random frames (valid requests
in and out of the lifecycle's order, bodies that are no JSON or no JSON-RPC, wrong parameter
types), bad headers, huge lengths, truncated messages and raw garbage, in a seeded random
mix. Every stream must end the server (its input closes) within the time limit, with exit
status 0 or 1, no traceback, and a bounded peak memory."""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys

import pytest

_SEEDS = range(24)
_PEAK_MB = 600  # the server's resident set, at most (it holds one sample index)


def _frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _request(rng: random.Random, number: int) -> bytes:
    method = rng.choice(
        [
            "initialize",
            "initialized",
            "shutdown",
            "exit",
            "workspace/symbol",
            "textDocument/hover",
            "textDocument/definition",
            "callHierarchy/incomingCalls",
            "no/such/method",
            "$/cancelRequest",
        ]
    )
    params = rng.choice(
        [
            {},
            None,
            7,
            "text",
            [1, 2],
            {"query": rng.choice(["relu", "", "a" * 5000, "\u2028"])},
            {
                "textDocument": {"uri": rng.choice(["file:///dev/zero", "file:///nonexistent.py", "not a uri", 3])},
                "position": {"line": rng.randint(-5, 10**9), "character": rng.randint(-5, 10**6)},
            },
            {"processId": None, "rootUri": None, "capabilities": {}},
        ]
    )
    message: dict = {"jsonrpc": rng.choice(["2.0", "2.0", "2.0", "1.0"]), "method": method}
    if rng.random() < 0.8:
        message["id"] = rng.choice([number, str(number), None, [number]])
    if params is not None:
        message["params"] = params
    return _frame(json.dumps(message).encode())


def _piece(rng: random.Random, number: int) -> bytes:
    kind = rng.random()
    if kind < 0.55:
        return _request(rng, number)
    if kind < 0.65:
        return _frame(
            rng.choice(
                [b"{not json", b"[]", b"null", b'{"jsonrpc": "2.0"}', bytes(rng.randrange(256) for _ in range(40))]
            )
        )
    if kind < 0.75:
        return rng.choice(
            [b"Content-Length: abc\r\n\r\n", b"Content-Length: 99999999999\r\n\r\n", b"\r\n", b"X: y\r\n"]
        )
    if kind < 0.85:
        body = json.dumps(
            {"jsonrpc": "2.0", "id": number, "method": "workspace/symbol", "params": {"query": "x"}}
        ).encode()
        return b"Content-Length: %d\r\n\r\n" % (len(body) + rng.randint(1, 500)) + body  # says more than it sends
    return bytes(rng.randrange(256) for _ in range(rng.randint(1, 300)))


@pytest.mark.parametrize("seed", _SEEDS)
def test_a_random_stream_ends_the_server_cleanly(tmp_path, seed):
    rng = random.Random(seed)
    stream = b"".join(_piece(rng, number) for number in range(rng.randint(1, 12)))
    env = {**os.environ, "EXPLORER_CACHE_DIR": str(tmp_path / "cache"), "EXPLORER_PYTHON_ENV": "none"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    done = subprocess.run(
        [sys.executable, "-m", "explorer", "lsp"], input=stream, capture_output=True, timeout=120, env=env, cwd=tmp_path
    )
    assert done.returncode in (0, 1), (seed, done.returncode, done.stderr[-500:])
    said = done.stderr.decode("utf-8", "replace")
    assert "Traceback" not in said, (seed, said[-1500:])
    assert all(line.startswith("explorer lsp: ") for line in said.splitlines()), (seed, said[-500:])
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # the largest child so far, KiB
    assert peak <= max(before, _PEAK_MB * 1024), (seed, peak)
