"""Source translation that lets a host C++ compiler build CUDA (.cu) files.

The emulated CUDA device runs kernels on the CPU: ``cuda_emulation.h`` (force
included with ``-include``) gives the CUDA keywords, built-in variables,
``__syncthreads`` and a kernel launcher their meaning on the host. What a
header cannot express is the CUDA-only *syntax*; :func:`translate_cuda_source`
rewrites exactly that, and nothing else:

``KERNEL<<<CONFIG>>>(ARGS)``
    becomes ``::cuda_emulation::launch(KERNEL, CONFIG)(ARGS)``. ``KERNEL`` is
    a possibly qualified name, optionally a template-id
    (``max_pool_forward_nchw<float, float>``) or a parenthesized expression;
    ``CONFIG`` (grid, block[, shared bytes[, stream]]) and ``ARGS`` are kept
    verbatim, so they may span lines and ``ARGS`` may be empty.

``extern __shared__ T name[];``
    becomes ``T* const name = reinterpret_cast<T*>(::cuda_emulation::dynamic_shared_memory());``
    (an ``__align__(N)`` / ``alignas(N)`` qualifier is dropped: the buffer is
    16-byte aligned already), i.e. a pointer to the block's dynamic shared
    memory, sized by the launch's shared-memory argument.

``REGISTER_DISPATCH(``
    becomes ``REGISTER_CUDA_DISPATCH(``. Under nvcc ``DispatchStub.h`` picks the
    CUDA slot because ``__CUDACC__`` is defined; a host compiler does not
    define it, and a .cu file would otherwise overwrite the CPU kernel.

Comments, string and character literals are never rewritten, and the number
and position of newlines is preserved, so compiler diagnostics and debug
line tables point at the original .cu lines.
"""

from __future__ import annotations

import re
from typing import Callable

__all__ = ["EMULATION_HEADER", "translate_cuda_source", "CudaTranslationError"]

# Force-included (``-include``) when compiling a translated .cu file.
EMULATION_HEADER = "cuda_emulation.h"

LAUNCH_FUNCTION = "::cuda_emulation::launch"
DYNAMIC_SHARED_FUNCTION = "::cuda_emulation::dynamic_shared_memory"

_EXTERN_SHARED = re.compile(
    r"\bextern\s+__shared__\s+(?P<type>[^;\[\]{}()]*?(?:\([^;()]*\)[^;\[\]{}()]*?)*?)"
    r"\s*(?P<name>[A-Za-z_]\w*)\s*\[\s*\]\s*;"
)
_ALIGNMENT = re.compile(r"\b(?:__align__|alignas)\s*\([^()]*\)\s*")
_REGISTER_DISPATCH = re.compile(r"\bREGISTER_DISPATCH\s*\(")


class CudaTranslationError(ValueError):
    """The source holds CUDA syntax this translation cannot rewrite."""


def translate_cuda_source(text: str) -> str:
    """Rewrite the CUDA-only syntax of a .cu file into plain C++ (see module doc)."""
    code_mask = _code_mask(text)
    text = _rewrite_launches(text, code_mask)
    code_mask = _code_mask(text)
    text = _rewrite_in_code(text, code_mask, _EXTERN_SHARED, _extern_shared_replacement)
    code_mask = _code_mask(text)
    return _rewrite_in_code(text, code_mask, _REGISTER_DISPATCH, lambda _m: "REGISTER_CUDA_DISPATCH(")


# --- lexing -----------------------------------------------------------------


def _code_mask(text: str) -> bytearray:
    """1 for characters that are C++ code, 0 inside comments and literals."""
    mask = bytearray(b"\x01") * len(text)
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "/" and text.startswith("//", i):
            end = _line_comment_end(text, i)
        elif c == "/" and text.startswith("/*", i):
            close = text.find("*/", i + 2)
            end = n if close < 0 else close + 2
        elif c == "R" and text.startswith('R"', i) and _starts_raw_string(text, i):
            end = _raw_string_end(text, i)
        elif c in "\"'" and not (c == "'" and _is_digit_separator(text, i)):
            end = _quoted_end(text, i, c)
        else:
            i += 1
            continue
        mask[i:end] = bytes(end - i)
        i = end
    return mask


