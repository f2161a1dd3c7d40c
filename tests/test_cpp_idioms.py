"""C++/CUDA idioms the parser must read right: one small fixture per idiom, with the exact
names, kinds, lines, callers and passed names it must give."""

from __future__ import annotations

from explorer.model import CallKind, ImportBinding, Language, SymbolKind
from explorer.parsers.cpp import parse_cpp


def cuda(source: str):
    return parse_cpp("k.cu", source.encode(), Language.CUDA)


def cpp(source: str, path: str = "a.cpp"):
    return parse_cpp(path, source.encode(), Language.CPP)


def symbols(facts, *kinds: SymbolKind) -> list[tuple[str, SymbolKind, int]]:
    return [(s.qname, s.kind, s.line) for s in facts.symbols if not kinds or s.kind in kinds]


def calls(facts) -> list[tuple[str, str, int, CallKind]]:
    return [(c.caller, c.callee, c.line, c.kind) for c in facts.calls]


def test_1_kernels_behind_launch_bounds_hints_are_kernels():
    facts = cuda(
        "namespace at::native {\n"  # 1
        "C10_LAUNCH_BOUNDS_1(256) __global__ void one(float* p) {}\n"  # 2
        "template <typename T>\n"  # 3
        "C10_LAUNCH_BOUNDS_2(512, 4)\n"  # 4
        "__global__ void two(T* p) {}\n"  # 5
        "static C10_LAUNCH_BOUNDS_0 __global__ void three() {}\n"  # 6
        "inline __launch_bounds__(128, 2) __global__ void four() {}\n"  # 7
        "template <typename T>\n"  # 8
        "__global__ void\n"  # 9
        "#if !defined(USE_ROCM)\n"  # 10
        "C10_LAUNCH_BOUNDS_1(1024)\n"  # 11
        "#endif\n"  # 12
        "five(T* p) {}\n"  # 13
        "void launch(float* p) { five<float><<<1, 1>>>(p); }\n"  # 14
        "}\n"
    )
    assert symbols(facts, SymbolKind.KERNEL) == [
        ("at::native::one", SymbolKind.KERNEL, 2),
        ("at::native::two", SymbolKind.KERNEL, 5),  # the line the blanked hint leaves the kernel on
        ("at::native::three", SymbolKind.KERNEL, 6),
        ("at::native::four", SymbolKind.KERNEL, 7),
        ("at::native::five", SymbolKind.KERNEL, 9),
    ]
    assert calls(facts) == [("at::native::launch", "five", 14, CallKind.LAUNCH)]


def test_2_a_macro_defined_and_invoked_in_a_body_calls_for_that_body():
    facts = cuda(
        "namespace at::native {\n"  # 1
        "void run(float* p, int n) {\n"  # 2
        "#define LAUNCH_CASE(T, N)                               \\\n"  # 3
        "  fill_kernel<T, N>                                     \\\n"  # 4
        "      <<<blocks, threads, 0, stream>>>(p, helper(N));\n"  # 5
        "  switch (n) {\n"  # 6
        "    case 1:\n      LAUNCH_CASE(unsigned int, 1); break;\n"  # 7, 8
        "    default:\n"  # 9
        "      LAUNCH_CASE(float, 4);\n"  # 10
        "  }\n"  # 11
        "#undef LAUNCH_CASE\n"  # 12
        "}\n"  # 13
        "}\n"
    )
    launches = sorted(call for call in calls(facts) if call[1] in ("fill_kernel", "helper"))
    assert launches == [
        ("at::native::run", "fill_kernel", 8, CallKind.LAUNCH),
        ("at::native::run", "fill_kernel", 10, CallKind.LAUNCH),
        ("at::native::run", "helper", 8, CallKind.CALL),
        ("at::native::run", "helper", 10, CallKind.CALL),
    ]
    # an expansion in a body defines nothing
    assert symbols(facts, SymbolKind.FUNCTION, SymbolKind.KERNEL) == [("at::native::run", SymbolKind.FUNCTION, 2)]


def test_2_a_macro_invoked_with_type_arguments_in_a_body_does_not_swallow_the_function():
    facts = cuda(
        "void outer(int st) {\n"  # 1
        "  if (st == 1) {\n"  # 2
        "    SWITCH_ARGS(nt, vec, KERNEL_T, res_t, float, int8_t, float);\n"  # 3
        "  } else {\n"  # 4
        "    check(st);\n"  # 5
        "  }\n"  # 6
        "}\n"  # 7
        "void after() { g(); }\n"  # 8
    )
    assert [(s.qname, s.line, s.end_line) for s in facts.symbols] == [("outer", 1, 7), ("after", 8, 8)]
    assert ("outer", "check", 5, CallKind.CALL) in calls(facts)
    assert ("after", "g", 8, CallKind.CALL) in calls(facts)


