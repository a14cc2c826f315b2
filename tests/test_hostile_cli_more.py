"""Hostile input, more of it: files vbr reads back that someone else may have written (per-game
rows for `vbr summarize` and `vbr compare --base-rows`, ...) and odd command-line values. Each
ends with a located error or a `vbr: error:` line and its exit code, never an internal error, a
traceback or a hang."""
import csv
import json
import os
import re
import subprocess
import sys

import pytest

from vbr.cli import main

BUMP = "docs/tutorial/bump.vbr"  # two seats, no teams: two sides
HANG_GUARD = 120  # seconds: generous on a busy machine; a command past it has hung


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def vbr(*argv, cwd=None):
    """vbr in a process of its own, which must end within HANG_GUARD seconds."""
    return subprocess.run([sys.executable, "-m", "vbr", *map(str, argv)], capture_output=True, text=True,
                          timeout=HANG_GUARD, cwd=cwd, stdin=subprocess.DEVNULL)


# ------------------------------------------------------------------------------ summarize rows
@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    """The rows of three games of bump, as `vbr sim --out` writes them."""
    path = tmp_path_factory.mktemp("rows") / "games.jsonl"
    assert main(["sim", BUMP, "-n", "3", "--engine", "python", "--out", str(path)]) == 0
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write_rows(path, rows, **change):
    """The rows, the second changed by `change`, as a .jsonl file."""
    with open(path, "w", encoding="utf-8") as f:
        for i, r in enumerate(rows):
            f.write(json.dumps({**r, **change} if i == 1 else r) + "\n")
    return path


@pytest.mark.parametrize("change,says", [
    ({"winner": "x"}, "winner: Input should be a valid integer"),
    ({"winner": 99}, "winner 99 of 2 sides"),
    ({"first_side": 5}, "first_side 5 of 2 sides"),
    ({"sides": "two"}, "sides: Input should be a valid integer"),
    ({"seed": 1.5}, "seed: Input should be a valid integer"),
    ({"agents": [["random"]]}, "agents.0: Input should be a valid string"),
    ({"score": ["3", 2]}, "score.0: Input should be a valid integer"),
    ({"score": [3]}, "a score of 1 sides in a game of 2"),
    ({"offered": "many"}, "offered: Input should be a valid integer"),
    ({"forced": 10 ** 30}, "forced: Input should be less than or equal to 9223372036854775807"),
    ({"score_track": [["a", [1, 0]]]}, "score_track.0.0: Input should be a valid integer"),
    ({"rule_options": [1, 2]}, "rule_options: Input should be a valid dictionary"),
    ({"restrict": 5}, "restrict: Input should be a valid list"),
    ({"measure_kinds": 5}, "measure_kinds: Input should be a valid dictionary"),
    ({"measure_kinds": {"m": "side"}, "measure:m": 7}, "measure 'm' of kind side is 7"),
    ({"engine": "nonsense"}, "engine: Input should be 'c', 'python' or 'closure'"),  # the engines rows name
], ids=lambda x: json.dumps(x) if isinstance(x, dict) else None)
def test_a_row_with_a_value_no_vbr_writes_is_an_error_at_its_line(rows, tmp_path, capsys, change, says):
    path = write_rows(tmp_path / "bad.jsonl", rows, **change)
    code, out, err = run(capsys, "summarize", path)
    assert (code, out) == (1, "")
    assert err == f"{path}:2:1: error: not a game row of vbr ({says})\n"


