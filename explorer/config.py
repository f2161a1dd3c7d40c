"""A project's configuration: the settings a user would otherwise type on every command.

Kept in a `[tool.explorer]` table of `pyproject.toml` or in an `explorer.toml` (the whole file
is the table), found from the working folder upward, as pytest and ruff find theirs: the first
folder holding either file with explorer's settings wins (`explorer.toml` before
`pyproject.toml`); a `pyproject.toml` without the table is passed over.

    [tool.explorer]
    root = "."                       # the project (default: this file's folder)
    trees = ["../pytorch"]           # source trees it uses, as --tree
    python-env = ".venv"             # as --python-env (`none`: no installed packages)
    backend = "cuda"                 # trace's defaults
    paths = 5

Each setting comes from the first of: its flag, its environment variable, the file, explorer's
default; `explorer config` says which. Paths in the file are relative to the file's folder.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from explorer.analysis import DEFAULT_DEPTH, DEFAULT_DEPTH_TO, DEFAULT_PATHS
from explorer.errors import UsageError

_TABLE = ("tool", "explorer")  # in pyproject.toml
_FILES = ("explorer.toml", "pyproject.toml")  # looked for in this order in each folder


@dataclass(frozen=True, slots=True)
class Key:
    """One setting: its flag, its environment variable, the type the file must give, and
    whether it names paths (made absolute against the file's folder)."""

    name: str
    flag: str
    variable: str | None
    kind: type
    path: bool = False
    default: str = ""  # explorer's own, as `explorer config` shows it
    fallback: object = None  # explorer's own, as the command takes it (None: the command decides)
    commands: tuple[str, ...] = ()  # the commands whose flag means this (none named: every one that has it)
    attribute: str = ""  # the command's argument it sets (the flag's name by default)

    @property
    def argument(self) -> str:
        return self.attribute or self.flag.removeprefix("--").replace("-", "_")


KEYS: dict[str, Key] = {
    key.name: key
    for key in (
        Key("root", "--root", "EXPLORER_ROOT", str, path=True, default="the bundled sample_repo"),
        Key("index", "--index", None, str, path=True, default="one per tree in the cache folder"),
        Key("trees", "--tree", "EXPLORER_TREES", list, path=True, default="none", attribute="trees"),
        Key(
            "python-env",
            "--python-env",
            "EXPLORER_PYTHON_ENV",
            str,
            default="$VIRTUAL_ENV, $CONDA_PREFIX, the project's .venv, else python3 on PATH",
        ),
        Key("backend", "--backend", None, str, default="cuda", fallback="cuda"),
        Key("paths", "--paths", None, int, default=str(DEFAULT_PATHS), fallback=DEFAULT_PATHS),
        Key(
            "max-depth",
            "--max-depth",
            None,
            int,
            default=f"{DEFAULT_DEPTH} hops, {DEFAULT_DEPTH_TO} with --to",
            commands=("trace",),
        ),  # run's --max-depth is how deep its tree is shown
        Key("tests", "--tests", None, bool, default="false", fallback=False),
        Key("jobs", "--jobs", None, int, default="one per core"),
    )
}


@dataclass(frozen=True, slots=True)
class ConfigFile:
    path: str  # absolute
    table: dict[str, object]  # checked, paths absolute
    implied: frozenset[str] = frozenset()  # set by the file's place, not written in it: the root

    @property
    def label(self) -> str:
        return f"{self.path} [tool.explorer]" if self.path.endswith("pyproject.toml") else self.path


@dataclass(frozen=True, slots=True)
class Setting:
    name: str
    value: object  # None: not set anywhere, explorer's own default applies
    source: str  # "--root", "$EXPLORER_ROOT", the file's label, "default"


def find_config(start: str | None) -> ConfigFile | None:
    """The configuration in force in folder `start`: the nearest file with explorer's table."""
    if start is None:
        return None
    folder = Path(start).resolve()
    for place in (folder, *folder.parents):
        for name in _FILES:
            candidate = place / name
            if candidate.is_file():
                found = read_config(candidate)
                if found is not None:
                    return found
    return None


def read_config(path: Path) -> ConfigFile | None:
    """The settings in `path`; None for a pyproject.toml without the table. A file that is not
    TOML, an unknown key or a value of the wrong type is a UsageError naming the file."""
    import tomllib  # only where a file is found: most commands run without one

    try:
        with open(path, "rb") as handle:
            document = tomllib.load(handle)
    except OSError as error:
        raise UsageError(f"{path}: cannot read the configuration: {error.strerror or error}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise UsageError(f"{path}: not valid TOML: {error}") from None
    table: object = document
    if path.name == "pyproject.toml":
        for part in _TABLE:
            table = table.get(part) if isinstance(table, dict) else None
        if table is None:
            return None
    label = f"{path} [tool.explorer]" if path.name == "pyproject.toml" else str(path)
    if not isinstance(table, dict):
        raise UsageError(f"{label}: explorer's settings must be a table")
    checked = _checked(table, path.resolve().parent, label)
    implied = frozenset() if "root" in checked else frozenset({"root"})
    checked.setdefault("root", str(path.resolve().parent))  # the file's folder is the project unless it says
    return ConfigFile(str(path.resolve()), checked, implied)


def _checked(table: Mapping[str, object], folder: Path, label: str) -> dict[str, object]:
    checked: dict[str, object] = {}
    for name, value in table.items():
        key = KEYS.get(name.replace("_", "-"))
        if key is None:
            if name == "tool" and label.endswith("explorer.toml"):
                raise UsageError(f"{label}: write the settings at the top of explorer.toml, without [tool.explorer]")
            raise UsageError(f"{label}: unknown setting {name!r} (known: {', '.join(KEYS)})")
        if key.kind is list:
            if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
                raise UsageError(f"{label}: {key.name} must be a list of paths")
        elif key.kind is int:
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise UsageError(f"{label}: {key.name} must be a whole number, 1 or more")
        elif not isinstance(value, key.kind):
            raise UsageError(f"{label}: {key.name} must be {'true or false' if key.kind is bool else 'a string'}")
        if key.name == "backend" and value not in ("cuda", "cpu", "all"):
            raise UsageError(f"{label}: backend must be cuda, cpu or all, not {value!r}")
        checked[key.name] = _absolute(value, folder) if key.path else value
    if "python-env" in checked:
        checked["python-env"] = _environment_path(str(checked["python-env"]), folder)
    return checked


def _absolute(value: object, folder: Path) -> object:
    if isinstance(value, list):
        return [_absolute(item, folder) for item in value]
    return os.path.normpath(folder / Path(str(value)).expanduser())


def _environment_path(value: str, folder: Path) -> str:
    """A path (it has a separator) is the file's; `none` and a command name (`python3.11`,
    looked up on PATH) are kept as written."""
    return (
        os.path.normpath(folder / Path(value).expanduser())
        if os.sep in value or value.startswith((".", "~"))
        else value
    )


def resolve_settings(
    flags: Mapping[str, object], config: ConfigFile | None, environ: Mapping[str, str] | None = None
) -> dict[str, Setting]:
    """Each setting the command takes (a key of `flags`: None where its flag was not given),
    from its flag, else its environment variable, else the file, else explorer's default."""
    environ = os.environ if environ is None else environ
    found: dict[str, Setting] = {}
    for name, given in flags.items():
        key = KEYS[name]
        variable = environ.get(key.variable, "") if key.variable else ""
        if given not in (None, [], ()):
            if key.kind is list and variable:  # --tree and $EXPLORER_TREES add up
                found[name] = Setting(name, [*given, *_split(variable)], f"{key.flag}, ${key.variable}")  # type: ignore[misc]
            else:
                found[name] = Setting(name, given, key.flag)
        elif variable:
            found[name] = Setting(name, _split(variable) if key.kind is list else variable, f"${key.variable}")
        elif config is not None and name in config.table:
            said = f"{config.label}: the file's folder" if name in config.implied else config.label
            found[name] = Setting(name, config.table[name], said)
        else:
            found[name] = Setting(name, None, "default")
    return found


def _split(paths: str) -> list[str]:
    return [path for path in paths.split(os.pathsep) if path]


def configure(command: str, arguments: dict[str, object], start: str | None) -> dict[str, Setting]:
    """Fill a command's arguments that its flags left unset from the environment and the
    configuration found from folder `start`; the settings, with where each came from."""
    wanted = {
        name: arguments[key.argument]
        for name, key in KEYS.items()
        if key.argument in arguments and (not key.commands or command in key.commands)
    }
    if not wanted:
        return {}
    settings = resolve_settings(wanted, find_config(start))
    for name, setting in settings.items():
        arguments[KEYS[name].argument] = KEYS[name].fallback if setting.value is None else setting.value
    return settings
