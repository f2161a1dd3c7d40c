"""A call hierarchy item's node of the call graph, kept in the item's `data` and read back.

An editor hands an item back to ask for its calls; the node must come back with what `trace`
knew of it, or the next step differs from trace's: the class of `self` a method was reached
with (Module._call_impl's `self.forward` is Conv2d.forward), the functions the call that
reached it passed (`split_batch_dim_to_32bit_out(..., raw_..._32bit)` calls what it was
handed), and a binding's call shape (which overloads it reaches).
"""

from __future__ import annotations

from typing import Any

from explorer.index import IndexReader
from explorer.model import CallNode, CallShape, Language, Location, Symbol, SymbolKind
from explorer.resolve import layer_of


def node_data(node: CallNode) -> dict[str, Any]:
    symbol = node.symbol
    data: dict[str, Any] = {"qname": symbol.qname, "path": symbol.path, "line": symbol.line}
    if symbol.path is None:
        # a definition without a source may be made up by the graph (a binding generated at
        # build time): kept whole, to be made again as it was
        data["symbol"] = [symbol.name, symbol.kind.value, symbol.lang.value, symbol.signature, symbol.target]
    if node.self_class is not None:
        data["self_class"] = node.self_class
    if node.passed:
        data["passed"] = [[passed.qname, passed.path, passed.line] for passed in node.passed]
        data["passed_as"] = list(node.passed_as)
        data["passed_at"] = (
            [node.passed_at.path, node.passed_at.line, node.passed_at.column] if node.passed_at is not None else None
        )
    if node.shape is not None:
        data["shape"] = [node.shape.positional, list(node.shape.keywords), node.shape.open]
    return data


def node_of(reader: IndexReader, data: object, name: str) -> CallNode | None:
    """The node an item's data names (an item without data: the first definition of its name)."""
    fields = data if isinstance(data, dict) else {}
    symbol = _symbol(reader, fields.get("qname", name), fields.get("path"), fields.get("line")) or _sourceless(fields)
    if symbol is None:
        return None
    passed: list[Symbol] = []
    for entry in fields.get("passed") or []:
        found = _symbol(reader, *entry) if isinstance(entry, list) and len(entry) == 3 else None
        if found is None:
            return CallNode(symbol, layer_of(symbol))  # a handed function the index lost: the plain node
        passed.append(found)
    passed_at = fields.get("passed_at")
    shape = fields.get("shape")
    return CallNode(
        symbol,
        layer_of(symbol),
        self_class=fields.get("self_class") if isinstance(fields.get("self_class"), str) else None,
        passed=tuple(passed),
        passed_at=_location(passed_at),
        passed_as=tuple(str(name) for name in fields.get("passed_as") or ()) if passed else (),
        shape=CallShape(int(shape[0]), tuple(shape[1]), bool(shape[2]))
        if isinstance(shape, list) and len(shape) == 3
        else None,
    )


def _sourceless(fields: dict[str, Any]) -> Symbol | None:
    kept = fields.get("symbol")
    if not isinstance(kept, list) or len(kept) != 5 or not isinstance(fields.get("qname"), str):
        return None
    name, kind, lang, signature, target = kept
    try:
        return Symbol(
            fields["qname"],
            str(name),
            SymbolKind(kind),
            Language(lang),
            None,
            None,
            None,
            str(signature),
            target if isinstance(target, str) else None,
        )
    except ValueError:  # a kind or language this version does not know
        return None


def _symbol(reader: IndexReader, qname: object, path: object, line: object) -> Symbol | None:
    if not isinstance(qname, str):
        return None
    found = reader.symbols_with_qname(qname)
    exact = [s for s in found if s.path == path and s.line == line]
    chosen = exact or found
    return chosen[0] if chosen else None


def _location(fields: object) -> Location | None:
    """A place an item's data holds: [path, line, column], the column null where unknown."""
    if not isinstance(fields, list) or len(fields) != 3:
        return None
    path, line, column = fields
    if not isinstance(path, str) or not isinstance(line, int) or not isinstance(column, int | None):
        return None
    return Location(path, line, column)
