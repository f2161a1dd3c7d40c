"""What kind of value each argument of a C++ call is, to tell apart overloads that take as
many arguments as it passes (PyTorchStreamReader's constructors from a file name, an
`std::istream*` and a `std::shared_ptr<ReadAdapterInterface>`).

Both sides are put into a few coarse kinds, and only where the source says so:
- an argument, as written at the call: a string literal or a char pointer (`"version"`,
  `name.c_str()`), a string object (`std::string(...)`, `std::to_string(...)`), a pointer
  (`&in`, `this`, `p.get()`), `nullptr`, a smart pointer (`std::make_unique<T>(...)`,
  `std::make_shared`, `c10::make_intrusive`), a number (a numeric literal other than `0`,
  which is also a null pointer, a character literal, `true`, `false`); a name, or
  `std::move(name)` / `std::forward<T>(name)`, is what the caller declares it to be, as a
  parameter or as a local before the call (`auto adapter = std::make_unique<...>(...)`,
  `std::unique_ptr<ReadAdapterInterface> rai`, `const char* data`);
- a parameter, from its declared type: `std::string`, `std::string_view` or `c10::string_view`
  (by value or reference), `char*`, another pointer, `std::unique_ptr` / `std::shared_ptr` /
  `c10::intrusive_ptr`, `bool`, a built-in arithmetic type.
Anything else (a template parameter, `auto`, any other class, a call whose result is not
written) is unknown, and an unknown on either side fits anything. A parameter accepts what
C++ converts to it implicitly: a string parameter a string or a literal, a char pointer a
literal or any pointer, a smart pointer another smart pointer (a moved unique_ptr makes a
shared_ptr) or nullptr, `bool` a number or a pointer. Arguments are matched to parameters by
position, up to the shorter list: how many there are is arity.py's to judge.

The overloads an argument's kind rules out are dropped, only where one is left at least;
native_edges.py asks only of a call that still has several definitions once the count has
ruled out what it can, and reads each caller's declarations once.
"""

from __future__ import annotations

import enum
import functools
import re
from collections.abc import Callable

from explorer.model import Symbol
from explorer.parsers.common import collapse, parenthesised_items
from explorer.resolve.arity import closing_parenthesis, split_arguments


class Kind(enum.Enum):
    STRING = "string"  # std::string, a string view
    C_STRING = "C string"  # a string literal, a char pointer
    POINTER = "pointer"
    NULL = "nullptr"
    SMART = "smart pointer"
    NUMBER = "number"
    BOOL = "bool"  # a parameter's type only: an argument that is one is a NUMBER
    UNKNOWN = "unknown"


# What a parameter of each kind accepts; UNKNOWN accepts anything
_ACCEPTS: dict[Kind, frozenset[Kind]] = {
    Kind.STRING: frozenset({Kind.STRING, Kind.C_STRING}),
    Kind.C_STRING: frozenset({Kind.C_STRING, Kind.POINTER, Kind.NULL}),
    Kind.POINTER: frozenset({Kind.POINTER, Kind.NULL}),
    Kind.SMART: frozenset({Kind.SMART, Kind.NULL}),
    Kind.NUMBER: frozenset({Kind.NUMBER}),
    Kind.BOOL: frozenset({Kind.NUMBER, Kind.POINTER, Kind.C_STRING}),
}


def fits(parameters: tuple[Kind, ...], arguments: tuple[Kind, ...]) -> bool:
    """Whether each argument, by position, is of a kind its parameter accepts. How many there
    are is arity.py's to judge (`forward(offset, iters...)` may pass an empty pack)."""
    for parameter, argument in zip(parameters, arguments):
        if argument is not Kind.UNKNOWN and parameter is not Kind.UNKNOWN and argument not in _ACCEPTS[parameter]:
            return False
    return True


def fitting_kinds(definitions: list[Symbol], arguments: tuple[Kind, ...]) -> list[Symbol]:
    """The overloads whose parameters accept the arguments' kinds; all of them where the
    kinds rule out none, or every one."""
    if all(kind is Kind.UNKNOWN for kind in arguments):
        return definitions
    kept = [d for d in definitions if fits(parameter_kinds(d.signature), arguments)]
    return kept or definitions


# -- parameters ------------------------------------------------------------------------------


@functools.lru_cache(maxsize=8192)
def parameter_kinds(signature: str) -> tuple[Kind, ...]:
    """Each parameter's kind, in order, up to a `...` (which takes anything)."""
    kinds: list[Kind] = []
    for written in parenthesised_items(signature, templates=True) or []:
        written = written.strip()
        if written.endswith("..."):
            break
        if written not in ("", "void"):
            kinds.append(type_kind(declared_type(written)[0]))
    return tuple(kinds)


