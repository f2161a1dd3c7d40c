"""Launches written through macros in the bundled tree, traced by the preprocessor's rules.
Every expected hop was read off the sample sources (file:line below); none was copied from
explorer.

1. nested function-local macros passing the function to call, as TensorTopK.cu does:
   launch_gather_topk_kernel (cuda/TensorTopK.cu:58) invokes RUN_DIM(uint32_t) at :81 and
   RUN_DIM(uint64_t) at :83; RUN_DIM (:73) invokes RUN_MB (:66), which invokes RUN_K (:61)
   with `mbtopk::launch` and with `sbtopk::launch` as LAUNCH_FUNCTION_NAME, so each RUN_DIM
   line calls both launch functions (mbtopk::launch :45, sbtopk::launch :25), which launch
   radixFindKthValues (:36, launched at :47) and gatherTopK (:17, launched at :27).
2. a kernel defined by a macro with variadic template parameters, launched through a local
   pointer inside a lambda handed to BOOL_SWITCH, as flash_fwd_launch_template.h does:
   DEFINE_FLASH_FORWARD_KERNEL (transformers/cuda/flash_attn/flash_fwd.cu:34) invoked at :38
   defines the kernel flash_fwd_kernel, whose body calls compute_attn (:26) at :39;
   run_mha_fwd_hdim64 (:52) calls run_flash_fwd (:43) at :54, inside BOOL_SWITCH's lambda
   (static_switch.h); run_flash_fwd takes `auto kernel = &flash_fwd_kernel<...>` at :46 and
   launches it at :47, inside another BOOL_SWITCH lambda.
3. two sibling launch macros in one function, as Shape.cu does: parallel_cat
   (cuda/Shape.cu:30) defines HANDLE_CASE_ALIGNED (:33) and HANDLE_CASE (:35), invoked at
   :40, :43 and at :49, :52; they launch CatArrayBatchedCopy_aligned16 (:22) and
   CatArrayBatchedCopy (:14).
"""

from __future__ import annotations

from explorer.analysis.trace import trace_symbol
from tests.places import path_line

TOPK = "aten/src/ATen/native/cuda/TensorTopK.cu"
SHAPE = "aten/src/ATen/native/cuda/Shape.cu"
FLASH = "aten/src/ATen/native/transformers/cuda/flash_attn/flash_fwd.cu"


def chain(store, root, query, to):
    """The (name, path, line) hops of the first path from `query` to `to`, and each hop's call site."""
    report = trace_symbol(store, root, query, to=to, backend="cuda")
    assert report.trace.paths, f"no path from {query} to {to}"
    return [
        (
            hop.node.symbol.qname,
            hop.node.symbol.path,
            hop.node.symbol.line,
            path_line(hop.edge.site) if hop.edge else None,
        )
        for hop in report.trace.paths[0]
    ]


def callees(store, root, query):
    """(name, line, edge kind, call site line) of each callee of `query` defined in the tree."""
    tree = trace_symbol(store, root, query, max_depth=1, backend="cuda").trace.tree
    return {
        (c.node.symbol.qname, c.node.symbol.line, c.edge.label, c.edge.site.line if path_line(c.edge.site) else None)
        for c in tree.children
        if c.node.symbol.path
    }


# -- 1. nested function-local macros passing a function name -----------------------------


def test_topk_reaches_the_multiblock_kernel_through_the_launch_function_a_macro_names(sample_store, sample_root):
    assert chain(
        sample_store, sample_root, "at::native::launch_gather_topk_kernel", "at::native::mbtopk::radixFindKthValues"
    ) == [
        ("at::native::launch_gather_topk_kernel", TOPK, 58, None),
        ("at::native::mbtopk::launch", TOPK, 45, (TOPK, 81)),
        ("at::native::mbtopk::radixFindKthValues", TOPK, 36, (TOPK, 47)),
    ]


def test_topk_reaches_the_single_block_kernel_through_the_other_branch(sample_store, sample_root):
    assert chain(
        sample_store, sample_root, "at::native::launch_gather_topk_kernel", "at::native::sbtopk::gatherTopK"
    ) == [
        ("at::native::launch_gather_topk_kernel", TOPK, 58, None),
        ("at::native::sbtopk::launch", TOPK, 25, (TOPK, 81)),
        ("at::native::sbtopk::gatherTopK", TOPK, 17, (TOPK, 27)),
    ]


def test_topk_calls_what_every_level_of_the_macros_writes(sample_store, sample_root):
    found = callees(sample_store, sample_root, "at::native::launch_gather_topk_kernel")
    assert {
        ("at::native::mbtopk::launch", 45, "call", 81),
        ("at::native::sbtopk::launch", 25, "call", 81),
        ("at::native::should_use_multiblock", 54, "call", 81),  # RUN_MB's own call
    } <= found


# -- 2. a macro-defined kernel launched through a local pointer in a lambda -----------------


def test_the_variadic_macro_defines_a_kernel_at_its_invocation(sample_store):
    (kernel,) = sample_store.symbols_with_qname("pytorch_flash::flash_fwd_kernel")
    assert (kernel.path, kernel.line, kernel.kind.value) == (FLASH, 38, "kernel")
    assert kernel.signature.endswith("[from DEFINE_FLASH_FORWARD_KERNEL(...) at line 38]")


def test_flash_forward_reaches_the_kernel_launched_through_a_local_in_switch_lambdas(sample_store, sample_root):
    assert chain(sample_store, sample_root, "pytorch_flash::run_mha_fwd_hdim64", "pytorch_flash::compute_attn") == [
        ("pytorch_flash::run_mha_fwd_hdim64", FLASH, 52, None),
        ("pytorch_flash::run_flash_fwd", FLASH, 43, (FLASH, 54)),
        ("pytorch_flash::flash_fwd_kernel", FLASH, 38, (FLASH, 47)),
        ("pytorch_flash::compute_attn", FLASH, 26, (FLASH, 39)),
    ]
    assert ("pytorch_flash::flash_fwd_kernel", 38, "launch", 47) in callees(
        sample_store, sample_root, "pytorch_flash::run_flash_fwd"
    )


# -- 3. two sibling launch macros in one function ------------------------------------------


def test_both_sibling_launch_macros_are_followed(sample_store, sample_root):
    launches = {
        (name, line, site)
        for name, line, kind, site in callees(sample_store, sample_root, "at::native::parallel_cat")
        if kind == "launch"
    }
    # one edge per kernel, at its first launch: HANDLE_CASE_ALIGNED(1) at :40, HANDLE_CASE(1) at :49
    assert launches == {
        ("at::native::CatArrayBatchedCopy_aligned16", 22, 40),
        ("at::native::CatArrayBatchedCopy", 14, 49),
    }
    assert chain(sample_store, sample_root, "at::native::parallel_cat", "at::native::CatArrayBatchedCopy") == [
        ("at::native::parallel_cat", SHAPE, 30, None),
        ("at::native::CatArrayBatchedCopy", SHAPE, 14, (SHAPE, 49)),
    ]
