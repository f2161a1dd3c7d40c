"""Operator registrations from `native_functions.yaml`, and their autograd formulas from
`derivatives.yaml`.

The file is read as a stream of YAML events and composed here, never constructed: no tag in
it can make the loader build an object, and every entry and dispatch key keeps its line.
Composing it ourselves bounds the work by the file's size, whatever the file holds:
- an alias counts as everything it stands for, so a few hundred bytes of aliases of aliases
  (a "billion laughs") are refused once they stand for more than the file could spell out;
- nesting is capped (libyaml's scanner slows down quadratically with flow nesting, and the
  library's own composer recurses in C), far above what the real files use (five levels).

The rules torchgen applies implicitly are written out here:
- `CPU, CUDA: relu` is two dispatch entries;
- no `dispatch:` and no `structured_delegate:` means a CompositeImplicitAutograd kernel named
  after the op (`foo_out` for an out overload);
- kernels live in `at::native` unless written with a namespace.
torchgen also refuses a file that defines an operator twice or gives a dispatch key twice in
one entry; here the first definition is kept and the repeat reported with its line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

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

# Collections inside collections. native_functions.yaml nests four deep, derivatives.yaml five.
MAX_NESTING = 100
# What a file may stand for once its aliases are expanded, counted as nodes plus characters of
# text: without aliases that is at most about twice the file's size, so this leaves room for
# ordinary reuse of anchored blocks while refusing exponential expansion long before it costs.
EXPANSION_PER_BYTE = 8
EXPANSION_ALLOWANCE = 10_000


class EntryError(Exception):
    """An entry that cannot be read; reported with its line, the other entries go on."""


class UnreadableYaml(Exception):
    """The file as a whole cannot be read; the message says what is wrong and where."""


# -- composing ------------------------------------------------------------------------------


@dataclass(slots=True, eq=False)
class _Scalar:
    text: str
    line: int  # 1-based, where the node starts
    last_line: int  # the last line holding any of its content
    weight: int  # nodes plus characters it stands for, aliases expanded


@dataclass(slots=True, eq=False)
class _Sequence:
    items: list[_Node]
    line: int
    last_line: int
    weight: int
    item_lines: list[int]  # where each item is written: an alias's own line, not its anchor's


@dataclass(slots=True, eq=False)
class _Mapping:
    pairs: list[tuple[_Node, _Node]]
    line: int
    last_line: int
    weight: int


_Node = _Scalar | _Sequence | _Mapping


@dataclass(slots=True)
class _Open:
    """A collection whose end event has not come yet."""

    node: _Sequence | _Mapping
    anchor: str | None
    flow: bool  # written with brackets: its end event marks where its content ends
    key: _Node | None = None  # a mapping's key still waiting for its value


def _compose(source: bytes) -> _Node | None:
    """The file's single document as nodes (None when it is empty).

    An alias is the anchored node itself, shared, as PyYAML composes it; its weight counts
    again for every alias, since any walk over the document meets it again. An alias may only
    refer to a node that ended before it, so the document is never cyclic.
    Raises UnreadableYaml."""
    budget = EXPANSION_PER_BYTE * len(source) + EXPANSION_ALLOWANCE
    rows = _Rows(source)
    expanded = 0
    anchors: dict[str, _Node] = {}
    open_nodes: list[_Open] = []
    root: _Node | None = None
    documents = 0
    for event in _events(source, rows):
        line = rows.line(event.start_mark.line)
        node: _Node
        if isinstance(event, yaml.ScalarEvent):
            node = _Scalar(event.value, line, _end_line(event, rows), 1 + len(event.value))
            written_line, written_last_line, anchor = line, node.last_line, event.anchor
            expanded += node.weight
        elif isinstance(event, yaml.AliasEvent):
            found = anchors.get(event.anchor)
            if found is None:
                raise UnreadableYaml(
                    f"invalid YAML at line {line}: alias *{event.anchor} does not refer to a node that ends before it"
                )
            node, written_line, written_last_line, anchor = found, line, _end_line(event, rows), None
            expanded += node.weight
        elif isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            if len(open_nodes) >= MAX_NESTING:
                raise UnreadableYaml(f"nested more than {MAX_NESTING} levels deep at line {line}")
            collection: _Sequence | _Mapping
            if isinstance(event, yaml.SequenceStartEvent):
                collection = _Sequence([], line, line, 1, [])
            else:
                collection = _Mapping([], line, line, 1)
            open_nodes.append(_Open(collection, event.anchor, bool(event.flow_style)))
            expanded += 1
            if expanded > budget:
                raise _expansion_refused(line, budget, len(source))
            continue
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            closed = open_nodes.pop()
            node, anchor = closed.node, closed.anchor
            if closed.flow:
                node.last_line = max(node.last_line, _end_line(event, rows))
            # A block collection's end event lies past the blank lines after it: its content
            # ends where its last child's does.
            written_line, written_last_line = node.line, node.last_line
        elif isinstance(event, yaml.DocumentStartEvent):
            documents += 1
            if documents > 1:
                raise UnreadableYaml(f"invalid YAML at line {line}: a second document; expected a single one")
            continue
        else:
            continue
        if expanded > budget:
            raise _expansion_refused(line, budget, len(source))
        if anchor is not None:
            anchors[anchor] = node
        if not open_nodes:
            root = node
            continue
        parent = open_nodes[-1]
        if isinstance(parent.node, _Sequence):
            parent.node.items.append(node)
            parent.node.item_lines.append(written_line)
        elif parent.key is None:
            parent.key = node
        else:
            parent.node.pairs.append((parent.key, node))
            parent.key = None
        parent.node.weight += node.weight
        parent.node.last_line = max(parent.node.last_line, written_last_line)
    return root


def _events(source: bytes, rows: _Rows) -> Iterator[yaml.Event]:
    """The parser's events, read lazily (a refusal stops the scanner where it is), with its
    errors turned into UnreadableYaml."""
    events = yaml.parse(source, Loader=_Loader)
    while True:
        try:
            event = next(events)
        except StopIteration:
            return
        except yaml.YAMLError as error:
            if "maximum nesting depth" in str(getattr(error, "problem", "")):
                # newer libyaml caps nesting itself, at a depth beyond ours: the same refusal
                raise UnreadableYaml(
                    f"nested more than {MAX_NESTING} levels deep{_where(error, source, rows)}"
                ) from None
            raise UnreadableYaml(f"invalid YAML{_where(error, source, rows)}: {_problem(error)}") from None
        yield event


def _where(error: yaml.YAMLError, source: bytes, rows: _Rows) -> str:
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    if mark is not None:
        return f" at line {rows.line(mark.line)}"
    position = getattr(error, "position", None)  # a reader error: bad bytes, no line yet
    if isinstance(position, int) and position >= 0:
        if _Loader is not yaml.SafeLoader:  # libyaml counts bytes, PyYAML characters
            before = source[:position].count(b"\n")
        else:
            before = source.decode("utf-8", "replace")[:position].count("\n")
        return f" at line {before + 1}"
    return ""


def _problem(error: yaml.YAMLError) -> str:
    if isinstance(error, yaml.reader.ReaderError) and error.character == 0:
        return "a NUL byte"
    problem = getattr(error, "problem", None) or str(error).splitlines()[0]
    return " ".join(str(problem).split())


def _expansion_refused(line: int, budget: int, size: int) -> UnreadableYaml:
    return UnreadableYaml(
        f"aliases expand past {budget:,} nodes and characters at line {line} (the limit for a file of {size:,} bytes)"
    )


def _end_line(event: yaml.Event, rows: _Rows) -> int:
    """The last line an event's text is on (an end at column 0 is the line break before it)."""
    start, end = event.start_mark, event.end_mark
    last_row = end.line - 1 if end.column == 0 else end.line
    return max(rows.line(start.line), rows.line(last_row))


