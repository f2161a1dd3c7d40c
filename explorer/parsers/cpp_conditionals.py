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
    code_before: bytes = b""  # the last line of code before the `#if`
    negated: bool = False  # `#ifndef X` or `#if !...`: its first branch is the build without the macro


# A branch that starts with one of these continues the expression before the conditional;
# `:` a constructor's member initializers (`TraceWrapper::TraceWrapper(...)\n#ifdef USE_KINETO\n
# : cpuTraceBuffer_(...)\n#endif\n{`), where it is no `::` qualifier; `<<` a stream
# (ProcessGroupNCCL.cpp's `LOG(INFO) << ...\n#ifdef NCCL_HAS_COMM_REGISTER\n<< ", ..." << x\n#endif`).
_CONTINUATIONS = (b".", b"->", b",", b"&&", b"||", b":", b"<<", b"?", b"+")


def _continues(code: bytes) -> bool:
    return code.startswith(_CONTINUATIONS) and not code.startswith(b"::")


def _an_element(group: _Group) -> bool:
    """A lone `#if` holding whole elements of a list the code before it leaves open
    (`{ReduceOp::PRODUCT, ncclProd},\n#ifdef NCCL_HAS_AVG\n{ReduceOp::AVG, ncclAvg},\n#endif\n};`)."""
    return (
        len(group.starts) == 1
        and group.code_before.endswith(b",")
        and group.first_code[0] is not None
        and group.balance[0] == 0
    )


def without_split_conditionals(source: bytes) -> bytes:
    if b"#if" not in source:
        return source
    blanked: bytearray | None = None
    stack: list[_Group] = []
    offset = 0
    code_before = b""
    wrapper: _Group | None = None  # a lone conditional around all of the file's code
    code_outside = False  # code met outside any conditional (before the wrapper, or after it)
    for line in source.splitlines(keepends=True):
        directive = _DIRECTIVE.match(line)
        end = offset + len(line)
        if directive is None:
            code = _NOT_CODE.sub(b"", line).strip()
            code_before = code or code_before
            if code and not stack and not code.startswith((b"#", b"*", b"/*")):  # an #include, a block comment's line
                code_outside = True
            if stack and stack[-1].first_code[-1] is None:
                stack[-1].first_code[-1] = _NOT_CODE.sub(b"", line).strip() or None
            if stack and (b"{" in line or b"}" in line):
                code = _NOT_CODE.sub(b"", line)
                stack[-1].balance[-1] += code.count(b"{") - code.count(b"}")
        else:
            kind = directive.group(1)
            if kind in (b"if", b"ifdef", b"ifndef"):
                negated = kind == b"ifndef" or re.match(rb"^[ \t]*#[ \t]*if[ \t]*!", line) is not None
                stack.append(_Group([end], [], [0], [(offset, end)], [None], code_before, negated))
                if len(stack) == 1 and wrapper is None and not code_outside:
                    wrapper = stack[0]
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
                if all(code is not None and _continues(code) for code in group.first_code) or _an_element(group):
                    blanked = blanked if blanked is not None else bytearray(source)
                    for start, stop in group.directives:
                        _blank(blanked, start, stop)
                    if stack:
                        stack[-1].balance[-1] += sum(group.balance)
                elif len(group.starts) == 1 and group.balance[0] and not stack:
                    blanked = blanked if blanked is not None else bytearray(source)
                    _blank(blanked, group.starts[0], group.ends[0])
                elif len(group.starts) > 1 and group.balance[0] and len(set(group.balance)) == 1:
                    # `#ifdef X\n if (a) {\n#else\n if (b) {\n#endif` (ProcessGroupNCCL.cpp:1886):
                    # each branch opens what the code after closes, so any one alone reads
                    # whole. The build without the macro is kept, as for a lone `#if` (the
                    # `#else` of `#ifdef USE_MACA`, upstream's cat in Shape.cu), the others blanked
                    blanked = blanked if blanked is not None else bytearray(source)
                    kept = 0 if group.negated else len(group.starts) - 1
                    for branch, (start, stop) in enumerate(zip(group.starts, group.ends)):
                        if branch != kept:
                            _blank(blanked, start, stop)
                    for start, stop in group.directives:
                        _blank(blanked, start, stop)
                    if stack:
                        stack[-1].balance[-1] += group.balance[0]
                elif stack:
                    stack[-1].balance[-1] += group.balance[-1]
        offset = end
    if wrapper is not None and len(wrapper.starts) == 1 and wrapper.ends and not code_outside and not stack:
        # `#ifdef USE_C10D_NCCL` ... `#endif` around all of ProcessGroupNCCL.cpp: the grammar
        # makes one error of the whole conditional for any error inside, where at the top level
        # its recovery keeps the rest; the build that indexes the file is the one that defines it
        blanked = blanked if blanked is not None else bytearray(source)
        for start, stop in wrapper.directives:
            _blank(blanked, start, stop)
    return bytes(blanked) if blanked is not None else source


def _blank(blanked: bytearray, start: int, end: int) -> None:
    for position in range(start, end):
        if blanked[position] not in (10, 13):
            blanked[position] = 32
