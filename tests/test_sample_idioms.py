"""The bundled tree's own instances of the C++ idioms real PyTorch is written with, traced
statically and checked against a run of the bundled runtime. Dropout on the emulated cuda
device goes through all of them (sample_repo/aten/src/ATen/native/cuda/Dropout.cu):
- `fused_dropout_kernel` stands behind `C10_LAUNCH_BOUNDS_1(256)` (line 32);
- it is launched by a macro defined and invoked inside `native_dropout_cuda` (lines 83-90);
- `LaunchGeometry.cuh` is included inside `namespace at::native` (line 15), so its
  `elementwise_threads` is `at::native::elementwise_threads`;
- `KeepProbability{}(p, train)` calls the functor's `operator()` (line 76);
- `blocks_for` is a file-local function here (line 53) and in Indexing.cu (line 33): each
  file's call reaches its own.
"""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from explorer.cli import app
from explorer.query.trace import trace_symbol

DROPOUT = "aten/src/ATen/native/cuda/Dropout.cu"
INDEXING = "aten/src/ATen/native/cuda/Indexing.cu"


def callees(store, root, query):
    tree = trace_symbol(store, root, query, max_depth=1).trace.tree
    return {(c.node.symbol.qname, c.node.symbol.path, c.node.symbol.line, c.edge.kind, c.edge.resolution.value, c.edge.site)
            for c in tree.children}


def test_native_dropout_cuda_reaches_each_idiom(sample_store, sample_root):
    found = callees(sample_store, sample_root, "at::native::native_dropout_cuda")
    assert {
        ("at::native::KeepProbability::operator()", DROPOUT, 47, "call", "exact", (DROPOUT, 76)),
        ("at::native::elementwise_threads", "aten/src/ATen/native/cuda/LaunchGeometry.cuh", 6, "call", "exact", (DROPOUT, 77)),
        ("at::native::blocks_for", DROPOUT, 53, "call", "exact", (DROPOUT, 78)),
        # the first of the macro's two invocations
        ("at::native::fused_dropout_kernel", DROPOUT, 33, "launch", "exact", (DROPOUT, 88)),
    } <= found
    assert not any(name == "at::native::blocks_for" and path == INDEXING for name, path, *_ in found)


def test_index_select_reaches_its_own_file_local_helper(sample_store, sample_root):
    found = callees(sample_store, sample_root, "at::native::index_select_cuda")
    assert [(name, path, line) for name, path, line, *_ in found if name == "at::native::blocks_for"] == [
        ("at::native::blocks_for", INDEXING, 33),
    ]


def test_the_kernel_behind_launch_bounds_is_a_kernel(sample_store):
    kernels = [(s.qname, s.path, s.line, s.kind.value) for s in sample_store.symbols_with_qname("at::native::fused_dropout_kernel")]
    assert kernels == [("at::native::fused_dropout_kernel", DROPOUT, 33, "kernel")]


@pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler: the bundled runtime cannot be built")
def test_a_dropout_run_has_no_call_the_static_graph_misses():
    code = "import torch; m = torch.nn.Dropout(0.5); m(torch.randn(4, 8, device='cuda'))"
    result = CliRunner().invoke(app, ["run", "--json", "--compare", "-c", code])
    assert result.exit_code == 0, result.output
    comparison = json.loads(result.stdout)["comparison"]
    assert comparison["dynamic_only"] == []
    confirmed = {(edge["caller"], edge["callee"], edge["static_kind"]) for edge in comparison["confirmed"]}
    # (the run attributes the inline `elementwise_threads` to another call site, and records
    # no frame for the functor's inline operator(): neither is a dynamic-only edge)
    assert {
        ("at::native::native_dropout_cuda", "at::native::fused_dropout_kernel", "launch"),
        ("at::native::native_dropout_cuda", "at::native::blocks_for", "call"),
    } <= confirmed
