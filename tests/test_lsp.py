"""`explorer lsp`, driven over stdio as an editor's client drives it, on the bundled tree.
Every expected location was read off sample_repo (LSP lines are 0-based: file line - 1)."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from explorer.folders import SAMPLE_ROOT

CACHE = tempfile.mkdtemp(prefix="explorer-lsp-test-")
SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "explorer", "lsp"],
    server_env={**os.environ, "EXPLORER_CACHE_DIR": CACHE, "EXPLORER_PYTHON_ENV": "none"},
)
pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(config=SERVER, scope="module", loop_scope="module")
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(
        lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), root_uri=SAMPLE_ROOT.as_uri())
    )
    await until_found(lsp_client, "conv2d")  # the index is built in the background
    yield
    await lsp_client.shutdown_session()
    shutil.rmtree(CACHE, ignore_errors=True)


async def until_found(client: LanguageClient, query: str, seconds: float = 120) -> list[lsp.SymbolInformation]:
    """Ask for `query` until the server's background refresh has indexed it."""
    waited = 0.0
    while True:
        found = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query=query))
        if found or waited >= seconds:
            return list(found or [])
        await asyncio.sleep(0.2)
        waited += 0.2


def doc(path: str) -> lsp.TextDocumentIdentifier:
    return lsp.TextDocumentIdentifier((SAMPLE_ROOT / path).as_uri())


def where(location: lsp.Location) -> tuple[str, int, int, int]:
    path = Path(location.uri.removeprefix("file://")).relative_to(SAMPLE_ROOT).as_posix()
    return path, location.range.start.line, location.range.start.character, location.range.end.character


async def test_workspace_symbols_rank_the_operator_first(client: LanguageClient):
    found = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="cudnn_convolution"))
    assert [(s.name, where(s.location)[:2], s.kind, s.container_name) for s in found[:3]] == [
        (
            "aten::cudnn_convolution",
            ("aten/src/ATen/native/native_functions.yaml", 87),
            lsp.SymbolKind.Operator,
            "yaml",
        ),
        (
            "at::native::cudnn_convolution",
            ("aten/src/ATen/native/cudnn/ConvPlaceholders.cpp", 12),
            lsp.SymbolKind.Function,
            "cpp",
        ),
        (
            "at::native::cudnn_convolution",
            ("aten/src/ATen/native/cudnn/ConvShared.cpp", 64),
            lsp.SymbolKind.Function,
            "cpp",
        ),
    ]
    assert await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="  ")) == []


async def test_every_kind_of_definition_has_a_symbol_kind(client: LanguageClient):
    """A class pybind11 binds (mini_ops/csrc/bindings.cpp:8, `py::class_<mini_ops::Counter>(m,
    "Counter")`) is a class to the editor, as a Python class is: it once had no kind and the
    request failed."""
    found = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="Counter"))
    bound = [(s.name, where(s.location)[:2], s.kind) for s in found if s.location.uri.endswith("bindings.cpp")]
    assert bound == [("TORCH_EXTENSION_NAME.Counter", ("mini_ops/csrc/bindings.cpp", 7), lsp.SymbolKind.Class)]


@pytest.mark.parametrize(
    ("path", "line", "character", "expected"),
    [
        # ops.py:14 `return _C.scale(x, factor)`: the pybind11 binding, bindings.cpp:7 `m.def("scale", ...)`
        ("mini_ops/ops.py", 13, 16, [("mini_ops/csrc/bindings.cpp", 6, 9, 14)]),
        # conv.py:230 `return F.conv2d(`: the functional alias, functional.py:37 `conv2d = _add_docstr(`
        ("torch/nn/modules/conv.py", 229, 22, [("torch/nn/functional.py", 36, 0, 6)]),
        # native_functions.yaml:90 `CUDA: cudnn_convolution`: both definitions of the kernel
        (
            "aten/src/ATen/native/native_functions.yaml",
            89,
            12,
            [
                ("aten/src/ATen/native/cudnn/ConvPlaceholders.cpp", 12, 7, 24),
                ("aten/src/ATen/native/cudnn/ConvShared.cpp", 64, 7, 24),
            ],
        ),
        # conv.py:243 `def forward`: its own definition
        ("torch/nn/modules/conv.py", 242, 9, [("torch/nn/modules/conv.py", 242, 8, 15)]),
        # a position on no name (the indentation of conv.py:230)
        ("torch/nn/modules/conv.py", 229, 2, []),
        # mynet/layers.py:40 `        out = self.relu(self.bn1(self.conv1(x)))`: each sub-module
        # called is the class of the object its attribute holds (Module.__call__ runs on it):
        # conv1 a Conv2d (conv.py:187), relu a ReLU (activation.py:13). Before, conv1 found
        # nothing and relu every definition named relu (F.relu, aten::relu, its kernel, ...).
        ("mynet/layers.py", 39, 40, [("torch/nn/modules/conv.py", 186, 6, 12)]),
        ("mynet/layers.py", 39, 20, [("torch/nn/modules/activation.py", 12, 6, 10)]),
        # mynet/net.py:21 `            x = block(x)`, each block of a ModuleList of BasicBlock (layers.py:28)
        ("mynet/net.py", 20, 17, [("mynet/layers.py", 27, 6, 16)]),
    ],
)
async def test_definition_follows_calls_across_languages(client: LanguageClient, path, line, character, expected):
    found = await client.text_document_definition_async(lsp.DefinitionParams(doc(path), lsp.Position(line, character)))
    assert [where(location) for location in found or []] == expected