@pytest.mark.parametrize("column,cell,says", [
    ("rule_options", "target", "rule_options: `target` is no NAME=VALUE pair"),
    ("measure_kinds", "first_server", "measure_kinds: `first_server` is no NAME=VALUE pair"),
    ("score_track", "x;1-0", "score_track.0.0: Input should be a valid integer"),
])
def test_a_csv_cell_no_vbr_writes_is_said_in_the_rows_words_at_its_line(tmp_path, capsys, column, cell, says):
    # as a JSON row's bad value is said (above), not in the words of Python's unpacking or int()
    path = tmp_path / "rows.csv"
    assert run(capsys, "sim", "siatka", "-n", 2, "--engine", "python", "--out", path)[0] == 0
    with open(path, newline="", encoding="utf-8") as f:
        table = list(csv.DictReader(f))
    table[1][column] = cell
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(table[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(table)
    code, out, err = run(capsys, "summarize", path)
    assert (code, out, err) == (1, "", f"{path}:3:1: error: not a game row of vbr ({says})\n")


@pytest.mark.parametrize("cut,cells", [(lambda row: row[:13], 13), (lambda row: row + ["extra"], None)],
                         ids=["cut short", "a cell past the header"])
def test_a_csv_row_of_more_or_fewer_cells_than_its_header_is_an_error_at_its_line(tmp_path, capsys, cut, cells):
    # every row vbr writes has a cell per column; a file cut off inside a row (a run killed
    # while another program copied it) ended in an internal error, a row of more cells lost them
    path = tmp_path / "rows.csv"
    assert run(capsys, "sim", BUMP, "-n", 2, "--engine", "python", "--out", path)[0] == 0
    with open(path, newline="", encoding="utf-8") as f:
        header, first, second = list(csv.reader(f))
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows([header, first, cut(second)])
    cells = len(header) + 1 if cells is None else cells
    code, out, err = run(capsys, "summarize", path)
    assert (code, out, err) == (1, "", f"{path}:3:1: error: not a game row of vbr (it has {cells} cells; "
                                       f"the header names {len(header)} columns)\n")


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_rows_saved_with_a_byte_order_mark_and_crlf_line_ends_summarise_as_the_rows_themselves(
        tmp_path, capsys, suffix):
    # a spreadsheet's "CSV UTF-8" starts with a byte-order mark and ends lines with \r\n: the
    # CSV's first column read `\ufeffindex` ("a game row without index (rows written by an older
    # vbr lack them ...)") and JSON lines failed with Python's own "decode using utf-8-sig"
    path = tmp_path / f"rows{suffix}"
    assert run(capsys, "sim", BUMP, "-n", 3, "--engine", "python", "--out", path)[0] == 0
    code, plain, _ = run(capsys, "summarize", path)
    assert code == 0
    saved = tmp_path / f"saved{suffix}"
    saved.write_bytes(b"\xef\xbb\xbf" + path.read_bytes().replace(b"\n", b"\r\n"))
    code, out, err = run(capsys, "summarize", saved)
    assert (code, err) == (0, "") and out == plain


def test_a_rows_file_given_twice_is_summarised_as_its_games_from_one_file(rows, tmp_path, capsys):
    # docs/cli.md: a game that appears twice (a file given twice) is counted once, with a note
    path = write_rows(tmp_path / "games.jsonl", rows)
    code, out, err = run(capsys, "summarize", path, path)
    assert code == 0
    assert ", 3 games, from rows of 1 file," in out.splitlines()[0], out
    assert "3 games appear more than once" in err


@pytest.mark.parametrize("argv,line", [
    (["importance", BUMP, "-n", 2, "--out", "{path}.jsonl"], 1),
    (["importance", BUMP, "-n", 2, "--out", "{path}.csv"], 2),
    (["sweep", BUMP, "--grid", "target=2,3", "-n", 2, "--out", "{path}.csv"], 2),
    (["sim", BUMP, "-n", 2, "--json"], 1),  # its summary, saved from stdout
])
def test_rows_of_another_kind_are_said_to_be_no_game_rows_not_an_older_vbrs(tmp_path, capsys, argv, line):
    # summarize reads per-game rows (docs/cli.md); importance writes one row per word, a sweep's
    # --out one per combination, --json a summary, none of which any vbr wrote as game rows:
    # "rows written by an older vbr lack them: play the run again" misled
    path = str(tmp_path / "other")
    argv = [str(a).format(path=path) for a in argv] + ["--engine", "python"]
    code, out, _ = run(capsys, *argv)
    assert code == 0
    if "--out" not in argv:
        path += ".jsonl"
        with open(path, "w", encoding="utf-8") as f:
            f.write(out)
    else:
        path = argv[argv.index("--out") + 1]
    code, out, err = run(capsys, "summarize", path)
    assert (code, out) == (1, "")
    assert err.startswith(f"{path}:{line}:1: error: not a game row of vbr (no index or winner: per-game rows are "
                          "what `vbr sim --out`"), err
    assert "older vbr" not in err


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_a_row_with_nan_or_infinity_is_an_error_at_its_line(rows, tmp_path, capsys, constant):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(rows[0]).replace('"choices": ', f'"choices": {constant}, "was": ') + "\n")
    code, _, err = run(capsys, "summarize", path)
    assert code == 1 and err == f"{path}:1:1: error: not a game row of vbr ({constant} is not a number JSON allows)\n"


def test_a_row_with_an_integer_of_5000_digits_is_an_error_at_its_line(rows, tmp_path, capsys):
    for suffix, text in [(".jsonl", json.dumps(rows[0]).replace('"seed": 0', '"seed": ' + "9" * 5000)),
                         (".csv", "index,seed,agents\n0," + "9" * 5000 + ",random;random")]:
        path = tmp_path / f"big{suffix}"
        path.write_text(text + "\n")
        code, _, err = run(capsys, "summarize", path)
        assert code == 1 and err == f"{path}:{1 if suffix == '.jsonl' else 2}:1: error: not a game row of vbr " \
                                    "(an integer of thousands of digits)\n"


def test_a_row_nested_200000_deep_is_an_error_at_its_line(tmp_path, capsys):
    path = tmp_path / "deep.jsonl"
    path.write_text("[" * 200_000 + "]" * 200_000 + "\n")
    code, _, err = run(capsys, "summarize", path)
    assert code == 1 and err == f"{path}:1:1: error: not a game row of vbr (JSON nested too deep)\n"


def test_a_csv_cell_past_the_csv_modules_limit_is_an_error_at_its_line(tmp_path, capsys):
    path = tmp_path / "wide.csv"
    path.write_text("index,seed,agents\n0," + "x" * 200_000 + ",random\n")
    code, _, err = run(capsys, "summarize", path)
    assert code == 1 and err == f"{path}:2:1: error: not CSV (field larger than field limit (131072))\n"


def test_games_of_more_sides_than_their_rule_file_are_refused_before_they_are_counted(rows, tmp_path):
    # every row says 10**30 sides: summarising would count the wins of each of them
    path = tmp_path / "sides.jsonl"
    path.write_text("".join(json.dumps({**r, "sides": 10 ** 30, "score": None, "score_track": []}) + "\n" for r in rows))
    done = vbr("summarize", path)
    assert done.returncode == 1
    assert done.stderr == (f"{path}:1:1: error: these games have {10 ** 30} sides and 2 agents, but {BUMP} under "
                           "these options has 2 sides and 2 seats\n")


def test_games_of_one_agent_for_two_seats_are_refused(rows, tmp_path, capsys):
    path = tmp_path / "one.jsonl"
    path.write_text("".join(json.dumps({**r, "agents": ["random"]}) + "\n" for r in rows))
    code, _, err = run(capsys, "summarize", path)
    assert code == 1
    assert err == (f"{path}:1:1: error: these games have 2 sides and 1 agents, but {BUMP} under these options has "
                   "2 sides and 2 seats\n")


def test_the_sides_of_an_arm_disagreeing_between_rows_is_an_error_at_the_row(rows, tmp_path, capsys):
    path = write_rows(tmp_path / "mixed.jsonl", rows, sides=3, score=None, score_track=[])
    code, _, err = run(capsys, "summarize", path)
    assert code == 1
    assert err == (f"{path}:2:1: error: this game has 3 sides, the games before it of the same rule file, options "
                   "and agents 2\n")


def test_a_row_whose_options_the_rule_file_lacks_is_an_error_at_the_row_not_a_usage_error(rows, tmp_path, capsys):
    path = tmp_path / "opts.jsonl"
    path.write_text("".join(json.dumps({**r, "rule_options": {"nope": "1"}}) + "\n" for r in rows))
    code, _, err = run(capsys, "summarize", path)
    assert code == 1 and err == f"{path}:1:1: error: unknown option `nope` (bump.vbr has options: target)\n"


def test_base_rows_of_more_sides_than_the_game_are_a_usage_error(rows, tmp_path, capsys):
    path = tmp_path / "base.jsonl"
    path.write_text("".join(json.dumps({**r, "sides": 10 ** 30, "score": None, "score_track": []}) + "\n" for r in rows))
    code, _, err = run(capsys, "compare", BUMP, "--variant-option", "target=2", "--base-rows", path, "-n", "3",
                       "--engine", "python")
    assert code == 2
    assert err == (f"vbr: error: --base-rows: {path}:1:1: error: these games have {10 ** 30} sides and 2 agents, "
                   f"but {BUMP} under these options has 2 sides and 2 seats\n")


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_rows_file_that_is_a_device_is_refused_without_being_read(tmp_path):
    (tmp_path / "zero.jsonl").symlink_to("/dev/zero")
    done = vbr("summarize", tmp_path / "zero.jsonl")
    assert done.returncode == 1
    assert done.stderr == (f"vbr: error: cannot read {tmp_path / 'zero.jsonl'}: not a regular file (a device, a pipe "
                           "or a socket)\n")


def test_a_rows_file_that_is_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    os.mkfifo(tmp_path / "rows.csv")
    done = vbr("summarize", tmp_path / "rows.csv")
    assert done.returncode == 1 and "not a regular file (a device, a pipe or a socket)" in done.stderr


# ------------------------------------------------------------------------------ sweep grids
THREE_OPTIONS = 'game "Three"\nseats 2\noption a = 1\noption b = 1\noption c = 1\nstart p\nphase p {\n' \
                '  choose x from 1..2 by 0\n  end winner x - 1\n}\n'


def test_a_grid_of_a_billion_combinations_is_a_usage_error_before_any_is_made(tmp_path):
    import resource
    rules = tmp_path / "three.vbr"
    rules.write_text(THREE_OPTIONS)
    values = ",".join(str(i) for i in range(1, 1001))
    limit = 2 << 30  # bytes: a billion combinations made as options would take far more

    def bounded():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    done = subprocess.run([sys.executable, "-m", "vbr", "sweep", str(rules), "-n", "1", "--engine", "python",
                           "--grid", f"a={values}", "--grid", f"b={values}", "--grid", f"c={values}"],
                          capture_output=True, text=True, timeout=HANG_GUARD, preexec_fn=bounded)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "vbr: error: the grid has 1,000,000,000 combinations; a sweep plays at most 10,000\n"


def test_a_grid_just_past_the_limit_is_refused_too(tmp_path, capsys):
    rules = tmp_path / "three.vbr"
    rules.write_text(THREE_OPTIONS)
    values = ",".join(str(i) for i in range(1, 23))  # 22 ** 3 = 10,648
    code, _, err = run(capsys, "sweep", rules, "-n", 1, "--grid", f"a={values}", "--grid", f"b={values}",
                       "--grid", f"c={values}")
    assert code == 2 and err == "vbr: error: the grid has 10,648 combinations; a sweep plays at most 10,000\n"


@pytest.mark.parametrize("engine", ["python", "c"])
def test_two_spellings_of_one_grid_value_are_a_usage_error_before_any_game(tmp_path, capsys, engine):
    # 01 and +1 are read as the int 1: the same combination under three names
    rules = tmp_path / "three.vbr"
    rules.write_text(THREE_OPTIONS)
    code, out, err = run(capsys, "sweep", rules, "-n", 1, "--engine", engine, "--grid", "a=1,01,+1", "--grid", "b=1,2")
    assert code == 2 and out == ""
    assert err == "vbr: error: --grid a: 1 and 01 are the same value; list it once\n"


def test_two_spellings_of_one_tuned_value_are_a_usage_error_before_any_game(tmp_path, capsys):
    rules = tmp_path / "three.vbr"
    rules.write_text(THREE_OPTIONS)
    code, out, err = run(capsys, "tune", rules, "-n", 100, "--engine", "python", "--option", "a=2,1,+2",
                         "--target", "win_rate:0=0.5")
    assert code == 2 and out == ""
    assert err == "vbr: error: --option a: 2 and +2 are the same value; list it once\n"


# ------------------------------------------------------------------------------ tune ranges
def bounded_memory():
    """For a child process: at most 2 GB of address space, so a command that lists out a range of
    a billion values fails fast instead of taking the machine's memory."""
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def test_tune_over_a_range_of_10_to_the_18_values_plays_without_listing_them(tmp_path):
    rules = tmp_path / "three.vbr"
    rules.write_text(THREE_OPTIONS)  # `a` changes nothing: every game is one choice long
    done = subprocess.run([sys.executable, "-m", "vbr", "tune", str(rules), "-n", "200", "--engine", "python",
                           "--option", f"a=1..{10 ** 18}", "--target", "length_mean=1", "--json"],
                          capture_output=True, text=True, timeout=HANG_GUARD, preexec_fn=bounded_memory)
    assert done.returncode == 0, done.stderr[-2000:]
    r = json.loads(done.stdout)
    assert r["values"] == {"range": [1, 10 ** 18]}
    # every value measures a length of exactly 1: the first value, 1, ranks first
    assert r["answer"]["value"] == 1
    above = min(a["value"] for a in r["arms"] if a["value"] > 1)  # the played value beside it
    # the untried values 2 .. above - 1: the five nearest listed, the rest counted
    assert r["untried_beside"] == [2, 3, 4, 5, 6]
    assert r["untried_beside_more"] == (above - 2) - 5


def test_tune_lists_the_untried_values_and_counts_the_rest(tmp_path, capsys):
    rules = tmp_path / "three.vbr"
    rules.write_text(THREE_OPTIONS)
    code, out, _ = run(capsys, "tune", rules, "-n", 200, "--engine", "python", "--option", "a=1..1000",
                       "--target", "length_mean=1", "--json")
    r = json.loads(out)
    above = min(a["value"] for a in r["arms"] if a["value"] > 1)
    assert code == 0 and r["untried_beside"] == [2, 3, 4, 5, 6] and r["untried_beside_more"] == (above - 2) - 5
    code, out, _ = run(capsys, "tune", rules, "-n", 200, "--engine", "python", "--option", "a=1..1000",
                       "--target", "length_mean=1")
    assert f"not played, beside the answer: 2, 3, 4, 5, 6 and {above - 7:,} more (a larger -n would)" in out


def test_tune_over_a_range_past_the_integers_of_the_language_is_a_usage_error(tmp_path, capsys):
    rules = tmp_path / "three.vbr"
    rules.write_text(THREE_OPTIONS)
    code, _, err = run(capsys, "tune", rules, "--option", f"a=1..{2 ** 63}", "--target", "length_mean=1")
    assert code == 2
    assert err == (f"vbr: error: --option 'a=1..{2 ** 63}': a range's ends are integers of the language "
                   f"(-{2 ** 63 - 1}..{2 ** 63 - 1})\n")


# ------------------------------------------------------------------------------ control characters in what vbr writes
CONTROLS = "\x1b]0;pwn\x07\x9b2J"  # OSC retitle with BEL, then the C1 control sequence introducer
RAW_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
EVIL = ('game "T{c}"\nseats 2\noption cost = "{c}"\nmeasure m: int as "m{c}"\nstart p\nphase p {{\n'
        '  say "{c}"\n  choose x from 1..2 by 0 as "pick{c}"\n  measure m = 1\n  end winner x - 1\n}}\n').format(c=CONTROLS)


@pytest.fixture
def evil(tmp_path):
    path = tmp_path / "evil.vbr"
    path.write_text(EVIL, encoding="utf-8")
    return path


def test_the_report_page_shows_a_rule_files_control_characters_escaped(evil, tmp_path):
    page = tmp_path / "page.html"
    done = vbr("report", evil, "-n", "3", "--engine", "python", "-o", page)
    assert done.returncode == 0, done.stderr
    html = page.read_text(encoding="utf-8")
    assert RAW_CONTROL.findall(html) == []
    assert "<title>T\\x1b]0;pwn\\x07\\x9b2J · vbr report</title>" in html


@pytest.mark.parametrize("command", [["sim", "-n", "3", "--out"], ["compare", "--variant-option", "cost=x", "-n", "3",
                                                                   "--out"]])
def test_a_csv_shows_a_rule_files_control_characters_escaped(evil, tmp_path, capsys, command):
    out = tmp_path / "rows.csv"
    code, _, err = run(capsys, command[0], evil, *command[1:], out, "--engine", "python")
    assert code == 0, err
    text = out.read_text(encoding="utf-8")
    assert RAW_CONTROL.findall(text) == []
    # the option's value (sim, its `;` written `%3B` in the options' NAME=VALUE;... cell) or the measure's label (compare)
    assert ("\\x1b]0%3Bpwn\\x07\\x9b2J" if command[0] == "sim" else "\\x1b]0;pwn\\x07\\x9b2J") in text


def test_a_csv_cell_keeps_its_tab_and_newline_and_escapes_the_rest():
    from pathlib import Path

    from vbr.analysis.output import rows_text
    text = rows_text(Path("rows.csv"), [{"a": "x\ty\nz", "b": "\x1b[2J", "c": "\r=1", "d": "\u202eevil"}])
    assert text == 'a,b,c,d\n"x\ty\nz",\\x1b[2J,\\x0d=1,\\u202eevil\n'


@pytest.mark.parametrize("command", [["sim"], ["compare", "--variant-option", f"cost=@{CONTROLS}"],
                                     ["sweep", "--grid", f"cost=a,{CONTROLS}"]], ids=["sim", "compare", "sweep"])
def test_plots_show_control_characters_escaped_and_their_svg_is_xml(evil, tmp_path, capsys, command):
    from xml.dom.minidom import parseString
    code, _, err = run(capsys, command[0], evil, *command[1:], "-n", 3, "--engine", "python", "--plot", tmp_path / "p")
    assert code == 0, err
    svgs = sorted((tmp_path / "p").glob("*.svg"))
    assert svgs
    for svg in svgs:
        text = svg.read_text(encoding="utf-8")
        assert RAW_CONTROL.findall(text) == [], svg.name
        parseString(text.encode("utf-8"))  # XML 1.0 has no place for ESC or BEL: a raw one is a parse error
    assert any("T\\x1b]0;pwn\\x07\\x9b2J" in svg.read_text(encoding="utf-8") for svg in svgs)  # the title


# ------------------------------------------------------------------------------ the environment
@pytest.mark.parametrize("xdg", ["relative/cache", "", None])
def test_a_relative_or_empty_xdg_cache_home_is_ignored_for_the_home_cache(tmp_path, monkeypatch, xdg):
    from vbr import private_cache
    monkeypatch.setenv("HOME", str(tmp_path))
    if xdg is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", xdg)
    assert private_cache.base() == tmp_path / ".cache" / "vbr"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "abs"))
    assert private_cache.base() == tmp_path / "abs" / "vbr"


