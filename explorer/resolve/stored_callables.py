"""A call through a data member that stores a callable runs the callables stored in it.

`function_creator_(*this)` in GraphFunction::ensure_defined (or `creator(*this)` on a local
copied from the member, `auto creator = function_creator_;`) calls what the member holds: the
callables given to it where it is stored. Those places, in the order they are read:
1. the member's declaration says it holds a callable: a function wrapper (`std::function<...>`,
   `c10::function_ref<...>`), a function pointer (`void (*fn_)(int)`), or a template parameter
   of its class; anything else (a typedef's name) is not followed;
2. a constructor of the class stores one of its parameters in it (`function_creator_(std::move
   (function_creator))` in the member initializer list, or `function_creator_ = f;` in the
   body); a method that assigns it stores the function or lambda it names there
   (`function_creator_ = placeholderCreator;`), or one of its parameters (a setter, followed
   only where no other class has a method of that name);
3. the calls that construct the class (`T(...)`, `std::make_unique<T>(...)`, `make_shared`,
   `make_intrusive`: what the index records as a call of `T` or `T::T`; `new T(...)` and
   `T x(...)` are no calls there) and that call the setter pass, at that parameter's position,
   a lambda written there, a local initialised with a lambda, a function's name or
   `&Class::method`.
A lambda written in a call's arguments is already a definition of the index; a lambda bound to
a local (`auto creator = [...](GraphFunction& method) {...};`) is part of the function it is
written in, whose calls the index gives; it is made a node of its own here, named as a handed
lambda is (`scope::<lambda at line N>`), with that function as its target: its calls are those
of the function on the lines the lambda spans.
Which of them the member holds at the call depends on the object: the edge is `stored`, its
resolution `value` for one callable and ambiguous among several.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from explorer.index import IndexReader
from explorer.model import Symbol, SymbolKind
from explorer.names import hidden_as_test
from explorer.parsers.common import collapse
from explorer.resolve.arity import call_arguments
from explorer.resolve.sources import SourceLines
from explorer.resolve.templates import template_parameters

Named = Callable[[Symbol, str], list[Symbol]]  # the definitions a name written in a definition may mean

_FUNCTION_KINDS = frozenset({SymbolKind.FUNCTION, SymbolKind.METHOD, SymbolKind.KERNEL, SymbolKind.STRUCTURED_KERNEL})
_CLASS_KINDS = frozenset({SymbolKind.CLASS, SymbolKind.STRUCT})
_MAX_SITES = 64  # a class made in more places than this: the first ones are read
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_WRAPPER = re.compile(r"\b(?:function|function_ref|move_only_function)\s*<")
_POINTER_MEMBER = re.compile(r"\(\s*\*\s*[A-Za-z_]\w*\s*\)\s*\(")
_HEADERS = (".h", ".hpp", ".hh", ".cuh", ".inl")


class StoredCallables:
    def __init__(self, reader: IndexReader, sources: SourceLines, named: Named) -> None:
        self.store = reader
        self.sources = sources
        self.named = named
        self._members: dict[
            tuple[str, str, str], Symbol | None
        ] = {}  # (class, name, calling file) -> the callable member
        self._stored: dict[
            tuple[str, str, str], list[Symbol]
        ] = {}  # (class, member, calling file) -> the callables stored in it
        self._copies: dict[
            tuple[str | None, int | None], dict[str, str]
        ] = {}  # a definition -> its locals copied from members

    @staticmethod
    def calls_owner(symbol: Symbol) -> str:
        """The definition whose calls the index keeps for `symbol`: for a lambda bound to a
        local, made here, the function it is written in (its target)."""
        return (
            symbol.target if symbol.target is not None and symbol.name.startswith("<lambda at line ") else symbol.qname
        )

    def called(self, caller: Symbol, name: str, named: list[Symbol]) -> list[Symbol] | None:
        """The callables a call of `name` in `caller` runs through a member of the caller's
        class holding one; None when `name` is no such member, nor a local copied from one.
        `named`: what the name means where it is written (a member is a field there)."""
        if caller.path is None:
            return None
        cls = self.calls_owner(caller).rpartition("::")[0]
        if not cls:
            return None
        if any(s.kind is SymbolKind.FIELD for s in named):
            member = self._callable_member(cls, name, caller.path)
        elif any(s.kind in _FUNCTION_KINDS for s in named):
            return None
        else:
            copies = self._copies.get((caller.path, caller.line))
            if copies is None:
                copies = self._copies[(caller.path, caller.line)] = _member_copies(self.sources.of_definition(caller))
            copied = copies.get(name)
            member = self._callable_member(cls, copied, caller.path) if copied is not None else None
        if member is None:
            return None
        key = (cls, member.name, caller.path)
        if key not in self._stored:
            self._stored[key] = self._stored_in(cls, member, caller.path)
        return self._stored[key]

    def _callable_member(self, cls: str, name: str, calling: str) -> Symbol | None:
        """The member `name` of class `cls` declared as a callable: the calling file's own
        declaration first (two files may each define a class of one name)."""
        key = (cls, name, calling)
        if key not in self._members:
            fields = [s for s in self.store.symbols_with_qname(f"{cls}::{name}") if s.kind is SymbolKind.FIELD]
            fields.sort(key=lambda field: field.path != calling)
            self._members[key] = next((f for f in fields if self._holds_callable(cls, f)), None)
        return self._members[key]

    def _holds_callable(self, cls: str, member: Symbol) -> bool:
        declared = member.signature.split("=", 1)[0]
        if _WRAPPER.search(declared) or _POINTER_MEMBER.search(declared):
            return True
        written = _IDENTIFIER.findall(declared.rpartition(member.name)[0])
        return len(written) == 1 and written[0] in self._class_template_parameters(cls)

    def _class_template_parameters(self, cls: str) -> set[str]:
        """The names of a class template's `template <...>` header, above its class line."""
        for symbol in self.store.symbols_with_qname(cls):
            if symbol.kind in _CLASS_KINDS and symbol.path is not None and symbol.line is not None:
                above = " ".join(self.sources.of_file(symbol.path)[max(0, symbol.line - 4) : symbol.line - 1])
                at = above.rfind("template")
                if at >= 0:
                    return template_parameters(above[at:] + " ")
        return set()

    # -- where the member is given its value ---------------------------------------------------

    def _stored_in(self, cls: str, member: Symbol, calling: str) -> list[Symbol]:
        found: list[Symbol] = []
        class_name = cls.rpartition("::")[2]
        for method in self._methods(cls, member, calling):
            text = self.sources.of_definition(method)
            constructor = method.name == class_name
            for value in _assigned(text, member.name, constructor):
                parameters = _parameter_names(text, method.name)
                if value in parameters:
                    index = parameters.index(value)
                    sites = self._constructions(cls, member) if constructor else self._setter_calls(cls, method, member)
                    for path, site_caller, line, column in sites:
                        if hidden_as_test(calling, path):
                            continue  # a test's objects are not the ones production code calls through
                        found += self._passed_at(path, site_caller, line, column, index)
                else:
                    found += self._value(method, value, text)
        unique: dict[tuple[str, str | None, int | None], Symbol] = {}
        for symbol in found:
            unique.setdefault((symbol.qname, symbol.path, symbol.line), symbol)
        return list(unique.values())

    def _methods(self, cls: str, member: Symbol, calling: str) -> list[Symbol]:
        """The class's methods defined in the files that define the class, its constructors and
        the member, and in the file of the method calling through it (a header and its .cpp, as
        a rule)."""
        files = {member.path, calling} | {s.path for s in self.store.symbols_with_qname(cls) if s.kind in _CLASS_KINDS}
        files |= {s.path for s in self.store.symbols_with_qname(f"{cls}::{cls.rpartition('::')[2]}")}
        methods = []
        for path in sorted(p for p in files if p is not None):
            methods += [
                s
                for s in self.store.symbols_in_file(path)
                if s.kind in _FUNCTION_KINDS and s.qname.rpartition("::")[0] == cls
            ]
        return methods

    def _constructions(self, cls: str, member: Symbol) -> list[tuple[str, Symbol, int, int]]:
        """The calls that construct class `cls`: `T(...)`, `ns::T(...)` and the factories'
        `T::T` (at the factory's own place), from code that can name the class."""
        name = cls.rpartition("::")[2]
        namespace = cls.rpartition("::")[0]
        within = self._defining_sources(member)
        found = []
        for path, site in self.store.call_sites_of(name):
            if within and path not in within:
                continue
            written = site.callee.removeprefix("::")
            if "." in written or "->" in written:
                continue
            head = written.removesuffix(f"::{name}") if written.endswith(f"{name}::{name}") else written
            if head.rpartition("::")[2] != name or not _names_class(head, cls, site.caller, namespace):
                continue
            caller = self._definition_at(path, site.caller, site.line)
            if caller is not None:
                found.append((path, caller, site.line, site.column))
            if len(found) >= _MAX_SITES:
                break
        return found

    def _setter_calls(self, cls: str, setter: Symbol, member: Symbol) -> list[tuple[str, Symbol, int, int]]:
        """The calls of a method that stores a parameter in the member, where no other class
        has a method of its name (the receiver's class is not read)."""
        same = [
            s
            for s in self.store.symbols_named(setter.name.lower())
            if s.name == setter.name and s.kind in _FUNCTION_KINDS
        ]
        if any(s.qname.rpartition("::")[0] != cls for s in same):
            return []
        within = self._defining_sources(member)
        found = []
        for path, site in self.store.call_sites_of(setter.name):
            if within and path not in within:
                continue
            if site.callee.rpartition(".")[2].rpartition("->")[2] != setter.name:
                continue
            caller = self._definition_at(path, site.caller, site.line)
            if caller is not None:
                found.append((path, caller, site.line, site.column + _member_offset(site.callee)))
            if len(found) >= _MAX_SITES:
                break
        return found

    def _defining_sources(self, member: Symbol) -> set[str]:
        """Where objects of a class whose member a source file (not a header) declares can be
        made: that file alone (two tests may each define a class of one name); anywhere (empty)
        for a header's."""
        return {member.path} if member.path is not None and not member.path.endswith(_HEADERS) else set()

    def _definition_at(self, path: str, qname: str, line: int) -> Symbol | None:
        for symbol in self.store.symbols_with_qname(qname):
            if symbol.path == path and (symbol.line or 0) <= line <= (symbol.end_line or symbol.line or 0):
                return symbol
        return None

    def _passed_at(self, path: str, caller: Symbol, line: int, column: int, index: int) -> list[Symbol]:
        """What the call at (line, column) in `caller` passes as its argument `index`."""
        lines = self.sources.of_file(path)
        head = _IDENTIFIER.match(lines[line - 1][column:]) if 0 < line <= len(lines) else None
        arguments = call_arguments(self.sources, path, line, column, head.group()) if head is not None else None
        if arguments is None or index >= len(arguments):
            return []
        written = arguments[index]
        if written.startswith("["):
            return self._lambda_at(caller, _line_of(lines, line, column, written))
        return self._value(caller, written, self.sources.of_definition(caller))

    def _value(self, holder: Symbol, written: str, text: str) -> list[Symbol]:
        """The callables a value written in `holder` is: a local bound to a lambda, a function's
        name or address; nothing for anything else (a parameter, nullptr, a call)."""
        written = _unwrapped(written)
        if written.startswith("["):
            return []  # a lambda assigned in place: not read
        if written.isidentifier():
            bound = _lambda_locals(text).get(written)
            if bound is not None and holder.line is not None:
                return self._lambda_at(holder, holder.line + bound)
            if written in _parameter_names(text, holder.name):
                return []
        if not re.fullmatch(r"(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*", written):
            return []
        return [s for s in self.named(holder, written) if s.kind in _FUNCTION_KINDS]

    def _lambda_at(self, holder: Symbol, line: int | None) -> list[Symbol]:
        """The lambda written in `holder` at `line`: the index's definition of it, else one
        made here, whose calls are those of the lines it spans in `holder`'s owner."""
        if line is None or holder.path is None:
            return []
        owner = self.calls_owner(holder)
        scope = owner.rpartition("::")[0]
        name = f"<lambda at line {line}>"
        qname = f"{scope}::{name}" if scope else name
        known = [s for s in self.store.symbols_with_qname(qname) if s.path == holder.path]
        if known:
            return known
        lines = self.sources.of_file(holder.path)
        spanned = _lambda_span(lines, line)
        if spanned is None:
            return []
        end, head = spanned
        return [
            Symbol(qname, name, SymbolKind.FUNCTION, holder.lang, holder.path, line, end, head, owner, file_local=True)
        ]


