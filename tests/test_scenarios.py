"""Every scenario written in text under rules/tests/ is a pytest test too."""
import pytest

from conftest import scenario_files
from vbr.loader import parse_file
from vbr.scenario import load_scenarios, run_scenario


def _collect():
    for path in scenario_files():
        tree, _ = parse_file(path)
        for sc in tree.scenarios:
            yield pytest.param(path, sc.title, id=f"{path.stem}: {sc.title[:60]}")


_LOADED: dict = {}


@pytest.mark.parametrize("path,title", list(_collect()))
def test_scenario(path, title):
    if path not in _LOADED:
        _LOADED[path] = load_scenarios(path)
    tree, rules, source = _LOADED[path]
    sc = next(s for s in tree.scenarios if s.title == title)
    result = run_scenario(sc, rules, {**rules.sources, str(path): source})
    assert result.ok, f"{result.span}: {result.message}"


def test_a_failing_expectation_is_reported_at_its_line(tmp_path):
    (tmp_path / "t.vbr").write_text(
        'tests for "siatka"\nscenario "wrong on purpose" {\n  given {\n    server = 0\n  }\n'
        '  start placement\n  expect server == 1\n}\n')
    from vbr.scenario import run_file
    (r,) = run_file(tmp_path / "t.vbr")
    assert not r.ok and r.span.line == 7
    assert r.message == "expectation failed (left side is 0, right side is 1)"


def test_forcing_a_face_the_die_lacks_is_an_error(tmp_path):
    (tmp_path / "t.vbr").write_text('tests for "siatka"\nscenario "x" {\n  force green = 7\n  start serve\n}\n')
    from vbr.scenario import run_file
    (r,) = run_file(tmp_path / "t.vbr")
    assert not r.ok and "die `green` has no face 7" in r.message


def test_siatka_scenarios_cover_every_worked_example():
    tree, _ = parse_file(scenario_files()[0].parent / "siatka.vbr")
    titles = " ".join(s.title for s in tree.scenarios)
    for example in ["Example 1", "Example 2", "Example 3", "[Attack]", "[Example of card use]",
                    "Block example", "Rotation"]:
        assert example in titles, example
