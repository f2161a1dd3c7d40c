"""editors/helix/languages.toml, which docs/editor.md points Helix users to. Helix does not
install here, so this checks what can be checked without it: the file reads as TOML, starts
`explorer lsp`, sends only the initialization options the server reads, and adds explorer to
each language beside that language's own server."""

from __future__ import annotations

import tomllib
from pathlib import Path

from explorer.lsp.session import INITIALIZATION_OPTIONS

CONFIG = Path(__file__).resolve().parent.parent / "editors" / "helix" / "languages.toml"


def test_the_server_is_explorer_lsp_with_options_it_reads():
    config = tomllib.loads(CONFIG.read_text())
    server = config["language-server"]["explorer"]
    assert (server["command"], server["args"]) == ("explorer", ["lsp"])
    assert set(server["config"]) <= set(INITIALIZATION_OPTIONS)


def test_each_language_keeps_its_own_server_and_adds_explorer():
    languages = tomllib.loads(CONFIG.read_text())["language"]
    assert [(language["name"], language["language-servers"]) for language in languages] == [
        ("python", ["pylsp", "explorer"]),
        ("cpp", ["clangd", "explorer"]),
        ("c", ["clangd", "explorer"]),
        ("yaml", ["yaml-language-server", "explorer"]),
    ]
