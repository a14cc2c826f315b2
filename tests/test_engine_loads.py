"""A command that plays runs on the typed program's engines alone: no command, under any engine,
auto included, imports the retired closure engine (vbr.interpreter), so nothing of it can cost a
load or stop a command. Seen from outside: no module of vbr.interpreter is in the process that
runs the command."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# run the command in this process, then name the closure engine's modules it imported
PROBE = """
import sys
from vbr.cli import main
code = main(sys.argv[1:])
print("closure engine modules imported:", sorted(m for m in sys.modules if m.startswith("vbr.interpreter")))
sys.exit(code)
"""

COMMANDS = {
    "run": ["run", "siatka", "--quiet"],
    "sim": ["sim", "siatka", "-n", "3"],
    "sim --skill": ["sim", "siatka", "-n", "2", "--agents", "greedy", "--skill", "samples=1,2"],
    "sweep": ["sweep", "siatka", "-n", "2", "--grid", "target=5,7"],
    "compare": ["compare", "siatka", "--variant-option", "target=5", "-n", "2"],
    "importance": ["importance", "siatka", "-n", "2"],
    "tune": ["tune", "siatka", "--option", "target=5,7", "--target", "draw_rate=0", "-n", "4"],
    "graph --sim": ["graph", "siatka", "--sim", "2"],
    "play": ["play", "siatka"],
}


def probe(argv: list[str], tmp_path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, cwd=tmp_path,
                          input="q\n", timeout=600)


@pytest.mark.parametrize("engine", ["python", "auto"])
@pytest.mark.parametrize("command", COMMANDS)
def test_a_command_that_plays_never_imports_the_closure_engine(command, engine, tmp_path):
    done = probe(COMMANDS[command] + ["--engine", engine], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "closure engine modules imported: []" in done.stdout


def test_the_probe_sees_a_closure_engine_module_a_process_imports(tmp_path):
    """The other side of the probe above: a module of vbr.interpreter imported is named."""
    done = subprocess.run([sys.executable, "-c", "import vbr.interpreter.rng\n" + PROBE, "check", "siatka"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "closure engine modules imported: ['vbr.interpreter', 'vbr.interpreter.rng']" in done.stdout


def test_the_html_report_never_imports_the_closure_engine(tmp_path):
    done = probe(["report", "siatka", "-n", "2", "-o", str(tmp_path / "r.html"), "--engine", "python"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "closure engine modules imported: []" in done.stdout
