"""Latency of `explorer lsp`'s requests and of the query commands on a real PyTorch tree,
beside GNU global and cscope answering the questions they can, in the same run.

    python benchmarks/lsp_bench.py --root /path/to/pytorch [--repeat 7] [--python-env PYTHON]

Each command (`explorer search`, `show`, `callers`, `callees`, `trace`) is timed as a whole
process on the warm index, as a user in a shell runs it: start-up, the freshness check and the
answer. Its bytecode is compiled first, as `pip install` does. The project's installed
packages are not joined unless --python-env names an interpreter or environment (they are
the same figures plus what opening each installed package's index costs).

The server is started on the tree with a warm index (built first, not counted) and driven
over stdio as an editor drives it; each figure is the median round trip of --repeat requests
after one warm-up, the last in a buffer with an unsaved line; then the server's resident
memory. global (`global -d NAME`, `global -r NAME`) and cscope (`cscope -d -L1 NAME`,
`-L0`, `-L3 NAME`) run as processes on databases built first in a copy-free temporary folder
(`GTAGSROOT`/`GTAGSDBPATH`, `cscope -b -q -R`), skipped where they are not installed.
They answer by name only; explorer's definition and callers follow the call graph. This
script asserts nothing.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import arguments, started_server
from lsprotocol import types as lsp

import explorer

_NAME = "raw_cudnn_convolution_forward_out_32bit"
_COMMANDS = (  # (what, arguments), each also answered by name by global -d
    ("search conv2d", ["search", "conv2d"]),
    ("show torch.nn.functional.conv2d", ["show", "torch.nn.functional.conv2d"]),
    (f"callers {_NAME}", ["callers", _NAME]),
    ("callees aten::conv2d", ["callees", "aten::conv2d"]),
    (
        "trace torch.nn.Conv2d --to cudnnConvolutionForward",
        ["trace", "torch.nn.Conv2d", "--to", "cudnnConvolutionForward"],
    ),
)


async def _round_trips(repeat: int, ask) -> tuple[float, float, object]:
    """The first round trip (nothing of it cached in the server) and the median of the next."""
    started = time.perf_counter()
    answer = await ask()
    first = time.perf_counter() - started
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        answer = await ask()
        samples.append(time.perf_counter() - started)
    return first * 1000, statistics.median(samples) * 1000, answer


async def _lsp_figures(
    root: Path, repeat: int, env: dict[str, str]
) -> tuple[list[tuple[str, float, float, int]], int | None]:
    """Each request's first and median round trip and its answer's size; the server's resident
    memory (KiB) after them all."""
    client = await started_server("explorer-bench", root, env)

    def doc(path: str) -> lsp.TextDocumentIdentifier:
        return lsp.TextDocumentIdentifier((root / path).as_uri())

    conv, yaml, v7 = (
        "torch/nn/modules/conv.py",
        "aten/src/ATen/native/native_functions.yaml",
        "aten/src/ATen/native/cudnn/Conv_v7.cpp",
    )
    forward = lsp.CallHierarchyPrepareParams(doc(conv), lsp.Position(456, 9))
    kernel = lsp.CallHierarchyPrepareParams(doc(v7), lsp.Position(696, 10))
    (forward_item,) = await client.text_document_prepare_call_hierarchy_async(forward)
    (kernel_item,) = await client.text_document_prepare_call_hierarchy_async(kernel)
    binding_item = forward_item  # the generated binding torch._C._VariableFunctions.conv2d, three calls down
    for name in (
        "torch.nn.modules.conv.Conv2d._conv_forward",
        "torch.nn.functional.conv2d",
        "torch._C._VariableFunctions.conv2d",
    ):
        calls = await client.call_hierarchy_outgoing_calls_async(lsp.CallHierarchyOutgoingCallsParams(binding_item))
        binding_item = next(call.to for call in calls or [] if call.to.name == name)
    asks = [
        ("workspace/symbol conv2d", lambda: client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="conv2d"))),
        (f"workspace/symbol {_NAME}", lambda: client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query=_NAME))),
        (
            "definition (conv.py:451 F.conv2d)",
            lambda: client.text_document_definition_async(lsp.DefinitionParams(doc(conv), lsp.Position(450, 22))),
        ),
        (
            "implementation (conv.py:451 F.conv2d)",
            lambda: client.text_document_implementation_async(
                lsp.ImplementationParams(doc(conv), lsp.Position(450, 22))
            ),
        ),
        (
            "hover (aten::conv2d)",
            lambda: client.text_document_hover_async(lsp.HoverParams(doc(yaml), lsp.Position(1706, 10))),
        ),
        (
            "references (Conv_v7.cpp:697)",
            lambda: client.text_document_references_async(
                lsp.ReferenceParams(
                    text_document=doc(v7),
                    position=lsp.Position(696, 10),
                    context=lsp.ReferenceContext(include_declaration=False),
                )
            ),
        ),
        (
            "callHierarchy/outgoingCalls (Conv2d.forward)",
            lambda: client.call_hierarchy_outgoing_calls_async(lsp.CallHierarchyOutgoingCallsParams(forward_item)),
        ),
        (
            "callHierarchy/incomingCalls (Conv_v7.cpp:697)",
            lambda: client.call_hierarchy_incoming_calls_async(lsp.CallHierarchyIncomingCallsParams(kernel_item)),
        ),
        (
            "documentSymbol (conv.py)",
            lambda: client.text_document_document_symbol_async(lsp.DocumentSymbolParams(doc(conv))),
        ),
        (
            "prepareCallHierarchy (conv.py:457 forward)",
            lambda: client.text_document_prepare_call_hierarchy_async(forward),
        ),
        (
            "callHierarchy/outgoingCalls (the generated binding conv2d)",
            lambda: client.call_hierarchy_outgoing_calls_async(lsp.CallHierarchyOutgoingCallsParams(binding_item)),
        ),
        ("codeLens (conv.py)", lambda: client.text_document_code_lens_async(lsp.CodeLensParams(doc(conv)))),
    ]
    figures = []
    for name, ask in asks:
        first, milliseconds, answer = await _round_trips(repeat, ask)
        figures.append(
            (name, first, milliseconds, len(answer) if isinstance(answer, (list, tuple)) else int(answer is not None))
        )
    # conv.py open with a line typed above everything and not saved: F.conv2d is a line lower
    text = "_draft = 1\n" + (root / conv).read_text(encoding="utf-8")
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(doc(conv).uri, "python", 1, text)))
    unsaved = lambda: client.text_document_definition_async(lsp.DefinitionParams(doc(conv), lsp.Position(451, 22)))  # noqa: E731
    first, milliseconds, answer = await _round_trips(repeat, unsaved)
    figures.append(("definition in an unsaved buffer (conv.py, a line typed)", first, milliseconds, len(answer or [])))
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(doc(conv)))
    memory = _resident_kib(getattr(getattr(client, "_server", None), "pid", None))
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return figures, memory


def _resident_kib(pid: int | None) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    except (OSError, StopIteration, TypeError):
        return None


def _process_ms(command: list[str], repeat: int, env: dict[str, str], cwd: str) -> tuple[float, int]:
    samples, lines = [], 0
    for _ in range(repeat + 1):
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, check=False)
        samples.append(time.perf_counter() - started)
        lines = len(done.stdout.splitlines())
    return statistics.median(samples[1:]) * 1000, lines


def main() -> None:
    args = arguments(__doc__, repeat=7, python_env=True)
    root = Path(args.root)
    with tempfile.TemporaryDirectory(prefix="explorer-lsp-bench-") as work:
        env = {
            **os.environ,
            "EXPLORER_CACHE_DIR": os.environ.get("EXPLORER_CACHE_DIR", str(Path(work) / "cache")),
            "EXPLORER_PYTHON_ENV": args.python_env or "none",
        }
        print(f"indexing {root} ...", flush=True)
        subprocess.run(
            [sys.executable, "-m", "explorer", "index", "--root", str(root)],
            check=True,
            stdout=subprocess.DEVNULL,
            env=env,
        )
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(Path(explorer.__file__).parent)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        commands = [
            (
                what,
                *_process_ms(
                    [sys.executable, "-m", "explorer", *command, "--root", str(root)], args.repeat, env, str(root)
                ),
            )
            for what, command in _COMMANDS
        ]
        figures, memory = asyncio.run(_lsp_figures(root, args.repeat, env))
        peers: list[tuple[str, float, int]] = []
        if shutil.which("global") and shutil.which("gtags"):
            tags = Path(work) / "gtags"
            tags.mkdir()
            print("gtags ...", flush=True)
            subprocess.run(["gtags", "-q", str(tags)], cwd=root, check=True)
            genv = {**env, "GTAGSROOT": str(root), "GTAGSDBPATH": str(tags)}
            for flag, what in (("-d", "definition"), ("-r", "references")):
                peers.append(
                    (
                        f"global {flag} {_NAME} ({what}, by name)",
                        *_process_ms(["global", flag, _NAME], args.repeat, genv, str(root)),
                    )
                )
        if shutil.which("cscope"):
            print("cscope -b -q ...", flush=True)
            database, names = Path(work) / "cscope.out", Path(work) / "cscope.files"
            suffixes = (".c", ".cc", ".cpp", ".h", ".hpp", ".cu", ".cuh")  # cscope reads only .c/.h/.l/.y by itself
            names.write_text(
                "".join(f"{p}\n" for p in sorted(map(str, root.rglob("*"))) if p.endswith(suffixes) and " " not in p)
            )
            subprocess.run(["cscope", "-b", "-q", "-k", "-i", str(names), "-f", str(database)], cwd=root, check=True)
            for flag, what in (("-L0", "symbol"), ("-L1", "definition"), ("-L3", "callers")):
                peers.append(
                    (
                        f"cscope -d {flag} {_NAME} ({what}, by name)",
                        *_process_ms(["cscope", "-d", "-f", str(database), flag, _NAME], args.repeat, env, str(root)),
                    )
                )
    width = max(len(row[0]) for row in [*figures, *peers])
    baseline = next((milliseconds for name, milliseconds, _ in peers if name.startswith("global -d")), None)

    def ratio(milliseconds: float) -> str:
        return f"  x{milliseconds / baseline:5.1f} global -d" if baseline else ""

    print(
        f"\nfirst round trip, then the median of {args.repeat} more; cores: {os.cpu_count()}"
        + (f"; x global -d: against global -d's {baseline:.1f} ms, a process" if baseline else "")
        + "\n"
    )
    for name, first, milliseconds, count in figures:
        print(
            f"explorer lsp  {name:<{width}}  {first:7.1f} ms, then {milliseconds:6.1f} ms{ratio(milliseconds)}  ({count} results)"
        )
    for name, milliseconds, count in peers:
        print(f"              {name:<{width}}  {milliseconds:7.1f} ms (a process)  ({count} lines)")
    slowest = max(figures, key=lambda figure: figure[2])
    print(
        f"slowest warm request: {slowest[0]}, {slowest[2]:.1f} ms (goal <= 50 ms)"
        + (f"; the server's resident memory after them all: {memory / 1024:.0f} MiB" if memory else "")
    )
    print(f"\neach command a whole process on the warm index, the median of {args.repeat} after one")
    for name, milliseconds, count in commands:
        print(f"explorer {name:<{width + 5}}  {milliseconds:7.1f} ms{ratio(milliseconds)}  ({count} lines)")


if __name__ == "__main__":
    main()
