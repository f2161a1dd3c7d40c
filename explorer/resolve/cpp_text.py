"""What a C++ definition's text says about the names in it, read with regular expressions
where the index keeps no facts: its locals' declared classes and initialising calls, what a
range-for ranges over, what a local dereferences, what its parameters' types are, which class
a signature returns."""

from __future__ import annotations

import functools
import re

from explorer.parsers.common import collapse, parenthesised_items

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_SPECIFIERS = re.compile(
    r"\b(?:static|inline|virtual|constexpr|explicit|extern|friend|const|volatile|typename|C10_\w+|TORCH_\w+)\b"
)
TYPE_NAME = r"(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*"
RETURNED_NAME = re.compile(r"\breturn\s+([A-Za-z_]\w*)\s*;")
_CAST_LOCAL = re.compile(
    rf"\bauto\s*[*&]*\s*(?P<name>[A-Za-z_]\w*)\s*=\s*(?:\(\s*(?P<c>{TYPE_NAME})\s*\*\s*\)"
    rf"|(?:static|reinterpret|dynamic)_cast\s*<\s*(?:const\s+)?(?P<s>{TYPE_NAME})\s*[*&]?\s*>)"
)
_CALLED_LOCAL = re.compile(
    r"\bauto\s*[*&]*\s*(?P<name>[A-Za-z_]\w*)\s*=\s*(?P<call>(?:::)?[A-Za-z_][\w:]*\s*\([^;]*\))\s*;"
)
_TYPED_LOCAL = re.compile(
    rf"(?:^|[;{{}}(]|\n)\s*(?:const\s+)?(?P<type>{TYPE_NAME}(?:\s*<[^;(){{}}]*>)?)\s*[*&]*\s*\b(?P<name>[A-Za-z_]\w*)\s*(?:[=({{;]|:(?!:))"
)
_RANGE_FOR = re.compile(r"\bfor\s*\(\s*(?:const\s+)?auto\s*[&*]*\s*([A-Za-z_]\w*)\s*:\s*([A-Za-z_]\w*)\s*\)")
_DEREFERENCED_LOCAL = re.compile(r"\bauto\s*&\s*([A-Za-z_]\w*)\s*=\s*\*\s*([A-Za-z_]\w*)\s*;")
_NOT_TYPES = frozenset(("return", "auto", "else", "new", "delete", "case", "goto", "throw"))
# Containers whose element a subscript gives
_CONTAINERS = re.compile(
    r"^(?:(?:std|c10|at)::)?(?:vector|array|deque|SmallVector|ArrayRef)\s*<\s*(.+?)\s*(?:,[^<>]*)?>$"
)
_OWNER_QUALIFIER = re.compile(r"(?:[A-Za-z_]\w*(?:<[^<>]*>)?::)+\s*$")
NOT_CLASSES = frozenset(
    ("auto", "void", "int", "bool", "float", "double", "char", "size_t", "int64_t", "int32_t", "uint64_t")
)
_PARAMETER = re.compile(
    r"^\s*(?:const\s+)?((?:::)?[A-Za-z_][\w:]*(?:\s*<.*>)?)\s*(?:const\s*)?[&*]*\s*([A-Za-z_]\w*)\s*(?:=.*)?$", re.S
)
# `const c10::intrusive_ptr<::c10d::ProcessGroup>& self`: a type, then the parameter's name
SMART_POINTERS = re.compile(
    r"^(?:(?:c10|std)::)?(?:intrusive_ptr|shared_ptr|unique_ptr|weak_intrusive_ptr)\s*<\s*(.+?)\s*>$"
)


@functools.lru_cache(maxsize=4096)
def parameter_names(signature: str) -> tuple[str, ...]:
    """Each parameter's name, in order, from a C++ signature ("" where none is written)."""
    names = []
    for written in parenthesised_items(signature, templates=True) or []:
        declared = _IDENTIFIER.findall(written.partition("=")[0])
        names.append(declared[-1] if len(declared) >= 2 else "")
    return tuple(names)


def local_declaration(text: str, name: str) -> tuple[str | None, str | None]:
    """See NativeEdges._local_type: (class as written, initialising call) for local `name`."""
    return local_declarations(text).get(name, (None, None))


