"""The preprocessor stage of reading a C++ file: a file's own macros expanded where it
invokes them, into the text tree-sitter reads, with every line where it was.

    source --(directives: #define, #undef, #if in source order)--> which macro a name means where
           --(invocations: cpp_macros.Expander, by the C standard's rescanning rules)--> tokens
           --(layout: each expansion written over its invocation)--> text, position map

What counts as a macro at a place in the file:
- every `#define` of the file, from its line on, until an `#undef` of it or the end of the
  file; inside a function body too (a local helper, `#define HANDLE_CASE(n) ...`), and a
  later `#define` of the same name replaces it from there on;
- both sides of every `#if` are read, as tree-sitter reads both: a `#define` in any branch
  counts. Where alternative branches of one conditional define a name differently
  (`#ifdef USE_ROCM #define WARP 64 #else #define WARP 32 #endif`), code after the
  conditional gets the first branch's definition, as if the first branch were the one
  compiled; code inside a branch gets that branch's own. No choice is right for every
  build; this one is the same for every reader and never mixes two branches in one place.
- macros of other files (`#include`d headers) are not known: their invocations stay as
  written, and the grammar reads them as calls.

Lines never move. An expansion is written on the line of its invocation; a token of an
argument that follows the token before it in the file from an earlier line is written on its
own line (the calls in a lambda handed to a macro keep their lines), and the expansion ends
with the line breaks the invocation spanned, so every line after it is where it was and a
tree-sitter row is the file's line. Directive lines inside an invocation (an `#if` among its arguments) are kept on
their lines. Places are mapped back (PositionMap): a token of the file to its own line and
column, a token a macro body made to the invocation's.

Bounded: each file may expand to expansion_budget() bytes, and the work of expanding
(every token substituted, at every level, and every token read for an invocation) is
bounded by the same figure; an invocation past it, one whose argument list never closes,
one whose arguments nest invocations too deep, and everything after it are left as
written, with a diagnostic.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from explorer.parsers.cpp_macros import (
    MAX_ARGUMENT_DEPTH,
    Abandoned,
    Budget,
    Expander,
    Macro,
    Pending,
    Token,
    read_definition,
    token_at,
)


def expansion_budget(source: bytes) -> int:
    """How many bytes a file's macro invocations may expand to in all. Real files reach about
    twelve times their size (PyTorch's embedding kernels); a few hundred bytes of nested
    macros could otherwise stand for millions of definitions."""
    return 16 * len(source) + 64 * 1024


@dataclass(frozen=True, slots=True)
class Invocation:
    """An invocation of a macro in the file, as the file writes it, replaced by its expansion."""

    name: str
    function_like: bool
    start: int  # where its expansion begins in the preprocessed text (a space before the first token)
    end: int
    line: int
    column: int
    written: str  # the invocation as the file writes it
    spaced: bool  # the file writes white space before it


class PositionMap:
    """Places in the preprocessed text back to the file's, on the lines an expansion changed.
    On such a line, each entry says from which column on the text maps how: text of the file
    written where it was (`exact`) maps to its own line and column, shifted by how far the
    expansion before it moved it; a token written elsewhere (a macro body's, at its
    invocation; an argument used twice) maps to the one place it stands for."""

    def __init__(self) -> None:
        self._rows: dict[int, tuple[list[int], list[int], list[int], list[bool]]] = {}

    def add(self, row: int, column: int, line: int, original: int, exact: bool) -> None:
        entries = self._rows.setdefault(row, ([], [], [], []))
        columns, lines, originals, exacts = entries
        if (
            columns
            and exacts[-1] == exact
            and lines[-1] == line
            and (originals[-1] - columns[-1] == original - column if exact else originals[-1] == original)
        ):
            return  # the entry before maps this column the same way
        columns.append(column)
        lines.append(line)
        originals.append(original)
        exacts.append(exact)

    def __contains__(self, row: int) -> bool:
        return row in self._rows

    def at(self, row: int, column: int) -> tuple[int, int]:
        """The file's line and column of the preprocessed text's `row` and `column`."""
        entries = self._rows.get(row)
        if entries is None:
            return row, column
        columns, lines, originals, exacts = entries
        index = bisect.bisect_right(columns, column) - 1
        if index < 0:
            return row, column
        if exacts[index]:
            return lines[index], originals[index] + (column - columns[index])
        return lines[index], originals[index]


@dataclass
class Preprocessed:
    text: bytes  # what the grammar reads: the file's lines, expansions written over their invocations
    macros: list[Macro] = field(default_factory=list)  # every #define, in source order
    invocations: list[Invocation] = field(default_factory=list)
    positions: PositionMap = field(default_factory=PositionMap)
    diagnostics: list[str] = field(default_factory=list)


# Directives, and text that is not code. A directive runs to the end of its line, through line
# continuations and comments (which may hold line breaks). Comments and literals are found by
# their first character, then matched there (one pattern of alternatives tried at every
# position of a large file costs several times more). A character literal does not follow a
# name or a digit (`1'000` is a number).
_DIRECTIVE_REST = r"\#(?:\\\r?\n|/\*(?s:.*?)\*/|//[^\n]*|\"(?:\\(?s:.)|[^\"\\\n])*\"|[^\n])*"
_DIRECTIVE_LINE = re.compile(r"^[ \t]*" + _DIRECTIVE_REST, re.MULTILINE)
_DIRECTIVE_AT = re.compile(_DIRECTIVE_REST)
_NOT_CODE_START = re.compile(r"/[*/]|[\"']|R\"")
_NOT_CODE_AT = re.compile(
    r"/\*(?s:.*?)(?:\*/|\Z)|//(?:[^\n\\]|\\(?s:.))*"
    r"|R\"(?P<delimiter>[^()\\\s]{0,16})\((?s:.*?)\)(?P=delimiter)\""
    r"|\"(?:\\(?s:.)|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'"
)
_WORD_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")


def _not_code(text: str) -> list[tuple[int, int]]:
    """The spans of comments and string and character literals, in order."""
    spans: list[tuple[int, int]] = []
    search, match = _NOT_CODE_START.search, _NOT_CODE_AT.match
    position = 0
    while (found := search(text, position)) is not None:
        start = begin = found.start()
        before = text[start - 1] if start else ""
        if text[start] == "R":  # a raw string, after its prefix (u8R, LR): not the end of a name
            begin -= 2 if text[max(0, start - 2) : start] == "u8" else 1 if before in ("u", "U", "L") else 0
            if begin and text[begin - 1] in _WORD_CHARACTERS:
                position = start + 1
                continue
        elif text[start] == "'" and (before in _WORD_CHARACTERS or before == "'"):
            position = start + 1
            continue
        made = match(text, start)
        if made is None:
            position = start + 1
            continue
        spans.append((begin, made.end()))
        position = made.end()
    return spans


_HAS_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]", re.MULTILINE)
_DIRECTIVE_NAME = re.compile(r"[ \t]*#[ \t]*([a-z_]+)")
_CONTINUATION = re.compile(r"\\\r?\n")
_LEADING_NAME = re.compile(r"[ \t]*([A-Za-z_$][\w$]*)")
_SPACE = re.compile(r"(?:[ \t\r\n\f\v]|\\\r?\n|/\*(?s:.*?)(?:\*/|\Z)|//(?:[^\n\\]|\\(?s:.))*)*")
_NAME_START = re.compile(r"[A-Za-z_$]")

Path = tuple[tuple[int, int], ...]  # the conditionals around a place: (conditional, branch) each, outermost first


_CONTINUATIONS = (".", "->", ",", "&&", "||")


def _continued(text: str, end: int) -> bool:
    """Whether the code after a directive that ends at `end` (past white space, comments and
    other directives) goes on with the expression before it."""
    position = end
    while True:
        skipped = _SPACE.match(text, position)
        assert skipped is not None
        position = skipped.end()
        directive = _DIRECTIVE_AT.match(text, position)
        if directive is None:
            return text.startswith(_CONTINUATIONS, position) and not text.startswith("...", position)
        position = directive.end()


def _alternatives(one: Path, other: Path) -> bool:
    """Whether two places are in different branches of one conditional (never both compiled)."""
    for (group, branch), (other_group, other_branch) in zip(one, other):
        if group != other_group:
            return False
        if branch != other_branch:
            return True
    return False


@dataclass(slots=True)
class _Definition:
    offset: int  # where it takes effect: the end of its directive
    path: Path
    macro: Macro | None  # None: an #undef


class _Directives:
    """The file's directives read in order: conditionals (which branch each place is in),
    and the #define and #undef of each name."""

    def __init__(self, text: str, spans: list[tuple[int, int]], line_of: Callable[[int], int]) -> None:
        self.macros: list[Macro] = []
        self.definitions: dict[str, list[_Definition]] = {}
        # Each #define and #undef, and what the grammar reads in its place: its line breaks
        # alone where the code after it goes on with an expression (`.NS(kind)` continuing a
        # py::class_ chain: the grammar would take a directive for the end of the statement);
        # else the directive and its name (a directive still ends the statement before it,
        # as after `AT_FORALL_SCALAR_TYPES(CASE)`, written without a `;` for a macro of another
        # file; and it holds nothing to misread).
        self.erased: dict[int, tuple[int, str]] = {}
        self._path_starts: list[int] = [0]
        self._paths: list[Path] = [()]
        stack: list[tuple[int, int]] = []
        groups = 0
        for start, end in spans:
            header = _DIRECTIVE_NAME.match(text, start)
            kind = header.group(1) if header is not None else ""
            if kind in ("if", "ifdef", "ifndef"):
                groups += 1
                stack.append((groups, 0))
            elif kind in ("elif", "else", "elifdef", "elifndef") and stack:
                group, branch = stack.pop()
                stack.append((group, branch + 1))
            elif kind == "endif" and stack:
                stack.pop()
            elif kind in ("define", "undef") and header is not None:
                # lines spliced first, as the standard's phase 2 does (a `//` comment then runs
                # to the end of the directive); comments are white space to the tokenizer
                body = _CONTINUATION.sub("", text[header.end() : end])
                named = _LEADING_NAME.match(body)
                name = named.group(1) if named is not None else ""
                breaks = "\n" * text.count("\n", start, end)
                self.erased[start] = (end, breaks if _continued(text, end) else f"#{kind} {name}{breaks}")
                path = tuple(stack)
                if kind == "define":
                    macro = read_definition(body, line_of(start), line_of(max(start, end - 1)), start, end)
                    if macro is not None:
                        self.macros.append(macro)
                        self.definitions.setdefault(macro.name, []).append(_Definition(end, path, macro))
                elif name in self.definitions:
                    self.definitions[name].append(_Definition(end, path, None))
                continue
            else:
                continue
            self._path_starts.append(end)
            self._paths.append(tuple(stack))

    def path_at(self, offset: int) -> Path:
        return self._paths[bisect.bisect_right(self._path_starts, offset) - 1]

    def macro(self, name: str, offset: int, path: Path) -> Macro | None:
        """The definition of `name` in force at `offset`: the latest one before it that is not
        in a branch alternative to the place; where it has alternatives in the branches of
        an earlier conditional (each defined the name), the first of those."""
        entries = self.definitions.get(name)
        if not entries:
            return None
        chosen: _Definition | None = None
        for entry in reversed(entries):
            if entry.offset > offset or _alternatives(entry.path, path):
                continue
            if chosen is None:
                chosen = entry
            elif _alternatives(entry.path, chosen.path):
                chosen = entry  # an earlier branch of the same conditional: the first one wins
            else:
                break  # before the chosen one, and replaced by it
        return chosen.macro if chosen is not None else None


class _FileTokens:
    """The file's tokens from a place on, for an invocation whose arguments are in the file:
    white space, comments and directive lines skipped; each token at its own line and column."""

    def __init__(self, text: str, position: int, preprocessor: _Preprocessor) -> None:
        self.text = text
        self.position = position
        self.preprocessor = preprocessor
        self._next: tuple[Token, int] | None = None

    def __call__(self, consume: bool) -> Token | None:
        if self._next is None:
            self._next = self._read()
            if self._next is None:
                return None
        token, end = self._next
        if consume:
            self.position = end
            self._next = None
            self.preprocessor.budget.spend(1)
        return token

    def _read(self) -> tuple[Token, int] | None:
        text, preprocessor = self.text, self.preprocessor
        position = self.position
        spaced = False
        while True:
            skipped = _SPACE.match(text, position)
            assert skipped is not None
            spaced = spaced or skipped.end() > position
            position = skipped.end()
            directive_end = preprocessor.directive_at(position)
            if directive_end is None:
                break
            position, spaced = directive_end, True
        if position >= len(text):
            return None
        written, end = token_at(text, position)
        line = preprocessor.line_of(position)
        return Token(written, line, position - preprocessor.line_starts[line - 1], spaced, written=True), end


class _Preprocessor:
    """One file through the stage: directives read, invocations expanded in order, the text
    written out with each expansion over its invocation and each #define and #undef erased
    (the grammar has no use for them, and a comment in a long macro body derails its reading
    of the directive), every line break kept."""

    def __init__(self, source: bytes) -> None:
        self.text = source.decode("latin-1")  # one character per byte: offsets stay byte offsets
        self._line_starts: list[int] | None = None
        self._counted_to, self._counted_line = 0, 1
        self.limit = expansion_budget(source)
        self.budget = Budget(self.limit)  # the work of expanding
        self.output_budget = self.limit  # what the expansions write
        self.pieces: list[str] = []
        self.length = 0  # of the text in pieces
        self.written = 0  # the file's text before this offset is in pieces

    @property
    def line_starts(self) -> list[int]:
        """Where each line begins: made when an invocation needs lines and columns (a file
        whose macros are never invoked needs only its directives' lines)."""
        if self._line_starts is None:
            self._line_starts = [0, *(match.end() for match in re.finditer("\n", self.text))]
        return self._line_starts

    def line_of(self, offset: int) -> int:
        if self._line_starts is None and offset >= self._counted_to:  # directives, in order
            self._counted_line += self.text.count("\n", self._counted_to, offset)
            self._counted_to = offset
            return self._counted_line
        return bisect.bisect_right(self.line_starts, offset)

    def directive_at(self, offset: int) -> int | None:
        """The end of the directive that holds `offset`, if one does."""
        index = bisect.bisect_right(self._directive_starts, offset) - 1
        if index >= 0 and offset < self._directive_ends[index]:
            return self._directive_ends[index]
        return None

    def run(self) -> Preprocessed:
        text = self.text
        # Directives first by their lines alone; where no name a #define defines is written
        # anywhere else (a file's include guard, a flag for the headers it includes) there is
        # nothing to expand, and the scan for comments and strings, the costly part on a
        # large file, is not needed.
        directives = self._read_directives([match.span() for match in _DIRECTIVE_LINE.finditer(text)])
        skipped: list[tuple[int, int]] = []
        if any(text.count(name) > len(entries) for name, entries in directives.definitions.items()):
            # comments and literals, and the directives outside them (a #define in a raw
            # string of Metal source is not one)
            not_code = _not_code(text)
            starts = [start for start, _ in not_code]
            spans = []
            for span in zip(self._directive_starts, self._directive_ends):
                index = bisect.bisect_right(starts, span[0]) - 1
                if index < 0 or span[0] >= not_code[index][1] or not_code[index][0] >= span[0]:
                    spans.append(span)
            for span in sorted(not_code + spans):  # a literal inside a directive is in the directive
                if skipped and span[0] < skipped[-1][1]:
                    skipped[-1] = (skipped[-1][0], max(skipped[-1][1], span[1]))
                else:
                    skipped.append(span)
            directives = self._read_directives(spans)
        result = Preprocessed(b"", directives.macros)
        if skipped and directives.definitions:
            self._expand(directives, skipped, result)
        self._copy(len(text))
        result.text = "".join(self.pieces).encode("latin-1")
        return result

    def _read_directives(self, spans: list[tuple[int, int]]) -> _Directives:
        self._directive_starts = [start for start, _ in spans]
        self._directive_ends = [end for _, end in spans]
        directives = _Directives(self.text, spans, self.line_of)
        self._erased = directives.erased
        self._erased_order = sorted(directives.erased)
        self._next_erased = 0
        return directives

    def _expand(self, directives: _Directives, skipped: list[tuple[int, int]], result: Preprocessed) -> None:
        text = self.text
        skipped_starts = [start for start, _ in skipped]
        names = sorted(directives.definitions, key=len, reverse=True)
        candidates = re.compile(r"(?<![\w$])(?:" + "|".join(re.escape(name) for name in names) + r")(?![\w$])")
        shift: dict[int, int] = {}  # per line: how far the file's text after the last expansion on it moved
        position = 0
        for match in candidates.finditer(text):
            start = match.start()
            if start < position:
                continue  # inside an invocation already expanded
            index = bisect.bisect_right(skipped_starts, start) - 1
            if index >= 0 and start < skipped[index][1]:
                continue  # in a comment, a string or a directive
            name = match.group()
            path = directives.path_at(start)
            macro = directives.macro(name, start, path)
            if macro is None:
                continue
            line = self.line_of(start)
            column = start - self.line_starts[line - 1]

            def lookup(written_name: str, at: int = start, where: Path = path) -> Macro | None:
                return directives.macro(written_name, at, where)

            more = _FileTokens(text, match.end(), self)
            try:
                expanded = Expander(lookup, self.budget).expand(
                    Pending([Token(name, line, column, False, written=True)], more)
                )
                if len(expanded) == 1 and expanded[0].written and expanded[0].text == name:
                    position = match.end()
                    continue  # a function-like macro's name with no `(`: not an invocation
                replacement, entries, moved = self._layout(expanded, start, more.position, shift.get(line, 0))
            except Abandoned as stopped:
                if stopped.reason == "layout":
                    position = more.position
                    continue
                result.diagnostics.append(self._stopped(stopped.reason, name, line))
                return
            self.output_budget -= len(replacement)
            if self.output_budget < 0:
                result.diagnostics.append(self._stopped("budget", name, line))
                return
            end = position = more.position
            self._copy(start)
            result.invocations.append(
                Invocation(
                    name,
                    macro.parameters is not None,
                    self.length,
                    self.length + len(replacement),
                    line,
                    column,
                    text[start:end],
                    start > 0 and text[start - 1] in " \t\r\n",
                )
            )
            self.pieces.append(replacement)
            self.length += len(replacement)
            self.written = end
            for entry in entries:
                result.positions.add(*entry)
            shift[self.line_of(max(start, end - 1))] = moved

    def _copy(self, upto: int) -> None:
        """The file's text up to `upto` into the output, its #define and #undef lines erased."""
        text, order = self.text, self._erased_order
        while self._next_erased < len(order) and order[self._next_erased] < upto:
            start = order[self._next_erased]
            self._next_erased += 1
            if start < self.written:
                continue  # inside an invocation: the layout erased it
            end, replacement = self._erased[start]
            self._append(text[self.written : start])
            self._append(replacement)
            self.written = end
        self._append(text[self.written : upto])
        self.written = max(self.written, upto)

    def _append(self, piece: str) -> None:
        self.pieces.append(piece)
        self.length += len(piece)

    def _stopped(self, reason: str, name: str, line: int) -> str:
        if reason == "unterminated":
            return f"the arguments of {name}( at line {line} never close; it and the rest of the file are not expanded"
        if reason == "depth":
            return (
                f"the arguments of {name}( at line {line} nest invocations more than {MAX_ARGUMENT_DEPTH} deep; "
                "it and the rest of the file are not expanded"
            )
        return (
            f"macro invocations expand past {self.limit:,} bytes (16 times the file, and 64 KiB) at line {line}; "
            "the rest are not expanded"
        )

    def _layout(
        self, tokens: list[Token], start: int, end: int, shift: int
    ) -> tuple[str, list[tuple[int, int, int, int, bool]], int]:
        """The text written over the invocation at [start, end): its tokens on its first line,
        a token that follows the one before it in the file from an earlier line on its own
        line, directive lines kept (a #define or #undef as an empty line), then
        the line breaks left to reach the invocation's last line, padded so the text after
        it keeps its column. With it, the position map's entries for it, and how far the text
        after it on its last line moved (`shift`: how far the text before it had moved)."""
        line_starts, text = self.line_starts, self.text
        row = self.line_of(start)
        last_row = self.line_of(max(start, end - 1))
        end_column = end - line_starts[last_row - 1]
        column = start - line_starts[row - 1] + shift + 1  # the expansion begins after a space
        pieces = [" "]
        entries: list[tuple[int, int, int, int, bool]] = []
        previous = " "
        directive_index = bisect.bisect_left(self._directive_starts, start)

        def advance(to_row: int) -> None:
            """On to the start of line `to_row`, writing the directives on the way."""
            nonlocal row, column, directive_index, previous
            while directive_index < len(self._directive_starts) and self._directive_starts[directive_index] < end:
                directive_start = self._directive_starts[directive_index]
                directive_row = self.line_of(directive_start)
                if directive_row > to_row:
                    break
                directive_index += 1
                if directive_row <= row:
                    continue
                directive = text[directive_start : self._directive_ends[directive_index - 1]]
                pieces.append("\n" * (directive_row - row))
                if directive_start in self._erased:
                    replacement = self._erased[directive_start][1]
                    pieces.append(replacement)
                    column = len(replacement) - replacement.rfind("\n") - 1
                else:
                    pieces.append(directive)
                    column = len(directive) - directive.rfind("\n") - 1
                row = directive_row + directive.count("\n")
            if row < to_row:
                pieces.append("\n" * (to_row - row))
                row, column = to_row, 0
            previous = "\n"

        before: Token | None = None
        blocks: list[bool] = []  # each open `{`: whether it opens a block of statements
        callees: list[str] = []  # each open `(`: the token before it
        closed = ""  # the callee of the `)` written last
        for token in tokens:
            written = token.text
            if (
                written == "}"
                and before is not None
                and before.text == ")"
                and blocks
                and blocks[-1]
                and _MACRO_NAME.fullmatch(closed)
            ):
                # `{ TORCH_CHECK(...) }`: a macro of another file used as a statement, its `;`
                # left to that macro's body; without it the grammar takes the block for an
                # initializer and loses the function around it
                pieces.append(";")
                column += 1
                previous = ";"
            # a token that goes on from the one before it in the file, to a later line (the
            # body of a lambda handed to the macro) is written on that line
            if (
                token.written
                and token.line > row
                and before is not None
                and before.written
                and before.line < token.line
            ):
                advance(token.line)
                if column < token.column:
                    pieces.append(" " * (token.column - column))
                    column = token.column
            elif (token.space and previous != " " and not _scoped(previous, written)) or _joins(previous, written):
                pieces.append(" ")
                column += 1
            exact = token.written and token.line == row
            if entries:  # the entry before may map this token already (PositionMap.add's test)
                entry_row, entry_column, entry_line, entry_original, entry_exact = entries[-1]
                if not (
                    entry_row == row
                    and entry_exact == exact
                    and entry_line == token.line
                    and (
                        entry_original - entry_column == token.column - column
                        if exact
                        else entry_original == token.column
                    )
                ):
                    entries.append((row, column, token.line, token.column, exact))
            else:
                entries.append((row, column, token.line, token.column, exact))
            pieces.append(written)
            if "\n" in written:  # a raw string across lines: only on the line it was written on
                if not exact:
                    raise Abandoned("layout")
                row += written.count("\n")
                column = len(written) - written.rfind("\n") - 1
            else:
                column += len(written)
            if written == "{":
                blocks.append(before is None or before.text in _BEFORE_BLOCK)
            elif written == "}" and blocks:
                blocks.pop()
            elif written == "(":
                callees.append(before.text if before is not None else "")
            elif written == ")" and callees:
                closed = callees.pop()
            previous, before = written, token
        if row > last_row:
            raise Abandoned("layout")
        advance(last_row)
        if column < end_column:
            pieces.append(" " * (end_column - column))
            column = end_column
        entries.append((row, column, row, end_column, True))
        return "".join(pieces), entries, column - end_column


# A block opens after these (or first in an expansion); a `{` after anything else may begin an
# initializer. An upper-case name with an underscore is a macro's, by PyTorch's habit.
_BEFORE_BLOCK = frozenset({")", "]", "{", "}", ";", ":", "else", "do", "try"})
_MACRO_NAME = re.compile(r"[A-Z][A-Z0-9]*_[A-Z0-9_]*")

# Words after which `::` begins a name of the global namespace (`return ::f(x)`), where a space
# must stay; after any other name, `::` goes on a qualified name.
_KEYWORDS = frozenset(
    [
        "alignof",
        "and",
        "auto",
        "bitand",
        "bitor",
        "bool",
        "case",
        "char",
        "char8_t",
        "char16_t",
        "char32_t",
        "class",
        "co_await",
        "co_return",
        "co_yield",
        "compl",
        "const",
        "constexpr",
        "decltype",
        "delete",
        "do",
        "double",
        "else",
        "enum",
        "explicit",
        "extern",
        "float",
        "friend",
        "goto",
        "inline",
        "int",
        "long",
        "mutable",
        "new",
        "noexcept",
        "not",
        "operator",
        "or",
        "private",
        "protected",
        "public",
        "register",
        "return",
        "short",
        "signed",
        "sizeof",
        "static",
        "struct",
        "template",
        "throw",
        "thread_local",
        "typedef",
        "typename",
        "union",
        "unsigned",
        "using",
        "virtual",
        "void",
        "volatile",
        "wchar_t",
        "xor",
    ]
)


def _scoped(previous: str, following: str) -> bool:
    """Whether a space a macro body writes in a qualified name (`&Node ::name`, as
    python_ir.cpp's NS macro does) is left out, so readers of the text see one name."""
    if following == "::":
        return bool(_NAME_START.match(previous)) and previous not in _KEYWORDS
    return previous == "::"


_JOINING_PAIRS = frozenset({"//", "/*", "++", "--"})


def _joins(previous: str, following: str) -> bool:
    """Whether two tokens written side by side would read as one (`a` `b`, `/` `/`)."""
    last, first = previous[-1:], following[:1]
    return (last in _WORD_CHARACTERS and first in _WORD_CHARACTERS) or last + first in _JOINING_PAIRS


def preprocess(source: bytes) -> Preprocessed:
    """The file as tree-sitter should read it: its own macros expanded, its lines in place."""
    if b"define" not in source or _HAS_DEFINE.search(source) is None:
        return Preprocessed(source)
    return _Preprocessor(source).run()
