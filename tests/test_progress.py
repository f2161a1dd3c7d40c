"""Progress of an index being built (cli/progress.py): what a refresh reports, a live bar on a
terminal, plain lines elsewhere, and nothing on the fast path."""

from __future__ import annotations

import io

from rich.console import Console

from explorer.index.build import refresh
from explorer.render.progress import DONE_LINE, IndexProgress, reported
from tests.conftest import touch_later, write_tree


class _Recording:
    """A Progress that keeps what it was told."""

    def __init__(self) -> None:
        self.said: list[tuple] = []

    def parsing(self, files: int, new_index: bool) -> None:
        self.said.append(("parsing", files, new_index))

    def parsed(self, done: int) -> None:
        self.said.append(("parsed", done))

    def writing(self) -> None:
        self.said.append(("writing",))


def test_a_refresh_reports_parsing_then_writing_and_nothing_when_nothing_changed(tmp_path):
    root = write_tree(tmp_path / "tree", {f"pkg/m{n}.py": f"def f{n}():\n    pass\n" for n in range(3)})
    recording = _Recording()
    refresh(str(root), tmp_path / "index.sqlite", jobs=1, progress=recording)
    assert recording.said == [("parsing", 3, True), ("parsed", 1), ("parsed", 2), ("parsed", 3), ("writing",)]
    again = _Recording()
    refresh(str(root), tmp_path / "index.sqlite", jobs=1, progress=again)
    assert again.said == []
    (root / "pkg" / "m1.py").write_text("def g():\n    pass\n")
    touch_later(root / "pkg" / "m1.py")
    edited = _Recording()
    refresh(str(root), tmp_path / "index.sqlite", jobs=1, progress=edited)
    assert edited.said == [("parsing", 1, False), ("parsed", 1), ("writing",)]


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _plain() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=False, width=200), out


def test_plain_lines_come_at_tenths_no_closer_than_five_seconds_then_one_at_the_end():
    console, out = _plain()
    clock = _Clock()
    progress = IndexProgress(console, "/trees/pytorch", "once per checkout", clock)
    progress.parsing(1000, True)
    for done in range(1, 1001):
        clock.now = 100 + (done * 2 / 100 if done <= 500 else 10 + (done - 500) / 10)  # 50 files a second, then 10
        progress.parsed(done)
    progress.writing()
    clock.now += 4
    progress.close()
    assert out.getvalue().splitlines() == [
        "indexing /trees/pytorch: 1,000 files to parse (once per checkout)",
        # 10 s for the first 500: a line at 250 (5 s), then at 500
        "indexing /trees/pytorch: 250/1,000 files (50 a second, about 15 s left)",
        "indexing /trees/pytorch: 500/1,000 files (50 a second, about 10 s left)",
        "indexing /trees/pytorch: 600/1,000 files (30 a second, about 13 s left)",
        "indexing /trees/pytorch: 700/1,000 files (23 a second, about 13 s left)",
        "indexing /trees/pytorch: 800/1,000 files (20 a second, about 10 s left)",
        "indexing /trees/pytorch: 900/1,000 files (18 a second, about 6 s left)",
        "indexing /trees/pytorch: parsed 1,000 files; writing the index",
        "indexed /trees/pytorch: 1,000 files in 1 min 04 s",
    ]
    done = DONE_LINE.match(out.getvalue().splitlines()[2])
    assert done is not None and (done["what"], done["done"], done["total"]) == ("/trees/pytorch", "500", "1,000")


def test_a_small_refresh_says_nothing_and_a_large_one_says_why():
    console, out = _plain()
    small = IndexProgress(console, "/project", "once per checkout", _Clock())
    small.parsing(3, False)
    for done in (1, 2, 3):
        small.parsed(done)
    small.writing()
    small.close()
    assert out.getvalue() == ""
    new = IndexProgress(console, "/project", "once per checkout", _Clock())
    new.parsing(199, True)  # a small tree's first index, as quick
    new.close()
    assert out.getvalue() == ""
    large = IndexProgress(console, "/project", "once per checkout", _Clock())
    large.parsing(250, False)
    large.close()
    assert out.getvalue().splitlines() == [
        "indexing /project: 250 files to parse (changed since the last index)",
        "indexed /project: 250 files in 0 s",
    ]


def test_a_terminal_gets_a_live_bar_with_the_rate_and_the_time_left():
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=160, color_system=None)
    progress = IndexProgress(console, "torch 2.13.0", "once per install, from /site")
    progress.parsing(400, True)
    for done in range(1, 201):
        progress.parsed(done)
    progress._bar.refresh()  # what the bar's own thread draws ten times a second
    drawn = out.getvalue()
    assert "indexing torch 2.13.0 (once per install, from /site)" in drawn
    assert "200/400" in drawn and "files/s" in drawn and "-:--:--" not in drawn.split("200/400")[1].split("\n")[0]
    progress.close()
    assert (
        out.getvalue().rstrip().splitlines()[-1].endswith("\x1b[2Kindexed torch 2.13.0: 400 files in 0 s")
    )  # the bar erased


def test_the_language_server_reads_the_lines_back_as_work_done_reports():
    assert reported("indexing /trees/pytorch: 8,844 files to parse (once per checkout)\n") == (
        "indexing /trees/pytorch: 8,844 files to parse (once per checkout)",
        None,
    )
    assert reported("indexing /trees/pytorch: 885/8,844 files (20 a second, about 6 min 37 s left)") == (
        "indexing /trees/pytorch: 885/8,844 files (20 a second, about 6 min 37 s left)",
        10,
    )
    assert reported("indexed /trees/pytorch: 8,844 files in 7 min 12 s") == (
        "indexed /trees/pytorch: 8,844 files in 7 min 12 s",
        None,
    )
    assert reported("note: index rebuilt (index format 18 is not 19)") is None


def test_a_build_that_fails_does_not_say_it_finished():
    console, out = _plain()
    failed = IndexProgress(console, "/project", "once per checkout", _Clock())
    failed.parsing(300, True)
    failed.close(finished=False)
    assert out.getvalue().splitlines() == ["indexing /project: 300 files to parse (once per checkout)"]
