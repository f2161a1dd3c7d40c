"""The preprocessor stage (parsers/cpp_preprocessor.py, parsers/cpp_macros.py): macros
expanded by the C standard's rules, lines kept, work bounded.

The expected expansions of the standard's own examples are those C11 6.10.3.5 prints
(EXAMPLE 3, 4 and 7), compared with white space collapsed."""

from __future__ import annotations

import time

from explorer.model import CallKind, Language, SymbolKind
from explorer.parsers.cpp import parse_cpp
from explorer.parsers.cpp_macros import tokens_of
from explorer.parsers.cpp_preprocessor import expansion_budget, preprocess


def expanded(source: str) -> list[str]:
    """The preprocessed text, line by line, as tokens one space apart; the lines the
    #define and #undef directives leave are dropped."""
    text = preprocess(source.encode()).text.decode()
    assert text.count("\n") == source.count("\n")  # no line moves
    return [
        " ".join(token.text for token in tokens_of(line))
        for line in text.split("\n")
        if not line.lstrip().startswith(("#define", "#undef"))
    ]


def code(source: str) -> str:
    return " ".join(" ".join(expanded(source)).split())


def test_the_standards_example_3_rescanning_and_disabled_names():
    source = (
        "#define x 3\n#define f(a) f(x * (a))\n#undef x\n#define x 2\n#define g f\n#define z z[0]\n"
        "#define h g(~\n#define m(a) a(w)\n#define w 0,1\n#define t(a) a\n#define p() int\n#define q(x) x\n"
        "#define r(x,y) x ## y\n#define str(x) # x\n"
        "f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);\n"
        "g(x+(3,4)-w) | h 5) & m\n(f)^m(m);\n"
        "p() i[q()] = { q(1), r(2,3), r(4,), r(,5), r(,) };\n"
        "char c[2][6] = { str(hello), str() };\n"
    )
    assert code(source) == code(
        "f(2 * (y+1)) + f(2 * (f(2 * (z[0])))) % f(2 * (0)) + t(1);"
        "f(2 * (2+(3,4)-0,1)) | f(2 * (~ 5)) & f(2 * (0,1))^m(0,1);"
        "int i[] = { 1, 23, 4, 5, };"
        'char c[2][6] = { "hello", "" };'
    )


def test_the_standards_example_4_stringizing_and_pasting():
    source = (
        "#define str(s) # s\n#define xstr(s) str(s)\n"
        '#define debug(s, t) printf("x" # s "= %d, x" # t "= %s", x ## s, x ## t)\n'
        '#define glue(a, b) a ## b\n#define xglue(a, b) glue(a, b)\n#define HIGHLOW "hello"\n'
        '#define LOW LOW ", world"\n'
        "debug(1, 2);\n"
        "glue(HIGH, LOW);\n"
        "xglue(HIGH, LOW)\n"
    )
    assert expanded(source)[-4:] == [
        'printf ( "x" "1" "= %d, x" "2" "= %s" , x1 , x2 ) ;',
        '"hello" ;',
        '"hello" ", world"',
        "",
    ]


def test_the_standards_example_7_variadic_macros():
    source = (
        "#define debug(...) fprintf(stderr, __VA_ARGS__)\n"
        "#define showlist(...) puts(#__VA_ARGS__)\n"
        "#define report(test, ...) ((test)?puts(#test): printf(__VA_ARGS__))\n"
        'debug("Flag");\n'
        'debug("X = %d\\n", x);\n'
        "showlist(The first, second, and third items.);\n"
        'report(x>y, "x is %d but y is %d", x, y);\n'
    )
    assert expanded(source)[-5:-1] == [
        'fprintf ( stderr , "Flag" ) ;',
        'fprintf ( stderr , "X = %d\\n" , x ) ;',
        'puts ( "The first, second, and third items." ) ;',
        '( ( x > y ) ? puts ( "x>y" ) : printf ( "x is %d but y is %d" , x , y ) ) ;',
    ]


def test_va_opt_and_the_gnu_comma():
    source = (
        "#define F(a, ...) f(a __VA_OPT__(,) __VA_ARGS__)\n"
        "#define E(fmt, args...) printf(fmt, ## args)\n"
        'F(1) F(1, 2, 3) E("x") E("x", 1)\n'
    )
    assert code(source) == code('f(1) f(1, 2, 3) printf("x") printf("x", 1)')


