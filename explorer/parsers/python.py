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
import warnings

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
from explorer.parsers.common import ScopeMap, collapse, expand, module_name, source_order
from explorer.parsers.python_flow import flow_facts
from explorer.parsers.python_grammar_gaps import repaired
from explorer.stage_clock import stage

_DOTTED = re.compile(r"[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$")
_SKIPPED_NAMES = {"__all__", "__slots__", "__doc__"}


def is_package_init(path: str) -> bool:
    return path.rsplit("/", 1)[-1].split(".")[0] == "__init__"


def parse_python(path: str, source: bytes) -> FileFacts:
    module = module_name(path)
    facts = FileFacts(path=path, lang=Language.PYTHON)
    nul = source.find(b"\x00")
    if nul >= 0:
        # Python refuses a file with a NUL byte anywhere; tree-sitter's scanner takes one in a
        # string for the end of the file. It reads a copy with spaces in their place: the same
        # offsets and lines, and the rest of the file indexed.
        nul_line = source.count(b"\n", 0, nul) + 1
        reason = f"NUL byte at line {nul_line}: Python cannot read this file; indexed the rest"
        facts.diagnostics.append(Diagnostic(path, reason, skipped=False))
        source = source.replace(b"\x00", b" ")
    tree = tsx.parse(Language.PYTHON, source)
    verdict = _python_verdict(source) if tree.root_node.has_error and nul < 0 else None
    if verdict is _ACCEPTED and (bridged := repaired(source, tree)):
        source, tree = bridged  # valid Python the grammar cannot read, read by libcst
        verdict = None
    root = tree.root_node
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
    if verdict is not None:
        facts.diagnostics.append(Diagnostic(path, _syntax_problem(source, root, verdict), skipped=False))

    # The binding hands captures back in an order that changes from run to run; the facts
    # (and which of two imports of one name wins) must not.
    found = {
        capture: sorted(nodes, key=_position)
        for capture, nodes in tsx.captures(
            tsx.query(Language.PYTHON, "definitions", "imports", "calls", "bindings"), root
        ).items()
    }
    facts.imports.extend(_imports(found, module, is_package_init(path)))
    # Of two imports binding one name, the later in the file wins, as it does when it runs.
    bindings = {b.name: b.target for b in sorted(facts.imports, key=lambda b: b.line) if b.name != "*"}
    scopes = ScopeMap(module)
    _definitions(found, module, facts, bindings, scopes, source)
    _calls(found, facts, bindings, scopes, source)
    if _EXTENSION_WORDS.search(source):
        facts.symbols.extend(_extensions(found, path, source))
        _add_inline_cpp(found, facts, root, source)
    facts.symbols.sort(key=source_order)
    package = module if is_package_init(path) else module.rpartition(".")[0]
    with stage("python value-flow facts"):
        facts.flow = flow_facts(root, module, package, found)
    return facts


def _position(node: tsx.Node) -> tuple[int, int]:
    return node.start_byte, node.end_byte


_ACCEPTED = "accepted"  # Python's own parser reads the file


def _python_verdict(source: bytes) -> object:
    """What Python's own parser (which compiles, never runs) says of the file: _ACCEPTED, or
    the exception it stopped with. Asked once, where tree-sitter stopped: only an accepted file
    is handed to libcst (ten times slower; a broken file has no gap to bridge), and the
    diagnostic words the rest."""
    try:
        with warnings.catch_warnings():
            # Only its verdict is wanted: an invalid escape in a string is no news here, and
            # where warnings are errors it would be reported in place of the real problem.
            warnings.simplefilter("ignore")
            ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        return error
    return _ACCEPTED


