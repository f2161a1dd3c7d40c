"""Which files of a tree are indexed, and reading them safely.

Discovery walks the tree without following symlinked folders (so a symlink loop cannot trap
it), honours every `.gitignore` on the way down, and leaves out build output and vendored
third-party folders unless asked. Reading rejects what no parser should see: unreadable,
binary, non-UTF-8 and oversized files. Each rejection is a Diagnostic with a reason.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from explorer.model import Diagnostic, Language
from explorer.parsers import language_of

# Folders that hold build output, caches or tool state, never source worth indexing.
BUILD_FOLDERS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        "build",
        "dist",
        "node_modules",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".eggs",
        ".cache",
    }
)
# Folders of vendored third-party code, indexed only with include_third_party.
THIRD_PARTY_FOLDERS = frozenset({"third_party", "third-party", "thirdparty"})

DEFAULT_MAX_FILE_SIZE = 2 * 1024 * 1024
_BINARY_PROBE = 8192


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A file discovery found: its path relative to the root, language and stat fingerprint."""

    path: str
    lang: Language
    size: int
    mtime_ns: int


@dataclass(frozen=True, slots=True)
class WalkOptions:
    include_third_party: bool = False
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    # A symlink to a file outside the tree is followed only when the user asks: indexing a
    # tree must not read (and `show` must not print) whatever a link in it points at.
    follow_links_outside: bool = False
    # A tree that is part of a larger folder (one installed distribution in site-packages):
    # the top-level entries that belong to it. Empty: the whole folder.
    only: tuple[str, ...] = ()
    # The languages read (Language values); empty: all. An installed wheel is read for its
    # Python, stubs and YAML: its C++ headers declare what its compiled library defines.
    languages: tuple[str, ...] = ()

    @classmethod
    def from_saved(cls, saved: dict[str, Any]) -> WalkOptions:
        """Options as `explorer index` saved them in an index (JSON has lists, not tuples)."""
        known: dict[str, Any] = {
            key: tuple(value) if isinstance(value, list) else value
            for key, value in saved.items()
            if key in cls.__dataclass_fields__
        }
        return cls(**known)


def outside_root(root: str, path: str) -> bool:
    """Whether `path` (absolute, under `root` as written) really lies outside `root` once its
    symlinks are resolved."""
    real_root = os.path.realpath(root)
    return os.path.commonpath([real_root, os.path.realpath(path)]) != real_root


class _GitIgnoreFile:
    """One `.gitignore`, matched with a few combined regular expressions instead of pattern
    by pattern: discovery asks this for every file of the tree, and large trees have large
    ignore files. Only when an ignoring and a re-including (`!`) pattern both match does the
    order of the lines decide, and then pathspec walks them in order.

    Patterns without a slash (`*.pyc`, `build/`) match a single path component. Discovery
    checks every folder before entering it, so for those it is enough to match the last
    component, which is much cheaper than trying every folder boundary of the path."""

    def __init__(self, lines: list[str]) -> None:
        import pathspec  # only for trees that have ignore files

        self.spec = pathspec.GitIgnoreSpec.from_lines(lines)
        self.ignoring = self._combine(include=True)
        self.including = self._combine(include=False)

    def _combine(self, include: bool) -> _Matcher:
        matcher = _Matcher()
        for pattern in self.spec.patterns:
            regex = getattr(pattern, "regex", None)
            if pattern.include is not include or regex is None:
                continue
            matcher.add(regex.pattern.replace("(?P<ps_d>", "(?:"))
        matcher.compile()
        return matcher

    def verdict(self, path: str) -> bool | None:
        """True: ignored; False: re-included; None: this file says nothing about the path.
        Folder paths end with a slash."""
        name = path[path.rstrip("/").rfind("/") + 1 :]
        ignored = self.ignoring.matches(path, name)
        included = self.including.matches(path, name)
        if ignored and included:
            return self.spec.check_file(path).include
        if ignored:
            return True
        return False if included else None


_FILE_OR_FOLDER = "(?:(?:/)|$)"
_FOLDER_ONLY = "(?:/)"
_ANY_DEPTH = "^(?:.+/)?"  # `name`: a component anywhere
_BELOW_TOP = "^[^/]+(?:/.+)?/"  # `*/**/name`: a component below the top folder
_LITERAL = re.compile(r"(?:[^\\\[\](){}.*+?^$|]|\\.)+$")
_LEADING_FOLDER = re.compile(r"\^((?:[\w\-]|\\.)+)(?=/|\(\?:)")


