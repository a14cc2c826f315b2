"""`vbr report`: one self-contained HTML page, checked in a real headless Chromium (Playwright).

The browser is Debian's `chromium` (`apt-get install -y chromium`), driven by the `playwright`
Python package with `executable_path` (no `playwright install`, no network). These tests fail,
never skip, when either is missing: a report nobody has opened in a browser is not tested.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from vbr.cli import main

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
HOSTILE = '''game "<script>alert('t')</script> & Co"
seats 2
var n: int = 0
start a
phase a "<img src=x onerror=alert(1)>" {
  choose k from 1..2 by 0 as "<b>pick</b>"
  n += k
  if n > 3 {
    goto b as "</title><script>x()</script>"
  }
  goto a
}
phase b {
  end draw
}
'''


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report") / "siatka.html"
    assert main(["report", "siatka", "-n", "20", "-o", str(out)]) == 0
    return out


def browser_context(user_data: Path):
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the `playwright` Python package is missing: pip install playwright (or the test extra)")
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        pytest.fail("no Chromium at /usr/bin/chromium: install Debian's `chromium` package (apt-get install -y chromium)")
    pw = sync_playwright().start()
    try:
        ctx = pw.chromium.launch_persistent_context(str(user_data), executable_path=CHROMIUM, args=ARGS, headless=True,
                                                    viewport={"width": 1280, "height": 900})
    except Exception:
        pw.stop()
        raise
    return pw, ctx


def test_the_page_is_self_contained(report):
    text = report.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    assert not re.search(r'(src|href)="(https?:)?//', text), "the page must load nothing from the network"
    assert "<link" not in text and "@import" not in text and "<script src" not in text
    assert text.count("<svg") >= 3  # the diagram and the plots, inline
    for part in ('id="diagram"', 'id="phases"', 'id="simulation"', 'id="trace"', 'id="options"', 'id="source"'):
        assert part in text
    assert 'href="#src0-' in text and 'id="src0-1"' in text  # phases link to their highlighted lines
    assert "20 simulated games, agents random, random" in text
    assert "Assumptions where the book is silent" in text


def test_in_a_real_browser(report, tmp_path):
    pw, ctx = browser_context(tmp_path / "profile")
    try:
        page = ctx.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        page.goto(report.as_uri())
        assert page.locator("#flow svg").is_visible()
        assert page.locator("table.metrics").is_visible()
        assert "win rate" in page.locator("table.metrics").inner_text()
        label = page.locator("#flow g.edge text", has_text="score[s] >= target").first
        label.hover()
        tip = page.locator("#tip")
        assert tip.is_visible() and "score[s] >= target" in tip.inner_text()
        page.screenshot(path=str(tmp_path / "laptop.png"))
        page.locator("#flow g.node", has_text="bounce").first.locator("text").first.click()
        assert re.search(r"#src0-\d+$", page.url), page.url  # a box leads to its source lines
        line = int(page.url.rsplit("-", 1)[1])
        assert page.locator(f'[id="src0-{line}"]').count() == 1
        page.set_viewport_size({"width": 375, "height": 800})
        widths = page.evaluate("[document.documentElement.scrollWidth, document.body.scrollWidth, window.innerWidth]")
        assert max(widths[:2]) <= widths[2], f"horizontal overflow at 375 px: {widths}"
        page.screenshot(path=str(tmp_path / "phone.png"), full_page=True)
        assert errors == []
        assert all(u.startswith("file:") or u.startswith("data:") for u in requests), requests
    finally:
        ctx.close()
        pw.stop()
    assert (tmp_path / "laptop.png").stat().st_size > 0 and (tmp_path / "phone.png").stat().st_size > 0


def test_strings_from_the_rule_file_are_escaped(tmp_path):
    rules = tmp_path / "hostile.vbr"
    rules.write_text(HOSTILE)
    out = tmp_path / "hostile.html"
    assert main(["report", str(rules), "-n", "3", "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "<script>alert" not in text and "<img src=x" not in text and "<b>pick" not in text
    assert "</title><script>x()" not in text
    assert text.count("<script>") == 1  # ours, the tooltip
    assert "&lt;script&gt;alert(" in text



def test_the_trace_links_to_the_lines_of_its_citations_past_a_form_feed_in_a_comment(tmp_path):
    # the trace counted lines with str.splitlines, which also ends one at a form feed: the
    # citation on line 5 linked to line 7 of the source, the assumption on line 7 to line 9
    rules = tmp_path / "ff.vbr"
    rules.write_text('game "FF"\n# a page break \x0c here, a line separator \u2028 too\nseats 2\nstart a\n'
                     '# [Setup 4] the cited rule\nphase a {\n  end draw  # ASSUMPTION: a draw\n}\n', encoding="utf-8")
    out = tmp_path / "ff.html"
    assert main(["report", str(rules), "-n", "2", "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert re.findall(r'<a href="#src0-(\d+)">(\d+)</a>', text) == [("5", "5")]
    assert '<a href="#src0-7">line 7</a>: a draw' in text
    source_line_5 = re.search(r'id="src0-5"[^\n]*', text).group(0)
    assert "[Setup 4] the cited rule" in source_line_5

@pytest.mark.parametrize("extra, message", [
    (["--expand", "nowhere"], "--expand nowhere: no phase or procedure node of that name"),
    (["--labels", "long"], "argument --labels: invalid choice: 'long'"),
    (["-n", "0"], "-n must be at least 1"),
])
def test_bad_input_is_a_usage_error_and_leaves_no_file(tmp_path, capsys, extra, message):
    out = tmp_path / "r.html"
    assert main(["report", "siatka", "-o", str(out)] + extra) == 2
    assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("where, message", [
    ("nowhere/r.html", "the folder"),
    ("r.txt", "give a file ending in .html"),
])
def test_an_output_that_cannot_be_written_is_refused_first(tmp_path, capsys, where, message):
    assert main(["report", "siatka", "-o", str(tmp_path / where)]) == 2
    assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_a_read_only_folder_is_refused_and_keeps_the_old_page(tmp_path, capsys, monkeypatch):
    from vbr import atomic_file
    out = tmp_path / "r.html"
    out.write_text("the old page")

    def refuse(*a, **k):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(atomic_file.tempfile, "mkstemp", refuse)  # as a read-only folder would, even for root
    assert main(["report", "siatka", "-o", str(out)]) == 2
    assert "cannot write in" in capsys.readouterr().err
    assert out.read_text() == "the old page" and list(tmp_path.iterdir()) == [out]


def test_a_failure_while_building_leaves_no_partial_file(tmp_path, monkeypatch):
    from vbr.html_report import build
    out = tmp_path / "r.html"

    def boom(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(build, "_sources", boom)
    with pytest.raises(KeyboardInterrupt):
        from vbr.html_report.command import run
        import argparse
        run(argparse.Namespace(file="siatka", output=str(out), option=None, n=2, agents="random", seed=0,
                               workers=1, labels="short", expand=[]))
    assert list(tmp_path.iterdir()) == []


def test_a_hostile_rule_file_runs_nothing_in_a_real_browser_and_shows_its_strings_as_text(tmp_path):
    rules = tmp_path / "hostile.vbr"
    rules.write_text(HOSTILE)
    out = tmp_path / "hostile.html"
    assert main(["report", str(rules), "-n", "3", "-o", str(out)]) == 0
    pw, ctx = browser_context(tmp_path / "profile")
    try:
        page = ctx.new_page()
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))  # `x()` run would be "x is not defined"
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        page.goto(out.as_uri())
        page.wait_for_load_state("load")
        assert dialogs == [] and errors == []
        assert page.locator("img").count() == 0  # `<img src=x onerror=...>` stayed text
        assert requests == [out.as_uri()]
        assert "<script>alert('t')</script> & Co" in page.title()
        body = page.locator("body").inner_text()
        assert "<img src=x onerror=alert(1)>" in body and "<b>pick</b>" in body
    finally:
        ctx.close()
        pw.stop()


def test_the_same_run_makes_the_same_page(tmp_path):
    a, b = tmp_path / "a.html", tmp_path / "b.html"
    for out in (a, b):
        assert main(["report", "siatka", "-n", "5", "--seed", "3", "-o", str(out)]) == 0
    assert a.read_text(encoding="utf-8") == b.read_text(encoding="utf-8")


def _section_rows(page: str, anchor: str) -> list[list[str]]:
    """The cells of each row of a section's table, tags stripped, the header row first."""
    import html
    body = page[page.index(f'id="{anchor}"'):]
    body = body[:body.index("</section>")]
    return [[html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)]


