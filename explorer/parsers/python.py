"""Python facts from one file, read with tree-sitter (fast enough for every file of a large tree).

What it records: the module, its classes, functions, methods, module- and class-level names
(aliases when the right-hand side names another object), import bindings, and every call site
with its enclosing definition. Callees are expanded through the file's own imports and
top-level names only; linking across files is left to the query layer. This is the fast pass
over every file of a tree; what needs scopes and arguments (self.method through the MRO,
functions passed as values) is for a precise per-file analysis run on demand.
"""

from __future__ import annotations

import ast
import re

from explorer import treesitter as tsx
from explorer.model import (
    CallKind,
    CallSite,
    Diagnostic,
    FileFacts,
    ImportBinding,
    Language,
    Symbol,
    SymbolKind,
)
from explorer.parsers.common import ScopeMap, collapse, source_order

_SCOPE_TYPES = {"class_definition", "function_definition"}
_DOTTED = re.compile(r"[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$")
_SKIPPED_NAMES = {"__all__", "__slots__", "__doc__"}


def module_name(path: str) -> str:
    """`torch/nn/modules/conv.py` -> `torch.nn.modules.conv`; a package's `__init__` is the package."""
    stem = path.rsplit(".", 1)[0]
    parts = stem.split("/")
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def is_package_init(path: str) -> bool:
    return path.rsplit("/", 1)[-1].split(".")[0] == "__init__"


def parse_python(path: str, source: bytes) -> FileFacts:
    module = module_name(path)
    tree = tsx.parse(Language.PYTHON, source)
    root = tree.root_node
    facts = FileFacts(path=path, lang=Language.PYTHON)
    facts.symbols.append(
        Symbol(
            qname=module,
            name=module.rsplit(".", 1)[-1],
            kind=SymbolKind.MODULE,
            lang=Language.PYTHON,
            path=path,
            line=1,
            end_line=max(1, tsx.end_line(root)),
            signature=f"module {module}",
        )
    )
    if root.has_error:
        facts.diagnostics.append(Diagnostic(path, _syntax_problem(source, root), skipped=False))

    found = tsx.captures(tsx.query(Language.PYTHON, "definitions", "imports", "calls"), root)
    facts.imports.extend(_imports(found, module, is_package_init(path)))
    bindings = {b.name: b.target for b in facts.imports if b.name != "*"}
    scopes = ScopeMap(module)
    _definitions(found, module, facts, bindings, scopes)
    _calls(found, facts, bindings, scopes, source)
    facts.symbols.sort(key=source_order)
    return facts


def _syntax_problem(source: bytes, root: tsx.Node) -> str:
    """Say what tree-sitter could not read. Python's own parser (which compiles, never runs)
    tells a real syntax error from newer syntax the grammar does not know yet."""
    try:
        ast.parse(source)
    except SyntaxError as error:
        return f"syntax error at line {error.lineno}: {error.msg}; indexed what parsed"
    except (ValueError, RecursionError, MemoryError):
        pass
    else:
        return f"the Python grammar cannot read line {_first_error_line(root)} (valid Python); indexed the rest"
    return f"syntax error near line {_first_error_line(root)}; indexed what parsed"


def _first_error_line(root: tsx.Node) -> int:
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            return tsx.line(node)
        if node.has_error:
            stack.extend(reversed(node.children))
    return tsx.line(root)


# -- imports -------------------------------------------------------------------------------


def _imports(found: dict[str, list[tsx.Node]], module: str, is_package: bool) -> list[ImportBinding]:
    bindings: list[ImportBinding] = []
    for node in found.get("import", []):
        for item in node.children_by_field_name("name"):
            line = tsx.line(item)
            if item.type == "aliased_import":
                target = tsx.text(item.child_by_field_name("name"))
                alias = tsx.text(item.child_by_field_name("alias"))
                bindings.append(ImportBinding(module, alias, target, line))
            else:
                # `import a.b.c` binds `a`, and makes `a.b.c` reachable through it.
                dotted = tsx.text(item)
                bindings.append(ImportBinding(module, dotted.split(".")[0], dotted.split(".")[0], line))
    for node in found.get("import.from", []):
        source = node.child_by_field_name("module_name")
        if source is None:
            continue
        base = _absolute_module(tsx.text(source), module, is_package)
        line = tsx.line(node)
        if any(child.type == "wildcard_import" for child in node.children):
            bindings.append(ImportBinding(module, "*", base, line))
            continue
        for item in node.children_by_field_name("name"):
            if item.type == "aliased_import":
                name = tsx.text(item.child_by_field_name("name"))
                alias = tsx.text(item.child_by_field_name("alias"))
            else:
                name = alias = tsx.text(item)
            bindings.append(ImportBinding(module, alias, f"{base}.{name}" if base else name, tsx.line(item)))
    return bindings


