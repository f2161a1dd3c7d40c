"""C++/CUDA extraction: namespaces, classes, functions, macro registrations, kernels, calls."""

from __future__ import annotations

from explorer.model import CallKind, Language, SymbolKind
from explorer.parsers.cpp import parse_cpp, strip_template_args

SOURCE = b"""\
#include <ATen/ATen.h>
namespace at { namespace native {
using at::native::ConvParams;

struct ConvParams {
  bool use_cudnn(const Tensor& input) const { return input.is_cuda(); }
};

#if AT_CUDNN_ENABLED()
Tensor cudnn_convolution(const Tensor& input) {
  return raw_cudnn_convolution_forward_out(input);
}
#else
Tensor cudnn_convolution(const Tensor& input) {
  TORCH_CHECK(false, "ATen not compiled with cuDNN support");
}
#endif

template <typename scalar_t>
static void split_batch(const Tensor& input, void (*fn)(const Tensor&)) {
  fn(input);
}

void raw_forward(const Tensor& input) {
  split_batch<float>(input, raw_forward_32bit);
  AT_CUDNN_CHECK(cudnnConvolutionForward(handle, &one, desc));
}

TORCH_IMPL_FUNC(addmm_out_cuda)(const Tensor& self, const Tensor& result) {
  at::cuda::blas::gemm<scalar_t>(self, result);
}

DEFINE_DISPATCH(relu_stub);
REGISTER_DISPATCH(relu_stub, &relu_kernel);
}} // namespace at::native

namespace at::meta {
TORCH_META_FUNC2(add, Tensor)(const Tensor& self) { build(self); }
}

namespace at::cuda::blas {
template <>
void gemm<float>(float alpha) { cublasSgemm(handle, alpha); }
}

void ConvParams::view() const {}
"""


def parse(source: bytes = SOURCE, path: str = "aten/src/ATen/native/Conv.cpp", lang: Language = Language.CPP):
    return parse_cpp(path, source, lang)


def test_template_arguments_are_dropped_from_names():
    assert strip_template_args("at::cuda::blas::gemm<scalar_t>") == "at::cuda::blas::gemm"
    assert strip_template_args("f<std::vector<int>>") == "f"
    assert strip_template_args("operator<") == "operator<"


def test_definitions_have_namespace_paths_kinds_and_lines():
    symbols = {(s.qname, s.kind, s.line, s.end_line) for s in parse().symbols}
    assert symbols == {
        ("at", SymbolKind.NAMESPACE, 2, 35),
        ("at::native", SymbolKind.NAMESPACE, 2, 35),
        ("at::native::ConvParams", SymbolKind.STRUCT, 5, 7),
        ("at::native::ConvParams::use_cudnn", SymbolKind.METHOD, 6, 6),
        # both sides of the preprocessor conditional
        ("at::native::cudnn_convolution", SymbolKind.FUNCTION, 10, 12),
        ("at::native::cudnn_convolution", SymbolKind.FUNCTION, 14, 16),
        ("at::native::split_batch", SymbolKind.FUNCTION, 20, 22),
        ("at::native::raw_forward", SymbolKind.FUNCTION, 24, 27),
        ("at::native::addmm_out_cuda", SymbolKind.STRUCTURED_KERNEL, 29, 31),
        ("at::native::relu_stub", SymbolKind.DISPATCH_STUB, 33, 33),
        ("at::native::relu_stub", SymbolKind.DISPATCH_REGISTRATION, 34, 34),
        ("at::meta", SymbolKind.NAMESPACE, 37, 39),
        ("at::meta::add_Tensor", SymbolKind.META_FUNCTION, 38, 38),
        ("at::cuda::blas", SymbolKind.NAMESPACE, 41, 44),
        ("at::cuda::blas::gemm", SymbolKind.FUNCTION, 43, 43),
        ("ConvParams::view", SymbolKind.METHOD, 46, 46),
    }


def test_registrations_name_their_kernel():
    registration = next(s for s in parse().symbols if s.kind is SymbolKind.DISPATCH_REGISTRATION)
    assert registration.target == "at::native::relu_kernel"
    assert registration.signature == "REGISTER_DISPATCH(relu_stub, &relu_kernel)"


def test_signature_is_the_function_header():
    signatures = {s.qname: s.signature for s in parse().symbols if s.kind is SymbolKind.STRUCTURED_KERNEL}
    assert signatures == {
        "at::native::addmm_out_cuda": "TORCH_IMPL_FUNC(addmm_out_cuda)(const Tensor& self, const Tensor& result)"
    }


