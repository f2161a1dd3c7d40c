"""The scopes around a C++ definition and the names it is known by: the namespaces and classes
enclosing each node (recovered where error recovery lost a namespace's braces), whether it
is in an anonymous namespace, the name a declarator introduces, its qualified name and its
signature as shown."""

from __future__ import annotations

import dataclasses

from explorer import treesitter as tsx
from explorer.parsers.common import ScopeMap, collapse, strip_template_args
from explorer.parsers.cpp_namespaces import (
    NamespaceExtent,
    anonymous_map,
    namespace_extents,
    namespace_map,
)

_CLASS_TYPES = {"class_specifier", "struct_specifier"}


class RecoveredNamespaces:
    """Namespaces by brace scan, computed on first need: for a definition that error recovery
    left inside an ERROR node, whose namespace ancestors in the tree may be gone."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self._extents: list[NamespaceExtent] | None = None
        self._map: ScopeMap | None = None
        self._anonymous: ScopeMap | None = None

    @property
    def scanned(self) -> bool:
        return self._extents is not None

    @property
    def extents(self) -> list[NamespaceExtent]:
        if self._extents is None:
            self._extents = namespace_extents(self.source)
        return self._extents

    def at(self, offset: int) -> str:
        if self._map is None:
            self._map = namespace_map(self.extents)
        return self._map.innermost(offset)

    def in_anonymous(self, offset: int) -> bool:
        if self._anonymous is None:
            self._anonymous = anonymous_map(self.extents)
        return bool(self._anonymous.innermost(offset))


@dataclasses.dataclass(frozen=True, slots=True)
class Enclosure:
    """What the children of a node are inside: the names of the namespaces and classes
    around them, outermost first; which names are namespaces; whether any ancestor is an
    ERROR node; whether the nearest named scope is a class (None: no scope yet)."""

    names: tuple[str, ...] = ()
    from_namespace: tuple[bool, ...] = ()
    in_error: bool = False
    in_class: bool | None = None
    in_anonymous: bool = False  # inside an anonymous namespace: what it defines is file-local

    def inside(self, node: tsx.Node) -> Enclosure:
        kind = node.type
        if len(self.names) >= MAX_SCOPE_DEPTH and kind != "ERROR":
            return self  # deeper scopes add no name (parse_cpp says so in a diagnostic)
        if kind == "ERROR":
            return dataclasses.replace(self, in_error=True)
        if kind == "namespace_definition":
            name = node.child_by_field_name("name")
            if name is None:  # anonymous: members are reached by their plain name
                return dataclasses.replace(self, in_class=False, in_anonymous=True)
            return Enclosure(
                (*self.names, tsx.text(name).replace(" ", "")),
                (*self.from_namespace, True),
                self.in_error,
                False,
                self.in_anonymous,
            )
        if kind in _CLASS_TYPES:
            name = node.child_by_field_name("name")
            if name is not None:
                return Enclosure(
                    (*self.names, strip_template_args(tsx.text(name))),
                    (*self.from_namespace, False),
                    self.in_error,
                    True,
                    self.in_anonymous,
                )
        return self


# No real code nests namespaces and classes this deep; past it, every deeper name would make
# the qualified names (and the work) grow with the square of the depth.
MAX_SCOPE_DEPTH = 256


class Enclosures:
    """The enclosure of each node a parse asks about, remembered per ancestor. tree-sitter
    finds a node's parent by walking down from the root, so climbing to the root from every
    definition costs the cube of the nesting depth (1,000 nested namespaces: 18 s); with
    each ancestor remembered, a climb stops at the first one already seen. One per parse:
    node ids are addresses, reused by later trees."""

    def __init__(self) -> None:
        self._inside: dict[int, Enclosure] = {}  # node id -> what its children are inside
        self.too_deep_at: int | None = None  # the line where scopes reach MAX_SCOPE_DEPTH

    def above(self, node: tsx.Node) -> Enclosure:
        climbed: list[tsx.Node] = []
        parent = node.parent
        while parent is not None and parent.id not in self._inside:
            climbed.append(parent)
            parent = parent.parent
        enclosure = self._inside[parent.id] if parent is not None else Enclosure()
        for ancestor in reversed(climbed):  # outermost first
            enclosure = self._inside[ancestor.id] = enclosure.inside(ancestor)
            if len(enclosure.names) >= MAX_SCOPE_DEPTH and self.too_deep_at is None:
                self.too_deep_at = tsx.line(ancestor)
        return enclosure


def enclosing_names(
    node: tsx.Node, namespaces: RecoveredNamespaces | None, enclosures: Enclosures
) -> tuple[list[str], bool]:
    """Names of the namespaces and classes around `node`, outermost first, and whether the
    nearest one is a class. Anonymous namespaces add no name: their members are reached by
    their plain name from the rest of the file. In a file with errors, a node inside an ERROR
    node or outside any namespace node takes its namespaces from the brace scan (error
    recovery may have lost them), its classes from the tree; so does a node whose namespaces in
    the tree are a part of the brace scan's (a stray `}` before `namespace autograd::profiler {`
    in kineto_shim.cpp left it outside `torch` in the tree, and methods in `torch` alone)."""
    enclosure = enclosures.above(node)
    names = list(enclosure.names)
    if namespaces is None:
        return names, bool(enclosure.in_class)
    if enclosure.in_error or not any(enclosure.from_namespace):
        recovered = namespaces.at(node.start_byte)
    else:
        written = "::".join(name for name, namespace in zip(enclosure.names, enclosure.from_namespace) if namespace)
        recovered = namespaces.at(node.start_byte)
        if recovered == written or f"::{written}::" not in f"::{recovered}::":
            return names, bool(enclosure.in_class)  # the tree's are right, or no part of the scan's
    classes = [name for name, namespace in zip(enclosure.names, enclosure.from_namespace) if not namespace]
    return [*(recovered.split("::") if recovered else []), *classes], bool(enclosure.in_class)


def field_name(declarator: tsx.Node) -> str | None:
    """The member a field declarator declares (`name_`, `*sizes_`, `&ref`, `data[4]`); None for
    a member function's declaration (a function declarator under the pointers)."""
    while declarator.type in ("pointer_declarator", "reference_declarator", "array_declarator"):
        inner = declarator.child_by_field_name("declarator")
        if inner is None:  # a reference declarator has no field name
            inner = declarator.named_children[-1] if declarator.named_children else None
        if inner is None:
            return None
        declarator = inner
    return tsx.text(declarator) if declarator.type == "field_identifier" else None


