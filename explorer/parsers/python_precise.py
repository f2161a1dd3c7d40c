"""Precise facts about one Python definition, read with libcst when a query needs them, and
libcst's reading of a whole file where tree-sitter's grammar has a gap (python_grammar_gaps.py).

What a local name holds is the value-flow solver's to say (resolve/flow/, from python_flow.py's
facts). A query asks libcst only about module-level assignments that build functions:
- which names a module-level assignment passes to the call on its right
  (`max_pool2d = boolean_dispatch(if_true=max_pool2d_with_indices, if_false=_max_pool2d)`);
- the factory's call and the factory's shape, to tell which branch a plain call takes.
libcst is about ten times slower than tree-sitter, so a query has it read only the lines of
the one definition it reaches (the index says where it starts and ends), and indexing a
whole file only where the grammar stopped in valid Python. It only parses: nothing is
imported or executed.

libcst is not trusted with every input. It rejects some valid Python (`else( 2 if d else 3)`
fails its own validation), its native parser overflows the C stack on deeply nested code
(a few thousand levels kill the process, which no `except` can catch), and its visitors
recurse in Python. So: the nesting of a definition is measured first, from its tokens, and
code nested deeper than MAX_NESTING is never handed to libcst; any exception libcst raises
is UnreadableSource; and the walks here over what it returns are loops, not recursion.
"""

from __future__ import annotations

import re

import libcst as cst

# Real code stays well below this: by nesting_depth's measure the deepest file of PyTorch 2.4
# reaches 65 (a chain of `elif`s), most stay under 20. libcst's native parser crashes the
# process at a few thousand levels (2,000 nested brackets, 9,000 `elif`s).
MAX_NESTING = 200


class UnreadableSource(Exception):
    """libcst cannot read the definition (a syntax error, syntax newer than it knows, code
    it rejects, or code nested too deeply to hand to it)."""

    def __init__(self, reason: str, line: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line  # where libcst's parser stopped, counted from the source's first line


def passed_names(statement_source: str) -> tuple[str, ...]:
    """The dotted names an assignment `x = f(a, b=c)` passes to the call on its right."""
    passed: list[str] = []
    module = parse_module(statement_source)
    try:
        for statement in module.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                value = small.value if isinstance(small, (cst.Assign, cst.AnnAssign)) else None
                if isinstance(value, cst.Call):
                    passed += [name for argument in value.args if (name := dotted(argument.value)) is not None]
    except Exception as error:
        raise _unreadable(error) from None
    return tuple(dict.fromkeys(passed))


def factory_arguments(statement_source: str) -> tuple[str, tuple[tuple[str | None, str], ...]] | None:
    """An assignment `x = f(a, b=c, default=False)`: the callee's dotted name, and each
    argument by keyword (None for a positional one) as a dotted name or a literal's text
    (`False`, `3`, `'return_indices'`); "" for any other expression. None for another shape."""
    module = parse_module(statement_source)
    try:
        statement = module.body[0] if module.body else None
        small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and statement.body else None
        value = small.value if isinstance(small, (cst.Assign, cst.AnnAssign)) else None
        callee = dotted(value.func) if isinstance(value, cst.Call) else None
        if not isinstance(value, cst.Call) or callee is None:
            return None
        arguments = tuple(
            (argument.keyword.value if argument.keyword is not None else None, _argument_text(argument.value))
            for argument in value.args
        )
    except Exception as error:
        raise _unreadable(error) from None
    return callee, arguments


def _argument_text(value: cst.BaseExpression) -> str:
    if isinstance(value, cst.Name) and value.value in ("True", "False", "None"):
        return value.value
    if isinstance(value, (cst.Integer, cst.SimpleString)):
        return value.value
    return dotted(value) or ""


def boolean_branches(factory_source: str) -> tuple[tuple[str, ...], str, str, str] | None:
    """A factory that returns an inner function choosing between two of its parameters by a
    flag that starts as a third (torch._jit_internal.boolean_dispatch: `dispatch_flag =
    default`, then `if dispatch_flag: return if_true(...) else: return if_false(...)`): the
    factory's parameters, and those for the flag's start, the true branch and the false
    branch. None for any other shape."""
    module = parse_module(factory_source)
    try:
        factory = module.body[0] if module.body else None
        if not isinstance(factory, cst.FunctionDef):
            return None
        parameters = [p.name.value for p in factory.params.params]
        inner_functions = {s.name.value: s for s in factory.body.body if isinstance(s, cst.FunctionDef)}
        returned = [
            small.value.value
            for small in _own_small_statements(factory.body)
            if isinstance(small, cst.Return) and isinstance(small.value, cst.Name)
        ]
        inner = inner_functions.get(returned[-1]) if returned else None
        if inner is None:
            return None
        starts: dict[str, str] = {}
        for small in _own_small_statements(inner.body):
            if (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)
            ):
                name = small.targets[0].target.value
                if name not in starts and isinstance(small.value, cst.Name):
                    starts[name] = small.value.value
        body: list[cst.BaseStatement] = [
            statement for statement in inner.body.body if isinstance(statement, cst.BaseStatement)
        ]
        for index, statement in enumerate(body):
            if not isinstance(statement, cst.If) or not isinstance(statement.test, cst.Name):
                continue
            flag = statement.test.value
            true_branch = _returned_call(statement.body)
            if isinstance(statement.orelse, cst.Else):
                false_branch = _returned_call(statement.orelse.body)
            else:  # `if flag: return if_true(...)` and then `return if_false(...)`
                false_branch = (
                    _returned_call(cst.IndentedBlock(body=body[index + 1 : index + 2]))
                    if statement.orelse is None
                    else None
                )
            start = starts.get(flag)
            if start in parameters and true_branch in parameters and false_branch in parameters:
                return tuple(parameters), start, true_branch, false_branch
    except Exception as error:
        raise _unreadable(error) from None
    return None


