"""Which callees are vendor library APIs (cuDNN, cuBLAS, MIOpen, oneDNN, ...).

The patterns are data, in `grammars/vendors.yaml`, so a new library is a line there.
"""

from __future__ import annotations

import re
from functools import cache

from explorer.folders import GRAMMARS_DIR


@cache
def _patterns() -> tuple[re.Pattern[str], list[tuple[str, re.Pattern[str]]]]:
    """One regex that says whether any library matches (asked for every call site of a large
    tree), and one per library to say which."""
    import yaml  # only when a file is parsed

    table = yaml.safe_load((GRAMMARS_DIR / "vendors.yaml").read_text(encoding="utf-8"))
    each = [(library, re.compile(rf"(?:{pattern})$")) for library, patterns in table.items() for pattern in patterns]
    any_library = re.compile("|".join(rf"(?:{regex.pattern})" for _, regex in each))
    return any_library, each


def vendor_library(callee: str) -> str | None:
    """The library a callee belongs to, judged by its qualified spelling or its last name."""
    any_library, each = _patterns()
    last = callee.rsplit("::", 1)[-1].rsplit(".", 1)[-1].rsplit("->", 1)[-1]
    if any_library.match(last) is None and any_library.match(callee) is None:
        return None
    for library, pattern in each:
        if pattern.match(last) or pattern.match(callee):
            return library
    return None
