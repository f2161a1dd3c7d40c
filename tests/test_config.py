"""A project's configuration (config.py): found from the working folder upward, each setting
from its flag, else its environment variable, else the file, else explorer's default; a file
that cannot be used is one line and exit status 2."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from explorer.config import ConfigFile, Setting, find_config, read_config, resolve_settings
from explorer.errors import UsageError
from explorer.folders import SAMPLE_ROOT
from tests.command_line import invoke


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_the_nearest_folder_with_explorers_settings_wins(tmp_path):
    deep = tmp_path / "outer" / "project" / "src" / "pkg"
    deep.mkdir(parents=True)
    assert find_config(str(deep)) is None
    _write(tmp_path / "outer" / "explorer.toml", 'backend = "cpu"\n')
    _write(tmp_path / "outer" / "project" / "pyproject.toml", '[project]\nname = "p"\n')  # no table: passed over
    found = find_config(str(deep))
    assert found == ConfigFile(
        str(tmp_path / "outer" / "explorer.toml"),
        {"backend": "cpu", "root": str(tmp_path / "outer")},
        frozenset({"root"}),
    )
    _write(tmp_path / "outer" / "project" / "pyproject.toml", '[project]\nname = "p"\n\n[tool.explorer]\npaths = 3\n')
    found = find_config(str(deep))
    assert found is not None and found.path == str(tmp_path / "outer" / "project" / "pyproject.toml")
    assert found.table == {"paths": 3, "root": str(tmp_path / "outer" / "project")}
    assert found.label == f"{tmp_path}/outer/project/pyproject.toml [tool.explorer]"
    _write(tmp_path / "outer" / "project" / "explorer.toml", "tests = true\n")  # beside it: explorer.toml first
    assert find_config(str(deep)).table == {"tests": True, "root": str(tmp_path / "outer" / "project")}


def test_paths_are_the_files_and_a_command_name_is_kept(tmp_path):
    config = _write(
        tmp_path / "project" / "explorer.toml",
        (
            'root = "src"\nindex = "~/idx.sqlite"\ntrees = ["../pytorch", "/abs/lib"]\npython-env = ".venv"\n'
            "max_depth = 9\njobs = 2\n"
        ),
    )
    found = read_config(config)
    home = str(Path("~").expanduser())
    assert found is not None and found.implied == frozenset()
    assert found.table == {
        "root": f"{tmp_path}/project/src",
        "index": f"{home}/idx.sqlite",
        "trees": [f"{tmp_path}/pytorch", "/abs/lib"],
        "python-env": f"{tmp_path}/project/.venv",
        "max-depth": 9,
        "jobs": 2,
    }
    _write(config, 'python-env = "python3.11"\n')
    assert read_config(config).table["python-env"] == "python3.11"  # looked up on PATH, as the flag's
    _write(config, 'python-env = "none"\n')
    assert read_config(config).table["python-env"] == "none"


@pytest.mark.parametrize(
    "text, said",
    [
        ("paths = [\n", "not valid TOML: "),
        (
            "colour = 1\n",
            "unknown setting 'colour' (known: root, index, trees, python-env, backend, paths, max-depth, tests, jobs)",
        ),
        ('paths = "5"\n', "paths must be a whole number, 1 or more"),
        ("paths = 0\n", "paths must be a whole number, 1 or more"),
        ("tests = 1\n", "tests must be true or false"),
        ('trees = "../pytorch"\n', "trees must be a list of paths"),
        ("root = 1\n", "root must be a string"),
        ('backend = "tpu"\n', "backend must be cuda, cpu or all, not 'tpu'"),
        ("[tool.explorer]\npaths = 2\n", "write the settings at the top of explorer.toml, without [tool.explorer]"),
    ],
)
def test_a_file_that_cannot_be_used_is_named_with_what_is_wrong(tmp_path, text, said):
    config = _write(tmp_path / "explorer.toml", text)
    with pytest.raises(UsageError) as raised:
        read_config(config)
    assert str(raised.value).startswith(f"{config}: {said}")


def test_a_flag_beats_the_environment_which_beats_the_file_which_beats_the_default(tmp_path):
    config = read_config(_write(tmp_path / "explorer.toml", 'trees = ["t"]\npython-env = "none"\nbackend = "cpu"\n'))
    label = str(tmp_path / "explorer.toml")
    flags = {"root": None, "trees": None, "python-env": None, "backend": None, "paths": None}
    assert resolve_settings(flags, config, {}) == {
        "root": Setting("root", str(tmp_path), f"{label}: the file's folder"),
        "trees": Setting("trees", [f"{tmp_path}/t"], label),
        "python-env": Setting("python-env", "none", label),
        "backend": Setting("backend", "cpu", label),
        "paths": Setting("paths", None, "default"),
    }
    environ = {"EXPLORER_TREES": "/a:/b", "EXPLORER_PYTHON_ENV": "/env", "EXPLORER_ROOT": "/r"}
    settled = resolve_settings(flags, config, environ)
    assert [(s.value, s.source) for s in settled.values()] == [
        ("/r", "$EXPLORER_ROOT"),
        (["/a", "/b"], "$EXPLORER_TREES"),
        ("/env", "$EXPLORER_PYTHON_ENV"),
        ("cpu", label),
        (None, "default"),
    ]
    given = {"root": "/flag", "trees": ["/x"], "python-env": "/py", "backend": "all", "paths": 7}
    settled = resolve_settings(given, config, environ)
    assert [(s.value, s.source) for s in settled.values()] == [
        ("/flag", "--root"),
        (["/x", "/a", "/b"], "--tree, $EXPLORER_TREES"),
        ("/py", "--python-env"),
        ("all", "--backend"),
        (7, "--paths"),
    ]


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A copy of the bundled tree, with the configuration in the folder above it and the
    shell in a folder below that: `explorer` run there reads the copy, with no --root."""
    shutil.copytree(SAMPLE_ROOT, tmp_path / "work" / "tree", ignore=shutil.ignore_patterns("__pycache__"))
    _write(
        tmp_path / "work" / "pyproject.toml",
        '[tool.explorer]\nroot = "tree"\nbackend = "cpu"\npaths = 1\npython-env = "none"\n',
    )
    (tmp_path / "work" / "notes").mkdir()
    monkeypatch.chdir(tmp_path / "work" / "notes")
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    for variable in ("EXPLORER_ROOT", "EXPLORER_TREES", "EXPLORER_PYTHON_ENV"):
        monkeypatch.delenv(variable, raising=False)
    return tmp_path / "work"