@pytest.mark.parametrize(
    ("path", "line", "character", "expected"),
    [
        # conv.py:230 F.conv2d: both overloads' kernels, conv2d_symint (Convolution.cpp:173) and
        # conv2d_padding_symint (Convolution.cpp:188), through the binding and native_functions.yaml
        (
            "torch/nn/modules/conv.py",
            229,
            22,
            [("aten/src/ATen/native/Convolution.cpp", 172), ("aten/src/ATen/native/Convolution.cpp", 187)],
        ),
        # ops.py:14 _C.scale: the function the pybind11 binding names (scale.cpp:24)
        ("mini_ops/ops.py", 13, 16, [("mini_ops/csrc/scale.cpp", 23)]),
        # ops.py:19 torch.ops.mini_ops.clamp_add: the kernel of each key, CUDA (kernels.cu:54) and CPU (ops.cpp:12)
        ("mini_ops/ops.py", 18, 30, [("mini_ops/csrc/kernels.cu", 53), ("mini_ops/csrc/ops.cpp", 11)]),
        # native_functions.yaml:74 `- func: conv2d(...)`: its CompositeImplicitAutograd kernel
        ("aten/src/ATen/native/native_functions.yaml", 73, 10, [("aten/src/ATen/native/Convolution.cpp", 172)]),
    ],
)
async def test_implementation_crosses_into_the_cpp_that_implements_a_name(
    client: LanguageClient, path, line, character, expected
):
    found = await client.text_document_implementation_async(
        lsp.ImplementationParams(doc(path), lsp.Position(line, character))
    )
    assert [where(location)[:2] for location in found or []] == expected


async def test_outgoing_calls_lead_from_python_into_the_kernels(client: LanguageClient):
    (forward,) = await client.text_document_prepare_call_hierarchy_async(
        lsp.CallHierarchyPrepareParams(doc("torch/nn/modules/conv.py"), lsp.Position(242, 9))
    )
    assert (forward.name, forward.detail, forward.range.start.line, forward.selection_range.start.line) == (
        "torch.nn.modules.conv.Conv2d.forward",
        "python",
        242,
        242,
    )
    steps = []
    item = forward
    # conv.py:244 self._conv_forward, conv.py:230 and 239 F.conv2d (each of _conv_forward's two
    # returns calls it), functional.py:37 the alias of torch.conv2d,
    # the binding's YAML operator, its CompositeImplicitAutograd kernel (Convolution.cpp:173)
    for wanted in (
        "torch.nn.modules.conv.Conv2d._conv_forward",
        "torch.nn.functional.conv2d",
        "torch._C._VariableFunctions.conv2d",
        "aten::conv2d",
        "at::native::conv2d_symint",
    ):
        calls = await client.call_hierarchy_outgoing_calls_async(lsp.CallHierarchyOutgoingCallsParams(item))
        (call,) = [c for c in calls if c.to.name == wanted]
        steps.append((call.to.name, call.to.detail, [r.start.line for r in call.from_ranges]))
        item = call.to
    assert steps == [
        ("torch.nn.modules.conv.Conv2d._conv_forward", "python · method", [243]),
        ("torch.nn.functional.conv2d", "python · call", [229, 238]),
        ("torch._C._VariableFunctions.conv2d", "binding · alias", [36]),
        ("aten::conv2d", "yaml · binding · ambiguous (2 candidates)", [13]),
        ("at::native::conv2d_symint", "cpp · dispatch:CompositeImplicitAutograd", [75]),
    ]