@pytest.fixture(scope="module")
def vh_report(tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("report") / "vh.html"
    assert main(["report", "volleyball-high", "-n", "2", "--option", "points=3", "-o", str(out)]) == 0
    return out.read_text(encoding="utf-8")


def test_the_options_table_shows_value_default_and_allowed_values_under_headed_columns(vh_report):
    head, *rows = _section_rows(vh_report, "options")
    assert head == ["option", "value", "default", "allowed values", "value from"]
    by_name = {r[0]: r for r in rows}
    # volleyball-high.vbr: option points = 2 in { 2, 3 }; option school0 = hawk (an enum School)
    assert by_name["points"] == ["points", "3", "2", "2, 3", "set for this report"]
    assert by_name["mode"][1:4] == ["1v1", '"1v1"', '"1v1", "2v2", "solo"']
    school = by_name["school0"][3].split(", ")
    assert "hawk" in school and "panther" in school and by_name["school0"][4] == "the default"


def test_procedures_get_a_title_and_who_chooses_reads_as_words(vh_report):
    head, *rows = _section_rows(vh_report, "phases")
    assert head[:4] == ["name", "title", "source", "who chooses"]
    by_name = {r[0].split()[0]: r for r in rows}
    assert by_name["heavy_defence()"][1] == "Heavy defence, called with t"
    assert by_name["serve"][3] == "the server of t"  # serve's `by server_of(t)`
    assert all("(" not in r[3] for r in rows), [r[3] for r in rows]


def test_the_win_rates_of_three_sides_add_up_to_100(tmp_path):
    from types import SimpleNamespace

    from vbr.analysis.trial import Trial
    from vbr.html_report.build import _simulation_html
    trials = [Trial(i, i, ["random"] * 3, 3, i, None, 5, 0, 10, 0, []) for i in range(3)]  # one win each
    stats = {"side_names": ["a", "b", "c"], "wins": {"0": 1, "1": 1, "2": 1}, "draws": 0, "games": 3,
             "win_rate": {s: 0.3333 for s in "012"}, "ci95": {s: [0.0615, 0.7923] for s in "012"},
             "metrics": {}, "agents": ["random"] * 3, "seed": 0, "mean_steps": 5}
    page = _simulation_html(stats, trials, SimpleNamespace(title="T"))
    shown = re.findall(r"<th>win rate, \w</th><td>([\d.]+) %</td>", page)
    assert shown == ["33.4", "33.3", "33.3"]  # each alone rounds to 33.3: 99.9 in all



# Every game of it is exactly 1500 choices: seat 0 chooses 1 or 2 until it has chosen 1500 times.
LONG_GAME = '''game "Long"
seats 2
var n: int = 0
start p
phase p {
  choose c from 1..2 by 0
  n += 1
  if n >= 1500 {
    end winner 0
  }
  goto p
}
'''


def test_figures_of_thousands_read_as_vbr_sim_prints_them_not_in_exponent_notation(tmp_path):
    rules, out = tmp_path / "long.vbr", tmp_path / "long.html"
    rules.write_text(LONG_GAME)
    assert main(["report", str(rules), "-n", "4", "-o", str(out)]) == 0
    rows = {r[0]: r for r in _section_rows(out.read_text(encoding="utf-8"), "simulation")}
    # every game is 1500 choices long: the mean to 2 places, the median (an order statistic) whole
    assert rows["mean length"][1:3] == ["1500.00", "1500.00 – 1500.00"]
    assert rows["median length"][1] == "1500"


def test_the_side_advantage_names_the_side_that_has_it(tmp_path):
    # seat 1 wins every game: the advantage is seat 1's, and the row says so, as `vbr sim` does
    rules, out = tmp_path / "one.vbr", tmp_path / "one.html"
    rules.write_text('game "One"\nseats 2\nstart p\nphase p {\n  choose c from 1..2 by 0\n  end winner 1\n}\n')
    assert main(["report", str(rules), "-n", "4", "-o", str(out)]) == 0
    labels = [r[0] for r in _section_rows(out.read_text(encoding="utf-8"), "simulation")]
    assert "side advantage (seat 1)" in labels, labels

# A rule file whose every game fails (a division by zero once a choice is made): a command that
# says something else has refused before playing a game.
FAILS_IN_PLAY = '''game "Fails"
seats 2
var n: int = 0
start p
phase p {
  choose c from 1..2 by 0
  n = 10 / (c - c)
  end draw
}
'''


def test_a_report_without_graphviz_is_an_error_said_in_words_before_any_game(tmp_path, monkeypatch, capsys):
    # The page's diagram is drawn by Graphviz's `dot`: without it the report cannot be made, which
    # is a plain error (exit 1, as `vbr graph -o x.svg` says it), not an internal one, and is found
    # before the games (the file's games would fail with a division by zero).
    rules = tmp_path / "fails.vbr"
    rules.write_text(FAILS_IN_PLAY)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))  # no `dot` (and no C compiler) to be found
    out = tmp_path / "r.html"
    assert main(["report", str(rules), "-n", "3", "--engine", "python", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("vbr: error: cannot draw: Graphviz's `dot` program is not installed"), err
    assert "division by zero" not in err and not out.exists()


def test_a_report_without_graphviz_does_not_suggest_dot_text_which_it_cannot_write(tmp_path, monkeypatch, capsys):
    # `vbr graph -o FILE.dot` writes DOT text without Graphviz, so its error suggests it; a report's
    # -o takes only .html (docs/cli.md), so the same advice would send the user to a usage error
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))  # no `dot` to be found
    bump = str(Path(__file__).resolve().parent.parent / "docs" / "tutorial" / "bump.vbr")
    assert main(["report", bump, "-n", "2", "--engine", "python",
                 "-o", str(tmp_path / "r.html")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("vbr: error: cannot draw: Graphviz's `dot` program is not installed"), err
    assert "FILE.dot" not in err
    assert main(["graph", bump, "-o", str(tmp_path / "g.svg")]) == 1
    assert "or write the DOT text with `-o FILE.dot`" in capsys.readouterr().err
