"""`vbr play`'s screen and loop without a terminal (vbr/tty_play): what one seat may see, within
80 columns, hidden things kept hidden, bad entries, leaving, colour. The same game driven through
tmux, as a person plays it, is tests/test_play_tmux.py."""
import io
import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

import vbr
from vbr.engines.observation import full_view
from vbr.gamelog import replay
from vbr.cli import main
from vbr.tty_play.screen import HEIGHT, WIDTH, Board, Screen, event_lines, plain, styled, truncate, width, wrap
from vbr.tty_play.session import Session

from conftest import ROOT

RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # control characters a terminal would obey
BUNDLED = [("siatka", {}), ("siatka", {"abilities": True, "block_marker": True, "rotation": True}),
           ("cattack", {}), ("cattack", {"players": "2"}), ("tanto-cuore-beach-volleyball", {}),
           ("volleyball-high", {}), ("volleyball-high", {"mode": "2v2"}), ("volleyball-high", {"mode": "solo"})]


def ids_in(state, zone: str) -> list[str]:
    """The ids (`#N`) of what lies in `zone` (a zone's slot name, `hand[1]`), hidden or not."""
    return [thing.split()[0] for thing in full_view(state.game, state.words)["zones"][zone]]


def hidden_zones(state, seat: int) -> list[str]:
    """The names of the zone slots `seat` may not look into."""
    p = state.game.program
    return [p.names.zones[z] for z in p.hidden[seat]]


def prompt(state) -> str:
    return state.observation(state.current_player())["prompt"]


def shows(text: str, ident: str) -> bool:
    return re.search(rf"{re.escape(ident)}\b", text) is not None


def screen_of(game, state, seat=None) -> Screen:
    seat = state.current_player() if seat is None else seat
    return Screen(Board(game), state.observation(seat), seat)


def text_of(lines) -> str:
    return "\n".join(plain(x) for x in lines)


def session(game, answers: str, seed=3, seats=(0,), agents=None, colour=False, log=None):
    agents = agents or ["random" if s not in seats else None for s in range(game.seats)]
    out = io.StringIO()
    s = Session(game, seed, seats, agents, out, io.StringIO(answers), colour=colour, log_path=log)
    return s, s.play(), out.getvalue()


# ------------------------------------------------------------------------------- what is shown
def test_the_court_picture_draws_each_sides_serve_space_although_it_is_off_the_court():
    """A declared space is no part of the court proper (`in_court` is false there), yet the
    picture shows it: behind each side's back-right field in Volleyball High."""
    game = vbr.load("volleyball-high", engine="python")
    state = game.new_state(3)
    lines = [plain(x) for x in screen_of(game, state, 0).board_lines()]
    court = [line for line in lines if "|" in line and not line.startswith("==")]
    assert court[0].split("|")[0].strip() == "serve"     # side 1's, above its back row (its right)
    assert court[-1].split("|")[-1].strip() == "serve"   # side 0's, below its field 8
    assert court[-2].split("|")[-1].strip() == "8"


def test_the_opponents_hand_and_both_decks_stay_hidden():
    game = vbr.load("siatka", engine="python")
    state = game.new_state(3)
    text = text_of(screen_of(game, state, 0).board_lines())
    for ident in ids_in(state, "hand[1]") + ids_in(state, "deck[0]") + ids_in(state, "deck[1]"):
        assert not shows(text, ident), ident
    for ident in ids_in(state, "hand[0]"):
        assert shows(text, ident)
    assert "hand[1] 3" in text and "deck[0] 9" in text  # hidden zones: how many, never what


def test_every_screen_of_every_bundled_game_fits_80_columns_and_shows_no_hidden_card():
    """A whole game of each, a screen at every choice, drawn for the seat to choose."""
    for name, options in BUNDLED:
        game = vbr.load(name, options, engine="python")
        state = game.new_state(11)
        board = Board(game)
        while not state.is_terminal():
            seat = state.current_player()
            sc = Screen(board, state.observation(seat), seat)
            lines = [plain(x) for x in sc.board_lines() + sc.choice_lines()] + [sc.ask()]
            assert max(width(x) for x in lines) <= WIDTH, (name, [x for x in lines if width(x) > WIDTH])
            text = "\n".join(lines)
            for zone in hidden_zones(state, seat):
                for ident in ids_in(state, zone):
                    assert not shows(text, ident), (name, options, ident, zone)
            state.apply_index(0)


def test_a_decision_of_siatka_fits_one_24_line_screen():
    game = vbr.load("siatka", engine="python")
    state = game.new_state(5)
    board = Board(game)
    most = 0
    while not state.is_terminal():
        seat = state.current_player()
        sc = Screen(board, state.observation(seat), seat)
        most = max(most, len(sc.board_lines() + sc.choice_lines()) + 1)  # + the line that asks
        state.apply_index(len(state.options()) - 1)
    assert most <= HEIGHT


def _at_first_serve(game, seed=4):
    state = game.new_state(seed)
    while state.phase != "bounce":
        state.apply_index(0)
    return state


def test_the_court_puts_the_seat_at_the_bottom_with_the_ball_where_it_is():
    game = vbr.load("siatka", engine="python")
    state = _at_first_serve(game)
    ball = state.observation(0)["vars"]["ball"]  # @S:N, field N on side S
    ball_side = int(ball[1])
    for seat in (0, 1):
        lines = [plain(x) for x in screen_of(game, state, seat).court_lines()]
        net = next(i for i, x in enumerate(lines) if " net " in x)
        at = next(i for i, x in enumerate(lines) if "BALL" in x)
        assert (at > net) == (ball_side == seat), (seat, ball, lines)  # the own half is below the net
        assert lines[net + 1].startswith(f"you (seat {seat})")
        assert re.search(rf"(^|\| ){ball.split(':')[1]} [^|]*BALL", lines[at][13:]), lines[at]  # in its field


