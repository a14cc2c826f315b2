"""A `vbr` stopped by a kill while its C engine builds stops the compiler with it (issue 35, goal
6: the build is vbr's to tidy): the compiler runs in a session of its own, so nothing else would
end it. Real processes: vbr, the system's C compiler, a SIGTERM."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _session_leaders(pids: list[int]) -> list[int]:
    """Those of `pids` that lead a process group of their own (a compile: vbr starts it in a
    session of its own), leaving out any that ended meanwhile (`cc --version`, asked first)."""
    found = []
    for pid in pids:
        try:
            if os.getpgid(pid) == pid:
                found.append(pid)
        except ProcessLookupError:
            pass
    return found


def _group_ends(pgid: int, within: float = 30) -> bool:
    """Whether every process of the group is gone (reaped) within `within` seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def test_a_sigterm_during_the_c_build_ends_the_compiler_and_vbr_exits_143(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    vbr = subprocess.Popen([sys.executable, "-m", "vbr", "run", "rules/volleyball-high.vbr", "--engine", "c",
                            "--quiet"], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120  # a hang guard: the compiler starts within seconds
        compilers = []
        while not compilers and time.monotonic() < deadline and vbr.poll() is None:
            compilers = _session_leaders(_children(vbr.pid))  # a session of its own: a kill of vbr alone misses it
            time.sleep(0.05)
        assert compilers, "vbr ended, or started no compiler in a session of its own, before it could be stopped"
        compiler = compilers[0]
        vbr.send_signal(signal.SIGTERM)
        _, err = vbr.communicate(timeout=60)
        assert vbr.returncode == 128 + signal.SIGTERM, err
        assert "interrupted" in err and "Traceback" not in err
        assert _group_ends(compiler)
    finally:
        if vbr.poll() is None:
            vbr.kill()
            vbr.communicate()
