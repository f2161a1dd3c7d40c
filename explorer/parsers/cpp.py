"""C++ and CUDA facts from one file, read with tree-sitter.

What it records: namespaces, classes, structs, enums, function and method definitions with
their namespace path (`at::native::cudnn_convolution`), CUDA `__global__` kernels, the macro
registrations PyTorch wires kernels with (TORCH_IMPL_FUNC, TORCH_META_FUNC, DECLARE/DEFINE/
REGISTER_DISPATCH), and every call site: plain calls, kernel launches, and plain names passed
as arguments (function pointers), and invocations of function-like macros. The file's own
macros are expanded first (parsers/cpp_preprocessor.py), so what they define and call is read
as the compiler reads it, at the line of the invocation. Both sides of a preprocessor
conditional are part of the tree tree-sitter builds, so both are indexed.
"""

from __future__ import annotations

import dataclasses
import itertools
import re

from explorer import treesitter as tsx
from explorer.model import (
    FUNCTOR_MARK,
    LAMBDA_MARK,
    CallKind,
    CallSite,
    Diagnostic,
    FileFacts,
    ImportBinding,
    Language,
    Symbol,
    SymbolKind,
)
from explorer.parsers import cpp_bindings
from explorer.parsers.common import ScopeMap, collapse, source_order, strip_template_args
from explorer.parsers.cpp_bindings import ScopeOf
from explorer.parsers.cpp_macros import Macro, call_end
from explorer.parsers.cpp_namespaces import (
    matching_brace,
)
from explorer.parsers.cpp_preprocessor import Invocation, Preprocessed, preprocess
from explorer.parsers.cpp_rewrites import readable_to_the_grammar
from explorer.parsers.cpp_scopes import (
    MAX_SCOPE_DEPTH,
    Enclosures,
    RecoveredNamespaces,
    declared_name,
    enclosing_names,
    field_name,
    in_anonymous_namespace,
    qualify,
    signature_of,
)
from explorer.stage_clock import stage

_CONTAINER_KINDS = {
    "definition.class": SymbolKind.CLASS,
    "definition.struct": SymbolKind.STRUCT,
    "definition.enum": SymbolKind.ENUM,
}


def parse_cpp(path: str, source: bytes, lang: Language = Language.CPP) -> FileFacts:
    """One pipeline, one stage per idea:
    1. the preprocessor (parsers/cpp_preprocessor.py): the file's own macros expanded where
       it invokes them, every line where it was;
    2. what the grammar cannot read without a build: attribute macros of other files, launch
       bounds hints, conditionals that split a definition (each blanked, offsets kept);
    3. parse, and run the queries of grammars/cpp (and grammars/cuda, for CUDA and for a C++
       header of kernels) once;
    4. macro registrations first, since TORCH_IMPL_FUNC bodies look like odd functions;
       then bindings;
    5. definitions, qualified by namespaces and classes (namespaces from a brace scan where
       error recovery lost them);
    6. call sites, attributed to the innermost definition around them; each macro invocation
       is a call site too, and columns go back to the file's.
    """
    too_deep = _nested_too_deep(source)  # checked before the preprocessor's work, and after it
    with stage("C++ preprocessor (macros, conditionals)"):
        preprocessed = preprocess(source) if too_deep is None else None
    if preprocessed is not None and preprocessed.invocations:
        too_deep = _nested_too_deep(preprocessed.text)
    if too_deep is not None or preprocessed is None:
        return FileFacts(
            path=path,
            lang=lang,
            diagnostics=[
                Diagnostic(path, f"brackets nested more than {MAX_NESTING:,} deep at line {too_deep}; not indexed")
            ],
        )
    source = preprocessed.text
    grammar = _grammar(lang, source)
    source = readable_to_the_grammar(source, grammar)
    tree = tsx.parse(grammar, source)
    root = tree.root_node
    facts = FileFacts(path=path, lang=lang)
    facts.diagnostics += [Diagnostic(path, reason, skipped=False) for reason in preprocessed.diagnostics]
    scopes = ScopeMap(path)  # code outside any function is attributed to the file
    # Where error recovery may have swallowed a namespace, braces say where it is.
    namespaces = RecoveredNamespaces(source) if root.has_error else None
    found = tsx.captures(tsx.query(grammar, *_QUERIES[grammar]), root)
    enclosures = Enclosures()
    structured = _registrations(found, lang, facts, scopes, namespaces, enclosures)
    registered_lambdas: set[int] = set()  # start bytes of lambdas bound or registered as kernels
    scope_of = lambda node: enclosing_names(node, namespaces, enclosures)[0]  # noqa: E731
    modules = cpp_bindings.python_modules(root, source, lang, path, scope_of)
    facts.symbols += modules.classes
    facts.module_arguments = modules.arguments
    if found.get("registration.call"):
        registered, kernels, lambdas = cpp_bindings.registrations(
            found["registration.call"], lang, path, scope_of, modules
        )
        facts.symbols += registered
        facts.dispatch += kernels
        for kernel in lambdas:  # its calls are its own, not the registration block's
            facts.symbols.append(kernel.symbol)
            scopes.add(kernel.start_byte, kernel.end_byte, kernel.symbol.qname)
            registered_lambdas.add(kernel.start_byte)
    if found.get("method_table") or b"PyTypeObject" in source:
        tabled, handed_tables = cpp_bindings.method_tables(
            found.get("method_table", []), source, lang, path, scope_of, modules.placed
        )
        facts.symbols += tabled
        facts.module_arguments = [*facts.module_arguments, *handed_tables]
    _definitions(found, lang, facts, scopes, structured, namespaces, enclosures)
    _recovered_definitions(found, lang, facts, scopes, namespaces, enclosures, source)
    if namespaces is not None and b"_FUNC" in source:
        _recovered_structured(source, lang, facts, scopes, namespaces)
    _namespace_symbols(found, lang, facts, source, namespaces, enclosures)
    registered_lambdas |= _lambdas_outside_functions(found, lang, facts, scopes, scope_of)
    handed = _lambdas_handed_to_functions(found, lang, facts, scopes, registered_lambdas)
    values = _values_in_scope(found, scopes, namespaces, enclosures)
    _calls(found, facts, scopes, source, values, handed)
    _using(found, facts)
    _includes_in_namespaces(found, facts, namespaces, enclosures)
    _macro_symbols(lang, facts, preprocessed.macros)
    if preprocessed.invocations:
        _macro_invocations(facts, scopes, source, preprocessed)
    if enclosures.too_deep_at is not None:
        facts.diagnostics.append(
            Diagnostic(
                path,
                f"namespaces and classes nested more than {MAX_SCOPE_DEPTH} deep at line {enclosures.too_deep_at}; "
                "deeper ones add no name to what they define",
                skipped=False,
            )
        )
    facts.symbols.sort(key=source_order)
    return facts


