"""What "go to definition" answers on the name a Python call is made through.

    python benchmarks/definition_census.py ROOT [--sample N] [--list N] [--show run none named]

ROOT defaults to $EXPLORER_REAL_TORCH. Its index is opened as the CLI opens it (`--python-env
none`). The calls counted are the Python call rows (outside test folders) whose callee is
`self.NAME`, where no Python function, method or class of the tree is named NAME: an
attribute holding an object or a function, such as `self.linear1(x)`.
N of them, evenly spaced in (file, line) order, are put through what the language server does
with the cursor on NAME (analysis/at_position.symbols_at), and each answer is
- NONE: no definition;
- RUN: definitions of what the call runs, as the call graph has it (a class whose object is
  called, a function the attribute holds), none of them named NAME;
- NAMED: definitions named NAME, found by the name alone: another language's (a C++ data
  member `linear2`), a variable; none of them what the call runs.
Run it with two versions of explorer (PYTHONPATH naming each) to compare. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import time
from collections import Counter
from pathlib import Path

from explorer.analysis.at_position import symbols_at
from explorer.cli.common import open_trees
from explorer.index import IndexStore
from explorer.resolve import CallGraph
from explorer.workspace import TreeRequest

_SELF_ATTRIBUTE = re.compile(r"self\.([A-Za-z_][A-Za-z0-9_]*)")
_TESTS = re.compile(r"(^|/)(test|tests)/")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default=os.environ.get("EXPLORER_REAL_TORCH"))
    parser.add_argument("--sample", type=int, default=400)
    parser.add_argument("--list", type=int, default=8, help="answers shown")
    parser.add_argument("--show", nargs="*", default=["run"], help="which verdicts to show: run, none, named")
    args = parser.parse_args()
    if not args.root:
        raise SystemExit("definition_census: name a tree (or set EXPLORER_REAL_TORCH)")
    with open_trees(TreeRequest(root=args.root, python="none")) as workspace:
        store = workspace.reader
        assert isinstance(store, IndexStore)
        defined = {
            name
            for (name,) in store.db.execute(
                "SELECT DISTINCT name FROM symbols WHERE lang = 'python' AND kind IN ('function', 'method', 'class')"
            )
        }
        rows = store.db.execute(
            "SELECT f.path, c.callee, c.line FROM calls c JOIN files f ON f.id = c.file_id"
            " WHERE f.lang = 'python' AND c.kind = 'call' ORDER BY f.path, c.line, c.col"
        )
        calls = [
            (path, line, match.group(1))
            for path, callee, line in rows
            if (match := _SELF_ATTRIBUTE.fullmatch(callee))
            and match.group(1) not in defined
            and not _TESTS.search(path)
        ]
        step = max(1, len(calls) // args.sample)
        sample = calls[::step][: args.sample]
        graph = CallGraph(store, workspace.root, "all")
        counts: Counter[str] = Counter()
        shown: list[str] = []
        started = time.perf_counter()
        for path, line, name in sample:
            text = (Path(workspace.root) / path).read_text(encoding="utf-8", errors="replace").splitlines()[line - 1]
            at = text.find(f"self.{name}")
            found = symbols_at(graph, store, path, line, text, at + len("self.") + 1) if at >= 0 else []
            verdict = "none" if not found else "named" if any(s.name == name for s in found) else "run"
            counts[verdict] += 1
            if verdict in args.show and len(shown) < args.list:
                answer = ", ".join(f"{s.qname} ({s.path}:{s.line})" for s in found[:2]) or "nothing"
                shown.append(f"  {verdict}: {path}:{line} self.{name} -> {answer}")
    print(f"calls through self.NAME, no Python definition named NAME: {len(calls)}; sampled {len(sample)}")
    for verdict in ("run", "none", "named"):
        print(f"  {verdict:5} {counts[verdict]}")
    print(f"({time.perf_counter() - started:.1f} s)")
    print("\n".join(shown))


if __name__ == "__main__":
    main()