# trace's first path from Conv2d.forward to cudnnConvolutionForward (tests/test_trace.py, every
# hop read off sample_repo): the hierarchy must offer each of its hops, the function pointer
# that split_batch_dim_to_32bit_out is handed included. (name, definition line, detail, line
# of the call that leads there; LSP lines, file line - 1)
CONV_TO_CUDNN = [
    ("torch.nn.modules.conv.Conv2d._conv_forward", 227, "python · method", 243),  # conv.py:244
    ("torch.nn.functional.conv2d", 36, "python · call", 229),  # conv.py:230
    ("torch._C._VariableFunctions.conv2d", 13, "binding · alias", 36),  # functional.py:37
    ("aten::conv2d", 73, "yaml · binding · ambiguous (2 candidates)", 13),  # _VariableFunctions.pyi:14
    ("at::native::conv2d_symint", 172, "cpp · dispatch:CompositeImplicitAutograd", 75),  # native_functions.yaml:76
    ("aten::convolution", 62, "yaml · call", 182),  # Convolution.cpp:183 at::convolution_symint(...)
    ("at::native::convolution", 217, "cpp · dispatch:CompositeExplicitAutograd", 64),  # native_functions.yaml:65
    ("aten::_convolution", 68, "yaml · call", 222),  # Convolution.cpp:223
    ("at::native::_convolution", 227, "cpp · dispatch:CompositeExplicitAutograd", 70),  # native_functions.yaml:71
    ("aten::cudnn_convolution", 87, "yaml · call", 258),  # Convolution.cpp:259
    # native_functions.yaml:90 `CUDA: cudnn_convolution`: ConvShared.cpp:65, beside the placeholder
    ("at::native::cudnn_convolution", 64, "cpp · dispatch:CUDA · ambiguous (2 candidates)", 89),
    ("at::native::cudnn_convolution_forward_out", 42, "cpp · call", 71),  # ConvShared.cpp:72
    ("at::native::raw_cudnn_convolution_forward_out", 118, "cpp · call", 60),  # ConvShared.cpp:61
    ("at::native::split_batch_dim_to_32bit_out", 66, "cpp · call", 123),  # Conv_v7.cpp:124
    # handed to split_batch_dim_to_32bit_out by that same call, Conv_v7.cpp:124
    ("at::native::raw_cudnn_convolution_forward_out_32bit", 90, "cpp · fnptr", 123),
    ("cudnnConvolutionForward", None, "vendor · call", 109),  # Conv_v7.cpp:110
]


async def test_a_property_read_is_an_outgoing_call_at_its_line(client: LanguageClient):
    # mynet/layers.py:24 `(y,) = ctx.saved_tensors` runs the property FunctionCtx.saved_tensors
    # (torch/autograd/function.py:22); the read was once a call at line 0, and the server
    # failed on it (a range at line -1)
    (backward,) = await client.text_document_prepare_call_hierarchy_async(
        lsp.CallHierarchyPrepareParams(doc("mynet/layers.py"), lsp.Position(22, 9))
    )
    assert backward.name == "mynet.layers.SoftExp.backward"
    calls = await client.call_hierarchy_outgoing_calls_async(lsp.CallHierarchyOutgoingCallsParams(backward))
    assert [(c.to.name, c.to.range.start.line, [r.start.line for r in c.from_ranges]) for c in calls] == [
        ("torch.autograd.function.FunctionCtx.saved_tensors", 21, [23]),
    ]


async def conv_to_cudnn_calls(
    client: LanguageClient,
) -> list[tuple[lsp.CallHierarchyItem, lsp.CallHierarchyOutgoingCall]]:
    """Conv2d.forward's outgoing calls followed hop by hop along CONV_TO_CUDNN: each caller and
    its call of the next hop."""
    (item,) = await client.text_document_prepare_call_hierarchy_async(
        lsp.CallHierarchyPrepareParams(doc("torch/nn/modules/conv.py"), lsp.Position(242, 9))
    )
    hops = []
    for wanted, line, _, _ in CONV_TO_CUDNN:
        calls = await client.call_hierarchy_outgoing_calls_async(lsp.CallHierarchyOutgoingCallsParams(item))
        matching = [
            c for c in calls or [] if c.to.name == wanted and (line is None or c.to.selection_range.start.line == line)
        ]
        assert matching, f"{item.name} has no outgoing call to {wanted}: {[c.to.name for c in calls or []]}"
        hops.append((item, matching[0]))
        item = matching[0].to
    return hops


