"""`explorer run` pieces that need no native library: recording Python calls, merging the two
recordings, naming native symbols, folding, filters, and the command's errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.model import Layer
from explorer.runtime.events import NativeRecording, PythonCode, PythonRecording, merge
from explorer.runtime.model import Reach, RunFrame
from explorer.runtime.naming import qualified_name
from explorer.runtime.shaping import filtered, fold_repeats, limited
from tests.command_line import invoke
from tests.conftest import write_tree

PACKAGE = """class Walker:
    def run(self, n):
        return [self.step(i) for i in range(n)]

    def step(self, i):
        return helper(i)

    @property
    def value(self):
        return helper(1)


def helper(i):
    return i + 1
"""


@pytest.fixture()
def small_root(tmp_path: Path) -> Path:
    # A tree counts as a runnable runtime when it has torch/_extension; this one has no
    # native library at all, so everything recorded is Python.
    return write_tree(
        tmp_path / "tree",
        {
            "torch/__init__.py": "",
            "torch/_extension/__init__.py": "",
            "pkg/__init__.py": PACKAGE,
        },
    )


def run_cli(*args: str):
    result = invoke(["run", *args])
    assert (
        "Traceback" not in result.stdout and "bootstrap.py" not in result.output
    )  # the program's own traceback goes to stderr
    return result


def test_python_calls_are_recorded_with_call_sites_implicit_calls_and_folded_repeats(small_root):
    code = "import pkg\nw = pkg.Walker()\nw.run(3)\nw.value\n"
    result = run_cli("--root", str(small_root), "--json", "-c", code)
    assert result.exit_code == 0, result.output
    tree = json.loads(result.stdout)["tree"]

    def shape(frame):
        site = frame.get("site")
        return (
            frame["name"],
            frame["path"],
            frame["line"],
            frame["reach"],
            frame.get("calls", 1),
            f"{site['path']}:{site['line']}" if site else None,
            [shape(c) for c in frame["children"]],
        )

    assert shape(tree) == (
        "<string>",
        "<string>",
        None,
        "call",
        1,
        None,
        [
            ("pkg", "pkg/__init__.py", 1, "import", 1, None, []),
            (
                "pkg.Walker.run",
                "pkg/__init__.py",
                2,
                "call",
                1,
                "<string>:3",
                [
                    # the list comprehension's frame is folded: its calls belong to run()
                    (
                        "pkg.Walker.step",
                        "pkg/__init__.py",
                        5,
                        "call",
                        3,
                        "pkg/__init__.py:3",
                        [
                            ("pkg.helper", "pkg/__init__.py", 13, "call", 1, "pkg/__init__.py:6", []),
                        ],
                    ),
                ],
            ),
            # a property: entered by attribute access; its line is the `def`'s, as in the index
            (
                "pkg.Walker.value",
                "pkg/__init__.py",
                9,
                "implicit",
                1,
                "<string>:4",
                [
                    ("pkg.helper", "pkg/__init__.py", 13, "call", 1, "pkg/__init__.py:10", []),
                ],
            ),
        ],
    )


def test_a_script_with_arguments_runs_with_its_own_argv_and_exit_code(small_root, tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(
        "import sys\nimport pkg\n\ndef main():\n    pkg.helper(len(sys.argv))\n    sys.exit(int(sys.argv[2]))\n\nmain()\n"
    )
    result = run_cli("--root", str(small_root), "--", str(script), "--flag", "3")
    assert result.exit_code == 3
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"python {script} --flag 3  (bundled runtime")
    assert lines[1].split() == [
        "python",
        str(script.resolve()),
        str(script.resolve()),
    ]  # outside the working folder: absolute
    assert lines[2].split()[:5] == ["├──", "python", "import", "pkg", "pkg/__init__.py:1"]
    assert lines[3].split() == [
        "└──",
        "python",
        "__main__.main",
        f"{script.resolve()}:4",
        "←",
        "at",
        f"{script.resolve()}:8",
    ]
    assert lines[4].split() == ["└──", "python", "pkg.helper", "pkg/__init__.py:13", "←", "at", f"{script.resolve()}:5"]


def test_the_program_failing_is_a_note_and_its_exit_code(small_root):
    result = run_cli("--root", str(small_root), "-c", "import pkg\npkg.helper('x')\n")
    assert result.exit_code == 1
    assert 'File "<string>", line 2, in <module>' in result.stderr
    assert 'note: the program failed: TypeError: can only concatenate str (not "int") to str' in result.stdout
    assert "pkg.helper" in result.stdout  # the frames before the failure are kept


def test_the_event_cap_stops_recording_and_says_so(small_root):
    # 6 events: the program's start, import pkg (2: what the import runs is not recorded),
    # helper (2), and a second helper call, whose return is still recorded: the tree stays whole.
    result = run_cli(
        "--root", str(small_root), "--max-events", "6", "-c", "import pkg\nfor i in range(50):\n    pkg.helper(i)\n"
    )
    assert result.exit_code == 0
    assert "note: Python events capped at 6 (--max-events): later Python calls are not shown" in result.stdout
    tree_lines = result.stdout.splitlines()[1:]
    assert [line for line in tree_lines if "pkg.helper" in line] == [
        "└── python  pkg.helper  pkg/__init__.py:13  ← at <string>:3  ×2"
    ]
    assert "×2" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give either -c CODE or a script to run (after --)"),
        (["--backend-device", "tpu", "-c", "pass"], "unknown --backend-device 'tpu'; one of: cpu, cuda"),
        (["--max-depth", "0", "-c", "pass"], "--max-depth must be at least 1"),
        (["--max-events", "0", "-c", "pass"], "--max-events must be at least 1"),
        (
            ["--json", "--format", "svg", "-c", "pass"],
            "--json prints the trace as JSON; it does not combine with --format svg",
        ),
    ],
)
def test_bad_options_are_one_line_errors(small_root, args, message):
    result = run_cli("--root", str(small_root), *args)
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1] == f"error: {message}"


def test_a_tree_without_the_bundled_runtime_is_refused(tmp_path):
    root = write_tree(tmp_path / "plain", {"pkg/__init__.py": "x = 1\n"})
    result = run_cli("--root", str(root), "-c", "pass")
    assert result.exit_code == 2
    assert result.output.strip() == (
        f"error: {root} is not a tree with the bundled reference runtime (no torch/_extension); "
        "to run real PyTorch, give --python with an interpreter that has torch installed"
    )


# -- merging and naming, on hand-made recordings ------------------------------------------


def test_native_events_nest_under_the_python_frame_that_was_running_by_time():
    python = PythonRecording(
        codes=[PythonCode("/t/a.py", "f", 1, "a"), PythonCode("/t/a.py", "g", 5, "a")],
        events=[(1, 10, 0, 0, 1), (1, 20, 1, 2, 1), (2, 50, 1, 0, 0), (2, 90, 0, 0, 0)],
        exit_code=0,
        error=None,
        capped=False,
        max_events=100,
    )
    native = NativeRecording(
        "/lib.so",
        [
            (30, 0x100, 0, 1, 0),
            (35, 0x200, 0x105, 1, 0),
            (40, 0x200, 0x105, 2, 0),
            (45, 0x100, 0, 2, 0),
            (60, 0x300, 0, 1, 0),
            (70, 0x300, 0, 2, 0),
        ],
        0,
    )
    root = merge(python, native)

    def shape(frame):
        return (("n" if frame.native else "p"), frame.ident, [shape(c) for c in frame.children])

    assert [shape(c) for c in root.children] == [
        ("p", 0, [("p", 1, [("n", 0x100, [("n", 0x200, [])])]), ("n", 0x300, [])]),
    ]


@pytest.mark.parametrize(
    ("demangled", "name"),
    [
        ("at::native::conv2d_symint(at::Tensor const&, at::Tensor const&, c10::SymInt)", "at::native::conv2d_symint"),
        ("void at::native::(anonymous namespace)::launch<float, float>(float const*, long)", "at::native::launch"),
        ("at::Tensor::sizes() const", "at::Tensor::sizes"),
        ("at::_ops::conv2d::call(at::Tensor const&, c10::optional<at::Tensor> const&)", "at::_ops::conv2d::call"),
        ("cudnnConvolutionForward", "cudnnConvolutionForward"),
        ("std::vector<long, std::allocator<long> >::operator[](unsigned long)", "std::vector::operator[]"),
        ("at::native::f(int)::{lambda(long)#1}::operator()(long) const", None),
        # a template instantiated with a lambda is the template, not the lambda's body
        (
            "void at::native::gpu_kernel<at::native::(anonymous namespace)::exp_kernel(at::TensorIteratorBase&)::{lambda(float)#1}>"
            "(at::TensorIteratorBase&, at::native::(anonymous namespace)::exp_kernel(at::TensorIteratorBase&)::{lambda(float)#1} const&)",
            "at::native::gpu_kernel",
        ),
        (
            "void at::native::elementwise_kernel<at::native::f(int)::{lambda(float)#1}>(long, at::native::f(int)::{lambda(float)#1}, float*)",
            "at::native::elementwise_kernel",
        ),
    ],
)
def test_demangled_names_become_the_qualified_names_the_index_uses(demangled, name):
    assert qualified_name(demangled) == name


# -- shaping ------------------------------------------------------------------------------


def _frame(name: str, *children: RunFrame, layer: Layer = Layer.CPP) -> RunFrame:
    return RunFrame(name, layer, "x.cpp", 1, children=children)


def test_only_identical_consecutive_calls_fold():
    tree = _frame(
        "root", _frame("a", _frame("b")), _frame("a", _frame("b")), _frame("a", _frame("c")), _frame("a", _frame("c"))
    )
    folded = fold_repeats(tree)
    assert [(f.name, f.calls, [c.name for c in f.children]) for f in folded.children] == [
        ("a", 2, ["b"]),
        ("a", 2, ["c"]),
    ]


def test_include_keeps_matching_frames_and_exclude_drops_subtrees():
    tree = _frame("root", _frame("at::native::f", _frame("c10::g", _frame("at::native::h")), _frame("at::native::k")))
    kept = filtered(tree, ("at::native",), ())
    assert [(f.name, [c.name for c in f.children]) for f in kept.children] == [
        ("at::native::f", ["at::native::h", "at::native::k"])
    ]
    dropped = filtered(tree, (), ("c10",))
    assert [(f.name, [c.name for c in f.children]) for f in dropped.children] == [("at::native::f", ["at::native::k"])]
    assert filtered(tree, ("at::native::f",), ()).children[0].name == "at::native::f"
    assert filtered(tree, ("at::nat",), ()).children == ()  # prefixes end at a separator


def test_depth_limit_counts_what_it_cuts():
    tree = _frame("root", _frame("a", _frame("b", _frame("c"))), _frame("d"))
    shown, cut = limited(tree, 2)
    assert [(f.name, [c.name for c in f.children]) for f in shown.children] == [("a", ["b"]), ("d", [])]
    assert shown.children[0].children[0].children == () and cut == 1
    assert Reach.DISPATCH.value == "dispatch"
