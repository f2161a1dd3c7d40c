"""Build native code on demand, the way ``torch.utils.cpp_extension.load`` does.

The real function JIT-compiles a C++ extension module with ninja the first
time it is imported and caches the result. Here the same idea builds the
shared library behind ``torch._C`` (see torch/_extension/loader.py), or any
other library described by a :class:`BuildSpec`:

- the result lives in ``<root>/<name>_<hash>/<name>.so``, with ``<root>`` =
  ``$TORCH_EXTENSIONS_DIR``, else ``${XDG_CACHE_HOME:-~/.cache}/torch_extensions``;
  ``<hash>`` covers every source, header and generator input, the compiler and
  the flags, so any change builds a new library and an unchanged tree loads the
  cached one without compiling anything;
- objects are cached one by one in ``<root>/<name>_objects/``, keyed by the
  source text, the headers and the flags, so editing one .cpp file recompiles
  one object before the link;
- sources compile in parallel (``os.cpu_count()`` compiler processes);
- ``.cu`` files are translated to C++ (torch/utils/_cuda_emulation.py) and
  compiled with ``-include cuda_emulation.h``, keeping their line numbers and
  file names in the debug information;
- builds are safe to run concurrently: a file lock per library, and the
  finished library appears by atomic rename.

Settings taken from the environment (part of the hash):

``TORCH_EXTRA_CFLAGS``
    extra compiler flags (split like a shell would), e.g.
    ``-finstrument-functions -finstrument-functions-exclude-file-list=...``;
``TORCH_EXTRA_LDFLAGS``
    extra link flags, e.g. ``-Wl,-Bsymbolic``;
``TORCH_EXTRA_SOURCES``
    extra C/C++ files (``os.pathsep``-separated) compiled into the library with
    the same flags, e.g. a function-call recorder.
``CXX``
    the compiler; otherwise the first of c++, g++, clang++ on PATH.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, List, Optional, Sequence, Tuple

__all__ = [
    "BuildSpec",
    "BuildError",
    "CompilerNotFoundError",
    "get_default_build_root",
    "find_compiler",
    "library_path",
    "load_library",
]

# Bump when the way a library is built changes in a way the inputs do not show.
_RECIPE_VERSION = "torch-native-build 1"

BASE_CFLAGS = ("-std=c++17", "-fPIC", "-O1", "-g", "-pthread")
BASE_LDFLAGS = ("-shared", "-pthread")

_HEADER_SUFFIXES = (".h", ".hpp", ".cuh", ".inc")


class CompilerNotFoundError(ImportError):
    """No C++ compiler is available to build the native library."""


class BuildError(RuntimeError):
    """Compiling or linking the native library failed."""


@dataclass(frozen=True)
class BuildSpec:
    """Everything that determines one shared library.

    ``generate`` (optional) writes generated sources into the folder it is
    given and returns their paths; it runs only when the library is built, so
    its inputs must be listed in ``hash_files`` for changes to be noticed.
    """

    name: str
    root: Path  # the source tree; paths in messages are shown relative to it
    sources: Tuple[Path, ...]
    cuda_sources: Tuple[Path, ...] = ()
    include_dirs: Tuple[Path, ...] = ()
    headers: Tuple[Path, ...] = ()  # every header any source may include
    hash_files: Tuple[Path, ...] = ()  # further inputs: yaml, generator code, translators
    cflags: Tuple[str, ...] = ()
    ldflags: Tuple[str, ...] = ()
    generate: Optional[Callable[[Path], Sequence[Path]]] = field(default=None, compare=False)
    translate_cuda: Optional[Callable[[str], str]] = field(default=None, compare=False)
    cuda_include: Optional[str] = None  # header force-included into translated .cu files
    use_environment: bool = True  # add TORCH_EXTRA_CFLAGS / _LDFLAGS / _SOURCES


# ------------------------------------------------------------------ locations


def get_default_build_root() -> Path:
    explicit = os.environ.get("TORCH_EXTENSIONS_DIR")
    if explicit:
        return Path(explicit).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "torch_extensions"


# ------------------------------------------------------------------ the compiler


def find_compiler() -> List[str]:
    """The C++ compiler command ($CXX, else c++, g++ or clang++ on PATH)."""
    explicit = os.environ.get("CXX")
    if explicit:
        command = shlex.split(explicit)
        if command and shutil.which(command[0]):
            return command
    for name in ("c++", "g++", "clang++"):
        found = shutil.which(name)
        if found:
            return [found]
    raise CompilerNotFoundError(
        "torch builds its native library on first import and needs a C++ compiler for it, but "
        "found none ($CXX is unset or not found, and c++, g++ and clang++ are not on PATH): "
        "install one (Debian/Ubuntu: apt-get install g++) or point $CXX at it."
    )


def _compiler_identity(command: Sequence[str]) -> str:
    """Path, size and modification time of the compiler binary: a new compiler, a new build."""
    binary = os.path.realpath(shutil.which(command[0]) or command[0])
    try:
        stat = os.stat(binary)
        return f"{' '.join(command[1:])}|{binary}|{stat.st_size}|{stat.st_mtime_ns}"
    except OSError:
        return f"{' '.join(command[1:])}|{binary}"


# ------------------------------------------------------------------ settings


@dataclass(frozen=True)
class _Settings:
    compiler: Tuple[str, ...]
    cflags: Tuple[str, ...]
    ldflags: Tuple[str, ...]
    extra_sources: Tuple[Path, ...]


def _settings(spec: BuildSpec) -> _Settings:
    cflags = list(BASE_CFLAGS) + [f"-I{d}" for d in spec.include_dirs] + list(spec.cflags)
    ldflags = list(spec.ldflags)
    extra_sources: List[Path] = []
    if spec.use_environment:
        cflags += shlex.split(os.environ.get("TORCH_EXTRA_CFLAGS", ""))
        ldflags += shlex.split(os.environ.get("TORCH_EXTRA_LDFLAGS", ""))
        for item in os.environ.get("TORCH_EXTRA_SOURCES", "").split(os.pathsep):
            if item.strip():
                path = Path(item.strip()).expanduser().resolve()
                if not path.is_file():
                    raise BuildError(f"TORCH_EXTRA_SOURCES names {path}, which is not a file")
                extra_sources.append(path)
    return _Settings(tuple(find_compiler()), tuple(cflags), tuple(ldflags), tuple(extra_sources))


# ------------------------------------------------------------------ hashing


def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _headers_digest(spec: BuildSpec) -> str:
    h = hashlib.sha256()
    for path in sorted(set(spec.headers)):
        h.update(str(path).encode())
        h.update(_file_digest(path).encode())
    return h.hexdigest()


def _library_hash(spec: BuildSpec, settings: _Settings) -> str:
    h = hashlib.sha256()
    h.update(_RECIPE_VERSION.encode())
    h.update(str(spec.root.resolve()).encode())
    h.update(_compiler_identity(settings.compiler).encode())
    h.update(json.dumps([settings.cflags, settings.ldflags, spec.cuda_include]).encode())
    inputs = set(spec.sources) | set(spec.cuda_sources) | set(spec.headers) | set(spec.hash_files)
    inputs |= set(settings.extra_sources)
    for path in sorted(inputs):
        h.update(str(path).encode())
        h.update(_file_digest(path).encode())
    return h.hexdigest()[:16]


def library_path(spec: BuildSpec, build_root: Optional[Path] = None) -> Path:
    """Where the library of `spec` (with the current environment) is, or would be, built."""
    settings = _settings(spec)
    root = build_root or get_default_build_root()
    return root / f"{spec.name}_{_library_hash(spec, settings)}" / f"{spec.name}.so"


# ------------------------------------------------------------------ locking


class _FileLock:
    """An exclusive lock on a file, held across processes (fcntl.flock)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle = None

    def __enter__(self) -> "_FileLock":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._handle = open(self.path, "a+")
        try:
            import fcntl

            fcntl.flock(self._handle.fileno(), fcntl.LOCK_EX)
        except ImportError:  # not POSIX: builds are then only safe one at a time
            pass
        return self

    def __exit__(self, *exc: object) -> None:
        if self._handle is not None:
            try:
                import fcntl

                fcntl.flock(self._handle.fileno(), fcntl.LOCK_UN)
            except ImportError:
                pass
            self._handle.close()
            self._handle = None