def _absolute_module(written: str, module: str, is_package: bool) -> str:
    """Resolve `..functional` against the importing module's package."""
    dots = len(written) - len(written.lstrip("."))
    if dots == 0:
        return written
    package = module.split(".") if is_package else module.split(".")[:-1]
    if dots > 1:
        package = package[: len(package) - (dots - 1)]
    rest = written[dots:]
    return ".".join([*package, rest] if rest else package)


# -- definitions ---------------------------------------------------------------------------


def _definitions(
    found: dict[str, list[tsx.Node]], module: str, facts: FileFacts, bindings: dict[str, str], scopes: ScopeMap
) -> None:
    class_members: dict[str, set[str]] = {}
    definitions = [(node, SymbolKind.CLASS) for node in found.get("definition.class", [])]
    definitions += [(node, SymbolKind.FUNCTION) for node in found.get("definition.function", [])]
    definitions.sort(key=lambda item: item[0].start_byte)
    for node, kind in definitions:
        name = tsx.text(node.child_by_field_name("name"))
        enclosing = _enclosing_scopes(node)
        qname = ".".join([module, *enclosing, name])
        if kind is SymbolKind.FUNCTION and enclosing and _parent_scope_type(node) == "class_definition":
            kind = SymbolKind.METHOD
        signature = collapse(tsx.head(node, _header_end(node)))
        facts.symbols.append(
            Symbol(qname, name, kind, Language.PYTHON, facts.path, tsx.line(node), tsx.end_line(node), signature)
        )
        scopes.add(node.start_byte, node.end_byte, qname)
        if not enclosing:
            bindings.setdefault(name, qname)
        else:
            class_members.setdefault(".".join([module, *enclosing]), set()).add(name)

    for node in found.get("definition.assignment", []):
        _assignment(node, module, facts, bindings, class_members)


def _header_end(node: tsx.Node) -> int:
    """Where a def or class header ends: at its colon, before any comment that follows it."""
    end = node.end_byte
    for child in node.children:
        if child.type == ":":
            end = child.start_byte
        elif child.type == "block":
            break
    return end


def _enclosing_scopes(node: tsx.Node) -> list[str]:
    names: list[str] = []
    parent = node.parent
    while parent is not None:
        if parent.type in _SCOPE_TYPES:
            name = parent.child_by_field_name("name")
            if name is not None:
                names.append(tsx.text(name))
        parent = parent.parent
    names.reverse()
    return names


def _parent_scope_type(node: tsx.Node) -> str | None:
    parent = node.parent
    while parent is not None:
        if parent.type in _SCOPE_TYPES:
            return parent.type
        parent = parent.parent
    return None


def _assignment(
    node: tsx.Node,
    module: str,
    facts: FileFacts,
    bindings: dict[str, str],
    class_members: dict[str, set[str]],
) -> None:
    scope_type = _parent_scope_type(node)
    if scope_type == "function_definition":
        return  # locals are not symbols
    enclosing = _enclosing_scopes(node)
    owner = ".".join([module, *enclosing])
    targets = _target_names(node.child_by_field_name("left"))
    value = node.child_by_field_name("right")
    while value is not None and value.type == "assignment":  # a = b = value
        targets += _target_names(value.child_by_field_name("left"))
        value = value.child_by_field_name("right")

    aliased = _aliased_name(value) if value is not None else None
    target = None
    if aliased is not None:
        members = class_members.get(owner, set())
        head = aliased.split(".")[0]
        if enclosing and head in members:
            target = f"{owner}.{aliased}"  # a class body refers to its own earlier members
        else:
            target = expand(aliased, bindings)
    kind = SymbolKind.ALIAS if target is not None else SymbolKind.VARIABLE
    signature = _assignment_signature(node, value, aliased)
    for name in targets:
        if name in _SKIPPED_NAMES:
            continue
        qname = f"{owner}.{name}"
        facts.symbols.append(
            Symbol(qname, name, kind, Language.PYTHON, facts.path, tsx.line(node), tsx.end_line(node), signature, target)
        )
        if not enclosing:
            bindings.setdefault(name, qname)


