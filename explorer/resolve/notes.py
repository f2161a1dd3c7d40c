"""What a query could not read, kept as records for the user to see once.

A query goes on past a definition the value-flow solver could not finish (its values flow
through code nested past Python's stack, or through more code than one query follows): its
calls are then found by name, those made through its local names are not followed, and the
answer is that much poorer. The call graph records each such definition here, once; the
reports carry the records and the CLI says how many there were, in one note on stderr.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class UnreadableDefinition:
    qname: str
    path: str
    line: int
    reason: str  # why the solver stopped


class UnreadableDefinitions:
    """The definitions met during one query that the solver could not finish, in the order met."""

    def __init__(self) -> None:
        self._found: dict[tuple[str, int], UnreadableDefinition] = {}

    def add(self, definition: UnreadableDefinition) -> None:
        self._found.setdefault((definition.path, definition.line), definition)

    def records(self) -> tuple[UnreadableDefinition, ...]:
        return tuple(self._found.values())
