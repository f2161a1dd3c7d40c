"""The call hierarchy on PyTorch 2.4.0 (opt-in: EXPLORER_REAL_TORCH names the tree; the index
is built in EXPLORER_CACHE_DIR when set, else in a temporary folder, minutes on two cores).
The chain is test_real_torch.py's trace (tests/real_chains.py), verified hop by hop from the source: the hierarchy
must make each of its hops from Conv2d.forward down to cudnnConvolutionForward, and climb it
back up from the vendor call to the Python method (not a C++ function of the same name)."""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.real_chains import CONV2D_FORWARD_TO_CUDNN

REAL = os.environ.get("EXPLORER_REAL_TORCH")
pytestmark = [
    pytest.mark.skipif(not REAL, reason="set EXPLORER_REAL_TORCH to a PyTorch 2.4.0 source tree"),
    pytest.mark.asyncio(loop_scope="module"),
]
ROOT = Path(REAL).resolve() if REAL else Path(".")
SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "explorer", "lsp"],
    server_env={
        **os.environ,
        "EXPLORER_CACHE_DIR": os.environ.get("EXPLORER_CACHE_DIR") or tempfile.mkdtemp(),
        "EXPLORER_PYTHON_ENV": "none",
    },
)

CHAIN = CONV2D_FORWARD_TO_CUDNN  # from Conv2d.forward (conv.py:457) on


@pytest_lsp.fixture(config=SERVER, scope="module", loop_scope="module")
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(
        lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), root_uri=ROOT.as_uri())
    )
    for _ in range(3000):  # the index is built or checked in the background
        if await lsp_client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="cudnnConvolutionForward")):
            break
        await asyncio.sleep(0.5)
    yield
    await lsp_client.shutdown_session()


def doc(path: str) -> lsp.TextDocumentIdentifier:
    return lsp.TextDocumentIdentifier((ROOT / path).as_uri())


def relative(uri: str) -> str:
    return Path(uri.removeprefix("file://")).relative_to(ROOT).as_posix()


async def test_outgoing_calls_follow_the_chain_into_cudnn(client: LanguageClient):
    (item,) = await client.text_document_prepare_call_hierarchy_async(
        lsp.CallHierarchyPrepareParams(doc("torch/nn/modules/conv.py"), lsp.Position(456, 9))
    )
    assert item.name == "torch.nn.modules.conv.Conv2d.forward"
    for name, path, line, kind in CHAIN:
        calls = await client.call_hierarchy_outgoing_calls_async(lsp.CallHierarchyOutgoingCallsParams(item)) or []
        matching = [
            c
            for c in calls
            if c.to.name == name
            and (path is None or (relative(c.to.uri), c.to.selection_range.start.line + 1) == (path, line))
        ]
        assert matching, f"{item.name} has no outgoing call to {name}: {[c.to.name for c in calls][:12]}"
        call = matching[0]
        assert f" · {kind}" in call.to.detail and call.from_ranges, (name, call.to.detail)
        item = call.to


async def test_incoming_calls_climb_from_cudnn_to_the_python_method(client: LanguageClient):
    (item,) = await client.text_document_prepare_call_hierarchy_async(
        lsp.CallHierarchyPrepareParams(doc("aten/src/ATen/native/cudnn/Conv_v7.cpp"), lsp.Position(758, 14))
    )
    assert item.name == "cudnnConvolutionForward"
    upward = [(name, path, line) for name, path, line, _ in reversed(CHAIN[:-1])]
    upward.append(("torch.nn.modules.conv.Conv2d.forward", "torch/nn/modules/conv.py", 457))
    for name, path, line in upward:
        calls = await client.call_hierarchy_incoming_calls_async(lsp.CallHierarchyIncomingCallsParams(item)) or []
        matching = [
            c
            for c in calls
            if c.from_.name == name
            and (path is None or (relative(c.from_.uri), c.from_.selection_range.start.line + 1) == (path, line))
        ]
        assert matching, f"{item.name} has no incoming call from {name}: {[c.from_.name for c in calls][:12]}"
        item = matching[0].from_
