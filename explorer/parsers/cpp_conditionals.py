"""One side of the preprocessor conditionals that would split a definition across branches.

tree-sitter parses both sides of every `#if` as if both were compiled. That is right where
each side is whole, and wrong where the sides only make sense one at a time:

    #ifdef USE_MACA
      if (fast_path(x)) { launch_fused(x); return; } else {
    #endif
        RowwiseMomentsCUDAKernel<<<...>>>(...);
    #ifdef USE_MACA
      }
    #endif

Read as one text, the first `{` never closes and the function swallows the rest of the
file. Here a lone `#if` (no `#elif` or `#else`, and inside no other conditional, whose
branches the grammar reads as alternatives) whose text does not balance its braces is
blanked to spaces, so lines and offsets stay where they were: what is read is the build
without that macro, where the code around it balances. A conditional with several branches,
or one that balances, is left alone, every branch indexed; where several branches do not
balance, no one of them can be chosen without knowing the build, and error recovery reads
what it can.

A conditional inside an expression, each of whose branches goes on with it:

    m.def("a", &a)
    #ifdef USE_NCCL
        .def("b", &b)
    #else
        .def("c", &c)
    #endif
        .def("d", &d);

is read with its directive lines blanked: every branch then continues the one expression
(`m.def(a).def(b).def(c).def(d)`), where the grammar would otherwise take the `#if` for a
statement and lose the rest of the function. No branch is dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b")
_NOT_CODE = re.compile(rb'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.DOTALL)


@dataclass
class _Group:
    """An open conditional: where each branch's text starts and ends, and its brace balance."""

    starts: list[int] = field(default_factory=list)  # offset after each branch's directive line
    ends: list[int] = field(default_factory=list)
    balance: list[int] = field(default_factory=list)
    directives: list[tuple[int, int]] = field(default_factory=list)  # the directive lines
    first_code: list[bytes | None] = field(default_factory=list)  # each branch's first line of code


# A branch that starts with one of these continues the expression before the conditional;
# `:` a constructor's member initializers (`TraceWrapper::TraceWrapper(...)\n#ifdef USE_KINETO\n
# : cpuTraceBuffer_(...)\n#endif\n{`), where it is no `::` qualifier.
_CONTINUATIONS = (b".", b"->", b",", b"&&", b"||", b":")


def _continues(code: bytes) -> bool:
    return code.startswith(_CONTINUATIONS) and not code.startswith(b"::")


def without_split_conditionals(source: bytes) -> bytes:
    if b"#if" not in source or (b"{" not in source and b"}" not in source):
        return source
    blanked: bytearray | None = None
    stack: list[_Group] = []
    offset = 0
    for line in source.splitlines(keepends=True):
        directive = _DIRECTIVE.match(line)
        end = offset + len(line)
        if directive is None:
            if stack and stack[-1].first_code[-1] is None:
                stack[-1].first_code[-1] = _NOT_CODE.sub(b"", line).strip() or None
            if stack and (b"{" in line or b"}" in line):
                code = _NOT_CODE.sub(b"", line)
                stack[-1].balance[-1] += code.count(b"{") - code.count(b"}")
        else:
            kind = directive.group(1)
            if kind in (b"if", b"ifdef", b"ifndef"):
                stack.append(_Group([end], [], [0], [(offset, end)], [None]))
            elif stack and kind in (b"elif", b"else"):
                group = stack[-1]
                group.ends.append(offset)
                group.starts.append(end)
                group.balance.append(0)
                group.directives.append((offset, end))
                group.first_code.append(None)
            elif stack and kind == b"endif":
                group = stack.pop()
                group.ends.append(offset)
                group.directives.append((offset, end))
                if all(code is not None and _continues(code) for code in group.first_code):
                    blanked = blanked if blanked is not None else bytearray(source)
                    for start, stop in group.directives:
                        _blank(blanked, start, stop)
                    if stack:
                        stack[-1].balance[-1] += sum(group.balance)
                elif len(group.starts) == 1 and group.balance[0] and not stack:
                    blanked = blanked if blanked is not None else bytearray(source)
                    _blank(blanked, group.starts[0], group.ends[0])
                elif stack:
                    stack[-1].balance[-1] += group.balance[-1]
        offset = end
    return bytes(blanked) if blanked is not None else source


def _blank(blanked: bytearray, start: int, end: int) -> None:
    for position in range(start, end):
        if blanked[position] not in (10, 13):
            blanked[position] = 32
