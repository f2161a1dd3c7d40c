"""Macro expansion by the C preprocessor's rules (C11 6.10.3), on tokens.

One rule does all the work: an invocation is replaced by the macro's body with its
parameters substituted (each argument fully expanded first, unless it is next to `#` or
`##`; `#` makes a string of an argument as written, `##` pastes two tokens into one), and
the result is scanned again, together with the tokens that follow it, for more macros to
expand. While a macro's own replacement is rescanned the macro is disabled, and a name met
while its macro is disabled stays unexpanded for good (6.10.3.4 2). That is done with hide
sets (Prosser's algorithm, as in Dave Prosser's notes for X3J11): every token carries the
names of the macros that made it, and never invokes one of those.

Nested, variadic (`...`, `__VA_ARGS__`, GNU `name...` and `, ## __VA_ARGS__`, C++20
`__VA_OPT__`), pasted and stringized macros, macros whose arguments name the function to
call (`RUN_K(uint32_t, 2, mbtopk::launch)` expanding to `mbtopk::launch<scalar_t, ...>(...)`)
and object-like names that stand for function-like ones all follow from that rule. A
function-like macro's name not followed by `(` is left alone.

This module knows tokens and macros only: which definition a name means at a place in a
file, and where an expansion goes in the text, are the preprocessor's (cpp_preprocessor.py).
Work is bounded: every token an expansion makes is counted against a budget the caller
gives, and nesting of invocations inside arguments is limited; past either, the expansion
raises Abandoned and the caller leaves the invocation as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

NO_NAMES: frozenset[str] = frozenset()


class Token(NamedTuple):
    """One preprocessing token. `line` and `column` (1-based line, 0-based column, as the
    file counts them) say where a reader sees it: its own place for a token of the file,
    the invocation's place for one a macro body made (`written` is False then)."""

    text: str
    line: int
    column: int
    space: bool  # white space (or a comment, or a line break) before it
    hide: frozenset[str] = NO_NAMES  # macros this token may not invoke
    written: bool = False  # taken from the file's own text (an argument), not from a macro body


# A preprocessing token at a position (white space and comments are skipped before it).
# Raw strings first (their body may hold quotes and line breaks), then strings and
# characters (an unterminated one ends at the line), pp-numbers, names, punctuators longest
# first, then any other character.
_TOKEN = re.compile(
    r"""(?:u8|[uUL])?R"(?P<delimiter>[^()\\\s]{0,16})\((?s:.*?)\)(?P=delimiter)"
    |(?:u8|[uUL])?"(?:\\.|[^"\\\n])*"?
    |(?:u8|[uUL])?'(?:\\.|[^'\\\n])*'?
    |\.?[0-9](?:[eEpP][+-]|'[0-9A-Za-z_]|[0-9A-Za-z_.])*
    |[A-Za-z_$][\w$]*
    |\#\#|%:%:|\.\.\.|<<=|>>=|<=>|->\*|::|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||\.\*|[-+*/%&|^]=|\#
    |.""",
    re.VERBOSE,
)
_SPACE = re.compile(r"(?:[ \t\r\n\f\v]|\\\r?\n|/\*(?s:.*?)\*/|//(?:[^\n\\]|\\(?s:.))*)*")
_NAME = re.compile(r"[A-Za-z_$][\w$]*\Z")


def tokens_of(text: str, line: int = 0, column: int = 0) -> list[Token]:
    """The tokens of a piece of text that holds no directive (a macro body, a pasted
    spelling); every token gets the same place."""
    found: list[Token] = []
    position, length = 0, len(text)
    while True:
        skipped = _SPACE.match(text, position)
        assert skipped is not None  # the pattern matches the empty string
        start = skipped.end()
        if start >= length:
            return found
        match = _TOKEN.match(text, start)
        assert match is not None  # `.` matches any character but a line break, which _SPACE took
        found.append(Token(match.group(), line, column, start > position))
        position = match.end()


def token_at(text: str, position: int) -> tuple[str, int]:
    """The token that begins at `position` (not white space), and where it ends."""
    match = _TOKEN.match(text, position)
    assert match is not None
    return match.group(), match.end()


def is_name(text: str) -> bool:
    return bool(_NAME.match(text))


