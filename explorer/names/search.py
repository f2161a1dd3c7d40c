"""IDE-style symbol search: what an editor's go-to-symbol box does, across three languages.

Ranking, best first:
1. tiers: the exact name with the same case, the exact name in any case, a prefix, words
   (the query is a run of word prefixes: `cudnn_conv` -> `cudnn_convolution_forward`),
   a substring, and last a subsequence (`cudnnconvfwd` -> `cudnnConvolutionForward`);
2. within a tier, a score that rewards matches at word starts and consecutive characters;
3. among exact and prefix matches, library code before tests, examples and benchmarks;
4. within a tier, operators and the C++ kernels their dispatch tables name first;
5. then type stubs after code, kinds a reader looks for first (classes, functions,
   operators) before variables and namespaces, shorter qualified names, and the name itself,
   so the order is total and the same every time.
Words split at `_`, at lower-to-upper case changes, at digits, and at `.` / `::` in paths.

A query with a path (`nn.Conv2d`, `at::native::conv`) matches its last part as a name, and
each earlier part must begin a component of the qualified name, in order; within a tier,
shallower qualified names come first. A query is text, not a pattern: `*`, `?` and `[`
match themselves.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum

from explorer.index import IndexReader
from explorer.model import Key, Language, Symbol, SymbolKind
from explorer.names.extensions import extension_modules
from explorer.names.patterns import checked_query

_PREFIX_CAP = 2000
_FUZZY_CAP = 1500
_FETCH_GROUP = 50  # names whose symbols are fetched in one query
_GLOB_LETTERS = 128  # of a query, used to narrow the fuzzy scan; few names are this long
_WORD_START = re.compile(r"(?<=[_.:\-])[A-Za-z0-9]|(?<=[a-z])[A-Z]|(?<=[A-Za-z])[0-9]|(?<=[A-Z])[A-Z](?=[a-z])|^.")
_PATH_SEPARATOR = re.compile(r"::|\.")
_SEPARATORS = re.compile(r"[_.:\-]")
# Code around a library rather than in it: tests, benchmarks, examples, mobile demos, docs.
PERIPHERAL_PATH = re.compile(
    r"(^|/)(tests?|testing|benchmarks?|examples?|android|ios|docs|scripts)(/|$)|(^|/)test_[^/]*$|_test\.\w+$"
)

_KIND_ORDER = {
    SymbolKind.CLASS: 0,
    SymbolKind.STRUCT: 0,
    SymbolKind.OPERATOR: 0,
    SymbolKind.FUNCTION: 1,
    SymbolKind.ALIAS: 1,
    SymbolKind.KERNEL: 1,
    SymbolKind.STRUCTURED_KERNEL: 1,
    SymbolKind.EXTERNAL: 1,
    SymbolKind.METHOD: 2,
    SymbolKind.META_FUNCTION: 3,
    SymbolKind.DISPATCH_STUB: 3,
    SymbolKind.DISPATCH_REGISTRATION: 3,
    SymbolKind.ENUM: 3,
    SymbolKind.MODULE: 4,
    SymbolKind.VARIABLE: 5,
    SymbolKind.FIELD: 5,
    SymbolKind.NAMESPACE: 6,
}


class MatchTier(IntEnum):
    EXACT_CASE = 0
    EXACT = 1
    PREFIX = 2
    WORDS = 3
    SUBSTRING = 4
    SUBSEQUENCE = 5


@dataclass(frozen=True, slots=True)
class SearchHit:
    symbol: Symbol
    tier: MatchTier
    score: float  # higher is better, within a tier


@dataclass(frozen=True, slots=True)
class SearchFilter:
    kind: SymbolKind | None = None
    lang: Language | None = None


def search_symbols(
    reader: IndexReader, query: str, limit: int = 20, where: SearchFilter = SearchFilter()
) -> list[SearchHit]:
    """The best `limit` symbols for `query`, best first.

    Candidates are distinct names, graded first; symbols are fetched only for the best names.
    Exact and prefix matches come from the name index; the scan for word, substring and
    subsequence matches runs only when those cannot fill the result, since every match it
    finds ranks below them.
    """
    query = checked_query(query.strip())
    parts = [part for part in _PATH_SEPARATOR.split(query) if part]
    if not parts:
        return []
    name_query, qualifiers = parts[-1], [part.lower() for part in parts[:-1]]
    lowered = name_query.lower()

    hits: dict[Key, SearchHit] = {}
    seen_names: set[str] = set()
    phases: tuple[Callable[[], list[str]], ...] = (
        lambda: reader.names_with_prefix(lowered, _PREFIX_CAP),
        lambda: reader.names_matching_glob(_letters_in_order(lowered), _FUZZY_CAP),
    )
    for candidates in phases:
        graded = []
        for name in candidates():
            if name in seen_names:
                continue
            seen_names.add(name)
            grading = grade(name_query, name)
            if grading is not None:
                graded.append((grading, name))
        _collect(reader, name_query, graded, qualifiers, where, limit, hits)
        if len(hits) >= limit:
            break
    native = (Language.CPP, Language.CUDA)
    kernels = reader.registered_kernels([hit.symbol.qname for hit in hits.values() if hit.symbol.lang in native])

    def rank(hit: SearchHit) -> Key:
        return _rank(hit, hit.symbol.qname in kernels)

    if qualifiers:
        # `at::native::conv`: at::native::convolution before at::native::vulkan::ops::conv1d
        def depth(hit: SearchHit) -> int:
            return len(_PATH_SEPARATOR.split(hit.symbol.qname))

        return _python_named(reader, sorted(hits.values(), key=lambda hit: (hit.tier, depth(hit), rank(hit)))[:limit])
    return _python_named(reader, sorted(hits.values(), key=rank)[:limit])


def _python_named(reader: IndexReader, hits: list[SearchHit]) -> list[SearchHit]:
    """A pybind11 binding is indexed under its module as written (`TORCH_EXTENSION_NAME`):
    shown by its Python name (`mini_ops._C.scale`) where the build files say it."""
    if not any(hit.symbol.kind is SymbolKind.PYBIND for hit in hits):
        return hits
    modules = extension_modules(reader)
    named = []
    for hit in hits:
        names = modules.python_names(hit.symbol) if hit.symbol.kind is SymbolKind.PYBIND else []
        named.append(dataclasses.replace(hit, symbol=names[0]) if names else hit)
    return named


def _collect(
    reader: IndexReader,
    name_query: str,
    graded: list[tuple[tuple[MatchTier, float], str]],
    qualifiers: list[str],
    where: SearchFilter,
    limit: int,
    hits: dict[Key, SearchHit],
) -> None:
    """Fetch the symbols of the best names, some names at a time, until `limit` hits are in
    hand after a whole group of equally graded names: names graded lower cannot displace them."""
    graded.sort(key=lambda item: (item[0][0], -item[0][1], len(item[1]), item[1]))
    gradings: dict[str, tuple[MatchTier, float] | None] = {name: grading for grading, name in graded}
    position = 0
    while position < len(graded) and len(hits) < limit:
        end = position + 1
        while end < len(graded) and (end - position < _FETCH_GROUP or graded[end][0] == graded[end - 1][0]):
            end += 1
        lowered = sorted({name.lower() for _, name in graded[position:end]})
        for symbol in reader.symbols_named_any(lowered):
            if symbol.name not in gradings:  # same name in another case: graded on its own
                gradings[symbol.name] = grade(name_query, symbol.name)
            grading = gradings[symbol.name]
            if grading is None or not _wanted(symbol, where, qualifiers):
                continue
            key = (symbol.qname, symbol.kind) if symbol.kind is SymbolKind.NAMESPACE else _identity(symbol)
            # A namespace opened in several files is one hit, shown at its first file and line
            # (the index returns rows in no particular order: a rebuild may order them anew).
            kept = hits.get(key)
            if kept is None or _location(symbol) < _location(kept.symbol):
                hits[key] = SearchHit(symbol, grading[0], grading[1])
        position = end


def _location(symbol: Symbol) -> tuple[str, int]:
    return (symbol.path or "", symbol.line or 0)


def _identity(symbol: Symbol) -> Key:
    return (symbol.qname, symbol.kind, symbol.path, symbol.line)


def _wanted(symbol: Symbol, where: SearchFilter, qualifiers: list[str]) -> bool:
    if where.kind is not None and symbol.kind is not where.kind:
        return False
    if where.lang is not None:
        wanted = {where.lang, Language.CUDA} if where.lang is Language.CPP else {where.lang}
        if symbol.lang not in wanted:
            return False
    if qualifiers:
        components = [part.lower() for part in _PATH_SEPARATOR.split(symbol.qname)[:-1]]
        position = 0
        for qualifier in qualifiers:
            while position < len(components) and not components[position].startswith(qualifier):
                position += 1
            if position == len(components):
                return False
            position += 1
    return True


def _rank(hit: SearchHit, registered_kernel: bool) -> Key:
    symbol = hit.symbol
    peripheral = bool(symbol.path and PERIPHERAL_PATH.search(symbol.path))
    # Type stubs restate what is defined elsewhere (for torch._C, in generated code).
    is_stub = bool(symbol.path and symbol.path.endswith(".pyi"))
    # Among names that contain the query whole (exact and prefix matches), library code
    # comes before tests and examples: on a large tree, `conv2d` has dozens of test helpers.
    contains_query = hit.tier <= MatchTier.PREFIX
    return (
        not contains_query,
        peripheral,
        hit.tier,
        # native_functions.yaml's operators, and the kernels their dispatch tables name,
        # first: what runs for an op (an operator C++ registers, quantized::conv2d, is not
        # what a reader of conv2d looks for first)
        not (registered_kernel or (symbol.kind is SymbolKind.OPERATOR and (symbol.path or "").endswith(".yaml"))),
        symbol.kind is SymbolKind.OPERATOR and not (symbol.path or "").endswith(".yaml"),
        -hit.score,
        is_stub,
        _KIND_ORDER.get(symbol.kind, 5),
        len(symbol.qname),
        symbol.qname,
        symbol.path or "",
        symbol.line or 0,
    )


def _letters_in_order(lowered: str) -> str:
    """A GLOB pattern for names holding the query's characters in order (`c*o*n*v`), each
    taken literally: the query is text, never a pattern, so `*?[]` match themselves. Only
    the first _GLOB_LETTERS characters narrow the scan (grade() checks the rest): a pattern
    stays far below what SQLite accepts, however long the query."""
    return "*" + "*".join(f"[{char}]" if char in "*?[]" else char for char in lowered[:_GLOB_LETTERS]) + "*"


def word_starts(name: str) -> list[int]:
    """Positions where a word begins: `cudnnConvolutionForward` -> [0, 5, 16]."""
    return [match.start() for match in _WORD_START.finditer(name)]


def grade(query: str, name: str) -> tuple[MatchTier, float] | None:
    """The tier and score of `name` for `query`, or None if it does not match at all."""
    if name == query:
        return MatchTier.EXACT_CASE, 1.0
    low_query, low_name = query.lower(), name.lower()
    if low_name == low_query:
        return MatchTier.EXACT, 1.0
    if low_name.startswith(low_query):
        same_case = name.startswith(query)
        return MatchTier.PREFIX, len(query) / len(name) + (0.5 if same_case else 0.0)
    starts = word_starts(name)
    if _matches_word_prefixes(_SEPARATORS.sub("", low_query), low_name, starts):
        return MatchTier.WORDS, len(query) / len(name)
    position = low_name.find(low_query)
    if position >= 0:
        at_word = position in starts
        return MatchTier.SUBSTRING, (1.0 if at_word else 0.0) + len(query) / len(name)
    score = _subsequence_score(low_query, low_name, set(starts))
    if score is None:
        return None
    return MatchTier.SUBSEQUENCE, score


def _matches_word_prefixes(query: str, name: str, starts: list[int]) -> bool:
    """Whether the query is a concatenation of prefixes of consecutive words of the name,
    starting at any word (`convfwd` fits `ConvolutionForward`? no: `fwd` is not a prefix of
    `forward`; `convforw` fits). A search over (query position, next word) states, each
    visited once: trying every split of a long query would take exponential time."""
    bounds = [*starts, len(name)]
    words = [name[bounds[i] : bounds[i + 1]].strip("_.:") for i in range(len(starts))]
    pending = [(0, first) for first in range(len(words))]
    seen = set(pending)
    while pending:
        query_at, word_at = pending.pop()
        if query_at == len(query):
            return True
        if word_at == len(words):
            continue
        word = words[word_at]
        longest = 0
        while longest < len(word) and query_at + longest < len(query) and word[longest] == query[query_at + longest]:
            longest += 1
        for taken in range(1, longest + 1):
            state = (query_at + taken, word_at + 1)
            if state not in seen:
                seen.add(state)
                pending.append(state)
    return False


def _subsequence_score(query: str, name: str, starts: set[int]) -> float | None:
    """Greedy alignment that prefers continuing a run, then a word start, then the nearest
    character; scores word-start hits and runs, penalises gaps."""
    position = 0
    score = 0.0
    previous = -2
    for index, char in enumerate(query):
        if previous + 1 < len(name) and name[previous + 1] == char and previous >= 0:
            found = previous + 1
        else:
            found = -1
            nearest = name.find(char, position)
            if nearest < 0:
                return None
            rest = query[index + 1 :]
            for start in sorted(starts):
                if start >= position and name[start] == char and _is_subsequence(rest, name, start + 1):
                    found = start
                    break
            if found < 0:
                found = nearest
        if found in starts:
            score += 2.0
        if found == previous + 1:
            score += 1.0
        else:
            score -= 0.1 * (found - previous - 1 if previous >= 0 else found)
        previous = found
        position = found + 1
    return score / (len(query) * 3.0)


def _is_subsequence(query: str, name: str, position: int) -> bool:
    for char in query:
        position = name.find(char, position) + 1
        if position == 0:
            return False
    return True