def _line_comment_end(text: str, start: int) -> int:
    i = start
    while True:
        newline = text.find("\n", i)
        if newline < 0:
            return len(text)
        if newline > 0 and text[newline - 1] == "\\":  # spliced onto the next line
            i = newline + 1
            continue
        return newline


def _starts_raw_string(text: str, i: int) -> bool:
    """True when the R"... at text[i] opens a raw string rather than ending a name (fooR"x")."""
    start = i
    for prefix in ("u8", "u", "U", "L"):
        if text.endswith(prefix, 0, i):
            start = i - len(prefix)
            break
    return start == 0 or not _is_name_char(text[start - 1])


def _raw_string_end(text: str, start: int) -> int:
    open_paren = text.find("(", start + 2)
    if open_paren < 0:
        return len(text)
    delimiter = text[start + 2 : open_paren]
    close = text.find(")" + delimiter + '"', open_paren + 1)
    return len(text) if close < 0 else close + len(delimiter) + 2


def _is_digit_separator(text: str, i: int) -> bool:
    """A quote inside a number (1'000'000, 0xFF'FF) separates digits; it opens no literal."""
    if i + 1 >= len(text) or not text[i + 1].isalnum():
        return False
    start = i
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_'."):
        start -= 1
    return start < i and text[start].isdigit()


def _quoted_end(text: str, start: int, quote: str) -> int:
    i = start + 1
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == quote:
            return i + 1
        if c == "\n":  # unterminated: stop at the end of the line
            return i
        i += 1
    return n


# --- kernel launches ----------------------------------------------------------


def _rewrite_launches(text: str, mask: bytearray) -> str:
    """KERNEL<<<CONFIG>>> -> ::cuda_emulation::launch(KERNEL, CONFIG); the (ARGS) after it stay."""
    pieces: list[str] = []
    cursor = 0  # text[:cursor] has been emitted
    search_from = 0
    while True:
        open_at = _find_in_code(text, mask, "<<<", search_from)
        if open_at < 0:
            break
        close_at = _matching_launch_close(text, mask, open_at + 3)
        kernel_start = _kernel_expression_start(text, mask, open_at, floor=cursor)
        kernel = text[kernel_start:open_at]
        config = text[open_at + 3 : close_at]
        if config.strip() == "":
            raise CudaTranslationError(f"line {_line_of(text, open_at)}: empty launch configuration")
        # Trailing blanks between the kernel and <<< carry no meaning; keep
        # any newlines among them so the line count does not change.
        kernel_text = kernel.rstrip()
        gap_newlines = kernel[len(kernel_text) :].count("\n")
        pieces.append(text[cursor:kernel_start])
        pieces.append(f"{LAUNCH_FUNCTION}({kernel_text}, {config})" + "\n" * gap_newlines)
        cursor = close_at + 3
        search_from = cursor
    pieces.append(text[cursor:])
    return "".join(pieces)


def _find_in_code(text: str, mask: bytearray, needle: str, start: int) -> int:
    i = text.find(needle, start)
    while i >= 0 and not all(mask[i : i + len(needle)]):
        i = text.find(needle, i + 1)
    return i


def _matching_launch_close(text: str, mask: bytearray, start: int) -> int:
    """Index of the '>>>' that closes a launch configuration begun at start."""
    depth = 0
    i = start
    n = len(text)
    while i < n:
        if not mask[i]:
            i += 1
            continue
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                break
        elif c == ";" and depth == 0:
            break
        elif depth == 0 and text.startswith(">>>", i):
            return i
        i += 1
    raise CudaTranslationError(f"line {_line_of(text, start)}: '<<<' without a matching '>>>'")