@dataclass(frozen=True, slots=True)
class Macro:
    """A `#define`: object-like when `parameters` is None. A variadic macro's last
    parameter is `__VA_ARGS__` (written `...`) or the name written before `...`. Its body
    is read into tokens when first expanded (most macros of a file never are)."""

    name: str
    parameters: tuple[str, ...] | None
    variadic: bool
    text: str  # the body as written, lines spliced
    line: int  # the directive's first and last lines
    end_line: int
    start: int  # its span in the file
    stop: int
    _body: list[tuple[Token, ...]] = field(default_factory=list, repr=False, compare=False)

    @property
    def body(self) -> tuple[Token, ...]:
        if not self._body:
            self._body.append(tuple(tokens_of(self.text)))
        return self._body[0]

    @property
    def written_parameters(self) -> tuple[str, ...]:
        """The parameters as the #define writes them (`...` for an unnamed variadic one)."""
        if self.parameters is None:
            return ()
        if self.variadic and self.parameters[-1] == "__VA_ARGS__":
            return (*self.parameters[:-1], "...")
        return self.parameters


_DEFINITION = re.compile(r"[ \t]*([A-Za-z_$][\w$]*)(\()?")


def read_definition(directive: str, line: int, end_line: int, start: int, stop: int) -> Macro | None:
    """The macro a `#define` directive defines; `directive` is the text after `define`, its
    lines already spliced. None for a malformed one."""
    header = _DEFINITION.match(directive)
    if header is None:
        return None
    name = header.group(1)
    if header.group(2) is None:  # object-like: `#define N (1)` has a space before `(`
        return Macro(name, None, False, directive[header.end() :], line, end_line, start, stop)
    closing = directive.find(")", header.end())
    if closing < 0:
        return None
    parameters = [part.strip() for part in directive[header.end() : closing].split(",")]
    if parameters == [""]:
        parameters = []
    variadic = bool(parameters) and parameters[-1].endswith("...")
    if variadic:
        named = parameters[-1][:-3].strip()
        parameters[-1] = named or "__VA_ARGS__"
    if not all(is_name(parameter) for parameter in parameters):
        return None
    return Macro(name, tuple(parameters), variadic, directive[closing + 1 :], line, end_line, start, stop)


