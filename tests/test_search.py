"""Search ranking on the bundled tree: exact results, in order."""

from __future__ import annotations

from explorer.model import Language, SymbolKind
from explorer.names.search import MatchTier, SearchFilter, grade, search_symbols, word_starts


def top(store, query, limit=20, **where):
    return [
        (h.symbol.qname, h.symbol.path, h.symbol.line)
        for h in search_symbols(store, query, limit, SearchFilter(**where))
    ]


def test_word_starts_split_snake_camel_digits_and_paths():
    assert word_starts("cudnnConvolutionForward") == [0, 5, 16]
    assert word_starts("cudnn_batch_norm") == [0, 6, 12]
    assert word_starts("at::native::conv2d") == [0, 4, 12, 16]
    assert word_starts("HTTPServer") == [0, 4]


def test_grades_follow_the_tiers():
    assert grade("Conv2d", "Conv2d") == (MatchTier.EXACT_CASE, 1.0)
    assert grade("conv2d", "Conv2d") == (MatchTier.EXACT, 1.0)
    assert grade("conv2d", "conv2d_symint")[0] is MatchTier.PREFIX
    assert grade("cudnn_conv", "raw_cudnn_convolution_forward_out")[0] is MatchTier.WORDS
    assert grade("cbn", "cudnn_batch_norm")[0] is MatchTier.WORDS
    assert grade("olution", "convolution")[0] is MatchTier.SUBSTRING
    assert grade("cudnnconvfwd", "cudnnConvolutionForward")[0] is MatchTier.SUBSEQUENCE
    assert grade("xyz", "conv2d") is None
    # a better alignment at word starts scores higher than a scattered one
    assert grade("cnf", "cudnnConvolutionForward")[1] > grade("cnf", "cancelfoo")[1]


def test_conv2d_lists_the_operators_the_functional_alias_and_the_kernels(sample_store):
    assert top(sample_store, "conv2d", 12) == [
        ("aten::conv2d", "aten/src/ATen/native/native_functions.yaml", 74),
        ("aten::conv2d.padding", "aten/src/ATen/native/native_functions.yaml", 78),
        ("at::_ops::conv2d", "aten/src/ATen/Operators.h", 19),  # `struct TORCH_API conv2d`
        ("at::conv2d", "aten/src/ATen/Functions.h", 14),
        ("at::conv2d", "aten/src/ATen/Functions.h", 29),
        ("torch.nn.functional.conv2d", "torch/nn/functional.py", 37),
        # type stubs after the code they describe
        ("torch._C._VariableFunctions.conv2d", "torch/_C/_VariableFunctions.pyi", 14),
        ("torch._C._VariableFunctions.conv2d", "torch/_C/_VariableFunctions.pyi", 16),
        # same name, other case
        ("torch.nn.modules.conv.Conv2d", "torch/nn/modules/conv.py", 187),
        # prefixes: the kernels the operators dispatch to before other code
        ("at::native::conv2d_symint", "aten/src/ATen/native/Convolution.cpp", 173),
        ("at::native::conv2d_padding_symint", "aten/src/ATen/native/Convolution.cpp", 188),
        ("at::conv2d_symint", "aten/src/ATen/Functions.h", 21),
    ]


def test_capitalised_query_finds_the_module_class_first(sample_store):
    assert top(sample_store, "Conv2d", 3) == [
        ("torch.nn.modules.conv.Conv2d", "torch/nn/modules/conv.py", 187),
        ("aten::conv2d", "aten/src/ATen/native/native_functions.yaml", 74),
        ("aten::conv2d.padding", "aten/src/ATen/native/native_functions.yaml", 78),
    ]


def test_letters_in_order_find_the_vendor_call(sample_store):
    hits = search_symbols(sample_store, "cudnnconvfwd", 3)
    assert [(h.symbol.qname, h.symbol.kind, h.symbol.lang, h.symbol.path) for h in hits] == [
        ("cudnnConvolutionForward", SymbolKind.EXTERNAL, Language.VENDOR, None),
        (
            "at::native::cudnn_convolution_forward_out",
            SymbolKind.FUNCTION,
            Language.CPP,
            "aten/src/ATen/native/cudnn/ConvShared.cpp",
        ),
        ("cudnnGetConvolutionForwardAlgorithm_v7", SymbolKind.EXTERNAL, Language.VENDOR, None),
    ]


def test_word_prefixes_find_snake_case_names(sample_store):
    assert top(sample_store, "cbn", 3) == [
        ("aten::cudnn_batch_norm", "aten/src/ATen/native/native_functions.yaml", 83),
        ("at::native::cudnn_batch_norm", "aten/src/ATen/native/cudnn/BatchNorm.cpp", 36),
        ("at::_ops::cudnn_batch_norm", "aten/src/ATen/Operators.h", 122),
    ]


