"""An observation encoding is made once per game and shared by every environment of that game
(vbr.rl.observation.encoding), so environments played from several threads at once ask it for
the options' layout together the first time: each gets the whole layout, never half of it."""
from __future__ import annotations

import sys
import threading

import vbr
from vbr.rl.observation import Encoding, model_of


def test_threads_asking_a_new_encoding_for_option_features_at_once_each_get_them():
    game = vbr.load("siatka", engine="c")
    state = game.new_state(1)
    seat = state.current_player()
    alone = Encoding(model_of(game)).option_features(state, seat, 64)
    failed, differ = [], []
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads change hands as often as they can: the first use of each encoding overlaps
    try:
        for _ in range(300):
            shared = Encoding(model_of(game))
            together = threading.Barrier(3)

            def ask():
                together.wait()
                try:
                    got = shared.option_features(state, seat, 64)
                except Exception as exc:  # noqa: BLE001 - what a thread met is the finding
                    failed.append(f"{type(exc).__name__}: {exc}")
                else:
                    differ.extend([] if (got == alone).all() else ["other features"])

            threads = [threading.Thread(target=ask) for _ in range(3)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
    finally:
        sys.setswitchinterval(switch)
    assert failed == [] and differ == []
