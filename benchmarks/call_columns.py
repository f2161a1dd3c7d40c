"""Whether the editor highlights the callee of every call site in a tree.

    python benchmarks/call_columns.py ROOT [--list N]

ROOT defaults to $EXPLORER_REAL_TORCH. Its index is opened as the CLI opens it (`--python-env
none`), and each call row the parsers stored (calls and launches of every language; decorators
apart) is put through what the language server does with a call's place
(lsp/positions.call_range, from the row's line and column, the callee's last name standing for
the name of the definition it runs): the text it highlights is read off the file as saved.
A row is
- RIGHT when that text ends in the callee's last name (`F.conv2d` for a call of `F.conv2d`,
  `cudnnConvolutionForward` inside `AT_CUDNN_CHECK(...)`);
- NOT ON ITS LINE when the line does not write that name at all: a call a macro's body makes,
  which the parser places at the macro's invocation, or a chain going on below the line;
- WHOLE LINE when the range is the line (no name stands at the column);
- else WRONG, with examples. Figures per language.
"""

from __future__ import annotations

import argparse
import os
from collections import Counter, defaultdict
from pathlib import Path

from explorer.cli.common import open_trees
from explorer.errors import ExplorerError
from explorer.index import IndexStore
from explorer.lsp.positions import call_range
from explorer.model import last_name
from explorer.workspace import TreeRequest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default=os.environ.get("EXPLORER_REAL_TORCH"))
    parser.add_argument("--list", type=int, default=5, help="wrong rows shown per language")
    args = parser.parse_args()
    if not args.root:
        raise SystemExit("call_columns: name a tree (or set EXPLORER_REAL_TORCH)")
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    wrong: dict[str, list[str]] = defaultdict(list)
    try:
        with open_trees(TreeRequest(root=args.root, python="none")) as workspace:
            store = workspace.reader
            assert isinstance(store, IndexStore)
            rows = store.db.execute(
                "SELECT f.path, f.lang, c.callee, c.line, c.col FROM calls c JOIN files f ON f.id = c.file_id"
                " WHERE c.kind != 'decorator' ORDER BY f.path, c.line, c.col"
            )
            lines: list[str] = []
            current = ""
            for path, language, callee, line, column in rows:
                if path != current:
                    current = path
                    text = (Path(workspace.root) / path).read_text(encoding="utf-8", errors="replace")
                    lines = text.splitlines()
                written = lines[line - 1] if 0 < line <= len(lines) else ""
                name = last_name(callee.split("<", 1)[0])
                place = call_range(line, written, column, name)
                shown = written[place.start.character : place.end.character]
                if shown.endswith(name):
                    verdict = "right"
                elif name not in written:
                    verdict = "not on its line"
                elif place.start.character == 0 and place.end.character == len(written):
                    verdict = "whole line"
                else:
                    verdict = "wrong"
                    if len(wrong[language]) < args.list:
                        wrong[language].append(f"{path}:{line}:{column} {callee!r} highlighted {shown!r}")
                counts[language][verdict] += 1
    except ExplorerError as error:
        raise SystemExit(f"call_columns: {error}") from None
    for language, verdicts in sorted(counts.items()):
        total = sum(verdicts.values())
        figures = ", ".join(
            f"{verdict} {verdicts[verdict]:,}" for verdict in ("right", "not on its line", "whole line", "wrong")
        )
        print(f"{language:<7} {total:>8,} call sites: {figures} ({verdicts['right'] / total:.1%} right)")
        for example in wrong[language]:
            print(f"    {example}")


if __name__ == "__main__":
    main()