class Abandoned(Exception):
    """An expansion that would pass its budget, or nest too deep: left as written."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# Invocations nested in the arguments of invocations, each expanded before it is
# substituted: real code nests a handful; the limit keeps a hostile file off Python's stack.
MAX_ARGUMENT_DEPTH = 64


class Budget:
    """How many tokens expansions may still make (each substituted token counts, at every
    level, so work that makes little output is bounded too)."""

    def __init__(self, tokens: int) -> None:
        self.tokens = tokens

    def spend(self, count: int) -> None:
        self.tokens -= count
        if self.tokens < 0:
            raise Abandoned("budget")


class Pending:
    """Tokens still to be scanned, the next one last (a stack, so a replacement goes in front
    in time proportional to its own length), and `more`: the file's next token, for an
    invocation whose `(` or arguments come after the tokens at hand (None where there is no
    more: an argument is expanded as if it were the rest of the file)."""

    def __init__(self, tokens: list[Token], more: Callable[[bool], Token | None] | None = None) -> None:
        self.stack = tokens[::-1]
        self.more = more

    def pop(self) -> Token | None:
        if self.stack:
            return self.stack.pop()
        return self.more(True) if self.more is not None else None

    def peek(self) -> Token | None:
        if self.stack:
            return self.stack[-1]
        return self.more(False) if self.more is not None else None

    def push(self, tokens: list[Token]) -> None:
        self.stack.extend(reversed(tokens))


class Expander:
    """Expands tokens with the macros `lookup` names (None: not a macro here)."""

    def __init__(self, lookup: Callable[[str], Macro | None], budget: Budget) -> None:
        self.lookup = lookup
        self.budget = budget
        self.depth = 0

    def expand(self, pending: Pending, stop_when_empty: bool = True) -> list[Token]:
        """Every token of `pending` with macros replaced, rescanned until none is left to
        expand. With `stop_when_empty` (an invocation in the file), the scan ends once the
        tokens at hand are used: the file is read on (`more`) only while an invocation
        needs its `(` or its arguments."""
        out: list[Token] = []
        while True:
            if stop_when_empty and not pending.stack:
                return out  # the file's tokens after this point are the caller's
            token = pending.pop()
            if token is None:
                return out
            text = token.text
            macro = self.lookup(text) if (text[0].isalpha() or text[0] in "_$") and text not in token.hide else None
            if macro is None:
                out.append(token)
                continue
            if macro.parameters is None:
                pending.push(self.substitute(macro, token, None, token.hide | {macro.name}))
                continue
            following = pending.peek()
            if following is None or following.text != "(":
                out.append(token)  # a function-like macro's name alone is no invocation
                continue
            collected = self.arguments(pending, macro)
            if collected is None:
                out.append(token)
                continue
            arguments, closing = collected
            pending.push(self.substitute(macro, token, arguments, (token.hide & closing.hide) | {macro.name}))

    def arguments(self, pending: Pending, macro: Macro) -> tuple[list[list[Token]], Token] | None:
        """The arguments of the invocation whose `(` is next, split at commas outside
        parentheses (only parentheses group: `F({a, b})` has two arguments), and the `)`.
        None when the list never closes (what was read is put back)."""
        taken: list[Token] = []
        arguments: list[list[Token]] = [[]]
        depth = 0
        while True:
            token = pending.pop()
            if token is None:
                if pending.more is not None:
                    raise Abandoned("unterminated")  # it would take the rest of the file
                pending.push(taken)
                return None
            taken.append(token)
            text = token.text
            if text == "(":
                depth += 1
                if depth == 1:
                    continue
            elif text == ")":
                depth -= 1
                if depth == 0:
                    break
            elif text == "," and depth == 1:
                arguments.append([])
                continue
            arguments[-1].append(token)
        self.budget.spend(len(taken))
        assert macro.parameters is not None
        count = len(macro.parameters)
        if macro.variadic and len(arguments) > count:
            arguments = [*arguments[: count - 1], _joined(arguments[count - 1 :])]  # the rest, commas and all
        if count == 0 and arguments == [[]]:
            arguments = []
        return arguments, token

    def substitute(
        self, macro: Macro, invoked: Token, arguments: list[list[Token]] | None, hide: frozenset[str]
    ) -> list[Token]:
        """The body of `macro` with its parameters replaced and `#`, `##` and `__VA_OPT__`
        applied, every token given `hide`. A token of the body is placed at the invocation;
        a token of an argument keeps its place."""
        body = macro.body
        values: dict[str, list[Token]] = {}
        if macro.parameters is not None and arguments is not None:
            for number, parameter in enumerate(macro.parameters):
                values[parameter] = arguments[number] if number < len(arguments) else []
        variadic = macro.parameters[-1] if macro.variadic and macro.parameters else None
        expanded: dict[str, list[Token]] = {}
        result: list[Token] = []
        pasting = False  # the token before was `##`: the next operand pastes onto result[-1]
        index, length = 0, len(body)
        while index < length:
            token = body[index]
            text = token.text
            following = body[index + 1].text if index + 1 < length else None
            if text == "##" and 0 < index < length - 1:
                pasting = True
                index += 1
                continue
            if values and text == "#" and following in values:
                operand = [Token(_stringized(values[following]), invoked.line, invoked.column, token.space)]
                index += 2
            elif text == "__VA_OPT__" and variadic is not None and following == "(":
                end = _closing(body, index + 1)
                operand = (
                    self._parameters_replaced(body[index + 2 : end], invoked, values, expanded)
                    if values.get(variadic)
                    else []
                )
                index = end + 1
            elif text in values:
                if pasting and not values[text] and text == variadic and result and result[-1].text == ",":
                    result.pop()  # GNU `, ## __VA_ARGS__` with no variadic argument: no comma either
                    pasting = False
                    index += 1
                    continue
                operand = list(values[text]) if pasting or following == "##" else self._expanded(values, expanded, text)
                if operand and operand[0].space != token.space:
                    first = operand[0]
                    operand[0] = Token(first.text, first.line, first.column, token.space, first.hide, first.written)
                index += 1
            else:
                operand = [Token(text, invoked.line, invoked.column, token.space)]
                index += 1
            if not operand and following == "##":
                operand = [_PLACEMARKER]
            if pasting:
                pasting = False
                left = result.pop() if result else _PLACEMARKER
                first = operand[0] if operand else _PLACEMARKER
                if left is _PLACEMARKER or first is _PLACEMARKER:
                    merged = [first if left is _PLACEMARKER else left]
                else:
                    merged = _pasted(left, first, invoked)
                result.extend(merged)
                result.extend(operand[1:])
            else:
                result.extend(operand)
        result = [
            Token(text, line, column, space, hidden | hide if hidden else hide, written)
            for text, line, column, space, hidden, written in result
            if text
        ]  # placemarkers (empty) go
        self.budget.spend(len(result))
        return result

    def _parameters_replaced(
        self,
        tokens: tuple[Token, ...],
        invoked: Token,
        values: dict[str, list[Token]],
        expanded: dict[str, list[Token]],
    ) -> list[Token]:
        """The inside of `__VA_OPT__(...)`: parameters replaced by their expanded arguments."""
        result: list[Token] = []
        for token in tokens:
            if token.text in values:
                result.extend(self._expanded(values, expanded, token.text))
            else:
                result.append(Token(token.text, invoked.line, invoked.column, token.space))
        return result

    def _expanded(
        self, values: dict[str, list[Token]], expanded: dict[str, list[Token]], parameter: str
    ) -> list[Token]:
        """An argument fully macro-expanded (once per invocation, however often it is used)."""
        done = expanded.get(parameter)
        if done is None:
            if self.depth >= MAX_ARGUMENT_DEPTH:
                raise Abandoned("depth")
            self.depth += 1
            try:
                done = expanded[parameter] = self.expand(Pending(list(values[parameter])), stop_when_empty=False)
            finally:
                self.depth -= 1
        return list(done)


_COMMA = Token(",", 0, 0, False)
_PLACEMARKER = Token("", 0, 0, False)  # an empty argument beside `##` (6.10.3.3 2)


def _joined(arguments: list[list[Token]]) -> list[Token]:
    joined: list[Token] = []
    for number, argument in enumerate(arguments):
        if number:
            joined.append(_COMMA)
        joined.extend(argument)
    return joined


def _closing(body: tuple[Token, ...], opening: int) -> int:
    depth = 0
    for index in range(opening, len(body)):
        if body[index].text == "(":
            depth += 1
        elif body[index].text == ")":
            depth -= 1
            if depth == 0:
                return index
    return len(body) - 1


def _stringized(tokens: list[Token]) -> str:
    """`#x`: the argument as written, one space where it had white space, with `"` and `\\`
    escaped inside string and character literals."""
    parts: list[str] = []
    for number, token in enumerate(tokens):
        if number and token.space:
            parts.append(" ")
        text = token.text
        if text[-1:] in "\"'" and ('"' in text or "'" in text):
            text = text.replace("\\", "\\\\").replace('"', '\\"')
        parts.append(text)
    return '"' + "".join(parts) + '"'


def _pasted(left: Token, right: Token, invoked: Token) -> list[Token]:
    """`a ## b`: one token spelled as both (a paste that makes no valid token, which C leaves
    undefined, gives the tokens its spelling reads as)."""
    made = tokens_of(left.text + right.text)
    if not made:
        return []
    where = left if left.written else invoked
    return [
        Token(
            token.text,
            where.line,
            where.column,
            left.space if number == 0 else token.space,
            left.hide & right.hide,
            False,
        )
        for number, token in enumerate(made)
    ]


def call_end(source: bytes, open_paren: int) -> int | None:
    """Where the parenthesised list whose `(` is at `open_paren` ends (None: it never closes).
    Nested brackets and string literals are respected."""
    depth = 0
    position = open_paren
    length = len(source)
    while position < length:
        char = source[position]
        if char in b"([{":
            depth += 1
        elif char in b")]}":
            depth -= 1
            if depth == 0:
                return position + 1
        elif char in b"\"'":
            closing = position + 1
            while closing < length and source[closing] != char:
                closing += 2 if source[closing] == 92 else 1  # a backslash escapes the next byte
            position = closing
        position += 1
    return None
