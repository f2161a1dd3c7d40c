"""`explorer config`: the settings in force here, and where each comes from."""

from __future__ import annotations

import os

from explorer.cli.common import reports_errors, stdout
from explorer.config import KEYS, find_config, resolve_settings
from explorer.render.json_out import dumps, write_json
from explorer.render.text import settings_text
from explorer.workspace import TreeRequest


@reports_errors
def config(where: TreeRequest, json: bool = False) -> None:
    """Show the settings in force and where each comes from."""
    given: dict[str, object] = dict.fromkeys(KEYS)
    given.update(
        {"root": where.root, "index": where.index, "trees": list(where.trees) or None, "python-env": where.python}
    )
    try:
        folder: str | None = os.getcwd()
    except OSError:
        folder = None
    found = find_config(folder)
    settings = resolve_settings(given, found)
    if json:
        write_json(
            stdout,
            dumps(
                {
                    "file": found.path if found else None,
                    "settings": {
                        name: {"value": setting.value, "source": setting.source} for name, setting in settings.items()
                    },
                }
            ),
        )
    else:
        settings_text(stdout, found.label if found else None, folder, list(settings.values()))
