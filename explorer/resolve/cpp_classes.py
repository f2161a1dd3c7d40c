"""C++ classes and their bases, as the index's class headers write them.

A class symbol's signature is its header as written (`class TCPStore : public Store`), so the
bases are read from it: the names after the `:`, access and `virtual` dropped, template
arguments dropped, compared by last name (a header names a base from its own namespace).

What a virtual member runs: a binding or a call may name a member its class only declares
(`&::c10d::Store::add`, pure virtual); what runs is an override, a definition of that member in
a class that derives from it, directly or through other classes. Each is a candidate.
"""

from __future__ import annotations

import re

from explorer.index import IndexReader
from explorer.model import Symbol, SymbolKind
from explorer.parsers.common import split_top_level, strip_template_args

CLASS_KINDS = frozenset({SymbolKind.CLASS, SymbolKind.STRUCT})
# What a C++ call may run, as a definition the index holds
FUNCTION_KINDS = frozenset(
    {
        SymbolKind.FUNCTION,
        SymbolKind.METHOD,
        SymbolKind.STRUCTURED_KERNEL,
        SymbolKind.KERNEL,
        SymbolKind.DISPATCH_STUB,
    }
)
_METHOD_KINDS = frozenset({SymbolKind.METHOD, SymbolKind.FUNCTION})
_BASE_CLAUSE = re.compile(r"(?<!:):(?!:)")
_ACCESS = re.compile(r"^(?:(?:public|protected|private|virtual)\s+)+")
_VIRTUAL = re.compile(r"\b(?:virtual|override)\b")
# A hierarchy deeper than this between a declaring class and an override is not real code
_MAX_DEPTH = 8


def class_bases(signature: str) -> list[str]:
    """`class TCPStore : public Store, private Foo<int>` -> ["Store", "Foo"] (last names)."""
    colon = _BASE_CLAUSE.search(signature)  # not a qualifier's `::` (`class a::C : Base`)
    if colon is None:
        return []
    names = []
    for _, written in split_top_level(signature[colon.end() :].split("{", 1)[0], "<(", ">)"):
        name = strip_template_args(_ACCESS.sub("", written.strip())).strip()
        if name:
            names.append(name.rpartition("::")[2])
    return names


def overrides(reader: IndexReader, declaring: Symbol, member: str) -> list[Symbol]:
    """The definitions of `member` in classes derived from `declaring`, nearest first."""
    found: list[tuple[int, Symbol]] = []
    ancestors = {declaring.name}
    candidates = [
        s
        for s in reader.symbols_named(member.lower())
        if s.name == member and s.kind in _METHOD_KINDS and "::" in s.qname
    ]
    owners = {s.qname.rpartition("::")[0] for s in candidates}
    classes = reader.symbols_with_qnames(sorted(owners)) if owners else {}
    depth_of: dict[str, int | None] = {}
    for owner in owners:
        depth_of[owner] = _depth(reader, owner, ancestors, classes, 0)
    for symbol in candidates:
        depth = depth_of.get(symbol.qname.rpartition("::")[0])
        if depth is not None:
            found.append((depth, symbol))
    return [symbol for _, symbol in sorted(found, key=lambda pair: (pair[0], pair[1].path or "", pair[1].line or 0))]


def _depth(
    reader: IndexReader, owner: str, ancestors: set[str], classes: dict[str, list[Symbol]], depth: int
) -> int | None:
    """How many derivations separate class `owner` from a class named in `ancestors`, or None."""
    if depth >= _MAX_DEPTH:
        return None
    symbols = classes.get(owner)
    if symbols is None:
        symbols = reader.symbols_with_qname(owner)
    namespace = owner.rpartition("::")[0]
    for symbol in (s for s in symbols if s.kind in CLASS_KINDS):
        bases = class_bases(symbol.signature or "")
        if ancestors.intersection(bases):
            return depth + 1
        for base in bases:
            qualified = f"{namespace}::{base}" if namespace else base
            found = _depth(reader, qualified, ancestors, {}, depth + 1)
            if found is not None:
                return found
    return None


def derives_from(reader: IndexReader, derived: str, base: str) -> bool:
    """Whether class `derived` (a qualified name) has a base class named `base`'s last name,
    directly or through others."""
    return _depth(reader, derived, {base.rpartition("::")[2]}, {}, 0) is not None


def inherited_members(reader: IndexReader, cls: Symbol, member: str, kinds: frozenset[SymbolKind]) -> list[Symbol]:
    """The definitions of `member` a class has from its bases, the nearest base that defines
    it first (`ListType::getElementType` is SingleElementType's, a template base)."""
    seen = {cls.qname}
    frontier = [cls]
    for _ in range(_MAX_DEPTH):
        onward = []
        for current in frontier:
            for base in _base_classes(reader, current):
                if base.qname in seen:
                    continue
                seen.add(base.qname)
                found = [s for s in reader.symbols_with_qname(f"{base.qname}::{member}") if s.kind in kinds]
                if found:
                    return found
                onward.append(base)
        if not onward:
            return []
        frontier = onward
    return []


def _base_classes(reader: IndexReader, cls: Symbol) -> list[Symbol]:
    """The classes a class header names as bases: in the class's namespace (or an enclosing
    one), else any class of that name."""
    namespace = cls.qname.rpartition("::")[0]
    found: list[Symbol] = []
    for base in class_bases(cls.signature or ""):
        scope, candidates = namespace, list[Symbol]()
        while not candidates:
            qualified = f"{scope}::{base}" if scope else base
            candidates = [s for s in reader.symbols_with_qname(qualified) if s.kind in CLASS_KINDS]
            if not scope:
                break
            scope = scope.rpartition("::")[0]
        found += candidates or [
            s for s in reader.symbols_named(base.lower()) if s.name == base and s.kind in CLASS_KINDS
        ]
    return found


def may_be_virtual(method: Symbol) -> bool:
    """Whether a method may be overridden: written `virtual` or `override` where it is defined,
    or defined out of its class (`auto Engine::execute(...)`), where only the declaration,
    which the index does not keep, would say."""
    signature = method.signature or ""
    return _VIRTUAL.search(signature) is not None or f"::{method.name}(" in signature.replace(" ", "")