def in_anonymous_namespace(node: tsx.Node, namespaces: RecoveredNamespaces | None, enclosures: Enclosures) -> bool:
    """Whether an anonymous namespace encloses `node`: from the tree, or from the brace scan
    where enclosing_names takes namespaces from it (error recovery may have lost them)."""
    enclosure = enclosures.above(node)
    if enclosure.in_anonymous:
        return True
    recovered = namespaces is not None and (enclosure.in_error or not any(enclosure.from_namespace))
    return recovered and namespaces is not None and namespaces.in_anonymous(node.start_byte)


def declared_name(declarator: tsx.Node | None) -> str | None:
    """The name a function declarator introduces, looking through pointers and references
    (`Tensor& add_out(...)`: the grammar gives a reference declarator no field name)."""
    while declarator is not None:
        if declarator.type == "function_declarator":
            inner = declarator.child_by_field_name("declarator")
            if inner is None:
                return None
            if inner.type in ("parenthesized_declarator", "pointer_declarator", "reference_declarator"):
                declarator = inner
                continue
            return strip_template_args(collapse(tsx.text(inner))).lstrip(":")
        if declarator.type in ("reference_declarator", "parenthesized_declarator"):
            declarator = declarator.named_children[-1] if declarator.named_child_count else None
        else:
            declarator = declarator.child_by_field_name("declarator")
    return None


def qualify(scope: list[str], name: str) -> str:
    return "::".join([*scope, name]) if scope else name


def signature_of(node: tsx.Node) -> str:
    """The header, cut to 300 characters, but never before the name and its template
    arguments: `gemm<float>(` says which specialisation a definition is."""
    body = node.child_by_field_name("body")
    if body is None and node.type == "declaration":  # `void f() {};`, read as a brace initializer
        body = tsx.field(node, "declarator").child_by_field_name("value")
    elif body is None and node.type == "field_declaration":  # the same in a class
        body = node.child_by_field_name("default_value")
    end = body.start_byte if body is not None else node.end_byte
    header = collapse(tsx.head(node, end))
    if len(header) <= 300:
        return header
    parameters = parameters_of(node.child_by_field_name("declarator"))
    named = collapse(tsx.head(node, parameters.start_byte + 1)) if parameters is not None else ""
    return (named if len(named) > 297 else header[:297]) + "..."


def parameters_of(declarator: tsx.Node | None) -> tsx.Node | None:
    """The parameter list of the function a declarator declares (through pointers and
    references, as declared_name looks)."""
    while declarator is not None and declarator.type != "function_declarator":
        if declarator.type in ("reference_declarator", "parenthesized_declarator"):
            declarator = declarator.named_children[-1] if declarator.named_child_count else None
        else:
            declarator = declarator.child_by_field_name("declarator")
    return declarator.child_by_field_name("parameters") if declarator is not None else None
