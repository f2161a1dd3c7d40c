"""The C++ parser's work is bounded by the file: deep nesting, deep namespaces and macro
blow-ups end as a diagnostic with the rest of the file (or tree) indexed, never as a hang."""

from __future__ import annotations

from explorer.model import Language, SymbolKind
from explorer.parsers import parse_file
from explorer.parsers.cpp import MAX_NESTING
from explorer.parsers.cpp_scopes import MAX_SCOPE_DEPTH


def nested_namespaces(depth: int, body: str = "void leaf() { g(); }\n") -> bytes:
    return ("".join(f"namespace n{i} {{\n" for i in range(depth)) + body + "}\n" * depth).encode()


def test_namespaces_nested_to_the_scope_limit_keep_every_name():
    facts = parse_file("a.cpp", Language.CPP, nested_namespaces(MAX_SCOPE_DEPTH - 1))
    assert facts.diagnostics == []
    [leaf] = [s for s in facts.symbols if s.kind is SymbolKind.FUNCTION]
    assert leaf.qname == "::".join(f"n{i}" for i in range(MAX_SCOPE_DEPTH - 1)) + "::leaf"
    assert leaf.line == MAX_SCOPE_DEPTH
    assert [c.caller for c in facts.calls] == [leaf.qname]
    assert len([s for s in facts.symbols if s.kind is SymbolKind.NAMESPACE]) == MAX_SCOPE_DEPTH - 1


def test_namespaces_deeper_than_the_scope_limit_add_no_name_and_say_so():
    depth = 600  # took about 3 s before each scope was remembered: 1,000 took 18 s
    facts = parse_file("a.cpp", Language.CPP, nested_namespaces(depth))
    assert [d.reason for d in facts.diagnostics] == [
        f"namespaces and classes nested more than {MAX_SCOPE_DEPTH} deep at line {MAX_SCOPE_DEPTH}; "
        "deeper ones add no name to what they define"
    ]
    assert facts.diagnostics[0].skipped is False
    [leaf] = [s for s in facts.symbols if s.kind is SymbolKind.FUNCTION]
    assert leaf.qname == "::".join(f"n{i}" for i in range(MAX_SCOPE_DEPTH)) + "::leaf"
    assert leaf.line == depth + 1


def test_brackets_nested_past_the_limit_make_the_file_a_diagnostic():
    for source, line in (
        (nested_namespaces(5_000), MAX_NESTING + 1),  # never finished before
        (b"int x;\nvoid f() {\n  " + b"g(" * 40_000 + b"1" + b")" * 40_000 + b";\n}\n", 3),  # 130 s before
        (b"int a[] = " + b"{" * 3_000 + b"}" * 3_000 + b";\n", 1),
    ):
        facts = parse_file("a.cpp", Language.CPP, source)
        assert [(d.reason, d.skipped) for d in facts.diagnostics] == [
            (f"brackets nested more than {MAX_NESTING:,} deep at line {line}; not indexed", True)
        ]
        assert facts.symbols == [] and facts.calls == []


def test_nesting_just_under_the_limit_is_indexed():
    depth = MAX_NESTING - 2  # the function body and the call add two
    facts = parse_file("a.cpp", Language.CPP, b"void f() { " + b"g(" * depth + b"1" + b")" * depth + b"; }\n")
    assert facts.diagnostics == []
    assert len(facts.calls) == depth and {c.caller for c in facts.calls} == {"f"}


BOMB = (
    "#define A(x) void x() { g(); h(); }\n"
    "#define B(x) " + " ".join(f"A(x##{d})" for d in range(10)) + "\n"
    "#define C(x) " + " ".join(f"B(x##{d})" for d in range(10)) + "\n"
    "#define D(x) "
    + " ".join(f"C(x##{d})" for d in range(10))
    + "\n"
    + "".join(f"D(f{letter})\n" for letter in "abcdefghijklmnopqrst")
).encode()


def test_a_macro_bomb_expands_within_the_files_budget_and_says_where_it_stopped():
    facts = parse_file("a.cpp", Language.CPP, BOMB)
    functions = [s for s in facts.symbols if s.kind is SymbolKind.FUNCTION]
    # each D(...) line defines 1,000 functions (27 KB); 16 x 435 bytes + 64 KiB holds two
    assert len(BOMB) == 435 and len(functions) == 2_000
    expanded = [c for c in facts.calls if c.caller != "a.cpp"]
    invoked = [c.callee for c in facts.calls if c.caller == "a.cpp"]
    assert len(expanded) == 4_000 and invoked == ["D"] * 20  # every invocation is still a call site
    assert {f.qname[:2] for f in functions} == {"fa", "fb"}
    assert [(d.reason, d.skipped) for d in facts.diagnostics] == [
        (
            "macro invocations expand past 72,496 bytes (16 times the file, and 64 KiB) at line 7; the rest are not expanded",
            False,
        )
    ]


