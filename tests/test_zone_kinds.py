"""Which kinds of thing each zone can hold (vbr.engines.zone_kinds), as the rule files put them
there: both engines read a zone item's field without testing its kind when the answer is one
kind."""
from __future__ import annotations

from pathlib import Path

import pytest

from vbr.engines.game import load
from vbr.engines.zone_kinds import zone_kinds
from vbr.errors import VbrRuntimeError

ROOT = Path(__file__).resolve().parent.parent

MIXED = """game "Mixed"
seats 2
start one
kind Coin { value: int }
kind Gem { shine: int }
zone pouch public
zone purse per seat public
zone chest public
zone vault public
zone safe public
phase one {
  create Gem(shine: 3) in pouch
  create Coin(value: 1) in pouch times 2
  create Coin(value: 5) in chest
  let x = top(pouch)
  move x to purse[0]
  stash(vault)
  lock(every(x for x in pouch))
  choose k from safe where k.value > 0 by 0
  end draw
}
proc lock(xs: list of Coin) {
  for x in xs {
    move x to safe
  }
}
proc stash(z: zone) {
  move top(chest) to z
}
"""


def _kinds_by_zone(path: Path) -> dict[str, set[str]]:
    program = load(path, {}, engine="python").program
    kinds = [k[0] for k in program.kinds]
    return {name: {kinds[k] for k in ks} for name, ks in zip(program.names.zones, zone_kinds(program))}


def test_siatka_tiles_and_cards_keep_to_their_zones():
    # [Setup] the tiles are made on the bench and placed on the court; the tactic cards are made in
    # the deck and drawn to the hand, played onto the discard pile.
    by_zone = _kinds_by_zone(ROOT / "rules" / "siatka.vbr")
    for zone, kinds in by_zone.items():
        assert kinds == ({"Tile"} if zone.startswith(("bench", "team")) else {"Card"}), zone


def test_cattack_cats_stay_in_the_cats_and_asleep_zones():
    # the cats are made in `cats`, fall asleep from its top onto `asleep` and wake back to `cats`;
    # every other zone holds coach cards only.
    by_zone = _kinds_by_zone(ROOT / "rules" / "cattack.vbr")
    for zone, kinds in by_zone.items():
        assert kinds == ({"Cat"} if zone in ("cats", "asleep") else {"Card"}), zone


def test_a_thing_taken_from_a_mixed_zone_may_be_of_either_kind(tmp_path):
    path = tmp_path / "mixed.vbr"
    path.write_text(MIXED)
    by_zone = _kinds_by_zone(path)
    assert by_zone["pouch"] == {"Coin", "Gem"}
    assert by_zone["purse[0]"] == {"Coin", "Gem"}  # x, the pouch's top, is a coin or a gem (here a coin)
    assert by_zone["purse[1]"] == set()  # nothing is put there
    assert by_zone["chest"] == {"Coin"}
    assert by_zone["vault"] == {"Coin"}  # stash's zone parameter is the vault at its one call
    assert by_zone["safe"] == {"Coin", "Gem"}  # lock is given the pouch's things, whatever its type says


def test_a_gem_given_as_a_coin_faults_at_its_field_in_both_engines(tmp_path):
    # lock's `list of Coin` is given the pouch's gem and coin: the safe holds a gem, and `.value`
    # of it is no Coin's, in the Python engine as in C (the safe's kinds are two: the read tests
    # the item's kind)
    path = tmp_path / "mixed.vbr"
    path.write_text(MIXED)
    messages = []
    for engine in ("python", "c"):
        with pytest.raises(VbrRuntimeError) as e:
            load(path, {}, engine=engine).new_state(0)
        messages.append(str(e.value))
    assert messages[0] == messages[1] and "which is no Coin" in messages[0]