async def test_outgoing_calls_reach_the_vendor_call_as_trace_does(client: LanguageClient):
    steps = [
        (call.to.name, line, call.to.detail, call.from_ranges[0].start.line if call.from_ranges else None)
        for (_, call), (_, line, _, _) in zip(await conv_to_cudnn_calls(client), CONV_TO_CUDNN, strict=True)
    ]
    assert steps == CONV_TO_CUDNN


async def test_an_outgoing_call_s_range_is_the_callee_it_writes(client: LanguageClient):
    # The same chain, each hop's from-ranges read back from the file: the callee as written
    # where a call is (the parser's column), the whole line where the hop has no call of its
    # own (an alias's assignment, a YAML entry). (text, start, end; LSP characters)
    ranges = []
    for caller, call in await conv_to_cudnn_calls(client):
        for written in call.from_ranges:
            # a from-range is in the caller's file
            lines = Path(caller.uri.removeprefix("file://")).read_text(encoding="utf-8").splitlines()
            assert written.start.line == written.end.line
            text = lines[written.start.line]
            ranges.append((text[written.start.character : written.end.character], written.start.character))
    stub = (
        "def conv2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: Union[_int, _size] = 1, "
        "padding: Union[_int, _size] = 0, dilation: Union[_int, _size] = 1, groups: _int = 1) -> Tensor: ..."
    )
    assert ranges == [
        ("self._conv_forward", 15),  # conv.py:244 `        return self._conv_forward(input, ...)`
        ("F.conv2d", 19),  # conv.py:230 `            return F.conv2d(`
        ("F.conv2d", 15),  # conv.py:239 `        return F.conv2d(`
        ("conv2d = _add_docstr(", 0),  # functional.py:37, the alias: its whole line
        (stub, 0),  # _VariableFunctions.pyi:14, the binding of aten::conv2d
        ("    CompositeImplicitAutograd: conv2d_symint", 0),  # native_functions.yaml:76
        ("at::convolution_symint", 18),  # Convolution.cpp:183 `  Tensor output = at::convolution_symint(`
        ("    CompositeExplicitAutograd: convolution", 0),  # native_functions.yaml:65
        ("at::_convolution", 9),  # Convolution.cpp:223 `  return at::_convolution(`
        ("    CompositeExplicitAutograd: _convolution", 0),  # native_functions.yaml:71
        ("at::cudnn_convolution", 15),  # Convolution.cpp:259 `      output = at::cudnn_convolution(`
        ("    CUDA: cudnn_convolution", 0),  # native_functions.yaml:90
        ("cudnn_convolution_forward_out", 2),  # ConvShared.cpp:72
        ("raw_cudnn_convolution_forward_out", 2),  # ConvShared.cpp:61
        ("split_batch_dim_to_32bit_out", 2),  # Conv_v7.cpp:124
        ("split_batch_dim_to_32bit_out", 2),  # the function pointer it is handed, in that same call
        ("cudnnConvolutionForward", 17),  # Conv_v7.cpp:110 `  AT_CUDNN_CHECK(cudnnConvolutionForward(`
    ]


async def test_incoming_calls_climb_from_the_vendor_call_to_the_module(client: LanguageClient):
    # the same chain read upward: each caller of each hop, from cudnnConvolutionForward's
    # call site (Conv_v7.cpp:110) to Conv2d.forward (conv.py:243)
    (start,) = await client.text_document_prepare_call_hierarchy_async(
        lsp.CallHierarchyPrepareParams(doc("aten/src/ATen/native/cudnn/Conv_v7.cpp"), lsp.Position(109, 20))
    )
    assert start.name == "cudnnConvolutionForward"
    item = start
    chain = [("torch.nn.modules.conv.Conv2d.forward", 242)] + [(name, line) for name, line, _, _ in CONV_TO_CUDNN[:-1]]
    for wanted, line in reversed(chain):
        calls = await client.call_hierarchy_incoming_calls_async(lsp.CallHierarchyIncomingCallsParams(item))
        matching = [c for c in calls or [] if c.from_.name == wanted and c.from_.selection_range.start.line == line]
        assert matching, f"{item.name} has no incoming call from {wanted}: {[c.from_.name for c in calls or []]}"
        item = matching[0].from_
    assert item.name == "torch.nn.modules.conv.Conv2d.forward"


