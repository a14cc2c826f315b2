"""What the speed-ups of `vbr check` must not change (benchmarks/check.py measures the speed;
no test here times anything)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from lark import Transformer

from vbr.errors import VbrError
from vbr.grammar import ast as A
from vbr.grammar import parser as P
from vbr.grammar.transformer import _RULES, ToAst

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(ROOT.glob("rules/**/*.vbr")) + sorted((ROOT / "tests" / "fixtures").glob("**/*.vbr"))


class _LarkWalk(ToAst):
    """The transformer as Lark walks it: every rule through Lark's own `v_args` call."""
    _transform_tree = Transformer._transform_tree


def _both(monkeypatch, text: str, file: str):
    out = []
    for cls in (ToAst, _LarkWalk):
        monkeypatch.setattr(P, "ToAst", cls)
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


def _modules_after_check(*files: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", _IMPORTS, *files], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split("\n")[-2].split())


def test_check_imports_no_heavy_library():
    loaded = _modules_after_check("rules/volleyball-high.vbr", "rules/tests/siatka.vbr")
    assert not loaded & {"matplotlib", "numpy", "scipy", "pandas", "ray", "graphviz", "torch", "pygls",
                         "lsprotocol", "gymnasium", "pettingzoo"}


@pytest.mark.xfail(strict=True, reason="the turn-flow findings `vbr check` prints (vbr/visualizer/findings.py, "
                                       "graph.py) import networkx at module level; remove this mark when they do not")
def test_check_imports_no_networkx():
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