def test_commands_take_the_projects_settings_and_flags_override_them(project):
    traced = invoke(["trace", "torch.add", "--to", "add_kernel"])
    assert traced.exit_code == 0, traced.output
    # backend cpu: the CPU kernel (BinaryOpsKernel.cpp:11) is reached; paths = 1: one listed
    assert (
        "2 paths from torch._C._VariableFunctions.add (2 overloads) to add_kernel (backend cpu) (the best 1 shown; --paths N for more)"
        in traced.stdout
    )
    assert "at::native::add_kernel  aten/src/ATen/native/cpu/BinaryOpsKernel.cpp:11" in traced.stdout
    assert "path 2:" not in traced.stdout
    flagged = invoke(["trace", "torch.add", "--to", "add_kernel", "--paths", "2"])
    assert "2 paths from torch._C._VariableFunctions.add (2 overloads) to add_kernel (backend cpu)\n" in flagged.stdout
    shown = invoke(["config"])
    assert shown.exit_code == 0
    label = f"{project}/pyproject.toml [tool.explorer]"
    assert shown.stdout.splitlines()[:6] == [
        f"configuration: {label}",
        f"root        {project}/tree  ({label})",
        "index       one per tree in the cache folder  (default)",
        "trees       none  (default)",
        f"python-env  none  ({label})",
        f"backend     cpu  ({label})",
    ]
    assert (
        invoke(["config", "--root", str(SAMPLE_ROOT)]).stdout.splitlines()[1] == f"root        {SAMPLE_ROOT}  (--root)"
    )


def test_a_bad_file_stops_every_command_with_one_line(project):
    _write(project / "pyproject.toml", "[tool.explorer]\npaths = -1\n")
    for command in (["trace", "torch.add"], ["search", "add"], ["config"]):
        result = invoke(command)
        assert (result.exit_code, result.stdout) == (2, "")
        assert (
            result.stderr
            == f"error: {project}/pyproject.toml [tool.explorer]: paths must be a whole number, 1 or more\n"
        )