def test_an_xdg_cache_home_that_is_a_file_leaves_the_c_engine_out_in_words(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    done = subprocess.run([sys.executable, "-m", "vbr", "run", BUMP, "--quiet", "--engine", "c"], capture_output=True,
                          text=True, timeout=HANG_GUARD, env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "file")})
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1] == ("vbr: error: the C engine cannot run here: the C engine has no cache folder "
                                            f"it may use ({tmp_path / 'file' / 'vbr' / 'c'})")


# ------------------------------------------------------------------------------ scenario files
@pytest.mark.parametrize("engine", ["python", "c"])
@pytest.mark.parametrize("steps,passed", [("", True), ("  expect phase serve\n", True),
                                          ("  expect phase answer\n", False)], ids=["no steps", "phase", "other phase"])
def test_a_scenario_whose_steps_name_no_value_runs_under_both_engines(tmp_path, capsys, engine, steps, passed):
    # bump's setup goes to `deal`, which deals and goes to `serve`, where seat 1 chooses first: there
    # play stands when a scenario's first step after setup is checked
    (tmp_path / "bump.vbr").write_text(open(BUMP, encoding="utf-8").read(), encoding="utf-8")
    tests = tmp_path / "bump_test.vbr"
    tests.write_text(f'tests for "bump.vbr"\n\nscenario "x" {{\n{steps}}}\n', encoding="utf-8")
    code, out, err = run(capsys, "test", tests, "--engine", engine)
    assert err == ""
    if passed:
        assert (code, out) == (0, f"PASS {tests}: x\n1 passed, 0 failed\n")
    else:
        assert (code, out) == (1, f"FAIL {tests}:4:3: x\n  expected phase `answer`, the game is in `serve`\n"
                                  "0 passed, 1 failed\n")


