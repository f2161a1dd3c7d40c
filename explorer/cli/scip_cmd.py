"""`explorer scip`: write the project's cross-language graph as a SCIP index."""

from __future__ import annotations

import time
from pathlib import Path

from explorer.cli.common import open_index, reports_errors, stderr, stdout
from explorer.errors import UsageError
from explorer.output_files import check_output, write_output
from explorer.render.text import unreadable_note
from explorer.workspace import TreeRequest


@reports_errors
def scip(where: TreeRequest, output: str = "index.scip", under: str | None = None) -> None:
    """Write the project's definitions, references and cross-language edges as a SCIP index."""
    from explorer.render.progress import FileProgress, files
    from explorer.resolve import CallGraph
    from explorer.scip.index import scip_files, scip_index

    started = time.perf_counter()
    if Path(output).is_dir():
        raise UsageError(f"-o {output}: a folder; give the file to write")
    check_output(output)  # refused now, not after the export
    with open_index(where) as (root, reader):
        folder = (under or "").strip("/")
        if folder and not (Path(root) / folder).is_dir():
            raise UsageError(f"--under {under}: no such folder in {root}")
        progress = FileProgress(stderr, "exporting", "exported", f"{root}/{folder}".rstrip("/"))
        paths = scip_files(reader, folder)
        progress.start(len(paths), f"{files(len(paths))} to read", files(len(paths)))
        try:
            index, counts = scip_index(
                reader, lambda: CallGraph(reader, root, "all"), root, Path(root).name, paths, progress.advance
            )
            progress.phase(f"read {files(len(paths))}; writing the index", "writing the index")
            data = index.SerializeToString()
        finally:
            progress.close()
    # as diagrams are written: over a file explorer made, never someone else's (output_files.py)
    if write_output(output, data) is None and output != "-":
        output = f"{output} (as a stream)"
    say = stderr if output == "-" else stdout  # stdout carries the index itself with -o -
    say.print(
        f"wrote {output}: {counts.documents:,} documents, {counts.definitions:,} definitions, {counts.references:,} references, "
        f"{counts.relationships:,} relationships, {counts.external_symbols:,} external symbols "
        f"({len(data) / 1024 / 1024:.1f} MiB, {time.perf_counter() - started:.1f} s)",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    note = unreadable_note(counts.read_in_part)
    if note is not None:
        stderr.print(note, markup=False, highlight=False, soft_wrap=True)
    if counts.too_deep:
        stderr.print(
            f"note: the calls of {counts.too_deep:,} definitions are nested too deeply to follow: their references "
            "and relationships are left out",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