async def test_incoming_calls_lead_from_a_kernel_back_up(client: LanguageClient):
    (kernel,) = await client.text_document_prepare_call_hierarchy_async(
        lsp.CallHierarchyPrepareParams(doc("mini_ops/csrc/kernels.cu"), lsp.Position(21, 20))
    )
    assert (kernel.name, kernel.detail) == ("mini_ops::clamp_add_kernel", "cuda")
    calls = await client.call_hierarchy_incoming_calls_async(lsp.CallHierarchyIncomingCallsParams(kernel))
    # kernels.cu:65 `clamp_add_kernel<<<blocks, threads>>>(...)` in clamp_add_cuda (kernels.cu:54)
    assert [
        (c.from_.name, c.from_.detail, c.from_.selection_range.start.line, [r.start.line for r in c.from_ranges])
        for c in calls
    ] == [
        ("mini_ops::clamp_add_cuda", "cuda · launch", 53, [64]),
    ]
    (upward,) = await client.call_hierarchy_incoming_calls_async(lsp.CallHierarchyIncomingCallsParams(calls[0].from_))
    # kernels.cu:86 `m.impl("clamp_add", &clamp_add_cuda)` under TORCH_LIBRARY_IMPL(mini_ops, CUDA, m)
    assert (upward.from_.name, upward.from_.detail, [r.start.line for r in upward.from_ranges]) == (
        "mini_ops::clamp_add",
        "yaml · dispatch:CUDA",
        [85],
    )


@contextmanager
def conv_typed_above(client: LanguageClient, typed: str) -> Iterator[str]:
    """conv.py open in the editor with `typed` above its first line, not saved; its URI."""
    conv = SAMPLE_ROOT / "torch/nn/modules/conv.py"
    uri = conv.as_uri()
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "python", 1, typed + conv.read_text()))
    )
    try:
        yield uri
    finally:
        client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri)))


async def test_an_unsaved_buffer_is_answered_at_its_own_lines(client: LanguageClient):
    # conv.py with two lines typed above everything and not saved: every saved line is two
    # lower in the buffer (before: positions were read against the file as saved)
    with conv_typed_above(client, "from torch.nn import functional as G\n_draft = G.relu(1)\n") as uri:
        # conv.py:230 `return F.conv2d(` is buffer line 232: the alias, functional.py:37
        found = await client.text_document_definition_async(
            lsp.DefinitionParams(doc("torch/nn/modules/conv.py"), lsp.Position(231, 22))
        )
        assert [where(location) for location in found or []] == [("torch/nn/functional.py", 36, 0, 6)]
        # conv.py:243 `def forward` is buffer line 245, and so are the ranges the answers give in conv.py
        (forward,) = await client.text_document_prepare_call_hierarchy_async(
            lsp.CallHierarchyPrepareParams(doc("torch/nn/modules/conv.py"), lsp.Position(244, 9))
        )
        assert (forward.name, forward.range.start.line, forward.selection_range.start.line) == (
            "torch.nn.modules.conv.Conv2d.forward",
            244,
            244,
        )
        calls = await client.call_hierarchy_outgoing_calls_async(lsp.CallHierarchyOutgoingCallsParams(forward))
        assert [(c.to.name, c.to.selection_range.start.line, [r.start.line for r in c.from_ranges]) for c in calls] == [
            ("torch.nn.modules.conv.Conv2d._conv_forward", 229, [245]),  # conv.py:228, called at conv.py:244
        ]
        # the typed call, which the index has not seen: `relu` as the buffer's own import
        # makes it, torch.nn.functional.relu (functional.py:136), not every relu there is
        found = await client.text_document_definition_async(
            lsp.DefinitionParams(doc("torch/nn/modules/conv.py"), lsp.Position(1, 13))
        )
        assert [where(location)[:2] for location in found or []] == [("torch/nn/functional.py", 135)]
        # an edit that removes the two lines brings the saved lines back
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(version=2, uri=uri),
                [lsp.TextDocumentContentChangePartial(lsp.Range(lsp.Position(0, 0), lsp.Position(2, 0)), "")],
            )
        )
        (forward,) = await client.text_document_prepare_call_hierarchy_async(
            lsp.CallHierarchyPrepareParams(doc("torch/nn/modules/conv.py"), lsp.Position(242, 9))
        )
        assert (forward.name, forward.selection_range.start.line) == ("torch.nn.modules.conv.Conv2d.forward", 242)


