"""A process keeps the games its commands loaded (vbr.sim.game_for), each under the file it is:
the same relative path, read from another folder, is another file and another game."""
from vbr.cli import main

ONE_POINT = 'game "Race to {n}"\nseats 2\npoints score\nvar score: int per seat = 0\nstart p\n' \
            'phase p {{\n  score[0] += 1\n  if score[0] >= {n} {{\n    end winner 0\n  }}\n  goto p\n}}\n'


def _folder_with_race(path, n):
    path.mkdir()
    (path / "race.vbr").write_text(ONE_POINT.format(n=n), encoding="utf-8")
    return path


def test_a_command_in_another_folder_plays_that_folders_file_of_the_same_relative_name(tmp_path, monkeypatch, capsys):
    # a run in one folder, then `vbr run race.vbr` in another: it said the first folder's result
    monkeypatch.chdir(_folder_with_race(tmp_path / "a", 3))
    assert main(["sim", "race.vbr", "-n", "2", "--engine", "python"]) == 0
    assert "seat 0: 2 wins" in capsys.readouterr().out
    monkeypatch.chdir(_folder_with_race(tmp_path / "b", 5))
    assert main(["run", "race.vbr", "--quiet", "--engine", "python"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "result: seat 0 wins (5, 0) after 0 choices"


def test_a_run_names_the_file_as_its_command_did_after_a_run_named_it_another_way(tmp_path, monkeypatch, capsys):
    # the same file first by its absolute path, then by a relative one: each run's first line
    # names it as that run's command did
    monkeypatch.chdir(_folder_with_race(tmp_path / "a", 3))
    assert main(["sim", str(tmp_path / "a" / "race.vbr"), "-n", "1", "--engine", "python"]) == 0
    assert capsys.readouterr().out.startswith(f"Race to 3 ({tmp_path / 'a' / 'race.vbr'}), 1 game")
    assert main(["sim", "race.vbr", "-n", "1", "--engine", "python"]) == 0
    assert capsys.readouterr().out.startswith("Race to 3 (race.vbr), 1 game")