class _ComponentRules:
    """Patterns that match one path component: literal names by set lookup (`GRTAGS`,
    `build/`), `*.ext` by suffix, the rest by one combined regex."""

    def __init__(self) -> None:
        self.names: set[str] = set()  # "build" matches a file or folder, "build/" a folder
        self.suffixes: list[str] = []
        self.patterns: list[str] = []

    def add(self, source: str) -> None:
        for ending, folder_only in ((_FILE_OR_FOLDER, False), (_FOLDER_ONLY, True)):
            if source.endswith(ending):
                core = source[: -len(ending)]
                star = core.startswith("[^/]*")
                literal = core[len("[^/]*") :] if star else core
                if _LITERAL.match(literal):
                    text = re.sub(r"\\(.)", r"\1", literal)
                    if star and not folder_only:
                        self.suffixes.append(text)
                        return
                    if not star:
                        self.names.add(text + "/")
                        if not folder_only:
                            self.names.add(text)
                        return
        self.patterns.append("^" + source)

    def compile(self) -> None:
        self._regex = _alternation(self.patterns)
        self._suffixes = tuple(self.suffixes)

    def matches(self, name: str) -> bool:
        if name in self.names:
            return True
        if self._suffixes and (name[:-1] if name.endswith("/") else name).endswith(self._suffixes):
            return True
        return self._regex is not None and self._regex.match(name) is not None


class _Matcher:
    """The patterns of one polarity (ignoring, or re-including). Component patterns are
    matched on the last component (anywhere, or only below the top folder); the rest on the
    whole path, grouped by their literal first folder (`aten/build/`), so a path meets only
    the patterns that can apply to it."""

    def __init__(self) -> None:
        self.anywhere = _ComponentRules()
        self.below_top = _ComponentRules()
        self.by_folder: dict[str, list[str]] = {}
        self.other: list[str] = []

    def add(self, source: str) -> None:
        for prefix, rules in ((_ANY_DEPTH, self.anywhere), (_BELOW_TOP, self.below_top)):
            rest = source[len(prefix) :]
            if source.startswith(prefix) and "/" not in rest.replace("(?:/)", "").replace("[^/]", ""):
                rules.add(rest)
                return
        leading = _LEADING_FOLDER.match(source)
        if leading is not None:
            folder = re.sub(r"\\(.)", r"\1", leading.group(1))
            self.by_folder.setdefault(folder, []).append(source)
        else:
            # Anchor at the start, so `match` tries one position, not every one.
            self.other.append(source if source.startswith("^") else f"^.*?(?:{source})")

    def compile(self) -> None:
        self.anywhere.compile()
        self.below_top.compile()
        self._by_folder = {folder: _alternation(sources) for folder, sources in self.by_folder.items()}
        self._other = _alternation(self.other)

    def matches(self, path: str, name: str) -> bool:
        if self.anywhere.matches(name):
            return True
        nested = "/" in path.rstrip("/")
        if nested and self.below_top.matches(name):
            return True
        if self._by_folder:
            folder_regex = self._by_folder.get(path.split("/", 1)[0])
            if folder_regex is not None and folder_regex.match(path) is not None:
                return True
        return self._other is not None and self._other.match(path) is not None


def _alternation(sources: list[str]) -> re.Pattern[str] | None:
    return re.compile("|".join(f"(?:{source})" for source in sources)) if sources else None


class _IgnoreRules:
    """The stack of `.gitignore` files from the root down to the folder being walked."""

    def __init__(self) -> None:
        self._files: list[tuple[str, _GitIgnoreFile]] = []

    def load(self, root: str, folder_abs: str, folder_rel: str) -> bool:
        path = os.path.join(folder_abs, ".gitignore")
        if os.path.islink(path) and outside_root(root, path):
            return False
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                rules = _GitIgnoreFile(handle.read().splitlines())
        except OSError:
            return False
        self._files.append((folder_rel, rules))
        return True

    def pop(self) -> None:
        self._files.pop()

    def ignored(self, rel: str, is_dir: bool) -> bool:
        verdict = False
        for base, rules in self._files:
            local = rel[len(base) + 1 :] if base else rel
            if is_dir:
                local += "/"
            said = rules.verdict(local)
            if said is not None:
                verdict = said  # deeper files win, as in git
        return verdict


