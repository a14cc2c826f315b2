"""A run changes the garbage collector's settings only while it plays (vbr.sim.collecting_less):
the process that called it gets them back as they were."""
import gc

from vbr.backends import LocalBackend
from vbr.sim import COLLECT_EVERY, RunSpec, run


def test_a_run_gives_back_the_collectors_thresholds_and_hides_nothing_from_it_after():
    before = gc.get_threshold()
    seen = []
    spec = RunSpec.of("rules/siatka.vbr", {}, 0, ["random", "random"], 5, engine="python")
    result = run(spec, LocalBackend(1), progress=lambda done, n: seen.append((gc.get_threshold()[0], gc.get_freeze_count())))
    assert len(result.trials) == 5
    assert seen[-1][0] == max(before[0], COLLECT_EVERY) and seen[-1][1] > 0  # while it played: fewer collections, the kept games hidden
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