# ------------------------------------------------------------------------------ counts
def test_graph_sim_past_the_games_a_run_plays_is_a_usage_error_before_any_game(capsys):
    done = vbr("graph", BUMP, "--sim", 100_000_001)  # in a process of its own: it once played them all
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines()[-1] == "vbr graph: error: argument --sim: must be at most 100000000, not 100000001"
    code, _, err = run(capsys, "sim", BUMP, "-n", 100_000_001)  # the same bound as -n
    assert code == 2 and err == "vbr: error: -n must be at most 100000000, not 100000001\n"


@pytest.mark.parametrize("given", ["nan", "inf", "1e999", "-5", "soon"])
def test_mutate_max_seconds_that_bounds_nothing_is_a_usage_error(capsys, given):
    # nan and inf are no decimal numbers (vbr.number_text); 1e999 is one, but no finite time
    code, out, err = run(capsys, "mutate", BUMP, "--tests", "docs/tutorial/bump_test.vbr", "--max-seconds", given)
    assert code == 2 and out == ""
    why = "is not a number of seconds from 0 up" if given in ("-5", "1e999") else "is not a number of seconds"
    assert err.splitlines()[-1] == f"vbr mutate: error: argument --max-seconds: {given!r} {why}"


# ------------------------------------------------------------------------------ trace --update
CITING = 'game "Cite"\nstart p\n# [Serve] the serve\nphase p {\n  end draw\n}\n'