# Why a folder is not walked, as the index report says it.
LEFT_OUT_BUILD = "build output or tool state"
LEFT_OUT_THIRD_PARTY = "vendored third-party code (--include-third-party indexes it)"
LEFT_OUT_IGNORED = "ignored by .gitignore"
LEFT_OUT_VENV = "a virtual environment (its packages are read as installed trees where imported)"
LEFT_OUT_TREE = "another tree of this query"


def walk(
    root: str,
    options: WalkOptions,
    leave_out: frozenset[str] = frozenset(),
    stamps: dict[str, list[int]] | None = None,
    left_out_by_rule: list[Diagnostic] | None = None,
) -> tuple[list[SourceFile], list[Diagnostic]]:
    """Every indexable file under root, and the files passed over with a reason. `leave_out`:
    folders (relative to root) that are trees of their own in this query (a checkout inside
    the project): their files are theirs, not the project's. `stamps`, if given, receives the
    stat of every folder walked and every `.gitignore` read (index/listing.py);
    `left_out_by_rule`, the folders not walked, each with the rule that left it out."""
    found: list[SourceFile] = []
    skipped: list[Diagnostic] = []
    left = left_out_by_rule if left_out_by_rule is not None else []
    rules = _IgnoreRules()
    found.extend(_walk_folder(root, root, "", rules, options, _Passed(skipped, left), leave_out, stamps))
    found.sort(key=lambda source: source.path)
    skipped.sort(key=lambda diagnostic: diagnostic.path)
    left.sort(key=lambda diagnostic: diagnostic.path)
    return found, skipped


@dataclass(frozen=True, slots=True)
class _Passed:
    """What the walk passes over: files it cannot index, and folders a rule leaves out."""

    skipped: list[Diagnostic]
    left_out: list[Diagnostic]


def _folder_rule(
    entry: os.DirEntry[str], rel: str, rules: _IgnoreRules, options: WalkOptions, leave_out: frozenset[str]
) -> str | None:
    """Why the folder is not walked; None to walk it."""
    if entry.name in BUILD_FOLDERS or entry.name.endswith(".egg-info"):
        return LEFT_OUT_BUILD
    if entry.name in THIRD_PARTY_FOLDERS and not options.include_third_party:
        return LEFT_OUT_THIRD_PARTY
    if rel in leave_out:
        return LEFT_OUT_TREE
    if rules.ignored(rel, is_dir=True):
        return LEFT_OUT_IGNORED
    return None


def _walk_folder(
    root: str,
    folder_abs: str,
    folder_rel: str,
    rules: _IgnoreRules,
    options: WalkOptions,
    passed: _Passed,
    leave_out: frozenset[str],
    stamps: dict[str, list[int]] | None,
) -> Iterator[SourceFile]:
    skipped = passed.skipped
    if stamps is not None:  # before reading it: a change made during the walk shows next time
        stamps[folder_rel or "."] = stat_stamp(folder_abs)
        ignore_file = os.path.join(folder_abs, ".gitignore")
        stamps[f"{folder_rel}/.gitignore" if folder_rel else ".gitignore"] = stat_stamp(ignore_file)
    pushed = rules.load(root, folder_abs, folder_rel)
    try:
        entries = sorted(os.scandir(folder_abs), key=lambda entry: entry.name)
    except OSError as error:
        skipped.append(Diagnostic(folder_rel or ".", f"folder not readable: {error.strerror}"))
        entries = []
    if not folder_rel and options.only:
        entries = [entry for entry in entries if entry.name in options.only]
    for entry in entries:
        rel = f"{folder_rel}/{entry.name}" if folder_rel else entry.name
        try:
            is_link = entry.is_symlink()
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            continue
        if is_dir:
            rule = _folder_rule(entry, rel, rules, options, leave_out)
            if rule is not None:
                if entry.name not in (".git", ".hg", ".svn", "__pycache__"):  # always there: not worth a line
                    passed.left_out.append(Diagnostic(rel, rule))
                continue
            # a virtual environment under any name (`env/`, `.venv-3.11/`): installed packages,
            # read as an installed tree where the project imports them, never as its own code
            venv_marker = os.path.join(entry.path, "pyvenv.cfg")
            if os.path.isfile(venv_marker):
                if stamps is not None:  # its removal makes the folder code again, unseen by its parent's stat
                    stamps[f"{rel}/pyvenv.cfg"] = stat_stamp(venv_marker)
                passed.left_out.append(Diagnostic(rel, LEFT_OUT_VENV))
                continue
            yield from _walk_folder(root, entry.path, rel, rules, options, passed, leave_out, stamps)
            continue
        lang = language_of(rel)
        if (
            lang is None
            or (options.languages and lang.value not in options.languages)
            or rules.ignored(rel, is_dir=False)
        ):
            continue
        try:
            info = os.stat(entry.path)  # follows a symlinked file to what it names
        except OSError as error:
            if is_link:
                reason = "symlink loop" if error.errno == errno.ELOOP else "broken symlink"
            else:
                reason = f"cannot stat: {error.strerror}"
            skipped.append(Diagnostic(rel, reason))
            continue
        if stat.S_ISDIR(info.st_mode):
            skipped.append(Diagnostic(rel, "symlink to a folder, not followed"))
            continue
        if is_link and not options.follow_links_outside and outside_root(root, entry.path):
            skipped.append(
                Diagnostic(rel, "symlink to a file outside the tree, not followed (--follow-links-outside reads it)")
            )
            continue
        if not stat.S_ISREG(info.st_mode):
            skipped.append(Diagnostic(rel, "not a regular file"))
            continue
        if info.st_size > options.max_file_size:
            skipped.append(
                Diagnostic(rel, f"larger than the {_mib(options.max_file_size)} limit ({_mib(info.st_size)})")
            )
            continue
        yield SourceFile(rel, lang, info.st_size, info.st_mtime_ns)
    if pushed:
        rules.pop()


