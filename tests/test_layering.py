"""Layering: the checker (vbr/checker.py, vbr/checking/) and the typed program (vbr/ir/) sit
below the engines (vbr/engines/) and never import one; the engines sit below the run, the CLI and
the RL adapters (vbr.sim, vbr.cli, vbr.rl) and never import them; and nothing imports a module
that is not there.

The built-ins' names, arities and docs live in `vbr/builtin_signatures.py`, below all of them;
the checker reads one check per entry there (`vbr/checking/builtins.py`).
"""
import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT, rule_files

VBR = ROOT / "vbr"


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=ROOT)


# ------------------------------------------------------------------------- at run time
def test_checking_a_bundled_file_imports_no_engine():
    files = [str(p) for p in rule_files()]
    assert files
    done = _run(f"""
        import sys
        import vbr.checking, vbr.loader
        for path in {files!r}:
            vbr.checking.checked_model(vbr.loader.load_rules(path))
        print(" ".join(sorted(m for m in sys.modules if m.split(".")[:2] in (["vbr", "engines"], ["vbr", "ir"]))))
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", f"the checker imported {done.stdout.strip()}"


# ------------------------------------------------------------------------- the table and the checker agree
def test_the_checker_refuses_every_builtin_name_as_a_function():
    from vbr.builtin_signatures import SIGNATURES
    from vbr.checker import builtin_names

    assert builtin_names() == set(SIGNATURES)


def test_the_checker_checks_every_builtin_of_the_table():
    from vbr.builtin_signatures import SIGNATURES
    from vbr.checking.builtins import CHECKS

    assert list(CHECKS) == list(SIGNATURES)


def test_a_table_entry_with_no_check_stops_the_import():
    done = _run("""
        from vbr.builtin_signatures import SIGNATURES, Signature
        SIGNATURES["no_such_builtin"] = Signature("no_such_builtin", 1, 1, "nothing")
        import vbr.checking
    """)
    assert done.returncode != 0
    assert "no check here: no_such_builtin" in done.stderr


# ------------------------------------------------------------------------- statically, lazy imports included
def _module_file(name: str) -> Path | None:
    parts = name.split(".")
    if parts[0] != "vbr":
        return None
    base = ROOT.joinpath(*parts)
    for f in (base.with_suffix(".py"), base / "__init__.py"):
        if f.is_file():
            return f
    return None


def _imports(path: Path, name: str) -> set[str]:
    """The vbr modules a file imports anywhere in it (inside functions too)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            for a in node.names:  # `from vbr import limits`: the module vbr.limits
                out.add(f"{base}.{a.name}" if _module_file(f"{base}.{a.name}") else base)
    return {m for m in out if m == "vbr" or m.startswith("vbr.")}


def _closure(start: str) -> dict[str, str]:
    """Every vbr module reachable from `start` by imports, each with the module that imports it."""
    seen = {start: ""}
    todo = [start]
    while todo:
        name = todo.pop()
        path = _module_file(name)
        if path is None:
            continue
        for m in _imports(path, name):
            if m not in seen:
                seen[m] = name
                todo.append(m)
    return seen


ENGINE_PACKAGES = (["vbr", "engines"],)


def _modules(package: str) -> list[str]:
    """The module names of a package of vbr, its __init__ as the package's own name."""
    folder = VBR / package
    return sorted(".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
                  for p in folder.rglob("*.py"))


@pytest.mark.parametrize("start", ["vbr.checker", "vbr.checking", "vbr.loader", "vbr.errors", "vbr.limits",
                                   "vbr.grammar.parser", "vbr.grammar.printer", "vbr.builtin_signatures"])
def test_below_the_engines_nothing_imports_an_engine_or_the_typed_program(start):
    reached = _closure(start)
    assert _module_file(start) is not None
    bad = sorted(m for m in reached if m.split(".")[:2] in (*ENGINE_PACKAGES, ["vbr", "ir"]))
    assert not bad, f"{start} reaches {bad[0]} (imported by {reached[bad[0]]})"


@pytest.mark.parametrize("start", _modules("ir"))
def test_the_typed_program_imports_no_engine(start):
    reached = _closure(start)
    bad = sorted(m for m in reached if m.split(".")[:2] in ENGINE_PACKAGES)
    assert not bad, f"{start} reaches {bad[0]} (imported by {reached[bad[0]]})"


ABOVE_THE_ENGINES = ("vbr.rl", "vbr.cli", "vbr.sim")


@pytest.mark.parametrize("start", _modules("engines"))
def test_an_engine_imports_nothing_of_the_run_the_cli_or_the_rl_adapters(start):
    reached = _closure(start)
    bad = sorted(m for m in reached if any(m == a or m.startswith(a + ".") for a in ABOVE_THE_ENGINES))
    assert not bad, f"{start} reaches {bad[0]} (imported by {reached[bad[0]]})"


def test_every_module_vbr_imports_from_itself_is_there():
    """No module of vbr imports a module of vbr that is not in the tree (a package retired, such
    as the closure engine's vbr.interpreter, leaves no importer behind)."""
    missing = set()
    for path in VBR.rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        missing |= {(name, m) for m in _imports(path, name) if m.split(".")[0] == "vbr" and _module_file(m) is None}
    assert not missing, sorted(missing)


def test_the_signature_table_imports_nothing_from_vbr():
    path = VBR / "builtin_signatures.py"
    assert _imports(path, "vbr.builtin_signatures") == set()


# ------------------------------------------------------------------------- no import circles
def _import_graph() -> dict[str, set[str]]:
    names = {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__") for p in VBR.rglob("*.py")}
    # a module's own packages (`import vbr` in vbr.x.y) are left out, as the project's tool
    # (shared/tools/import_cycles.py) leaves them: a package's __init__ runs first anyway
    return {n: {m for m in _imports(_module_file(n), n) if m in names and m != n and not n.startswith(m + ".")}
            for n in names}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module, each sorted, in sorted order."""
    import networkx as nx
    g = nx.DiGraph()
    g.add_nodes_from(graph)
    g.add_edges_from((a, b) for a, targets in graph.items() for b in targets)
    return sorted(sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1)


def test_the_circle_finder_finds_a_circle_and_nothing_else():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_circle():
    """Each module imports downwards only: the CLI and its command modules (shared parsing in
    vbr/cli_common.py), the run and its backends, errors and the loader, the engines and vbr.rl."""
    assert _circles(_import_graph()) == []


@pytest.mark.parametrize("module", ["vbr.cli_common", "vbr.visualizer.command", "vbr.html_report.command",
                                    "vbr.html_report.build", "vbr.tty_play.command", "vbr.mutation.command",
                                    "vbr.lsp.command"])
def test_no_command_module_imports_the_cli(module):
    assert "vbr.cli" not in _closure(module), f"{module} reaches vbr.cli"
