"""The text rewrites a C++ or CUDA file goes through after the preprocessor and before
tree-sitter: what the grammar would misread is blanked or respelt, byte for byte in place so
that offsets and lines stay those of the file (attribute macros, CUDA qualifiers in C++
headers, CPython's object header, pragma and deprecation macros, launch bounds, lambda init
captures); split conditionals are joined by cpp_conditionals.py."""

from __future__ import annotations

import bisect
import re

from explorer.model import Language
from explorer.parsers.cpp_conditionals import without_split_conditionals

# Attribute macros: `class TORCH_API Tensor {`, `C10_HOST_DEVICE inline double exp<double>(...)`,
# `Vectorized<T> C10_ALWAYS_INLINE ceil() const`. The grammar takes the macro for a type or a
# name, and the class for a function or the return type for part of the function's name
# (`at::double exp`). An upper-case name with an underscore followed by another name (never
# valid C++ once the macro is gone) is blanked to spaces, so offsets and lines stay as they
# were; directives are left alone, since a macro's own parameters may look the same.
_ATTRIBUTE_MACRO = re.compile(rb"(?<![\w:.])[A-Z][A-Z0-9]*_[A-Z0-9_]*(?=[ \t\r\n]+[A-Za-z_])")


# CUDA's function qualifiers, which only the CUDA grammar knows: in a C++ header
# (`__forceinline__ __device__ uint32_t relu2<half_t>(...)`) they would join the name.
_CUDA_QUALIFIER = re.compile(rb"(?<![\w:.])__(?:device|host|forceinline|inline|noinline)__(?=[ \t\r\n])")


_DIRECTIVE = re.compile(rb"^[ \t]*#(?:\\\r?\n|[^\n])*", re.MULTILINE)


# CPython's object header, written as a member with no `;` (`struct THPEngine { PyObject_HEAD };`
# in python_engine.cpp): the grammar takes the rest of the file for an error. Its members are
# CPython's, so it is blanked where no `;` follows.
_PYTHON_OBJECT_HEAD = re.compile(rb"(?<![\w:.])Py(?:Object|Object_VAR|Exception)_HEAD\b(?![ \t]*;)")


# An unused-variable attribute written after the name (`for (const auto i C10_UNUSED : range)`,
# 49 places in PyTorch), which the pattern above leaves: error recovery then lost the rest
# of tensorpipe_agent.cpp, TensorPipeAgent's methods with it.
_UNUSED_ATTRIBUTE = re.compile(rb"(?<![\w:.])[A-Z][A-Z0-9]*_UNUSED\b(?![ \t]*\()")


# A pragma written as a macro on a line of its own, with no `;` (`C10_DIAGNOSTIC_POP()` before
# `namespace torch {` in tensorpipe_agent.cpp, C10_CLANG_DIAGNOSTIC_IGNORE("-W...")): the grammar
# joins it to the next declaration, and the namespace is lost. It says nothing to a reader of
# calls, so the whole invocation is blanked.
_PRAGMA_MACRO = re.compile(
    rb"^[ \t]*[A-Z][A-Z0-9_]*(?:DIAGNOSTIC|PRAGMA)[A-Z0-9_]*[ \t]*\([^()\n]*\)[ \t]*$", re.MULTILINE
)


# A deprecation written as a macro on the line before a declaration, its message a string that
# may hold parentheses (`C10_DEPRECATED_MESSAGE("... use tensor.scalar_type() instead")` in
# TensorBody.h): the grammar lost class Tensor to it. Blanked as a pragma is.
_DEPRECATION_MACRO = re.compile(
    rb'^[ \t]*[A-Z][A-Z0-9_]*DEPRECATED[A-Z0-9_]*[ \t]*(?:\([ \t]*"(?:[^"\\\n]|\\.)*"[ \t]*\))?[ \t]*$', re.MULTILINE
)


def _without_attribute_macros(source: bytes, lang: Language) -> bytes:
    patterns = (
        [_ATTRIBUTE_MACRO] if lang == Language.CUDA or b"__" not in source else [_ATTRIBUTE_MACRO, _CUDA_QUALIFIER]
    )
    if b"_HEAD" in source:
        patterns.append(_PYTHON_OBJECT_HEAD)
    if b"_UNUSED" in source:
        patterns.append(_UNUSED_ATTRIBUTE)
    if b"DIAGNOSTIC" in source or b"PRAGMA" in source:
        patterns.append(_PRAGMA_MACRO)
    if b"DEPRECATED" in source:
        patterns.append(_DEPRECATION_MACRO)
    matches = [match.span() for pattern in patterns for match in pattern.finditer(source)]
    if not matches:
        return source
    directives = [match.span() for match in _DIRECTIVE.finditer(source)] if b"#" in source else []
    directive_starts = [start for start, _ in directives]
    blanked = bytearray(source)
    for start, end in matches:
        index = bisect.bisect_right(directive_starts, start) - 1
        if index >= 0 and start < directives[index][1]:
            continue
        blanked[start:end] = b" " * (end - start)
    return bytes(blanked)