@functools.lru_cache(maxsize=256)
def range_elements(text: str) -> dict[str, str]:
    """Each range-for variable of a definition's text and the container it ranges over, a name."""
    return {match.group(1): match.group(2) for match in _RANGE_FOR.finditer(text)}


def local_dereferenced(text: str, name: str) -> str | None:
    """The pointer a local `auto& name = *pointer;` is bound through, or None."""
    return _dereferences(text).get(name)


@functools.lru_cache(maxsize=256)
def _dereferences(text: str) -> dict[str, str]:
    return {match.group(1): match.group(2) for match in _DEREFERENCED_LOCAL.finditer(text)}


@functools.lru_cache(maxsize=256)
def local_declarations(text: str) -> dict[str, tuple[str | None, str | None]]:
    """Every local a definition's text declares in a way that says what it is, read once: its
    class as written (`auto self = (THCPEvent*)_self;`, a cast; `THCPEvent* self = ...`), or
    the call that initialises an `auto` (`auto& engine = PythonEngine::get_python_engine();`).
    The first declaration of a name wins."""
    found: dict[str, tuple[str | None, str | None]] = {}
    for match in _CAST_LOCAL.finditer(text):
        found.setdefault(match.group("name"), (match.group("c") or match.group("s"), None))
    for match in _CALLED_LOCAL.finditer(text):
        found.setdefault(match.group("name"), (None, match.group("call")))
    for match in _TYPED_LOCAL.finditer(text):
        written = match.group("type").strip()
        pointee = SMART_POINTERS.match(written)
        written = pointee.group(1).strip() if pointee is not None else written
        if "<" not in written and written not in NOT_CLASSES and written not in _NOT_TYPES:
            found.setdefault(match.group("name"), (written, None))
    return found


@functools.lru_cache(maxsize=4096)
def returned_class(signature: str, name: str, opening: str = "(", element: bool = False) -> str | None:
    """The class a function whose first line is `signature` returns, as written: `CUDAAllocator`
    for `inline CUDAAllocator* get()`, the pointee of a smart pointer; None for a type that is
    no class name (`void`, `auto`, a template parameter is not told apart). With `opening`
    empty, the class of a data member (`at::cuda::CUDAEvent cuda_event;`)."""
    marker = re.compile(rf"\b{re.escape(name)}\b\s*{re.escape(opening)}")
    head = marker.split(signature, maxsplit=1)[0] if marker.search(signature) else ""
    head = _OWNER_QUALIFIER.sub(
        "", head
    )  # `Engine& PythonEngine::get_python_engine()`: the class written before the name
    written = _SPECIFIERS.sub(" ", head)
    written = collapse(written.replace("&", " ").replace("*", " ")).strip()
    contained = _CONTAINERS.match(written) if element else None
    if contained is not None:  # `std::vector<std::unique_ptr<DeviceCachingAllocator>> device_allocator;` subscripted
        written = contained.group(1).strip()
    pointee = SMART_POINTERS.match(written)
    if pointee is not None:
        written = pointee.group(1).strip()
    if not written or " " in written or "<" in written or written in NOT_CLASSES:
        return None
    return written.removeprefix("::")


def parameter_type(signature: str, name: str) -> str | None:
    """The class a parameter of the function whose first line is `signature` has, as written
    (`PyTorchStreamWriter` for `PyTorchStreamWriter& self`; the pointee of a smart pointer);
    None for a name that is no parameter there, or a type that is no class name."""
    if not name.isidentifier() or "(" not in signature:
        return None
    written = parameter_types(signature).get(name)
    if written is None:
        return None
    pointee = SMART_POINTERS.match(written)
    if pointee is not None:
        written = pointee.group(1)
    if "<" in written or written in ("auto", "int", "bool", "float", "double", "char", "void", "size_t", "int64_t"):
        return None
    return written


@functools.lru_cache(maxsize=4096)
def parameter_types(signature: str) -> dict[str, str]:
    """Each parameter's type as written, by name, read once per signature."""
    types = {}
    for written in parenthesised_items(signature, templates=True) or []:
        match = _PARAMETER.match(written)
        if match is not None:
            types[match.group(2)] = match.group(1).strip()
    return types
