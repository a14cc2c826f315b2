"""A command that plays loads the rule file's game only through the engine it plays with: under
`--engine python` (or c) the closure engine's game is never made, so a command costs one load,
and nothing only the closure engine does can stop it. Seen from outside: the closure engine's game
module (vbr.interpreter.game) is never imported by the process that runs the command."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# run the command in this process, then say whether the closure engine's game module was imported
PROBE = """
import sys
from vbr.cli import main
code = main(sys.argv[1:])
print("closure game module imported:", "vbr.interpreter.game" in sys.modules)
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


@pytest.mark.parametrize("command", COMMANDS)
def test_a_command_played_through_the_python_engine_never_makes_the_closure_engines_game(command, tmp_path):
    done = probe(COMMANDS[command] + ["--engine", "python"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "closure game module imported: False" in done.stdout


def test_the_probe_sees_the_closure_engines_game_when_a_command_plays_through_it(tmp_path):
    """The other side of the probe above: under `--engine closure` the module is imported."""
    done = probe(COMMANDS["sim"] + ["--engine", "closure"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "closure game module imported: True" in done.stdout


def test_the_html_report_through_the_python_engine_never_makes_the_closure_engines_game(tmp_path):
    done = probe(["report", "siatka", "-n", "2", "-o", str(tmp_path / "r.html"), "--engine", "python"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "closure game module imported: False" in done.stdout
