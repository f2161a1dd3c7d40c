"""A reader for the subset of YAML that native_functions.yaml is written in.

Used only when PyYAML is not installed. Supported: a top-level list of
mappings (`- key: value`), nested block mappings (`dispatch:`), plain and
quoted scalars, flow lists (`[a, b]`), booleans, and `#` comments.
"""

from __future__ import annotations

import re
from typing import Dict, List, Tuple

from torchgen.model import SchemaParseError

_KEY = re.compile(r"^(?P<key>[^:#][^:]*?)\s*:(?:\s+(?P<value>.*))?$")


def _strip_comment(line: str) -> str:
    quote = None
    for index, char in enumerate(line):
        if quote:
            if char == quote:
                quote = None
        elif char in "\"'":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index].rstrip()
    return line.rstrip()


def _scalar(text: str) -> object:
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip()
        return [_scalar(part) for part in inner.split(",")] if inner else []
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    if text in ("True", "true"):
        return True
    if text in ("False", "false"):
        return False
    return text


def load_entries(text: str, path: str) -> List[Tuple[Dict[str, object], int]]:
    entries: List[Tuple[Dict[str, object], int]] = []
    current: Dict[str, object] = {}
    nested: Dict[str, object] = {}
    nested_indent = -1
    for number, raw in enumerate(text.splitlines(), start=1):
        line = _strip_comment(raw)
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        body = line.strip()
        if indent == 0 and body.startswith("- "):
            current = {}
            entries.append((current, number))
            body = body[2:]
            indent = 2
            nested_indent = -1
        elif indent == 0:
            raise SchemaParseError(f"{path}:{number}: expected a list entry")
        match = _KEY.match(body)
        if match is None:
            raise SchemaParseError(f"{path}:{number}: cannot read {body!r}")
        key, value = match["key"].strip(), match["value"]
        if nested_indent >= 0 and indent > nested_indent:
            nested[key] = _scalar(value or "")
            continue
        nested_indent = -1
        if value is None or value == "":
            nested = {}
            current[key] = nested
            nested_indent = indent
        else:
            current[key] = _scalar(value)
    return entries