def stat_stamp(path: str) -> list[int]:
    """What changes when a folder gains, loses or renames an entry, or a file is written,
    replaced or has its mode changed: its stat's times, size and inode ([] if it is gone)."""
    try:
        info = os.stat(path)
    except OSError:
        return []
    return [info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino]


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MiB"


class UnreadableFile(Exception):
    """A file that is not parsed; the message is the reason a user sees."""


READ_FAILURES = ("permission denied", "cannot read")  # read_source's reasons that say nothing of the content


def may_read_later(reason: str | None) -> bool:
    """Whether a file skipped for `reason` could not be read then rather than holding what
    explorer does not parse: mending its permissions, or a folder moved back, changes neither
    its size nor its time, so only reading it again tells."""
    return reason is not None and reason.startswith(READ_FAILURES)


def read_source(root: str, path: str, follow_links_outside: bool = False) -> tuple[bytes, str]:
    """The file's bytes and content hash, or UnreadableFile with the reason."""
    full = os.path.join(root, path)
    if not follow_links_outside and outside_root(root, full):  # a link made since the walk
        raise UnreadableFile("symlink to a file outside the tree, not followed (--follow-links-outside reads it)")
    try:
        with open(full, "rb") as handle:
            data = handle.read()
    except PermissionError:
        raise UnreadableFile("permission denied") from None
    except OSError as error:
        raise UnreadableFile(f"cannot read: {error.strerror}") from None
    if b"\0" in data[:_BINARY_PROBE]:
        raise UnreadableFile("binary content")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UnreadableFile(f"not valid UTF-8 (byte {error.start})") from None
    return data, content_hash(data)


MAX_SOURCE_READ = 64 * 1024 * 1024  # what a query reads of one file (the index takes 2 MiB by default)


def source_lines(full_path: str) -> list[str]:
    """A source file's lines, numbered as the index numbers them; [] for anything that is
    not a regular file of at most MAX_SOURCE_READ bytes, or cannot be read now. Opened
    without waiting (a FIFO given for a source would otherwise block until a writer came) and
    checked before it is read (`/dev/zero` never ends)."""
    try:
        descriptor = os.open(full_path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return []
    with os.fdopen(descriptor, "rb") as handle:
        try:
            info = os.fstat(descriptor)
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_SOURCE_READ:
                return []
            data = handle.read(MAX_SOURCE_READ + 1)
        except OSError:
            return []
    if len(data) > MAX_SOURCE_READ:
        return []
    return split_lines(data.decode("utf-8", errors="replace"))


def split_lines(text: str) -> list[str]:
    """Lines as tree-sitter and the parsers count them: ended by `\n` alone (a `\r` before it
    belongs to the ending). str.splitlines also ends lines at `\x0b`, `\x0c`, `\x1c`-`\x1e`,
    `\x85`, U+2028 and U+2029, which would shift every line below one of them."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last line starts no line of its own
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()
