"""Overloads that take as many arguments as a call passes, told apart by what the arguments
are, in the bundled tree's caffe2/serialize/inline_container.cpp (PyTorch's
PyTorchStreamReader and the calls that make one). Every expected hop was read off the file:

- PyTorchStreamReader's constructors take a file name (`const std::string&`, :46), a stream
  (`std::istream*`, :50) and a read adapter (`std::shared_ptr<ReadAdapterInterface>`, :54);
- reader_from_buffer (:81) makes `auto adapter = std::make_unique<BufferAdapter>(bytes);` (:83)
  and passes `std::move(adapter)` to `std::make_shared<PyTorchStreamReader>` (:84): a
  unique_ptr, which only the adapter constructor takes;
- reader_from_stream (:90) passes `&in` (:91): a pointer, the stream constructor's;
- version_key (:94) calls `record_key("version")` (:95): of record_key(const std::string&)
  (:71) and record_key(int64_t) (:75), the string one;
- reader_from (:100) passes `std::forward<Source>(source)` (:101), of a template parameter's
  type: nothing says which constructor runs, and all three stay;
- indexed_key (:108) calls record_key through the macro KEY_AT (:106), invoked at :109 with
  `"unused"` and `7`: the call is placed at the invocation, whose arguments are not the
  call's, so both record_key overloads stay.
"""

from __future__ import annotations

import pytest

from explorer.analysis.trace import trace_symbol
from explorer.resolve.argument_kinds import Kind, argument_kind, parameter_kinds

READER = "caffe2/serialize/inline_container.cpp"
CONSTRUCTOR = "caffe2::serialize::PyTorchStreamReader::PyTorchStreamReader"


def calls(store, root, query, callee):
    """(path, line, resolution, candidates) of each edge from `query` to `callee`."""
    tree = trace_symbol(store, root, query, max_depth=1, backend="cuda").trace.tree
    return [
        (c.node.symbol.path, c.node.symbol.line, c.edge.resolution.value, len(c.edge.candidates))
        for c in tree.children
        if c.node.symbol.qname == callee
    ]


def test_a_moved_unique_ptr_local_runs_the_shared_ptr_constructor(sample_store, sample_root):
    assert calls(sample_store, sample_root, "caffe2::serialize::reader_from_buffer", CONSTRUCTOR) == [
        (READER, 54, "exact", 0),
    ]


def test_an_address_runs_the_pointer_constructor(sample_store, sample_root):
    assert calls(sample_store, sample_root, "caffe2::serialize::reader_from_stream", CONSTRUCTOR) == [
        (READER, 50, "exact", 0),
    ]


def test_a_string_literal_runs_the_string_overload(sample_store, sample_root):
    assert calls(sample_store, sample_root, "caffe2::serialize::version_key", "caffe2::serialize::record_key") == [
        (READER, 71, "exact", 0),
    ]


def test_an_argument_of_unknown_kind_keeps_every_constructor(sample_store, sample_root):
    assert calls(sample_store, sample_root, "caffe2::serialize::reader_from", CONSTRUCTOR) == [
        (READER, 46, "ambiguous", 3),
        (READER, 50, "ambiguous", 3),
        (READER, 54, "ambiguous", 3),
    ]


def test_a_macros_arguments_say_nothing_of_the_call_it_writes(sample_store, sample_root):
    assert calls(sample_store, sample_root, "caffe2::serialize::indexed_key", "caffe2::serialize::record_key") == [
        (READER, 71, "ambiguous", 2),
        (READER, 75, "ambiguous", 2),
    ]


def test_the_trace_to_the_adapter_reader_takes_no_ambiguous_hop(sample_store, sample_root):
    report = trace_symbol(
        sample_store,
        sample_root,
        "caffe2::serialize::reader_from_buffer",
        to="caffe2::serialize::PyTorchStreamReader::open_adapter",
        backend="cuda",
    )
    assert [
        (hop.node.symbol.qname, hop.node.symbol.line, hop.edge.resolution.value if hop.edge else None)
        for hop in report.trace.paths[0]
    ] == [
        ("caffe2::serialize::reader_from_buffer", 81, None),
        (CONSTRUCTOR, 54, "exact"),
        ("caffe2::serialize::PyTorchStreamReader::open_adapter", 67, "exact"),
    ]


@pytest.mark.parametrize(
    ("written", "kind"),
    [
        ('"version"', Kind.C_STRING),
        ("name.c_str()", Kind.C_STRING),
        ('std::string("a")', Kind.STRING),
        ("&in", Kind.POINTER),
        ("nullptr", Kind.NULL),
        ("std::make_unique<BufferAdapter>(bytes)", Kind.SMART),
        ("c10::make_intrusive<Work>()", Kind.SMART),
        ("7", Kind.NUMBER),
        ("true", Kind.NUMBER),
        ("0", Kind.UNKNOWN),  # also a null pointer
        ("std::make_unique<BufferAdapter>(bytes).release()", Kind.UNKNOWN),
        ("helper(x)", Kind.UNKNOWN),
    ],
)
def test_an_argument_has_the_kind_its_spelling_says(written, kind):
    assert argument_kind(written, lambda name: Kind.UNKNOWN) == kind


def test_a_parameter_has_the_kind_its_type_says():
    signature = "void f(const std::string& a, std::istream* b, const char* c, c10::intrusive_ptr<W> d, bool e, int64_t, T&& g, ...)"
    assert parameter_kinds(signature) == (
        Kind.STRING,
        Kind.POINTER,
        Kind.C_STRING,
        Kind.SMART,
        Kind.BOOL,
        Kind.NUMBER,
        Kind.UNKNOWN,
    )


def test_a_call_s_arguments_are_split_past_escaped_quotes_and_its_closing_parenthesis_found():
    from explorer.resolve.arity import closing_parenthesis, split_arguments

    assert split_arguments('f("a\\"b,c", 2)', 1) == ['"a\\"b,c"', "2"]
    assert closing_parenthesis("g(h(a), b).c()", 1) == 9
    assert closing_parenthesis("g(h(a), b", 1) is None
