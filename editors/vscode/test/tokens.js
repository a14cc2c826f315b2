// Tokenize .vbr files with the extension's TextMate grammar, as VS Code does (vscode-textmate on
// the Oniguruma regex engine), and print one line per token: LINE:COL, the token's text as JSON,
// and its scopes less the root `source.vbr`. Used by tests/test_vscode_grammar.py.
//
//     node test/tokens.js FILE...
"use strict";

const fs = require("fs");
const path = require("path");
const vsctm = require("vscode-textmate");
const oniguruma = require("vscode-oniguruma");

const here = __dirname;
const wasm = fs.readFileSync(path.join(path.dirname(require.resolve("vscode-oniguruma")), "onig.wasm"));
const onigLib = oniguruma.loadWASM(wasm.buffer).then(() => ({
  createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
  createOnigString: (s) => new oniguruma.OnigString(s),
}));

const registry = new vsctm.Registry({
  onigLib,
  loadGrammar: async (scopeName) => {
    if (scopeName !== "source.vbr") return null;
    const file = path.join(here, "..", "syntaxes", "vbr.tmLanguage.json");
    return vsctm.parseRawGrammar(fs.readFileSync(file, "utf8"), file);
  },
});

async function main(files) {
  const grammar = await registry.loadGrammar("source.vbr");
  const out = [];
  for (const file of files) {
    const lines = fs.readFileSync(file, "utf8").split(/\r?\n/);
    let stack = vsctm.INITIAL;
    lines.forEach((line, i) => {
      const result = grammar.tokenizeLine(line, stack);
      for (const t of result.tokens) {
        const text = line.substring(t.startIndex, t.endIndex);
        if (!text.trim()) continue;
        const scopes = t.scopes.filter((s) => s !== "source.vbr").join(" ");
        out.push(`${i + 1}:${t.startIndex + 1} ${JSON.stringify(text)} ${scopes}`);
      }
      stack = result.ruleStack;
    });
  }
  process.stdout.write(out.join("\n") + "\n");
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err);
  process.exit(1);
});