# YAML ends a line at a lone carriage return, NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR
# too; explorer, like tree-sitter, only at a line feed.
_OTHER_BREAKS = re.compile(rb"\r|\xc2\x85|\xe2\x80[\xa8\xa9]")
_YAML_BREAKS = re.compile(rb"\r\n|\r|\n|\xc2\x85|\xe2\x80[\xa8\xa9]")


class _Rows:
    """Turns the loader's 0-based rows into explorer's 1-based lines."""

    def __init__(self, source: bytes) -> None:
        self.last_line = source.count(b"\n") + 1
        self.lines: list[int] | None = None  # the line of each row, where they differ
        if _OTHER_BREAKS.search(source):
            self.lines = [1]
            for found in _YAML_BREAKS.finditer(source):
                self.lines.append(self.lines[-1] + (found[0][-1:] == b"\n"))

    def line(self, row: int) -> int:
        if self.lines is not None:
            return self.lines[max(0, min(row, len(self.lines) - 1))]
        # Rows and lines agree; a text in UTF-16 or UTF-32 may still count its line feeds
        # differently from its bytes.
        return max(1, min(row + 1, self.last_line))


# -- entries --------------------------------------------------------------------------------


def operator_name(schema: str) -> str:
    """`conv2d.padding(Tensor input, ...) -> Tensor` -> `conv2d.padding`."""
    return schema.split("(", 1)[0].strip()


