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
looks it up from the calling namespace; an unqualified call that lookup takes to none of the
functions with such parameters is taken by its last name (it may come through a using-directive,
which the index keeps per file but not here).
"""

from __future__ import annotations

import itertools
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
    def __init__(self, arguments: list[tuple[int, str, str, str, int, int]], named: list[str]) -> None:
        """`arguments`: (file id, module or name passed, callee as written, calling namespace,
        argument position, line) for each argument of each call; `named`: the bindings named
        by placeholders."""
        grouped: dict[tuple[int, int, str, str], list[tuple[int, str]]] = defaultdict(list)
        for file_id, value, callee, scope, position, line in arguments:
            grouped[(file_id, line, callee, scope)].append((position, value))
        self._calls: dict[str, list[_Call]] = defaultdict(list)  # by the callee's last name
        for (_, _, callee, scope), passed in sorted(grouped.items()):
            # one line may hand a function several values for one position (a table added to a
            # type that a module names twice, TensorBase and _TensorBase): a call for each
            by_position: dict[int, list[str]] = defaultdict(list)
            for position, value in sorted(passed):
                by_position[position].append(value)
            for values in itertools.product(*by_position.values()):
                self._calls[callee.rpartition("::")[2]].append(_Call(callee, scope, tuple(zip(by_position, values))))
        self._resolved: dict[str, list[dict[int, str]]] = {}
        # the functions whose parameters hold modules or names: a call that C++ lookup takes to
        # none of them may reach one through a using-directive
        self._functions = {
            m.group(2) for text in [*named, *(a[1] for a in arguments)] for m in _PLACEHOLDER.finditer(text)
        }

    def names(self, qname: str) -> list[str]:
        """Every name a placeholder-named binding has, sorted: `qname` itself where no call in
        the tree gives its placeholders values."""
        return sorted(set(self._substituted(qname, frozenset()))) or [qname]

    def _substituted(self, text: str, visiting: frozenset[str]) -> list[str]:
        """`text` with the placeholders of a function replaced by each of its calls' values,
        function after function; a placeholder of a function no call in the tree reaches is
        left as it is (the name still says what was bound, and on what)."""
        for function in dict.fromkeys(m.group(2) for m in _PLACEHOLDER.finditer(text)):
            if function in visiting:
                return []  # init functions passing a module round in a cycle: nothing new
            calls = self._calls_of(function, visiting | {function})
            if not calls:
                continue
            results = []
            for values in calls:
                replaced = _PLACEHOLDER.sub(
                    lambda m: values.get(int(m.group(1)), m.group(0)) if m.group(2) == function else m.group(0),  # noqa: B023
                    text,
                )
                if any(m.group(2) == function for m in _PLACEHOLDER.finditer(replaced)):
                    continue  # a call that does not pass every parameter the name uses
                results.extend(self._substituted(replaced, visiting))
            return results
        return [text]

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
        for call in named:
            candidates = enclosing_candidates(call.callee, call.scope)
            if function not in candidates and ("::" in call.callee or not self._functions.isdisjoint(candidates)):
                continue
            joined = _SEPARATOR.join(f"{position}={value}" for position, value in call.passed)
            for text in self._substituted(joined, visiting):
                resolved.append(
                    {
                        int(position): value
                        for position, _, value in (part.partition("=") for part in text.split(_SEPARATOR))
                    }
                )
        self._resolved[function] = resolved
        return resolved
