"""What the speed-ups of `vbr check` must not change (benchmarks/check.py measures the speed;
no test here times anything)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from lark import Transformer

from vbr.errors import VbrError
from vbr.grammar import ast as A
from vbr import loader as L
from vbr.grammar import parser as P
from vbr.grammar import transformer as T
from vbr.grammar.transformer import _RULES, ToAst

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(ROOT.glob("rules/**/*.vbr")) + sorted((ROOT / "tests" / "fixtures").glob("**/*.vbr"))


class _LarkWalk(ToAst):
    """The transformer as Lark walks it: every rule through Lark's own `v_args` call."""
    _transform_tree = Transformer._transform_tree


def _both(monkeypatch, text: str, file: str):
    out = []
    for cls in (ToAst, _LarkWalk):
        monkeypatch.setattr(T, "ToAst", cls)  # the parser takes it from there when it parses
        try:
            out.append(P.parse(text, file))
        except VbrError as exc:  # an invalid fixture: the same error both ways
            out.append((type(exc).__name__, exc.render()))
    return out


def test_every_rule_goes_the_direct_way():
    assert {name for name in vars(ToAst) if not name.startswith("_")} <= set(_RULES)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_ast_is_the_same_built_either_way(monkeypatch, path):
    text = path.read_text(encoding="utf-8")
    fast, lark = _both(monkeypatch, text, str(path))
    assert fast == lark
    assert repr(fast) == repr(lark)  # the same classes, field by field, spans included


@pytest.mark.parametrize("text", [
    'game "g" phase p { say "{1 +}" }',  # an error inside a {hole}, raised from a nested parse
    'game "g" var x: int = 99999999999999999999999 phase p { }',  # an error raised by a rule method
])
def test_errors_raised_while_building_are_the_same(monkeypatch, text):
    fast, lark = _both(monkeypatch, text, "bad.vbr")
    assert fast == lark and fast[0] == "VbrSyntaxError"


_IMPORTS = """
import sys
from vbr.cli import main
main(["check", *sys.argv[1:]])
print(" ".join(sorted({m.split(".")[0] for m in sys.modules})))
"""


def _modules_after_check(*files: str, env: dict | None = None) -> set[str]:
    done = subprocess.run([sys.executable, "-c", _IMPORTS, *files], capture_output=True, text=True, cwd=ROOT,
                          env=env)
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split("\n")[-2].split())


def test_check_of_a_kept_ast_imports_no_lark(tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}  # a cache of its own: no other process writes it
    assert "lark" in _modules_after_check("rules/siatka.vbr", env=env)  # parsed, and kept
    assert "lark" not in _modules_after_check("rules/siatka.vbr", env=env)


def test_check_imports_no_heavy_library():
    loaded = _modules_after_check("rules/volleyball-high.vbr", "rules/tests/siatka.vbr")
    assert not loaded & {"matplotlib", "numpy", "scipy", "pandas", "ray", "graphviz", "torch", "pygls",
                         "lsprotocol", "gymnasium", "pettingzoo"}


def test_check_imports_no_networkx():
    """The turn-flow findings are read from the walk (vbr/turn_flow.py), not the graph."""
    assert "networkx" not in _modules_after_check("rules/siatka.vbr")


def _children_by_model_fields(node):
    out = []
    for name in type(node).model_fields:
        A._collect(getattr(node, name), out)
    return out


@pytest.mark.parametrize("path", [p for p in FILES if "invalid" not in p.parts], ids=lambda p: str(p.relative_to(ROOT)))
def test_children_are_those_of_every_field(path):
    tree = P.parse(path.read_text(encoding="utf-8"), str(path))
    nodes = list(A.walk(tree))
    assert len(nodes) > 1
    for node in nodes:
        assert node.children() == _children_by_model_fields(node)


# ------------------------------------------------------------------ ASTs kept on disk
@pytest.fixture
def ast_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(L, "_parsed", {})
    return tmp_path / "cache" / "vbr" / "ast"


def _parse_calls(monkeypatch):
    calls = []
    real = L.parse
    monkeypatch.setattr(L, "parse", lambda text, file: calls.append(file) or real(text, file))
    return calls


@pytest.mark.parametrize("path", [p for p in FILES if "invalid" not in p.parts], ids=lambda p: str(p.relative_to(ROOT)))
def test_an_ast_read_back_is_the_ast_parsed(ast_cache, monkeypatch, path):
    calls = _parse_calls(monkeypatch)
    parsed, _ = L.parse_file(path)
    L._parsed.clear()
    kept, _ = L.parse_file(path)
    assert calls == [str(path)]  # the second time from the disk
    assert kept == parsed and repr(kept) == repr(parsed)


def test_a_changed_file_is_parsed_again(ast_cache, monkeypatch, tmp_path):
    calls = _parse_calls(monkeypatch)
    f = tmp_path / "g.vbr"
    f.write_text('game "one"\nstart p\nphase p { end draw }\n')
    assert L.parse_file(f)[0].title == "one"
    f.write_text('game "two"\nstart p\nphase p { end draw }\n')
    L._parsed.clear()
    assert L.parse_file(f)[0].title == "two"
    assert len(calls) == 2 and len(list(ast_cache.iterdir())) == 1  # one file per rule file


def test_a_kept_file_with_another_key_is_not_read(ast_cache, monkeypatch, tmp_path):
    f = tmp_path / "g.vbr"
    f.write_text('game "one"\nstart p\nphase p { end draw }\n')
    L.parse_file(f)
    (kept,) = ast_cache.iterdir()
    data = kept.read_bytes()
    kept.write_bytes(bytes([data[0] ^ 1]) + data[1:])
    L._parsed.clear()
    calls = _parse_calls(monkeypatch)
    assert L.parse_file(f)[0].title == "one" and calls == [str(f)]
    kept.write_bytes(data[:40])  # the right key, then garbage
    L._parsed.clear()
    assert L.parse_file(f)[0].title == "one" and len(calls) == 2


def test_the_kept_files_are_few(ast_cache, monkeypatch, tmp_path):
    monkeypatch.setattr(L, "_AST_FILES", 3)
    for i in range(6):
        f = tmp_path / f"g{i}.vbr"
        f.write_text(f'game "g{i}"\nstart p\nphase p {{ end draw }}\n')
        L.parse_file(f)
    assert len(list(ast_cache.iterdir())) == 3


def test_no_cache_directory_no_kept_asts(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    monkeypatch.setattr(L, "_parsed", {})
    assert L.parse_file(ROOT / "rules" / "siatka.vbr")[0].title


def test_check_as_a_process_freezes_its_objects_and_a_caller_keeps_its_collector():
    code = ("import gc, sys, vbr.cli\n"
            "vbr.cli.main(['check', 'rules/siatka.vbr'])\n"
            "print(gc.isenabled(), gc.get_freeze_count())\n"
            "sys.argv = ['vbr', 'check', 'rules/siatka.vbr']\n"
            "vbr.cli.main()\n"
            "print(gc.isenabled(), gc.get_freeze_count() > 0)\n")
    import subprocess
    import sys
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = [x for x in run.stdout.splitlines() if not x.endswith(": ok")]
    assert lines == ["True 0", "True True"]