@dataclass(slots=True)
class _File:
    """What the entries read so far have defined: repeats are reported against it."""

    facts: FileFacts
    first_lines: dict[str, int] = field(default_factory=dict)  # operator -> its first entry's line

    def report(self, line: int, problem: str) -> None:
        self.facts.diagnostics.append(Diagnostic(self.facts.path, f"line {line}: {problem}", skipped=False))

    def claim(self, operator: str, line: int, what: str) -> None:
        """Record the first definition of `operator`; a repeat is an EntryError. (Lines do not
        tell entries apart: flow style puts several on one line, and an alias of an entry has
        its anchor's line.)"""
        first = self.first_lines.get(operator)
        if first is not None:
            raise EntryError(f"{what} {operator} defined again (first at line {first}); kept the first")
        self.first_lines[operator] = line


def parse_native_functions(path: str, source: bytes) -> FileFacts:
    return _parse_entries(path, source, _entry)


def parse_derivatives(path: str, source: bytes) -> FileFacts:
    return _parse_entries(path, source, _derivative)


def _parse_entries(path: str, source: bytes, read_entry: Callable[[_Node, _File], None]) -> FileFacts:
    """Compose a list-of-entries YAML file; each entry is read on its own, so one bad entry
    is a diagnostic and the others are kept."""
    file = _File(FileFacts(path=path, lang=Language.YAML))
    try:
        document = _compose(source)
    except UnreadableYaml as error:
        file.facts.diagnostics.append(Diagnostic(path, str(error)))
        return file.facts
    if document is None:
        return file.facts
    if not isinstance(document, _Sequence):
        file.facts.diagnostics.append(Diagnostic(path, "expected a list of entries at the top level"))
        return file.facts
    for entry, written_line in zip(document.items, document.item_lines):
        try:
            read_entry(entry, file)
        except EntryError as error:
            file.report(written_line, str(error))
    return file.facts


def _scalar(node: _Node, key: str) -> str:
    if not isinstance(node, _Scalar):
        raise EntryError(f"'{key}' must be a single value")
    return node.text


def _mapping(entry: _Node) -> dict[str, tuple[_Node, _Node]]:
    if not isinstance(entry, _Mapping):
        raise EntryError("entry is not a mapping")
    fields: dict[str, tuple[_Node, _Node]] = {}
    for key_node, value_node in entry.pairs:
        if not isinstance(key_node, _Scalar):
            raise EntryError(f"the key at line {key_node.line} is not a single value")
        key = key_node.text
        if key in fields:
            raise EntryError(f"duplicate key '{key}'")
        fields[key] = (key_node, value_node)
    return fields


def _kernel(name: str) -> str:
    return name if "::" in name else f"at::native::{name}"