def _grammar(lang: Language, source: bytes) -> Language:
    """The grammar a file is read with: CUDA's for a C++ header that defines or launches
    kernels (flash_attn's launch templates, DistributionTemplates.h; the CUDA grammar reads
    C++ as well), its own language's otherwise."""
    if lang is Language.CPP and (b"__global__" in source or b"<<<" in source):
        return Language.CUDA
    return lang


# Real code nests brackets a few dozen deep. tree-sitter's queries and node parents cost
# time with the square of the nesting, so a file past this is a diagnostic, not a hang.
MAX_NESTING = 1_000
_NOT_BRACKETS = bytes(byte for byte in range(256) if byte not in b"{}()[]")
_DEPTH_STEP = {ord(opening): 1 for opening in "{(["} | {ord(closing): -1 for closing in "})]"}


def _nested_too_deep(source: bytes) -> int | None:
    """The line where brackets first nest deeper than MAX_NESTING, or None. Linear: the
    brackets are picked out in C, and only they are counted here (strings and comments
    are not told apart, which can only overstate the depth)."""
    brackets = source.translate(None, _NOT_BRACKETS)
    if len(brackets) <= MAX_NESTING or max(itertools.accumulate(_DEPTH_STEP[b] for b in brackets)) <= MAX_NESTING:
        return None
    depth = 0
    for offset, byte in enumerate(source):  # only for such a file: where is it?
        depth += _DEPTH_STEP.get(byte, 0)
        if depth > MAX_NESTING:
            return source.count(b"\n", 0, offset) + 1
    return None


_CPP_QUERIES = ("cpp/registrations", "cpp/definitions", "cpp/calls")
_QUERIES = {
    Language.CPP: _CPP_QUERIES,
    Language.CUDA: (*_CPP_QUERIES, "cuda/definitions", "cuda/calls"),
}


# -- registrations -------------------------------------------------------------------------


def _macro_arguments(arguments: tsx.Node) -> list[str]:
    values = []
    for arg in arguments.named_children:
        if arg.type == "comment":
            continue
        values.append(collapse(tsx.text(arg)).lstrip("&").strip())
    return values


