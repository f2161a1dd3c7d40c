"""libcst, the exact Python parser, behind the guards it needs.

explorer reads Python with tree-sitter (python.py, fast enough for every file of a tree) and
what values flow where from its facts (python_flow.py, the solver in resolve/flow/). libcst
reads exactly what tree-sitter's grammar has gaps in: a file the grammar stops in while
Python accepts it is read whole by libcst (python_grammar_gaps.py). It only parses: nothing is
imported or executed.

libcst is not trusted with every input. It rejects some valid Python (`else( 2 if d else 3)`
fails its own validation), its native parser overflows the C stack on deeply nested code
(a few thousand levels kill the process, which no `except` can catch), and its visitors
recurse in Python. So: the nesting of a source is measured first, from its tokens, and
code nested deeper than MAX_NESTING is never handed to libcst; any exception libcst raises
is UnreadableSource; and a walk over what it returns must not recurse a level per level of
nesting.
"""

from __future__ import annotations

import re

import libcst as cst

# Real code stays well below this: by nesting_depth's measure the deepest file of PyTorch 2.4
# reaches 65 (a chain of `elif`s), most stay under 20. libcst's native parser crashes the
# process at a few thousand levels (2,000 nested brackets, 9,000 `elif`s).
MAX_NESTING = 200


class UnreadableSource(Exception):
    """libcst cannot read the source (a syntax error, syntax newer than it knows, code
    it rejects, or code nested too deeply to hand to it)."""

    def __init__(self, reason: str, line: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line  # where libcst's parser stopped, counted from the source's first line


def nesting_depth(source: str) -> int:
    """How deeply the syntax of `source` nests, estimated from its tokens without parsing:
    - in an expression, each open bracket is a level, and so is each operator, keyword
      (`not`, `if`, `lambda`...), `.`, call or juxtaposed string since the last comma at
      that bracket level or the end of the statement (`a + b + c` nests two operations;
      `[-1, -1, -1]` nests only one under the list);
    - in statements, each `elif` is a level: libcst nests it in the `if` before it.
    Counting is linear in the length of the source, however deep it nests."""
    deepest = 0
    operators = [0]  # per open bracket level: operators since the last separator
    running = 0  # len(operators) - 1 + sum(operators), kept up to date
    previous = ""  # the kind of the previous token, to tell calls and adjacent strings
    elifs: dict[int, int] = {}  # indentation -> the `elif`s so far of the `if` there
    chained = 0  # sum(elifs.values()): the `elif`s the current statement is nested in
    line_start = 0  # where the current line begins, while its first token is awaited; else -1
    for match in _TOKEN.finditer(source):
        kind = match.lastgroup
        if line_start >= 0 and kind in ("word", "open", "string", "operator", "close", "separator"):
            column = match.start() - line_start
            line_start = -1
            for indent in [indent for indent in elifs if indent > column]:  # blocks that ended
                del elifs[indent]
            if kind == "word" and match.group() in ("if", "elif"):
                elifs[column] = elifs.get(column, 0) + 1 if match.group() == "elif" else 0
            chained = sum(elifs.values())
        if kind == "open":
            if previous in ("word", "close", "string"):  # a call or subscript nests its callee
                operators[-1] += 1
                running += 1
            operators.append(0)
            running += 1
        elif kind == "close":
            if len(operators) > 1:
                running -= operators.pop() + 1
        elif kind == "separator" or (kind == "newline" and len(operators) == 1):
            running -= operators[-1]
            operators[-1] = 0
            if kind == "newline":
                line_start = match.end()
        elif (
            kind == "operator"
            or (kind == "word" and match.group() in _OPERATOR_WORDS)
            or (kind == "string" and previous == "string")
        ):
            operators[-1] += 1
            running += 1
        deepest = max(deepest, running + chained)
        if kind == "string" and "f" in match.group("prefix").lower():
            # an f-string's fields are expressions libcst parses: measured the same way (an
            # f-string inside one needs other quotes, so this recurses a few levels at most)
            quoted = match.group("quoted")
            width = 3 if quoted[:3] in ("'''", '"""') else 1
            deepest = max(deepest, running + chained + nesting_depth(quoted[width:-width]))
        previous = kind or ""
    return deepest


_OPERATOR_WORDS = frozenset({"not", "and", "or", "if", "else", "lambda", "await", "in", "is", "for", "yield"})
_TOKEN = re.compile(
    r"""(?P<string>(?P<prefix>[rRbBuUfF]{0,2})(?P<quoted>'''(?:\\[\s\S]|[^\\])*?'''|\"\"\"(?:\\[\s\S]|[^\\])*?\"\"\"|'(?:\\[\s\S]|[^'\\\n])*'|"(?:\\[\s\S]|[^"\\\n])*"))
      |(?P<comment>\#[^\n]*)
      |(?P<continuation>\\\n)
      |(?P<open>[(\[{])
      |(?P<close>[)\]}])
      |(?P<separator>[,;])
      |(?P<newline>\n)
      |(?P<word>[^\W\d]\w*)
      |(?P<operator>\*\*|//|<<|>>|[-+*/%@&|^~<>=!.]+)
    """,
    re.VERBOSE,
)


def parse_module(source: str) -> cst.Module:
    """The module libcst reads in the source, or UnreadableSource."""
    depth = nesting_depth(source)
    if depth > MAX_NESTING:
        raise UnreadableSource(f"nested about {depth} levels deep (libcst is given at most {MAX_NESTING})")
    try:
        return cst.parse_module(source)
    except Exception as error:  # ParserSyntaxError, CSTValidationError, RecursionError, MemoryError...
        raise _unreadable(error) from None


_PARSER_STOP = re.compile(r"error at (\d+):\d+")


def _unreadable(error: Exception) -> UnreadableSource:
    """libcst's complaint in a few words: its parser's stops as a line, other errors by the
    first line of their message (CSTValidationError's says what it objects to)."""
    if isinstance(error, cst.ParserSyntaxError):
        # its message's "error at 3:13" names the line read last; raw_line can be the next one
        stop = _PARSER_STOP.search(str(error))
        return UnreadableSource("libcst's parser stops", int(stop.group(1)) if stop else error.raw_line)
    lines = str(error).strip().splitlines()
    return UnreadableSource("libcst: " + (lines[0].strip().rstrip(".") if lines else type(error).__name__))
