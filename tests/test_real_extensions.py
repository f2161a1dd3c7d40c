"""Chains of three real PyTorch extensions, each of another binding style, verified hop by hop
by reading their source (nothing here was derived by running explorer):
- detectron2 (facebookresearch/detectron2, 02b5c4e): pybind11 and TORCH_LIBRARY m.def with a
  function, Python autograd Functions;
- pyg-lib (pyg-team/pyg-lib, 764e3a4): TORCH_LIBRARY_FRAGMENT schemas and
  TORCH_LIBRARY_IMPL(pyg, CUDA, m) kernels;
- pytorch_scatter (rusty1s/pytorch_scatter, 648dda3): torch::RegisterOperators chains and C++
  autograd Functions.
Opt-in: each runs where its environment variable names a checkout of that tree
(EXPLORER_REAL_DETECTRON2, EXPLORER_REAL_PYG_LIB, EXPLORER_REAL_TORCH_SCATTER). torch itself is
outside these trees: calling a torch.nn.Module subclass runs its forward.

A hop: (qualified name, file, line, edge kind, the file:line of the call or registration that
leads to it). Kernel launches and calls are at the line the callee's name is written on.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from explorer.analysis.trace import trace_symbol
from explorer.index.build import refresh
from explorer.index.store import IndexStore
from tests.places import path_line

D = "detectron2/layers"
DC = "detectron2/layers/csrc"
CHAINS = {
    "EXPLORER_REAL_DETECTRON2": [
        (
            "detectron2.layers.nms.nms_rotated",
            "nms_rotated_cuda_kernel",
            1,
            [
                ("detectron2.layers.nms.nms_rotated", f"{D}/nms.py", 28, None, None),
                ("detectron2::nms_rotated", f"{DC}/vision.cpp", 116, "op_registration", (f"{D}/nms.py", 89)),
                (
                    "detectron2::nms_rotated",
                    f"{DC}/nms_rotated/nms_rotated.h",
                    22,
                    "dispatch:CompositeImplicitAutograd",
                    (f"{DC}/vision.cpp", 116),
                ),
                (
                    "detectron2::nms_rotated_cuda",
                    f"{DC}/nms_rotated/nms_rotated_cuda.cu",
                    80,
                    "call",
                    (f"{DC}/nms_rotated/nms_rotated.h", 29),
                ),
                (
                    "nms_rotated_cuda_kernel",
                    f"{DC}/nms_rotated/nms_rotated_cuda.cu",
                    21,
                    "launch",
                    (f"{DC}/nms_rotated/nms_rotated_cuda.cu", 107),
                ),
            ],
        ),
        # deform_conv = _DeformConv.apply (deform_conv.py:312): apply runs forward
        (
            "detectron2.layers.deform_conv.DeformConv",
            "deformable_im2col_gpu_kernel",
            1,
            [
                ("detectron2.layers.deform_conv.DeformConv", f"{D}/deform_conv.py", 316, None, None),
                ("detectron2.layers.deform_conv.DeformConv.forward", f"{D}/deform_conv.py", 369, "method", None),
                (
                    "detectron2.layers.deform_conv._DeformConv.forward",
                    f"{D}/deform_conv.py",
                    18,
                    "call",
                    (f"{D}/deform_conv.py", 384),
                ),
                ("detectron2._C.deform_conv_forward", f"{DC}/vision.cpp", 86, "pybind", (f"{D}/deform_conv.py", 62)),
                (
                    "detectron2::deform_conv_forward",
                    f"{DC}/deformable/deform_conv.h",
                    116,
                    "pybind",
                    (f"{DC}/vision.cpp", 86),
                ),
                (
                    "detectron2::deform_conv_forward_cuda",
                    f"{DC}/deformable/deform_conv_cuda.cu",
                    272,
                    "call",
                    (f"{DC}/deformable/deform_conv.h", 138),
                ),
                (
                    "detectron2::deformable_im2col",
                    f"{DC}/deformable/deform_conv_cuda_kernel.cu",
                    457,
                    "call",
                    (f"{DC}/deformable/deform_conv_cuda.cu", 383),
                ),
                (
                    "deformable_im2col_gpu_kernel",
                    f"{DC}/deformable/deform_conv_cuda_kernel.cu",
                    217,
                    "launch",
                    (f"{DC}/deformable/deform_conv_cuda_kernel.cu", 492),
                ),
            ],
        ),
        # the eager path, through _ROIAlignRotated.apply; the first listed is the one taken
        # under torch.jit scripting or tracing (roi_align_rotated.py:89), one hop shorter
        (
            "detectron2.layers.roi_align_rotated.ROIAlignRotated",
            "RoIAlignRotatedForward",
            2,
            [
                ("detectron2.layers.roi_align_rotated.ROIAlignRotated", f"{D}/roi_align_rotated.py", 51, None, None),
                (
                    "detectron2.layers.roi_align_rotated.ROIAlignRotated.forward",
                    f"{D}/roi_align_rotated.py",
                    72,
                    "method",
                    None,
                ),
                (
                    "detectron2.layers.roi_align_rotated._ROIAlignRotated.forward",
                    f"{D}/roi_align_rotated.py",
                    14,
                    "call",
                    (f"{D}/roi_align_rotated.py", 93),
                ),
                (
                    "detectron2::roi_align_rotated_forward",
                    f"{DC}/vision.cpp",
                    118,
                    "op_registration",
                    (f"{D}/roi_align_rotated.py", 20),
                ),
                (
                    "detectron2::ROIAlignRotated_forward",
                    f"{DC}/ROIAlignRotated/ROIAlignRotated.h",
                    50,
                    "dispatch:CompositeImplicitAutograd",
                    (f"{DC}/vision.cpp", 118),
                ),
                (
                    "detectron2::ROIAlignRotated_forward_cuda",
                    f"{DC}/ROIAlignRotated/ROIAlignRotated_cuda.cu",
                    325,
                    "call",
                    (f"{DC}/ROIAlignRotated/ROIAlignRotated.h", 59),
                ),
                (
                    "detectron2::RoIAlignRotatedForward",
                    f"{DC}/ROIAlignRotated/ROIAlignRotated_cuda.cu",
                    144,
                    "launch",
                    (f"{DC}/ROIAlignRotated/ROIAlignRotated_cuda.cu", 366),
                ),
            ],
        ),
    ],
    "EXPLORER_REAL_PYG_LIB": [
        (
            f"pyg_lib.ops.{op}",
            f"{op}_cuda_kernel",
            1,
            [
                (f"pyg_lib.ops.{op}", "pyg_lib/ops/__init__.py", python, None, None),
                (
                    f"pyg::{op}",
                    f"pyg_lib/csrc/ops/{op}.cpp",
                    schema,
                    "op_registration",
                    ("pyg_lib/ops/__init__.py", call),
                ),
                (
                    f"pyg::ops::{op}_cuda",
                    f"pyg_lib/csrc/ops/cuda/{op}_kernel.cu",
                    host,
                    "dispatch:CUDA",
                    (f"pyg_lib/csrc/ops/cuda/{op}_kernel.cu", impl),
                ),
                (
                    f"pyg::ops::{op}_cuda_kernel",
                    f"pyg_lib/csrc/ops/cuda/{op}_kernel.cu",
                    kernel,
                    "launch",
                    (f"pyg_lib/csrc/ops/cuda/{op}_kernel.cu", launch),
                ),
            ],
        )
        for op, python, schema, call, host, impl, kernel, launch in (
            ("fps", 1059, 32, 1079, 76, 122, 16, 109),
            ("knn", 1082, 37, 1107, 101, 149, 41, 133),
            ("radius", 1110, 38, 1137, 54, 106, 16, 89),
        )
    ],
    "EXPLORER_REAL_TORCH_SCATTER": [
        (
            "torch_scatter.scatter.scatter_max",
            "scatter_arg_kernel",
            1,
            [
                ("torch_scatter.scatter.scatter_max", "torch_scatter/scatter.py", 78, None, None),
                (
                    "torch_scatter::scatter_max",
                    "csrc/scatter.cpp",
                    277,
                    "op_registration",
                    ("torch_scatter/scatter.py", 84),
                ),
                (
                    "scatter_max",
                    "csrc/scatter.cpp",
                    264,
                    "dispatch:CompositeImplicitAutograd",
                    ("csrc/scatter.cpp", 277),
                ),
                ("ScatterMax::forward", "csrc/scatter.cpp", 201, "autograd", ("csrc/scatter.cpp", 268)),
                ("scatter_fw", "csrc/scatter.cpp", 35, "call", ("csrc/scatter.cpp", 210)),
                ("scatter_cuda", "csrc/cuda/scatter_cuda.cu", 58, "call", ("csrc/scatter.cpp", 41)),
                ("scatter_arg_kernel", "csrc/cuda/scatter_cuda.cu", 35, "launch", ("csrc/cuda/scatter_cuda.cu", 130)),
            ],
        ),
        (
            "torch_scatter.segment_csr.segment_sum_csr",
            "segment_csr_kernel",
            1,
            [
                ("torch_scatter.segment_csr.segment_sum_csr", "torch_scatter/segment_csr.py", 6, None, None),
                (
                    "torch_scatter::segment_sum_csr",
                    "csrc/segment_csr.cpp",
                    235,
                    "op_registration",
                    ("torch_scatter/segment_csr.py", 8),
                ),
                (
                    "segment_sum_csr",
                    "csrc/segment_csr.cpp",
                    201,
                    "dispatch:CompositeImplicitAutograd",
                    ("csrc/segment_csr.cpp", 235),
                ),
                ("SegmentSumCSR::forward", "csrc/segment_csr.cpp", 59, "autograd", ("csrc/segment_csr.cpp", 204)),
                ("segment_csr_fw", "csrc/segment_csr.cpp", 25, "call", ("csrc/segment_csr.cpp", 63)),
                ("segment_csr_cuda", "csrc/cuda/segment_csr_cuda.cu", 97, "call", ("csrc/segment_csr.cpp", 31)),
                (
                    "segment_csr_kernel",
                    "csrc/cuda/segment_csr_cuda.cu",
                    16,
                    "launch",
                    ("csrc/cuda/segment_csr_cuda.cu", 156),
                ),
            ],
        ),
        (
            "torch_scatter.segment_csr.gather_csr",
            "gather_csr_kernel",
            1,
            [
                ("torch_scatter.segment_csr.gather_csr", "torch_scatter/segment_csr.py", 112, None, None),
                (
                    "torch_scatter::gather_csr",
                    "csrc/segment_csr.cpp",
                    239,
                    "op_registration",
                    ("torch_scatter/segment_csr.py", 114),
                ),
                (
                    "gather_csr",
                    "csrc/segment_csr.cpp",
                    227,
                    "dispatch:CompositeImplicitAutograd",
                    ("csrc/segment_csr.cpp", 239),
                ),
                ("GatherCSR::forward", "csrc/segment_csr.cpp", 178, "autograd", ("csrc/segment_csr.cpp", 230)),
                ("gather_csr_fw", "csrc/segment_csr.cpp", 40, "call", ("csrc/segment_csr.cpp", 182)),
                ("gather_csr_cuda", "csrc/cuda/segment_csr_cuda.cu", 219, "call", ("csrc/segment_csr.cpp", 44)),
                (
                    "gather_csr_kernel",
                    "csrc/cuda/segment_csr_cuda.cu",
                    171,
                    "launch",
                    ("csrc/cuda/segment_csr_cuda.cu", 272),
                ),
            ],
        ),
    ],
}
CASES = [(variable, *chain) for variable, chains in CHAINS.items() for chain in chains]


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory):
    opened: dict[str, tuple[IndexStore, str]] = {}
    yield opened
    for store, _ in opened.values():
        store.close()


def _store(stores, tmp_path_factory, variable: str) -> tuple[IndexStore, str]:
    if variable not in stores:
        root = str(Path(os.environ[variable]).resolve())
        index = tmp_path_factory.mktemp(variable.lower()) / "index.sqlite"
        refresh(root, index)
        stores[variable] = (IndexStore.open(index), root)
    return stores[variable]


@pytest.mark.parametrize(("variable", "query", "to", "rank", "expected"), CASES, ids=[f"{c[1]}->{c[2]}" for c in CASES])
def test_an_extension_chain_from_python_to_its_cuda_kernel(
    variable, query, to, rank, expected, stores, tmp_path_factory
):
    if not os.environ.get(variable):
        pytest.skip(f"{variable} names no checkout")
    store, root = _store(stores, tmp_path_factory, variable)
    report = trace_symbol(store, root, query, to=to)
    listed = [
        [
            (
                h.node.symbol.qname,
                h.node.symbol.path,
                h.node.symbol.line,
                h.edge.label if h.edge else None,
                path_line(h.edge.site) if h.edge else None,
            )
            for h in path
        ]
        for path in report.trace.paths
    ]
    assert len(listed) >= rank and listed[rank - 1] == expected
