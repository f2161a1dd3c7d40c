"""A Location as tests write the places they expect: (path, line), the column left out (where
a column matters, a test asserts it on its own)."""

from __future__ import annotations

from explorer.model import Location


def path_line(place: Location | None) -> tuple[str, int] | None:
    return None if place is None else (place.path, place.line)
