"""What the process is given to run with: standard output closed or full, too few file
descriptors. One line on stderr and a non-zero exit, never a traceback. Each runs explorer as
its own process, since these are the process's own streams and limits."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
needs_dev_full = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")


def explorer(
    *args: str, stdout: object = subprocess.PIPE, limit_files: int | None = None, close_stdout: bool = False
) -> subprocess.CompletedProcess:
    def prepare() -> None:
        if close_stdout:
            os.close(1)
        if limit_files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (limit_files, limit_files))

    return subprocess.run(
        [sys.executable, "-m", "explorer.cli", *args],
        cwd=REPO,
        stdout=stdout,
        stderr=subprocess.PIPE,
        preexec_fn=prepare,
        text=True,
        timeout=300,
        check=False,
    )


def test_a_closed_standard_output():
    result = explorer("search", "relu", close_stdout=True)
    assert (result.returncode, result.stderr) == (
        1,
        "error: standard output is closed; send it to /dev/null to discard what explorer prints\n",
    )


@needs_dev_full
@pytest.mark.parametrize(
    "command",
    [
        ["search", "relu"],
        ["trace", "torch.nn.ReLU", "--to", "relu"],
        ["trace", "torch.nn.ReLU", "--to", "relu", "--json"],
        ["trace", "torch.nn.ReLU", "--to", "relu", "--format", "dot"],
        ["trace", "torch.nn.ReLU", "--to", "relu", "--format", "dot", "-o", "-"],
    ],
)
def test_a_full_standard_output(command):
    with open("/dev/full", "w") as full:
        result = explorer(*command, stdout=full)
    assert (result.returncode, result.stderr) == (1, "error: cannot write standard output: No space left on device\n")


@pytest.mark.parametrize("limit", [5, 6, 7, 9])
def test_too_few_file_descriptors(limit):
    # (below 5 the interpreter itself cannot load its modules: no program can say more then)
    explorer("index")  # (a limit too low to index at all is the same error, from elsewhere)
    for command in (["search", "relu"], ["trace", "torch.nn.ReLU", "--to", "relu"]):
        result = explorer(*command, limit_files=limit)
        assert "Traceback" not in result.stderr
        if result.returncode != 0:  # enough descriptors for this command: it answers
            # one line, after what an index build it began said (never that it finished)
            *said, last = result.stderr.splitlines()
            assert result.returncode == 1 and last.startswith("error: ") and "Too many open files" in last
            assert all(line.startswith("indexing ") for line in said), said


def test_a_reader_that_goes_away_is_no_error():
    process = subprocess.Popen(
        [sys.executable, "-m", "explorer.cli", "search", "a", "--limit", "500"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.readline()
    process.stdout.close()
    assert process.wait(timeout=300) == 0
    assert process.stderr.read() == b""
