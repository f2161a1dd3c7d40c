"""The bundled tree's extension package (sample_repo/mini_ops: pybind11 bindings, a
TORCH_LIBRARY operator with CPU and CUDA kernels, a RegisterOperators operator with a C++
autograd Function, CUDA kernels) and the user project beside it (sample_repo/mini_app), traced
from their Python API with torch in the same tree. Every hop was read off the sources."""

from __future__ import annotations

import pytest

from explorer.analysis.trace import trace_symbol
from tests.places import path_line

OPS = "mini_ops/csrc"
MODULE = "torch/nn/modules/module.py"


def hops(store, root: str, query: str, to: str, backend: str = "cuda") -> list[tuple]:
    report = trace_symbol(store, root, query, to=to, backend=backend)
    assert report.trace.paths, f"no path from {query} to {to}"
    return [
        (
            h.node.symbol.qname,
            h.node.symbol.path,
            h.node.symbol.line,
            h.edge.label if h.edge else None,
            path_line(h.edge.site) if h.edge else None,
        )
        for h in report.trace.paths[0]
    ]


@pytest.mark.parametrize(
    ("query", "to", "backend", "expected"),
    [
        (
            "mini_ops.ops.scale",
            "scale_kernel",
            "cuda",
            [
                ("mini_ops.ops.scale", "mini_ops/ops.py", 12, None, None),
                ("mini_ops._C.scale", f"{OPS}/bindings.cpp", 7, "pybind", ("mini_ops/ops.py", 14)),
                ("mini_ops::scale", f"{OPS}/scale.cpp", 24, "pybind", (f"{OPS}/bindings.cpp", 7)),
                ("mini_ops::scale_cuda", f"{OPS}/kernels.cu", 39, "call", (f"{OPS}/scale.cpp", 26)),
                ("mini_ops::scale_kernel", f"{OPS}/kernels.cu", 15, "launch", (f"{OPS}/kernels.cu", 48)),
            ],
        ),
        (
            "mini_ops.ops.clamp_add",
            "clamp_add_kernel",
            "cuda",
            [
                ("mini_ops.ops.clamp_add", "mini_ops/ops.py", 17, None, None),
                ("mini_ops::clamp_add", f"{OPS}/ops.cpp", 30, "op_registration", ("mini_ops/ops.py", 19)),
                ("mini_ops::clamp_add_cuda", f"{OPS}/kernels.cu", 54, "dispatch:CUDA", (f"{OPS}/kernels.cu", 86)),
                ("mini_ops::clamp_add_kernel", f"{OPS}/kernels.cu", 22, "launch", (f"{OPS}/kernels.cu", 65)),
            ],
        ),
        (
            "mini_ops.ops.clamp_add",
            "clamp_add_cpu",
            "cpu",
            [
                ("mini_ops.ops.clamp_add", "mini_ops/ops.py", 17, None, None),
                ("mini_ops::clamp_add", f"{OPS}/ops.cpp", 30, "op_registration", ("mini_ops/ops.py", 19)),
                ("mini_ops::clamp_add_cpu", f"{OPS}/ops.cpp", 12, "dispatch:CPU", (f"{OPS}/ops.cpp", 34)),
            ],
        ),
        (
            "mini_app.model.run",
            "soft_square_kernel",
            "cuda",
            [
                ("mini_app.model.run", "mini_app/model.py", 21, None, None),
                ("mini_ops.ops.soft_square", "mini_ops/ops.py", 22, "call", ("mini_app/model.py", 22)),
                ("mini_ops_legacy::soft_square", f"{OPS}/legacy.cpp", 67, "op_registration", ("mini_ops/ops.py", 24)),
                (
                    "mini_ops::soft_square_op",
                    f"{OPS}/legacy.cpp",
                    62,
                    "dispatch:CompositeImplicitAutograd",
                    (f"{OPS}/legacy.cpp", 67),
                ),
                ("mini_ops::SoftSquare::forward", f"{OPS}/legacy.cpp", 32, "autograd", (f"{OPS}/legacy.cpp", 63)),
                ("mini_ops::soft_square_cuda", f"{OPS}/kernels.cu", 71, "call", (f"{OPS}/legacy.cpp", 37)),
                ("mini_ops::soft_square_kernel", f"{OPS}/kernels.cu", 30, "launch", (f"{OPS}/kernels.cu", 80)),
            ],
        ),
    ],
)
def test_the_extension_api_reaches_its_kernels(sample_store, sample_root, query, to, backend, expected):
    assert hops(sample_store, sample_root, query, to, backend) == expected


