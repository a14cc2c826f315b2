"""Every bundled rule file under each of its option sets: random games through vbr's own API (the
typed program's Python engine), checking vbr's invariants after every step and how each game ends; the same file as an OpenSpiel
game through OpenSpiel's own `pyspiel.random_sim_test` (its checks of the API, chance outcomes and
serialization); and every bundled file in canonical form."""
import random

import pyspiel  # the test extra installs it, with vbr[rl]: a missing one is a failure, not a skip
import pytest

import vbr.rl

from conftest import rule_files, scenario_files
from vbr.checker import literal_value
from vbr.engines.game import checked_model, load
from vbr.ir.layout import Header as H


def option_sets(path):
    """The defaults, each bool option switched on alone, all of them together, and every listed
    value of the other options."""
    model = checked_model(path)
    sets = [{}]
    bools = [n for n, v in model.options.items() if isinstance(v, bool)]
    sets += [{n: True} for n in bools]
    if len(bools) > 1:
        sets.append({n: True for n in bools})
    for name, decl in model.option_decls.items():
        for choice in decl.choices:
            value = literal_value(model, choice)
            if value != model.options[name]:
                sets.append({name: value})
    return sets


CASES = [pytest.param(p, o, id=f"{p.stem}-{'+'.join(f'{k}={v}' for k, v in o.items()) or 'defaults'}")
         for p in rule_files() for o in option_sets(p)]


@pytest.mark.parametrize("path,options", CASES)
def test_random_games_keep_the_invariants(path, options):
    game = load(path, options, engine="python")
    for seed in range(3):
        st = game.new_state(seed)
        rng = random.Random(seed)
        last = st.points()
        while not st.is_terminal():
            assert audit(st) == []
            legal = st.legal_actions()
            assert legal, "a pending choice always offers something"
            st.apply_index(rng.randrange(len(legal)))
            pts = st.points()
            if last is not None and pts is not None:
                assert all(b >= a for a, b in zip(last, pts)), (last, pts)
            last = pts
        assert audit(st) == []
        out = st.outcome()
        assert out is not None
        _check_the_end(game, out)


@pytest.mark.parametrize("path,options", CASES)
def test_openspiel_random_sim_test_passes(path, options):
    game = pyspiel.load_game(vbr.rl.register_openspiel(path, options))
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def audit(st) -> list[str]:
    """Problems with the conservation invariant of a typed state: every thing created lies in
    exactly one zone, the one its zone word records. Empty when all is well."""
    p, W = st.game.program, st.words
    lay, names = p.layout, p.names.zones
    seen: dict[int, int] = {}
    problems = []
    for z in range(len(names)):
        at = lay.zone(z)
        for e in (int(x) for x in W[at + 1:at + 1 + int(W[at])]):
            if e in seen:
                problems.append(f"#{e} is in {names[seen[e]]} and {names[z]}")
            seen[e] = z
    for e in range(int(W[H.THINGS])):
        if e not in seen:
            problems.append(f"#{e} is in no zone")
        elif int(W[lay.zone_of + e]) != seen[e]:
            problems.append(f"#{e} is recorded in {names[int(W[lay.zone_of + e])]} but lies in {names[seen[e]]}")
    return problems


# the option that sets the points to win, where it is not called `target`
TARGET_OPTION = {"volleyball-high": "points"}


def _check_the_end(game, out):
    """Every bundled game ends the moment a side reaches the points to win: there is a winning
    side (a seat, or a team in a game of teams), its points are exactly the target and every
    other side's are below it."""
    target = game.option_values[TARGET_OPTION.get(game.path.stem, "target")]
    team_of = game.team_of
    assert out.team is not None or out.winner is not None, f"no winner: {out}"
    if out.winner is not None:
        assert 0 <= out.winner < game.seats
    side = out.team if out.team is not None else team_of[out.winner]
    if out.winner is not None and out.team is not None:
        assert team_of[out.winner] == out.team
    points = out.points
    assert points is not None and len(points) == len(game.program.teams)
    assert points[side] == target, f"{out}: the winner has {points[side]} points, the target is {target}"
    assert all(p < target for i, p in enumerate(points) if i != side), out


@pytest.mark.parametrize("path", rule_files() + scenario_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_bundled_file_is_in_canonical_form(path):
    """`vbr fmt --check rules/*.vbr rules/tests/*.vbr` passes: printing the file gives the file."""
    from vbr.grammar.parser import parse
    from vbr.grammar.printer import program
    text = path.read_text(encoding="utf-8")
    assert program(parse(text, str(path))) == text, f"run `vbr fmt {path}`"