# ------------------------------------------------------------------ building


@dataclass(frozen=True)
class _Unit:
    """One compiler invocation: a source (maybe translated) to one object."""

    source: Path  # the file handed to the compiler
    shown: str  # how messages name it
    language: str  # "c++" or "c"
    extra: Tuple[str, ...]  # flags for this unit only


def _short(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


def _translate_cuda_sources(spec: BuildSpec, out_dir: Path) -> List[_Unit]:
    units = []
    if not spec.cuda_sources:
        return units
    if spec.translate_cuda is None or spec.cuda_include is None:
        raise BuildError("the spec lists .cu sources but no CUDA translation")
    for source in spec.cuda_sources:
        relative = _short(source, spec.root)
        target = out_dir / (relative.replace(os.sep, "_") + ".cpp")
        text = spec.translate_cuda(source.read_text(encoding="utf-8"))
        # debug information and diagnostics name the original .cu file and lines
        translated = f'#line 1 "{source.resolve()}"\n{text}'
        if not target.is_file() or target.read_text(encoding="utf-8") != translated:
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
            tmp.write_text(translated, encoding="utf-8")
            os.replace(tmp, target)
        extra = ("-include", spec.cuda_include, "-iquote", str(source.resolve().parent))
        units.append(_Unit(target, relative, "c++", extra))
    return units


def _compile_command(settings: _Settings, unit: _Unit, output: Path) -> List[str]:
    flags = list(settings.cflags)
    if unit.language == "c":
        flags = [f for f in flags if not f.startswith("-std=c++")]
        lang = ["-x", "c"]
    else:
        lang = []
    return [*settings.compiler, *lang, *flags, *unit.extra, "-c", str(unit.source.resolve()), "-o", str(output)]


def _object_key(settings: _Settings, unit: _Unit, headers_digest: str) -> str:
    h = hashlib.sha256()
    h.update(_RECIPE_VERSION.encode())
    h.update(_compiler_identity(settings.compiler).encode())
    h.update(json.dumps([settings.cflags, unit.language, unit.extra]).encode())
    h.update(str(unit.source.resolve()).encode())
    h.update(_file_digest(unit.source).encode())
    h.update(headers_digest.encode())
    return h.hexdigest()[:24]


def _first_errors(stderr: str, limit: int = 20) -> str:
    lines = stderr.splitlines()
    first = next((i for i, line in enumerate(lines) if "error" in line), 0)
    start = first
    # keep the "In file included from" / "In function" context right above it
    while start > 0 and first - start < 4 and lines[start - 1].strip() and "error" not in lines[start - 1]:
        start -= 1
    return "\n".join(lines[start:start + limit])


def _run(command: Sequence[str], log: List[str]) -> subprocess.CompletedProcess:
    log.append(shlex.join(command))
    return subprocess.run(command, capture_output=True, text=True, errors="replace")


class _BuildProgress:
    """What ninja shows while it compiles: `[k/N] source` on one line rewritten in place on a
    terminal; elsewhere (a log) a line at each quarter of the sources."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.count = 0
        self.terminal = sys.stderr.isatty()

    def compiled(self, shown: str) -> None:
        self.count += 1
        line = f"[{self.count}/{self.total}] {shown}"
        if self.terminal:
            sys.stderr.write(f"\r\x1b[2K{line}")
            sys.stderr.flush()
        elif self.count * 4 // self.total > (self.count - 1) * 4 // self.total and self.count < self.total:
            print(f"torch: {line}", file=sys.stderr, flush=True)

    def done(self) -> None:
        if self.terminal and self.count:
            sys.stderr.write("\r\x1b[2K")
            sys.stderr.flush()


def _build(spec: BuildSpec, settings: _Settings, build_dir: Path, objects_dir: Path, output: Path) -> None:
    log: List[str] = []
    build_dir.mkdir(parents=True, exist_ok=True)
    objects_dir.mkdir(parents=True, exist_ok=True)

    units = [_Unit(s, _short(s, spec.root), "c++", ()) for s in spec.sources]
    units += _translate_cuda_sources(spec, build_dir / "cuda")
    if spec.generate is not None:
        generated = [Path(p) for p in spec.generate(build_dir / "generated")]
        units += [_Unit(p, f"(generated) {p.name}", "c++", ()) for p in generated if p.suffix == ".cpp"]
    for path in settings.extra_sources:
        units.append(_Unit(path, str(path), "c" if path.suffix == ".c" else "c++", ()))

    print(
        f"torch: building the native library ({len(units)} sources) in {build_dir}; "
        "once per checkout and compiler, later runs reuse it ...",
        file=sys.stderr,
        flush=True,
    )
    started = time.monotonic()
    headers_digest = _headers_digest(spec)
    objects: List[Path] = []
    todo: List[Tuple[_Unit, Path]] = []
    for unit in units:
        obj = objects_dir / f"{_object_key(settings, unit, headers_digest)}.o"
        objects.append(obj)
        if not obj.is_file():
            todo.append((unit, obj))

    def compile_one(item: Tuple[_Unit, Path]) -> Tuple[_Unit, subprocess.CompletedProcess]:
        unit, obj = item
        tmp = obj.with_name(f".{obj.name}.{os.getpid()}.tmp")
        result = _run(_compile_command(settings, unit, tmp), log)
        if result.returncode == 0:
            os.replace(tmp, obj)
        else:
            tmp.unlink(missing_ok=True)
        return unit, result

    failures: List[Tuple[_Unit, subprocess.CompletedProcess]] = []
    workers = max(1, os.cpu_count() or 1)
    progress = _BuildProgress(len(todo))
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(compile_one, item) for item in todo]
        for future in concurrent.futures.as_completed(futures):
            if future.cancelled():  # after a failure: the first one is reported below
                continue
            unit, result = future.result()
            progress.compiled(unit.shown)
            if result.stderr.strip():
                log.append(f"--- {unit.shown}\n{result.stderr}")
            if result.returncode != 0:
                failures.append((unit, result))
                for pending in futures:
                    pending.cancel()
    (build_dir / "build.log").write_text("\n".join(log) + "\n", encoding="utf-8")
    progress.done()
    if failures:
        unit, result = failures[0]
        raise BuildError(
            f"torch: compiling {unit.shown} failed (full log: {build_dir / 'build.log'}):\n"
            + _first_errors(result.stderr or result.stdout)
        )

    tmp_output = output.with_name(f".{output.name}.{os.getpid()}.tmp")
    link = [*settings.compiler, *BASE_LDFLAGS, "-o", str(tmp_output), *map(str, objects), *settings.ldflags]
    result = _run(link, log)
    (build_dir / "build.log").write_text("\n".join(log) + "\n" + result.stderr, encoding="utf-8")
    if result.returncode != 0:
        tmp_output.unlink(missing_ok=True)
        raise BuildError(
            f"torch: linking {output.name} failed (full log: {build_dir / 'build.log'}):\n"
            + _first_errors(result.stderr or result.stdout)
        )
    os.replace(tmp_output, output)
    print(f"torch: built {output.name} in {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    (build_dir / "build.json").write_text(
        json.dumps(
            {
                "compiler": list(settings.compiler),
                "cflags": list(settings.cflags),
                "ldflags": list(BASE_LDFLAGS) + list(settings.ldflags),
                "sources": len(units),
                "compiled": len(todo),
                "seconds": round(time.monotonic() - started, 2),
            },
            indent=1,
        )
        + "\n",
        encoding="utf-8",
    )


def load_library(spec: BuildSpec, build_root: Optional[Path] = None, required: Sequence[str] = ()) -> Path:
    """The path of the library of `spec`, built first unless an up-to-date one exists.

    `required` names files (relative to the library's folder) that must exist
    besides the library for the cache to count, e.g. a generated manifest.
    """
    settings = _settings(spec)
    root = build_root or get_default_build_root()
    build_dir = root / f"{spec.name}_{_library_hash(spec, settings)}"
    output = build_dir / f"{spec.name}.so"

    def complete() -> bool:
        return output.is_file() and all((build_dir / r).is_file() for r in required)

    if complete():
        return output
    with _FileLock(root / f"{build_dir.name}.lock"):
        if not complete():  # another process may have finished it meanwhile
            _build(spec, settings, build_dir, root / f"{spec.name}_objects", output)
    return output


def source_tree_files(root: Path, folders: Sequence[str], suffixes: Sequence[str]) -> List[Path]:
    """Files with one of `suffixes` under `folders` of `root`, sorted, build folders skipped."""
    found: List[Path] = []
    for folder in folders:
        base = root / folder
        if not base.is_dir():
            continue
        for path in base.rglob("*"):
            if path.suffix in suffixes and path.is_file() and "__pycache__" not in path.parts:
                found.append(path.resolve())
    return sorted(set(found))