def test_calls_record_caller_callee_line_and_names_passed_as_arguments():
    calls = {(c.caller, c.callee, c.line, c.name_args) for c in parse().calls}
    path = "aten/src/ATen/native/Conv.cpp"
    assert calls == {
        ("at::native::ConvParams::use_cudnn", "input.is_cuda", 6, ()),
        (path, "AT_CUDNN_ENABLED", 9, ()),
        # a parameter, local or field passed on is a value, never a function pointer
        ("at::native::cudnn_convolution", "raw_cudnn_convolution_forward_out", 11, ()),
        ("at::native::cudnn_convolution", "TORCH_CHECK", 15, ()),
        ("at::native::split_batch", "fn", 21, ()),
        # a function handed to another is recorded as an argument name: the tracer follows it
        ("at::native::raw_forward", "split_batch", 25, ("raw_forward_32bit",)),
        ("at::native::raw_forward", "AT_CUDNN_CHECK", 26, ()),
        ("at::native::raw_forward", "cudnnConvolutionForward", 26, ("handle", "one", "desc")),
        ("at::native::addmm_out_cuda", "at::cuda::blas::gemm", 30, ()),
        (path, "DEFINE_DISPATCH", 33, ("relu_stub",)),
        (path, "REGISTER_DISPATCH", 34, ("relu_stub", "relu_kernel")),
        ("at::meta::add_Tensor", "build", 38, ()),
        ("at::cuda::blas::gemm", "cublasSgemm", 43, ("handle",)),
    }


CUDA_SOURCE = b"""\
namespace at::native {
template <typename T>
__global__ void relu_cuda_kernel(T* data, int n) {
  int i = threadIdx.x;
}

static void relu_kernel_cuda(float* data, int n, cudaStream_t stream) {
  relu_cuda_kernel<float><<<grid, block, 0, stream>>>(data, n);
}
}
"""


def test_cuda_kernels_and_launches():
    facts = parse(CUDA_SOURCE, "aten/src/ATen/native/cuda/Activation.cu", Language.CUDA)
    assert {(s.qname, s.kind, s.lang, s.line) for s in facts.symbols if s.kind is not SymbolKind.NAMESPACE} == {
        ("at::native::relu_cuda_kernel", SymbolKind.KERNEL, Language.CUDA, 3),
        ("at::native::relu_kernel_cuda", SymbolKind.FUNCTION, Language.CUDA, 7),
    }
    assert [(c.caller, c.callee, c.kind, c.line) for c in facts.calls] == [
        ("at::native::relu_kernel_cuda", "relu_cuda_kernel", CallKind.LAUNCH, 8),
    ]


def test_anonymous_namespaces_add_no_name_and_unbalanced_code_still_yields_definitions():
    source = b"namespace {\nint helper() { return 1; }\n}\nTORCH_API Tensor broken(const Tensor& x) { return helper(); }\n#if X\nvoid half(\n#endif\nvoid after() {}\n"
    facts = parse(source)
    assert {(s.qname, s.line) for s in facts.symbols} >= {("helper", 2), ("broken", 4), ("after", 8)}


SWALLOWED = b"""\
namespace at::native {
struct Params {
  bool use_fast(int batch) const {
#if FAST_ENABLED()
    return batch > 0
#if !defined(MOBILE)
           && batch >= 16
#endif
       ;
#endif
    return false;
  }
};
Tensor convolution(const Tensor& input) { return input; }
} // namespace at::native
"""


def test_namespaces_survive_a_conditional_inside_an_expression():
    # The grammar cannot read `#if` inside an expression; its error recovery loses the
    # namespace node, and braces put the definitions back into it.
    from explorer import treesitter as tsx

    assert tsx.parse(Language.CPP, SWALLOWED).root_node.has_error
    assert {(s.qname, s.kind, s.line, s.end_line) for s in parse(SWALLOWED).symbols} == {
        ("at::native", SymbolKind.NAMESPACE, 1, 15),
        ("at::native::Params", SymbolKind.STRUCT, 2, 13),
        ("at::native::Params::use_fast", SymbolKind.METHOD, 3, 12),
        ("at::native::convolution", SymbolKind.FUNCTION, 14, 14),
    }


def test_functions_returning_references_and_pointers_are_definitions():
    source = b"namespace at::native {\nTensor& add_out(const Tensor& a, Tensor& out) { return out; }\nconst float* data(const Tensor& t) { return nullptr; }\nTensor&& moved(Tensor&& t) { return static_cast<Tensor&&>(t); }\n}\n"
    assert [(s.qname, s.line) for s in parse(source).symbols if s.kind is SymbolKind.FUNCTION] == [
        ("at::native::add_out", 2),
        ("at::native::data", 3),
        ("at::native::moved", 4),
    ]


