"""The VS Code extension (editors/vscode): its code run in Node with stand-ins for VS Code
(tests/vscode/activate_check.js), and the package .ci/run builds with vsce checked. VS Code
itself does not run here: that the extension starts the server in a real editor is not tested."""

from __future__ import annotations

import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXTENSION = REPO / "editors" / "vscode"
NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
def test_the_extension_starts_the_server_as_configured_and_shows_a_traces_chain():
    done = subprocess.run(
        [NODE, str(REPO / "tests" / "vscode" / "activate_check.js"), str(EXTENSION / "extension.js")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    seen = json.loads(done.stdout)
    assert seen["server"] == {"command": "/opt/venv/bin/explorer", "args": ["lsp"]}  # explorer.command
    assert [entry["language"] for entry in seen["selector"]] == ["python", "cpp", "cuda-cpp", "yaml"]
    assert seen["init"] == {"trees": ["/src/pytorch"], "pythonEnv": "/opt/train"}  # --tree, --python-env
    # the trace lens's two locations, shown in a peek list, and still returned to VS Code
    assert seen["peek"] == ["editor.action.peekLocations", 2, "peek"] and seen["returned"] == 2
    # activated once, then restarted by its command: stopped once, started again
    assert (seen["started"], seen["stopped"], seen["commands"]) == (2, 1, ["explorer.restart"])


def test_the_manifest_activates_on_the_languages_the_server_reads():
    manifest = json.loads((EXTENSION / "package.json").read_text())
    assert manifest["main"] == "./extension.js"
    assert manifest["activationEvents"] == [
        "onLanguage:python",
        "onLanguage:cpp",
        "onLanguage:cuda-cpp",
        "onLanguage:yaml",
    ]
    assert set(manifest["contributes"]["configuration"]["properties"]) == {
        "explorer.command",
        "explorer.trees",
        "explorer.pythonEnv",
    }


@pytest.mark.skipif(
    not (EXTENSION / "explorer-lsp.vsix").is_file(),
    reason="the package is built by .ci/run (npm ci && npm run package)",
)
def test_the_built_package_holds_the_extension_and_its_client_library():
    names = zipfile.ZipFile(EXTENSION / "explorer-lsp.vsix").namelist()
    assert {"extension/package.json", "extension/extension.js", "extension/readme.md"} <= set(names)
    libraries = {name.split("/")[2] for name in names if name.startswith("extension/node_modules/")}
    assert {"vscode-languageclient", "vscode-jsonrpc", "vscode-languageserver-protocol"} <= libraries
    assert "@vscode" not in libraries  # vsce, a build tool, is not shipped
