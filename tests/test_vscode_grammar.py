"""The VS Code extension (editors/vscode): its TextMate grammar is generated from the language's
grammar and colours every keyword as one; tokenized the way VS Code does (vscode-textmate on
Oniguruma) the sample file gives the committed snapshot; and the extension packs into a .vsix.

The node parts need node, npm and `npm ci` in editors/vscode (scripts/setup.sh runs it); without
them they fail, saying what to install: an extension nobody has built is not tested."""
import json
import re
import shutil
import subprocess
import sys
import zipfile

import pytest

from conftest import ROOT, one_worker_at_a_time, rule_files, scenario_files
from vbr.highlight import grammar_keywords

VSCODE = ROOT / "editors" / "vscode"
GRAMMAR = VSCODE / "syntaxes" / "vbr.tmLanguage.json"
KEYWORD_SCOPES = ("keyword.", "storage.type.", "constant.language.")


def _make_grammar():
    sys.path.insert(0, str(VSCODE))
    try:
        import make_grammar
    finally:
        sys.path.remove(str(VSCODE))
    return make_grammar


def test_the_committed_grammar_is_the_generated_one():
    assert GRAMMAR.read_text(encoding="utf-8") == _make_grammar().text(), \
        "run: python editors/vscode/make_grammar.py"


def _first_scope(grammar: dict, text: str) -> str:
    """The scope the top-level patterns give the first word of `text`: the pattern matching
    earliest wins, the first listed among equals (TextMate's rule). Python's `re` reads these
    patterns as Oniguruma does (\\b, lookahead, classes)."""
    repo = grammar["repository"]
    patterns = repo["declaration"]["patterns"] + repo["expression"]["patterns"]
    best = None
    for p in patterns:
        if "match" not in p:
            continue
        m = re.search(p["match"], text)
        if m and (best is None or m.start() < best[0]):
            name = p.get("name") or p["captures"]["1"]["name"]
            best = (m.start(), name, m.group(0))
    return best[1] if best and best[0] == 0 else ""


@pytest.mark.parametrize("word", grammar_keywords())
def test_every_keyword_is_coloured_as_a_keyword_by_the_patterns(word):
    grammar = json.loads(GRAMMAR.read_text(encoding="utf-8"))
    assert _first_scope(grammar, f"{word} x").startswith(KEYWORD_SCOPES)


def test_the_keyword_patterns_hold_the_grammar_keywords_and_nothing_else():
    grammar = json.loads(GRAMMAR.read_text(encoding="utf-8"))
    listed = set()
    for p in grammar["repository"]["expression"]["patterns"]:
        if p.get("name", "").startswith(KEYWORD_SCOPES):
            listed |= set(re.findall(r"[a-z_]+", p["match"].replace(r"\b", " ")))
    assert listed == set(grammar_keywords())


# ------------------------------------------------------------------------------ with node
NODE = shutil.which("node")
NPM = shutil.which("npm")


@pytest.fixture(scope="module")
def node_modules(tmp_path_factory):
    if not NODE or not NPM:
        pytest.fail("node and npm are needed (Debian: apt-get install -y nodejs npm)")
    with one_worker_at_a_time("npm", tmp_path_factory):  # one `npm ci` in editors/vscode, not two at once
        if not (VSCODE / "node_modules" / "vscode-textmate").is_dir():
            run = subprocess.run([NPM, "ci", "--no-audit", "--no-fund"], cwd=VSCODE, capture_output=True, text=True,
                                 timeout=600)
            if run.returncode != 0:
                pytest.fail(f"npm ci failed in editors/vscode: {run.stderr[-500:]}")
    return VSCODE / "node_modules"


def tokens(*files) -> list[str]:
    run = subprocess.run([NODE, "test/tokens.js", *map(str, files)], cwd=VSCODE, capture_output=True, text=True,
                         timeout=300, check=True)
    return run.stdout.splitlines()


def test_the_sample_gives_the_snapshot(node_modules):
    """Update after a deliberate change: node test/tokens.js test/sample.vbr > test/sample.tokens"""
    expected = (VSCODE / "test" / "sample.tokens").read_text(encoding="utf-8").splitlines()
    assert tokens(VSCODE / "test" / "sample.vbr") == expected