def test_paths_in_queries_narrow_by_namespace_or_package(sample_store):
    assert top(sample_store, "at::native::conv", 3) == [
        ("at::native::convolution", "aten/src/ATen/native/Convolution.cpp", 218),
        ("at::native::conv2d_symint", "aten/src/ATen/native/Convolution.cpp", 173),
        ("at::native::conv2d_padding_symint", "aten/src/ATen/native/Convolution.cpp", 188),
    ]
    assert top(sample_store, "nn.Conv2d", 2) == [
        ("torch.nn.modules.conv.Conv2d", "torch/nn/modules/conv.py", 187),
        ("torch.nn.functional.conv2d", "torch/nn/functional.py", 37),
    ]


def test_filters_by_kind_and_language(sample_store):
    assert top(sample_store, "conv2d", 5, kind=SymbolKind.OPERATOR) == [
        ("aten::conv2d", "aten/src/ATen/native/native_functions.yaml", 74),
        ("aten::conv2d.padding", "aten/src/ATen/native/native_functions.yaml", 78),
        ("aten::_slow_conv2d_forward", "aten/src/ATen/native/native_functions.yaml", 200),
    ]
    assert top(sample_store, "relu_kernel", 5, lang=Language.CPP) == [
        ("at::native::relu_kernel", "aten/src/ATen/native/cpu/Activation.cpp", 7),
        # cpp includes CUDA sources
        ("at::native::relu_kernel_cuda", "aten/src/ATen/native/cuda/Activation.cu", 20),
        ("at::native::relu_cuda_kernel", "aten/src/ATen/native/cuda/Activation.cu", 11),
    ]
    kernels = search_symbols(sample_store, "relu", 5, SearchFilter(kind=SymbolKind.KERNEL))
    assert [(h.symbol.qname, h.symbol.lang) for h in kernels] == [("at::native::relu_cuda_kernel", Language.CUDA)]


def test_nothing_matches_nonsense(sample_store):
    assert search_symbols(sample_store, "zzqqxx") == []
    assert search_symbols(sample_store, "   ") == []
    assert search_symbols(sample_store, "::") == []


def test_call_sites_are_stored_for_tracing(sample_store):
    calls = [
        (c.callee, c.qualified, c.line, c.kind.value, c.name_args)
        for c in sample_store.calls_in("torch.nn.modules.conv.Conv2d._conv_forward", "torch/nn/modules/conv.py")
    ]
    assert calls == [
        ("F.conv2d", "torch.nn.functional.conv2d", 230, "call", ()),
        ("F.pad", "torch.nn.functional.pad", 231, "call", ()),
        ("_pair", "torch.nn.modules.utils._pair", 235, "call", ()),
        ("F.conv2d", "torch.nn.functional.conv2d", 239, "call", ()),
    ]
    # the function pointer handed to the splitting helper is kept with the call
    [split] = [
        c
        for c in sample_store.calls_in(
            "at::native::raw_cudnn_convolution_forward_out", "aten/src/ATen/native/cudnn/Conv_v7.cpp"
        )
        if c.callee == "split_batch_dim_to_32bit_out"
    ]
    assert (split.line, split.name_args[-1]) == (124, "raw_cudnn_convolution_forward_out_32bit")
    launches = [
        (c.callee, c.line)
        for c in sample_store.calls_in("at::native::relu_kernel_cuda", "aten/src/ATen/native/cuda/Activation.cu")
        if c.kind.value == "launch"
    ]
    assert launches == [("relu_cuda_kernel", 27)]


class _Reversed:
    """The sample index, its rows of a name in the opposite order (as another build may store them)."""

    def __init__(self, store) -> None:
        self.store = store

    def symbols_named_any(self, lnames):
        return list(reversed(self.store.symbols_named_any(lnames)))

    def __getattr__(self, name):
        return getattr(self.store, name)


def test_a_namespace_in_several_files_is_one_hit_at_its_first_file_whatever_the_row_order(sample_store):
    opened = [
        s for s in sample_store.symbols_named("native") if s.kind is SymbolKind.NAMESPACE and s.qname == "at::native"
    ]
    assert len(opened) > 1  # at::native is opened in many files of the sample tree
    first = min((s.path, s.line) for s in opened)
    for reader in (sample_store, _Reversed(sample_store)):
        [hit] = [h for h in search_symbols(reader, "native", limit=50) if h.symbol.qname == "at::native"]
        assert (hit.symbol.path, hit.symbol.line) == first