def _registrations(
    found: dict[str, list[tsx.Node]],
    lang: Language,
    facts: FileFacts,
    scopes: ScopeMap,
    namespaces: RecoveredNamespaces | None,
    enclosures: Enclosures,
) -> set[int]:
    """Record macro registrations; return the ids of function nodes they account for."""
    accounted: set[int] = set()
    for node in found.get("registration.structured", []):
        macro_call = tsx.field(tsx.field(node, "declarator"), "declarator")
        macro = tsx.text(macro_call.child_by_field_name("declarator"))
        args = _macro_arguments(tsx.field(macro_call, "parameters"))
        if not args:
            continue
        scope, _ = enclosing_names(node, namespaces, enclosures)
        # TORCH_META_FUNC2(add, Tensor) is the meta function of the overload add.Tensor,
        # named like the class the macro expands to.
        name = "_".join(args[:2]) if macro.endswith("FUNC2") else args[0]
        kind = SymbolKind.STRUCTURED_KERNEL if "_IMPL_" in macro else SymbolKind.META_FUNCTION
        qname = qualify(scope, name)
        facts.symbols.append(
            Symbol(qname, name, kind, lang, facts.path, tsx.line(node), tsx.end_line(node), signature_of(node))
        )
        scopes.add(node.start_byte, node.end_byte, qname)
        accounted.add(node.id)

    for node in found.get("registration.dispatch", []):
        macro = tsx.text(node.child_by_field_name("function"))
        args = _macro_arguments(tsx.field(node, "arguments"))
        if not args:
            continue
        scope, _ = enclosing_names(node, namespaces, enclosures)
        statement = collapse(tsx.text(node))
        if macro.startswith(("DECLARE", "DEFINE")):
            stub = args[-1]
            facts.symbols.append(
                Symbol(
                    qualify(scope, stub),
                    stub,
                    SymbolKind.DISPATCH_STUB,
                    lang,
                    facts.path,
                    tsx.line(node),
                    tsx.end_line(node),
                    statement,
                )
            )
        elif len(args) >= 2:
            stub, kernel = args[0], args[1]
            target = kernel if "::" in kernel or not scope else qualify(scope, kernel)
            facts.symbols.append(
                Symbol(
                    qualify(scope, stub),
                    stub,
                    SymbolKind.DISPATCH_REGISTRATION,
                    lang,
                    facts.path,
                    tsx.line(node),
                    tsx.end_line(node),
                    statement,
                    target,
                )
            )
    return accounted


# -- definitions ---------------------------------------------------------------------------


def _definitions(
    found: dict[str, list[tsx.Node]],
    lang: Language,
    facts: FileFacts,
    scopes: ScopeMap,
    skip: set[int],
    namespaces: RecoveredNamespaces | None,
    enclosures: Enclosures,
) -> None:
    for tag, kind in _CONTAINER_KINDS.items():
        for node in found.get(tag, []):
            name_node = node.child_by_field_name("name")
            if name_node is None:
                continue
            name = strip_template_args(tsx.text(name_node))
            scope, _ = enclosing_names(node, namespaces, enclosures)
            header = collapse(tsx.head(node, tsx.field(node, "body").start_byte))
            facts.symbols.append(
                Symbol(
                    qualify(scope, name),
                    name.rsplit("::", 1)[-1],
                    kind,
                    lang,
                    facts.path,
                    tsx.line(node),
                    tsx.end_line(node),
                    header[:300],
                )
            )

    for node in found.get("definition.field", []):
        scope, in_class = enclosing_names(node, namespaces, enclosures)
        if not in_class:
            continue  # a member of a struct with no name, outside any class
        header = collapse(tsx.text(node))[:300]
        for declarator in node.children_by_field_name("declarator"):
            member = field_name(declarator)
            if member:
                facts.symbols.append(
                    Symbol(
                        qualify(scope, member),
                        member,
                        SymbolKind.FIELD,
                        lang,
                        facts.path,
                        tsx.line(declarator),
                        tsx.line(declarator),
                        header,
                    )
                )

    kernels = {node.id for node in found.get("definition.kernel", [])}
    for node in found.get("definition.function", []):
        if node.id in skip:
            continue
        declared = declared_name(node.child_by_field_name("declarator"))
        if not declared:
            continue
        scope, in_class = enclosing_names(node, namespaces, enclosures)
        if not in_class and scopes.innermost(node.start_byte) != facts.path:
            # a function cannot be defined in a function: this is a call the grammar misread
            # (`gpu_reduce_kernel<T, U, 2>(iter, ops, acc_t{});`): a call of its caller's
            row, column = node.start_point
            facts.calls.append(CallSite(scopes.innermost(node.start_byte), declared, declared, row + 1, column))
            continue
        registered = _registered_by_macro(declared)
        if registered is not None:
            declared = registered[0]
        qname = qualify(scope, declared)
        file_local = (not in_class and _declared_static(node)) or in_anonymous_namespace(node, namespaces, enclosures)
        if registered is not None:
            kind = registered[1]
        elif node.id in kernels:
            kind = SymbolKind.KERNEL
        elif in_class or _looks_like_member(declared):
            kind = SymbolKind.METHOD
        else:
            kind = SymbolKind.FUNCTION
        facts.symbols.append(
            Symbol(
                qname,
                qname.rsplit("::", 1)[-1],
                kind,
                lang,
                facts.path,
                tsx.line(node),
                tsx.end_line(node),
                signature_of(node),
                file_local=file_local,
            )
        )
        scopes.add(node.start_byte, node.end_byte, qname)


def _declared_static(definition: tsx.Node) -> bool:
    """`static void f()` at namespace scope (a static member function is not file-local, and
    the caller knows whether the definition is in a class)."""
    return any(child.type == "storage_class_specifier" and tsx.text(child) == "static" for child in definition.children)


