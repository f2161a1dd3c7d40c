"""Operator registrations from `native_functions.yaml`, and their autograd formulas from
`derivatives.yaml`.

The file is composed (never constructed: no tag in it can make the loader build an object)
with PyYAML's safe loader, so every entry and every dispatch key keeps its line. The rules
torchgen applies implicitly are written out here:
- `CPU, CUDA: relu` is two dispatch entries;
- no `dispatch:` and no `structured_delegate:` means a CompositeImplicitAutograd kernel named
  after the op (`foo_out` for an out overload);
- kernels live in `at::native` unless written with a namespace.
"""

from __future__ import annotations

from collections.abc import Callable

import yaml

from explorer.model import (
    DerivativeEntry,
    Diagnostic,
    DispatchEntry,
    FileFacts,
    Language,
    OperatorInfo,
    Symbol,
    SymbolKind,
)

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

NAMESPACE = "aten"


class EntryError(Exception):
    """An entry that cannot be read; reported with its line, the other entries go on."""


def operator_name(schema: str) -> str:
    """`conv2d.padding(Tensor input, ...) -> Tensor` -> `conv2d.padding`."""
    return schema.split("(", 1)[0].strip()


def parse_native_functions(path: str, source: bytes) -> FileFacts:
    return _parse_entries(path, source, _entry)


def parse_derivatives(path: str, source: bytes) -> FileFacts:
    return _parse_entries(path, source, _derivative)


def _parse_entries(path: str, source: bytes, read_entry: Callable[[yaml.Node, FileFacts], None]) -> FileFacts:
    """Compose a list-of-entries YAML file; each entry is read on its own, so one bad entry
    is a diagnostic and the others are kept."""
    facts = FileFacts(path=path, lang=Language.YAML)
    try:
        document = yaml.compose(source, Loader=_Loader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        facts.diagnostics.append(Diagnostic(path, f"invalid YAML{where}: {problem}"))
        return facts
    if document is None:
        return facts
    if not isinstance(document, yaml.SequenceNode):
        facts.diagnostics.append(Diagnostic(path, "expected a list of entries at the top level"))
        return facts
    for entry in document.value:
        try:
            read_entry(entry, facts)
        except EntryError as error:
            facts.diagnostics.append(Diagnostic(path, f"line {entry.start_mark.line + 1}: {error}", skipped=False))
    return facts


def _scalar(node: yaml.Node, key: str) -> str:
    if not isinstance(node, yaml.ScalarNode):
        raise EntryError(f"'{key}' must be a single value")
    return str(node.value)


def _mapping(entry: yaml.Node) -> dict[str, tuple[yaml.Node, yaml.Node]]:
    if not isinstance(entry, yaml.MappingNode):
        raise EntryError("entry is not a mapping")
    fields: dict[str, tuple[yaml.Node, yaml.Node]] = {}
    for key_node, value_node in entry.value:
        key = str(key_node.value)
        if key in fields:
            raise EntryError(f"duplicate key '{key}'")
        fields[key] = (key_node, value_node)
    return fields


def _last_line(node: yaml.Node) -> int:
    """The last line holding any of the node's content. A block collection's end mark lies
    past the blank lines after it, so ask its last leaf instead."""
    while isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and node.value:
        last = node.value[-1]
        node = last[1] if isinstance(last, tuple) else last
    end = node.end_mark
    return end.line if end.column == 0 else end.line + 1


def _kernel(name: str) -> str:
    return name if "::" in name else f"at::native::{name}"


def _entry(entry: yaml.Node, facts: FileFacts) -> None:
    fields = _mapping(entry)
    if "func" not in fields:
        raise EntryError("entry has no 'func'")
    schema = _scalar(fields["func"][1], "func")
    name = operator_name(schema)
    if not name:
        raise EntryError("'func' has no operator name")
    qname = f"{NAMESPACE}::{name}"
    base, _, overload = name.partition(".")
    line = entry.start_mark.line + 1

    def text(key: str) -> str | None:
        return _scalar(fields[key][1], key) if key in fields else None

    def listed(key: str) -> tuple[str, ...]:
        value = text(key)
        return tuple(part.strip() for part in value.split(",") if part.strip()) if value else ()

    delegate = text("structured_delegate")
    structured = (text("structured") or "").lower() == "true"
    if delegate is not None:
        delegate = f"{NAMESPACE}::{delegate}"
    facts.symbols.append(
        Symbol(qname, base, SymbolKind.OPERATOR, Language.YAML, facts.path, line, _last_line(entry), schema, delegate)
    )
    facts.operators.append(
        OperatorInfo(
            operator=qname,
            variants=listed("variants") or ("function",),
            python_module=text("python_module"),
            structured=structured,
            structured_delegate=delegate,
            autogen=tuple(f"{NAMESPACE}::{op}" for op in listed("autogen")),
        )
    )

    if "dispatch" in fields:
        dispatch = fields["dispatch"][1]
        if not isinstance(dispatch, yaml.MappingNode):
            raise EntryError("'dispatch' must be a mapping of dispatch keys to kernels")
        for key_node, kernel_node in dispatch.value:
            kernel = _kernel(_scalar(kernel_node, "dispatch"))
            for key in str(key_node.value).split(","):
                if key.strip():
                    facts.dispatch.append(DispatchEntry(qname, key.strip(), kernel, key_node.start_mark.line + 1))
    elif delegate is None:
        kernel = f"{base}_out" if overload == "out" or overload.endswith("_out") else base
        facts.dispatch.append(DispatchEntry(qname, "CompositeImplicitAutograd", _kernel(kernel), line))


def _derivative(entry: yaml.Node, facts: FileFacts) -> None:
    """`- name: convolution(...)` and one formula per gradient (`input, weight, bias: ...`)."""
    fields = _mapping(entry)
    if "name" not in fields:
        raise EntryError("entry has no 'name'")
    name = operator_name(_scalar(fields["name"][1], "name"))
    if not name:
        raise EntryError("'name' has no operator name")
    formulas = tuple(
        (key, _text(value)) for key, (_, value) in fields.items() if key != "name"
    )
    facts.derivatives.append(
        DerivativeEntry(f"{NAMESPACE}::{name}", entry.start_mark.line + 1, _last_line(entry), formulas)
    )


def _text(node: yaml.Node) -> str:
    """A formula as written; a nested block (per-dispatch-key formulas) as `key: value` pairs."""
    if isinstance(node, yaml.ScalarNode):
        return str(node.value)
    if isinstance(node, yaml.SequenceNode):
        return "[" + ", ".join(_text(item) for item in node.value) + "]"
    if isinstance(node, yaml.MappingNode):
        return "; ".join(f"{key.value}: {_text(value)}" for key, value in node.value)
    return ""
