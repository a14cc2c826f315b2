"""An installed wheel carries the bundled rule files: `vbr run siatka` works outside the repo. The
README's two commands of a fresh machine install what each needs: the demo the package alone."""
import subprocess
import sys
import zipfile

import pytest

from conftest import ROOT


def test_wheel_bundles_rules_and_runs_outside_the_repository(tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "-w", str(wheels), str(ROOT)], check=True, capture_output=True)
    (wheel,) = wheels.glob("vbr-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "vbr/_bundled_rules/siatka.vbr" in names
    assert "vbr/_bundled_rules/tests/siatka.vbr" in names
    assert "vbr/grammar/vbr.lark" in names
    assert {"vbr/engines/c_runtime.h", "vbr/engines/whole_game_call.c"} <= set(names)  # C the engine compiles
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
                   check=True, capture_output=True)
    away = tmp_path / "elsewhere"
    away.mkdir()
    env = {"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"}
    code = "import vbr, sys; print(vbr.__file__); sys.exit(vbr.cli.main(sys.argv[1:]))"
    run = subprocess.run([sys.executable, "-c", "import vbr.cli; " + code, "run", "siatka", "--seed", "2", "--quiet"],
                         cwd=away, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[0].startswith(str(target))
    assert "result: seat" in run.stdout
    test = subprocess.run([sys.executable, "-c", "import vbr.cli; " + code, "test", "tests/siatka.vbr"],
                          cwd=away, env=env, capture_output=True, text=True)
    assert test.returncode == 0, test.stdout + test.stderr
    assert test.stdout.splitlines()[-1].endswith(" passed, 0 failed")


# ---------------------------------------------------------------- the two commands of a fresh machine
# scripts/demo.sh and scripts/test.sh run for real in a copy of scripts/, on a PATH where nothing the
# set-up looks for is installed and where apt-get, python3 and the virtualenv's programs are
# recorders: each writes its arguments to a log (python3's check for Python's headers fails, and
# apt-get's install of `npm` puts an `npm` recorder on the PATH, as the real package would).
def recorder(path, name: str, exit_code: int = 0):
    path.write_text(f'#!/bin/sh\necho "{name} $*" >> "$RECORD"\nexit {exit_code}\n')
    path.chmod(0o755)


def apt_get(path):
    path.write_text(f"""#!{sys.executable}
import os, sys
with open(os.environ["RECORD"], "a") as log:
    log.write(" ".join(["apt-get", *sys.argv[1:]]) + "\\n")
if sys.argv[1] == "install" and "npm" in sys.argv:
    npm = os.path.join(os.path.dirname(sys.argv[0]), "npm")
    with open(npm, "w") as f:
        f.write('#!/bin/sh\\necho "npm $*" >> "$RECORD"\\n')
    os.chmod(npm, 0o755)
""")
    path.chmod(0o755)


def run_script(tmp_path, script: str, present: tuple[str, ...] = ()) -> list[str]:
    """What `bash scripts/<script>` asked for, one command a line, with the commands `present` found."""
    import shutil
    repo, bin_dir = tmp_path / "repo", tmp_path / "bin"
    shutil.copytree(ROOT / "scripts", repo / "scripts")
    (repo / "editors" / "vscode").mkdir(parents=True)
    (repo / ".venv" / "bin").mkdir(parents=True)
    for name in ("python", "vbr"):
        recorder(repo / ".venv" / "bin" / name, f".venv/bin/{name}")
    bin_dir.mkdir()
    for tool in ("bash", "dirname", "id", "mkdir"):
        (bin_dir / tool).symlink_to(shutil.which(tool))
    for tool in ("sudo", *present):
        recorder(bin_dir / tool, tool)
    apt_get(bin_dir / "apt-get")
    recorder(bin_dir / "python3", "python3", exit_code=1)
    log = tmp_path / "record"
    run = subprocess.run([shutil.which("bash"), str(repo / "scripts" / script)], cwd=tmp_path, capture_output=True,
                         text=True, env={"PATH": str(bin_dir), "RECORD": str(log)}, timeout=60)
    assert run.returncode == 0, run.stderr
    return log.read_text().splitlines()


PIP = ".venv/bin/python -m pip install -q --disable-pip-version-check -e"
COMPILE = ".venv/bin/python -m compileall -q vbr"  # vbr's modules compiled once, not in every vbr process


def test_the_demo_installs_graphviz_and_the_package_alone_then_runs_the_main_job(tmp_path):
    record = run_script(tmp_path, "demo.sh")
    assert record[:4] == ["apt-get update -qq", "apt-get install -y -qq graphviz", f"{PIP} .", COMPILE]
    assert [line.split()[:2] for line in record[4:]] == [[".venv/bin/vbr", c] for c in ("run", "replay", "sim", "graph")]


def test_the_demo_installs_no_debian_package_where_dot_is_found(tmp_path):
    record = run_script(tmp_path, "demo.sh", present=("dot",))
    assert record[0] == f"{PIP} ." and not any(line.startswith("apt-get") for line in record)


def test_the_test_command_installs_what_the_tests_drive_then_runs_every_test(tmp_path):
    record = run_script(tmp_path, "test.sh")
    headers, *record = record  # the look for Python's headers, which the C engine's caller compiles against
    assert headers.startswith("python3 -c ") and "Python.h" in headers
    assert record == ["apt-get update -qq", "apt-get install -y -qq graphviz tmux chromium nodejs npm gcc python3-dev",
                      f"{PIP} .[test]", "npm ci --no-audit --no-fund --loglevel=error", COMPILE,
                      ".venv/bin/vbr check rules/*.vbr rules/tests/*.vbr",
                      ".venv/bin/python -m pytest -q -n auto --dist worksteal --durations=20"]


# ---------------------------------------------------------------- the test tiers
def collected(*args: str) -> list[str]:
    run = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    return [line for line in run.stdout.splitlines() if "::" in line] if run.returncode == 0 else [run.stdout + run.stderr]


@pytest.mark.slow  # each collects tests in a pytest of its own
def test_the_fast_tier_leaves_out_the_tests_conftest_names_slow_and_the_slow_tier_holds_them():
    fast = collected("-m", "not slow", "tests/test_mcts.py")
    slow = collected("-m", "slow", "tests/test_mcts.py")
    assert fast and slow and not set(fast) & set(slow)
    assert not any("::test_mcts_beats_random[" in t for t in fast)
    assert sum("::test_mcts_beats_random[" in t for t in slow) == 4
    assert any("::test_forced_choice_returns_0_without_searching[" in t for t in fast)


@pytest.mark.slow
def test_an_unregistered_marker_is_an_error(tmp_path):
    (tmp_path / "test_x.py").write_text("import pytest\n\n@pytest.mark.slo\ndef test_x():\n    pass\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                          "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path), str(tmp_path)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode != 0 and "'slo' not found in `markers` configuration option" in run.stdout + run.stderr


@pytest.mark.slow
def test_a_slow_name_that_matches_no_test_fails_the_collection(tmp_path):
    conftest = (ROOT / "tests" / "conftest.py").read_text(encoding="utf-8")
    start = conftest.index("SLOW = {")
    end = conftest.index("}\n", start) + 2
    slow = 'SLOW = {"test_x.py::test_here", "test_x.py::test_gone"}\n'
    (tmp_path / "conftest.py").write_text(conftest[:start] + slow + conftest[end:])
    (tmp_path / "test_x.py").write_text("def test_here():\n    pass\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", str(ROOT / "pyproject.toml"),
                          "--rootdir", str(tmp_path), str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 4, run.stdout + run.stderr  # pytest's usage error
    assert "ERROR: tests/conftest.py SLOW names tests that do not exist: test_x.py::test_gone\n" in run.stderr
