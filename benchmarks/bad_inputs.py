"""Run explorer on a battery of bad and hostile inputs and say how each ended.

Each case makes a small tree (or damages an index), runs one command with a time limit, and
is judged: `ok` (exit 0, 1 or 2, or the traced program's own status, no traceback, at most one
line on stderr, and what the case expects of the output), `wrong` (it ended cleanly but not as
expected), `crash` (a traceback, a signal, or an exit code explorer never uses), `hang` (still
running at the limit).

    python3 benchmarks/bad_inputs.py                       # the explorer on PATH
    python3 benchmarks/bad_inputs.py --explorer OTHER/bin/explorer --timeout 60

Compare two versions by running it with each one's executable.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

Check = Callable[[subprocess.CompletedProcess], bool]


@dataclass
class Case:
    name: str
    files: dict[str, str | bytes]
    commands: list[list[str]]  # run in order; only the last is judged (earlier ones prepare)
    expect: Check = lambda result: True
    links: dict[str, str] = field(default_factory=dict)  # path in the tree -> target outside it
    damage: Callable[[Path], None] | None = None  # applied to the index before the last command
    on_sample: bool = False  # run on the bundled tree (explorer run needs its runtime), not the case's files
    exits: tuple[int, ...] = (0, 1, 2)  # explorer's own; `run` passes a program's status on


def _deep_calls(depth: int) -> str:
    return "def g(x):\n    return x\n\ndef f():\n    return " + "g(" * depth + "1" + ")" * depth + "\n"


def _deep_local(opening: str, closing: str, depth: int) -> str:
    """A local name assigned a deeply nested expression, then called: the precise per-function
    reading (libcst) has to read it."""
    return "def g(x):\n    return x\n\ndef f():\n    fn = " + opening * depth + "g" + closing * depth + "\n    fn()\n"


def _chain(length: int) -> str:
    return (
        "".join(f"def f{i}():\n    return f{i + 1}()\n\n" for i in range(length)) + f"def f{length}():\n    return 0\n"
    )


def _nested_namespaces(depth: int) -> str:
    return "".join(f"namespace n{i} {{\n" for i in range(depth)) + "void leaf() {}\n" + "}\n" * depth


# Four levels of ten-fold macros, each level a different macro: a few hundred bytes that
# expand into thousands of definitions and calls.
_MACRO_BOMB = (
    "#define A(x) void x() { g(); h(); }\n"
    + "".join(
        f"#define {outer}(x) " + " ".join(f"{inner}(x##{digit})" for digit in range(10)) + "\n"
        for outer, inner in (("B", "A"), ("C", "B"), ("D", "C"))
    )
    + "".join(f"D(f{letter})\n" for letter in "abcdefghijklmnopqrst")
)

# Nine levels of nine aliases each: under a kilobyte that stands for 9^9 strings.
_LAUGHS = (
    '- name: x(Tensor self)\n  a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n'
    + "".join(f"  a{i}: &a{i} [{', '.join(['*a' + str(i - 1)] * 9)}]\n" for i in range(1, 9))
    + "  self: *a8\n"
)

_YAML_OP = "- func: relu(Tensor self) -> Tensor\n  dispatch:\n    CPU: relu_cpu\n"


def _indexed(report: str, what: str) -> int:
    """A count from `index --json`."""
    return int(json.loads(report)[what])


def _ok(result: subprocess.CompletedProcess) -> bool:
    return result.returncode == 0


def _says(text: str) -> Check:
    return lambda result: text in result.stdout + result.stderr


def _not(text: str) -> Check:
    return lambda result: text not in result.stdout + result.stderr


def _corrupt(how: str) -> Callable[[Path], None]:
    def damage(index: Path) -> None:
        size = index.stat().st_size
        with open(index, "r+b") as handle:
            if how == "truncate":
                handle.truncate(size // 2)
            elif how == "header":
                handle.write(b"x" * 100)
            else:
                handle.seek(size // 2 // 4096 * 4096)
                handle.write(random.Random(7).randbytes(3 * 4096))

    return damage


def cases() -> list[Case]:
    libcst_rejects = "def helper():\n    return 1\n\ndef f(b, d):\n    x = 1 if b else( 2 if d else 3)\n    fn = helper\n    fn()\n    return x\n"
    long_query = "a" * 30_000
    return [
        *(
            Case(f"libcst rejects valid code: {c}", {"m.py": libcst_rejects}, [[c, "m.f"] if c != "callgraph" else [c]])
            for c in ("trace", "callers", "callees", "callgraph")
        ),
        Case("150 nested calls: trace", {"m.py": _deep_calls(150)}, [["trace", "m.f"]], _says("m.g")),
        Case("2,000 nested calls: index", {"m.py": _deep_calls(2000)}, [["index"]], _ok),
        Case("2,000 nested calls: trace", {"m.py": _deep_calls(2000)}, [["trace", "m.f"]]),
        Case(
            "200 nested calls in a local: trace",
            {"m.py": _deep_local("g(", ")", 200)},
            [["trace", "m.f"]],
            _says("m.g"),
        ),
        Case("2,000 nested brackets in a local: trace", {"m.py": _deep_local("(", ")", 2000)}, [["trace", "m.f"]]),
        Case("2,000 nested brackets: index", {"m.py": "x = " + "[" * 2000 + "]" * 2000 + "\n"}, [["index"]], _ok),
        Case(
            "chain of 600: trace --max-depth 500", {"m.py": _chain(600)}, [["trace", "m.f0", "--max-depth", "500"]], _ok
        ),
        *(
            Case(f"30,000-character query: {c}", {"m.py": "def f(): pass\n"}, [[c, long_query]])
            for c in ("search", "show", "trace", "callers", "callees")
        ),
        Case(
            "100,000-character C++ name: callers",
            {"a.cpp": "void " + "b" * 100_000 + "() {}\nvoid g() { " + "b" * 100_000 + "(); }\n"},
            [["callers", "b" * 100_000]],
        ),
        *(
            Case(
                f"corrupt index ({how}): search",
                {"m.py": "def f(): pass\n"},
                [["index"], ["search", "f"]],
                _says("m.f"),
                damage=_corrupt(how),
            )
            for how in ("truncate", "header", "pages")
        ),
        Case("1,000 nested namespaces: index", {"a.cpp": _nested_namespaces(1000)}, [["index"]], _ok),
        Case("5,000 nested namespaces: index", {"a.cpp": _nested_namespaces(5000)}, [["index"]], _ok),
        Case(
            "YAML billion laughs: index",
            {"tools/autograd/derivatives.yaml": _LAUGHS, "m.py": "def f(): pass\n"},
            [["index"], ["search", "f"]],
            _says("m.f"),
        ),
        Case(
            f"macro bomb ({len(_MACRO_BOMB)} bytes): index",
            {"a.cpp": _MACRO_BOMB},
            [["index", "--json"]],
            lambda r: (
                r.returncode == 0 and _indexed(r.stdout, "symbols") < 5_000 and _indexed(r.stdout, "calls") < 10_000
            ),
        ),
        Case("8,000 definitions in one file: callgraph", {"m.py": _chain(8000)}, [["callgraph"]], _ok),
        Case(
            "catastrophic --to regex",
            {"m.py": "def f():\n    " + "a" * 40 + "b()\n\ndef " + "a" * 40 + "b():\n    pass\n"},
            [["trace", "m.f", "--to", "(a+)+$"]],
        ),
        Case(
            "symlink to a file outside: show",
            {"m.py": "def f(): pass\n"},
            [["show", "secret_function"]],
            _not("def secret_function"),
            links={"leak.py": "secret.py"},
        ),
        Case(
            "NUL byte in Python past the binary probe: index --verbose",
            {"m.py": b"x = 1\n" * 2000 + b"def f():\n    y = 2\x00\n"},
            [["index", "--verbose"]],
            _not("line None"),
        ),
        Case(
            "file name with a newline: search",
            {"a\nb.py": "def newline_function(): pass\n"},
            [["search", "newline_function"]],
            lambda r: r.returncode == 0 and r.stdout.count("\n") == 2,
        ),
        Case(
            "duplicate operator: index --verbose",
            {"aten/src/ATen/native/native_functions.yaml": _YAML_OP + _YAML_OP},
            [["index", "--verbose"]],
            _says("relu"),
        ),
        Case("search '[a-z]*'", {"m.py": "def f(): pass\n"}, [["search", "[a-z]*"]], _not("matches '*'")),
        # issue 25's second battery: hangs, wrong answers and crashes that fit one command
        Case(
            "one-line .cu of 40,000 kernels: index",
            {"big.cu": " ".join(f"__global__ void k{n}(float* x) {{ g{n}(x); }}" for n in range(40_000))},
            [["index", "--json", "--max-file-size", "10000000"]],
            lambda r: r.returncode == 0 and _indexed(r.stdout, "symbols") == 40_000,
        ),
        Case("20,000 definitions in one module: callgraph", {"m.py": _chain(20_000)}, [["callgraph"]], _ok),
        Case(
            "trace --to with --max-depth 10**23",
            {"m.py": _chain(3)},
            [["trace", "m.f0", "--to", "m.f3", "--max-depth", str(10**23)]],
            _says("1 path from m.f0 to m.f3"),
        ),
        Case(
            "calls inside f-strings: callees",
            {"m.py": "def g():\n    return 1\n\ndef f():\n    return f'{g()}'\n"},
            [["callees", "m.f"]],
            _says("m.g"),
        ),
        Case(
            "form feed and U+2028 above a definition: show",
            {"m.py": 'x = 1\n\x0c\ns = "a\u2028b"\ndef g():\n    return 2\n'},
            [["show", "m.g"]],
            _says("4 def g():"),
        ),
        Case(
            "explorer run of a missing script",
            {"m.py": "def f(): pass\n"},
            [["run", "/nonexistent/script.py"]],
            lambda r: r.returncode == 2 and "no such script" in r.stderr,
        ),
        Case(
            "explorer run of code that does not compile",
            {},
            [["run", "-c", "def ("]],
            lambda r: r.returncode == 2 and "invalid syntax" in r.stderr,
            on_sample=True,
        ),
        Case(
            "explorer run of a recursion 900 deep",
            {},
            [
                [
                    "run",
                    "-c",
                    "import sys\nsys.setrecursionlimit(5000)\ndef f(n):\n    return 0 if n == 0 else f(n - 1)\nf(900)",
                ]
            ],
            _ok,
            on_sample=True,
        ),
        Case(
            "explorer run of a program ending with os._exit(3)",
            {},
            [["run", "-c", "import os\ndef f():\n    return 1\nf()\nos._exit(3)"]],
            lambda r: r.returncode == 3 and "__main__.f" in r.stdout,
            on_sample=True,
            exits=(0, 1, 2, 3),
        ),
    ]


@dataclass
class Outcome:
    case: str
    verdict: str
    seconds: float
    detail: str


def run_case(explorer: list[str], case: Case, timeout: float, scratch: Path) -> Outcome:
    root = scratch / "tree"
    cache = scratch / "cache"
    shutil.rmtree(scratch, ignore_errors=True)
    for relative, content in case.files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    root.mkdir(parents=True, exist_ok=True)
    for link, target in case.links.items():
        outside = scratch / target
        outside.write_text("def secret_function():\n    pass\n")
        (root / link).symlink_to(outside)
    env = {**os.environ, "EXPLORER_CACHE_DIR": str(cache), "PYTHONUNBUFFERED": "1"}
    result: subprocess.CompletedProcess | None = None
    started = time.perf_counter()
    for number, command in enumerate(case.commands):
        last = number == len(case.commands) - 1
        if last and case.damage is not None:
            for index in cache.glob("*.sqlite"):
                case.damage(index)
        started = time.perf_counter()
        where = [] if case.on_sample else ["--root", str(root)]
        process = subprocess.Popen(
            [*explorer, *command, *where],
            env=env,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            return Outcome(case.name, "hang", time.perf_counter() - started, f"still running after {timeout:.0f} s")
        result = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
    assert result is not None
    seconds = time.perf_counter() - started
    first_error = next(
        (
            line
            for line in result.stderr.splitlines()
            if line.strip() and not line.startswith(("indexing ", "indexed "))
        ),
        "",
    )
    if "Traceback" in result.stderr or result.returncode not in case.exits:
        last_line = result.stderr.strip().splitlines()[-1] if result.stderr.strip() else f"exit {result.returncode}"
        return Outcome(case.name, "crash", seconds, last_line[:120])
    # what an index being built says of its progress (on the first use of a tree) is no error line
    said = [line for line in result.stderr.splitlines() if not line.startswith(("indexing ", "indexed "))]
    if len(said) > 1 and result.returncode != 0:
        return Outcome(case.name, "wrong", seconds, f"{len(said)} lines on stderr")
    if not case.expect(result):
        shown = first_error or next(iter(result.stdout.strip().splitlines()), "")
        return Outcome(case.name, "wrong", seconds, f"exit {result.returncode}: {shown[:110]}")
    return Outcome(
        case.name, "ok", seconds, f"exit {result.returncode}" + (f": {first_error[:100]}" if first_error else "")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--explorer", default="explorer", help="the explorer executable to try (default: on PATH)")
    parser.add_argument("--timeout", type=float, default=60, help="seconds before a command counts as a hang")
    parser.add_argument("--only", help="run the cases whose name contains this")
    args = parser.parse_args()
    explorer = [shutil.which(args.explorer) or args.explorer]
    outcomes = []
    with tempfile.TemporaryDirectory() as scratch:
        for case in cases():
            if args.only and args.only not in case.name:
                continue
            outcome = run_case(explorer, case, args.timeout, Path(scratch) / "case")
            outcomes.append(outcome)
            print(f"{outcome.verdict:6} {outcome.seconds:6.1f} s  {outcome.case}  ({outcome.detail})", flush=True)
    tally = {verdict: sum(o.verdict == verdict for o in outcomes) for verdict in ("ok", "wrong", "crash", "hang")}
    print(f"\n{len(outcomes)} cases: " + ", ".join(f"{count} {verdict}" for verdict, count in tally.items()))
    sys.exit(0 if tally["ok"] == len(outcomes) else 1)


if __name__ == "__main__":
    main()