def _kernel_expression_start(text: str, mask: bytearray, end: int, floor: int) -> int:
    """Start of the kernel expression that ends right before text[end].

    Reads backwards over parts joined by '::', '.' or '->'. A part is a name
    with optional template arguments (``ns::template k<T, U>``) or a
    parenthesized expression, either followed by subscripts (``table[i]``).
    """
    i = _skip_space_back(text, end, floor)
    while True:
        while i > floor and text[i - 1] == "]":
            i = _skip_space_back(text, _matching_back(text, mask, i - 1, "[", "]", floor), floor)
        if i > floor and text[i - 1] == ")":
            i = _matching_back(text, mask, i - 1, "(", ")", floor)
        else:
            if i > floor and text[i - 1] == ">":
                i = _skip_space_back(text, _matching_back(text, mask, i - 1, "<", ">", floor), floor)
            name_end = i
            while i > floor and _is_name_char(text[i - 1]):
                i -= 1
            if i == name_end or text[i].isdigit():
                raise CudaTranslationError(f"line {_line_of(text, end)}: cannot find the kernel name before '<<<'")
            keyword_end = _skip_space_back(text, i, floor)
            keyword_start = keyword_end - len("template")
            if (keyword_end != i and keyword_start >= floor and text.startswith("template", keyword_start)
                    and (keyword_start == floor or not _is_name_char(text[keyword_start - 1]))):
                i = keyword_start
        start = i
        j = _skip_space_back(text, i, floor)
        if text[max(floor, j - 2) : j] == "::":
            start = j - 2  # a leading '::' belongs to the name
            k = _skip_space_back(text, start, floor)
            if k > floor and (_is_name_char(text[k - 1]) or text[k - 1] == ">"):
                i = k
                continue
            return start
        if text[max(floor, j - 2) : j] == "->":
            i = _skip_space_back(text, j - 2, floor)
            continue
        if j > floor and text[j - 1] == ".":
            i = _skip_space_back(text, j - 1, floor)
            continue
        return start


def _is_name_char(c: str) -> bool:
    return c.isalnum() or c == "_"


def _skip_space_back(text: str, i: int, floor: int) -> int:
    while i > floor and text[i - 1].isspace():
        i -= 1
    return i


def _matching_back(text: str, mask: bytearray, close_at: int, opener: str, closer: str, floor: int) -> int:
    """Index of the opener matching text[close_at] == closer, scanning backwards."""
    depth = 0
    i = close_at
    while i >= floor:
        if mask[i]:
            c = text[i]
            if c == closer:
                depth += 1
            elif c == opener:
                depth -= 1
                if depth == 0:
                    return i
        i -= 1
    raise CudaTranslationError(f"line {_line_of(text, close_at)}: unbalanced '{closer}' before '<<<'")


# --- other rewrites -----------------------------------------------------------


def _rewrite_in_code(
    text: str, mask: bytearray, pattern: re.Pattern[str], replacement: Callable[[re.Match[str]], str]
) -> str:
    """Applies `replacement` to the matches of `pattern` that start in code, keeping newlines."""
    pieces: list[str] = []
    cursor = 0
    for match in pattern.finditer(text):
        if not mask[match.start()] or match.start() < cursor:
            continue
        original = match.group(0)
        new = replacement(match)
        pieces.append(text[cursor : match.start()])
        pieces.append(new + "\n" * (original.count("\n") - new.count("\n")))
        cursor = match.end()
    pieces.append(text[cursor:])
    return "".join(pieces)


def _extern_shared_replacement(match: re.Match[str]) -> str:
    element = " ".join(_ALIGNMENT.sub(" ", match.group("type")).split())
    if not element:
        raise CudaTranslationError("extern __shared__ declaration without an element type")
    name = match.group("name")
    return f"{element}* const {name} = reinterpret_cast<{element}*>({DYNAMIC_SHARED_FUNCTION}());"


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1