def _syntax_problem(source: bytes, root: tsx.Node, verdict: object) -> str:
    """Say what tree-sitter could not read: Python's verdict tells a real syntax error from
    newer syntax the grammar does not know yet.

    Every answer names a line of the file: where Python's parser names none or counts past
    the end (it also ends lines at a lone carriage return), or gives up on deep nesting with
    RecursionError or MemoryError, tree-sitter's first error stands in."""
    last_line = source.count(b"\n") + 1
    if isinstance(verdict, SyntaxError):
        message = " ".join(str(verdict.msg).split())
        if verdict.lineno is not None and 1 <= verdict.lineno <= last_line:
            return f"syntax error at line {verdict.lineno}: {message}; indexed what parsed"
        return f"syntax error near line {_first_error_line(root)}: {message}; indexed what parsed"
    if isinstance(verdict, (RecursionError, MemoryError)):
        return (
            f"the Python grammar cannot read line {_first_error_line(root)}, and the file is nested too deeply"
            " for Python's parser to check it; indexed what parsed"
        )
    if verdict is _ACCEPTED:
        return f"the Python grammar cannot read line {_first_error_line(root)} (valid Python); indexed the rest"
    return f"syntax error near line {_first_error_line(root)}; indexed what parsed"  # ValueError: a NUL byte


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
    found: dict[str, list[tsx.Node]],
    module: str,
    facts: FileFacts,
    bindings: dict[str, str],
    scopes: ScopeMap,
    source: bytes,
) -> None:
    class_members: dict[str, set[str]] = {}
    definitions = [(node, SymbolKind.CLASS) for node in found.get("definition.class", [])]
    definitions += [(node, SymbolKind.FUNCTION) for node in found.get("definition.function", [])]
    definitions.sort(key=lambda item: item[0].start_byte)
    nodes = [node for node, _ in definitions]
    # None for a definition that error recovery left without a name: it is no symbol, and
    # adds no segment to the names of what it holds.
    names = [tsx.text(node.child_by_field_name("name")) or None for node in nodes]
    for index, around in enumerate(_enclosing(nodes, nodes)):
        node, kind = definitions[index]
        name = names[index]
        if name is None:
            continue
        enclosing = [outer_name for outer in around if (outer_name := names[outer]) is not None]
        qname = ".".join([module, *enclosing, name])
        if kind is SymbolKind.FUNCTION and enclosing and nodes[around[-1]].type == "class_definition":
            kind = SymbolKind.METHOD
        signature = collapse(source[node.start_byte : _header_end(node)].decode("utf-8", errors="replace"))
        facts.symbols.append(
            Symbol(qname, name, kind, Language.PYTHON, facts.path, tsx.line(node), tsx.end_line(node), signature)
        )
        scopes.add(node.start_byte, node.end_byte, qname)
        if not enclosing:
            bindings.setdefault(name, qname)
        else:
            class_members.setdefault(".".join([module, *enclosing]), set()).add(name)

    assignments = found.get("definition.assignment", [])
    for node, around in zip(assignments, _enclosing(nodes, assignments)):
        if around and nodes[around[-1]].type == "function_definition":
            continue  # locals are not symbols
        enclosing = [outer_name for outer in around if (outer_name := names[outer]) is not None]
        _assignment(node, module, enclosing, facts, bindings, class_members)


def _header_end(node: tsx.Node) -> int:
    """Where a def or class header ends: at its colon, before any comment that follows it."""
    end = node.end_byte
    for child in node.children:
        if child.type == ":":
            end = child.start_byte
        elif child.type == "block":
            break
    return end


def _enclosing(definitions: list[tsx.Node], nodes: list[tsx.Node]) -> list[tuple[int, ...]]:
    """For each of `nodes`, the indexes in `definitions` of those that hold it, outermost first.

    One sweep over byte ranges in source order, since ranges in a syntax tree either nest or
    do not meet. Climbing `node.parent` instead costs the depth squared per node: tree-sitter
    finds a parent by descending from the root, which made 500 nested definitions take 6 s."""
    # At equal ranges a node comes before a definition, so that no definition holds itself.
    order = sorted(
        [(node.start_byte, -node.end_byte, 0, index) for index, node in enumerate(nodes)]
        + [(node.start_byte, -node.end_byte, 1, index) for index, node in enumerate(definitions)]
    )
    around: list[tuple[int, ...]] = [()] * len(nodes)
    open_definitions: list[int] = []
    for _start, negative_end, is_definition, index in order:
        while open_definitions and definitions[open_definitions[-1]].end_byte < -negative_end:
            open_definitions.pop()
        if is_definition:
            open_definitions.append(index)
        else:
            around[index] = tuple(open_definitions)
    return around


def _assignment(
    node: tsx.Node,
    module: str,
    enclosing: list[str],
    facts: FileFacts,
    bindings: dict[str, str],
    class_members: dict[str, set[str]],
) -> None:
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
            Symbol(
                qname, name, kind, Language.PYTHON, facts.path, tsx.line(node), tsx.end_line(node), signature, target
            )
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
    """A string built from literals: `"a"`, `r"a" "b"`, `"a" + f"b"`, `"{}".format(x)`.

    Read with a work list: a chain of 100,000 `+` is one level deeper per operand."""
    pending: list[tsx.Node | None] = [node]
    while pending:
        part = pending.pop()
        if part is None:
            return False
        if part.type in ("string", "concatenated_string"):
            continue
        if part.type == "binary_operator":
            pending += [part.child_by_field_name("left"), part.child_by_field_name("right")]
        elif part.type == "parenthesized_expression" and part.named_child_count == 1:
            pending.append(part.named_children[0])
        elif part.type == "call":
            function = part.child_by_field_name("function")
            if function is None or function.type != "attribute":
                return False
            pending.append(function.child_by_field_name("object"))
        else:
            return False
    return True


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
            written = source[start : min(node.end_byte, start + 200)]
            names = spelled.get(written)
            if names is None:
                callee = collapse(written.decode("utf-8", "replace"))
                names = spelled[written] = (callee, expand(callee, bindings) if _DOTTED.match(callee) else callee)
            row, column = node.start_point
            append(CallSite(innermost(start), names[0], names[1], row + 1, column - shift, kind))


