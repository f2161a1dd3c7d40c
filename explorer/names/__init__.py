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

if TYPE_CHECKING:  # each name as its own alias: the names this door exports
    from explorer.names.bindings import TORCH_AUTOGRAD_FUNCTIONS as TORCH_AUTOGRAD_FUNCTIONS
    from explorer.names.bindings import TORCH_MODULE_CLASSES as TORCH_MODULE_CLASSES
    from explorer.names.bindings import binding_operators as binding_operators
    from explorer.names.bindings import binding_symbol as binding_symbol
    from explorer.names.bindings import bound_stub as bound_stub
    from explorer.names.bindings import inherited_bindings as inherited_bindings
    from explorer.names.bindings import is_method_binding as is_method_binding
    from explorer.names.bindings import is_out_overload as is_out_overload
    from explorer.names.bindings import operators_for as operators_for
    from explorer.names.bindings import stub_method as stub_method
    from explorer.names.extensions import ExtensionModules as ExtensionModules
    from explorer.names.extensions import extension_modules as extension_modules
    from explorer.names.extensions import registered_operators as registered_operators
    from explorer.names.lookup import NameMatch as NameMatch
    from explorer.names.lookup import PythonPaths as PythonPaths
    from explorer.names.lookup import find as find
    from explorer.names.lookup import look_up as look_up
    from explorer.names.lookup import plain_call_order as plain_call_order
    from explorer.names.lookup import suggestions as suggestions
    from explorer.names.patterns import MAX_QUERY_LENGTH as MAX_QUERY_LENGTH
    from explorer.names.patterns import VENDOR_TARGET as VENDOR_TARGET
    from explorer.names.patterns import TargetPattern as TargetPattern
    from explorer.names.patterns import matches_nothing as matches_nothing
    from explorer.names.patterns import target_heading as target_heading
    from explorer.names.patterns import target_pattern as target_pattern
    from explorer.names.search import PERIPHERAL_PATH as PERIPHERAL_PATH
    from explorer.names.search import SearchFilter as SearchFilter
    from explorer.names.search import SearchHit as SearchHit
    from explorer.names.search import search_symbols as search_symbols
    from explorer.names.test_code import hidden_as_test as hidden_as_test

_HOME = {  # each name above, and the module of this package that defines it (tests/test_doors.py)
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

if not TYPE_CHECKING:  # to a type checker, the names are the imports above and nothing else
    __getattr__ = door(__name__, _HOME)