def test_a_recursive_macro_stays_unexpanded_inside_itself_and_for_good():
    source = (
        "#define foo foo + 1\n"
        "#define f(x) f(x) + g(x)\n"
        "#define g(x) f(x)\n"
        "#define AB A B\n#define A AB\n"
        "foo; f(1); g(2); A;\n"
    )
    # f(1) -> f(1) + g(1), rescanned with f disabled: g(1) -> f(1), whose f stays as it is;
    # g(2) -> f(2) -> f(2) + g(2), where f and g are both disabled for good
    assert code(source) == code("foo + 1; f(1) + f(1); f(2) + g(2); A B;")


def test_a_function_like_name_without_parentheses_is_not_an_invocation():
    source = (
        "#define LAUNCH(k) k<<<1, 1>>>()\n"
        "auto p = LAUNCH; LAUNCH (run); LAUNCH;\n"
        "LAUNCH\n(other);\n"  # white space, line breaks too, may come before the `(`
    )
    assert expanded(source)[-4:] == [
        code("auto p = LAUNCH; run<<<1, 1>>>(); LAUNCH;"),
        code("other<<<1, 1>>>()"),
        ";",
        "",
    ]


def test_definitions_take_effect_in_order_and_inside_function_bodies():
    source = (
        "A(1);\n"  # 1: not defined yet
        "void f() {\n"  # 2
        "#define A(x) first(x)\n"  # 3: a function-local macro
        "  A(2);\n"  # 4
        "#undef A\n"  # 5
        "  A(3);\n"  # 6: undefined again
        "#define A(x) second(x)\n"  # 7
        "}\n"  # 8
        "void g() { A(4); }\n"  # 9: still in force after the function
        "#define A(x) third(x)\n"  # 10: a redefinition replaces it
        "A(5);\n"  # 11
    )
    assert expanded(source) == [
        "A ( 1 ) ;",
        "void f ( ) {",
        "first ( 2 ) ;",
        "A ( 3 ) ;",
        "}",
        "void g ( ) { second ( 4 ) ; }",
        "third ( 5 ) ;",
        "",
    ]


def test_both_sides_of_a_conditional_the_first_branchs_definition_after_it():
    source = (
        "#ifdef USE_ROCM\n"
        "#define WARP 64\n"
        "int in_first = WARP;\n"
        "#else\n"
        "#define WARP 32\n"
        "int in_second = WARP;\n"
        "#endif\n"
        "int after = WARP;\n"
        "#define WARP 16\n"
        "int redefined = WARP;\n"
    )
    assert [line for line in expanded(source) if not line.startswith("#") and line] == [
        "int in_first = 64 ;",
        "int in_second = 32 ;",
        "int after = 64 ;",
        "int redefined = 16 ;",
    ]


def test_comments_strings_and_directives_are_not_expanded():
    source = (
        "#define K kernel\n"
        "// K in a comment\n"
        'const char* s = "K in a string"; /* K */ K();\n'
        'auto r = R"x(K in a raw string)x";\n'
        "#if K\n"
        "#endif\n"
    )
    text = preprocess(source.encode()).text.decode().split("\n")
    assert text[:4] == [
        "#define K",
        "// K in a comment",
        'const char* s = "K in a string"; /* K */  kernel();',
        'auto r = R"x(K in a raw string)x";',
    ]
    # a #define inside a raw string (Metal source in a .mm file) defines nothing
    metal = 'static auto lib = R"METAL(\n#define REGISTER(T) kernel void k_##T()\nREGISTER(float);\n)METAL";\n'
    assert preprocess(metal.encode()).macros == [] and preprocess(metal.encode()).text == metal.encode()