_STRUCTURED_MACRO = re.compile(r"(TORCH_(?:IMPL|META|PRECOMPUTE_META)_FUNC2?)\(([\w ,]+)\)")


def _registered_by_macro(declared: str) -> tuple[str, SymbolKind] | None:
    """`TORCH_IMPL_FUNC(cat_out_cuda)` where error recovery took the macro for the name: the
    structured kernel's name and kind, as _registrations gives them."""
    match = _STRUCTURED_MACRO.fullmatch(declared)
    if match is None:
        return None
    macro, arguments = match.group(1), [part.strip() for part in match.group(2).split(",")]
    name = "_".join(arguments[:2]) if macro.endswith("FUNC2") else arguments[0]
    return name, SymbolKind.STRUCTURED_KERNEL if "_IMPL_" in macro else SymbolKind.META_FUNCTION


_RETURN_TYPE_PARTS = {
    "primitive_type",
    "type_identifier",
    "qualified_identifier",
    "template_type",
    "sized_type_specifier",
    "storage_class_specifier",
    "type_qualifier",
    "placeholder_type_specifier",
    "virtual",
    "inline",
}


def _recovered_definitions(
    found: dict[str, list[tsx.Node]],
    lang: Language,
    facts: FileFacts,
    scopes: ScopeMap,
    namespaces: RecoveredNamespaces | None,
    enclosures: Enclosures,
    source: bytes,
) -> None:
    """Functions that error recovery took apart: a declarator in an ERROR node followed by
    the `{` of a body, which ends at the brace that closes it."""
    for declarator in found.get("definition.recovered", []):
        opening = declarator.next_sibling
        if opening is None or opening.type != "{":
            continue
        if scopes.innermost(declarator.start_byte) != facts.path:
            continue  # inside a function: `g<T>(x, acc_t{})` is a call with a braced argument, not a definition
        declared = declared_name(declarator)
        if not declared:
            continue
        first = declarator
        while first.prev_sibling is not None and first.prev_sibling.type in _RETURN_TYPE_PARTS:
            first = first.prev_sibling
        end = matching_brace(source, opening.start_byte)
        scope, _ = enclosing_names(declarator, namespaces, enclosures)
        registered = _registered_by_macro(declared)
        if registered is not None:
            declared, kind = registered
        else:
            kind = SymbolKind.METHOD if _looks_like_member(declared) else SymbolKind.FUNCTION
        qname = qualify(scope, declared)
        end_line = tsx.line(first) + source.count(b"\n", first.start_byte, max(first.start_byte, end - 1))
        signature = collapse(source[first.start_byte : opening.start_byte].decode("utf-8", "replace"))
        # `static` is not read here: error recovery may have lost the class around a static
        # member function, which is not file-local.
        file_local = in_anonymous_namespace(declarator, namespaces, enclosures)
        facts.symbols.append(
            Symbol(
                qname,
                declared.rsplit("::", 1)[-1],
                kind,
                lang,
                facts.path,
                tsx.line(first),
                end_line,
                signature,
                file_local=file_local,
            )
        )
        scopes.add(first.start_byte, end, qname)


_BODY_OPENS = re.compile(rb"\s*\{")
_STRUCTURED_HEADER = re.compile(
    rb"^[ \t]*(TORCH_(?:IMPL|META|PRECOMPUTE_META)_FUNC2?[ \t]*\([\w ,]+\))\s*\(", re.MULTILINE
)


def _recovered_structured(
    source: bytes, lang: Language, facts: FileFacts, scopes: ScopeMap, namespaces: RecoveredNamespaces
) -> None:
    """`TORCH_IMPL_FUNC(sum_out_mps)(...) {...}` where error recovery flattened the code into
    loose tokens (an Objective-C++ file read with the C++ grammar leaves no function nodes):
    read from the text, outside any function, not in a #define, body found by braces."""
    known = {
        symbol.line
        for symbol in facts.symbols
        if symbol.kind in (SymbolKind.STRUCTURED_KERNEL, SymbolKind.META_FUNCTION)
    }
    for match in _STRUCTURED_HEADER.finditer(source):
        start = match.start(1)
        line = source.count(b"\n", 0, start) + 1
        continued = source[max(0, match.start() - 3) : max(0, match.start() - 1)].rstrip(b"\r").endswith(b"\\")
        if line in known or continued or scopes.innermost(start) != facts.path:
            continue  # already read from the tree, a line of a #define, or inside a function
        parameters_end = call_end(source, match.end() - 1)
        if parameters_end is None:
            continue
        body = _BODY_OPENS.match(source, parameters_end)
        registered = _registered_by_macro(collapse(match.group(1).decode("ascii")).replace(" (", "("))
        if registered is None or body is None:
            continue
        opening = body.end() - 1
        end = matching_brace(source, opening)
        name, kind = registered
        qname = qualify([part for part in namespaces.at(start).split("::") if part], name)
        end_line = line + source.count(b"\n", start, max(start, end - 1))
        signature = collapse(source[start:opening].decode("utf-8", "replace"))[:300]
        facts.symbols.append(Symbol(qname, name, kind, lang, facts.path, line, end_line, signature))
        scopes.add(start, end, qname)


