"""Per-file parsers. `parse_file` picks one by file name; each returns the facts of one file.

The parser modules (and tree-sitter) are imported on first use: commands that find the
index up to date never pay for them.
"""

from __future__ import annotations

from explorer.model import FileFacts, Language
from explorer.stage_clock import stage

PYTHON_SUFFIXES = (".py", ".pyi")
# .mm: Objective-C++ (Metal kernels); its C++ parts read well with the C++ grammar.
CPP_SUFFIXES = (".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh", ".hxx", ".inl", ".mm")
CUDA_SUFFIXES = (".cu", ".cuh")
OPERATOR_FILE_NAMES = ("native_functions.yaml",)
DERIVATIVE_FILE_NAMES = ("derivatives.yaml",)
CMAKE_FILE_NAMES = ("CMakeLists.txt",)


def language_of(path: str) -> Language | None:
    """The language explorer reads a file as, or None for files it does not index."""
    name = path.rsplit("/", 1)[-1]
    if name.endswith(PYTHON_SUFFIXES):
        return Language.PYTHON
    if name.endswith(CPP_SUFFIXES):
        return Language.CPP
    if name.endswith(CUDA_SUFFIXES):
        return Language.CUDA
    if name in OPERATOR_FILE_NAMES or name in DERIVATIVE_FILE_NAMES:
        return Language.YAML
    if name in CMAKE_FILE_NAMES or name.endswith(".cmake"):
        return Language.CMAKE
    return None


def parse_file(path: str, lang: Language, source: bytes) -> FileFacts:
    with stage(f"{lang.value} facts"):
        return _parse_file(path, lang, source)


def _parse_file(path: str, lang: Language, source: bytes) -> FileFacts:
    match lang:
        case Language.PYTHON:
            from explorer.parsers.python import parse_python

            return parse_python(path, source)
        case Language.CPP | Language.CUDA:
            from explorer.parsers.cpp import parse_cpp

            return parse_cpp(path, source, lang)
        case Language.YAML:
            from explorer.parsers.yaml_ops import parse_derivatives, parse_native_functions

            if path.rsplit("/", 1)[-1] in DERIVATIVE_FILE_NAMES:
                return parse_derivatives(path, source)
            return parse_native_functions(path, source)
        case Language.CMAKE:
            from explorer.parsers.cmake import parse_cmake

            return parse_cmake(path, source)
        case Language.VENDOR:
            raise ValueError("vendor symbols have no source files")
