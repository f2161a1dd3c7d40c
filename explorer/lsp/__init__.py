"""`explorer lsp`: a Language Server Protocol server over the same queries as the CLI."""