def test_an_argument_that_spans_lines_keeps_its_lines_and_directives_stay_on_theirs():
    source = (
        "#define DISPATCH(name, ...) dispatch(name, __VA_ARGS__)\n"  # 1
        "void f() {\n"  # 2
        '  DISPATCH("relu", [&] {\n'  # 3
        "    first();\n"  # 4
        "#ifdef FAST\n"  # 5
        "    fast();\n"  # 6
        "#endif\n"  # 7
        "    last();\n"  # 8
        "  });\n"  # 9
        "}\n"
    )
    lines = preprocess(source.encode()).text.decode().split("\n")
    assert [line.strip() for line in lines[2:9]] == [
        'dispatch("relu", [&] {',
        "first();",
        "#ifdef FAST",
        "fast();",
        "#endif",
        "last();",
        "});",
    ]
    facts = parse_cpp("a.cpp", source.encode())
    # the expansion hands the lambda to the function `dispatch`: a definition of its own
    assert [(c.caller, c.callee, c.line) for c in facts.calls] == [
        ("f", "dispatch", 3),
        ("<lambda at line 3>", "first", 4),
        ("<lambda at line 3>", "fast", 6),
        ("<lambda at line 3>", "last", 8),
        ("f", "DISPATCH", 3),
    ]


def test_columns_map_back_to_the_file():
    source = "#define TWICE(x) x; x\nvoid f() { TWICE(g()); h(); }\n"
    facts = parse_cpp("a.cpp", source.encode())
    written = source.split("\n")[1]
    assert sorted((c.callee, c.line, c.column) for c in facts.calls) == [
        ("TWICE", 2, written.index("TWICE")),
        ("g", 2, written.index("g()")),
        ("g", 2, written.index("g()")),  # the argument's own column, twice
        ("h", 2, written.index("h()")),  # after the expansion, where the file has it
    ]


# -- what the rest of the parser reads from the expanded text --------------------------------


def test_nested_function_local_macros_pass_the_function_to_call():
    # TensorTopK.cu's shape: RUN_K's third argument is the function it calls
    facts = parse_cpp(
        "k.cu",
        (
            b"namespace mbtopk { template <typename T, typename I, int D> void launch(int n) {} }\n"  # 1
            b"namespace sbtopk { template <typename T, typename I, int D> void launch(int n) {} }\n"  # 2
            b"void topk(int n, bool multi) {\n"  # 3
            b"#define RUN_K(INDEX_T, DIM, LAUNCH_FUNCTION_NAME) \\\n"  # 4
            b"  LAUNCH_FUNCTION_NAME<float, INDEX_T, DIM>(n);\n"  # 5
            b"#define RUN_MB(INDEX_T, DIM)          \\\n"  # 6
            b"  if (multi) {                        \\\n"  # 7
            b"    RUN_K(INDEX_T, DIM, mbtopk::launch); \\\n"  # 8
            b"  } else {                            \\\n"  # 9
            b"    RUN_K(INDEX_T, DIM, sbtopk::launch); \\\n"  # 10
            b"  }\n"  # 11
            b"  RUN_MB(uint32_t, 2);\n"  # 12
            b"}\n"
        ),
        Language.CUDA,
    )
    assert [(c.caller, c.callee, c.line, c.kind) for c in facts.calls] == [
        ("topk", "mbtopk::launch", 12, CallKind.CALL),
        ("topk", "sbtopk::launch", 12, CallKind.CALL),
        ("topk", "RUN_MB", 12, CallKind.CALL),
    ]


