// The vbr extension: .vbr files get the TextMate grammar (syntaxes/) and the vbr language server,
// started as `vbr lsp` over stdio (the command is the setting vbr.server.command).
"use strict";

const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function serverOptions() {
  const words = vscode.workspace.getConfiguration("vbr").get("server.command") || ["vbr", "lsp"];
  return { command: words[0], args: words.slice(1) };
}

async function activate(context) {
  client = new LanguageClient(
    "vbr",
    "vbr language server",
    serverOptions(),
    {
      documentSelector: [{ language: "vbr" }],
      synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/*.vbr") },
    },
  );
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration("vbr.server.command") && client) {
        await client.stop();
        client = new LanguageClient("vbr", "vbr language server", serverOptions(), client.clientOptions);
        await client.start();
      }
    }),
  );
  await client.start();
}

async function deactivate() {
  if (client) {
    await client.stop();
  }
}

module.exports = { activate, deactivate };
