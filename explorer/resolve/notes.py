"""What a query could not read, kept as records for the user to see once.

A query goes on past a definition libcst cannot read (see parsers/python_precise.py): the
calls made through that definition's local names are then not followed, and the answer is
that much poorer. The edge rules record each such definition here, once; the reports carry
the records and the CLI says how many there were, in one note on stderr.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class UnreadableDefinition:
    qname: str
    path: str
    line: int
    reason: str  # libcst's message, or why the definition was not handed to libcst


class UnreadableDefinitions:
    """The definitions met during one query that libcst could not read, in the order met."""

    def __init__(self) -> None:
        self._found: dict[tuple[str, int], UnreadableDefinition] = {}

    def add(self, definition: UnreadableDefinition) -> None:
        self._found.setdefault((definition.path, definition.line), definition)

    def records(self) -> tuple[UnreadableDefinition, ...]:
        return tuple(self._found.values())
