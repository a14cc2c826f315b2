"""The C engine's build is bounded (issue 38, item 4): a long phase compiles in bounded memory and
plays as the Python engine does; past the compiler's memory bound, the generated source's bound
or the disk's space, `--engine c` stops with the reason and `--engine auto` plays on through the
python engine with a note. Each `vbr` runs as a process of its own under an address-space
bound, with a cache folder of its own (so the build happens), the times given only as hang guards."""
from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GB = 1 << 30


def _vbr(args, tmp_path, memory=3 * GB, env=None, timeout=900):
    """`vbr ARGS` in a process whose address space (and its compiler's) is at most `memory`."""
    def bounded():
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(tmp_path / "cache"), **(env or {})}
    return subprocess.run([sys.executable, "-m", "vbr", *map(str, args)], capture_output=True, text=True,
                          env=full_env, preexec_fn=bounded, timeout=timeout, cwd=ROOT)


def _long_phase(n: int) -> tuple[str, int]:
    """A valid rule file of n statements in one phase, and the seat that wins it: the phase
    works x and y out statement by statement, then seat (x + y) % 2 wins."""
    lines = ['game "Long phase"', "seats 2", "start play", "var x: int = 0", "var y: int = 0", "",
             'phase play "Play" {']
    x = y = 0
    for i in range(n):
        k = i % 4
        if k == 0:
            lines.append(f"  x = x + {i % 7 + 1}")
            x += i % 7 + 1
        elif k == 1:
            lines.append(f"  if x > {i} {{ y += 1 }}")
            y += x > i
        elif k == 2:
            lines.append(f"  y = (y + x * {i % 5 + 1}) % 1000")
            y = (y + x * (i % 5 + 1)) % 1000
        else:
            lines.append(f"  let a{i} = x + y")
    lines += ["  end winner (x + y) % 2", "}"]
    return "\n".join(lines) + "\n", (x + y) % 2


def test_a_phase_of_4000_statements_builds_in_bounded_memory_and_plays_as_the_python_engine(tmp_path):
    text, winner = _long_phase(4000)
    rules = tmp_path / "long_phase.vbr"
    rules.write_text(text)
    c = _vbr(["run", rules, "--engine", "c"], tmp_path)
    assert c.returncode == 0, c.stderr
    python = _vbr(["run", rules, "--engine", "python"], tmp_path)
    assert python.returncode == 0, python.stderr
    result = [line for line in c.stdout.splitlines() if line.startswith("result:")]
    assert result and f"seat {winner}" in result[0]
    assert result == [line for line in python.stdout.splitlines() if line.startswith("result:")]


def test_engine_c_stops_with_the_reason_when_the_compiler_passes_its_memory_bound(tmp_path):
    got = _vbr(["run", "rules/siatka.vbr", "--engine", "c"], tmp_path, env={"VBR_CC_MEMORY_MB": "60"})
    assert got.returncode == 1
    assert "the C compiler needed more than its 60 MB of memory" in got.stderr
    assert "Traceback" not in got.stderr


def test_engine_auto_plays_through_the_python_engine_with_a_note_when_the_compiler_passes_its_bound(tmp_path):
    got = _vbr(["run", "rules/siatka.vbr", "--engine", "auto"], tmp_path, env={"VBR_CC_MEMORY_MB": "60"})
    assert got.returncode == 0, got.stderr
    notes = [line for line in got.stderr.splitlines() if "needed more than its 60 MB" in line]
    assert len(notes) == 1 and notes[0].endswith("; playing through the python engine")
    assert "result:" in got.stdout and ", engine python" in got.stdout


def test_a_rule_file_whose_c_would_pass_the_source_bound_is_not_compiled(tmp_path):
    """2,500 choices, each about 1,000 characters of C: over 2,000,000. (A fn written out at
    each of 1,500 calls was the recipe until light fns past 20,000 nodes a unit were called.)"""
    lines = ['game "Heavy"', "seats 2", "start play", 'phase play "Play" {',
             *[f"  choose c{i} from [1, 2, 3] by {i % 2}" for i in range(2500)], "  end draw", "}"]
    rules = tmp_path / "heavy.vbr"
    rules.write_text("\n".join(lines) + "\n")
    got = _vbr(["run", rules, "--engine", "c"], tmp_path, timeout=300)
    assert got.returncode == 1
    assert "characters of C, more than the 2,000,000 the C engine compiles" in got.stderr
    assert not (tmp_path / "cache" / "vbr" / "c").exists() or not list((tmp_path / "cache" / "vbr" / "c").glob("*.so"))


def test_a_full_disk_says_no_space_left_on_device(tmp_path):
    """The cache on a 100 KB file system (room for the source, not the library), mounted in a
    user namespace of its own (unshare(1), util-linux)."""
    small = tmp_path / "small"
    small.mkdir()
    script = (f"mount -t tmpfs -o size=100k tmpfs {small} && XDG_CACHE_HOME={small} "
              f"{sys.executable} -m vbr run rules/siatka.vbr --engine c")
    got = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script], capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT, timeout=300)
    assert got.returncode == 1, got.stderr
    assert "no space left on device" in got.stderr
    assert "the C compiler failed" not in got.stderr
