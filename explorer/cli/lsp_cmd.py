"""`explorer lsp`: the language server, for an editor's LSP client (README, "In the editor")."""

from __future__ import annotations


def lsp() -> None:
    """Serve the Language Server Protocol on stdin and stdout (an editor starts this)."""
    from explorer.lsp.server import serve  # pygls only for the server

    serve()
