"""Which Python modules a C++ function's module parameter holds, from the calls that pass one.

The parsers name a binding made on a parameter by a placeholder (`<arg 0 of
torch::jit::initJITBindings>.PyTorchFileWriter`, parsers/cpp_modules.py) and record every call
that hands a module on (`torch::jit::initJITBindings(module)` in torch/csrc/Module.cpp, where
`module` is "torch._C"). This joins the two across the tree: a parameter holds what every
caller passes, and a caller may pass its own parameter on (followed back, cycles cut). A
callee written `initFoo` or `jit::initFoo` is the function `ns::initFoo` as C++ looks it up
from the calling namespace: each enclosing namespace, innermost first, then the global one.
"""

from __future__ import annotations

import re
from collections import defaultdict

from explorer.parsers.common import enclosing_candidates

_PLACEHOLDER = re.compile(r"^<arg (\d+) of ([^>]+)>")


class ModuleParameters:
    def __init__(self, arguments: list[tuple[str, str, str, int]]) -> None:
        """`arguments`: (module passed, callee as written, calling namespace, argument position)."""
        self._by_last_name: dict[str, list[tuple[str, str, str, int]]] = defaultdict(list)
        for module, callee, scope, position in arguments:
            self._by_last_name[callee.rpartition("::")[2]].append((module, callee, scope, position))
        self._held: dict[tuple[int, str], list[str]] = {}

    def names(self, qname: str) -> list[str]:
        """The names a placeholder-named binding has in each module its parameter holds;
        empty when no caller in the tree passes one (or `qname` has no placeholder)."""
        found = _PLACEHOLDER.match(qname)
        if found is None:
            return []
        rest = qname[found.end():]
        return [module + rest for module in self.held(int(found.group(1)), found.group(2))]

    def held(self, position: int, function: str, visiting: frozenset[tuple[int, str]] = frozenset()) -> list[str]:
        """The dotted modules parameter `position` of `function` holds, sorted."""
        key = (position, function)
        if key in self._held:
            return self._held[key]
        if key in visiting:
            return []  # a cycle of init functions passing the module round: nothing new
        modules: set[str] = set()
        for module, callee, scope, at in self._by_last_name.get(function.rpartition("::")[2], []):
            if at != position or function not in enclosing_candidates(callee, scope):
                continue
            passed = _PLACEHOLDER.match(module)
            if passed is None:
                modules.add(module)
                continue
            rest = module[passed.end():]
            modules.update(outer + rest for outer in self.held(int(passed.group(1)), passed.group(2), visiting | {key}))
        held = sorted(modules)
        if not visiting:  # a result cut short by a cycle is not remembered
            self._held[key] = held
        return held