def declared_type(written: str) -> tuple[str, str]:
    """(type, name) of a declaration (`const std::string& file_name`), its default value or
    initialiser dropped; name "" where none is written (`int64_t`, `std::istream*`). An array
    (`char name[]`) is a pointer."""
    declared = written.partition("=")[0].strip()
    array = _ARRAY.search(declared)
    if array is not None:
        declared = declared[: array.start()].rstrip()
    named = _TRAILING_NAME.search(declared)
    if named is not None and not _only_qualifiers(declared[: named.start()]):
        declared, name = declared[: named.start()].rstrip(), named.group(1)
    else:
        name = ""
    return (f"{declared}*" if array is not None else declared), name


def _only_qualifiers(text: str) -> bool:
    return not _QUALIFIERS.sub(" ", text).strip()


_ARRAY = re.compile(r"\[[^\]]*\]\s*$")
_TRAILING_NAME = re.compile(r"(?<![:\w])([A-Za-z_]\w*)\s*$")
_QUALIFIERS = re.compile(r"\b(?:const|volatile|struct|class|typename|unsigned|signed)\b")


@functools.lru_cache(maxsize=8192)
def type_kind(written: str) -> Kind:
    """The kind of a declared type (`const std::string&` is a string, `std::istream*` a pointer,
    `std::shared_ptr<ReadAdapterInterface>` a smart pointer)."""
    text = collapse(_CV.sub(" ", written)).strip().rstrip("&").strip()
    if not text or "(" in text:
        return Kind.UNKNOWN  # a function pointer, decltype(...)
    if text.endswith("*"):
        pointee = text[:-1].strip()
        if pointee == "char":
            return Kind.C_STRING
        return Kind.UNKNOWN if pointee == "void" else Kind.POINTER
    if _SMART_TYPE.fullmatch(text):
        return Kind.SMART
    if text in _STRING_TYPES:
        return Kind.STRING
    if text == "bool":
        return Kind.BOOL
    if all(word in _ARITHMETIC_WORDS for word in text.split()):
        return Kind.NUMBER
    return Kind.UNKNOWN


_CV = re.compile(r"\b(?:const|volatile|struct|class|typename|constexpr|static|register|mutable)\b")
_SMART_TYPE = re.compile(r"(?:::)?(?:(?:std|c10)::)?(?:unique_ptr|shared_ptr|intrusive_ptr)\s*<.*>")
_STRING_TYPES = frozenset(
    f"{prefix}{name}" for prefix in ("", "std::", "::std::", "c10::") for name in ("string", "string_view")
)
_ARITHMETIC_WORDS = frozenset(
    ["char", "short", "int", "long", "unsigned", "signed", "float", "double", "size_t", "ssize_t", "ptrdiff_t"]
    + [
        f"{prefix}{name}"
        for prefix in ("", "std::")
        for name in (
            "size_t",
            "ptrdiff_t",
            "int8_t",
            "int16_t",
            "int32_t",
            "int64_t",
            "uint8_t",
            "uint16_t",
            "uint32_t",
            "uint64_t",
        )
    ]
)


# -- arguments -------------------------------------------------------------------------------


def argument_kind(written: str, declared: Callable[[str], Kind]) -> Kind:
    """The kind of an argument as written; `declared` tells what a name is in the caller."""
    text = written.strip()
    if _STRING_LITERALS.fullmatch(text) or _C_STRING_OF.fullmatch(text):
        return Kind.C_STRING
    if text == "nullptr":
        return Kind.NULL
    if text == "this" or _ADDRESS.fullmatch(text):
        return Kind.POINTER
    if text in ("true", "false") or _CHARACTER.fullmatch(text):
        return Kind.NUMBER
    if _NUMBER.fullmatch(text):
        return Kind.UNKNOWN if _ZERO.fullmatch(text) else Kind.NUMBER  # `0` is also a null pointer
    if text.isidentifier():
        return declared(text)
    called = _CALLED.match(text)
    if called is None or closing_parenthesis(text, called.end() - 1) != len(text) - 1:  # `f(a)`, not `f(a).b()`
        return Kind.UNKNOWN
    name = collapse(called.group(1))
    if _MOVED.fullmatch(name):
        inner = split_arguments(text, called.end() - 1) or []
        return argument_kind(inner[0], declared) if len(inner) == 1 else Kind.UNKNOWN
    if _MADE_SMART.fullmatch(name):
        return Kind.SMART
    if _MADE_STRING.fullmatch(name):
        return Kind.STRING
    getter = _GET.fullmatch(name)
    if getter is not None and declared(getter.group(1)) in (Kind.SMART, Kind.UNKNOWN):
        return Kind.POINTER  # `data.get()`; a data member's too (`impl_.get()`)
    return Kind.UNKNOWN