def test_every_keyword_is_a_keyword_to_vscode_textmate(node_modules, tmp_path):
    words = grammar_keywords()
    sample = tmp_path / "words.vbr"
    sample.write_text("".join(f"{w} x\n" for w in words), encoding="utf-8")
    first = {}
    for line in tokens(sample):
        where, rest = line.split(" ", 1)
        n, col = map(int, where.split(":"))
        if col == 1:
            first[n] = rest
    for n, word in enumerate(words, 1):
        text, scopes = first[n].split(" ", 1)
        assert json.loads(text) == word
        assert scopes.startswith(KEYWORD_SCOPES), (word, scopes)


def test_every_bundled_file_comments_are_comments(node_modules):
    files = rule_files() + scenario_files()
    out = tokens(*files)
    # the tokens of all files in order; a whole-line comment's `#` must start a comment token
    by_file, i = [], -1
    for line in out:
        n = int(line.split(":", 1)[0])
        if n == 1 and line.startswith("1:1 "):
            by_file.append([])
            i += 1
        by_file[i].append(line)
    assert len(by_file) == len(files)
    for path, lines in zip(files, by_file):
        found = {line.split(" ", 1)[0]: line for line in lines}
        for n, text in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
            if text.lstrip().startswith("#"):
                key = f"{n}:{len(text) - len(text.lstrip()) + 1}"
                assert "comment.line.number-sign.vbr" in found[key], (path.name, n)


def test_the_extension_packs_into_a_vsix(node_modules, tmp_path):
    target = tmp_path / "vbr.vsix"
    run = subprocess.run(["npx", "--no-install", "vsce", "package", "--allow-missing-repository", "--skip-license",
                          "--out", str(target)], cwd=VSCODE, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    names = set(zipfile.ZipFile(target).namelist())
    for name in ("extension/package.json", "extension/extension.js", "extension/language-configuration.json",
                 "extension/syntaxes/vbr.tmLanguage.json", "extension/node_modules/vscode-languageclient/package.json"):
        assert name in names
    assert not [n for n in names if "/node_modules/vscode-textmate/" in n or "/node_modules/@vscode/vsce/" in n]
    manifest = json.loads(zipfile.ZipFile(target).read("extension/package.json"))
    assert manifest["contributes"]["languages"][0]["extensions"] == [".vbr"]


def test_the_manifest_points_at_files_that_exist():
    manifest = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))
    (language,) = manifest["contributes"]["languages"]
    (grammar,) = manifest["contributes"]["grammars"]
    assert language["id"] == grammar["language"] == "vbr"
    assert grammar["scopeName"] == json.loads(GRAMMAR.read_text(encoding="utf-8"))["scopeName"]
    for rel in (manifest["main"], language["configuration"], grammar["path"]):
        assert (VSCODE / rel).is_file(), rel
    config = json.loads((VSCODE / language["configuration"]).read_text(encoding="utf-8"))
    assert config["comments"] == {"lineComment": "#"}
    assert ["{", "}"] in config["brackets"]
    assert "vscode-languageclient" in manifest["dependencies"]


@pytest.mark.parametrize("setting, command", [
    ({}, ["vbr", "lsp"]),
    ({"vbr.server.command": ["/venv/bin/python", "-m", "vbr.lsp"]}, ["/venv/bin/python", "-m", "vbr.lsp"]),
])
def test_the_client_starts_vbr_lsp_for_vbr_documents(setting, command):
    """extension.js activated with stand-ins for VS Code and the language client (test/activate.js)."""
    assert NODE, "node is needed (Debian: apt-get install -y nodejs)"
    run = subprocess.run([NODE, "test/activate.js", json.dumps(setting)], cwd=VSCODE, capture_output=True, text=True,
                         timeout=120, check=True)
    started = json.loads(run.stdout)
    assert [started["command"], *started["args"]] == command
    assert started["documentSelector"] == [{"language": "vbr"}]
