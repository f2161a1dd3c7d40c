// Loads the VS Code extension (editors/vscode/extension.js) in plain Node with stand-ins for
// the `vscode` module and vscode-languageclient, runs activate(), the code lens middleware
// and the restart command, and prints what the extension did as JSON for
// tests/test_vscode_extension.py. VS Code itself does not run here.
"use strict";
const Module = require("module");

const seen = { started: 0, stopped: 0 };
const commands = {};
const settings = { command: ["/opt/venv/bin/explorer", "lsp"], trees: ["/src/pytorch"], pythonEnv: "/opt/train" };
const vscode = {
  workspace: {
    getConfiguration: () => ({ get: (key) => settings[key] }),
    onDidChangeConfiguration: () => ({ dispose() {} }),
  },
  commands: {
    registerCommand: (name, run) => { commands[name] = run; return { dispose() {} }; },
    executeCommand: async (...call) => { seen.executed = call; },
  },
  window: { activeTextEditor: undefined, showInformationMessage: async () => undefined },
  env: { openExternal: async () => true },
  Uri: { file: (path) => ({ fsPath: path }) },
};
class LanguageClient {
  constructor(id, name, server, options) {
    Object.assign(seen, { id, name, server, options });
    this.protocol2CodeConverter = { asLocation: (location) => ({ uri: location.uri, range: location.range }) };
  }
  start() { seen.started += 1; return Promise.resolve(); }
  stop() { seen.stopped += 1; return Promise.resolve(); }
}
const load = Module._load;
Module._load = function (request, ...rest) {
  if (request === "vscode") return vscode;
  if (request === "vscode-languageclient/node") return { LanguageClient };
  return load.call(this, request, ...rest);
};

(async () => {
  const extension = require(process.argv[2]);
  const context = { subscriptions: [] };
  await extension.activate(context);
  const chain = [
    { uri: "file:///src/pytorch/torch/nn/modules/conv.py", range: { start: { line: 456, character: 8 }, end: { line: 456, character: 15 } } },
    { uri: "file:///src/pytorch/aten/src/ATen/native/cudnn/Conv_v7.cpp", range: { start: { line: 758, character: 12 }, end: { line: 758, character: 35 } } },
  ];
  const returned = await seen.options.middleware.executeCommand("explorer.traceToVendor", ["torch.nn.modules.conv.Conv2d.forward"], async () => chain);
  await commands["explorer.restart"]();
  console.log(JSON.stringify({
    id: seen.id, server: seen.server, selector: seen.options.documentSelector, init: seen.options.initializationOptions,
    peek: seen.executed && [seen.executed[0], seen.executed[3].length, seen.executed[4]], returned: returned.length,
    started: seen.started, stopped: seen.stopped, subscriptions: context.subscriptions.length, commands: Object.keys(commands),
  }));
})().catch((error) => { console.error(error); process.exit(1); });