def test_tiles_on_the_court_are_drawn_in_their_fields():
    game = vbr.load("siatka", engine="python")
    state = _at_first_serve(game)
    text = text_of(screen_of(game, state, 0).court_lines())
    for zone in ("team[0]", "team[1]"):
        for ident in ids_in(state, zone):
            assert shows(text, ident)
    assert "team[0] (yours): 6 on the court" in text_of(screen_of(game, state, 0).zone_lines())


def test_choices_are_numbered_with_what_they_choose():
    game = vbr.load("siatka", engine="python")
    state = game.new_state(3)
    lines = [plain(x) for x in screen_of(game, state, 0).choice_lines()]
    assert lines[0] == "> which tile stands on the next field"
    assert lines[1] == "  free on your side: field 1, field 2, field 3, field 4, field 5, field 6"
    assert lines[2] == "  1) #0 Tile(defence=2, ability=A)"  # field=0, on the bench, places it nowhere
    assert len(lines) == 2 + len(state.legal_actions())


def test_a_tile_chosen_shows_among_the_events_as_it_was_offered_without_its_idle_field():
    # the choice read `#0 Tile(defence=2, ability=A)`; its event said `field=0` (the bench's
    # "nowhere"), while the tile went to field 1
    game = vbr.load("siatka", engine="python")
    _, result, out = session(game, "1\nq\n", seed=7)
    assert result.choices == 1
    assert "  you (seat 0): which tile stands on the next field -> #0 Tile(defence=2,\n      ability=A)\n" in out
    assert "field=0" not in out


def test_the_free_fields_shrink_as_tiles_are_placed_and_a_placed_tile_keeps_its_field():
    game = vbr.load("siatka", engine="python")
    state = game.new_state(3)
    for _ in range(2):
        state.apply_index(0)
    sc = screen_of(game, state, 0)
    assert plain(sc.choice_lines()[1]) == "  free on your side: field 3, field 4, field 5, field 6"
    assert "team[0] (yours): 2 on the court" in text_of(sc.zone_lines())
    assert "bench[0] (yours): Tile(defence/ability) #2 3/R, #3 4/Z, #4 4/A, #5 5/B" in text_of(sc.zone_lines())


def test_cards_alike_are_offered_once_with_a_count_and_stand_for_the_first_of_them():
    game, state = _deep_into("siatka", {}, 9, lambda s: prompt(s).startswith("Mocne odbicie")
                             and len(s.options()) > 2)
    sc = screen_of(game, state)
    legal = sc.obs["legal"]
    alike = [a for a in legal if a != "pass"]
    assert len(alike) == 3 and len({sc.items[a].desc.partition(" ")[2] for a in alike}) == 1  # the same card, thrice
    assert sc.offers() == [(0, 3), (3, 1)]
    lines = [plain(x) for x in sc.choice_lines()]
    assert lines[1:] == [f"  1) {alike[0]} Card(tactic=mocne_odbicie) \u00d73", "  2) pass"]
    assert sc.ask() == "your choice (1-2, ? choices, q leave): "



def _alike_in_two_zones(state) -> bool:
    """A `which arrow card` question whose legal cards include two alike in all but their id, one
    in the coach's hand and one face up (cattack.vbr's `usable`: either may be played)."""
    obs = state.observation(state.current_player())
    if obs["prompt"] != "which arrow card":
        return False
    where = {d.partition(" ")[0]: (z, d.partition(" ")[2]) for z, c in obs["zones"].items() if isinstance(c, list) for d in c}
    cards = [where[a] for a in obs["legal"] if a in where]
    return any(z1 != z2 and d1 == d2 for z1, d1 in cards for z2, d2 in cards)


def test_alike_cards_in_the_hand_and_face_up_are_two_offers_each_naming_its_zone():
    # In Cattack a coach plays an arrow card from the hand or from the team's face-up cards; the
    # face-up ones are refilled at once (keep_faceup), the hand only in the next round: which of
    # two alike cards is played is a choice, so each is offered, with the zone it lies in.
    game, state = _deep_into("cattack", {"players": 2}, 3, _alike_in_two_zones)
    sc = screen_of(game, state)
    assert len(sc.offers()) == len(sc.obs["legal"])  # no two merged
    lines = [plain(x) for x in sc.choice_lines()[1:]]
    hand = [line for line in lines if line.endswith(" in hand[0]")]
    faceup = [line for line in lines if line.endswith(" in faceup[0]")]
    assert hand and faceup and len(hand) + len(faceup) == len(lines)
    strip = lambda line: re.sub(r"^\s*\d+\) #\d+ | in \w+\[0\]$", "", line)  # the card, without number, id and zone
    assert {strip(x) for x in hand} & {strip(x) for x in faceup}

def test_cattack_choices_name_the_field_and_its_side():
    game = vbr.load("cattack", engine="python")
    state = game.new_state(1)
    sc = screen_of(game, state)
    assert any(label.startswith("@") and "field" in label and "side" in label for label in sc.labels())