def test_a_kernel_a_variadic_macro_defines_launched_through_a_local_in_a_switch_lambda():
    # flash_fwd_launch_template.h's shape, with the BOOL_SWITCH of static_switch.h in the file
    facts = parse_cpp(
        "flash.h",
        (
            b"#define BOOL_SWITCH(COND, CONST_NAME, ...) \\\n"  # 1
            b"  [&] { if (COND) { constexpr static bool CONST_NAME = true; return __VA_ARGS__(); } \\\n"  # 2
            b"        else { constexpr static bool CONST_NAME = false; return __VA_ARGS__(); } }()\n"  # 3
            b"#define DEFINE_KERNEL(kernelName, ...) \\\n"  # 4
            b"template <typename Traits, __VA_ARGS__> \\\n"  # 5
            b"__global__ void kernelName(const Params params)\n"  # 6
            b"DEFINE_KERNEL(fwd_kernel, bool Is_dropout, bool Is_causal) {\n"  # 7
            b"  compute<Traits, Is_dropout, Is_causal>(params);\n"  # 8
            b"}\n"  # 9
            b"template <typename Traits>\n"  # 10
            b"void run_fwd(Params& params, bool dropout) {\n"  # 11
            b"  BOOL_SWITCH(dropout, Is_dropout, [&] {\n"  # 12
            b"    auto kernel = &fwd_kernel<Traits, Is_dropout, Traits::kN <= 128>;\n"  # 13
            b"    kernel<<<1, 128>>>(params);\n"  # 14
            b"  });\n"  # 15
            b"}\n"
        ),
    )  # a .h read as C++: its __global__ picks the CUDA grammar
    assert [(s.qname, s.kind, s.line, s.end_line) for s in facts.symbols if s.kind is not SymbolKind.MACRO] == [
        ("fwd_kernel", SymbolKind.KERNEL, 7, 9),
        ("run_fwd", SymbolKind.FUNCTION, 11, 16),
    ]
    kernel = next(s for s in facts.symbols if s.qname == "fwd_kernel")
    assert kernel.signature.endswith("[from DEFINE_KERNEL(...) at line 7]")
    # BOOL_SWITCH writes the lambda twice, a branch each: two launches, both of line 14
    assert [(c.caller, c.callee, c.line, c.kind) for c in facts.calls if c.kind is CallKind.LAUNCH] == [
        ("run_fwd", "fwd_kernel", 14, CallKind.LAUNCH),
        ("run_fwd", "fwd_kernel", 14, CallKind.LAUNCH),
    ]


def test_two_sibling_launch_macros_in_one_function_are_both_followed():
    facts = parse_cpp(
        "k.cu",
        (
            b"template <int n> __global__ void opt_kernel(float* p) {}\n"  # 1
            b"template <int n> __global__ void plain_kernel(float* p) {}\n"  # 2
            b"void cat(float* p, int dims, bool opt) {\n"  # 3
            b"#define HANDLE_CASE_OPT(DIMS) opt_kernel<DIMS><<<1, 2>>>(p);\n"  # 4
            b"#define HANDLE_CASE(DIMS) plain_kernel<DIMS><<<1, 2>>>(p);\n"  # 5
            b"  if (opt) { HANDLE_CASE_OPT(1); } else { HANDLE_CASE(1); }\n"  # 6
            b"  switch (dims) { case 2: HANDLE_CASE_OPT(2); break; default: HANDLE_CASE(3); }\n"  # 7
            b"#undef HANDLE_CASE_OPT\n"
            b"#undef HANDLE_CASE\n"
            b"}\n"
        ),
        Language.CUDA,
    )
    assert [(c.caller, c.callee, c.line) for c in facts.calls if c.kind is CallKind.LAUNCH] == [
        ("cat", "opt_kernel", 6),
        ("cat", "plain_kernel", 6),
        ("cat", "opt_kernel", 7),
        ("cat", "plain_kernel", 7),
    ]


def test_pybind_chains_written_through_a_function_local_macro():
    # torch/csrc/jit/python/python_ir.cpp:592 `#define NS(name) def(#name, &Node ::name)`, and
    # :686-716, where AS is defined again and CREATE_ACCESSOR defined, in the middle of the chain
    facts = parse_cpp(
        "python_ir.cpp",
        (
            b"void initPythonIRBindings(PyObject* module_) {\n"  # 1
            b"  auto m = py::handle(module_).cast<py::module>();\n"  # 2
            b"#define NS(name) def(#name, &Node ::name)\n"  # 3
            b'  py::class_<Node, unwrapping_shared_ptr<Node>>(m, "Node")\n'  # 4
            b"      .NS(addInput)\n"  # 5
            b"      .NS(kind)\n"  # 6
            b"#define AS(name) def(#name, &Node::name)\n"  # 7
            b"      // methods from Attributes\n"  # 8
            b"      .AS(copyAttributes)\n"  # 9
            b"#undef AS\n"  # 10
            b"#define AS(name) def(#name, &Node::name##S)\n"  # 11
            b"      .AS(kindOf)\n"  # 12
            b"#undef AS\n"  # 13
            b"#define CREATE_ACCESSOR(Kind, method) \\\n"  # 14
            b'  def(#method "_", [](Node& n, Kind v) { return n.method##_(v); })\n'  # 15
            b"      .CREATE_ACCESSOR(Float, f);\n"  # 16
            b"#undef CREATE_ACCESSOR\n"  # 17
            b"#undef NS\n"  # 18
            b"}\n"
        ),
    )
    bound = [(s.name, s.line, s.target) for s in facts.symbols if s.kind is SymbolKind.PYBIND]
    assert bound == [
        ("addInput", 5, "Node::addInput"),
        ("kind", 6, "Node::kind"),
        ("copyAttributes", 9, "Node::copyAttributes"),
        ("kindOf", 12, "Node::kindOfS"),
        ("f_", 16, "<lambda at line 16>"),
    ]


