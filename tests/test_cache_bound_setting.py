"""docs/cli.md, `vbr cache`: a $VBR_C_CACHE_MB that is not a whole number stops `--engine c` with
`vbr: error: the C engine cannot run here: VBR_C_CACHE_MB='1G' is not a whole number of
megabytes`, and `--engine auto` plays through python with a note, whether or not the rule file's
C build is already in the cache."""
import os
import subprocess
import sys

MESSAGE = "VBR_C_CACHE_MB='1G' is not a whole number of megabytes"
RULES = 'game "Coin"\nseats 2\nstart p\nphase p {\n  end winner 0\n}\n'


def _vbr(folder, *argv, **env):
    return subprocess.run([sys.executable, "-m", "vbr", *argv], cwd=folder, capture_output=True, text=True,
                          env={**os.environ, "XDG_CACHE_HOME": str(folder / "cache"), **env}, timeout=300)


def test_a_bad_cache_bound_is_refused_also_when_the_build_is_cached(tmp_path):
    # with the build cached, `--engine c` played on and said nothing of the setting
    (tmp_path / "coin.vbr").write_text(RULES, encoding="utf-8")
    assert _vbr(tmp_path, "run", "coin.vbr", "--quiet", "--engine", "c").returncode == 0  # built, and cached
    refused = _vbr(tmp_path, "run", "coin.vbr", "--quiet", "--engine", "c", VBR_C_CACHE_MB="1G")
    assert refused.returncode == 1
    assert f"vbr: error: the C engine cannot run here: {MESSAGE}" in refused.stderr
    auto = _vbr(tmp_path, "run", "coin.vbr", "--quiet", VBR_C_CACHE_MB="1G")
    assert auto.returncode == 0
    assert f"the C engine cannot run here ({MESSAGE}); playing through the python engine" in auto.stderr
    assert auto.stdout.splitlines()[0] == "result: seat 0 wins after 0 choices"
