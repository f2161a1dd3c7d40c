"""explorer's errors. Library code raises these; only the CLI turns them into text and exit codes."""

from __future__ import annotations


class ExplorerError(Exception):
    """Base of every error explorer reports to a user as one line."""

    exit_code = 1


class ProgramKilled(ExplorerError):
    """The program `explorer run` traced was killed by a signal: explorer ends as a shell
    reports such a program, with 128 + the signal's number."""

    def __init__(self, signal_number: int, name: str) -> None:
        super().__init__(f"the traced program was killed by {name}; nothing was recorded")
        self.exit_code = 128 + signal_number


class UsageError(ExplorerError):
    """The command line names something that cannot be used (a missing root, a bad option)."""

    exit_code = 2


class RootNotFoundError(UsageError):
    def __init__(self, root: str) -> None:
        super().__init__(f"root folder not found: {root}")


class UnknownSymbolError(ExplorerError):
    def __init__(self, query: str, suggestions: list[str]) -> None:
        self.query = query
        self.suggestions = suggestions
        hint = f"; closest: {', '.join(suggestions)}" if suggestions else ""
        super().__init__(f"unknown symbol: {query}{hint}")
