"""The value-flow facts the extractor writes are the ones explorer/flow_schema.py describes:
every scope header and parameter has the schema's fields, and every statement, assignment
target and expression of every Python file of the bundled tree (and, opt-in, of a real PyTorch
tree) has a tag the schema names, where the schema says expressions are."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any, get_args

import pytest

from explorer.flow_schema import (
    EXPRESSION_AT,
    EXPRESSION_TAGS,
    STATEMENT_AT,
    STATEMENT_TAGS,
    TARGET_AT,
    TARGET_TAGS,
    Expr,
    NameRead,
    Param,
    ScopeHeader,
    Star,
    Stmt,
    Target,
    expression_tags,
    statement_tags,
)
from explorer.index import IndexReader
from explorer.model import SymbolKind

KNOWN = {"statement": STATEMENT_TAGS, "target": TARGET_TAGS, "expression": EXPRESSION_TAGS}


def facts_census(reader: IndexReader) -> tuple[Counter[tuple[str, str]], list[str]]:
    """How often each (place, tag) occurs in the tree's facts, and what breaks the schema."""
    seen: Counter[tuple[str, str]] = Counter()
    broken: list[str] = []
    paths = {s.path for s in reader.python_scopes() if s.kind is SymbolKind.MODULE and s.path}
    for path in sorted(paths):
        text = reader.python_flow(path)
        if text is None:
            continue
        header, *bodies = text.split("\n")
        rows = json.loads(header)
        if len(rows) != len(bodies):
            broken.append(f"{path}: {len(rows)} scopes, {len(bodies)} bodies")
        for row, body in zip(rows, bodies):
            if len(row) != len(ScopeHeader._fields):
                broken.append(f"{path}: a scope header of {len(row)} fields")
                continue
            scope = ScopeHeader._make(row)
            for param in scope.params:
                if len(param) != len(Param._fields):
                    broken.append(f"{path}: {scope.qname}: a parameter of {len(param)} fields")
                    continue
                parameter = Param._make(param)
                seen.update(expression_tags(parameter.default))
                seen.update(expression_tags(parameter.type))
            for base in scope.bases:
                seen.update(expression_tags(base))
            seen.update(expression_tags(scope.returns))
            for statement in json.loads(body):
                seen.update(statement_tags(statement))
    broken += [f"{place} tag {tag!r} is not in the schema" for place, tag in seen if tag not in KNOWN[place]]
    return seen, broken


def test_the_bundled_tree_s_facts_are_the_schema_s(sample_store):
    seen, broken = facts_census(sample_store)
    assert broken == []
    # the bundled tree writes every statement, target and expression the schema has
    assert {tag for place, tag in seen if place == "statement"} == STATEMENT_TAGS
    assert {tag for place, tag in seen if place == "target"} == TARGET_TAGS
    assert {tag for place, tag in seen if place == "expression"} == EXPRESSION_TAGS


def positions_by_tag(union: Any) -> dict[str, tuple[set[int], set[int]]]:
    """Each tag of a union of fact types, with the positions where its types hold one nested
    expression and where they hold a sequence of them (read off the type aliases)."""
    found: dict[str, tuple[set[int], set[int]]] = {}
    for shape in get_args(union):
        tag_type, *fields = get_args(shape)
        for tag in get_args(tag_type):
            single, many = found.setdefault(tag, (set(), set()))
            for position, field in enumerate(fields, 1):
                if field in ("Expr", Expr, NameRead):
                    single.add(position)
                elif field in ("tuple[Expr, ...]", "tuple[Expr | Star, ...]"):
                    many.add(position)
    return found


def test_the_walker_s_positions_are_the_types_positions():
    """statement_tags walks the positions its tables name; the tables say what the types say
    (a nested expression's place in every tag, `call`'s keywords and `dict`'s pairs aside)."""
    expressions = positions_by_tag(Expr | Star)
    assert set(expressions) == set(EXPRESSION_AT) == EXPRESSION_TAGS
    for tag, (single, many) in expressions.items():
        assert EXPRESSION_AT[tag] == (tuple(sorted(single)), tuple(sorted(many))), tag
    statements = positions_by_tag(Stmt)
    assert set(statements) == set(STATEMENT_AT)
    for tag, (single, many) in statements.items():
        assert many == set(), tag
        assert STATEMENT_AT[tag] == tuple(sorted(single)), tag
    targets = positions_by_tag(Target)
    assert {tag: TARGET_AT[tag] for tag in targets} == {tag: tuple(sorted(s)) for tag, (s, _) in targets.items()}
    assert set(targets) == set(TARGET_AT)


REAL = os.environ.get("EXPLORER_REAL_TORCH")


@pytest.mark.real_torch
@pytest.mark.skipif(not REAL, reason="set EXPLORER_REAL_TORCH to a PyTorch 2.4.0 source tree")
def test_a_real_tree_s_facts_are_the_schema_s(tmp_path: Path):
    from explorer.workspace import TreeRequest, open_workspace

    def refreshed(tree, index_path, options, leave_out):
        from explorer.index import refresh

        refresh(tree.root, index_path, options=options, leave_out=leave_out)

    with open_workspace(TreeRequest(REAL, trees=(), python="none"), refreshed) as workspace:
        seen, broken = facts_census(workspace.reader)
    assert broken == []
    assert {tag for _, tag in seen} == STATEMENT_TAGS | TARGET_TAGS | EXPRESSION_TAGS
