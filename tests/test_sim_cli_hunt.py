"""`vbr sim` flags met together as a designer writes them: each conflict said in the words of the
flags given."""
from pathlib import Path

from vbr.cli import main

BUMP = Path(__file__).resolve().parents[1] / "docs" / "tutorial" / "bump.vbr"


def test_skill_over_a_setting_agents_already_gives_names_both_flags(capsys):
    # `--agents mcts:iterations=5 --skill iterations=5,20`: the error said `mcts: iterations is
    # given twice`, naming no flag, though each flag gives it once
    code = main(["sim", str(BUMP), "-n", "2", "--engine", "python", "--agents", "mcts:iterations=5",
                 "--skill", "iterations=5,20"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err == ("vbr: error: --skill 'iterations=5,20': --agents mcts:iterations=5 sets iterations already, and "
                   "--skill sets it to each of its two values: leave it out of --agents\n")