def test_another_seats_hidden_pick_and_only_option_are_not_told():
    game = vbr.load("siatka", engine="python")
    state = game.new_state(3)
    sc = screen_of(game, state, 0)
    mine = ids_in(state, "hand[0]")[0]
    events = [
        {"t": "choice", "seat": 1, "prompt": "Rozegranie: roll again?", "action": ids_in(state, "hand[1]")[0], "of": 2,
         "item": f"{ids_in(state, 'hand[1]')[0]} Card(tactic=rozegranie)"},
        {"t": "choice", "seat": 1, "prompt": "Mocne odbicie: bounce 2 fields?", "action": "pass", "of": 1},
        {"t": "choice", "seat": 0, "prompt": "Superatak?", "action": mine, "of": 1, "item": f"{mine} Card(tactic=x)"},
        {"t": "pick", "value": ids_in(state, "deck[1]")[0]},
        {"t": "pick", "value": mine},
        {"t": "pick", "value": "3"},
        {"t": "say", "text": "point to seat 1: 0-1"},
        {"t": "end", "winner": 1, "points": [0, 1]},
    ]
    lines = [plain(x) for x in event_lines(events, sc.board, sc)]
    assert lines[0] == "  seat 1: Rozegranie: roll again? -> (hidden)"
    assert lines[1] == "  seat 1: Mocne odbicie: bounce 2 fields? -> pass"
    assert lines[2] == f"  you (seat 0): Superatak? -> {mine} Card(tactic=x) (only option)"
    assert lines[3:6] == ["  drawn at random: (hidden)", f"  drawn at random: {mine}", "  drawn at random: 3"]
    assert lines[6:] == ["  point to seat 1: 0-1", "game over: seat 1 wins (0, 1)"]


DECLINES = """game "Declines"
seats 2
start p
kind Card { v: int }
zone hand per seat owner
zone table public
setup {
  create Card(v: 1) in hand[1]
  create Card(v: 2) in table
}
phase p {
  choose c from hand[1] where c.v == 1 by 1 optional as "play your secret card?"
  choose t from table where any(c.v == 1 for c in hand[1]) by 1 optional as "take the table's card?"
  choose u from table by 1 as "touch the table's card"
  choose x from [1, 2] by 0 as "which"
  end winner 0
}
"""


def test_another_seats_declined_choice_is_not_shown_as_it_may_turn_on_a_hidden_hand(tmp_path):
    # Seat 1 is asked "play your secret card?" only because its hidden hand holds such a card
    # (docs/language.md, `choose`: with nothing but `pass` on offer, no choice is made), so
    # `seat 1: play your secret card? -> pass` would tell seat 0 what that hand holds; so would
    # the declined "take the table's card?", whose options are public but whose `where` reads
    # the hand. A choice seat 1 made shows, over the public table.
    rules = tmp_path / "declines.vbr"
    rules.write_text(DECLINES, encoding="utf-8")
    game = vbr.load(rules, engine="python")
    # seat 1 is another person here (hot seat): Enter, then pass twice (pass is each choice's last
    # option), its only option taken for it; seat 0: Enter, then 1
    _, result, out = session(game, "\n2\n2\n\n1\n", agents=[None, "human"])
    assert result.finished
    seat0 = out.split("seat 0, press Enter to see your screen (q leaves): ")[1]
    assert "seat 1: touch the table's card -> #1 Card(v=2)\n" in seat0
    assert "secret" not in seat0 and "take the table" not in seat0  # on seat 0's screen and the end both see


def test_a_searching_agent_says_it_thinks_only_at_a_choice_it_may_not_pass(tmp_path):
    # on a terminal, "seat 1 (mcts...) is thinking..." came before each of its choices, so the
    # note before "play your secret card?" told seat 0 that seat 1's hidden hand holds such a
    # card even when it was passed: the note comes only where nobody learns more from it
    rules = tmp_path / "declines.vbr"
    rules.write_text(DECLINES, encoding="utf-8")
    game = vbr.load(rules, engine="python")
    out = io.StringIO()
    s = Session(game, 3, (0,), [None, "mcts:iterations=4"], out, io.StringIO("1\n"), terminal=True)
    assert s.play().finished
    asked = [e["prompt"] for e in s.state.log if e["t"] == "choice" and e["seat"] == 1]
    assert asked == ["play your secret card?", "take the table's card?", "touch the table's card"]
    assert "is thinking" not in out.getvalue()  # the third has one option: taken at once, no note


@pytest.mark.parametrize("engine", ["python", "c"])
def test_siatka_never_shows_that_the_other_seat_declined_a_tactic_card_it_holds(engine):
    # rules/siatka.vbr asks "Rozegranie: roll again?" and the like only of a holder whose hidden
    # hand holds that card; in this game (seed 1) seat 1's random agent declines such choices
    game = vbr.load("siatka", engine=engine)
    s, result, out = session(game, "1\n" * 400, seed=1)
    assert result.finished
    declined = [e for e in s.state.log if e["t"] == "choice" and e["seat"] == 1 and e["action"] == "pass"]
    assert declined and all(e["prompt"].split(":")[0] in ("Rozegranie", "Mocne odbicie", "Atak z zaskoczenia",
                                                         "Superatak") for e in declined)
    assert not re.search(r"^ +seat 1: .* -> pass$", out, re.M)


@given(st.text(alphabet=st.sampled_from("ab cd\u00e9\u4e2d\u0301-"), max_size=300))
def test_wrapped_lines_never_pass_80_columns(text):
    for line in wrap(text, first="  ", rest="    "):
        assert width(line) <= WIDTH
    assert width(truncate(text, 10)) <= 10


def test_wide_characters_count_two_columns():
    assert width("\u4e2d\u6587") == 4 and width("e\u0301") == 1