MACROS = b"""\
#define CREATE_UNARY_TORCH_IMPL_FUNC(func_out, func_stub) \\
TORCH_IMPL_FUNC(func_out) (const Tensor& self, const Tensor& result) { \\
  func_stub(device_type(), *this); \\
}

#define FOREACH_UNARY_OP(OP) \\
  std::vector<Tensor> foreach_tensor_##OP##_slow(TensorList tensors) { \\
    return map(tensors, #OP, /*copy=*/false); \\
  }
#define UNARY_OUT(op) Tensor& op##_sparse_out(Tensor& r) { return r; }
#define UNARY_FUNCTIONS(op) \\
  UNARY_OUT(op); \\
  FOREACH_UNARY_OP(op)

namespace at::native {
CREATE_UNARY_TORCH_IMPL_FUNC(acos_out, acos_stub)
CREATE_UNARY_TORCH_IMPL_FUNC(asin_out, asin_stub)
FOREACH_UNARY_OP(exp);
UNARY_FUNCTIONS(sin)

void helper() {
  FOREACH_UNARY_OP(inside_a_function_body_is_not_a_definition);
}
}
"""


def test_macros_that_define_kernels_are_expanded_where_invoked():
    facts = parse(MACROS)
    symbols = {(s.qname, s.kind, s.line) for s in facts.symbols}
    assert symbols == {
        ("CREATE_UNARY_TORCH_IMPL_FUNC", SymbolKind.MACRO, 1),
        ("FOREACH_UNARY_OP", SymbolKind.MACRO, 6),
        ("UNARY_OUT", SymbolKind.MACRO, 10),
        ("UNARY_FUNCTIONS", SymbolKind.MACRO, 11),
        ("at::native", SymbolKind.NAMESPACE, 15),
        ("at::native::acos_out", SymbolKind.STRUCTURED_KERNEL, 16),
        ("at::native::asin_out", SymbolKind.STRUCTURED_KERNEL, 17),
        ("at::native::foreach_tensor_exp_slow", SymbolKind.FUNCTION, 18),
        # a macro made only of other macros of the file, expanded through them
        ("at::native::sin_sparse_out", SymbolKind.FUNCTION, 19),
        ("at::native::foreach_tensor_sin_slow", SymbolKind.FUNCTION, 19),
        ("at::native::helper", SymbolKind.FUNCTION, 21),
    }
    acos = next(s for s in facts.symbols if s.qname == "at::native::acos_out")
    assert acos.signature == (
        "TORCH_IMPL_FUNC(acos_out) (const Tensor& self, const Tensor& result)"
        "  [from CREATE_UNARY_TORCH_IMPL_FUNC(...) at line 16]"
    )
    # the calls in the expansion belong to the generated kernel, at the invocation's line
    generated = {(c.caller, c.callee, c.line, c.name_args) for c in facts.calls if c.caller.startswith("at::native::")}
    assert ("at::native::acos_out", "acos_stub", 16, ()) in generated
    assert ("at::native::foreach_tensor_exp_slow", "map", 18, ()) in generated


def test_a_function_that_error_recovery_took_apart_is_still_a_definition():
    # A body left open (a file being edited, or a conditional that opens a brace on one side
    # only) leaves the declarator and `{` loose in an ERROR node; the body runs to the brace
    # that closes it, here the end of the file.
    facts = parse_cpp(
        "aten/src/ATen/native/Cut.cpp",
        b"""\
namespace at::native {

int whole(int y) { return y; }

at::Tensor first(
    const Tensor& x) {
  if (x.defined()) {
    return at::relu(x);
""",
    )
    assert [(s.qname, s.kind, s.line, s.end_line, s.signature) for s in facts.symbols] == [
        ("at::native", SymbolKind.NAMESPACE, 1, 8, "namespace at::native"),
        ("at::native::whole", SymbolKind.FUNCTION, 3, 3, "int whole(int y)"),
        ("at::native::first", SymbolKind.FUNCTION, 5, 8, "at::Tensor first( const Tensor& x)"),
    ]
    assert [(c.caller, c.callee, c.line) for c in facts.calls] == [
        ("at::native::first", "x.defined", 7),
        ("at::native::first", "at::relu", 8),
    ]


def test_namespaces_in_both_halves_of_a_balanced_conditional():
    # cudnn/RNN.cpp: `#if !AT_CUDNN_ENABLED()` stubs in one namespace block, `#else` the real
    # code in another. Each half is balanced, so both count (an unbalanced first branch, one
    # that opens a brace, would make the scan skip the others).
    from explorer.parsers.cpp_namespaces import namespace_extents, namespace_map

    source = b"#if !A\nnamespace at { namespace native {\nint f();\n}}\n#else\nnamespace at { namespace native {\nint g();\n}}\n#endif\n"
    scopes = namespace_map(namespace_extents(source))
    assert scopes.innermost(source.index(b"int f")) == "at::native"
    assert scopes.innermost(source.index(b"int g")) == "at::native"
    assert scopes.innermost(len(source) - 1) == ""