def test_ordinary_macro_definitions_are_untouched_by_the_budget():
    source = (
        b"#define UNARY(name) void name##_out() { name##_kernel(); }\n"
        b"namespace at { namespace native {\n"
        b"UNARY(acos)\nUNARY(asin)\nUNARY(atan)\n"
        b"}}\n"
    )
    facts = parse_file("a.cpp", Language.CPP, source)
    assert facts.diagnostics == []
    assert [(s.qname, s.line) for s in facts.symbols if s.kind is SymbolKind.FUNCTION] == [
        ("at::native::acos_out", 3),
        ("at::native::asin_out", 4),
        ("at::native::atan_out", 5),
    ]
    assert [(c.caller, c.callee) for c in facts.calls if c.caller != "a.cpp"] == [
        ("at::native::acos_out", "acos_kernel"),
        ("at::native::asin_out", "asin_kernel"),
        ("at::native::atan_out", "atan_kernel"),
    ]


def test_a_reopened_namespace_is_one_symbol_at_its_first_opening_whatever_was_parsed_before():
    source = (
        b"#if A\nnamespace at { namespace native {\nvoid f() {}\n}}\n#else\n"
        b"namespace at { namespace native {\nvoid g() {}\n}}\n#endif\n"
    )
    first = parse_file("a.cpp", Language.CPP, source)
    for _ in range(5):
        parse_file("b.cpp", Language.CPP, nested_namespaces(40))
        assert parse_file("a.cpp", Language.CPP, source) == first
    assert [(s.qname, s.line, s.end_line) for s in first.symbols if s.kind is SymbolKind.NAMESPACE] == [
        ("at", 2, 4),
        ("at::native", 2, 4),
    ]


def test_what_the_grammar_cannot_read_loses_no_namespace_or_definition_after_it():
    # tensorpipe_agent.cpp: a pragma macro alone on a line before `namespace torch {`, an
    # unused-variable attribute after a loop variable, lambdas with brace init-captures
    source = (
        "#include <fmt/format.h>\n"  # 1
        'C10_DIAGNOSTIC_PUSH_AND_IGNORED_IF_DEFINED("-Wdeprecated")\n'
        "#include <tensorpipe/tensorpipe.h>\n"
        "C10_DIAGNOSTIC_POP()\n"  # 4
        "namespace torch {\n"
        "namespace distributed {\n"
        "std::unique_ptr<Registration> makeChannel() {\n"  # 7
        "  for (const auto laneIdx C10_UNUSED : c10::irange(kNumUvThreads)) {\n"
        "    contexts.push_back(create());\n"  # 9
        "  }\n"
        "}\n"
        "void TensorPipeAgent::pipeRead(Fn fn) {\n"  # 12
        "  pipe->read([buffers{std::make_shared<Buffers>(std::move(buffers))},\n"
        "              fn{std::move(fn)}](const Error& error) mutable {\n"
        "    fn(error);\n"  # 15
        "  });\n"
        "}\n"
        "void TensorPipeAgent::join(bool shutdown) {}\n"  # 18
        "}  // namespace distributed\n"
        "}  // namespace torch\n"
    )
    facts = parse_file("torch/csrc/distributed/rpc/tensorpipe_agent.cpp", Language.CPP, source.encode())
    assert [(s.qname, s.line) for s in facts.symbols if s.kind in (SymbolKind.FUNCTION, SymbolKind.METHOD)] == [
        ("torch::distributed::makeChannel", 7),
        ("torch::distributed::TensorPipeAgent::pipeRead", 12),
        ("torch::distributed::TensorPipeAgent::<lambda at line 13>", 13),  # handed to pipe->read
        ("torch::distributed::TensorPipeAgent::join", 18),
    ]
    assert [(c.caller, c.callee, c.line) for c in facts.calls if c.callee in ("create", "fn")] == [
        ("torch::distributed::makeChannel", "create", 9),
        ("torch::distributed::TensorPipeAgent::<lambda at line 13>", "fn", 15),
    ]