# ------------------------------------------------------------------------------- the loop
def test_bad_entries_are_asked_again_with_a_hint_and_question_mark_shows_the_choices(tmp_path):
    game = vbr.load("siatka", engine="python")
    log = tmp_path / "game.jsonl"
    _, result, out = session(game, "\nabc\n0\n7\n?\n1\nq\n", log=log)
    assert "type a number from 1 to 6 and Enter" in out
    assert "'abc' is not a number: type 1 to 6" in out
    assert "0 is not a choice: type 1 to 6" in out and "7 is not a choice: type 1 to 6" in out
    assert out.count("> which tile stands on the next field") == 3  # the screen, ?, the next screen
    assert not result.finished and result.choices == 1
    r = replay(log)
    assert r.ok, r.message

@pytest.mark.parametrize("word", ["help", "h", "HELP"])
def test_help_and_h_show_the_choices_and_keys_as_question_mark_does(word):
    # a person asks for help in words too (docs/play.md, Keys); it said "'help' is not a number"
    game = vbr.load("siatka", engine="python")
    _, result, out = session(game, f"{word}\nq\n")
    assert "is not a number" not in out and "keys: a number and Enter chooses" in out
    assert out.count("> which tile stands on the next field") == 2 and result.choices == 0


ALIKE = """game "Alike"
seats 2
kind Coin { value: int }
zone hand per seat owner
setup { create Coin(value: 1) in hand[0] times 3 }
start play
phase play {
  choose c from hand[0] by 0 as "which coin"
  end winner 0
}
"""


@pytest.mark.parametrize("agents, event", [
    ([None, "random"], "  you (seat 0): which coin -> #0 Coin(value=1)\n"),  # the first of them
    ([None, "human"], "  seat 0: which coin -> (hidden)\n"),  # the end, for both: seat 1 may not see hand[0]
], ids=["one-person", "hot-seat"])
def test_a_choice_among_cards_alike_is_made_for_the_person_as_an_only_option_is(tmp_path, agents, event):
    # three coins alike in all but their id are one offer (`×3`): asking "your choice (1-1" is
    # asking nothing (Tanto Cuore asked it over two equal attack cards, and `2` was "not a choice")
    path = tmp_path / "alike.vbr"
    path.write_text(ALIKE, encoding="utf-8")
    game = vbr.load(str(path), engine="python")
    _, result, out = session(game, "", agents=agents)
    assert result.finished and result.choices == 1
    assert "your choice (1-1" not in out and "press Enter" not in out
    assert event in out


MANY = """game "Many"
seats 2
var total: int = 0
start play
phase play {
  choose k from 1..40 by 0 as "pick a number"
  total += k
  end winner 0
}
"""


def test_forty_short_choices_stand_in_columns_so_the_question_stays_on_the_screen(tmp_path):
    # one a line, forty choices pushed the board and the question off a 24-line screen
    path = tmp_path / "many.vbr"
    path.write_text(MANY, encoding="utf-8")
    game = vbr.load(str(path), engine="python")
    _, result, out = session(game, "37\n")
    decision = out[out.index("== Many"):out.index("your choice (1-40,")].rstrip("\n").split("\n")
    assert len(decision) + 1 <= HEIGHT and max(width(x) for x in decision) <= WIDTH
    assert decision[2] == "> pick a number"
    for k in range(1, 41):
        assert sum(len(re.findall(rf"(?<!\d){k}\) {k}(?!\d)", x)) for x in decision) == 1, k
    assert decision[3].split() == ["1)", "1", "6)", "6", "11)", "11", "16)", "16", "21)", "21", "26)", "26",
                                   "31)", "31", "36)", "36"]  # numbered down each column
    assert result.finished and "  you (seat 0): pick a number -> 37" in out


def test_a_signed_number_is_no_choice_and_a_digit_of_another_script_no_number(tmp_path):
    # `-1` and `+9` are numbers, just not among the choices 1 to 6 (it said "'-1' is not a number");
    # `²` is a digit to str.isdigit but no number to type (it ended the game: int() refused it).
    game = vbr.load("siatka", engine="python")
    _, result, out = session(game, "-1\n+9\n\u00b2\n1\nq\n", log=tmp_path / "g.jsonl")
    assert "-1 is not a choice: type 1 to 6" in out and "9 is not a choice: type 1 to 6" in out
    assert "'\u00b2' is not a number: type 1 to 6" in out
    assert result.choices == 1


def test_a_control_character_typed_is_repeated_as_backslash_x_once():
    # the hint showed `'\\x1b[31mabc'` (repr of the cleaned text doubled its backslash)
    game = vbr.load("siatka", engine="python")
    _, _, out = session(game, "\x1b[31mabc\n\x07\nq\n")
    assert "'\\x1b[31mabc' is not a number: type 1 to 6" in out
    assert "'\\x07' is not a number: type 1 to 6" in out
    assert "\x1b" not in out and "\x07" not in out and "\\\\x" not in out


def test_a_number_of_thousands_of_digits_is_no_choice_and_its_hint_stays_short(tmp_path):
    # 5000 nines is a number, just not one of 1 to 6: it ended the game ("Exceeds the limit (4300
    # digits) for integer string conversion"), and a long number echoed whole fills the screen.
    game = vbr.load("siatka", engine="python")
    _, result, out = session(game, "9" * 5000 + "\n" + "0" * 4999 + "2\n", log=tmp_path / "g.jsonl")
    hint = next(line for line in out.splitlines() if "is not a choice" in line).rpartition("leave): ")[2]
    assert hint.endswith("is not a choice: type 1 to 6 (? shows the choices)") and len(hint) <= WIDTH
    assert "'99999999999999999999...'" in hint
    assert result.choices == 1  # the leading zeros of 000...02 do not make it another number than 2