def test_trace_update_of_a_page_in_another_folder_links_the_rule_file_from_that_page(tmp_path):
    (tmp_path / "rules").mkdir()
    (tmp_path / "pages").mkdir()
    (tmp_path / "rules" / "cite.vbr").write_text(CITING)
    page = tmp_path / "pages" / "cite.md"
    # run from a third folder: neither the page nor the rule file lies below it
    (tmp_path / "elsewhere").mkdir()
    done = vbr("trace", tmp_path / "rules" / "cite.vbr", "--update", page, cwd=tmp_path / "elsewhere")
    assert done.returncode == 0, done.stderr
    assert "| Serve | [3](../rules/cite.vbr#L3) | — |" in page.read_text(encoding="utf-8")


@pytest.mark.parametrize("make,why", [
    (lambda p: os.mkfifo(p), "it is not a regular file (a device, a pipe or a socket)"),
    (lambda p: p.symlink_to("/dev/zero"), "it is not a regular file (a device, a pipe or a socket)"),
    (lambda p: p.write_bytes(b"\xff\xfe\x00garbage"), "it is not UTF-8 text"),
    (lambda p: p.mkdir(), "it is a directory"),
], ids=["fifo", "device", "binary", "folder"])
def test_trace_update_of_a_page_that_is_no_text_file_is_refused_unread(tmp_path, make, why):
    (tmp_path / "cite.vbr").write_text(CITING)
    page = tmp_path / "cite.md"
    make(page)
    done = vbr("trace", tmp_path / "cite.vbr", "--update", page, cwd=tmp_path)  # a hang past HANG_GUARD fails
    assert done.returncode == 1
    assert done.stderr == f"vbr: error: cannot read {page}: {why}\n"


