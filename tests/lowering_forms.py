"""What the tests of the lowering's paths (tests/test_lowering_*.py) share: a rule text written to
a file, the closures and the lowered program compiled with some of the lowering's fast paths (vbr/interpreter/fast_paths.py) set, and
everything a game ends with, to compare the two forms by."""
import ast
import json
import random

from vbr.interpreter import fast_paths
from vbr.interpreter.compiler import compile_rules
from vbr.interpreter.game import Game
from vbr.loader import load_rules
from vbr.play import play_game


def write(tmp_path, text):
    path = tmp_path / "g.vbr"
    path.write_text('game "x"\n' + text)
    return path


def code(game) -> str:
    """The lowered program's generated Python, as text."""
    return "\n".join(ast.unparse(m) for m in game.program.lowering.modules)


def forms(path, **flags):
    """The closures, and the lowered program compiled with `flags` set on fast_paths.py (each put
    back afterwards)."""
    rules = load_rules(path)
    closures = Game(rules, compile_rules(rules, {}, lower=False), {})
    saved = {k: getattr(fast_paths, k) for k in flags}
    try:
        for k, v in flags.items():
            setattr(fast_paths, k, v)
        lowered = Game(rules, compile_rules(rules, {}, lower=True, keep_code=True), {})
    finally:
        for k, v in saved.items():
            setattr(fast_paths, k, v)
    return closures, lowered


def final_state(game, seed):
    """A game between random seats, to its end: the state (values, zones, things, steps, the
    generator) and what play_game counted."""
    r = play_game(game, seed, ["random"] * game.seats)
    st = r.state
    return (st.vals, st.zones, st.where, st.ent, st.kind, st.steps, st.choices, str(st.outcome()), r.winner,
            r.points, r.options, r.forced, r.score_track, st.rng.getstate())


def assert_same_games_with_and_without(path, flag: str, seeds):
    """The closures, the lowered program as it is, and the lowered program with `flag` off, all
    end every game alike."""
    closures, lowered = forms(path)
    _, without = forms(path, **{flag: False})
    for seed in seeds:
        want = final_state(closures, seed)
        assert final_state(lowered, seed) == want
        assert final_state(without, seed) == want


def frames(game, seed):
    """Play by answering each suspended choice at random, as an agent that is asked does: at
    each, the frames' locals (of the state and of a copy of it), their pcs (a caller's: where it
    goes on when its callee returns; the choosing frame's: its choice, which a step-limit error
    names), where the choosing frame goes on once answered, and its slot; then the log and the
    outcome."""
    st = game.new_state(seed, record=True)
    rng = random.Random(seed)
    seen = []
    while not st.is_terminal():
        copy = st.clone()
        seen.append(([list(fr.L) for fr in st.stack], [list(fr.L) for fr in copy.stack],
                     [fr.pc for fr in st.stack], st.pending.next_pc, st.pending.slot, st.steps, st.choices))
        st.apply_index(rng.randrange(len(st.legal_actions())))
    return seen, json.dumps(st.log), str(st.outcome()), st.steps, st.choices
