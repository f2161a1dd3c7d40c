"""A package's door: its public names, loaded from their modules on first use.

Each room of explorer (index/, workspace/, names/, resolve/, analysis/) names in its
__init__.py what other rooms may use, twice: as imports under `if TYPE_CHECKING:`, each name
its own alias (what a type checker and a linter read as the room's exports), and in `_HOME`,
the module of the room that defines each (what runs). tests/test_doors.py holds the two to
each other, and code outside the room to importing those names from the package, never from
its modules. The names load lazily, so that a command pays only for the
modules it uses (`explorer --version` loads no call graph), and so that two rooms can each
use the other's lower modules without an import cycle.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def door(package: str, home: Mapping[str, str]) -> Callable[[str], Any]:
    """The module `__getattr__` of `package`: each name of `home` from the module named there."""

    def load(name: str) -> Any:
        module = home.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{module}"), name)

    return load
