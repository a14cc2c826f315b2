"""`CC` is untrusted input: whatever program it names, and whatever that program does, vbr gives
the one-line error "the C engine cannot run here: ..." under `--engine c` (exit 1), and under
`--engine auto` plays through the python engine after a one-line note (vbr/engines/c_engine.py):
never a traceback, a hang, or a stray OSError that stops a sweep. CC may also name a compiler the
way a shell does, by a name looked up on PATH (CC=gcc)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BUMP = ROOT / "docs" / "tutorial" / "bump.vbr"
HANG_GUARD = 300
CANNOT = "vbr: error: the C engine cannot run here: "

# fake compilers: each answers --version, then does one odd thing with the build's `-o FILE`
WRITES_OUT = 'while [ $# -gt 0 ]; do if [ "$1" = "-o" ]; then shift; {make} "$1"; fi; shift; done\nexit 0\n'
FAKES = {
    "garbage": ('printf "\\377\\376not utf-8\\033[31m\\n"\nexit 0\n',
                "the C compiler `{cc}` exited 0 but wrote no library"),
    "silent_success": ("exit 0\n", "the C compiler `{cc}` exited 0 but wrote no library"),
    "fifo": (WRITES_OUT.format(make="mkfifo"),
             "the C compiler `{cc}` exited 0 but left no regular file as its library"),
    "folder": (WRITES_OUT.format(make="mkdir"),
               "the C compiler `{cc}` exited 0 but left no regular file as its library"),
    "junk": (WRITES_OUT.format(make="printf 'junk' >"), "the library the C compiler `{cc}` built cannot be loaded ("),
}


def vbr_cli(*argv, env):
    return subprocess.run([sys.executable, "-m", "vbr", *map(str, argv)], capture_output=True, text=True,
                          cwd=ROOT, timeout=HANG_GUARD, env={**os.environ, "PYTHONPATH": str(ROOT), **env})


def fake_compiler(tmp_path: Path, name: str) -> str:
    cc = tmp_path / name
    cc.write_text("#!/bin/sh\n" + FAKES[name][0])
    cc.chmod(0o755)
    return str(cc)


@pytest.mark.parametrize("name", sorted(FAKES))
def test_a_compiler_that_builds_no_usable_library_is_the_one_line_c_engine_error(tmp_path, name):
    cc = fake_compiler(tmp_path, name)
    done = vbr_cli("run", BUMP, "--engine", "c", env={"CC": cc, "XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert done.returncode == 1 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(CANNOT + FAKES[name][1].format(cc=cc))


def test_a_sweep_under_auto_plays_in_python_when_the_compiler_writes_junk(tmp_path):
    # a search agent takes C; the library cannot be loaded, so every combination plays in python
    cc = fake_compiler(tmp_path, "junk")
    env = {"CC": cc, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    done = vbr_cli("sweep", BUMP, "--grid", "target=3,4", "-n", 2, "--agents", "mcts:iterations=2", "--json",
                   env=env)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("vbr: --engine auto: the C engine cannot run here (the library the C compiler")
    assert len(done.stderr.splitlines()) == 1


def test_cc_naming_a_compiler_on_path_builds_and_plays(tmp_path):
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        pytest.fail("the C engine's tests need gcc or cc on PATH")
    done = vbr_cli("run", BUMP, "--engine", "c", "--seed", 1,
                   env={"CC": os.path.basename(gcc), "XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert done.returncode == 0, done.stderr
    assert "engine c" in done.stdout.splitlines()[0]


def test_a_compiler_that_sleeps_is_stopped_once_it_has_used_no_cpu_for_the_idle_bound(tmp_path, monkeypatch):
    # it answers --version, then sleeps where it should compile: no CPU, so it hangs, and the build
    # stops at BUILD_IDLE seconds (1 here, 60 by default), not at the 900 s of wall clock
    from vbr.engines import c_engine
    cc = tmp_path / "sleeper"
    cc.write_text('#!/bin/sh\nif [ "$1" = "--version" ]; then echo sleeper 1; exit 0; fi\nexec sleep 600\n')
    cc.chmod(0o755)
    monkeypatch.setenv("CC", str(cc))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(c_engine, "BUILD_IDLE", 1)
    with pytest.raises(c_engine.CEngineUnavailable) as stopped:
        c_engine.build_library("int vbr_nothing;\n")
    assert str(stopped.value) == f"the C compiler `{cc}` used no CPU for 1 s: it seems to hang"
    assert not list((tmp_path / "cache" / "vbr" / "c").glob("vbr-*.so"))  # no library left


# a compiler that builds every game but the one whose C holds the number 7777 (an option's value)
PICKY = ('#!/bin/sh\nif [ "$1" = "--version" ]; then exec {cc} --version; fi\n'
         'for a in "$@"; do case "$a" in *.c) if grep -q 7777 "$a"; then echo "no 7777" >&2; exit 1; fi;; esac; done\n'
         'exec {cc} "$@"\n')
SEVENS = 'game "Sevens"\noption k = 1\nseats 2\nstart p\nphase p {\n  choose x from 1..2 by 0\n' \
         '  if x + k == 7779 { end winner 1 }\n  end winner 0\n}\n'


@pytest.mark.parametrize("engine", ["c", "auto"])
def test_a_sweep_whose_one_combination_does_not_build_names_it(tmp_path, engine):
    gcc = shutil.which("gcc") or shutil.which("cc")
    cc = tmp_path / "picky"
    cc.write_text(PICKY.format(cc=gcc))
    cc.chmod(0o755)
    rules = tmp_path / "sevens.vbr"
    rules.write_text(SEVENS)
    done = vbr_cli("sweep", rules, "--grid", "k=1,7777", "-n", 2, "--agents", "mcts:iterations=2", "--engine", engine,
                   "--json", env={"CC": str(cc), "XDG_CACHE_HOME": str(tmp_path / "cache")})
    if engine == "c":  # the sweep stops, saying which game would not build
        assert done.returncode == 1 and done.stdout == ""
        assert done.stderr == f"{CANNOT}the C compiler failed: no 7777 (the game under k=7777)\n"
    else:  # that game and those after it play in python, which a note says once
        assert done.returncode == 0, done.stderr
        assert done.stderr == ("vbr: --engine auto: the C engine cannot run here (the C compiler failed: no 7777; "
                               "the game under k=7777); playing through the python engine\n")
        assert [r["summary"]["engine"] for r in json.loads(done.stdout)["rows"]] == ["c", "python"]
