// Load extension.js the way VS Code does, with stand-ins for the `vscode` module and the language
// client, activate it, and print (as JSON) the server command and the documents it serves.
// Used by tests/test_vscode_grammar.py: it shows that the client starts `vbr lsp` for .vbr files.
"use strict";

const Module = require("module");
const path = require("path");

const started = [];
class FakeClient {
  constructor(id, name, serverOptions, clientOptions) {
    Object.assign(this, { id, name, serverOptions, clientOptions });
  }
  async start() { started.push(this); }
  async stop() {}
}
const settings = JSON.parse(process.argv[2] || "{}");
const vscode = {
  workspace: {
    getConfiguration: (section) => ({ get: (key) => settings[`${section}.${key}`] }),
    createFileSystemWatcher: (glob) => ({ glob }),
    onDidChangeConfiguration: () => ({ dispose() {} }),
  },
};
const stubs = { vscode, "vscode-languageclient/node": { LanguageClient: FakeClient } };
const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (request in stubs) return stubs[request];
  return load.call(this, request, parent, isMain);
};

const extension = require(path.join(__dirname, "..", "extension.js"));
extension.activate({ subscriptions: [] }).then(async () => {
  const c = started[0];
  process.stdout.write(JSON.stringify({
    command: c.serverOptions.command, args: c.serverOptions.args,
    documentSelector: c.clientOptions.documentSelector,
  }) + "\n");
  await extension.deactivate();
});
