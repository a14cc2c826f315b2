"""Loading a rule file again under the C engine (issue 35, the interface: "a cached one adds under
0.05 s to loading"): the library built for the first load is found from the load's key (the rule
texts, the options, vbr's code), without generating the C again; a load whose program differs
never takes another's library, and a reference vbr did not seal is never followed. Real builds
with the system compiler, each test in its own cache folder."""
import subprocess
import sys

import pytest

from vbr.engines.game import load

# the winner is the option's seat, so two option values make two programs with two C sources
RULES = 'game "K"\nseats 2\nstart p\noption winner_seat = 0\nphase p {\n  end winner winner_seat\n}\n'


@pytest.fixture
def rules(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = tmp_path / "k.vbr"
    path.write_text(RULES, encoding="utf-8")
    return path


def generated_c(game) -> bool:
    """Whether this load generated the program's C (CEngine.source is made when first read)."""
    return "source" in game.engine.__dict__


def winner(game) -> int:
    return game.new_state(1).outcome().winner


def test_a_second_load_takes_the_built_library_without_generating_c(rules):
    first = load(rules, {"winner_seat": 1}, engine="c")
    again = load(rules, {"winner_seat": 1}, engine="c")
    assert generated_c(first) and not generated_c(again)
    assert winner(again) == 1


def test_other_options_make_their_own_c_and_play_their_own_rules(rules):
    load(rules, {"winner_seat": 1}, engine="c")
    other = load(rules, {"winner_seat": 0}, engine="c")
    assert generated_c(other)
    assert winner(other) == 0


def test_an_edited_rule_file_makes_its_own_c_and_plays_its_new_rules(rules):
    load(rules, {}, engine="c")
    rules.write_text(RULES.replace("end winner winner_seat", "end winner other(winner_seat)"), encoding="utf-8")
    edited = load(rules, {}, engine="c")
    assert generated_c(edited)
    assert winner(edited) == 1


def refs(tmp_path) -> set:
    return set((tmp_path / "cache" / "vbr" / "c").glob("vbr-load-*.ref"))


def test_another_loads_reference_put_in_place_of_this_ones_is_not_followed(rules, tmp_path):
    load(rules, {"winner_seat": 1}, engine="c")
    (seat1,) = refs(tmp_path)
    load(rules, {"winner_seat": 0}, engine="c")
    (seat0,) = refs(tmp_path) - {seat1}
    seat0.write_bytes(seat1.read_bytes())  # sealed by vbr, but for the other load's key
    swapped = load(rules, {"winner_seat": 0}, engine="c")
    assert generated_c(swapped)
    assert winner(swapped) == 0


def test_a_reference_without_vbrs_seal_is_not_followed(rules, tmp_path):
    load(rules, {"winner_seat": 1}, engine="c")
    (ref,) = refs(tmp_path)
    ref.write_bytes(b"0" * 32 + b"f" * 64)
    again = load(rules, {"winner_seat": 1}, engine="c")
    assert generated_c(again)
    assert winner(again) == 1


def test_a_library_changed_after_its_build_is_built_again_not_loaded(rules, tmp_path):
    # built by another process: this one must not have the library mapped while it is changed
    subprocess.run([sys.executable, "-m", "vbr", "run", rules, "--engine", "c", "--option", "winner_seat=1",
                    "--quiet"], check=True, capture_output=True, timeout=600)
    (lib,) = (tmp_path / "cache" / "vbr" / "c").glob("vbr-*.so")
    good = lib.read_bytes()
    lib.write_bytes(good[:-16] + b"\0" * 16)
    again = load(rules, {"winner_seat": 1}, engine="c")
    assert generated_c(again)
    assert lib.read_bytes() == good  # the same compiler and source make the same library
    assert winner(again) == 1


def test_a_rule_files_chance_program_is_found_again_and_is_never_the_plain_programs_library(rules):
    from vbr.rl.chance_nodes import Draws
    first = Draws.load(rules, {"winner_seat": 1}, "c").game
    again = Draws.load(rules, {"winner_seat": 1}, "c").game
    assert generated_c(first) and not generated_c(again)
    plain = load(rules, {"winner_seat": 1}, engine="c")  # the same rule texts, another program
    assert generated_c(plain) and winner(plain) == 1
    assert not generated_c(Draws.load(rules, {"winner_seat": 1}, "c").game)
