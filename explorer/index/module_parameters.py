"""What a C++ function's module and name parameters hold, from the calls that pass them.

The parsers name a binding made on a parameter by a placeholder (`<arg 0 of
torch::jit::initJITBindings>.PyTorchFileWriter`, parsers/cpp_modules.py), and a class a helper
names after its string parameter likewise (`<arg 0 of py_context_manager>.<arg 1 of
py_context_manager>.__enter__`). They record every call that hands a module on, with the names
it passes beside it (`torch::jit::initJITBindings(module)` in torch/csrc/Module.cpp, where
`module` is "torch._C"; `py_context_manager<DisableAutocast>(_C_m, "_DisableAutocast")`).

This joins the two across the tree: a binding has one name per call of its function, every
placeholder of that function replaced by what that one call passes (so the module and the
name of one call stay together), and a caller may pass its own parameters on, followed back
(cycles cut). A callee written `initFoo` or `jit::initFoo` is the function `ns::initFoo` as C++
looks it up from the calling namespace; where no call is found that way, an unqualified call of
the same last name is taken (it may come through a using-declaration the index does not keep).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from explorer.parsers.common import enclosing_candidates

_PLACEHOLDER = re.compile(r"<arg (\d+) of ([^>]+)>")
_SEPARATOR = "\x1f"  # joins one call's arguments while they are named together


@dataclass(frozen=True, slots=True)
class _Call:
    callee: str  # as written
    scope: str  # the calling namespace
    passed: tuple[tuple[int, str], ...]  # (position, module or name)


class ModuleParameters:
    def __init__(self, arguments: list[tuple[int, str, str, str, int, int]]) -> None:
        """`arguments`: (file id, module or name passed, callee as written, calling namespace,
        argument position, line) for each argument of each call."""
        grouped: dict[tuple[int, int, str, str], list[tuple[int, str]]] = defaultdict(list)
        for file_id, value, callee, scope, position, line in arguments:
            grouped[(file_id, line, callee, scope)].append((position, value))
        self._calls: dict[str, list[_Call]] = defaultdict(list)  # by the callee's last name
        for (_, _, callee, scope), passed in sorted(grouped.items()):
            self._calls[callee.rpartition("::")[2]].append(_Call(callee, scope, tuple(sorted(passed))))
        self._resolved: dict[str, list[dict[int, str]]] = {}

    def names(self, qname: str) -> list[str]:
        """Every name a placeholder-named binding has, sorted; empty when no chain of callers
        in the tree gives its placeholders values (or `qname` has none)."""
        if _PLACEHOLDER.search(qname) is None:
            return []
        return sorted(set(self._substituted(qname, frozenset())))

    def _substituted(self, text: str, visiting: frozenset[str]) -> list[str]:
        """`text` with the placeholders of its first function replaced by each call's values,
        then those of the next, until none is left."""
        found = _PLACEHOLDER.search(text)
        if found is None:
            return [text]
        function = found.group(2)
        if function in visiting:
            return []  # init functions passing a module round in a cycle: nothing new
        results = []
        for values in self._calls_of(function, visiting | {function}):
            replaced = _PLACEHOLDER.sub(
                lambda m: values.get(int(m.group(1)), m.group(0)) if m.group(2) == function else m.group(0), text)
            if replaced == text or any(m.group(2) == function for m in _PLACEHOLDER.finditer(replaced)):
                continue  # a call that does not pass every parameter the name uses
            results.extend(self._substituted(replaced, visiting))
        return results

    def _calls_of(self, function: str, visiting: frozenset[str]) -> list[dict[int, str]]:
        """What each call of `function` passes, position by position, with the callers' own
        placeholders resolved (all of one call's arguments together)."""
        cached = self._resolved.get(function)
        if cached is not None:
            return cached
        resolved = []
        named = self._calls.get(function.rpartition("::")[2], [])
        # as C++ looks the callee up from the calling namespace; else by its last name, for a
        # call that reaches it through a using-declaration or -directive (`py_context_manager`
        # from the global namespace is torch::impl::py_context_manager), which are not recorded
        looked_up = [call for call in named if function in enclosing_candidates(call.callee, call.scope)]
        for call in looked_up or [call for call in named if "::" not in call.callee]:
            joined = _SEPARATOR.join(f"{position}={value}" for position, value in call.passed)
            for text in self._substituted(joined, visiting):
                resolved.append({int(position): value for position, _, value in (part.partition("=") for part in text.split(_SEPARATOR))})
        self._resolved[function] = resolved
        return resolved