def test_a_namespace_error_recovery_split_keeps_the_namespaces_the_braces_say():
    # kineto_shim.cpp: an expression whose #if branches are alternatives (`return W{ a b };` read
    # as one text) makes a stray `}`; the tree then puts what follows outside `torch`
    source = (
        "namespace torch {\n"  # 1
        "namespace profiler::impl::kineto {\n"
        "TraceWrapper::TraceWrapper(const int64_t start_time)\n"  # 3
        "#ifdef USE_KINETO\n"
        "    : cpu_trace_(std::make_unique<CpuTraceBuffer>())\n"
        "#endif\n"
        "{\n"
        "}\n"  # 8
        "ActivityTraceWrapper stopTrace() {\n"  # 9
        "  return ActivityTraceWrapper{\n"
        "#ifdef USE_KINETO\n"
        "      api().stopTrace()\n"
        "#else\n"
        "      std::make_unique<interface_trace_t>()\n"
        "#endif\n"
        "  };\n"
        "}\n"
        "void pushCorrelationId(uint64_t id) {}\n"  # 18
        "} // namespace profiler::impl::kineto\n"
        "namespace autograd::profiler {\n"
        "void profilerStep() {}\n"  # 21
        "} // namespace autograd::profiler\n"
        "} // namespace torch\n"
    )
    facts = parse_file("torch/csrc/profiler/kineto_shim.cpp", Language.CPP, source.encode())
    kineto = "torch::profiler::impl::kineto"
    assert [(s.qname, s.line) for s in facts.symbols if s.kind in (SymbolKind.FUNCTION, SymbolKind.METHOD)] == [
        (f"{kineto}::TraceWrapper::TraceWrapper", 3),  # its member initializers under a lone #ifdef
        (f"{kineto}::stopTrace", 9),
        (f"{kineto}::pushCorrelationId", 18),
        ("torch::autograd::profiler::profilerStep", 21),
    ]


def test_conditionals_that_split_code_leave_every_definition_after_them():
    # ProcessGroupNCCL.cpp: the whole file inside `#ifdef USE_C10D_NCCL`; an element of a table
    # under a lone #ifdef; a stream continued under one; an `if (...) {` written twice, one
    # per branch
    source = (
        "#include <c10d/ProcessGroupNCCL.hpp>\n"  # 1
        "#ifdef USE_C10D_NCCL\n"
        "namespace c10d {\n"  # 3
        "const std::map<ReduceOp::RedOpType, ncclRedOp_t> ncclOp = {\n"
        "    {ReduceOp::PRODUCT, ncclProd},\n"
        "#ifdef NCCL_HAS_AVG\n"
        "    {ReduceOp::AVG, ncclAvg},\n"
        "#endif\n"
        "};\n"
        "void ProcessGroupNCCL::logEnvironment() {\n"  # 10
        '  LOG(INFO) << "NCCL version: " << getNcclVersion()\n'
        "#ifdef NCCL_HAS_COMM_REGISTER\n"
        '            << ", REGISTER: " << useHook_\n'
        "#endif\n"
        '            << ", NAN_CHECK: " << enableNanCheck_;\n'
        "}\n"
        "std::exception_ptr ProcessGroupNCCL::checkForNCCLErrorsInternal() {\n"  # 17
        "#ifdef NCCL_HAS_COMM_NONBLOCKING\n"
        "  if (failed(ncclAsyncErr) && notInProgress(ncclAsyncErr)) {\n"  # 19
        "#else\n"
        "  if (failed(ncclAsyncErr)) {\n"  # 21
        "#endif\n"
        "    return makeError(ncclAsyncErr);\n"  # 23
        "  }\n"
        "  return nullptr;\n"
        "}\n"
        "c10::intrusive_ptr<Work> ProcessGroupNCCL::allreduce(std::vector<at::Tensor>& tensors) {\n"  # 27
        "  return allreduce_impl(tensors[0]);\n"  # 28
        "}\n"
        "} // namespace c10d\n"
        "#endif // USE_C10D_NCCL\n"
    )
    facts = parse_file("torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp", Language.CPP, source.encode())
    assert [(s.qname, s.line) for s in facts.symbols if s.kind is SymbolKind.METHOD] == [
        ("c10d::ProcessGroupNCCL::logEnvironment", 10),
        ("c10d::ProcessGroupNCCL::checkForNCCLErrorsInternal", 17),
        ("c10d::ProcessGroupNCCL::allreduce", 27),
    ]
    # of the two `if (...) {`, the build without NCCL_HAS_COMM_NONBLOCKING's (21) is read
    assert [
        (c.caller, c.callee, c.line)
        for c in facts.calls
        if c.callee in ("failed", "notInProgress", "makeError", "allreduce_impl")
    ] == [
        ("c10d::ProcessGroupNCCL::checkForNCCLErrorsInternal", "failed", 21),
        ("c10d::ProcessGroupNCCL::checkForNCCLErrorsInternal", "makeError", 23),
        ("c10d::ProcessGroupNCCL::allreduce", "allreduce_impl", 28),
    ]