# -- compiled extensions --------------------------------------------------------------------

_EXTENSION_WORDS = re.compile(rb"[Ee]xtension\(|load(?:_inline)?\(")


def _makes_extension(callee: str) -> bool:
    """`CUDAExtension`, `CppExtension`, `Extension`, a subclass like `CMakeExtension`, a local
    `extension = CUDAExtension if ... else CppExtension`; cpp_extension's `load` and
    `load_inline` (with a name)."""
    name = callee.rpartition(".")[2]
    return "extension" in name.lower() or name in ("load", "load_inline")


def _extensions(found: dict[str, list[tsx.Node]], path: str, source: bytes) -> list[Symbol]:
    """Compiled modules the file declares: `CUDAExtension("pkg._C", sources=[...])` in a
    setup.py, `torch.utils.cpp_extension.load(name="ext", sources=[...])`. Read, never run: a
    name or a source list the file computes is not known (names/extensions.py then goes by
    folders)."""
    declared = []
    for callee in found.get("callee", []):
        call = callee.parent
        if call is None or call.type != "call" or not _makes_extension(tsx.text(callee)):
            continue
        arguments = call.child_by_field_name("arguments")
        if arguments is None:
            continue
        positional = [a for a in arguments.named_children if a.type not in ("keyword_argument", "comment")]
        keywords = {
            tsx.text(a.child_by_field_name("name")): a.child_by_field_name("value")
            for a in arguments.named_children
            if a.type == "keyword_argument" and a.child_by_field_name("name") is not None
        }
        is_load = tsx.text(callee).rpartition(".")[2] in ("load", "load_inline")
        name_node = keywords.get("name") or (positional[0] if positional else None)
        name = _string_value(name_node)
        if (
            name is None
            or not _DOTTED.fullmatch(name)
            or (is_load and "name" not in keywords and len(positional) < 2)
            or (not is_load and "sources" not in keywords and len(positional) < 2)
        ):
            continue
        if tsx.text(callee).rpartition(".")[2] == "load_inline":
            relative = path  # its C++ is written in this file (parsers/inline_cpp.py)
        else:
            listed = keywords.get("sources") or (positional[1] if len(positional) > 1 else None)
            sources = (
                [_string_value(item) for item in listed.named_children]
                if listed is not None and listed.type == "list"
                else []
            )
            folder = path.rpartition("/")[0]
            relative = ";".join(f"{folder}/{item}" if folder else item for item in sources if item)
        statement = " ".join(tsx.text(call).split())[:300]
        declared.append(
            Symbol(
                name,
                name.rpartition(".")[2],
                SymbolKind.EXTENSION,
                Language.PYTHON,
                path,
                tsx.line(call),
                tsx.end_line(call),
                statement,
                relative or None,
            )
        )
    return declared


def _add_inline_cpp(found: dict[str, list[tsx.Node]], facts: FileFacts, root: tsx.Node, source: bytes) -> None:
    """The C++ that `load_inline` calls are given as strings, read where it is written."""
    calls = [
        callee.parent
        for callee in found.get("callee", [])
        if callee.parent is not None
        and callee.parent.type == "call"
        and tsx.text(callee).rpartition(".")[2] == "load_inline"
    ]
    if not calls:
        return
    from explorer.parsers.inline_cpp import inline_facts, module_assignments

    module_level = module_assignments(root)
    for call in calls:
        inline = inline_facts(call, facts.path, source, module_level)
        facts.symbols.extend(inline.symbols)
        facts.calls.extend(inline.calls)
        facts.dispatch.extend(inline.dispatch)
        facts.imports.extend(inline.imports)


def _string_value(node: tsx.Node | None) -> str | None:
    """A plain string literal's text (no f-string, no concatenation), or None."""
    if node is None or node.type != "string":
        return None
    parts = [child for child in node.named_children if child.type not in ("string_start", "string_end")]
    if any(child.type != "string_content" for child in parts):
        return None
    return "".join(tsx.text(child) for child in parts)