def _namespace_symbols(
    found: dict[str, list[tsx.Node]],
    lang: Language,
    facts: FileFacts,
    source: bytes,
    namespaces: RecoveredNamespaces | None,
    enclosures: Enclosures,
) -> None:
    """One symbol per named namespace the file opens (a namespace reopened is one symbol):
    from the brace scan where definitions needed it (the tree lost namespaces there), else
    from the tree."""
    opened: dict[str, tuple[int, int]] = {}
    if namespaces is None or not namespaces.scanned:
        for node in found.get("definition.namespace", []):
            name_node = node.child_by_field_name("name")
            if name_node is None:
                continue  # anonymous
            scope, _ = enclosing_names(node, None, enclosures)
            qname = qualify(scope, tsx.text(name_node).replace(" ", ""))
            opened.setdefault(qname, (tsx.line(node), tsx.end_line(node)))
    else:
        for extent in namespaces.extents:
            if extent.anonymous:
                continue
            first = source.count(b"\n", 0, extent.start) + 1
            opened.setdefault(
                extent.qname, (first, first + source.count(b"\n", extent.start, max(extent.start, extent.end - 1)))
            )
    for qname, (line, end_line) in opened.items():
        facts.symbols.append(
            Symbol(
                qname,
                qname.rsplit("::", 1)[-1],
                SymbolKind.NAMESPACE,
                lang,
                facts.path,
                line,
                end_line,
                f"namespace {qname}",
            )
        )


def _macro_symbols(lang: Language, facts: FileFacts, defines: list[Macro]) -> None:
    """A symbol for each function-like #define (an object-like one is a value, not a callee)."""
    for macro in defines:
        if macro.parameters is not None:
            facts.symbols.append(
                Symbol(
                    macro.name,
                    macro.name,
                    SymbolKind.MACRO,
                    lang,
                    facts.path,
                    macro.line,
                    macro.end_line,
                    f"#define {macro.name}({', '.join(macro.written_parameters)})",
                )
            )


_FROM_MACRO_KINDS = frozenset(SymbolKind) - {SymbolKind.MACRO, SymbolKind.NAMESPACE}


def _macro_invocations(facts: FileFacts, scopes: ScopeMap, text: bytes, preprocessed: Preprocessed) -> None:
    """What the preprocessor leaves to say: each invocation of a function-like macro is a
    call site of the definition around it (`HANDLE_CASE(1);` calls HANDLE_CASE, beside the
    calls its expansion makes); a call in an expanded line is placed where the file writes
    what made it (an argument's own line and column, else the invocation's); a definition a
    macro wrote says so in its signature (`[from NAME(...) at line N]`), and a definition the
    file writes keeps its signature as written (`gemm(CUDABLAS_GEMM_ARGTYPES(Dtype))`, as the
    files that include a header see its macros)."""
    positions = preprocessed.positions
    for number, call in enumerate(facts.calls):
        if call.line in positions:
            line, column = positions.at(call.line, call.column)
            facts.calls[number] = call._replace(line=line, column=column)
    by_line: dict[int, list[Invocation]] = {}
    for invocation in preprocessed.invocations:
        by_line.setdefault(invocation.line, []).append(invocation)
        if invocation.function_like:
            facts.calls.append(
                CallSite(
                    scopes.innermost(invocation.start),
                    invocation.name,
                    invocation.name,
                    invocation.line,
                    invocation.column,
                )
            )
    line_starts: list[int] | None = None
    for number, symbol in enumerate(facts.symbols):
        line = symbol.line or 0
        if symbol.kind not in _FROM_MACRO_KINDS or not any(
            row in by_line for row in range(line, min(symbol.end_line or line, line + _SIGNATURE_LINES) + 1)
        ):
            continue
        if line_starts is None:
            line_starts = [0, *(match.end() for match in re.finditer(rb"\n", text))]
        origin = _written_by(symbol, by_line.get(line, []), text, line_starts)
        if origin is not None:  # ending no sooner than the invocation
            suffix = f"  [from {origin.name}{'(...)' if origin.function_like else ''} at line {origin.line}]"
            end_line = max(symbol.end_line or line, origin.line + origin.written.count("\n"))
            facts.symbols[number] = dataclasses.replace(symbol, signature=symbol.signature + suffix, end_line=end_line)
            continue
        signature = symbol.signature
        for row in range(line, min(symbol.end_line or line, line + _SIGNATURE_LINES) + 1):
            for invocation in by_line.get(row, []):
                expansion = collapse(text[invocation.start : invocation.end].decode("latin-1"))
                if expansion and f" {expansion}" in signature:
                    written = collapse(invocation.written)
                    signature = signature.replace(f" {expansion}", f" {written}" if invocation.spaced else written, 1)
        if signature != symbol.signature:
            facts.symbols[number] = dataclasses.replace(symbol, signature=signature)


