"""Progress of long work on a tree's files (an index being built, a SCIP index exported), as
the command line shows it (and the language server reads back for the editor).

On a terminal: a live bar (files done of all, files a second, time left), gone when the work
is; then one line saying what was done, if it was long. Anywhere else (a CI log, a file, an
editor reading stderr): plain lines, at the start, at each tenth of the files, and at the end.
Work on fewer than ANNOUNCED_FILES files says nothing: a refresh of a few changed files is the
fast path every query runs, and a small tree is indexed in a second or two.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from rich.console import Console

ANNOUNCED_FILES = 200  # fewer files than this take a second or two: quiet, new index or not
_LOG_STEPS = 10  # plain lines: at most one per tenth of the files,
_LOG_SECONDS = 5.0  # and none sooner than this after the last
# The plain line for files done (the language server reads it back for the editor's progress)
DONE_LINE = re.compile(r"^indexing (?P<what>.+): (?P<done>[\d,]+)/(?P<total>[\d,]+) files")


def reported(line: str) -> tuple[str, int | None] | None:
    """A plain progress line read back (the language server passes them on to the editor):
    its text and, where it counts files, the percentage done; None for any other line."""
    if not line.startswith(("indexing ", "indexed ")):
        return None
    counted = DONE_LINE.match(line)
    if counted is None:
        return line.strip(), None
    total = int(counted["total"].replace(",", ""))
    return line.strip(), min(100, int(counted["done"].replace(",", "")) * 100 // max(total, 1))


def files(count: int) -> str:
    return f"{count:,} file" if count == 1 else f"{count:,} files"


def duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    return f"{minutes} min {seconds:02d} s"


class FileProgress:
    """Files done of all, for one long piece of work on a tree (`indexing`, `exporting`): a
    bar on a terminal, plain lines elsewhere; nothing for fewer than ANNOUNCED_FILES files."""

    def __init__(
        self, console: Console, verb: str, past: str, what: str, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.console = console
        self.verb, self.past = verb, past  # "indexing", "indexed"
        self.what = what
        self.clock = clock
        self.files = 0
        self.shown = False
        self._started = 0.0
        self._next_line = 0
        self._last_line = 0.0
        self._bar: object | None = None  # rich's Progress, on a terminal
        self._task: object | None = None

    def start(self, count: int, line: str, why: str) -> None:
        """`count` files are about to be worked on: `line` says so where there is no bar, the
        bar says `why`."""
        self.files, self._started = count, self.clock()
        self.shown = count >= ANNOUNCED_FILES
        if not self.shown:
            return
        if self.console.is_terminal:
            self._start_bar(f"{self.verb} {self.what} ({why})")
        else:
            self._say(f"{self.verb} {self.what}: {line}")
            self._next_line, self._last_line = self._step(), self._started

    def advance(self, done: int) -> None:
        if not self.shown:
            return
        if self._bar is not None:
            self._bar.update(self._task, completed=done)  # type: ignore[attr-defined]
        elif done >= self._next_line and done < self.files and (now := self.clock()) - self._last_line >= _LOG_SECONDS:
            elapsed = now - self._started
            left = elapsed / done * (self.files - done)
            self._say(
                f"{self.verb} {self.what}: {done:,}/{self.files:,} files ({done / max(elapsed, 1e-9):,.0f} a second, "
                f"about {duration(left)} left)"
            )
            self._next_line, self._last_line = done + self._step(), now

    def phase(self, line: str, bar: str) -> None:
        """The files are done and one last step runs: `line` says so, or the bar `bar`."""
        if not self.shown:
            return
        if self._bar is not None:
            self._bar.update(self._task, description=f"{self.verb} {self.what}: {bar}", total=None)  # type: ignore[attr-defined]
        else:
            self._say(f"{self.verb} {self.what}: {line}")

    def close(self, finished: bool = True) -> None:
        """The bar goes; a long piece of work that finished leaves one line saying what it
        did (one that failed leaves the error to say so)."""
        if self._bar is not None:
            self._bar.stop()  # type: ignore[attr-defined]
            self._bar = None
        if self.shown and finished:
            self._say(f"{self.past} {self.what}: {files(self.files)} in {duration(self.clock() - self._started)}")
        self.shown = False

    def _step(self) -> int:
        return max(1, -(-self.files // _LOG_STEPS))

    def _say(self, line: str) -> None:
        self.console.print(line, markup=False, highlight=False, soft_wrap=True)

    def _start_bar(self, description: str) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            ProgressColumn,
            Task,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.text import Text

        class Rate(ProgressColumn):
            def render(self, task: Task) -> Text:
                return Text(f"{task.speed:,.0f} files/s" if task.speed else "")

        self._bar = bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            Rate(),
            TimeRemainingColumn(),
            TimeElapsedColumn(),
            console=self.console,
            transient=True,
        )
        self._task = bar.add_task(description, total=self.files)
        bar.start()


class IndexProgress(FileProgress):
    """The refresh's Progress (index/build.py) for one tree. `once` says when such a build
    happens (`once per install`, `once per checkout`), for a new index."""

    def __init__(self, console: Console, what: str, once: str, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(console, "indexing", "indexed", what, clock)
        self.once = once

    def parsing(self, count: int, new_index: bool) -> None:
        why = self.once if new_index else "changed since the last index"
        self.start(count, f"{files(count)} to parse ({why})", why)

    def parsed(self, done: int) -> None:
        self.advance(done)

    def writing(self) -> None:
        self.phase(f"parsed {files(self.files)}; writing the index", "writing the index")