def _names_class(head: str, cls: str, caller: str, namespace: str) -> bool:
    """Whether `head` (`T`, `ns::T`) written in `caller` may name class `cls`: a qualified name
    that ends `cls`'s, or a plain one written in `cls`'s namespace."""
    if "::" in head:
        return f"::{cls}".endswith(f"::{head}")
    return not namespace or caller == namespace or caller.startswith(f"{namespace}::")


def _member_offset(callee: str) -> int:
    """Where a member call's name starts in its callee as written (`f.setCreator`: 2)."""
    return max(callee.rfind(".") + 1, callee.rfind("->") + 2, 0)


def _line_of(lines: list[str], line: int, column: int, written: str) -> int | None:
    """The line an argument as written begins on, searched from the call's place."""
    text = "\n".join(lines[line - 1 : line + 40])
    at = text.find(written[:40], column)
    return line + text.count("\n", 0, at) if at >= 0 else None


def _unwrapped(written: str) -> str:
    """`std::move(creator)` -> `creator`; `&Class::method` -> `Class::method`."""
    written = written.strip()
    while (moved := re.fullmatch(r"(?:std::)?(?:move|forward(?:<[^<>]*>)?)\s*\((.*)\)", written, re.S)) is not None:
        written = moved.group(1).strip()
    return written.lstrip("&").strip()


