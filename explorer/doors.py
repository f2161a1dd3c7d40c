"""A package's door: its public names, loaded from their modules on first use.

Each room of explorer (index/, workspace/, names/, resolve/, analysis/) lists in its
__init__.py the names other rooms may use and the module of the room that defines each; code
outside the room imports those names from the package, never from its modules
(tests/test_doors.py checks it). The names load lazily, so that a command pays only for the
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
