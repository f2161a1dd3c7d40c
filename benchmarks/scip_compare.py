"""Two SCIP indexes of the same Python files side by side: explorer's and scip-python's
(`npx @sourcegraph/scip-python index --target-only FOLDER ...`). Their symbols are named by
different schemes, so occurrences are compared by position: per file, the definitions and
references each has, and how many definition and reference positions (line, start column)
both have.

    python benchmarks/scip_compare.py explorer.scip scip-python.scip [--under torch/nn]

Asserts nothing.
"""

from __future__ import annotations

import argparse
import posixpath
from collections import Counter
from pathlib import Path

from explorer.scip import scip_pb2


def positions(index: scip_pb2.Index, under: str, prefix: str = "") -> dict[str, dict[str, set[tuple[int, int]]]]:
    """Per document under the folder: the (line, start column) of its definitions and references.
    `prefix`: what puts the index's paths under the other index's root."""
    found: dict[str, dict[str, set[tuple[int, int]]]] = {}
    for document in index.documents:
        path = posixpath.normpath(prefix + document.relative_path)  # scip-python's files outside its root: ../
        if not path.startswith(under) or not path.endswith(".py"):
            continue
        kinds = found.setdefault(path, {"definitions": set(), "references": set()})
        for occurrence in document.occurrences:
            if occurrence.symbol.startswith("local "):
                continue  # a function's own locals: explorer keeps none
            role = "definitions" if occurrence.symbol_roles & scip_pb2.Definition else "references"
            kinds[role].add((occurrence.range[0], occurrence.range[1]))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("explorer")
    parser.add_argument("peer")
    parser.add_argument("--under", default="")
    args = parser.parse_args()
    mine = scip_pb2.Index.FromString(Path(args.explorer).read_bytes())
    peer = scip_pb2.Index.FromString(Path(args.peer).read_bytes())
    # scip-python's root is the folder it was limited to (--target-only): its paths are put
    # under explorer's root
    root, peer_root = mine.metadata.project_root.rstrip("/") + "/", peer.metadata.project_root.rstrip("/") + "/"
    prefix = peer_root[len(root) :] if peer_root.startswith(root) else ""
    ours = positions(mine, args.under)
    theirs = positions(peer, args.under, prefix)
    totals: Counter[str] = Counter()
    for path in sorted(set(ours) | set(theirs)):
        for role in ("definitions", "references"):
            mine, peer = ours.get(path, {}).get(role, set()), theirs.get(path, {}).get(role, set())
            totals[f"{role} explorer"] += len(mine)
            totals[f"{role} scip-python"] += len(peer)
            totals[f"{role} both"] += len(mine & peer)
    print(f"documents: explorer {len(ours)}, scip-python {len(theirs)}, both {len(set(ours) & set(theirs))}")
    for role in ("definitions", "references"):
        print(
            f"{role}: explorer {totals[role + ' explorer']:,}, scip-python {totals[role + ' scip-python']:,} "
            f"(not counting its locals), at the same position {totals[role + ' both']:,}"
        )


if __name__ == "__main__":
    main()