# ------------------------------------------------------------------------------ a log over its own rules
@pytest.mark.parametrize("command", ["run", "play"])
def test_a_log_over_the_rule_file_or_the_file_it_extends_is_refused_before_the_game(tmp_path, capsys, command):
    base = tmp_path / "base.vbr"
    base.write_text(open(BUMP, encoding="utf-8").read(), encoding="utf-8")
    variant = tmp_path / "variant.vbr"
    variant.write_text('game "Variant"\nextends "base.vbr"\n', encoding="utf-8")
    for target in (variant, base):
        before = target.read_bytes()
        code, out, err = run(capsys, command, variant, "--engine", "python", "--log", target)
        assert code == 2 and out == ""
        assert err == f"vbr: error: --log {target}: is a rule file of this game; a log written there would replace it\n"
        assert target.read_bytes() == before


@pytest.mark.parametrize("command", [["sweep", "--grid", "target=1,2"], ["compare", "--variant-option", "target=2"]])
def test_out_and_rows_naming_one_file_is_a_usage_error_before_any_game(tmp_path, capsys, command):
    same = tmp_path / "both.csv"
    code, out, err = run(capsys, command[0], BUMP, *command[1:], "-n", 2, "--engine", "python", "--out", same,
                         "--rows", same)
    assert code == 2 and out == "" and not same.exists()
    assert err == f"vbr: error: --rows {same}: --out names the same file; give each its own file\n"