_SIGNATURE_LINES = 20  # a definition's header spans no more lines than this


def _written_by(
    symbol: Symbol, invocations: list[Invocation], text: bytes, line_starts: list[int]
) -> Invocation | None:
    """The invocation on a definition's first line whose expansion writes its name, if one does
    (where the name is first written on the line)."""
    line = symbol.line or 0
    if not invocations or line > len(line_starts):
        return None
    line_start = line_starts[line - 1]
    line_end = line_starts[line] if line < len(line_starts) else len(text)
    named = re.search(
        rb"(?<![\w$])" + re.escape(symbol.name.encode("utf-8", "replace")) + rb"(?![\w$])", text[line_start:line_end]
    )
    if named is None:
        return None
    offset = line_start + named.start()
    return next((each for each in invocations if each.start <= offset < each.end), None)


def _includes_in_namespaces(
    found: dict[str, list[tsx.Node]], facts: FileFacts, namespaces: RecoveredNamespaces | None, enclosures: Enclosures
) -> None:
    """`namespace at::native { #include "X.cuh" }`: an import binding named `#include` whose
    target is `at::native|X.cuh` (the query layer puts the header's definitions there)."""
    for node in found.get("include", []):
        written = node.child_by_field_name("path")
        names, _ = enclosing_names(node, namespaces, enclosures)
        if written is None or not names:
            continue
        header = tsx.text(written).strip().strip('"<>')
        facts.imports.append(ImportBinding(facts.path, "#include", f"{'::'.join(names)}|{header}", tsx.line(node)))


def _using(found: dict[str, list[tsx.Node]], facts: FileFacts) -> None:
    """Using-directives and using-declarations, as import bindings of the file: `*` for a
    whole namespace, else the last name of what is brought in."""
    for node in found.get("using", []):
        named = [child for child in node.named_children if child.type in ("identifier", "qualified_identifier")]
        if not named:
            continue
        target = tsx.text(named[0]).replace(" ", "").removeprefix("::")
        is_namespace = any(child.type == "namespace" for child in node.children)
        name = "*" if is_namespace else target.rsplit("::", 1)[-1]
        facts.imports.append(ImportBinding(facts.path, name, target, tsx.line(node)))


def _looks_like_member(name: str) -> bool:
    """`Foo::bar` defined out of line: by C++ naming habit a capitalised qualifier is a class."""
    parts = name.split("::")
    return len(parts) >= 2 and parts[-2][:1].isupper()


# -- calls ---------------------------------------------------------------------------------


def _values_in_scope(
    found: dict[str, list[tsx.Node]], scopes: ScopeMap, namespaces: RecoveredNamespaces | None, enclosures: Enclosures
) -> dict[str, set[str]]:
    """The names each definition declares as values (locals, parameters, loop variables,
    those of its lambdas too), and each class its fields, by qualified name."""
    values: dict[str, set[str]] = {}
    for node in found.get("local", []):
        values.setdefault(scopes.innermost(node.start_byte), set()).add(tsx.text(node))
    for node in found.get("member", []):
        names, _ = enclosing_names(node, namespaces, enclosures)
        if names:
            values.setdefault("::".join(names), set()).add(tsx.text(node))
    return values


_REGISTRATION_BLOCKS = ("TORCH_LIBRARY", "TORCH_LIBRARY_FRAGMENT", "TORCH_LIBRARY_IMPL", "PYBIND11_MODULE")
_REGISTERING = re.compile(r"\.(?:def|impl|def_static|def_property|def_property_readonly|def_readwrite|def_readonly)$")


def _registers(caller: str, callee: str) -> bool:
    """A registration call in a TORCH_LIBRARY or PYBIND11_MODULE block (`m.impl(...)`)."""
    return caller.rpartition("::")[2] in _REGISTRATION_BLOCKS and bool(_REGISTERING.search(callee))


def _lambdas_outside_functions(
    found: dict[str, list[tsx.Node]], lang: Language, facts: FileFacts, scopes: ScopeMap, scope_of: ScopeOf
) -> set[int]:
    """A lambda written outside any function (an element of a namespace-scope table of
    operators, as register_prim_ops.cpp builds them, or an argument of a registering macro
    at namespace scope, as static runtime's REGISTER_OPERATOR_FUNCTOR) is a definition of
    its own, `ns::<lambda at line N>`: otherwise its calls would belong to the file, where
    no caller holds them. The outermost such lambda is the definition; lambdas inside it
    are part of its body, as they are inside a function."""
    innermost = scopes.innermost
    seen: set[int] = set()
    for node in found.get("callee", []):
        if innermost(node.start_byte) != facts.path:
            continue
        outermost = None
        parent = node.parent
        while parent is not None:
            if parent.type == "lambda_expression":
                outermost = parent
            parent = parent.parent
        if outermost is None or outermost.start_byte in seen:
            continue
        seen.add(outermost.start_byte)
        definition = cpp_bindings.lambda_definition(outermost, lang, facts.path, scope_of(outermost))
        facts.symbols.append(definition.symbol)
        scopes.add(definition.start_byte, definition.end_byte, definition.symbol.qname)
    return seen  # their start bytes


