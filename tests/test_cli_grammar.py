"""The command line's grammar (cli/app.py, on typer): help drawn by rich, shell completion,
the program's own arguments passed through untouched, options a command does not know refused."""

from __future__ import annotations

from tests.command_line import invoke


def test_help_lists_every_command_with_its_summary():
    shown = invoke(["--help"])
    assert shown.exit_code == 0
    box = shown.stdout.split("─ Commands ─")[1]
    listed = [line.split()[1] for line in box.splitlines() if line.startswith("│ ") and line[2] != " "]
    assert listed == [
        "index",
        "search",
        "show",
        "trace",
        "callers",
        "callees",
        "callgraph",
        "lsp",
        "run",
        "scip",
        "config",
    ]
    assert "│ config     Show the settings in force and where each comes from: a flag, the │" in shown.stdout
    bare = invoke([])
    assert bare.exit_code == 2 and "Usage: explorer [OPTIONS] COMMAND [ARGS]..." in bare.output
    assert invoke(["--version"]).stdout.startswith("explorer ")


def test_the_shell_completion_script_and_what_it_completes():
    # what `explorer --show-completion` prints in bash (where typer tells the shell from the parent process)
    script = invoke([], env={"_EXPLORER_COMPLETE": "source_bash"})
    assert script.exit_code == 0
    assert "complete -o default -F _explorer_completion explorer" in script.stdout
    commands = invoke([], env={"_EXPLORER_COMPLETE": "complete_bash", "COMP_WORDS": "explorer c", "COMP_CWORD": "1"})
    assert commands.stdout.split() == ["callers", "callees", "callgraph", "config"]
    options = invoke(
        [], env={"_EXPLORER_COMPLETE": "complete_bash", "COMP_WORDS": "explorer trace x --ba", "COMP_CWORD": "3"}
    )
    assert options.stdout.split() == ["--backend"]
    # a symbol: the qualified names the bundled tree's index holds (torch/nn/modules/conv.py: Conv1d, Conv2d and theirs)
    symbols = invoke(
        [],
        env={
            "_EXPLORER_COMPLETE": "complete_bash",
            "COMP_WORDS": "explorer trace torch.nn.modules.conv.Conv2",
            "COMP_CWORD": "2",
        },
    )
    assert symbols.stdout.split() == [
        "torch.nn.modules.conv.Conv2d",
        "torch.nn.modules.conv.Conv2d.__init__",
        "torch.nn.modules.conv.Conv2d._conv_forward",
        "torch.nn.modules.conv.Conv2d.forward",
    ]


def test_an_unknown_option_or_a_bad_number_is_refused_with_exit_2():
    unknown = invoke(["trace", "torch.nn.Conv2d", "--colour"])
    assert (unknown.exit_code, unknown.stderr) == (
        2,
        "error: No such option: --colour (explorer trace --help lists its options)\n",
    )
    bad = invoke(["trace", "torch.nn.Conv2d", "--paths", "many"])
    assert (bad.exit_code, bad.stderr) == (
        2,
        "error: Invalid value for '--paths': 'many' is not a valid int (explorer trace --help lists its options)\n",
    )
    missing = invoke(["trace"])
    assert (missing.exit_code, missing.stderr) == (
        2,
        "error: Missing argument 'SYMBOL' (explorer trace --help lists its options)\n",
    )
