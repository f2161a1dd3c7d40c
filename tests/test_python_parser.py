"""Python extraction: definitions, naming, aliases, imports and call sites, with exact lines."""

from __future__ import annotations

from explorer.model import CallKind, SymbolKind
from explorer.parsers.python import module_name, parse_python

SOURCE = '''\
import torch
import torch.nn.functional as F
from .. import functional as G
from torch._C import _add_docstr
from .utils import *

conv2d = _add_docstr(torch.conv2d, r"""docs""")
relu = torch.relu
first, second = 1, 2
__all__ = ["Conv2d"]


@decorate
class Conv2d(_ConvNd):
    __call__ = _wrapped_call_impl

    def _wrapped_call_impl(self, *args):
        return self._call_impl(*args)

    def _conv_forward(self, input, weight):
        def inner():
            return F.pad(input)
        return G.conv2d(inner(), weight, fn=torch.relu)
'''


def parse():
    return parse_python("torch/nn/modules/conv.py", SOURCE.encode())


def test_module_names_follow_the_path():
    assert module_name("torch/nn/modules/conv.py") == "torch.nn.modules.conv"
    assert module_name("torch/nn/__init__.py") == "torch.nn"
    assert module_name("torch/_C/_nn.pyi") == "torch._C._nn"
    assert module_name("setup.py") == "setup"


def test_definitions_have_qualified_names_kinds_and_lines():
    symbols = {(s.qname, s.kind, s.line, s.end_line) for s in parse().symbols}
    assert symbols == {
        ("torch.nn.modules.conv", SymbolKind.MODULE, 1, 23),
        ("torch.nn.modules.conv.conv2d", SymbolKind.ALIAS, 7, 7),
        ("torch.nn.modules.conv.relu", SymbolKind.ALIAS, 8, 8),
        ("torch.nn.modules.conv.first", SymbolKind.VARIABLE, 9, 9),
        ("torch.nn.modules.conv.second", SymbolKind.VARIABLE, 9, 9),
        ("torch.nn.modules.conv.Conv2d", SymbolKind.CLASS, 14, 23),
        ("torch.nn.modules.conv.Conv2d.__call__", SymbolKind.ALIAS, 15, 15),
        ("torch.nn.modules.conv.Conv2d._wrapped_call_impl", SymbolKind.METHOD, 17, 18),
        ("torch.nn.modules.conv.Conv2d._conv_forward", SymbolKind.METHOD, 20, 23),
        ("torch.nn.modules.conv.Conv2d._conv_forward.inner", SymbolKind.FUNCTION, 21, 22),
    }


def test_aliases_point_at_what_they_name_with_imports_expanded():
    targets = {s.qname: s.target for s in parse().symbols if s.kind is SymbolKind.ALIAS}
    assert targets == {
        # the docstring-attaching idiom returns its first argument
        "torch.nn.modules.conv.conv2d": "torch.conv2d",
        "torch.nn.modules.conv.relu": "torch.relu",
        # a class body refers to its own members
        "torch.nn.modules.conv.Conv2d.__call__": "torch.nn.modules.conv.Conv2d._wrapped_call_impl",
    }


def test_signatures_are_the_header_on_one_line():
    by_name = {s.qname: s.signature for s in parse().symbols}
    assert by_name["torch.nn.modules.conv.Conv2d"] == "class Conv2d(_ConvNd)"
    assert by_name["torch.nn.modules.conv.Conv2d._conv_forward"] == "def _conv_forward(self, input, weight)"
    # a comment after the colon, and colons inside default values, stay out of the way
    source = b'def relu(input: Tensor,\n         inplace: bool = False) -> Tensor:  # noqa: D400\n    pass\ndef f(x={"a": 1}): pass\n'
    assert [s.signature for s in parse_python("m.py", source).symbols if s.kind is SymbolKind.FUNCTION] == [
        "def relu(input: Tensor, inplace: bool = False) -> Tensor",
        'def f(x={"a": 1})',
    ]


