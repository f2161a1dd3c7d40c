"""Write what explorer answers on a tree to a folder, one file per question, so that two
versions of explorer can be compared byte for byte (`diff -r before after`).

    python benchmarks/output_snapshot.py --root TREE --out FOLDER

The questions: trace, callers, callees, show, search and callgraph as the command line
prints them (text and JSON), and the language server's answers to workspace symbols,
definition, implementation, hover, references, the call hierarchy, document symbols and code
lenses at places found by their text in torch/nn/modules/conv.py and native_functions.yaml.
Index files go to EXPLORER_CACHE_DIR as usual; the index is built first. Nothing is timed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

from common import started_server
from lsprotocol import types as lsp
from lsprotocol.converters import get_converter

_KERNEL = "raw_cudnn_convolution_forward_out_32bit"
_COMMANDS = (
    ["trace", "torch.nn.Conv2d", "--to", "cudnnConvolutionForward"],
    ["trace", "torch.nn.Conv2d"],
    ["trace", "torch.nn.functional.conv2d", "--json"],
    ["trace", "torch.nn.Linear"],
    ["trace", "torch.matmul"],
    ["trace", "torch.nn.ReLU"],
    ["callers", _KERNEL],
    ["callers", "cudnnConvolutionForward"],
    ["callers", "aten::add.Tensor", "--json"],
    ["callees", "aten::conv2d"],
    ["callees", "torch.nn.functional.conv2d"],
    ["callees", "at::native::convolution", "--json"],
    ["show", "torch.nn.functional.conv2d"],
    ["show", "aten::conv2d"],
    ["show", "at::native::cudnn_convolution"],
    ["search", "conv2d"],
    ["search", "relu"],
    ["search", "cudnn", "--json"],
    ["callgraph"],
    ["callgraph", "--json"],
)
_CONV = "torch/nn/modules/conv.py"
_YAML = "aten/src/ATen/native/native_functions.yaml"


def _position(root: Path, path: str, text: str, after: str = "", offset: int = 0) -> lsp.Position | None:
    """Where `text` first occurs in `path` (after the first `after`), moved `offset` columns in."""
    try:
        lines = (root / path).read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    started = not after
    for number, line in enumerate(lines):
        started = started or after in line
        if started and text in line:
            return lsp.Position(number, line.index(text) + offset)
    return None


async def _lsp_answers(root: Path, env: dict[str, str]) -> dict[str, object]:
    client = await started_server("explorer-snapshot", root, env)
    doc = lambda path: lsp.TextDocumentIdentifier((root / path).as_uri())  # noqa: E731
    call = _position(root, _CONV, "F.conv2d(", offset=3)
    forward = _position(root, _CONV, "def forward", after="class Conv2d", offset=5)
    operator = _position(root, _YAML, "- func: conv2d(", offset=9)
    answers: dict[str, object] = {
        "workspace_symbol conv2d": await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="conv2d")),
        f"workspace_symbol {_KERNEL}": await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query=_KERNEL)),
        "document_symbol conv.py": await client.text_document_document_symbol_async(
            lsp.DocumentSymbolParams(doc(_CONV))
        ),
        "code_lens conv.py": await client.text_document_code_lens_async(lsp.CodeLensParams(doc(_CONV))),
    }
    if call:
        answers["definition F.conv2d"] = await client.text_document_definition_async(
            lsp.DefinitionParams(doc(_CONV), call)
        )
        answers["implementation F.conv2d"] = await client.text_document_implementation_async(
            lsp.ImplementationParams(doc(_CONV), call)
        )
        answers["hover F.conv2d"] = await client.text_document_hover_async(lsp.HoverParams(doc(_CONV), call))
        answers["references F.conv2d"] = await client.text_document_references_async(
            lsp.ReferenceParams(
                text_document=doc(_CONV), position=call, context=lsp.ReferenceContext(include_declaration=True)
            )
        )
    if operator:
        answers["hover aten::conv2d"] = await client.text_document_hover_async(lsp.HoverParams(doc(_YAML), operator))
    if forward:
        items = await client.text_document_prepare_call_hierarchy_async(
            lsp.CallHierarchyPrepareParams(doc(_CONV), forward)
        )
        answers["prepare Conv2d.forward"] = items
        for item in items or []:
            answers["outgoing Conv2d.forward"] = await client.call_hierarchy_outgoing_calls_async(
                lsp.CallHierarchyOutgoingCallsParams(item)
            )
            answers["incoming Conv2d.forward"] = await client.call_hierarchy_incoming_calls_async(
                lsp.CallHierarchyIncomingCallsParams(item)
            )
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    root, out = Path(args.root).resolve(), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "EXPLORER_PYTHON_ENV": "none", "COLUMNS": "200", "NO_COLOR": "1"}
    explorer = [sys.executable, "-m", "explorer"]
    subprocess.run([*explorer, "index", "--root", str(root)], check=True, stdout=subprocess.DEVNULL, env=env)
    for number, command in enumerate(_COMMANDS):
        done = subprocess.run(
            [*explorer, *command, "--root", str(root)], capture_output=True, text=True, env=env, check=False
        )
        name = f"{number:02d} " + " ".join(command).replace("/", "_")
        (out / f"{name}.txt").write_text(
            f"exit {done.returncode}\n{done.stdout}\n-- stderr\n{done.stderr}", encoding="utf-8"
        )
    converter = get_converter()
    for name, answer in asyncio.run(_lsp_answers(root, env)).items():
        text = json.dumps(converter.unstructure(answer), indent=1, sort_keys=True)
        (out / f"lsp {name}.json").write_text(text.replace(root.as_uri(), "ROOT"), encoding="utf-8")
    print(f"{len(list(out.iterdir()))} answers in {out}")


if __name__ == "__main__":
    main()
