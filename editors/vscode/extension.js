// explorer's language server in VS Code: a thin client on vscode-languageclient. The server
// is `explorer lsp` (the setting explorer.command); the workspace's first folder is the
// project, explorer.trees and explorer.pythonEnv are the CLI's --tree and --python-env.
"use strict";
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

const LANGUAGES = ["python", "cpp", "cuda-cpp", "yaml"];
let client;

// Code lens commands run on the server; VS Code would drop what they return. The trace's
// chain is shown as a peek list of its hops, the diagram's file offered to open.
async function executeCommand(command, args, next) {
  const result = await next(command, args);
  if (command === "explorer.traceToVendor" && Array.isArray(result) && result.length > 0) {
    const locations = result.map((location) => client.protocol2CodeConverter.asLocation(location));
    const editor = vscode.window.activeTextEditor;
    const from = editor ? editor.document.uri : locations[0].uri;
    const at = editor ? editor.selection.active : locations[0].range.start;
    await vscode.commands.executeCommand("editor.action.peekLocations", from, at, locations, "peek");
  } else if (command === "explorer.openDiagram" && typeof result === "string") {
    const open = await vscode.window.showInformationMessage(`explorer: diagram written to ${result}`, "Open");
    if (open) {
      await vscode.env.openExternal(vscode.Uri.file(result));
    }
  }
  return result;
}

function start() {
  const config = vscode.workspace.getConfiguration("explorer");
  const [command, ...args] = config.get("command");
  client = new LanguageClient(
    "explorer",
    "explorer",
    { command, args },
    {
      documentSelector: LANGUAGES.map((language) => ({ scheme: "file", language })),
      initializationOptions: { trees: config.get("trees"), pythonEnv: config.get("pythonEnv") },
      middleware: { executeCommand },
    },
  );
  return client.start();
}

async function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand("explorer.restart", async () => {
      if (client) {
        await client.stop();
      }
      await start();
    }),
    vscode.workspace.onDidChangeConfiguration(async (change) => {
      if (change.affectsConfiguration("explorer")) {
        await vscode.commands.executeCommand("explorer.restart");
      }
    }),
  );
  await start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