@functools.lru_cache(maxsize=256)
def _assigned(text: str, member: str, constructor: bool) -> tuple[str, ...]:
    """What a definition stores in `member`: the values of `member_ = value;` and, for a
    constructor, of `member_(value)` / `member_{value}` in its initializer list."""
    name = rf"(?:(?<=this->)|(?<![\w.>])){re.escape(member)}"
    found = [match.group(1) for match in re.finditer(rf"{name}\s*=(?!=)\s*([^;]+);", text)]
    if constructor:
        found += [match.group(1) for match in re.finditer(rf"{name}\s*[({{]([^;{{}}]*?)[)}}]\s*[,{{]", text)]
    values = [_unwrapped(value) for value in found]
    return tuple(value for value in values if value and value not in ("nullptr", "NULL", "0", "{}"))


@functools.lru_cache(maxsize=256)
def _parameter_names(text: str, name: str) -> tuple[str, ...]:
    """The parameters of definition `name` by name, in order, from its text (a lambda's from
    its own parameter list)."""
    named = re.search(rf"\b{re.escape(name)}\s*\(", text) if name.isidentifier() else None
    start = named.end() - 1 if named is not None else text.find("(")
    if start < 0:
        return ()
    depth, names, current = 0, [], ""
    for char in text[start + 1 :]:
        if char in "(<[{":
            depth += 1
        elif char in ")>]}" and depth:
            depth -= 1
        elif char == ")" or (char == "," and not depth):
            declared = _IDENTIFIER.findall(current.partition("=")[0])
            names.append(declared[-1] if len(declared) >= 2 else "")
            if char == ")":
                break
            current = ""
            continue
        current += char
    return tuple(names)