# ------------------------------------------------------------------------------ links out of their folder
def test_plots_replace_no_file_through_a_link_out_of_their_folder(tmp_path, capsys):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    precious = outside / "precious.svg"
    precious.write_text("keep me")
    plots = tmp_path / "plots"
    plots.mkdir()
    (plots / "win_rate.svg").symlink_to(precious)
    code, _, err = run(capsys, "sim", BUMP, "-n", 2, "--engine", "python", "--plot", plots)
    assert code == 1 and f"cannot open {plots / 'win_rate.svg'}: " in err
    assert precious.read_text() == "keep me" and (plots / "win_rate.svg").is_symlink()
    assert (plots / "win_rate.png").is_file()  # written before the svg, as every plot is: png, then svg


def test_a_report_through_a_link_out_of_its_folder_is_refused_saying_why(tmp_path, capsys):
    (tmp_path / "elsewhere").mkdir()
    precious = tmp_path / "elsewhere" / "precious.html"
    precious.write_text("keep me")
    (tmp_path / "out").mkdir()
    page = tmp_path / "out" / "page.html"
    page.symlink_to(precious)
    code, _, err = run(capsys, "report", BUMP, "-n", 2, "--engine", "python", "-o", page)
    assert code == 1 and precious.read_text() == "keep me"
    assert err == f"vbr: error: cannot open {page}: a link out of its folder: vbr replaces no file through one\n"


# ------------------------------------------------------------------------------ replay
def test_a_log_line_with_an_integer_of_5000_digits_is_refused_in_vbrs_words(tmp_path, capsys):
    log = tmp_path / "game.jsonl"
    assert main(["run", BUMP, "--quiet", "--engine", "python", "--log", str(log)]) == 0
    lines = log.read_text(encoding="utf-8").splitlines()
    lines[1] = '{"t": "say", "text": ' + "9" * 5000 + "}"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    capsys.readouterr()
    code, out, err = run(capsys, "replay", log)
    assert code == 1 and err == f"{log}:2: error: not a vbr log line: an integer of thousands of digits\n"