@pytest.mark.parametrize("answers", ["1\n2\nq\n", "1\n2\n", "1\n2\nQuit\n"])
def test_leaving_with_q_or_at_the_end_of_input_writes_a_log_that_replays(tmp_path, answers):
    game = vbr.load("siatka", engine="python")
    log = tmp_path / "left.jsonl"
    _, result, _ = session(game, answers, log=log)
    assert not result.finished and result.choices == 2
    head = json.loads(log.read_text().splitlines()[0])
    assert head["agents"] == ["human", "random"] and head["seed"] == 3
    r = replay(log)
    assert r.ok, r.message


def test_a_whole_game_answering_1_ends_with_the_result_and_a_log_that_replays(tmp_path):
    game = vbr.load("siatka", engine="python")
    log = tmp_path / "whole.jsonl"
    s, result, out = session(game, "1\n" * 2000, log=log)
    assert result.finished
    assert re.search(r"^result: seat [01] wins \(\d+, \d+\) after \d+ choices: you (won|lost)$", out, re.M)
    r = replay(log)
    assert r.ok and r.outcome == s.state.outcome()
    again = tmp_path / "again.jsonl"
    session(game, "1\n" * 2000, log=again)
    assert again.read_text() == log.read_text()  # the same seed and answers play the same game


@pytest.mark.parametrize("agents", [[None, "random"], [None, "human"]], ids=["one-person", "hot-seat"])
def test_a_game_of_one_choice_ends_after_1_choice_not_1_choices(agents):
    # tests/fixtures/tune/counted.vbr: seat 0 makes `rounds` choices (1 by default) with one option, then wins
    game = vbr.load(str(ROOT / "tests" / "fixtures" / "tune" / "counted.vbr"), engine="python")
    _, result, out = session(game, "", agents=agents)
    assert result.finished and result.choices == 1
    assert re.search(r"^result: seat 0 wins after 1 choice(: you won)?$", out, re.M), out


def test_a_team_is_played_seat_by_seat_each_with_its_own_view(tmp_path):
    game = vbr.load("cattack", engine="python")  # 4 players: red 0 2, blue 1 3
    log = tmp_path / "team.jsonl"
    _, result, out = session(game, "1\n" * 3000, seed=2, seats=(1, 3), log=log)
    assert result.finished
    assert "you: seat 1 of team blue" in out and "you: seat 3 of team blue" in out
    assert json.loads(log.read_text().splitlines()[0])["agents"] == ["random", "human", "random", "human"]
    assert replay(log).ok


def test_hot_seat_hands_over_between_people_each_shown_only_their_own_view(tmp_path):
    # `--agents human`: seat 1 is another person at this terminal. Each stretch of output after
    # "seat N, press Enter" is seat N's alone: its headers, its hand; the other hand only counted.
    game = vbr.load("siatka", engine="python")
    log = tmp_path / "hot.jsonl"
    _, result, out = session(game, "1\n" * 3000, seed=7, agents=[None, "human"], log=log)
    assert result.finished
    parts = re.split(r"^seat ([01]), press Enter to see your screen \(q leaves\): ", out, flags=re.M)
    turns = list(zip(parts[1::2], parts[2::2]))
    assert {seat for seat, _ in turns} == {"0", "1"}
    assert all(a != b for (a, _), (b, _) in zip(turns, turns[1:]))  # a hand-over only between people
    for seat, text in turns:
        text = text.split("\n" + "-" * 40)[0]  # a line marks each hand-over (a terminal is cleared)
        other = 1 - int(seat)
        assert f"| you: seat {other} |" not in text and f"hand[{other}] (yours)" not in text
        assert re.search(rf"\| you: seat {seat} \|", text) and f"hand[{seat}] (yours)" in text
        assert re.search(rf"hidden \(how many\):.* hand\[{other}\] \d", text)
    end = out.rpartition("-" * 40)[2]  # the end of the game, for both
    assert "(yours)" not in end and "you (seat" not in end.split("game over")[0]
    assert re.search(r"^result: seat [01] wins \(\d+, \d+\) after \d+ choices$", end, re.M)
    assert json.loads(log.read_text().splitlines()[0])["agents"] == ["human", "human"]
    assert replay(log).ok


def test_hot_seat_end_lists_the_public_zones_and_each_hand_only_as_a_count():
    # Siatka's hands are seen by their owner only, its discard piles by everyone (rules/siatka.vbr's
    # zones): at the end, shown to both people at once, each discard pile is listed card by card
    # and each hand is only counted, none of its cards named.
    game = vbr.load("siatka", engine="python")
    s, result, out = session(game, "1\n" * 3000, seed=7, agents=[None, "human"])
    assert result.finished
    end = out.rpartition("-" * 40)[2].split("game over")[1]
    for seat in (0, 1):
        assert re.search(rf"hidden \(how many\):.* hand\[{seat}\] {len(ids_in(s.state.state, f'hand[{seat}]'))}\b", end)
        assert not any(shows(end, i) for i in ids_in(s.state.state, f"hand[{seat}]"))
        pile = ids_in(s.state.state, f"discard[{seat}]")
        assert pile and all(shows(end, i) for i in pile)
    assert "(yours)" not in end


