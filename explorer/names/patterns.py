"""What a user types, checked before it reaches the index or a regular expression engine.

- Every query is at most MAX_QUERY_LENGTH characters: no name in a real tree comes close,
  and SQLite refuses GLOB and LIKE patterns past 50,000 bytes.
- `trace --to` takes a name or a regular expression. A name (`cudnnConvolutionForward`,
  `at::native::add`) means the definitions with exactly that name, not every name that
  contains it (`cudnnConvolutionForwardWorkspaceSize`); when the index has no definition of
  that name, it means any qualified name that contains it (`mkldnn`, `cublas`). Anything
  else is a regular expression, run by RE2, whose matching time is linear in the text: a
  pattern such as `(a+)+$` cannot backtrack for minutes as it does with Python's `re`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from explorer.errors import UsageError
from explorer.index import IndexReader
from explorer.model import Symbol, SymbolKind

if TYPE_CHECKING:
    import re2

MAX_QUERY_LENGTH = 1000

# identifiers joined by `.` or `::`: what --to treats as a name rather than a pattern
_PLAIN_NAME = re.compile(r"[^\W\d]\w*(?:(?:\.|::)[^\W\d]\w*)*")
_NAME_PARTS = re.compile(r"\.|::")
_NOT_TRACED = (SymbolKind.NAMESPACE, SymbolKind.MODULE)  # never a hop of a trace
_LOOKAROUND_OR_BACKREFERENCE = re.compile(r"\(\?<?[=!]|\\[1-9]|\(\?P=")  # what Python's re has and RE2 not


def checked_query(text: str, what: str = "query") -> str:
    """The text, if it is short enough to be a name; else a usage error."""
    if len(text) > MAX_QUERY_LENGTH:
        raise UsageError(f"the {what} is {len(text):,} characters long; at most {MAX_QUERY_LENGTH:,} are accepted")
    return text


class TargetKind(StrEnum):
    NAME = "name"  # the end of a qualified name, at a `.` or `::`
    PART = "part of a name"  # a name no definition has: anywhere in a qualified name
    REGEX = "regex"  # searched in the qualified name
    VENDOR = "any vendor API"  # a call into a vendor library (cuDNN, cuBLAS, the CUDA runtime...)


@dataclass(frozen=True, slots=True)
class TargetPattern:
    """`trace --to`, compiled: which qualified names end a path."""

    written: str  # as the user gave it
    kind: TargetKind
    regex: re2._Regexp | None = None  # for NAME and REGEX

    def matches(self, qname: str) -> bool:
        if self.regex is None:
            return self.written in qname
        return self.regex.search(qname) is not None

    def matches_symbol(self, symbol: Symbol) -> bool:
        if self.kind is TargetKind.VENDOR:
            return symbol.kind is SymbolKind.EXTERNAL
        return self.matches(symbol.qname)


VENDOR_TARGET = TargetPattern("any vendor API", TargetKind.VENDOR)


def matches_nothing(reader: IndexReader, target: TargetPattern) -> bool:
    """Whether no definition can match a --to written as part of a name: no name in the trees
    holds its last part. (A name some definition has matches by construction; a regular
    expression is tried as the trace goes.)"""
    if target.kind is not TargetKind.PART:
        return False
    last = _NAME_PARTS.split(target.written)[-1].lower()
    return not reader.names_matching_glob(f"*{last}*", 1)  # a plain name holds no GLOB character


def target_heading(written: str) -> str:
    """How `--to` reads in a heading: a name as written, a regular expression /between slashes/."""
    return written if _PLAIN_NAME.fullmatch(written) else f"/{written}/"


def target_pattern(reader: IndexReader, written: str) -> TargetPattern:
    checked_query(written, "--to pattern")
    if _PLAIN_NAME.fullmatch(written):
        name = _NAME_PARTS.split(written)[-1]
        if any(s.name == name and s.kind not in _NOT_TRACED for s in reader.symbols_named(name.lower())):
            return TargetPattern(written, TargetKind.NAME, _compile(rf"(?:^|\.|::){re.escape(written)}$"))
        return TargetPattern(written, TargetKind.PART)
    import re2  # `trace --to` alone

    try:
        return TargetPattern(written, TargetKind.REGEX, _compile(written))
    except re2.error as error:
        reason = (
            error.args[0].decode("utf-8", "replace") if error.args and isinstance(error.args[0], bytes) else str(error)
        )
        if _LOOKAROUND_OR_BACKREFERENCE.search(written):
            reason += " (--to runs RE2, which has no lookaround or backreferences: it matches in linear time)"
        raise UsageError(f"--to {written!r} is not a regular expression: {reason}") from None


def _compile(pattern: str) -> re2._Regexp:
    import re2

    options = re2.Options()
    options.log_errors = False  # RE2 would print its own message on stderr
    return re2.compile(pattern, options)
