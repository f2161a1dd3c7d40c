"""Where a diagram node links to (--link-template)."""

from __future__ import annotations

import os
import string
from dataclasses import dataclass
from urllib.parse import quote

from explorer.diagram.model import DiagramNode
from explorer.errors import UsageError

FIELDS = ("file", "line", "path", "symbol")
DEFAULT_TEMPLATE = "file://{path}"


@dataclass(frozen=True, slots=True)
class LinkTemplate:
    """`{file}`: the path inside the tree; `{line}`; `{path}`: the absolute path on this
    machine; `{symbol}`: the qualified name. e.g.
    `https://github.com/pytorch/pytorch/blob/v2.4.0/{file}#L{line}`."""

    template: str
    root: str

    @classmethod
    def parse(cls, template: str | None, root: str) -> LinkTemplate:
        template = template or DEFAULT_TEMPLATE
        try:
            fields = [
                (name, spec, conversion)
                for _, name, spec, conversion in string.Formatter().parse(template)
                if name is not None
            ]
        except ValueError as error:
            raise UsageError(f"--link-template {template!r}: {error}") from None
        if any(spec or conversion for _, spec, conversion in fields):
            # `{file:>999999999}` would ask for gigabytes: fields are filled in as they are
            raise UsageError(f"--link-template {template!r}: fields take no format spec or conversion")
        names = [name for name, _, _ in fields]
        unknown = [name for name in names if name not in FIELDS]
        if unknown:
            raise UsageError(
                f"--link-template {template!r}: unknown field {{{unknown[0]}}}; use {', '.join('{' + f + '}' for f in FIELDS)}"
            )
        return cls(template, os.path.abspath(root))

    def url(self, node: DiagramNode) -> str | None:
        """None for what has no source here (vendor APIs, generated bindings, folds)."""
        if node.path is None:
            return None
        return self.template.format(
            file=quote(node.path),
            line=node.line or 1,
            path=quote(os.path.join(self.root, node.path)),
            symbol=quote(node.qname, safe=":."),
        )