@pytest.mark.parametrize("answer", ["q\n", ""], ids=["q", "end-of-input"])
def test_hot_seat_leaving_at_the_hand_over_writes_the_log(tmp_path, answer):
    game = vbr.load("siatka", engine="python")
    log = tmp_path / "hot.jsonl"
    _, result, out = session(game, "\n" + "1\n" * 5 + answer, seed=7, agents=[None, "human"], log=log)
    assert out.rstrip().endswith("seat 1, press Enter to see your screen (q leaves):")
    assert not result.finished and result.choices == 6  # seat 0 placed six tiles, the last its only option
    assert replay(log).ok


def test_colour_only_when_asked_for(tmp_path):
    game = vbr.load("siatka", engine="python")
    assert "\x1b[" not in session(game, "q\n")[2]
    out = session(game, "q\n", colour=True)[2]
    assert "\x1b[1;7m== Siatka" in out
    line = [("a", "ball"), ("b", None)]
    assert styled(line) == "\x1b[1;33ma\x1b[0mb" and plain(line) == "ab"


def test_a_rule_files_control_characters_never_reach_the_terminal(tmp_path):
    esc, bel = "\x1b", "\x07"
    rules = tmp_path / "evil.vbr"
    rules.write_text(f'''game "Evil{esc}]0;pwned{bel}"
seats 2
start p
var score: int per seat = 0
points score
zone hand per seat owner
kind Card {{ name: int }}
setup {{
  create Card(name: 1) in hand[0]
  create Card(name: 2) in hand[0]
}}
phase p "Serve{esc}[2J" {{
  choose c from ["x{esc}[31m", "y"] by 0 as "pick{esc}]52;c;aGVsbG8={bel}"
  choose k from hand[0] by 0 as "card{esc}[1m"
  say "hello{esc}[2J\x9b"
  score[0] += 1
  end winner 0
}}
''', encoding="utf-8")
    game = vbr.load(str(rules), engine="python")
    _, result, out = session(game, "1\n1\n", colour=True)
    assert result.finished
    styled_out = re.sub(r"\x1b\[[0-9;]*m", "", out)  # our own colour codes, nothing else
    assert not RAW.search(styled_out.replace("\n", "")), repr(styled_out)
    assert "pick\\x1b]52;c;aGVsbG8=\\x07" in out and "hello\\x1b[2J\\x9b" in out


# ------------------------------------------------------------------------------- the command
class FakeTty(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("no_color,coloured", [(None, True), ("1", False), ("", True)])
def test_no_color_turns_colour_off_on_a_terminal(monkeypatch, no_color, coloured):
    out = FakeTty()
    monkeypatch.setattr("sys.stdout", out)
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    if no_color is None:
        monkeypatch.delenv("NO_COLOR", raising=False)
    else:
        monkeypatch.setenv("NO_COLOR", no_color)
    assert main(["play", "siatka", "--seed", "1"]) == 0
    assert ("\x1b[" in out.getvalue()) == coloured
    assert "You left the game after 0 choices." in out.getvalue()


def test_not_a_terminal_no_colour(monkeypatch, capsys):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    assert main(["play", "siatka"]) == 0
    assert "\x1b" not in capsys.readouterr().out


@pytest.mark.parametrize("argv,message", [
    (["siatka", "--seat", "5"], "vbr: error: --seat 5: no such seat; Siatka has seats 0 and 1"),
    (["siatka", "--seat", "-1"], "vbr: error: --seat -1: no such seat; Siatka has seats 0 and 1"),
    (["volleyball-high", "--option", "mode=solo", "--seat", "1"],
     "vbr: error: --seat 1: no such seat; Volleyball High has one seat, 0"),
    (["siatka", "--agents", "bogus"], "vbr: error: --agents: unknown agent 'bogus'"),
    (["siatka", "--agents", "bogus"], "vbr: error: --agents: unknown agent 'bogus' (agents: random, first, greedy, "
                                      "mcts); or human, another person at this terminal\n"),
    (["siatka", "--agents", "mcts:iterations=0"],
     "vbr: error: --agents: mcts: iterations must be an integer from 1 to 1000000, not '0'\n"),
    (["siatka", "--agents", "human,human"], "vbr: error: --agents human,human: 2 agents for 1 other seat (seat 1)"),
    (["siatka", "--agents", "random,greedy"], "vbr: error: --agents random,greedy: 2 agents for 1 other seat (seat 1)"),
    (["siatka", "--agents", "mcts:nope=1"], "vbr: error: --agents: mcts: unknown parameter 'nope'"),
    (["siatka", "--log", "/no/such/folder/x.jsonl"], "vbr: error: --log /no/such/folder/x.jsonl: the folder"),
])
def test_bad_seats_agents_and_logs_are_usage_errors(monkeypatch, capsys, argv, message):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", *argv]) == 2
    out, err = capsys.readouterr()
    assert err.startswith(message) and out == ""



@pytest.mark.parametrize("agents, given", [
    ("human:x=1", "x=1"),  # parameters after a colon
    ("mcts:iterations=5,human,c=2", "c=2"),  # a parameter after `human` belongs to it, not to mcts
])
def test_parameters_given_to_human_are_a_usage_error_that_names_human(monkeypatch, capsys, agents, given):
    # `human` is another person at this terminal: it takes no parameters (docs/play.md). The error
    # says so of `human`, which the person typed, never of an agent they did not name.
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", "cattack", "--agents", agents]) == 2
    out, err = capsys.readouterr()
    assert err == f"vbr: error: --agents: human (another person at this terminal) takes no parameters, not '{given}'\n"
    assert out == "" and "first" not in err


# Seat 0 chooses a card from `zone` (its own hand, which it sees, or seat 1's, which it does not)
# and puts it face down into a deck nobody sees; then a second choice, so that the first shows
# among the events after it was made.
FACE_DOWN = '''game "Face down"
seats 2
kind Card { value: int }
zone hand per seat owner
zone deck per seat hidden
start p
setup {
  for s in seats {
    create Card(value: 1) in hand[s]
    create Card(value: 2) in hand[s]
  }
}
phase p {
  choose c from ZONE by 0 as "which card goes face down"
  move c to deck[0]
  choose d from [1, 2] by 0 as "go on"
  end winner 0
}
'''


@pytest.mark.parametrize("zone, shown", [
    ("hand[0]", "you (seat 0): which card goes face down -> #1 Card(value=2)"),  # yours: you saw it as you chose
    ("hand[1]", "you (seat 0): which card goes face down -> (hidden)"),  # chosen blind: never named
])
def test_your_own_choice_names_the_card_you_saw_even_once_it_is_face_down(tmp_path, monkeypatch, capsys, zone, shown):
    rules = tmp_path / "face_down.vbr"
    rules.write_text(FACE_DOWN.replace("ZONE", zone))
    monkeypatch.setattr("sys.stdin", io.StringIO("2\n1\n"))  # the second card (#1 in hand[0]), then go on
    assert main(["play", str(rules)]) == 0
    assert shown in capsys.readouterr().out


@pytest.mark.parametrize("options, sides", [
    ([], ("team red", "team blue")),  # cattack.vbr: seats 4 teams { red: 0 2 blue: 1 3 }
    (["--option", "players=2"], ("seat 0", "seat 1")),  # seats 2: each team one seat, drawn as `seat N`
])
def test_the_result_names_the_winning_side_as_the_board_does(monkeypatch, capsys, options, sides):
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 600))  # always the first choice, to the end
    assert main(["play", "cattack", *options, "--seed", "3"]) == 0
    out = capsys.readouterr().out
    m = re.search(r"^result: (.+) wins \(\d+, \d+\) after \d+ choices: you (won|lost)$", out, re.M)
    assert m and m.group(1) in sides, out[-300:]
    assert (m.group(2) == "won") == (m.group(1) == sides[0])  # you play seat 0, of the first side