def _returned_call(block: cst.BaseSuite) -> str | None:
    """The name a block's last statement returns a call of (`return if_true(*args, **kwargs)`)."""
    statements = block.body if isinstance(block, cst.IndentedBlock) else []
    last = statements[-1] if statements else None
    small = last.body[-1] if isinstance(last, cst.SimpleStatementLine) and last.body else None
    if isinstance(small, cst.Return) and isinstance(small.value, cst.Call) and isinstance(small.value.func, cst.Name):
        return small.value.func.value
    return None


def dotted(expression: cst.BaseExpression | None) -> str | None:
    """`a.b.c` as text; None for anything that is not a plain dotted name."""
    parts: list[str] = []
    while isinstance(expression, cst.Attribute):  # a loop: `a.b.c...` may be thousands long
        parts.append(expression.attr.value)
        expression = expression.value
    if not isinstance(expression, cst.Name) or expression.value in ("True", "False", "None"):
        return None
    parts.append(expression.value)
    return ".".join(reversed(parts))


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
    """The module libcst reads in the source (dedented), or UnreadableSource."""
    source = _dedented(source)
    depth = nesting_depth(source)
    if depth > MAX_NESTING:
        raise UnreadableSource(f"nested about {depth} levels deep (libcst is given at most {MAX_NESTING})")
    try:
        return cst.parse_module(source)
    except Exception as error:  # ParserSyntaxError, CSTValidationError, RecursionError, MemoryError...
        raise _unreadable(error) from None


_PARSER_STOP = re.compile(r"error at (\d+):\d+")


def _dedented(source: str) -> str:
    """A nested definition's lines without the indentation of its first line, so that it
    parses as a module. Lines that do not begin with that indentation are left as they are:
    inside a string or brackets they may start anywhere (textwrap.dedent would then
    remove nothing, and the definition would not parse)."""
    lines = source.splitlines(keepends=True)
    first = next((line for line in lines if line.strip()), "")
    indent = first[: len(first) - len(first.lstrip(" \t"))]
    if not indent:
        return source
    return "".join(line[len(indent) :] if line.startswith(indent) else line for line in lines)


def _unreadable(error: Exception) -> UnreadableSource:
    """libcst's complaint in a few words: its parser's stops as a line, other errors by the
    first line of their message (CSTValidationError's says what it objects to)."""
    if isinstance(error, cst.ParserSyntaxError):
        # its message's "error at 3:13" names the line read last; raw_line can be the next one
        stop = _PARSER_STOP.search(str(error))
        return UnreadableSource("libcst's parser stops", int(stop.group(1)) if stop else error.raw_line)
    lines = str(error).strip().splitlines()
    return UnreadableSource("libcst: " + (lines[0].strip().rstrip(".") if lines else type(error).__name__))


def _own_small_statements(body: cst.BaseSuite) -> list[cst.BaseSmallStatement]:
    """The simple statements of a function body, in source order, including those inside
    its `if`, `for`, `with`, `try` and `match` blocks, but not those of the functions and
    classes defined in it (their locals are their own). A loop over statements: the
    expressions in them are never entered."""
    found: list[cst.BaseSmallStatement] = []
    pending: list[cst.CSTNode] = [body]
    while pending:
        node = pending.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            continue
        if isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            found.extend(node.body)
            continue
        if isinstance(node, _STATEMENT_HOLDERS):
            pending.extend(reversed([child for child in node.children if isinstance(child, _STATEMENT_HOLDERS)]))
    return found


_STATEMENT_HOLDERS = (
    cst.BaseSuite,
    cst.BaseStatement,
    cst.Else,
    cst.ExceptHandler,
    cst.ExceptStarHandler,
    cst.Finally,
    cst.MatchCase,
)