def test_3_a_launch_through_a_local_launches_what_the_local_holds():
    facts = cuda(
        "namespace at::native {\n"  # 1
        "template <typename T, int N> __global__ void scale(T* x) {}\n"  # 2
        "#define FILL_KERNELS(NAME, VALUE)                       \\\n"  # 3
        "  template <typename T>                                 \\\n"  # 4
        "  C10_LAUNCH_BOUNDS_1(128)                              \\\n"  # 5
        "  __global__ void NAME##_kernel(T* out) { out[0] = VALUE; }\n"  # 6
        "FILL_KERNELS(zero, 0)\n"  # 7
        "FILL_KERNELS(one, 1)\n"  # 8
        "void launch(float* x) {\n"  # 9
        "  auto kernel = &scale<float, 4>;\n"  # 10
        "  kernel<<<1, 32>>>(x);\n"  # 11
        "  auto plain = scale<float, 2>;\n"  # 12
        "  plain<<<1, 32>>>(x);\n"  # 13
        "  void (*pointer)(float*) = &scale<float, 8>;\n"  # 14
        "  pointer<<<1, 32>>>(x);\n"  # 15
        "  void (*other)(float*) = at::native::zero_kernel<float>;\n"  # 16
        "  other<<<1, 32>>>(x);\n"  # 17
        "}\n"
        "}\n"
    )
    assert symbols(facts, SymbolKind.KERNEL) == [
        ("at::native::scale", SymbolKind.KERNEL, 2),
        ("at::native::zero_kernel", SymbolKind.KERNEL, 7),
        ("at::native::one_kernel", SymbolKind.KERNEL, 8),
    ]
    assert [call for call in calls(facts) if call[3] == CallKind.LAUNCH] == [
        ("at::native::launch", "scale", 11, CallKind.LAUNCH),
        ("at::native::launch", "scale", 13, CallKind.LAUNCH),
        ("at::native::launch", "scale", 15, CallKind.LAUNCH),
        ("at::native::launch", "at::native::zero_kernel", 17, CallKind.LAUNCH),
    ]


def test_4_names_a_function_declares_are_values_not_function_pointers():
    facts = cpp(
        "namespace at::native {\n"  # 1
        "float helper(float);\n"  # 2
        "struct Op {\n"  # 3
        "  float scale;\n"  # 4
        "  float run() const { return apply(scale, helper); }\n"  # 5
        "  float later() const;\n"  # 6
        "};\n"  # 7
        "float Op::later() const { return apply(scale, helper); }\n"  # 8
        "void f(const Tensor& self, int n) {\n"  # 9
        "  auto inner = self.exp();\n"  # 10
        "  tanh(inner);\n"  # 11
        "  g(self, n, helper);\n"  # 12
        "  auto body = [&](int64_t begin) { run(begin, helper); };\n"  # 13
        "  for (const auto& item : items) { use(item, helper); }\n"  # 14
        "  auto [lo, hi] = bounds(self);\n"  # 15
        "  use(lo, hi, helper);\n"  # 16
        "}\n"
        "}\n"
    )
    passed = [
        (c.caller, c.callee, c.line, c.name_args) for c in facts.calls if c.name_args or c.callee in ("tanh", "use")
    ]
    assert passed == [
        ("at::native::Op::run", "apply", 5, ("helper",)),
        ("at::native::Op::later", "apply", 8, ("helper",)),
        ("at::native::f", "tanh", 11, ()),
        ("at::native::f", "g", 12, ("helper",)),
        ("at::native::f", "run", 13, ("helper",)),
        ("at::native::f", "use", 14, ("helper",)),
        ("at::native::f", "use", 16, ("helper",)),
    ]