def test_a_lambda_outside_any_function_is_a_definition_of_its_own():
    # register_prim_ops.cpp's tables of operators and static runtime's
    # REGISTER_OPERATOR_FUNCTOR(name, id, [](Node* n) {...}) write lambdas at namespace scope
    source = (
        "namespace torch { namespace jit {\n"  # 1
        "static const std::vector<OperatorGeneratorArgs> opGenArgs{\n"
        "    OperatorGeneratorArgs(\n"
        '        TORCH_SELECTIVE_SCHEMA("aten::str(t elem) -> str"),\n'
        "        [](Stack& stack) {\n"  # 5
        "          auto x = at::add(a, b);\n"  # 6
        "          auto f = [](int y) { return at::mul(y, y); };\n"  # 7
        "        },\n"
        "        aliasAnalysisFromSchema()),\n"  # 9
        "};\n"
        "REGISTER_OPERATOR_FUNCTOR(aten::abs, aten_abs, [](Node* n) -> SROperator {\n"  # 11
        "  return [](ProcessedNode* p_node) {\n"
        "      p_node->Output(0) = at::native::abs(in0_t);\n"  # 13
        "  };\n"
        "});\n"  # 15
        "void f() { auto g = [](){ return at::sub(1); }; }\n"  # 16
        "}}\n"
    )
    facts = parse_cpp("torch/csrc/jit/runtime/ops.cpp", source.encode())
    assert [(s.qname, s.kind, s.line, s.end_line) for s in facts.symbols if s.kind is SymbolKind.FUNCTION] == [
        ("torch::jit::<lambda at line 5>", SymbolKind.FUNCTION, 5, 8),
        ("torch::jit::<lambda at line 11>", SymbolKind.FUNCTION, 11, 15),
        ("torch::jit::f", SymbolKind.FUNCTION, 16, 16),  # a lambda inside a function stays the function's
    ]
    assert [(c.caller, c.callee, c.line) for c in facts.calls if c.callee.startswith("at::")] == [
        ("torch::jit::<lambda at line 5>", "at::add", 6),
        ("torch::jit::<lambda at line 5>", "at::mul", 7),  # the inner lambda is part of the outer one
        ("torch::jit::<lambda at line 11>", "at::native::abs", 13),
        ("torch::jit::f", "at::sub", 16),
    ]
    # the calls outside any lambda still belong to the file
    assert [(c.caller, c.line) for c in facts.calls if c.callee == "aliasAnalysisFromSchema"] == [
        ("torch/csrc/jit/runtime/ops.cpp", 9),
    ]


def test_data_members_are_fields_and_member_declarations_are_not():
    source = (
        "namespace torch::distributed::rpc {\n"  # 1
        "struct TORCH_API WorkerInfo : torch::CustomClassHolder {\n"
        "  WorkerInfo(std::string name, int64_t id);\n"  # 3
        "  static constexpr size_t MAX_NAME_LEN = 128;\n"  # 4
        "  const std::string name_;\n"  # 5
        "  int64_t* sizes_ = nullptr, count_;\n"  # 6
        "  int& ref_;\n"  # 7
        "  char data_[4];\n"  # 8
        "  int* make();\n"  # 9
        "};\n"
        "typedef struct { int x; } Plain;\n"  # 11
        "}\n"
    )
    facts = parse_cpp("torch/csrc/distributed/rpc/types.h", source.encode())
    scope = "torch::distributed::rpc::WorkerInfo"
    assert [(s.qname, s.line) for s in facts.symbols if s.kind is SymbolKind.FIELD] == [
        (f"{scope}::MAX_NAME_LEN", 4),
        (f"{scope}::name_", 5),
        (f"{scope}::count_", 6),
        (f"{scope}::sizes_", 6),
        (f"{scope}::ref_", 7),
        (f"{scope}::data_", 8),
    ]  # not the constructor (3) or make (9), declarations; not Plain's x, a member of no named class


def test_a_factory_that_constructs_its_template_argument_calls_the_constructor():
    source = (
        "namespace torch::jit {\n"  # 1
        "void f(const std::string& filename) {\n"
        "  auto r = std::make_unique<caffe2::serialize::PyTorchStreamReader>(filename);\n"  # 3
        "  auto s = c10::make_intrusive<Store, std::allocator<int>>(1);\n"  # 4
        "  auto v = std::make_unique<std::vector<int>>();\n"  # 5
        "}\n"
        "}\n"
    )
    facts = parse_cpp("torch/csrc/jit/python/init.cpp", source.encode())
    assert [(c.callee, c.line) for c in facts.calls] == [
        ("std::make_unique", 3),
        ("caffe2::serialize::PyTorchStreamReader::PyTorchStreamReader", 3),
        ("c10::make_intrusive", 4),
        ("Store::Store", 4),
        ("std::make_unique", 5),
        ("std::vector::vector", 5),
    ]