def test_a_macro_call_of_another_file_left_without_a_semicolon_still_ends_before_a_directive():
    # torch/csrc/jit/tensorexpr/tensorexpr_init.cpp:161-166: AT_FORALL_SCALAR_TYPES_AND3 is a
    # macro of another header, written as a statement with no `;`
    facts = parse_cpp(
        "tensorexpr_init.cpp",
        (
            b"void initTensorExprBindings(py::module& te) {\n"  # 1
            b"#define EXPRHANDLE_IMPL_CONV(ctype, name) \\\n"  # 2
            b"  py::implicitly_convertible<ctype, ExprHandle>();\n"  # 3
            b"  AT_FORALL_SCALAR_TYPES_AND3(Bool, Half, BFloat16, EXPRHANDLE_IMPL_CONV)\n"  # 4
            b"#undef EXPRHANDLE_IMPL_CONV\n"  # 5
            b'  te.def("ifThenElse", &ifThenElse);\n'  # 6
            b"}\n"
        ),
    )
    assert [(s.name, s.line, s.target) for s in facts.symbols if s.kind is SymbolKind.PYBIND] == [
        ("ifThenElse", 6, "ifThenElse"),
    ]


def test_a_macro_written_function_with_an_empty_body_is_a_definition():
    facts = parse_cpp(
        "a.h",
        (
            b"#define NO_OP_VISIT(T) void before(const T&) {} void after(const T&) {}\n"
            b"struct Visitor {\n"
            b"  NO_OP_VISIT(int);\n"
            b"};\n"
            b"#define NOTHING(name) inline void name() {}\n"
            b"NOTHING(idle);\n"
        ),
    )
    assert [(s.qname, s.kind, s.line) for s in facts.symbols if s.kind in (SymbolKind.METHOD, SymbolKind.FUNCTION)] == [
        ("Visitor::after", SymbolKind.METHOD, 3),
        ("Visitor::before", SymbolKind.METHOD, 3),
        ("idle", SymbolKind.FUNCTION, 6),
    ]


def test_what_a_definition_written_by_a_macro_spans_and_what_one_written_in_the_file_shows():
    facts = parse_cpp(
        "a.cpp",
        (
            b"#define ARGTYPES(T) char trans, int64_t m, const T* a\n"  # 1
            b"#define DEFINE_OUT(NAME, OP) \\\n"  # 2
            b"  void NAME##_out(int x) { OP(x); }\n"  # 3
            b"template <typename T>\n"  # 4
            b"void gemm(ARGTYPES(T)) { run(trans, m, a); }\n"  # 5
            b"DEFINE_OUT(\n"  # 6
            b"    add,\n"  # 7
            b"    plus)\n"  # 8
        ),
    )
    assert [(s.qname, s.line, s.end_line, s.signature) for s in facts.symbols if s.kind is SymbolKind.FUNCTION] == [
        # the parameters are read through the macro; the signature is the file's own text, as
        # in the files that include a header with such a macro
        ("gemm", 5, 5, "void gemm(ARGTYPES(T))"),
        # a definition the macro writes: at the invocation, through its last line
        ("add_out", 6, 8, "void add_out(int x)  [from DEFINE_OUT(...) at line 6]"),
    ]