async def test_an_unsaved_call_after_wide_characters_is_found_at_its_characters(client: LanguageClient):
    # The parser counts a line's bytes, the editor its characters: `日本` is 2 characters and
    # 6 bytes, so the typed call's `relu` starts 4 bytes later than its character (before: the
    # call was missed at the cursor, and the name alone gave every relu of the tree)
    typed = 'from torch.nn import functional as G\n_note = "日本"; _draft = G.relu(1)\n'
    with conv_typed_above(client, typed):
        found = await client.text_document_definition_async(
            lsp.DefinitionParams(doc("torch/nn/modules/conv.py"), lsp.Position(1, typed.splitlines()[1].index("relu")))
        )
    # torch.nn.functional.relu, functional.py:136
    assert [where(location)[:2] for location in found or []] == [("torch/nn/functional.py", 135)]


async def test_references_are_the_call_sites_across_languages(client: LanguageClient):
    found = await client.text_document_references_async(
        lsp.ReferenceParams(
            text_document=doc("mini_ops/csrc/kernels.cu"),
            position=lsp.Position(53, 15),
            context=lsp.ReferenceContext(include_declaration=True),
        )
    )
    # its definition (kernels.cu:54) and its registration for CUDA (kernels.cu:86)
    assert [where(location)[:2] for location in found] == [
        ("mini_ops/csrc/kernels.cu", 53),
        ("mini_ops/csrc/kernels.cu", 85),
    ]


async def test_references_are_every_call_not_each_caller_s_first(client: LanguageClient):
    # utils.py:27 `_pair = _ntuple(2, "_pair")`: the name stands for the closure _ntuple makes,
    # which Conv2d.__init__ calls four times (conv.py:209-212) and _conv_forward twice (conv.py:221
    # in its padding branch, conv.py:235). Asked at the assignment, the references were none (the
    # name, not the closure, was looked up); asked at a call, each caller's first call alone.
    at_definition, at_a_call = [
        await client.text_document_references_async(
            lsp.ReferenceParams(
                text_document=doc(path),
                position=lsp.Position(line, character),
                context=lsp.ReferenceContext(include_declaration=False),
            )
        )
        for path, line, character in (("torch/nn/modules/utils.py", 26, 1), ("torch/nn/modules/conv.py", 209, 20))
    ]
    conv = (SAMPLE_ROOT / "torch/nn/modules/conv.py").read_text(encoding="utf-8").splitlines()
    for found in (at_definition, at_a_call):
        assert [
            (where(location)[0], location.range.start.line, location.range.start.character) for location in found
        ] == [
            ("torch/nn/modules/conv.py", 208, 23),  # `        kernel_size_ = _pair(kernel_size)`
            ("torch/nn/modules/conv.py", 209, 18),  # `        stride_ = _pair(stride)`
            ("torch/nn/modules/conv.py", 210, 60),  # `... else _pair(padding)`
            ("torch/nn/modules/conv.py", 211, 20),  # `        dilation_ = _pair(dilation)`
            ("torch/nn/modules/conv.py", 220, 12),  # `            _pair(0),`
            ("torch/nn/modules/conv.py", 234, 16),  # `                _pair(0),`
        ]
        assert {conv[r.range.start.line][r.range.start.character : r.range.end.character] for r in found} == {"_pair"}


async def test_incoming_calls_give_each_call_of_the_caller(client: LanguageClient):
    # F.conv2d (functional.py:37) is called by Conv2d._conv_forward at both its returns,
    # conv.py:230 and conv.py:239: one incoming call with two ranges
    (conv2d,) = await client.text_document_prepare_call_hierarchy_async(
        lsp.CallHierarchyPrepareParams(doc("torch/nn/functional.py"), lsp.Position(36, 1))
    )
    calls = await client.call_hierarchy_incoming_calls_async(lsp.CallHierarchyIncomingCallsParams(conv2d))
    assert [
        (call.from_.name, [(r.start.line, r.start.character) for r in call.from_ranges])
        for call in calls
        if call.from_.name == "torch.nn.modules.conv.Conv2d._conv_forward"
    ] == [("torch.nn.modules.conv.Conv2d._conv_forward", [(229, 19), (238, 15)])]


async def test_hover_shows_the_dispatch_table_and_the_next_hop(client: LanguageClient):
    shown = await client.text_document_hover_async(
        lsp.HoverParams(doc("aten/src/ATen/native/native_functions.yaml"), lsp.Position(87, 10))
    )
    assert shown is not None
    text = shown.contents.value
    assert (
        text.splitlines()[0]
        == "**aten::cudnn_convolution** · operator · yaml · `aten/src/ATen/native/native_functions.yaml:88`"
    )
    assert (
        "- `CUDA`: at::native::cudnn_convolution (aten/src/ATen/native/cudnn/ConvPlaceholders.cpp:13, "
        "aten/src/ATen/native/cudnn/ConvShared.cpp:65)"
    ) in text.splitlines()


