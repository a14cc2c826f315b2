"""An installed wheel carries the bundled rule files: `vbr run siatka` works outside the repo."""
import subprocess
import sys
import zipfile

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
