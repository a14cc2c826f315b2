"""clone gives an independent state: a clone plays on as the original would, and what is written
into one stays in it; determinize deals the worlds of the plain pooled shuffle; in either engine."""
import random

import pytest

import vbr

ENGINES = ("python", "c")


def _play(st, n, seed):
    r = random.Random(seed)
    for _ in range(n):
        if st.is_terminal():
            break
        st.apply_index(r.randrange(len(st.legal_actions())))
    return st


@pytest.mark.parametrize("engine", ENGINES)
def test_cloned_games_play_on_like_the_original(engine):
    game = vbr.load("volleyball-high", engine=engine)
    st = _play(game.new_state(2), 30, 3)
    twin = _play(game.new_state(2), 30, 3)
    c = st.clone()
    for s in (c, twin, st):
        _play(s, 10_000, 9)
    assert c.is_terminal() and twin.is_terminal()
    for s in (c, st):
        assert (s.words_in_use(), s.choices, s.outcome()) == (twin.words_in_use(), twin.choices, twin.outcome())


@pytest.mark.parametrize("engine", ENGINES)
def test_a_field_set_in_a_clone_stays_in_the_clone(engine):
    game = vbr.load("tanto-cuore-beach-volleyball", engine=engine)
    st = _play(game.new_state(1), 20, 2)
    lay = game.program.layout
    at = lay.fields + lay.width  # the first field of thing 1
    before = st.words_in_use()
    c = st.clone()
    c.words[at] = int(c.words[at]) + 1
    assert int(c.words[at]) == int(st.words[at]) + 1 and st.words_in_use() == before


def _pooled_shuffle(state, seat: int, seed: int) -> list[int]:
    """The words of `state` determinized for `seat` by the plain algorithm: pool the things of the
    zones hidden from the seat by (kind, side), shuffle each pool (Fisher-Yates, drawing from the
    determinizing stream of `seed`) and deal it back from its end into the pool's places in order;
    then give each place its own thing back, carrying what the thing dealt there is (its revealed
    flag and its fields), so that every id stays where it was; then restart every random stream of
    the game from `seed`."""
    from vbr.engines.python_search import DETERMINIZE_KEY
    from vbr.ir import random_streams as R
    p = state.game.program
    lay, before = p.layout, [int(w) for w in state.words]
    words = list(before)
    stream = R.first_state(seed, DETERMINIZE_KEY)
    pools: dict = {}
    for z in p.hidden[seat]:
        at = lay.zone(z)
        for w in range(at + 1, at + 1 + words[at]):
            pools.setdefault((words[lay.kinds + words[w]], p.zone_side[z]), []).append(w)
    for places in pools.values():
        items = [words[w] for w in places]
        for i in range(len(items) - 1, 0, -1):
            stream, j = R.below(stream, i + 1)
            items[i], items[j] = items[j], items[i]
        for w, dealt in zip(places, reversed(items)):
            own = words[w]
            words[lay.revealed + own] = before[lay.revealed + dealt]
            row, dealt_row = lay.fields + own * lay.width, lay.fields + dealt * lay.width
            words[row:row + lay.width] = before[dealt_row:dealt_row + lay.width]
    for k, where in enumerate(p.streams):
        words[lay.streams + k] = R.signed(R.first_state(seed, R.key(where)))
    return words


@pytest.mark.parametrize("engine", ENGINES)
def test_determinize_deals_the_same_worlds_as_the_pooled_shuffle(engine):
    for name in ("siatka", "cattack"):
        game = vbr.load(name, engine=engine)
        st = _play(game.new_state(6), 12, 5)
        for seat in range(game.seats):
            for seed in range(4):
                world = st.determinize(seat, seed).words_in_use()  # the words up to the state's top
                assert world == _pooled_shuffle(st, seat, seed)[:len(world)]
