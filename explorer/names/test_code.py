"""Which code is a tree's tests: indexed and searchable, but not part of what production code
runs. A test registers kernels of production operators (aten/src/ATen/test registers a test
backend for `aten::empty.memory_format`; test/cpp_extensions registers whole operators) and
defines helpers named like library functions; shown among a production operator's kernels or a
production function's callees, they would read as if the library ran them. The query layer
leaves edges from production code into test code out unless asked (`--tests`); test code's own
edges, and callers found in tests, are kept.
"""

from __future__ import annotations

import functools
import re

# a folder named test or tests; a Python test module; a C++ or Python file named *_test
_TEST_CODE = re.compile(r"(?:^|/)tests?/|(?:^|/)test_[^/]*\.py$|_test\.(?:cpp|cc|cu|py)$")


@functools.lru_cache(maxsize=65536)
def is_test_code(path: str | None) -> bool:
    return path is not None and _TEST_CODE.search(path) is not None


def hidden_as_test(source: str | None, target: str | None) -> bool:
    """Whether an edge from code in `source` to code in `target` leads from production code
    into tests (left out by default)."""
    return is_test_code(target) and not is_test_code(source)