def declared_kind(declaration: str) -> Kind:
    """What a name declared with this type is as an argument (a bool is a number)."""
    kind = type_kind(declaration)
    return Kind.NUMBER if kind is Kind.BOOL else kind


_STRING_LITERALS = re.compile(r'(?:(?:u8|[uUL])?"(?:[^"\\\n]|\\.)*"\s*)+')
_C_STRING_OF = re.compile(r"[A-Za-z_][\w.\->]*\.c_str\(\s*\)")
_ADDRESS = re.compile(r"&\s*[A-Za-z_][\w:]*(?:(?:\.|->)[A-Za-z_]\w*|\[[^\[\]]*\])*")
_CHARACTER = re.compile(r"(?:u8|[uUL])?'(?:[^'\\\n]|\\.)+'")
_NUMBER = re.compile(r"[-+]?(?:0[xX][0-9a-fA-F']+|(?:\d[\d']*\.?[\d']*|\.\d[\d']*)(?:[eE][-+]?\d+)?)[uUlLfF]*")
_ZERO = re.compile(r"0+[uUlL]*|0[xX]0+[uUlL]*")
# a call `name<...>(`, its name with its template arguments
_CALLED = re.compile(r"((?:::)?[A-Za-z_][\w:.]*(?:\s*<[^;{}]*>)?)\s*\(")
_MOVED = re.compile(r"(?:(?:::)?std::)?(?:move|forward\s*<.*>)")
_MADE_SMART = re.compile(
    r"(?:::)?(?:(?:std|c10)::)?(?:make_unique|make_shared|make_intrusive|unique_ptr|shared_ptr)\s*<.*>"
    r"|(?:::)?(?:c10::)?intrusive_ptr\s*<.*>::make"
)
_MADE_STRING = re.compile(r"(?:::)?std::(?:string|string_view|to_string)|(?:::)?c10::string_view")
_GET = re.compile(r"([A-Za-z_]\w*)\.get")


# -- what the caller declares ----------------------------------------------------------------

# name -> (line of the definition's text, kind) of each of its declarations, in order
Declarations = dict[str, tuple[tuple[int, Kind], ...]]


def declarations(signature: str, text: str) -> Declarations:
    """What each name a definition declares is (to be read once per definition): its parameters
    (line 0) and its locals (`auto adapter = std::make_unique<BufferAdapter>(buffer);`,
    `std::unique_ptr<ReadAdapterInterface> rai = ...`), each with the line of the definition's
    text it is declared on (the first is 1), in order."""
    found: dict[str, list[tuple[int, Kind]]] = {}
    for written in parenthesised_items(signature, templates=True) or []:
        written_type, name = declared_type(written)
        if name:
            found.setdefault(name, []).append((0, declared_kind(written_type)))
    for match in _LOCAL.finditer(text):
        written_type, name = match.group("type").strip(), match.group("name")
        if written_type.split()[0] in _NOT_TYPES:
            continue
        if _AUTO.fullmatch(written_type):
            kind = Kind.POINTER if "*" in written_type else Kind.UNKNOWN
            if kind is Kind.UNKNOWN and match.group("init").startswith("="):
                value = text[match.end() : text.find(";", match.end())] if ";" in text[match.end() :] else ""
                kind = argument_kind(value, lambda _name: Kind.UNKNOWN)
        else:
            kind = declared_kind(written_type)
        found.setdefault(name, []).append((text.count("\n", 0, match.start("name")) + 1, kind))
    return {name: tuple(kinds) for name, kinds in found.items()}


def kind_at(declared: Declarations, name: str, line: int) -> Kind:
    """What `name` is on `line` of the definition: its last declaration above (a local shadows
    a parameter); unknown where none is found."""
    kind = Kind.UNKNOWN
    for declared_on, declared_kind_ in declared.get(name, ()):
        if declared_on > line:
            break
        kind = declared_kind_
    return kind


_LOCAL = re.compile(
    r"(?:^|[;{}(])\s*(?P<type>(?:const\s+)?(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*(?:\s*<[^;(){}]*>)?"
    r"(?:\s*const)?\s*[*&]*)\s*\b(?P<name>[A-Za-z_]\w*)\s*(?P<init>=(?!=)|\(|\{|;)",
    re.M,
)
_AUTO = re.compile(r"(?:const\s+)?auto\s*[*&]*")
_NOT_TYPES = frozenset(
    ("return", "else", "new", "delete", "case", "goto", "throw", "co_return", "using", "namespace", "typedef")
)


def call_argument_kinds(arguments: list[str], declared: Declarations, line: int) -> tuple[Kind, ...]:
    """The kinds of a call's arguments, made on `line` (1 for the first) of a definition that
    declares `declared` (declarations())."""
    return tuple(argument_kind(argument, lambda name: kind_at(declared, name, line)) for argument in arguments)