def _lambdas_handed_to_functions(
    found: dict[str, list[tsx.Node]], lang: Language, facts: FileFacts, scopes: ScopeMap, registered: set[int]
) -> _HandedLambdas:
    """A lambda written as an argument of a function call inside a function
    (`collective(t, t, [&](...) { return ncclAllReduce(...); }, ...)`) is a definition of its
    own, `scope::<lambda at line N>` with the scope of the function it is written in (so that
    it sees that function's class members): the function it is handed to calls it, and the
    chain goes through that function. A macro's argument (`AT_DISPATCH_...(..., [&] {...})`,
    a name in capitals) stays part of the function: the expansion calls it in place."""
    handed = _HandedLambdas()
    for node in sorted(found.get("lambda_argument", []), key=lambda lambda_node: lambda_node.start_byte):
        call = node.parent.parent if node.parent is not None else None
        if node.start_byte in registered or call is None or call.type != "call_expression":
            continue
        enclosing = scopes.innermost(node.start_byte)
        callee = call.child_by_field_name("function")
        if enclosing == facts.path or callee is None or _MACRO_NAME.fullmatch(_last_identifier(tsx.text(callee))):
            continue
        scope = enclosing.rpartition("::")[0]
        definition = cpp_bindings.lambda_definition(node, lang, facts.path, scope.split("::") if scope else [])
        facts.symbols.append(definition.symbol)
        scopes.add(definition.start_byte, definition.end_byte, definition.symbol.qname)
        handed.nodes.append(node)
        handed.enclosing.setdefault(definition.symbol.qname, enclosing)
    return handed


@dataclasses.dataclass
class _HandedLambdas:
    nodes: list[tsx.Node] = dataclasses.field(default_factory=list)  # the lambda arguments made definitions
    enclosing: dict[str, str] = dataclasses.field(default_factory=dict)  # lambda -> the definition it is written in


_MACRO_NAME = re.compile(r"[A-Z][A-Z0-9_]*")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def _last_identifier(written: str) -> str:
    names = _IDENTIFIER.findall(written)
    return names[-1] if names else ""


def _calls(
    found: dict[str, list[tsx.Node]],
    facts: FileFacts,
    scopes: ScopeMap,
    source: bytes,
    values: dict[str, set[str]],
    handed: _HandedLambdas,
) -> None:
    # The hot loop of indexing a large tree (a million call sites): kept to plain operations,
    # and a callee's spelling is cleaned once per distinct text.
    launches = {node.start_byte for node in found.get("launch_callee", [])}
    kernel_aliases = _kernel_aliases(found.get("kernel_alias", []), scopes) if launches else {}
    arguments = _name_arguments_by_list(found.get("name_argument", []), found.get("functor_argument", []), handed.nodes)
    append = facts.calls.append
    innermost = scopes.innermost
    spelled: dict[bytes, str] = {}
    statements = [node for node in found.get("statement_callee", []) if innermost(node.start_byte) != facts.path]
    for node in itertools.chain(found.get("callee", []), statements):
        start, end = node.start_byte, node.end_byte
        written = source[start:end]
        if end - start > 200 and b"{" in written:
            continue  # a lambda or a macro soup, not a callee name
        callee = spelled.get(written)
        if callee is None:
            spelled[written] = callee = _spelled_callee(written)
        if not callee:
            continue
        row, column = node.start_point
        caller = innermost(start)
        if kernel_aliases and start in launches:
            callee = kernel_aliases.get((caller, callee), callee)
        passed = arguments.get(end, ())  # the argument list begins where the callee ends
        if passed and _registers(caller, callee):
            passed = ()  # `m.impl("op", &fn)`: a registration (parsers/cpp_bindings.py), not a call of fn
        if passed:
            passed = _not_values(passed, caller, values, handed.enclosing)
        append(
            CallSite(
                caller, callee, callee, row + 1, column, CallKind.LAUNCH if start in launches else CallKind.CALL, passed
            )
        )
        if callee.endswith(_FACTORY_SUFFIXES) and b"<" in written:
            made = _made_by_factory(written)  # `std::make_unique<PyTorchStreamReader>(...)` runs its constructor
            if made:
                append(CallSite(caller, made, made, row + 1, column, CallKind.CALL, ()))


def _spelled_callee(written: bytes) -> str:
    """A callee as stored: whitespace collapsed, template arguments dropped, a temporary
    functor called (`Functor{}(x)`, `Functor()(x)`) as its call operator. Empty for one too
    long to be a name (a macro's template arguments padded to its line continuations are
    long only until collapsed)."""
    text = collapse(written.decode("utf-8", "replace"))
    callee = strip_template_args(text) if "<" in text else text
    temporary = _TEMPORARY.fullmatch(callee)
    if temporary is not None:
        callee = f"{temporary.group(1)}::operator()"
    return callee if len(callee) <= 200 else ""