def test_the_closure_engine_is_a_usage_error_before_any_game(monkeypatch, capsys):
    """vbr play plays through the typed engines only (auto, c, python)."""
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    assert main(["play", "siatka", "--engine", "closure"]) == 2
    out, err = capsys.readouterr()
    assert "closure" in err and "you play" not in out


def test_other_agents_may_be_given_one_per_other_seat(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    log = tmp_path / "x.jsonl"
    assert main(["play", "cattack", "--seat", "0", "--agents", "greedy,first", "--log", str(log)]) == 0
    assert json.loads(log.read_text().splitlines()[0])["agents"] == ["human", "greedy", "human", "first"]
    assert "you play seats 0 and 2, against seat 1 greedy, seat 3 first" in capsys.readouterr().out.replace("\n    ", " ")


@pytest.mark.parametrize("agents, seats", [
    ("human", ["human", "human", "human", "human"]),
    ("greedy,human", ["human", "greedy", "human", "human"]),
    ("mcts:iterations=5,c=1,human", ["human", "mcts:c=1,iterations=5", "human", "human"]),
])
def test_human_among_the_agents_seats_another_person_at_this_terminal(tmp_path, monkeypatch, capsys, agents, seats):
    # `human` is no agent: the seats it names are played at the terminal (docs/play.md, Hot seat);
    # a parameter list before it stays with its own agent.
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    log = tmp_path / "x.jsonl"
    assert main(["play", "cattack", "--agents", agents, "--log", str(log)]) == 0
    assert json.loads(log.read_text().splitlines()[0])["agents"] == seats
    out = capsys.readouterr().out.replace("\n    ", " ")
    assert "seat 3 human (hot seat)" in out
    assert re.search(r"^(seats 0 and 2|seats? [13](?: and 3)?) to play: hand the terminal to \1\.$", out, re.M)


def _deep_into(name, options, seed, until):
    game = vbr.load(name, options, engine="python")
    state = game.new_state(seed)
    while not state.is_terminal() and not until(state):
        state.apply_index(1 % len(state.options()))
    assert not state.is_terminal()
    return game, state


def test_a_long_pile_of_another_seat_is_cut_to_its_latest_and_z_shows_it_whole():
    game, state = _deep_into("tanto-cuore-beach-volleyball", {}, 1,
                             lambda s: len(ids_in(s, "discard[0]")) > 12 and s.current_player() == 1)
    sc = screen_of(game, state, 1)
    pile = ids_in(state, "discard[0]")
    short, whole = text_of(sc.zone_lines()), text_of(sc.zone_lines(full=True))
    assert re.search(r"^discard\[0\]: Card\(maid/cat/title/value/tossed\) \.\.\. \d+ more,", short, re.M)
    assert shows(short, pile[-1]) and not shows(short, pile[0])  # the latest kept
    assert all(shows(whole, i) for i in pile)
    for i in ids_in(state, "hand[1]"):  # the seat's own zones are never cut
        assert shows(short, i)


def test_long_card_choices_name_the_fields_once():
    game, state = _deep_into("volleyball-high", {}, 1, lambda s: prompt(s).startswith("line-up"))
    lines = [plain(x) for x in screen_of(game, state).choice_lines()]
    assert lines[1].strip() == "Member(side/name/is_star/spec1/spec2/red/field/down):"
    assert re.match(r"^  1\) #\d+ Member\(0/\w+/", lines[2])
    assert all(width(x) <= WIDTH for x in lines)


def test_question_mark_and_z(tmp_path):
    game = vbr.load("siatka", engine="python")
    _, _, out = session(game, "?\nz\nq\n")
    assert "keys: a number and Enter chooses, ? the choices, z every zone in full, q leaves" in out
    assert out.count("== Siatka |") == 2  # the screen, and z's whole board


def test_the_help_and_the_first_lines_of_play_name_every_key_z_too(monkeypatch, capsys):
    # docs/play.md, Keys: a number, ?, z and q; z was in neither, so a player found it only in the docs
    assert main(["play", "--help"]) == 0
    assert "z to see every zone in full" in " ".join(capsys.readouterr().out.split())
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    assert main(["play", "siatka"]) == 0
    out = capsys.readouterr().out
    assert ("Type a choice's number and Enter; ? shows the choices again, z every zone in full, q or Ctrl-D leaves."
            in " ".join(out.split())) and max(len(line) for line in out.split("\n")) <= 80


def test_the_screen_shows_the_vars_a_player_plays_with_not_the_files_measures(tmp_path):
    # a measure is a figure for reports that play never reads: `measure rallies=1` was shown
    f = tmp_path / "m.vbr"
    f.write_text('game "M"\nseats 2\nvar turn: int = 0\nmeasure rallies: int\nstart p\nphase p {\n'
                 '  measure rallies += 1\n  turn += 1\n  choose c from [1, 2] by 0\n  end draw\n}\n')
    game = vbr.load(f, engine="python")
    state = game.new_state(0)
    text = text_of(screen_of(game, state).var_lines())
    assert "turn=1" in text and "rallies" not in text


@pytest.mark.parametrize("engine,sig", [("python", "SIGHUP"), ("c", "SIGTERM")])
def test_play_stopped_by_a_closed_terminal_or_a_kill_writes_its_log_and_exits_with_the_signal(tmp_path, engine, sig):
    # the person answers the first question, and play waits on the next when the signal comes
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path
    log = tmp_path / "play.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "vbr", "play", "docs/tutorial/bump.vbr", "--engine", engine,
                             "--log", str(log)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parent.parent,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    proc.stdin.write("1\n")
    proc.stdin.flush()
    while "seat 0" not in proc.stdout.readline():  # the first answer shown: the next question is asked
        pass
    time.sleep(0.5)
    proc.send_signal(getattr(signal, sig))
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + getattr(signal, sig)
    assert err == f"vbr: interrupted; the game was left, log written to {log}\n"
    replay = subprocess.run([sys.executable, "-m", "vbr", "replay", str(log)], capture_output=True, text=True,
                            timeout=120)
    assert replay.returncode == 0 and "the game was left unfinished, seat 0 to choose" in replay.stdout


def test_a_game_stopped_by_an_error_in_the_rules_says_where_its_log_went(tmp_path, monkeypatch, capsys):
    # the person's answer 2 makes n 4, and `end winner 7` names no seat of two: an error at line 8,
    # after which the log holds the play up to it, as `vbr run --log` says of its own
    rules = tmp_path / "late.vbr"
    rules.write_text('game "Late"\nseats 2\nvar n: int = 0\nstart turn\nphase turn {\n  choose x from 1..2 by 0\n'
                     '  n += 2 * x\n  if n > 3 {\n    end winner 7\n  }\n  goto turn\n}\n')
    log = tmp_path / "late.jsonl"
    monkeypatch.setattr("sys.stdin", io.StringIO("2\n"))
    assert main(["play", str(rules), "--engine", "python", "--log", str(log)]) == 1
    out, err = capsys.readouterr()
    assert out.rstrip().endswith(f"log written to {log} (up to the error)")
    assert "late.vbr:9:" in err and "no such seat" in err
    last = json.loads(log.read_text().splitlines()[-1])  # the log ends with the error, where it stood
    assert (last["t"], last["line"], last["col"]) == ("error", 9, 5)
    assert replay(log).message.endswith("reproduces exactly up to this error in the rules (3 events)")


def test_a_drawn_game_says_draw_once(tmp_path, monkeypatch, capsys):
    # `end draw`: the result line said "draw after 1 choice: a draw"
    rules = tmp_path / "even.vbr"
    rules.write_text('game "Even"\nseats 2\nstart turn\nphase turn {\n  choose x from 1..2 by 0\n  end draw\n}\n')
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n"))
    assert main(["play", str(rules), "--engine", "python"]) == 0
    out, _ = capsys.readouterr()
    [line] = [x for x in out.splitlines() if x.startswith("result:")]
    assert line == "result: draw after 1 choice"


OUT_OF_ORDER = """game "Crossed"
seats 2 teams { north: 1  south: 0 }
points score
var score: int per team = 0
start p
phase p {
  choose x from [1, 2] by 0 as "which"
  score[0] += x
  end winner team 0
}
"""


def test_one_seat_teams_listed_out_of_seat_order_are_named_by_team_in_play(tmp_path):
    # team north is seat 1 (docs/language.md, `teams`: numbered in the order written), and the
    # points (1, 0) are in team order: north's win read `seat 1 wins (1, 0)`, as if the point were
    # seat 0's; the board now names the sides by team, as vbr sim does (Game.by_team)
    rules = tmp_path / "crossed.vbr"
    rules.write_text(OUT_OF_ORDER, encoding="utf-8")
    game = vbr.load(rules, engine="python")
    _, result, out = session(game, "1\n", seats=(0,), agents=[None, "random"])
    assert result.finished
    assert out.rstrip().splitlines()[-1] == "result: team north wins (1, 0) after 1 choice: you lost"