# A lambda's init-capture written with braces (`[fn{std::move(fn)}](...) {...}`, as PyTorch's
# RPC agent writes them) is not in the grammar, and error recovery loses the namespaces around
# it. `name{expr}` becomes `name=expr ` (same length): the capture the grammar knows.
_BRACE_CAPTURE = re.compile(rb"[\[,]\s*&?[A-Za-z_]\w*\{")


_CLOSING = {ord("("): ord(")"), ord("["): ord("]"), ord("{"): ord("}")}


def _with_init_captures_as_assignments(source: bytes) -> bytes:
    if b"](" not in source or _BRACE_CAPTURE.search(source) is None:
        return source
    rewritten = bytearray(source)
    for match in _BRACE_CAPTURE.finditer(source):
        opening = match.end() - 1
        start = source.rfind(b"[", 0, match.start() + 1)
        list_end = _matching(source, start)
        if (
            list_end is None
            or opening > list_end
            or not re.match(rb"\s*(?:\(|\{|mutable\b|->)", source[list_end + 1 : list_end + 40])
        ):
            continue  # not a lambda's capture list
        if _matching(source, start + 1, until=opening) is not None:
            continue  # the brace is inside another item of the list, not an item's own
        closing = _matching(source, opening)
        if closing is not None and closing < list_end:
            rewritten[opening] = ord("=")
            rewritten[closing] = ord(" ")
    return bytes(rewritten)


def _matching(source: bytes, opening: int, until: int | None = None) -> int | None:
    """The offset of the bracket closing the one at `opening`; with `until`, whether any
    bracket opened after `opening` is still open at `until` (its offset, else None)."""
    if until is not None:  # is `until` nested inside a bracket that opens after `opening`?
        depth = 0
        for offset in range(opening, until):
            byte = source[offset]
            if byte in _CLOSING:
                depth += 1
            elif byte in _CLOSING.values():
                depth -= 1
        return opening if depth > 0 else None
    close = _CLOSING.get(source[opening]) if 0 <= opening < len(source) else None
    if close is None:
        return None
    depth = 0
    for offset in range(opening, min(len(source), opening + 20_000)):
        byte = source[offset]
        if byte in _CLOSING:
            depth += 1
        elif byte in _CLOSING.values():
            depth -= 1
            if depth == 0:
                return offset if byte == close else None
    return None


# `C10_LAUNCH_BOUNDS_1(n) __global__ void k(...)`: the grammar reads the macro as the start of
# a declaration and loses the kernel. What the macro adds is a compiler hint, so it is blanked.
_LAUNCH_BOUNDS = re.compile(rb"\b(?:C10_LAUNCH_BOUNDS_\w+|__launch_bounds__)\s*(\()?")


# `__global__ void\n#if !defined(USE_ROCM)\nC10_LAUNCH_BOUNDS_1(n)\n#endif\nk(...)`: once the hint
# is blanked, the directives around it are left splitting the declaration, and the grammar
# loses the kernel again. A conditional that held nothing but the hint goes with it.
_OPENS_CONDITIONAL = re.compile(rb"[ \t]*#[ \t]*if(?:n?def)?\b[^\n]*\n[ \t\r\n]*\Z")


_CLOSES_CONDITIONAL = re.compile(rb"[ \t\r\n]*#[ \t]*endif\b[^\n]*")


def _without_launch_bounds(source: bytes) -> bytes:
    if b"LAUNCH_BOUNDS" not in source and b"__launch_bounds__" not in source:
        return source
    blanked = bytearray(source)
    for match in _LAUNCH_BOUNDS.finditer(source):
        line_start = source.rfind(b"\n", 0, match.start()) + 1
        if source[line_start : match.start()].lstrip().startswith(b"#"):
            continue  # the macro's own #define stays readable
        end = _hint_end(source, match)
        if end is None:
            continue  # unbalanced within reach: leave it to the grammar
        start, end = _with_conditional_around(source, match.start(), end)
        for offset in range(start, end):
            if blanked[offset] not in b"\r\n":
                blanked[offset] = 32
    return bytes(blanked)


def _hint_end(source: bytes, match: re.Match[bytes]) -> int | None:
    """Where the launch-bounds hint ends: after its balanced arguments (None: not within reach)."""
    if match.group(1) is None:
        return match.end()
    depth, end = 1, match.end()
    while end < len(source) and depth and end - match.end() < 400:
        depth += {40: 1, 41: -1}.get(source[end], 0)  # ( and )
        end += 1
    return None if depth else end


def _with_conditional_around(source: bytes, start: int, end: int) -> tuple[int, int]:
    """The hint's span, widened to an `#if ... #endif` that holds nothing else."""
    line_start = source.rfind(b"\n", 0, start) + 1
    opening_start = source.rfind(b"\n", 0, max(line_start - 1, 0)) + 1
    opening = _OPENS_CONDITIONAL.match(source[opening_start:start]) if line_start else None
    closing = _CLOSES_CONDITIONAL.match(source, end)
    if opening is None or closing is None:
        return start, end
    return opening_start, closing.end()


def readable_to_the_grammar(source: bytes, grammar: Language) -> bytes:
    """The preprocessed text with every rewrite above made, in order."""
    source = without_split_conditionals(_without_launch_bounds(_without_attribute_macros(source, grammar)))
    return _with_init_captures_as_assignments(source)