def test_5_a_temporary_functor_called_calls_its_call_operator():
    facts = cpp(
        "namespace at::native {\n"  # 1
        "struct AddFunctor { float operator()(float a) const { return a; } };\n"  # 2
        "void f(float x) {\n"  # 3
        "  AddFunctor{}(x);\n"  # 4
        "  AddFunctor()(x);\n"  # 5
        "  MulFunctor<float>{x}(x);\n"  # 6
        "  ops::DivFunctor{}(x);\n"  # 7
        "}\n"
        "}\n"
    )
    assert ("at::native::AddFunctor::operator()", SymbolKind.METHOD, 2) in symbols(facts)
    assert calls(facts) == [
        ("at::native::f", "AddFunctor::operator()", 4, CallKind.CALL),
        ("at::native::f", "AddFunctor::operator()", 5, CallKind.CALL),
        ("at::native::f", "AddFunctor", 5, CallKind.CALL),  # the temporary's constructor
        ("at::native::f", "MulFunctor::operator()", 6, CallKind.CALL),
        ("at::native::f", "ops::DivFunctor::operator()", 7, CallKind.CALL),
    ]


def test_6_a_template_call_the_grammar_reads_as_a_declaration_is_a_call():
    facts = cpp(
        "namespace at::cuda::blas {\n"  # 1
        "void gemm_internal(int a) {\n"  # 2
        "  gemm_internal_cublas<float>(CUDABLAS_GEMM_ARGS(float));\n"  # 3
        "#ifdef USE_ROCM\n"  # 4
        "  gemm_internal_cublas<double>(CUDABLAS_GEMM_ARGS(double));\n"  # 5
        "#else\n"  # 6
        "  at::cuda::blas::gemm_internal_cublaslt<double>(args);\n"  # 7
        "#endif\n"  # 8
        "}\n"
        "}\n"
    )
    assert sorted(calls(facts), key=lambda call: call[2]) == [
        ("at::cuda::blas::gemm_internal", "gemm_internal_cublas", 3, CallKind.CALL),
        ("at::cuda::blas::gemm_internal", "gemm_internal_cublas", 5, CallKind.CALL),
        ("at::cuda::blas::gemm_internal", "at::cuda::blas::gemm_internal_cublaslt", 7, CallKind.CALL),
    ]


def test_7_explicit_specialisations_keep_their_template_arguments_in_the_signature():
    long_return = "std::tuple<" + ", ".join(["at::Tensor"] * 40) + ">"
    facts = cpp(
        "namespace at::cuda::blas {\n"  # 1
        "template <>\n"  # 2
        "void gemm<float>(CUDABLAS_GEMM_ARGTYPES(float)) { f(); }\n"  # 3
        "template <>\n"  # 4
        "void gemm<at::Half>(CUDABLAS_GEMM_ARGTYPES(at::Half)) { f(); }\n"  # 5
        "template <>\n"  # 6
        f"{long_return} gemm<double>(int a) {{ f(); }}\n"  # 7
        "template <>\n"  # 8
        "C10_HOST_DEVICE inline double exp<double>(double x) { return x; }\n"  # 9
        "}\n"
    )
    found = [(s.qname, s.kind, s.line) for s in facts.symbols if s.kind == SymbolKind.FUNCTION]
    assert found == [
        ("at::cuda::blas::gemm", SymbolKind.FUNCTION, 3),
        ("at::cuda::blas::gemm", SymbolKind.FUNCTION, 5),
        ("at::cuda::blas::gemm", SymbolKind.FUNCTION, 7),
        ("at::cuda::blas::exp", SymbolKind.FUNCTION, 9),
    ]
    signatures = [s.signature for s in facts.symbols if s.kind == SymbolKind.FUNCTION]
    assert "gemm<float>(" in signatures[0] and "gemm<at::Half>(" in signatures[1]
    assert signatures[2].endswith("gemm<double>(...") and "exp<double>(" in signatures[3]


def test_8_static_and_anonymous_namespace_definitions_are_file_local():
    facts = cuda(
        "namespace at::native {\n"  # 1
        "static void helper() {}\n"  # 2
        "void visible() {}\n"  # 3
        "struct S { static void member() {} };\n"  # 4
        "namespace {\n"  # 5
        "void hidden() {}\n"  # 6
        "namespace inner { __global__ void deep_kernel() {} }\n"  # 7
        "struct T { void method() {} };\n"  # 8
        "#define MAKE(NAME) void NAME##_impl() {}\n"  # 9
        "MAKE(made)\n"  # 10
        "}\n"
        "}\n"
    )
    local = {
        (s.qname, s.file_local)
        for s in facts.symbols
        if s.kind in (SymbolKind.FUNCTION, SymbolKind.METHOD, SymbolKind.KERNEL)
    }
    assert local == {
        ("at::native::helper", True),
        ("at::native::visible", False),
        ("at::native::S::member", False),
        ("at::native::hidden", True),
        ("at::native::inner::deep_kernel", True),
        ("at::native::T::method", True),
        ("at::native::made_impl", True),
    }