def test_a_foreign_statement_macro_in_a_block_keeps_the_function_around_it_whole():
    # aten/src/ATen/native/ReduceOpsUtils.h:90-103: OPTION_TYPE_EQUALITY_CHECK writes
    # `{ TORCH_CHECK(...) }`, TORCH_CHECK being a macro of another header that brings its own `;`
    facts = parse_cpp(
        "a.h",
        (
            b"#define EQUALITY_CHECK(option, out, self) \\\n"  # 1
            b"{ TORCH_CHECK(out.option() == self.option(), #option) }\n"  # 2
            b"inline void check_equal(const Tensor& out, const Tensor& self) {\n"  # 3
            b"  EQUALITY_CHECK(scalar_type, out, self);\n"  # 4
            b"  EQUALITY_CHECK(device, out, self);\n"  # 5
            b"}\n"  # 6
            b"inline void after() { g(); }\n"  # 7
        ),
    )
    assert [(s.qname, s.line, s.end_line) for s in facts.symbols if s.kind is SymbolKind.FUNCTION] == [
        ("check_equal", 3, 6),
        ("after", 7, 7),
    ]
    assert ("check_equal", "TORCH_CHECK", 5) in {(c.caller, c.callee, c.line) for c in facts.calls}


# -- hostile files: bounded work, a diagnostic, the rest of the file read --------------------


def timed(source: bytes):
    began = time.perf_counter()
    facts = parse_cpp("a.cpp", source)
    return facts, time.perf_counter() - began


def test_an_exponential_macro_is_abandoned_within_the_budget():
    # each level doubles: E30(x) would be a billion tokens
    source = "#define E0(x) x x\n" + "".join(f"#define E{n}(x) E{n - 1}(E{n - 1}(x))\n" for n in range(1, 31))
    source += "void f() { E30(g()); }\nvoid h() { k(); }\n"
    facts, seconds = timed(source.encode())
    assert seconds < 5
    assert [d.reason for d in facts.diagnostics] == [
        f"macro invocations expand past {expansion_budget(source.encode()):,} bytes (16 times the file, and 64 KiB) at line 32; "
        "the rest are not expanded"
    ]
    assert ("h", "k") in {(c.caller, c.callee) for c in facts.calls}  # the rest of the file is read


def test_work_that_writes_little_is_bounded_too():
    # every level doubles the work and throws the result away
    source = "#define DROP(x)\n#define D0(x) DROP(x x)\n" + "".join(
        f"#define D{n}(x) D{n - 1}(x) D{n - 1}(x)\n" for n in range(1, 40)
    )
    source += "void f() { D39(g()); }\n"
    facts, seconds = timed(source.encode())
    assert seconds < 5
    assert [d.reason.split(";")[0] for d in facts.diagnostics] == [
        f"macro invocations expand past {expansion_budget(source.encode()):,} bytes (16 times the file, and 64 KiB) at line 42"
    ]


def test_a_recursive_macro_terminates():
    source = b"#define f(x) f(f(x))\n#define g g g\nvoid h() { f(1); g; }\n"
    facts, seconds = timed(source)
    assert seconds < 1 and facts.diagnostics == []
    assert preprocess(source).text.split(b"\n")[2].split() == b"void h() { f(f(1)); g g; }".split()


def test_an_unterminated_invocation_stops_expansion_and_the_file_is_still_read():
    source = b"#define F(x) g(x)\nvoid a() { F(1); }\nvoid b() { F(2; }\nvoid c() { F(3); }\n"
    facts, seconds = timed(source)
    assert seconds < 1
    assert [d.reason for d in facts.diagnostics] == [
        "the arguments of F( at line 3 never close; it and the rest of the file are not expanded"
    ]
    assert ("a", "g", 2) in {(c.caller, c.callee, c.line) for c in facts.calls}
    assert [s.qname for s in facts.symbols if s.kind is SymbolKind.FUNCTION][:1] == ["a"]


def test_invocations_nested_too_deep_in_arguments_are_left_as_written():
    depth = 200
    source = ("#define F(x) x\nvoid f() { " + "F(" * depth + "g()" + ")" * depth + "; }\nvoid h() { k(); }\n").encode()
    facts, seconds = timed(source)
    assert seconds < 10
    assert [d.reason for d in facts.diagnostics] == [
        "the arguments of F( at line 2 nest invocations more than 64 deep; it and the rest of the file are not expanded"
    ]
    assert ("h", "k") in {(c.caller, c.callee) for c in facts.calls}
