"""Finding names: what a user or a call names, across every language of every tree.

- lookup.py: a query (`torch.nn.Conv2d`, `aten::conv2d`, `cudnn_convolution`) to its
  definitions, through re-exports, bindings and operator names;
- search.py: ranked symbol search (exact, prefix, word, fuzzy);
- patterns.py: what a user types, checked before it reaches the index or a regex engine;
- bindings.py: which native_functions.yaml operators a Python name is bound to;
- extensions.py: the Python names of what extensions register;
- test_code.py: which code is a tree's tests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer.doors import door

if TYPE_CHECKING:
    from explorer.names.bindings import (
        TORCH_AUTOGRAD_FUNCTIONS,
        TORCH_MODULE_CLASSES,
        binding_operators,
        binding_symbol,
        bound_stub,
        inherited_bindings,
        is_method_binding,
        is_out_overload,
        operators_for,
        stub_method,
    )
    from explorer.names.extensions import ExtensionModules, extension_modules, registered_operators
    from explorer.names.lookup import NameMatch, PythonPaths, find, look_up, plain_call_order, suggestions
    from explorer.names.patterns import (
        MAX_QUERY_LENGTH,
        VENDOR_TARGET,
        TargetPattern,
        matches_nothing,
        target_heading,
        target_pattern,
    )
    from explorer.names.search import PERIPHERAL_PATH, SearchFilter, SearchHit, search_symbols
    from explorer.names.test_code import hidden_as_test

_HOME = {  # each public name, and the module of this package that defines it
    "TORCH_AUTOGRAD_FUNCTIONS": "bindings",
    "TORCH_MODULE_CLASSES": "bindings",
    "binding_operators": "bindings",
    "binding_symbol": "bindings",
    "bound_stub": "bindings",
    "inherited_bindings": "bindings",
    "is_method_binding": "bindings",
    "is_out_overload": "bindings",
    "operators_for": "bindings",
    "stub_method": "bindings",
    "ExtensionModules": "extensions",
    "extension_modules": "extensions",
    "registered_operators": "extensions",
    "PythonPaths": "lookup",
    "NameMatch": "lookup",
    "find": "lookup",
    "plain_call_order": "lookup",
    "look_up": "lookup",
    "suggestions": "lookup",
    "MAX_QUERY_LENGTH": "patterns",
    "TargetPattern": "patterns",
    "VENDOR_TARGET": "patterns",
    "matches_nothing": "patterns",
    "target_heading": "patterns",
    "target_pattern": "patterns",
    "PERIPHERAL_PATH": "search",
    "SearchFilter": "search",
    "SearchHit": "search",
    "search_symbols": "search",
    "hidden_as_test": "test_code",
}
__all__ = [  # the same names as _HOME (tests/test_doors.py)
    "MAX_QUERY_LENGTH",
    "PERIPHERAL_PATH",
    "TORCH_AUTOGRAD_FUNCTIONS",
    "TORCH_MODULE_CLASSES",
    "VENDOR_TARGET",
    "ExtensionModules",
    "NameMatch",
    "PythonPaths",
    "SearchFilter",
    "SearchHit",
    "TargetPattern",
    "binding_operators",
    "binding_symbol",
    "bound_stub",
    "extension_modules",
    "find",
    "hidden_as_test",
    "inherited_bindings",
    "is_method_binding",
    "is_out_overload",
    "look_up",
    "matches_nothing",
    "operators_for",
    "plain_call_order",
    "registered_operators",
    "search_symbols",
    "stub_method",
    "suggestions",
    "target_heading",
    "target_pattern",
]

if not TYPE_CHECKING:  # to a type checker, the names are the imports above and nothing else
    __getattr__ = door(__name__, _HOME)