def test_8_file_local_survives_error_recovery_through_the_brace_scan():
    facts = cpp(
        "namespace at::native {\n"  # 1
        "namespace {\n"  # 2
        "void broken() {\n"  # 3
        "#if A\n"  # 4
        "  int x = (1\n"  # 5
        "#else\n"  # 6
        "  int x = (2\n"  # 7
        "#endif\n"  # 8
        "  );\n"  # 9
        "}\n"  # 10
        "void after() { g(); }\n"  # 11
        "}\n"
        "void outside() { g(); }\n"  # 13
        "}\n"
    )
    local = {(s.qname, s.file_local) for s in facts.symbols if s.kind == SymbolKind.FUNCTION}
    assert ("at::native::after", True) in local and ("at::native::outside", False) in local


def test_9_attribute_macros_do_not_join_names_and_lost_structured_kernels_come_back():
    facts = cpp(
        "namespace at::native {\n"  # 1
        "C10_HOST_DEVICE inline double twice(double x) { return x; }\n"  # 2
        "struct Vec {\n"  # 3
        "  Vec C10_ALWAYS_INLINE ceil() const { return f(); }\n"  # 4
        "};\n"  # 5
        "TORCH_API int exported() { return 0; }\n"  # 6
        "}\n"
    )
    assert symbols(facts, SymbolKind.FUNCTION, SymbolKind.METHOD) == [
        ("at::native::twice", SymbolKind.FUNCTION, 2),
        ("at::native::Vec::ceil", SymbolKind.METHOD, 4),
        ("at::native::exported", SymbolKind.FUNCTION, 6),
    ]
    # where error recovery took the structured kernel apart, it keeps its name and kind
    mm = cpp(
        "namespace at::native {\n"  # 1
        "static void body() { @autoreleasepool { [graph run]; } }\n"  # 2
        "TORCH_IMPL_FUNC(sum_out_mps)\n"  # 3
        "(const Tensor& self, const Tensor& out) {\n"  # 4
        "  @autoreleasepool { [stream commit]; }\n"  # 5
        "}\n"  # 6
        "}\n",
        "ReduceOps.mm",
    )
    assert symbols(mm, SymbolKind.STRUCTURED_KERNEL) == [("at::native::sum_out_mps", SymbolKind.STRUCTURED_KERNEL, 3)]


def test_10_a_header_included_inside_a_namespace_block_is_recorded():
    facts = cpp(
        "namespace at::native {\n"  # 1
        "#include <ATen/native/cuda/X.cuh>\n"  # 2
        "}\n"
        "namespace at { namespace native {\n"  # 4
        '#include "ATen/native/cuda/Y.cuh"\n'  # 5
        "}}\n"
        "#include <ATen/ATen.h>\n"  # 7
    )
    assert facts.imports == [
        ImportBinding("a.cpp", "#include", "at::native|ATen/native/cuda/X.cuh", 2),
        ImportBinding("a.cpp", "#include", "at::native|ATen/native/cuda/Y.cuh", 5),
    ]


def test_11_a_functor_made_in_the_arguments_is_passed_by_its_type():
    facts = cuda(
        "namespace at::native {\n"  # 1
        "void sum(float* p) {\n"  # 2
        "  gpu_reduce(p, SumOps<float>{}, at::native::MeanOps<float, float>{0.5f});\n"  # 3
        "  other(p, Ops());\n"  # 4
        "}\n"
        "}\n"
    )
    assert [(c.callee, c.line, c.name_args) for c in facts.calls] == [
        # (p is a parameter: a value, not a function)
        ("gpu_reduce", 3, ("SumOps{}", "at::native::MeanOps{}")),
        ("other", 4, ()),
        ("Ops", 4, ()),
    ]


def test_12_a_deprecation_message_before_a_method_keeps_the_class():
    # aten/src/ATen/templates/TensorBody.h: C10_DEPRECATED_MESSAGE("...") on the line before a
    # method, its message holding parentheses (and `${...}` where torchgen writes code)
    facts = cpp(
        "namespace at {\n"  # 1
        "class TORCH_API Tensor: public TensorBase {\n"  # 2
        " public:\n"  # 3
        '  C10_DEPRECATED_MESSAGE("Tensor.type() is deprecated: use tensor.options() instead.")\n'  # 4
        "  DeprecatedTypeProperties & type() const { return props(); }\n"  # 5
        "  ${tensor_method_declarations}\n"  # 6
        "  TensorImpl* unsafeGetTensorImpl() const { return impl_.get(); }\n"  # 7
        "};\n"  # 8
        "${tensor_method_definitions}\n"  # 9
        "}\n"
    )
    assert symbols(facts, SymbolKind.CLASS, SymbolKind.METHOD, SymbolKind.FUNCTION) == [
        ("at::Tensor", SymbolKind.CLASS, 2),
        ("at::Tensor::type", SymbolKind.METHOD, 5),
        ("at::Tensor::unsafeGetTensorImpl", SymbolKind.METHOD, 7),
    ]