def _assignment_signature(node: tsx.Node, value: tsx.Node | None, aliased: str | None) -> str:
    """The statement on one line; a wrapped alias shows what it wraps, not its docstring."""
    left = collapse(tsx.text(node.child_by_field_name("left")))
    if aliased is not None and value is not None and value.type == "call":
        return f"{left} = {collapse(tsx.text(value.child_by_field_name('function')))}({aliased}, ...)"
    statement = collapse(tsx.text(node))
    return statement if len(statement) <= 160 else statement[:157] + "..."


def _target_names(left: tsx.Node | None) -> list[str]:
    if left is None:
        return []
    if left.type == "identifier":
        return [tsx.text(left)]
    if left.type in ("pattern_list", "tuple_pattern", "list_pattern"):
        return [tsx.text(child) for child in left.named_children if child.type == "identifier"]
    return []


def _aliased_name(value: tsx.Node) -> str | None:
    """The dotted name an assignment's value stands for, if it is an alias.

    `x = torch.conv2d` aliases `torch.conv2d`. So does the docstring-attaching idiom
    `conv2d = _add_docstr(torch.conv2d, r\"\"\"...\"\"\")`: a call whose first argument is a
    dotted name and whose second is a string returns that first argument.
    """
    if value.type in ("identifier", "attribute"):
        written = tsx.text(value)
        return written if _DOTTED.match(written) else None
    if value.type == "call":
        args = value.child_by_field_name("arguments")
        positional = [a for a in args.named_children if a.type != "comment"] if args is not None else []
        if (
            len(positional) >= 2
            and positional[0].type in ("identifier", "attribute")
            and all(_is_text(arg) for arg in positional[1:])
        ):
            written = tsx.text(positional[0])
            return written if _DOTTED.match(written) else None
    return None


def _is_text(node: tsx.Node) -> bool:
    """A string built from literals: `"a"`, `r"a" "b"`, `"a" + f"b"`, `"{}".format(x)`."""
    if node.type in ("string", "concatenated_string"):
        return True
    if node.type == "binary_operator":
        return _is_text(tsx.field(node, "left")) and _is_text(tsx.field(node, "right"))
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        return _is_text(node.named_children[0])
    if node.type == "call":
        function = node.child_by_field_name("function")
        return function is not None and function.type == "attribute" and _is_text(tsx.field(function, "object"))
    return False


def expand(dotted: str, bindings: dict[str, str]) -> str:
    """Rewrite the first segment of a dotted name through the file's bindings."""
    head, _, rest = dotted.partition(".")
    bound = bindings.get(head)
    if bound is None:
        return dotted
    return f"{bound}.{rest}" if rest else bound


# -- calls ---------------------------------------------------------------------------------


def _calls(
    found: dict[str, list[tsx.Node]], facts: FileFacts, bindings: dict[str, str], scopes: ScopeMap, source: bytes
) -> None:
    # The hot loop of indexing a large tree (a million call sites): kept to plain operations,
    # and what depends only on the callee's text is worked out once per distinct text.
    append = facts.calls.append
    innermost = scopes.innermost
    spelled: dict[bytes, tuple[str, str]] = {}
    for kind, capture in ((CallKind.CALL, "callee"), (CallKind.DECORATOR, "decorator_callee")):
        shift = 0 if kind is CallKind.CALL else 1  # a decorator starts at its `@`
        for node in found.get(capture, []):
            start = node.start_byte
            written = source[start:min(node.end_byte, start + 200)]
            names = spelled.get(written)
            if names is None:
                callee = collapse(written.decode("utf-8", "replace"))
                names = spelled[written] = (callee, expand(callee, bindings) if _DOTTED.match(callee) else callee)
            row, column = node.start_point
            append(CallSite(innermost(start), names[0], names[1], row + 1, column - shift, kind))