def test_imports_of_every_form_resolve_to_absolute_names():
    bindings = {(b.name, b.target, b.line) for b in parse().imports}
    assert bindings == {
        ("torch", "torch", 1),
        ("F", "torch.nn.functional", 2),
        ("G", "torch.nn.functional", 3),  # `from .. import functional` in torch.nn.modules.conv
        ("_add_docstr", "torch._C._add_docstr", 4),
        ("*", "torch.nn.modules.utils", 5),
    }


def test_relative_imports_in_a_package_init_start_from_the_package():
    facts = parse_python("torch/nn/__init__.py", b"from .modules import Conv2d\nfrom . import functional\n")
    assert {(b.name, b.target) for b in facts.imports} == {
        ("Conv2d", "torch.nn.modules.Conv2d"),
        ("functional", "torch.nn.functional"),
    }


def test_call_sites_name_their_caller_callee_and_line():
    # (arguments are for the precise per-file analysis, not this fast pass: name_args stay empty)
    calls = {(c.caller, c.callee, c.qualified, c.line, c.column, c.kind, c.name_args) for c in parse().calls}
    assert calls == {
        ("torch.nn.modules.conv", "_add_docstr", "torch._C._add_docstr", 7, 9, CallKind.CALL, ()),
        ("torch.nn.modules.conv", "decorate", "decorate", 13, 0, CallKind.DECORATOR, ()),
        (
            "torch.nn.modules.conv.Conv2d._wrapped_call_impl",
            "self._call_impl",
            "self._call_impl",
            18,
            15,
            CallKind.CALL,
            (),
        ),
        (
            "torch.nn.modules.conv.Conv2d._conv_forward.inner",
            "F.pad",
            "torch.nn.functional.pad",
            22,
            19,
            CallKind.CALL,
            (),
        ),
        (
            "torch.nn.modules.conv.Conv2d._conv_forward",
            "G.conv2d",
            "torch.nn.functional.conv2d",
            23,
            15,
            CallKind.CALL,
            (),
        ),
        ("torch.nn.modules.conv.Conv2d._conv_forward", "inner", "inner", 23, 24, CallKind.CALL, ()),
    }


def test_definitions_inside_if_and_try_blocks_are_module_level():
    source = b"try:\n    def fast():\n        pass\nexcept ImportError:\n    def fast():\n        pass\nif X:\n    LIMIT = 3\n"
    symbols = [(s.qname, s.line) for s in parse_python("m.py", source).symbols if s.kind is not SymbolKind.MODULE]
    assert symbols == [("m.fast", 2), ("m.fast", 5), ("m.LIMIT", 8)]


def test_syntax_errors_are_reported_and_the_rest_is_indexed():
    facts = parse_python("broken.py", b"def ok():\n    pass\n\ndef broken(:\n    pass\n")
    [diagnostic] = facts.diagnostics
    # Python's parser words the problem (it varies between Python versions); the line is exact
    assert diagnostic.reason.startswith("syntax error at line 4: ") and not diagnostic.skipped
    assert diagnostic.reason.endswith("; indexed what parsed")
    assert "broken.ok" in {s.qname for s in facts.symbols}


def test_docstring_wrappers_with_built_strings_are_aliases():
    source = b'conv2d = _add_docstr(\n    torch.conv2d,\n    r"""doc""" + f"""{notes}""",\n)\nrelu_ = wrap(torch.relu_, "{}".format(x))\nnot_alias = f(torch.relu, x)\n'
    facts = parse_python("m.py", source)
    assert {(s.qname, s.kind, s.target) for s in facts.symbols if s.kind is not SymbolKind.MODULE} == {
        ("m.conv2d", SymbolKind.ALIAS, "torch.conv2d"),
        ("m.relu_", SymbolKind.ALIAS, "torch.relu_"),
        ("m.not_alias", SymbolKind.VARIABLE, None),
    }


def test_empty_file_is_just_a_module():
    facts = parse_python("pkg/__init__.py", b"")
    assert [(s.qname, s.kind, s.line) for s in facts.symbols] == [("pkg", SymbolKind.MODULE, 1)]
    assert facts.calls == [] and facts.diagnostics == []