def test_13_a_method_table_copied_into_a_vector_belongs_to_the_type_the_vector_fills():
    # python_torch_functions_manual.cpp: torch_functions_manual is copied into the vector
    # gatherTorchFunctions is handed, which initTorchFunctions gives THPVariableFunctions as its
    # tp_methods; the type is added to the module, and so is an instance of it
    facts = cpp(
        "namespace torch::autograd {\n"  # 1
        "static PyMethodDef torch_functions_manual[] = {\n"  # 2
        '    {"tensor", castPyCFunctionWithKeywords(THPVariable_tensor), METH_VARARGS, nullptr},\n'  # 3
        "    {nullptr, nullptr, 0, nullptr}};\n"  # 4
        "void gatherTorchFunctions(std::vector<PyMethodDef>& torch_functions) {\n"  # 5
        "  torch_functions.assign(torch_functions_manual, torch_functions_manual + 2);\n"  # 6
        "}\n"
        "static PyTypeObject THPVariableFunctions = {\n"  # 8
        '    PyVarObject_HEAD_INIT(nullptr, 0) "torch._C._VariableFunctionsClass", 0};\n'
        "static PyObject* THPVariableFunctionsModule = nullptr;\n"  # 10
        "void initTorchFunctions(PyObject* module) {\n"  # 11
        "  static std::vector<PyMethodDef> functions;\n"
        "  gatherTorchFunctions(functions);\n"  # 13
        "  THPVariableFunctions.tp_methods = functions.data();\n"
        '  PyModule_AddObject(module, "_VariableFunctionsClass", reinterpret_cast<PyObject*>(&THPVariableFunctions));\n'
        "  THPVariableFunctionsModule = PyType_GenericNew(&THPVariableFunctions, Py_None, Py_None);\n"  # 16
        '  PyModule_AddObject(module, "_VariableFunctions", THPVariableFunctionsModule);\n'  # 17
        "}\n"
        "}\n",
        path="torch/csrc/autograd/python_torch_functions_manual.cpp",
    )
    module = "<arg 0 of torch::autograd::initTorchFunctions>"
    assert sorted((s.qname, s.line, s.target) for s in facts.symbols if s.kind is SymbolKind.METHOD_TABLE) == [
        (f"{module}._VariableFunctions.tensor", 3, "torch::autograd::THPVariable_tensor"),
        (f"{module}._VariableFunctionsClass.tensor", 3, "torch::autograd::THPVariable_tensor"),
    ]


def test_14_a_boxed_kernel_written_through_an_identity_macro_is_named():
    # functorch's BatchRulesReduceOps.cpp:432 `#define REDUCTION_BOXED_ARGS(op, ...) m.impl(#op,
    # torch::CppFunction::makeFromBoxedFunction<SINGLE_ARG(boxed_reduction_batch_rule<...>)>());`
    # and BatchRulesNorm.cpp:802 `SINGLE_ARG(NativeBatchNormBackwardBatchRuleHelper<...>::apply)`
    facts = cpp(
        "namespace at::functorch {\n"  # 1
        "#define REDUCTION_BOXED(op, pos) \\\n"  # 2
        "  m.impl(#op, torch::CppFunction::makeFromBoxedFunction<SINGLE_ARG(boxed_rule<pos, 2>)>());\n"  # 3
        "TORCH_LIBRARY_IMPL(aten, FuncTorchBatched, m) {\n"  # 4
        "  REDUCTION_BOXED(cumsum, 1);\n"  # 5
        '  m.impl("binomial", SINGLE_ARG(Helper<decltype(&ATEN_FN(binomial)), &ATEN_FN(binomial)>::apply));\n'  # 6
        "}\n"
        "}\n"
    )
    assert [(d.operator, d.kernel, d.line) for d in facts.dispatch] == [
        ("aten::cumsum", "at::functorch::boxed_rule", 5),
        ("aten::binomial", "at::functorch::Helper::apply", 6),
    ]
