"""The project's Python environment, and the installed distributions its imports name.

The environment is found the way Python language servers find it:
1. `--python-env` or $EXPLORER_PYTHON_ENV: an interpreter or an environment folder (`none`: read no
   installed packages);
2. $VIRTUAL_ENV or $CONDA_PREFIX, the environment the user's shell has activated;
3. a virtual environment inside the project: `.venv`, `venv` or `env` (a folder with pyvenv.cfg);
4. `python3`, else `python`, on PATH.
Explorer itself may be installed elsewhere (pipx): its own interpreter is never the answer.

Nothing installed is imported. An environment folder is read as files (pyvenv.cfg and its
`lib/python3.X/site-packages`). An interpreter outside one is asked only for its site folders,
run isolated and without `site` (`-I -S`), so no `.pth` file's code runs; the path lines of
those `.pth` files (editable installs) are then read as text, as `site` would add them. Its
answer is kept in the cache folder while the interpreter's file is unchanged, since starting an
interpreter costs more than the rest of a query. A pyenv shim is read as pyenv documents its
choice of version ($PYENV_VERSION, the nearest `.python-version`, pyenv's global `version`
file), so the interpreter it would start is the one asked (and remembered); any other launcher
script, or a shim whose choice this cannot follow (the system Python), may start a different
interpreter each time, so it is asked every time.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from typing import Any

from explorer.errors import UsageError
from explorer.folders import cache_folder, read_kept, write_kept

_PROJECT_ENVIRONMENTS = (".venv", "venv", "env")
_SITE_QUERY = (
    "import json, site, sys, sysconfig; "
    "paths = [sysconfig.get_path('purelib'), sysconfig.get_path('platlib')] + list(site.getsitepackages()); "
    "print(json.dumps([p for p in dict.fromkeys(paths) if p]))"
)
NO_ENVIRONMENT = "none"
# What makes a script a pyenv shim: it sets pyenv's root and runs `pyenv exec` on its own name
_PYENV_SHIM = re.compile(r'^export PYENV_ROOT="([^"\n]+)"$.*libexec/pyenv" exec "\$program"', re.MULTILINE | re.DOTALL)


@dataclass(frozen=True, slots=True)
class Environment:
    where: str  # the environment folder or the interpreter
    found_by: str  # how: "--python-env", "$VIRTUAL_ENV", "the project's .venv", "python3 on PATH"
    site_folders: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Distribution:
    """What provides an imported top-level package: an installed distribution (a wheel), or a
    folder a `.pth` file puts on the path with no distribution metadata (then version is "" and
    stamp None: it is read like a source tree)."""

    name: str  # torch
    version: str  # 2.13.0+cpu
    site_folder: str
    top_level: tuple[str, ...]  # the import names it installs: torch, torchgen, functorch
    # Changes whenever the distribution is installed, upgraded or removed: its RECORD's name,
    # size and time. An installed tree is refreshed only when this changes.
    stamp: str | None

    @property
    def label(self) -> str:
        return f"{self.name} {self.version}".strip()


def find_environment(project_root: str, python: str | None, named_by: str = "--python-env") -> Environment | None:
    """The project's environment, or None when there is none (or `none` was asked for).
    `named_by`: where `python` was given (a flag, a configuration file), as errors say it."""
    named = python or os.environ.get("EXPLORER_PYTHON_ENV")
    if named:
        if named == NO_ENVIRONMENT:
            return None
        # a command name (`python3.11`) is looked up on PATH, as a shell would
        path = (
            os.path.abspath(os.path.expanduser(named))
            if os.sep in named
            else shutil.which(named) or os.path.abspath(named)
        )
        said = named_by if python else "$EXPLORER_PYTHON_ENV"
        environment = _environment_at(path, said)
        if environment is None:
            raise UsageError(
                f"{said}: python-env {named}: not a Python interpreter or environment folder"
                if said != "--python-env"
                else f"--python-env {named}: not a Python interpreter or environment folder"
            )
        return environment
    for variable in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        active = os.environ.get(variable)
        if active and (found := _environment_at(active, f"${variable}")) is not None:
            return found
    for name in _PROJECT_ENVIRONMENTS:
        folder = os.path.join(project_root, name)
        if os.path.isfile(os.path.join(folder, "pyvenv.cfg")):
            return _folder_environment(folder, f"the project's {name}")
    for command in ("python3", "python"):
        interpreter = shutil.which(command)
        if interpreter and (found := _environment_at(interpreter, f"{command} on PATH")) is not None:
            return found
    return None


def _environment_at(path: str, found_by: str) -> Environment | None:
    if os.path.isdir(path):
        return _folder_environment(path, found_by) if _is_environment_folder(path) else None
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        return None
    path = pyenv_choice(path) or path
    # An interpreter inside a virtual environment: bin/python -> the environment folder.
    folder = os.path.dirname(os.path.dirname(os.path.abspath(path)))
    if os.path.isfile(os.path.join(folder, "pyvenv.cfg")):
        return _folder_environment(folder, found_by)
    return _interpreter_environment(path, found_by)


def pyenv_choice(shim: str) -> str | None:
    """The interpreter a pyenv shim would start, found without running it; None for anything
    else, and where pyenv's choice is one this does not follow: the system Python, or a version
    not installed under that name (a prefix such as `3.12`, which newer pyenvs complete)."""
    try:
        with open(shim, encoding="utf-8", errors="replace") as handle:
            script = handle.read(4096)
    except OSError:
        return None
    shim_of = _PYENV_SHIM.search(script)
    if shim_of is None:
        return None
    root, program = shim_of.group(1), os.path.basename(shim)
    for version in _pyenv_versions(root):
        installed = os.path.join(root, "versions", version)
        if version == "system" or os.sep in version or not os.path.isdir(installed):
            return None
        interpreter = os.path.join(installed, "bin", program)
        if os.path.isfile(interpreter) and os.access(interpreter, os.X_OK):
            return interpreter  # the first version named that has the command, as pyenv takes
    return None


def _pyenv_versions(root: str) -> list[str]:
    """The versions pyenv would try, in order: `$PYENV_VERSION` (colon-separated), else the
    nearest `.python-version` from the working folder up, else `ROOT/version`, else system."""
    named = os.environ.get("PYENV_VERSION")
    if named:
        return named.split(":")
    folder = os.path.abspath(os.environ.get("PYENV_DIR") or os.getcwd())
    while True:
        local = os.path.join(folder, ".python-version")
        if os.path.isfile(local):
            return _version_file(local)
        if os.path.dirname(folder) == folder:
            break
        folder = os.path.dirname(folder)
    chosen = os.path.join(root, "version")
    return _version_file(chosen) if os.path.isfile(chosen) else ["system"]


def _version_file(path: str) -> list[str]:
    """A version file's names: the first word of each line, comments left out; an empty or
    unreadable file names none (then nothing is chosen here and the shim is asked)."""
    words = (line.split() for line in _read_lines(path, whole=True) if not line.lstrip().startswith("#"))
    return [first[0] for first in words if first] or ["system"]


def _is_environment_folder(folder: str) -> bool:
    return os.path.isfile(os.path.join(folder, "pyvenv.cfg")) or bool(_site_folders_in(folder))


def _site_folders_in(folder: str) -> list[str]:
    patterns = ("lib/python3*/site-packages", "lib64/python3*/site-packages", "Lib/site-packages")
    found = (path for pattern in patterns for path in glob.glob(os.path.join(folder, pattern)) if os.path.isdir(path))
    return sorted({os.path.realpath(path) for path in found})  # lib64 is often a link to lib


def _folder_environment(folder: str, found_by: str) -> Environment:
    sites = _site_folders_in(folder)
    return Environment(folder, found_by, tuple(_with_pth_paths(sites)))


def _interpreter_environment(interpreter: str, found_by: str) -> Environment | None:
    sites = _interpreter_sites(interpreter)
    if sites is None:
        return None
    return Environment(interpreter, found_by, tuple(_with_pth_paths([path for path in sites if os.path.isdir(path)])))


def _interpreter_sites(interpreter: str) -> list[str] | None:
    """The site folders the interpreter reports (None if it cannot be run); remembered per
    interpreter binary, by its size and time."""
    binary = os.path.realpath(interpreter)
    try:
        with open(binary, "rb") as handle:
            launcher = handle.read(2) == b"#!"
        info = os.stat(binary)
    except OSError:
        return None
    stamp = [info.st_size, info.st_mtime_ns]
    remembered = read_kept(cache_folder() / _INTERPRETERS_FILE) or {}
    entry = remembered.get(binary) if not launcher else None
    if isinstance(entry, dict) and entry.get("stamp") == stamp and isinstance(entry.get("sites"), list):
        return [str(path) for path in entry["sites"]]
    try:
        done = subprocess.run(
            [interpreter, "-I", "-S", "-c", _SITE_QUERY], capture_output=True, text=True, timeout=20, check=False
        )
        if done.returncode != 0:  # not a Python that runs: not an environment
            return None
        sites = [str(path) for path in json.loads(done.stdout)]
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    if not launcher:
        remembered[binary] = {"stamp": stamp, "sites": sites}
        write_kept(cache_folder() / _INTERPRETERS_FILE, remembered)
    return sites


_INTERPRETERS_FILE = "interpreters.json"


def _with_pth_paths(sites: list[str]) -> list[str]:
    """The site folders, then the folders their `.pth` files name (lines that are paths; lines
    starting with `import` are code, which is not run)."""
    found = list(dict.fromkeys(sites))
    for site in sites:
        for pth in sorted(glob.glob(os.path.join(site, "*.pth"))):
            for line in _read_lines(pth, whole=True):
                if line.startswith(("#", "import ", "import\t")):
                    continue
                folder = os.path.normpath(os.path.join(site, line))
                if os.path.isdir(folder) and folder not in found:
                    found.append(folder)
    return found


def find_distributions(environment: Environment, imported: set[str]) -> dict[str, Distribution]:
    """For each imported top-level name the environment has, what provides it; the first
    site folder that has a name wins, as on sys.path."""
    found: dict[str, Distribution] = {}
    names = _TopLevelNames(read_kept(cache_folder() / _DISTRIBUTIONS_FILE) or {})
    for site in environment.site_folders:
        by_name = _installed_in(site, names)
        for name in sorted(imported - found.keys()):
            if name in by_name:
                found[name] = by_name[name]
            elif os.path.isfile(os.path.join(site, name, "__init__.py")) or os.path.isfile(
                os.path.join(site, f"{name}.py")
            ):
                found[name] = Distribution(name, "", site, (name,), None)
    if names.changed:  # what was uninstalled is forgotten
        write_kept(
            cache_folder() / _DISTRIBUTIONS_FILE,
            {info: entry for info, entry in names.kept.items() if os.path.isdir(info)},
        )
    return found


_DISTRIBUTIONS_FILE = "distributions.json"


class _TopLevelNames:
    """The import names of each distribution, kept in the cache folder by the stat of the
    files they are read from (RECORD, top_level.txt): a hundred RECORDs read again on every
    query cost 15 ms."""

    def __init__(self, kept: dict[str, Any]) -> None:
        self.kept = kept
        self.changed = False

    def of(self, info: str, record: os.stat_result) -> list[str]:
        top_level_txt = os.path.join(info, "top_level.txt")
        try:
            listed = os.stat(top_level_txt)
            stamp = [record.st_size, record.st_mtime_ns, listed.st_size, listed.st_mtime_ns]
        except OSError:
            stamp = [record.st_size, record.st_mtime_ns]
        entry = self.kept.get(info)
        if isinstance(entry, dict) and entry.get("stamp") == stamp and isinstance(entry.get("names"), list):
            return [str(name) for name in entry["names"]]
        names = _read_lines(top_level_txt) or _top_level_from_record(os.path.join(info, "RECORD"))
        self.kept[info] = {"stamp": stamp, "names": names}
        self.changed = True
        return names


def _installed_in(site: str, names: _TopLevelNames) -> dict[str, Distribution]:
    """Import name -> its distribution, from the `*.dist-info` folders of one site folder."""
    by_name: dict[str, Distribution] = {}
    for info in sorted(glob.glob(os.path.join(site, "*.dist-info"))):
        distribution = _read_dist_info(site, info, names)
        if distribution is None:
            continue
        for name in distribution.top_level:
            by_name.setdefault(name, distribution)
    return by_name


def _read_dist_info(site: str, info: str, names: _TopLevelNames) -> Distribution | None:
    folder = os.path.basename(info)[: -len(".dist-info")]
    name, _, version = folder.partition("-")
    try:
        stat = os.stat(os.path.join(info, "RECORD"))
    except OSError:
        return None
    top_level = names.of(info, stat)
    # only what is there: a distribution may list a name it did not install on this platform
    present = tuple(
        n for n in top_level if os.path.isdir(os.path.join(site, n)) or os.path.isfile(os.path.join(site, f"{n}.py"))
    )
    if not present:
        return None
    return Distribution(name, version, site, present, f"{os.path.basename(info)}:{stat.st_size}:{stat.st_mtime_ns}")


def _read_lines(path: str, whole: bool = False) -> list[str]:
    """A file's non-blank lines ([] if unreadable); unless `whole`, only those naming no folder."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = [line.strip() for line in handle if line.strip()]
    except OSError:
        return []
    return lines if whole else [line for line in lines if "/" not in line]


def _top_level_from_record(record: str) -> list[str]:
    """The first path parts RECORD lists (wheels built without top_level.txt)."""
    names: dict[str, None] = {}
    for line in _read_lines(record, whole=True):
        first = line.split(",", 1)[0].split("/", 1)[0]
        if first.endswith(".py"):
            first = first[:-3]
        if first and not first.endswith((".dist-info", ".data", ".pth")) and first not in ("..", "__pycache__", "bin"):
            names[first] = None
    return list(names)