async def test_document_symbols_outline_a_file(client: LanguageClient):
    found = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(doc("mini_ops/ops.py")))
    assert [(s.name, s.kind, s.location.range.start.line) for s in found] == [
        ("mini_ops.ops.scale", lsp.SymbolKind.Function, 11),
        ("mini_ops.ops.clamp_add", lsp.SymbolKind.Function, 16),
        ("mini_ops.ops.soft_square", lsp.SymbolKind.Function, 21),
        ("mini_ops.ops.ScaleFn", lsp.SymbolKind.Class, 26),
        ("mini_ops.ops.ScaleFn.forward", lsp.SymbolKind.Method, 30),
        ("mini_ops.ops.ScaleFn.backward", lsp.SymbolKind.Method, 35),
    ]


async def test_a_file_outside_the_tree_or_unknown_gets_empty_answers(client: LanguageClient):
    outside = lsp.TextDocumentIdentifier("file:///nowhere/at/all.py")
    assert await client.text_document_definition_async(lsp.DefinitionParams(outside, lsp.Position(0, 0))) == []
    assert await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(outside)) == []
    assert await client.text_document_hover_async(lsp.HoverParams(outside, lsp.Position(3, 1))) is None
    remote = lsp.TextDocumentIdentifier("untitled:Untitled-1")
    assert not await client.text_document_prepare_call_hierarchy_async(
        lsp.CallHierarchyPrepareParams(remote, lsp.Position(0, 0))
    )


TINY = "def first():\n    return 1\n"


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tiny")
    (root / "app.py").write_text(TINY)
    return root


@pytest_lsp.fixture(config=SERVER, scope="module", loop_scope="module")
async def tiny_client(lsp_client: LanguageClient, tiny_root: Path):
    shows_progress = lsp.ClientCapabilities(window=lsp.WindowClientCapabilities(work_done_progress=True))
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=shows_progress, root_uri=tiny_root.as_uri()))
    yield
    await lsp_client.shutdown_session()


async def test_a_saved_file_is_indexed_again_in_the_background(tiny_client: LanguageClient, tiny_root: Path):
    # no index yet: empty answers, and the client is told once why
    early = await tiny_client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="first"))
    if not early:
        assert [m.message for m in tiny_client.messages] == [
            f"explorer is indexing {tiny_root}; answers come when it is done (project: no index yet)",
        ]
    assert [s.name for s in await until_found(tiny_client, "first")] == ["app.first"]
    (tiny_root / "app.py").write_text(TINY + "\n\ndef second():\n    return first()\n")
    tiny_client.text_document_did_save(
        lsp.DidSaveTextDocumentParams(lsp.TextDocumentIdentifier((tiny_root / "app.py").as_uri()))
    )
    assert [(s.name, s.location.range.start.line) for s in await until_found(tiny_client, "second")] == [
        ("app.second", 4)
    ]
    # the background refreshes showed as work-done progress, each begun and ended (a save that
    # comes while one runs makes it go once more under the same token)
    for _ in range(100):
        if tiny_client.progress_reports and all(
            isinstance(r[-1], lsp.WorkDoneProgressEnd) for r in tiny_client.progress_reports.values()
        ):
            break
        await asyncio.sleep(0.1)
    reports = {
        token: [(type(r).__name__, getattr(r, "title", None), r.message) for r in made]
        for token, made in tiny_client.progress_reports.items()
    }
    assert next(iter(reports)) == "explorer-index-1" and len(reports) in (1, 2)
    assert all(
        made
        == [("WorkDoneProgressBegin", "explorer: indexing", str(tiny_root)), ("WorkDoneProgressEnd", None, "indexed")]
        for made in reports.values()
    )
    # app.py:6 `return first()`: the new call is a reference of first
    references = await tiny_client.text_document_references_async(
        lsp.ReferenceParams(
            text_document=lsp.TextDocumentIdentifier((tiny_root / "app.py").as_uri()),
            position=lsp.Position(0, 5),
            context=lsp.ReferenceContext(include_declaration=False),
        )
    )
    assert [(r.uri.rsplit("/", 1)[1], r.range.start.line) for r in references] == [("app.py", 5)]


