"""What the benchmark scripts share: the command line, timing a command, and a language server
started on a tree."""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def arguments(
    doc: str | None, repeat: int, limit: float | None = None, python_env: bool = False, folders: bool = False
) -> argparse.Namespace:
    """--root (default $EXPLORER_REAL_TORCH, resolved), --repeat, given a default --limit
    (seconds a peer tool may run), and if asked --python-env; exits when the tree is missing."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", default=os.environ.get("EXPLORER_REAL_TORCH"), help="a PyTorch source tree")
    parser.add_argument("--repeat", type=int, default=repeat, help="runs per figure (median)")
    if limit is not None:
        parser.add_argument(
            "--limit", type=float, default=limit, help="seconds a peer tool's run may take before it is stopped"
        )
    if python_env:
        parser.add_argument(
            "--python-env", help="the project's interpreter or environment, whose packages join (default: none)"
        )
    if folders:
        parser.add_argument(
            "--under", action="append", default=[], help="a folder of the tree to measure alone (repeatable)"
        )
    args = parser.parse_args()
    if not args.root or not Path(args.root).is_dir():
        raise SystemExit("give --root (or EXPLORER_REAL_TORCH): a PyTorch source tree")
    args.root = str(Path(args.root).resolve())
    return args


def median_seconds(
    command: list[str], repeat: int, env: dict[str, str], stdin: bytes | None = None, check: bool = True
) -> float:
    """The median wall time of `repeat` runs of a command, start-up included."""
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(command, check=check, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


async def started_server(client_name: str, root: Path, env: dict[str, str]) -> Any:
    """`explorer lsp` on `root`, driven over stdio as an editor drives it, once it answers a
    workspace symbol (its index is ready). The caller shuts it down."""
    from lsprotocol import types as lsp
    from pygls.lsp.client import LanguageClient

    client = LanguageClient(client_name, "1")
    await client.start_io(sys.executable, "-m", "explorer", "lsp", env=env)
    await client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), root_uri=root.as_uri()))
    client.initialized(lsp.InitializedParams())
    while not await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="conv2d")):
        await asyncio.sleep(0.2)
    return client