def _kernel_aliases(declarators: list[tsx.Node], scopes: ScopeMap) -> dict[tuple[str, str], str]:
    """(function, local) -> the kernel the local was initialised with (`auto k = &kernel<T>;`)."""
    aliases: dict[tuple[str, str], str] = {}
    for node in declarators:
        value = node.child_by_field_name("value")
        declarator = node.child_by_field_name("declarator")
        if value is None or declarator is None:
            continue
        if value.type == "pointer_expression":
            value = value.child_by_field_name("argument")
            if value is None:
                continue
        aliases[(scopes.innermost(node.start_byte), _alias_name(declarator))] = _kernel_name(value)
    return aliases


def _kernel_name(value: tsx.Node) -> str:
    """`ns::k` of `ns::k<T, N>`, read from the tree: template arguments may hold `<=` or `&&`
    (`flash_fwd_kernel<Traits, Is_local && !Is_causal, Traits::kHeadDim <= 128>`), which a
    text-level strip cannot balance."""
    if value.type == "template_function":
        return collapse(tsx.text(tsx.field(value, "name")))
    if value.type == "qualified_identifier":
        scope, name = value.child_by_field_name("scope"), value.child_by_field_name("name")
        if scope is not None and name is not None and name.type == "template_function":
            return f"{strip_template_args(collapse(tsx.text(scope)))}::{_kernel_name(name)}"
    return strip_template_args(collapse(tsx.text(value)))


def _alias_name(declarator: tsx.Node) -> str:
    """The local a kernel alias declares: `kernel` of `kernel` or of `(*kernel)(float*)` (the
    only shapes grammars/cuda/calls.scm lets through)."""
    if declarator.type == "function_declarator":
        pointer = next(
            child for child in tsx.field(declarator, "declarator").named_children if child.type == "pointer_declarator"
        )
        declarator = tsx.field(pointer, "declarator")
    return tsx.text(declarator)


def _not_values(
    passed: tuple[str, ...], caller: str, values: dict[str, set[str]], enclosing: dict[str, str]
) -> tuple[str, ...]:
    """The passed names that are not values the caller (or, for a method, its class) declares:
    only a name no local, parameter or field shadows may be a function pointer. A lambda
    sees the values of the definitions it is written in."""
    declared = values.get(caller, set()) | values.get(caller.rpartition("::")[0], set())
    seen = {caller}
    while enclosing.get(caller, caller) not in seen:  # two lambdas of one line share a name
        caller = enclosing[caller]
        seen.add(caller)
        declared = declared | values.get(caller, set()) | values.get(caller.rpartition("::")[0], set())
    return tuple(name for name in passed if name not in declared) if declared else passed


# Factories that construct their template argument: the call runs T's constructor
_FACTORY_SUFFIXES = ("make_unique", "make_shared", "make_intrusive")
_FACTORY = re.compile(
    r"^(?:(?:::)?(?:std|c10)::)?make_(?:unique|shared|intrusive)\s*<\s*((?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*)\s*[,<>]"
)


def _made_by_factory(written: bytes) -> str | None:
    """`std::make_unique<caffe2::serialize::PyTorchStreamReader>` -> its constructor's name,
    `caffe2::serialize::PyTorchStreamReader::PyTorchStreamReader`."""
    match = _FACTORY.match(collapse(written.decode("utf-8", "replace")))
    if match is None:
        return None
    cls = match.group(1)
    return f"{cls}::{cls.rpartition('::')[2]}"


_TEMPORARY = re.compile(r"((?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*)\s*(?:\{[^{}]*\}|\(\s*\))")


def _name_arguments_by_list(
    names: list[tsx.Node], functors: list[tsx.Node], lambdas: list[tsx.Node]
) -> dict[int, tuple[str, ...]]:
    """Plain names passed as arguments, keyed by the start of their argument list; a functor
    made in place (`SumOps<float>{}`) is its type's name followed by FUNCTOR_MARK, a lambda
    made a definition LAMBDA_MARK and its line."""
    by_list: dict[int, list[str]] = {}
    for node in sorted(itertools.chain(names, functors, lambdas), key=lambda name: name.start_byte):
        holder = node.parent
        mark = ""
        if node.type == "lambda_expression":
            if holder is not None:
                by_list.setdefault(holder.start_byte, []).append(f"{LAMBDA_MARK}{tsx.line(node)}")
            continue
        if holder is not None and holder.type == "pointer_expression":
            holder = holder.parent  # &kernel
        elif holder is not None and holder.type == "compound_literal_expression":
            holder, mark = holder.parent, FUNCTOR_MARK
        if holder is None:
            continue
        written = (node.text or b"").decode("utf-8", "replace")  # hot: no helper call
        if len(written) <= 120:
            by_list.setdefault(holder.start_byte, []).append(strip_template_args(written.replace(" ", "")) + mark)
    return {start: tuple(names) for start, names in by_list.items()}