def _member_copies(text: str) -> dict[str, str]:
    """Locals a definition initialises from a data member: `auto creator = function_creator_;`."""
    return {match.group(1): match.group(2) for match in _COPY.finditer(text)}


@functools.lru_cache(maxsize=256)
def _lambda_locals(text: str) -> dict[str, int]:
    """Locals a definition binds to a lambda (`auto creator = [...](...) {...};`), each with
    the line of its lambda, counted from the definition's first line."""
    found: dict[str, int] = {}
    for match in _LAMBDA_LOCAL.finditer(text):
        found.setdefault(match.group(1), text.count("\n", 0, match.end() - 1))
    return found


_COPY = re.compile(r"\b(?:const\s+)?auto\s*&{0,2}\s*([A-Za-z_]\w*)\s*=\s*(?:this->)?([A-Za-z_]\w*)\s*;")
_LAMBDA_LOCAL = re.compile(r"\b(?:(?:const\s+)?auto|std::function\s*<[^;{}]*>)\s*&{0,2}\s*([A-Za-z_]\w*)\s*=\s*\[")


def _lambda_span(lines: list[str], line: int) -> tuple[int, str] | None:
    """The last line of the lambda whose capture list opens on `line`, and its head (capture
    list and parameters, on one line); None where its body does not close within 400 lines."""
    text = "\n".join(lines[line - 1 : line + 400])
    start = text.find("[")
    if start < 0:
        return None
    body = text.find("{", start)
    if body < 0:
        return None
    depth, index, quote = 0, body, ""
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif text.startswith("//", index):
            index = text.find("\n", index)
            if index < 0:
                return None
        elif text.startswith("/*", index):
            index = text.find("*/", index)
            if index < 0:
                return None
        elif char in "\"'":
            quote = char
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return line + text.count("\n", 0, index), collapse(text[start:body])[:300]
        index += 1
    return None
