"""`explorer run` given a program that cannot start: one line naming what is wrong, exit 2,
and the program is not started (no interpreter traceback from inside the recorder)."""

from __future__ import annotations

import os

import pytest

from tests.command_line import invoke


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda folder: str(folder / "missing.py"), "no such script: {path}"),
        (lambda folder: str(folder), "not a script but a folder: {path}"),
        (
            lambda folder: _write(folder / "binary.py", b"\x7fELF\x02\x01\x01\x00\x00"),
            "not a Python script (it holds NUL bytes, as a binary does): {path}",
        ),
        (
            lambda folder: _write(folder / "broken.py", b"x = 1\nif x\n    pass\n"),
            "{path}:2: expected ':' (the program was not run)",
        ),
        (lambda folder: _fifo(folder / "pipe.py"), "not a script but a special file: {path}"),
    ],
)
def test_a_script_that_cannot_start(tmp_path, make, said):
    path = make(tmp_path)
    result = invoke(["run", path])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"error: {said.format(path=path)}\n"


def test_code_that_does_not_compile():
    result = invoke(["run", "-c", "def ("])
    assert (result.exit_code, result.stderr) == (2, "error: -c:1: invalid syntax (the program was not run)\n")


def _write(path, content: bytes) -> str:
    path.write_bytes(content)
    return str(path)


def _fifo(path) -> str:
    os.mkfifo(path)  # reading it to check it would wait for a writer: told apart by its type
    return str(path)


def test_a_program_that_recursed_900_deep(tmp_path):
    # legal: the program raised its own recursion limit. The run's tree is that deep, and the
    # walks that fold, filter, print and draw it recurse as deep (a RecursionError before).
    import json
    import sys

    script = tmp_path / "deep.py"
    script.write_text(
        "import sys\nsys.setrecursionlimit(5000)\ndef f(n):\n    return 0 if n == 0 else f(n - 1)\nf(900)\n"
    )
    result = invoke(["run", "--json", str(script)])
    assert result.exit_code == 0, result.output[-500:]
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(10_000)  # json.loads of a document this deep
    try:
        node = json.loads(result.stdout)["tree"]
    finally:
        sys.setrecursionlimit(limit)
    depth = 0
    while node.get("children"):
        node = node["children"][0]
        depth += 1
    assert (depth, node["name"]) == (901, "__main__.f")  # the module, then f 901 times (f(900) .. f(0))
    drawn = invoke(["run", "--format", "dot", "-o", str(tmp_path / "deep.dot"), str(script)])
    assert drawn.exit_code == 0 and drawn.stdout.startswith(f"wrote {tmp_path / 'deep.dot'} (")
    assert invoke(["run", str(script)]).exit_code == 0


def test_a_program_that_ends_with_os_exit_keeps_its_trace_and_status(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the tree names the script as the user gave it
    script = tmp_path / "quits.py"
    script.write_text("import os\ndef f():\n    return 1\nf()\nos._exit(3)\n")
    result = invoke(["run", "quits.py"])
    assert result.exit_code == 3
    assert result.stdout.splitlines()[1:] == [
        "python  quits.py  quits.py",
        "└── python  __main__.f  quits.py:2  ← at quits.py:4",
        "note: the program exited with code 3",
    ]


def test_a_program_that_forks_is_recorded_by_the_parent_alone(tmp_path, monkeypatch):
    # the child runs the recorder's code too: it must neither write the recording (its
    # os._exit would, through the hook above) nor leave the parent's unwritten
    child_ends = "os._exit(0)"
    monkeypatch.chdir(tmp_path)
    script = tmp_path / "forks.py"
    script.write_text(
        "import os, sys\ndef child():\n    return 2\ndef parent():\n    return 1\n"
        f"pid = os.fork()\nif pid == 0:\n    child()\n    {child_ends}\nos.waitpid(pid, 0)\nparent()\n"
    )
    result = invoke(["run", "forks.py"])
    assert result.exit_code == 0
    assert result.stdout.splitlines()[1:] == [
        "python  forks.py  forks.py",
        "└── python  __main__.parent  forks.py:4  ← at forks.py:11",
    ]


def test_sigterm_stops_the_program_too_and_leaves_nothing_behind(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    marker = f"marker-{os.getpid()}"
    env = {**os.environ, "TMPDIR": str(scratch)}
    process = subprocess.Popen(
        [sys.executable, "-m", "explorer", "run", "-c", f"import time\ntime.sleep(60)  # {marker}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not list(scratch.iterdir()) and time.monotonic() < deadline:  # the run's folder: the program is starting
        time.sleep(0.1)
    time.sleep(1)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 128 + signal.SIGTERM
    assert stderr.splitlines()[-1] == "explorer run: stopped by SIGTERM; the program was stopped too"
    running = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert marker not in running  # before: the program ran on, orphaned
    assert list(scratch.iterdir()) == []  # and its temporary folder was left behind


@pytest.mark.parametrize(
    ("code", "status", "said"),
    [
        ("import sys\nsys.exit(200)", 200, ""),  # any status a program may give, as without explorer
        ("raise SystemExit(3)", 3, ""),
        (
            "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)",
            137,
            "error: the traced program was killed by SIGKILL; nothing was recorded\n",
        ),
    ],
)
def test_the_programs_own_status_is_explorers(code, status, said):
    result = invoke(["run", "-c", code])
    assert result.exit_code == status
    if said:
        assert result.stderr.endswith(said)