def test_the_user_project_reaches_the_extension_kernels_through_its_model(sample_store, sample_root):
    module_call = [
        ("torch.nn.modules.module.Module._wrapped_call_impl", MODULE, 186, "method", ("mini_app/model.py", 18)),
        ("torch.nn.modules.module.Module._call_impl", MODULE, 189, "method", (MODULE, 187)),
        ("mini_ops.layers.ScaledClamp.forward", "mini_ops/layers.py", 15, "method", (MODULE, 198)),
    ]
    into_forward = [
        ("mini_app.model.App", "mini_app/model.py", 10, None, None),
        ("torch.nn.modules.module.Module.__call__", MODULE, 233, "method", None),
        ("torch.nn.modules.module.Module._wrapped_call_impl", MODULE, 186, "alias", (MODULE, 233)),
        ("torch.nn.modules.module.Module._call_impl", MODULE, 189, "method", (MODULE, 187)),
        ("mini_app.model.App.forward", "mini_app/model.py", 16, "method", (MODULE, 198)),
    ]
    # self.block(x) (model.py:18), where self.block = ScaledClamp(factor) (model.py:14)
    assert hops(sample_store, sample_root, "mini_app.model.App", "clamp_add_kernel") == [
        *into_forward,
        *module_call,
        ("mini_ops.ops.clamp_add", "mini_ops/ops.py", 17, "call", ("mini_ops/layers.py", 17)),
        ("mini_ops::clamp_add", f"{OPS}/ops.cpp", 30, "op_registration", ("mini_ops/ops.py", 19)),
        ("mini_ops::clamp_add_cuda", f"{OPS}/kernels.cu", 54, "dispatch:CUDA", (f"{OPS}/kernels.cu", 86)),
        ("mini_ops::clamp_add_kernel", f"{OPS}/kernels.cu", 22, "launch", (f"{OPS}/kernels.cu", 65)),
    ]
    # ScaleFn.apply(x, factor) (layers.py:16): the bundled Function.apply runs forward
    assert hops(sample_store, sample_root, "mini_app.model.App", "scale_kernel") == [
        *into_forward,
        *module_call,
        (
            "torch.autograd.function.Function.apply",
            "torch/autograd/function.py",
            44,
            "method",
            ("mini_ops/layers.py", 16),
        ),
        ("mini_ops.ops.ScaleFn.forward", "mini_ops/ops.py", 31, "call", ("torch/autograd/function.py", 47)),
        ("mini_ops._C.scale", f"{OPS}/bindings.cpp", 7, "pybind", ("mini_ops/ops.py", 33)),
        ("mini_ops::scale", f"{OPS}/scale.cpp", 24, "pybind", (f"{OPS}/bindings.cpp", 7)),
        ("mini_ops::scale_cuda", f"{OPS}/kernels.cu", 39, "call", (f"{OPS}/scale.cpp", 26)),
        ("mini_ops::scale_kernel", f"{OPS}/kernels.cu", 15, "launch", (f"{OPS}/kernels.cu", 48)),
    ]


def test_bindings_and_registered_operators_are_found_by_their_python_names(sample_store):
    from explorer.names.lookup import look_up
    from explorer.names.search import search_symbols

    # indexed as TORCH_EXTENSION_NAME.scale; setup.py says the module is mini_ops._C
    assert [
        (h.symbol.qname, h.symbol.kind.value, h.symbol.path, h.symbol.line)
        for h in search_symbols(sample_store, "scale", 3)
    ] == [
        ("mini_ops::scale", "function", f"{OPS}/scale.cpp", 24),
        ("mini_ops.ops.scale", "function", "mini_ops/ops.py", 12),
        ("mini_ops._C.scale", "pybind", f"{OPS}/bindings.cpp", 7),
    ]
    assert [(s.qname, s.path, s.line) for s in look_up(sample_store, "mini_ops._C.scale").symbols] == [
        ("mini_ops._C.scale", f"{OPS}/bindings.cpp", 7),
    ]
    assert [(s.qname, s.path, s.line) for s in look_up(sample_store, "torch.ops.mini_ops.clamp_add").symbols] == [
        ("mini_ops::clamp_add", f"{OPS}/ops.cpp", 30),
    ]