async def test_code_lenses_offer_the_trace_and_the_diagram(client: LanguageClient):
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(doc("mini_ops/ops.py")))
    # ops.py: scale (12), clamp_add (17), soft_square (22), ScaleFn.forward (31), ScaleFn.backward (36)
    assert [(lens.range.start.line, lens.command.title, list(lens.command.arguments)) for lens in lenses][:4] == [
        (11, "trace to vendor call", ["mini_ops.ops.scale"]),
        (11, "diagram", ["mini_ops.ops.scale"]),
        (16, "trace to vendor call", ["mini_ops.ops.clamp_add"]),
        (16, "diagram", ["mini_ops.ops.clamp_add"]),
    ]
    assert len(lenses) == 10


async def test_trace_to_vendor_call_returns_the_chain_as_locations(client: LanguageClient):
    found = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="explorer.traceToVendor", arguments=["torch.nn.functional.conv2d"])
    )
    chain = [(location["uri"].rsplit("sample_repo/", 1)[1], location["range"]["start"]["line"]) for location in found]
    # the best-ranked path to any vendor call: functional.py:37 the alias, the binding
    # (_VariableFunctions.pyi:14), aten::conv2d.padding (yaml:78), conv2d_padding_symint
    # (Convolution.cpp:188), which pads (constant_pad_nd, PadNd.cpp:11) into a new tensor
    # (empty.memory_format's CUDA kernel), down to the CUDA runtime's cudaMalloc at EmptyTensor.cpp:24
    # (cudaFree, at :27, is in the deleter lambda handed to the storage: one hop further)
    assert chain[:4] == [
        ("torch/nn/functional.py", 36),
        ("torch/_C/_VariableFunctions.pyi", 13),
        ("aten/src/ATen/native/native_functions.yaml", 77),
        ("aten/src/ATen/native/Convolution.cpp", 187),
    ]
    assert chain[-1] == ("aten/src/ATen/cuda/EmptyTensor.cpp", 23)
    assert len(chain) == 10


@pytest.fixture(scope="module")
def project_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("workspace") / "project"
    shutil.copytree(SAMPLE_ROOT / "mini_app", root / "mini_app")
    return root


@pytest_lsp.fixture(config=SERVER, scope="module", loop_scope="module")
async def two_folders(lsp_client: LanguageClient, project_root: Path):
    folders = [
        lsp.WorkspaceFolder(project_root.as_uri(), "project"),
        lsp.WorkspaceFolder(SAMPLE_ROOT.as_uri(), "sample_repo"),
    ]
    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(), root_uri=project_root.as_uri(), workspace_folders=folders
        )
    )
    yield
    await lsp_client.shutdown_session()


async def test_a_multi_root_workspace_is_the_project_and_its_joined_trees(
    two_folders: LanguageClient, project_root: Path
):
    found = await until_found(two_folders, "clamp_add_cuda")
    # the second folder is a tree joined to the first: kernels.cu:54 in sample_repo
    assert [(s.name, s.location.uri, s.location.range.start.line) for s in found[:1]] == [
        ("mini_ops::clamp_add_cuda", (SAMPLE_ROOT / "mini_ops/csrc/kernels.cu").as_uri(), 53),
    ]
    # model.py:22 `mini_ops.soft_square(x)` in the project goes to the joined tree's ops.py:22
    model = lsp.TextDocumentIdentifier((project_root / "mini_app/model.py").as_uri())
    definition = await two_folders.text_document_definition_async(lsp.DefinitionParams(model, lsp.Position(21, 22)))
    assert [(d.uri, d.range.start.line) for d in definition] == [((SAMPLE_ROOT / "mini_ops/ops.py").as_uri(), 21)]


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz's dot is not installed")
async def test_open_diagram_writes_the_html_diagram_of_a_trace(client: LanguageClient):
    uri = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="explorer.openDiagram", arguments=["mini_ops.ops.clamp_add"])
    )
    written = Path(uri.removeprefix("file://"))
    assert written.name == "mini_ops.ops.clamp_add.html" and written.parent.name == "diagrams"
    page = written.read_text()
    # the CUDA trace of ops.py:17 clamp_add: the operator (ops.cpp:30), its CUDA kernel
    # (kernels.cu:54) and the __global__ one it launches (kernels.cu:22); not the CPU kernel
    assert all(
        name in page for name in ("mini_ops::clamp_add", "mini_ops::clamp_add_cuda", "mini_ops::clamp_add_kernel")
    )
    assert "mini_ops::clamp_add_cpu" not in page
