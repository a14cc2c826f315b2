"""The Ray backend on a real local Ray (two CPUs, started once for the file): the same trials as
the local backend, in submission order, and failures that arrive as vbr's own errors."""
import itertools
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT, RULES, one_worker_at_a_time
from vbr.backends import LocalBackend
from vbr.errors import UsageError
from vbr.ray_backend import NEEDS_RAY, RayBackend, _bundled_name, _play_chunk
from vbr.sim import GameFailed, RunSpec, play_range, run

SIATKA = RunSpec.of("siatka", {}, 3, ["random", "greedy"], 60)

# One roll of a d20 at the end of each game; a 20 divides by zero.
FRAGILE = """\
game "Fragile"
seats 2
start play

die d = 1..20
var mover: seat = 0
var walked: int = 0

phase play {
  choose step from 1..3 by mover as "how far"
  walked += step
  mover = other(mover)
  if walked >= 6 {
    let r = roll d
    let q = 12 / (r - 20)
    end winner mover
  }
  goto play
}
"""


@pytest.fixture(scope="module")
def ray_backend(tmp_path_factory):
    with one_worker_at_a_time("ray", tmp_path_factory), RayBackend(2) as backend:
        yield backend


def rows(result):
    return [t.to_row() for t in result.trials]


def test_trials_equal_the_local_backends_with_one_and_two_workers(ray_backend):
    on_ray = rows(run(SIATKA, ray_backend))
    assert len(on_ray) == 60
    assert on_ray == rows(run(SIATKA, LocalBackend(1)))
    assert on_ray == rows(run(SIATKA, LocalBackend(2)))


def test_games_come_back_one_by_one_in_the_order_their_chunks_were_sent(ray_backend):
    # the first chunk is the longest: the short ones behind it finish first
    chunks = [(0, 30)] + [(i, i + 1) for i in range(30, 40)]
    parts = list(ray_backend.map(SIATKA, chunks))
    assert [[t.index for t in p] for p in parts] == [[i] for i in range(40)]


def test_chunks_are_taken_no_more_than_workers_ahead(ray_backend):
    taken = 0

    def chunks():
        nonlocal taken
        for i in itertools.count():
            taken += 1
            yield i, i + 1

    results = ray_backend.map(SIATKA, chunks())
    first = list(itertools.islice(results, 3))
    results.close()
    assert [p[0].index for p in first] == [0, 1, 2]
    assert taken <= 3 + ray_backend.workers


def test_a_failing_game_reaches_the_caller_as_game_failed(ray_backend, tmp_path):
    path = tmp_path / "fragile.vbr"
    path.write_text(FRAGILE, encoding="utf-8")
    spec = RunSpec.of(path, {}, 2, ["random", "random"], 60)
    with pytest.raises(GameFailed) as local:
        run(spec, LocalBackend(1))
    assert local.value.index > 0
    with pytest.raises(GameFailed) as remote:
        run(spec, ray_backend)
    assert type(remote.value) is GameFailed
    assert (remote.value.index, remote.value.seed, remote.value.text) == (local.value.index, local.value.seed, local.value.text)


def test_a_rule_file_a_worker_cannot_read_is_a_usage_error_naming_it(ray_backend, tmp_path):
    spec = RunSpec.of(tmp_path / "nowhere.vbr", {}, 1, ["random", "random"], 1)
    with pytest.raises(UsageError, match="nowhere.vbr.*\n.*\n.*same path on every node"):
        list(ray_backend.map(spec, [(0, 1)]))


def test_workers_default_to_the_clusters_cpus_and_a_ray_in_use_is_left_running(ray_backend):
    import ray
    with RayBackend() as joined:
        assert joined.workers == 2
    assert ray.is_initialized()


def test_a_bundled_rule_file_is_found_by_its_name_where_its_path_is_missing():
    assert _bundled_name(str(RULES / "siatka.vbr")) == "siatka.vbr"
    assert _bundled_name(str(ROOT / "docs" / "tutorial" / "bump.vbr")) is None
    elsewhere = RunSpec.of("/no/such/install/siatka.vbr", {}, 3, ["random", "random"], 4)
    here = RunSpec.of(RULES / "siatka.vbr", {}, 3, ["random", "random"], 4)
    got = _play_chunk(elsewhere, 0, 4, os.getcwd(), "siatka.vbr")
    assert [t.to_row() for t in got] == [t.to_row() for t in play_range(here, 0, 4)]


def test_an_unreachable_address_is_a_usage_error_naming_it():
    # vbr looks for the address itself before Ray does (Ray alone retries for a minute or more)
    with pytest.raises(UsageError, match="cannot reach a Ray cluster at 127.0.0.1:1"):
        RayBackend(None, "127.0.0.1:1")


def test_an_address_that_is_not_host_and_port_is_a_usage_error():
    with pytest.raises(UsageError, match="auto or HOST:PORT"):
        RayBackend(None, "headnode")


def test_without_ray_the_error_says_how_to_install_it():
    script = textwrap.dedent("""
        import sys
        sys.modules["ray"] = None
        from vbr.backends import make_backend
        from vbr.errors import UsageError
        try:
            make_backend("ray", None)
        except UsageError as exc:
            print(exc)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.stdout.strip() == NEEDS_RAY == "the ray backend needs Ray: pip install 'vbr[ray]'"