def _entry(entry: _Node, file: _File) -> None:
    fields = _mapping(entry)
    if "func" not in fields:
        raise EntryError("entry has no 'func'")
    schema = _scalar(fields["func"][1], "func")
    name = operator_name(schema)
    if not name:
        raise EntryError("'func' has no operator name")
    qname = f"{NAMESPACE}::{name}"
    base, _, overload = name.partition(".")
    line = entry.line

    def text(key: str) -> str | None:
        return _scalar(fields[key][1], key) if key in fields else None

    def listed(key: str) -> tuple[str, ...]:
        value = text(key)
        return tuple(part.strip() for part in value.split(",") if part.strip()) if value else ()

    delegate = text("structured_delegate")
    if delegate is not None:
        delegate = f"{NAMESPACE}::{delegate}"
    info = OperatorInfo(
        operator=qname,
        variants=listed("variants") or ("function",),
        python_module=text("python_module"),
        structured=(text("structured") or "").lower() == "true",
        structured_delegate=delegate,
        autogen=tuple(f"{NAMESPACE}::{op}" for op in listed("autogen")),
    )
    file.claim(qname, line, "operator")  # only an entry that is read counts as the first
    facts = file.facts
    facts.symbols.append(
        Symbol(qname, base, SymbolKind.OPERATOR, Language.YAML, facts.path, line, entry.last_line, schema, delegate)
    )
    facts.operators.append(info)

    if "dispatch" in fields:
        dispatch = fields["dispatch"][1]
        if not isinstance(dispatch, _Mapping):
            raise EntryError("'dispatch' must be a mapping of dispatch keys to kernels")
        key_lines: dict[str, int] = {}  # dispatch key -> the line that gave it first
        for key_node, kernel_node in dispatch.pairs:
            kernel = _kernel(_scalar(kernel_node, "dispatch"))
            for key in _scalar(key_node, "dispatch key").split(","):
                key = key.strip()
                if not key:
                    continue
                if key in key_lines:
                    file.report(
                        key_node.line,
                        f"{qname} dispatch key {key} given again (first at line {key_lines[key]}); kept the first",
                    )
                    continue
                key_lines[key] = key_node.line
                facts.dispatch.append(DispatchEntry(qname, key, kernel, key_node.line))
    elif delegate is None:
        kernel = f"{base}_out" if overload == "out" or overload.endswith("_out") else base
        facts.dispatch.append(DispatchEntry(qname, "CompositeImplicitAutograd", _kernel(kernel), line))


def _derivative(entry: _Node, file: _File) -> None:
    """`- name: convolution(...)` and one formula per gradient (`input, weight, bias: ...`)."""
    fields = _mapping(entry)
    if "name" not in fields:
        raise EntryError("entry has no 'name'")
    name = operator_name(_scalar(fields["name"][1], "name"))
    if not name:
        raise EntryError("'name' has no operator name")
    qname = f"{NAMESPACE}::{name}"
    file.claim(qname, entry.line, "derivatives of")
    formulas = tuple((key, _text(value)) for key, (_, value) in fields.items() if key != "name")
    file.facts.derivatives.append(DerivativeEntry(qname, entry.line, entry.last_line, formulas))


def _text(node: _Node) -> str:
    """A formula as written; a nested block (per-dispatch-key formulas) as `key: value` pairs.

    Built with a work list rather than recursion: its length is bounded by the node's weight,
    which the composer has already bounded by the file's size."""
    parts: list[str] = []
    pending: list[_Node | str] = [node]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            parts.append(item)
        elif isinstance(item, _Scalar):
            parts.append(item.text)
        elif isinstance(item, _Sequence):
            pending.append("]")
            for index in range(len(item.items) - 1, -1, -1):
                pending.append(item.items[index])
                if index:
                    pending.append(", ")
            pending.append("[")
        else:
            for index in range(len(item.pairs) - 1, -1, -1):
                key, value = item.pairs[index]
                pending += [value, ": ", key]
                if index:
                    pending.append("; ")
    return "".join(parts)
