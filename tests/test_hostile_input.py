"""Untrusted rule files: whatever one holds, reading, parsing and checking it ends quickly with a
located error naming the limit it went past (vbr/limits.py), never a traceback or a hang.

Large inputs are generated here at test time, just past each limit."""
import os
import subprocess
import sys

import pytest

from vbr import limits as L
from vbr.errors import VbrError
from vbr.engines.game import checked_model, load
from vbr.loader import load_rules, read_source

GOOD_TAIL = "start p\nphase p {\n  end draw\n}\n"


def write(folder, name, text):
    p = folder / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


HANG_GUARD = 120  # seconds: generous on a busy machine; a check past it has hung


def checked(path) -> str:
    """What `vbr check path` writes to stderr, run in a process of its own that must end within
    HANG_GUARD seconds with exit code 1 (errors found) and no traceback."""
    run = subprocess.run([sys.executable, "-m", "vbr", "check", str(path)], capture_output=True, text=True,
                         timeout=HANG_GUARD)
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    return run.stderr


def error_of(path) -> VbrError:
    """The located error loading `path` stops with: the same, rendered alike, under the Python
    engine and the C engine."""
    errors = []
    for engine in ("python", "c"):
        with pytest.raises(VbrError) as info:
            load(path, engine=engine)
        errors.append(info.value)
    assert errors[0].render() == errors[1].render()
    return errors[0]


# ---------------------------------------------------------------- reading files


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_device_is_refused_without_being_read():
    with pytest.raises(VbrError) as info:
        load_rules("/dev/zero")
    assert info.value.render() == ("/dev/zero: error: /dev/zero is not a regular file (a device, a pipe or a socket); "
                                   "vbr reads rule files only from regular files")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "pipe.vbr"
    os.mkfifo(fifo)
    with pytest.raises(VbrError, match="is not a regular file"):
        load_rules(fifo)


def test_a_file_larger_than_the_limit_is_refused(tmp_path):
    p = tmp_path / "huge.vbr"
    line = "# " + "x" * 1021 + "\n"  # 1024 bytes
    p.write_text('game "x"\n' + line * (L.MAX_FILE_BYTES // 1024))  # 9 bytes over the limit
    assert p.stat().st_size == L.MAX_FILE_BYTES + 9
    with pytest.raises(VbrError) as info:
        read_source(p)
    assert info.value.message == f"{p} is larger than 4 MB, the most vbr reads from a rule file"


def test_a_missing_file_has_no_invented_position_and_a_near_bundled_name():
    with pytest.raises(VbrError) as info:
        load_rules("siatk")
    assert info.value.render() == "siatk: error: cannot find rule file 'siatk'; did you mean siatka?"


def test_a_missing_file_in_capitals_is_offered_the_bundled_name_it_spells():
    # bundled names are lower case; `SIATKA` got the list of every bundled file, no suggestion,
    # where a misspelt agent (`Random`) is offered `random`
    with pytest.raises(VbrError) as info:
        load_rules("SIATKA")
    assert info.value.render() == "SIATKA: error: cannot find rule file 'SIATKA'; did you mean siatka?"


def test_a_missing_file_s_name_reaches_the_terminal_with_its_control_characters_escaped():
    with pytest.raises(VbrError) as info:
        load_rules("si\x1b[2Jatk")
    assert "\x1b" not in info.value.render() and info.value.render().startswith("si\\x1b[2Jatk: error: ")


def test_a_missing_file_far_from_any_bundled_name_lists_them(tmp_path):
    with pytest.raises(VbrError) as info:
        load_rules(tmp_path / "zzzzzz.vbr")
    assert info.value.render().startswith(f"{tmp_path / 'zzzzzz.vbr'}: error: cannot find rule file ")
    assert "(bundled rule files: cattack, siatka," in info.value.message


def test_a_byte_order_mark_is_accepted(tmp_path):
    p = tmp_path / "bom.vbr"
    p.write_bytes(b"\xef\xbb\xbf" + ('game "x"\n' + GOOD_TAIL).encode())
    assert load(p).title == "x"


@pytest.mark.parametrize("newline", ["\r", "\r\n"], ids=["cr", "crlf"])
def test_cr_and_crlf_end_lines_and_positions_count_them(tmp_path, newline):
    text = 'game "x"\n# a comment\nstart p\nphase p {\n  goto nowhere\n}\n'
    p = tmp_path / "cr.vbr"
    p.write_bytes(text.replace("\n", newline).encode())
    err = error_of(p)
    assert [(d.span.line, d.span.col, d.message) for d in err.diagnostics] == [(5, 3, "no phase `nowhere` (phases: p)")]
    assert err.render().splitlines()[1].strip() == "goto nowhere"


def test_a_file_not_named_vbr_that_is_no_rule_file_is_refused_without_showing_a_line(tmp_path):
    p = write(tmp_path, "passwd", "root:x:0:0:TOP SECRET:/root:/bin/bash\n")
    with pytest.raises(VbrError) as info:
        load_rules(p)
    assert info.value.render() == (f"{p}: error: {p} is not a rule file: a rule file starts with `game \"Title\"`, "
                                   'a scenario file with `tests for "RULES"`')


def test_a_vbr_file_that_is_no_rule_file_gets_a_located_syntax_error(tmp_path):
    p = write(tmp_path, "junk.vbr", "root:x:0:0\n")
    with pytest.raises(VbrError) as info:
        load_rules(p)
    assert (info.value.span.line, info.value.span.col) == (1, 1) and "root:x:0:0" in info.value.render()
    write(tmp_path, "named", '# a rule file without .vbr\ngame "g"\n' + GOOD_TAIL)
    assert load(tmp_path / "named").title == "g"


# ---------------------------------------------------------------- `extends`


def test_extends_of_an_absolute_path_is_refused_and_nothing_of_it_is_shown(tmp_path):
    secret = write(tmp_path, "secret.txt", "TOP SECRET LINE\n")
    p = write(tmp_path / "variant", "v.vbr", f'game "v"\nextends "{secret}"\n')
    err = error_of(p)
    assert (err.span.file, err.span.line, err.span.col) == (str(p), 2, 1)
    assert err.message.startswith("`extends` takes a bundled rule file's name (")
    assert "TOP SECRET" not in err.render()


def test_extends_of_a_misspelt_bundled_name_suggests_the_bundled_file(tmp_path):
    # as `vbr check siatk` does on the command line (docs/language.md, Limits)
    p = write(tmp_path, "v.vbr", 'game "v"\nextends "siatk"\n')
    err = error_of(p)
    assert (err.span.line, err.span.col) == (2, 1) and err.message.endswith("not 'siatk'; did you mean siatka?")
    from vbr.errors import Span
    t = write(tmp_path, "t.vbr", 'tests for "volleyball-hihg"\n')
    with pytest.raises(VbrError) as info:
        load_rules("volleyball-hihg", tests=t, span=Span(file=str(t), line=1, col=1))
    assert info.value.message.endswith("did you mean volleyball-high?")


@pytest.mark.parametrize("target", ["../base.vbr", "sub/../../base.vbr", "../secret.txt", "notes.txt"])
def test_extends_out_of_the_folder_or_of_a_non_rule_file_is_refused(tmp_path, target):
    write(tmp_path, "base.vbr", 'game "b"\n' + GOOD_TAIL)
    write(tmp_path, "secret.txt", "TOP SECRET LINE\n")
    write(tmp_path / "variant", "notes.txt", "TOP SECRET LINE\n")
    p = write(tmp_path / "variant", "v.vbr", f'game "v"\nextends "{target}"\n')
    err = error_of(p)
    assert (err.span.line, err.span.col) == (2, 1)
    assert f"or the path of a .vbr file in this file's folder or below it, not {target!r}" in err.message
    assert "TOP SECRET" not in err.render()


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_extends_through_a_symlink_out_of_the_folder_is_refused(tmp_path):
    write(tmp_path, "outside.vbr", 'game "b"\n' + GOOD_TAIL)
    (tmp_path / "variant").mkdir()
    os.symlink(tmp_path / "outside.vbr", tmp_path / "variant" / "link.vbr")
    p = write(tmp_path / "variant", "v.vbr", 'game "v"\nextends "link.vbr"\n')
    assert error_of(p).message.endswith("(it leads out of the folder)")


def test_extends_of_a_file_below_the_folder_and_of_a_bundled_name_work(tmp_path):
    write(tmp_path, "sub/base.vbr", 'game "b"\n' + GOOD_TAIL)
    assert load(write(tmp_path, "v.vbr", 'game "v"\nextends "sub/base.vbr"\n')).title == "v"
    assert load(write(tmp_path, "s.vbr", 'game "s"\nextends "siatka"\n')).seats == 2


def extends_chain(folder, n):
    """n files, f{n-1} extends ... extends f0."""
    write(folder, "f0.vbr", 'game "f0"\n' + GOOD_TAIL)
    for i in range(1, n):
        write(folder, f"f{i}.vbr", f'game "f{i}"\nextends "f{i - 1}.vbr"\n')
    return folder / f"f{n - 1}.vbr"


def test_an_extends_chain_at_the_limit_loads(tmp_path):
    assert load(extends_chain(tmp_path, L.MAX_EXTENDS_DEPTH)).title == f"f{L.MAX_EXTENDS_DEPTH - 1}"


def test_an_extends_chain_past_the_limit_is_a_located_error(tmp_path):
    n = L.MAX_EXTENDS_DEPTH + 1
    err = error_of(extends_chain(tmp_path, n))
    # the file that is the limit's last asks for one more: f1 extends f0
    assert (err.span.file, err.span.line, err.span.col) == (str(tmp_path / "f1.vbr"), 2, 1)
    assert err.message == (f"`extends` chains at most {L.MAX_EXTENDS_DEPTH} files (the limit on `extends` depth); "
                           "this chain is longer")


def test_an_extends_chain_of_a_thousand_files_ends_at_the_limit(tmp_path):
    top = extends_chain(tmp_path, 1000)
    err = error_of(top)
    assert "chains at most" in err.message


def test_the_files_of_an_extends_chain_share_the_token_limit(tmp_path):
    lines = "#\n" * 20_000
    write(tmp_path, "f0.vbr", 'game "f0"\n' + GOOD_TAIL + lines)
    write(tmp_path, "f1.vbr", 'game "f1"\nextends "f0.vbr"\n' + lines)
    write(tmp_path, "f2.vbr", 'game "f2"\nextends "f1.vbr"\n' + lines)
    err = error_of(tmp_path / "f2.vbr")
    # f2 and f1 hold 20,008 tokens each: `game "fN"` 3 (a string counts once more for each token in
    # it), `extends "fN.vbr"` 5 (`fN`, `.`, `vbr`), 20,000 comments. That leaves f0 9,984: its
    # first five lines hold 11, so its 9,974th comment, on line 5 + 9,974, is the one past.
    assert (err.span.file, err.span.line, err.span.col) == (str(tmp_path / "f0.vbr"), 5 + 9_974, 1)
    assert err.message.startswith(f"the files of this `extends` chain have more than {L.MAX_TOKENS:,} tokens together")


def test_override_problems_are_reported_with_every_other_problem(tmp_path):
    write(tmp_path, "base.vbr", 'game "b"\nvar x: int = 0\n' + GOOD_TAIL)
    p = write(tmp_path, "v.vbr", 'game "v"\nextends "base.vbr"\noverride var nope: int = 1\nvar x: int = 2\n'
                                 'phase q {\n  goto zz\n}\n')
    found = [(d.span.line, d.message.split(";")[0]) for d in error_of(p).diagnostics]
    assert found == [(3, "`override nope` overrides nothing: the base file has no `nope`"),
                     (4, "`x` is already defined at " + str(tmp_path / "base.vbr") + ":2:1"),
                     (6, "no phase `zz` (phases: p, q)")]


# ---------------------------------------------------------------- parsing: tokens, nesting, numbers


def phase_with(statement: str, head: str = "") -> str:
    return f'game "x"\nvar v: int = 0\n{head}start p\nphase p {{\n  {statement}\n  end draw\n}}\n'


def play_to_the_end(path):
    """The outcome of seed 1 of `path` with every first option taken: the same under the Python
    engine and the C engine."""
    outcomes = []
    for engine in ("python", "c"):
        state = load(path, engine=engine).new_state(seed=1)
        while not state.is_terminal():
            state.apply(state.legal_actions()[0])
        outcomes.append(state.outcome())
    assert str(outcomes[0]) == str(outcomes[1])
    return outcomes[0]


def test_an_expression_of_a_thousand_terms_is_a_located_nesting_error(tmp_path):
    p = write(tmp_path, "plus.vbr", phase_with("v = " + " + ".join(["1"] * 1000)))
    err = error_of(p)
    assert (err.span.line, err.span.col) == (5, 3)  # the statement holding it
    assert err.message.startswith(f"this nests more than {L.MAX_NESTING} levels deep (each operator, call, "
                                  "statement and block is a level), the limit on nesting")


@pytest.mark.parametrize("engine", ["python", "c"])
def test_an_expression_at_the_nesting_limit_checks_and_plays(tmp_path, engine):
    # start > game_file > phase > block > assign, then n - 1 `+` nodes, then the first `1`: n + 5 levels
    n = L.MAX_NESTING - 5
    log: list = []
    load(write(tmp_path, "ok.vbr", phase_with("v = " + " + ".join(["1"] * n) + '\n  say "{v}"')),
         engine=engine).new_state(1, log)
    assert [e["text"] for e in log if e["t"] == "say"] == [str(n)]  # n ones added up
    with pytest.raises(VbrError, match="the limit on nesting"):
        load(write(tmp_path, "over.vbr", phase_with("v = " + " + ".join(["1"] * (n + 1)))), engine=engine)


def test_nested_blocks_past_the_limit_are_reported_at_the_statement_that_goes_past(tmp_path):
    # each `if` adds two levels (the if and its block); the assignment inside 48 of them is at 101
    n = 48
    body = "".join("if true {\n" for _ in range(n)) + "v = 1\n" + "}\n" * n
    err = error_of(write(tmp_path, "ifs.vbr", phase_with(body)))
    assert (err.span.line, err.span.col) == (5 + n, 1) and "the limit on nesting" in err.message


def test_a_say_hole_gets_what_is_left_of_the_nesting_limit(tmp_path):
    p = write(tmp_path, "hole.vbr", phase_with('say "{' + "+".join(["1"] * 200) + '}"'))
    err = error_of(p)
    assert (err.span.line, err.span.col) == (5, 9)  # the hole's first character, after `say "{`
    assert "the limit on nesting" in err.message


def test_an_integer_literal_of_5000_digits_is_a_located_error(tmp_path):
    err = error_of(write(tmp_path, "big.vbr", phase_with("v = " + "9" * 5000)))
    assert (err.span.line, err.span.col) == (5, 7)
    assert err.message == ("the number 999999999999...999999 (5000 digits) is too large: integers in a rule file "
                           f"are at most {L.MAX_INT} (2^63 - 1)")


def test_integer_literals_stop_at_2_63_minus_1(tmp_path):
    assert play_to_the_end(write(tmp_path, "max.vbr", phase_with(f"v = {L.MAX_INT} - {L.MAX_INT}")))
    err = error_of(write(tmp_path, "over.vbr", phase_with(f"v = {L.MAX_INT + 1}")))
    assert err.message.startswith(f"the number {L.MAX_INT + 1} is too large")


def test_a_file_of_too_many_tokens_is_refused_at_the_token_past_the_limit(tmp_path):
    # `game "x"` is 3 tokens (a string counts once, and once more for each token written inside
    # it), `var v: int = 0` 6, `start p` 2, `phase p {` 3: 14; then each `v += 1` is 4 (`+`, `=`)
    head = 'game "x"\nvar v: int = 0\nstart p\nphase p {\n'
    k, r = divmod(L.MAX_TOKENS + 1 - 14, 4)  # token number MAX_TOKENS + 1: r-th token of statement k + 1
    p = write(tmp_path, "long.vbr", head + "v += 1\n" * (k + 1) + "end draw\n}\n")
    err = error_of(p)
    assert (err.span.line, err.span.col) == (4 + k + 1, [1, 3, 4, 6][r - 1] if r else 6)
    assert err.message == (f"the file has more than {L.MAX_TOKENS:,} tokens (words, numbers, strings, symbols and "
                           "comments), the limit on a file's size; split it with `extends`")


TOO_MANY_TOKENS = (f"error: the file has more than {L.MAX_TOKENS:,} tokens (words, numbers, strings, symbols and "
                   "comments), the limit on a file's size; split it with `extends`")


def test_a_file_of_millions_of_comments_is_refused_by_vbr_check_within_the_hang_guard(tmp_path):
    # the five lines before the comments hold 11 tokens (`"x"` counts twice); the comment on line
    # 5 + k is token 11 + k, so token MAX_TOKENS + 1 is on line MAX_TOKENS - 5
    p = write(tmp_path, "c.vbr", 'game "x"\nstart p\nphase p {\n  end draw\n}\n' + "#\n" * 1_000_000)
    assert checked(p).splitlines()[0] == f"{p}:{L.MAX_TOKENS - 5}:1: {TOO_MANY_TOKENS}"


def test_a_megabyte_of_statements_is_refused_by_vbr_check_within_the_hang_guard(tmp_path):
    # 14 tokens on the four lines before the statements; each `  v += 1` is 4 (`v`, `+`, `=`, `1` at
    # columns 3, 5, 6, 8): token MAX_TOKENS + 1 is the r-th of statement k + 1, on line 4 + k + 1
    p = write(tmp_path, "mb.vbr", 'game "x"\nvar v: int = 0\nstart p\nphase p {\n' + "  v += 1\n" * 120_000 + "}\n")
    assert p.stat().st_size > 1_000_000
    k, r = divmod(L.MAX_TOKENS + 1 - 14, 4)
    line, col = (4 + k + 1, [3, 5, 6][r - 1]) if r else (4 + k, 8)
    assert checked(p).splitlines()[0] == f"{p}:{line}:{col}: {TOO_MANY_TOKENS}"


# ---------------------------------------------------------------- checking: chains, work, sizes


def located(err: VbrError, fragment: str) -> list[tuple[int, int, str]]:
    return [(d.span.line, d.span.col, d.message) for d in err.diagnostics if fragment in d.message]


def chain_of_fns(n: int) -> str:
    fns = "".join(f"fn f{i}(a: int) = f{i - 1}(a) + 1\n" for i in range(1, n))
    return 'game "x"\nfn f0(a: int) = a\n' + fns + f"var v: int = 0\nstart p\nphase p {{\n  v = f{n - 1}(1)\n  end draw\n}}\n"


def test_a_chain_of_a_thousand_fns_is_one_located_error_at_the_fn_past_the_limit(tmp_path):
    # f0's depth is 2 (its parameter's type); each f_i adds its `+` and call: f_i is 2i + 2 deep,
    # first past 150 at f75 (152), declared on line 77
    err = error_of(write(tmp_path, "fns.vbr", chain_of_fns(1000)))
    assert located(err, "depth through calls") == [
        (77, 1, f"this nests 152 levels deep counting into the functions, procedures and consts it uses; "
                f"the limit on depth through calls is {L.MAX_DEPTH_THROUGH_CALLS} (a chain of calls too long?)")]


def test_a_chain_of_fns_within_the_limit_checks_and_plays(tmp_path):
    # f72 is 146 deep, used 3 deep in the phase (block, assignment, call): 149
    assert play_to_the_end(write(tmp_path, "fns.vbr", chain_of_fns(73)))
    with pytest.raises(VbrError, match="depth through calls"):  # f73 is 148, 151 in the phase
        load(write(tmp_path, "over.vbr", chain_of_fns(74)))


def test_a_chain_of_a_thousand_procs_is_one_located_error(tmp_path):
    # p0 is 2 deep (block, say); each p_i adds block, call statement and call: 3i + 2, past 150 at p50
    procs = "".join(f"proc p{i}() {{\n  p{i - 1}()\n}}\n" for i in range(1, 1000))
    text = 'game "x"\nproc p0() {\n  say "hi"\n}\n' + procs + "start p\nphase p {\n  p999()\n  end draw\n}\n"
    err = error_of(write(tmp_path, "procs.vbr", text))
    assert [(line, col) for line, col, _ in located(err, "depth through calls")] == [(2 + 3 * 50, 1)]


def test_a_chain_of_a_thousand_consts_is_one_located_error(tmp_path):
    # c0 is 1 deep; each c_i adds its `+` and the name: 2i + 1, past 150 at c75 (151), line 77
    consts = "".join(f"const c{i} = c{i - 1} + 1\n" for i in range(1, 1000))
    text = 'game "x"\nconst c0 = 1\n' + consts + "var v: int = 0\nstart p\nphase p {\n  v = c999\n  end draw\n}\n"
    err = error_of(write(tmp_path, "consts.vbr", text))
    assert [(line, col) for line, col, _ in located(err, "depth through calls")] == [(77, 1)]
    assert "this nests 151 levels deep" in err.message


def test_a_const_from_40_doubling_fns_is_refused_before_it_is_computed(tmp_path):
    # g0 is 3 nodes (parameter, its type, body); g_i is 7 of its own plus two g_(i-1): 10 * 2^i - 7,
    # first past 50,000 at g13 (81,913), on line 15
    fns = "".join(f"fn g{i}(a: int) = g{i - 1}(a) + g{i - 1}(a)\n" for i in range(1, 41))
    text = 'game "x"\nfn g0(a: int) = a\n' + fns + "const c = g40(1)\n" + phase_with("v = c").split("\n", 1)[1]
    err = error_of(write(tmp_path, "expo.vbr", text))
    assert located(err, "expanded size") == [
        (15, 1, f"fn `g13` is more than {L.MAX_EXPANDED_SIZE:,} expression nodes with every fn it calls written "
                "out, the limit on expanded size (functions that each call the one before more than once?)")]


def test_doubling_fns_within_the_expanded_size_check_and_compute(tmp_path):
    fns = "".join(f"fn g{i}(a: int) = g{i - 1}(a) + g{i - 1}(a)\n" for i in range(1, 13))  # g12: 40,953
    text = 'game "x"\nfn g0(a: int) = a\n' + fns + "const c = g12(1)\n" + phase_with('v = c\n  say "{v}"').split("\n", 1)[1]
    log: list = []
    load(write(tmp_path, "ok.vbr", text)).new_state(0, log)
    assert [e["text"] for e in log if e["t"] == "say"] == [str(2 ** 12)]


def test_user_limits_above_the_caps_are_reported_with_the_maximum(tmp_path):
    p = write(tmp_path, "lim.vbr", phase_with("v = 1", head="limit depth 100000000\nlimit steps 999999999999\n"))
    assert [(d.span.line, d.message) for d in error_of(p).diagnostics] == [
        (3, "`limit depth` may be at most 10,000, the most a rule file may ask for"),
        (4, "`limit steps` may be at most 100,000,000, the most a rule file may ask for")]
    caps = "".join(f"limit {k} {v}\n" for k, v in L.MAX_USER_LIMITS.items())
    assert checked_model(write(tmp_path, "caps.vbr", phase_with("v = 1", head=caps))).limits == L.MAX_USER_LIMITS


def test_a_court_of_a_billion_columns_or_a_huge_net_is_refused_at_check(tmp_path):
    court = "court {\n  rows 10\n  cols 1000000000\n}\n"
    err = error_of(write(tmp_path, "court.vbr", phase_with("v = 1", head=court)))
    assert located(err, "court") == [(5, 3, "a court has 1 to 100 cols, not 1,000,000,000 (the limit on a court's size)")]
    court = "court {\n  rows 2\n  cols 2\n  net 100000000\n}\n"
    err = error_of(write(tmp_path, "net.vbr", phase_with("v = 1", head=court)))
    assert located(err, "court") == [(6, 3, "a court has 0 to 100 net rows, not 100,000,000 (the limit on a court's size)")]


def test_a_literal_range_too_large_is_refused_at_check(tmp_path):
    err = error_of(write(tmp_path, "r.vbr", phase_with("choose n from 1..100000000 by 0")))
    assert located(err, "range") == [(5, 17, "the range 1..100000000 has 100,000,000 items; a range written with "
                                             f"fixed ends has at most {L.MAX_LITERAL_RANGE:,}, the limit on ranges")]
    assert load(write(tmp_path, "ok.vbr", phase_with(f"choose n from 1..{L.MAX_LITERAL_RANGE} by 0")))


def test_a_kind_with_too_many_fields_is_refused_at_the_first_field_past_the_limit(tmp_path):
    fields = ", ".join(f"f{i}: int" for i in range(L.MAX_FIELDS + 1))
    err = error_of(write(tmp_path, "k.vbr", phase_with("v = 1", head=f"kind card {{ {fields} }}\n")))
    col = len("kind card { ") + len(", ".join(f"f{i}: int" for i in range(L.MAX_FIELDS))) + len(", ") + 1
    assert located(err, "fields") == [(3, col, f"kind `card` has more than {L.MAX_FIELDS} fields, the limit on fields of a kind")]


def test_a_kind_of_100000_fields_is_refused_at_the_token_limit_within_the_hang_guard(tmp_path):
    # 9 tokens on the two lines before the kind, `kind card {` 3 and `f0: int` 3: 15; then each
    # `, fI: int` is 4, so token MAX_TOKENS + 1 is the name of field `n` (the second of its four)
    fields = ", ".join(f"f{i}: int" for i in range(100_000))
    p = write(tmp_path, "k.vbr", phase_with("v = 1", head=f"kind card {{ {fields} }}\n"))
    n, second = divmod(L.MAX_TOKENS + 1 - 15, 4)
    assert second == 2
    n += 1
    col = len("kind card { ") + len(", ".join(f"f{i}: int" for i in range(n))) + len(", ") + 1
    assert checked(p).splitlines()[0] == f"{p}:3:{col}: {TOO_MANY_TOKENS}"


def test_enum_members_and_option_values_past_the_limit_are_refused(tmp_path):
    n = L.MAX_MEMBERS + 1
    head = "enum big { " + ", ".join(f"m{i}" for i in range(n)) + " }\n"
    head += "option o = 0 in { " + ", ".join(str(i) for i in range(n)) + " }\n"
    err = error_of(write(tmp_path, "e.vbr", phase_with("v = 1", head=head)))
    assert [(line, msg) for line, _, msg in located(err, "the limit on")] == [
        (3, f"enum `big` has more than {L.MAX_MEMBERS:,} members, the limit on enum members"),
        (4, f"option `o` lists more than {L.MAX_MEMBERS:,} values, the limit on an option's values")]


def test_too_many_declarations_are_refused_at_the_first_past_the_limit(tmp_path):
    consts = "".join(f"const c{i} = {i}\n" for i in range(L.MAX_DECLARATIONS + 1))
    err = error_of(write(tmp_path, "d.vbr", 'game "x"\n' + consts + GOOD_TAIL))
    # the declaration number MAX_DECLARATIONS + 1 is const c5000, on line 5002
    assert located(err, "declarations") == [(L.MAX_DECLARATIONS + 2, 1, f"more than {L.MAX_DECLARATIONS:,} declarations "
                                             "(with everything `extends` brings in), the limit on declarations")]


def test_the_language_reference_lists_every_limit_with_its_value():
    from pathlib import Path
    doc = (Path(__file__).resolve().parent.parent / "docs" / "language.md").read_text()
    section = doc[doc.index("### Reading, parsing and checking"):doc.index("### Run-time limits")]
    values = [L.MAX_FILE_BYTES, L.MAX_EXTENDS_DEPTH, L.MAX_TOKENS, L.MAX_NESTING, L.MAX_INT, L.MAX_DECLARATIONS,
              L.MAX_DEPTH_THROUGH_CALLS, L.MAX_EXPANDED_SIZE, L.MAX_WRITTEN_OUT, L.MAX_FIELDS, L.MAX_MEMBERS, L.MAX_COURT_SIDE,
              L.MAX_LITERAL_RANGE]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    for value in values:
        assert any(f"| {value:,}" in row or f"({value:,}" in row for row in rows), f"no row gives {value:,}"
    for name, value in L.MAX_USER_LIMITS.items():
        assert f"| `limit {name}` | at most {value:,} |" in section


def test_a_scenario_file_names_its_rules_by_bundled_name_or_relative_vbr_path_only(tmp_path):
    from vbr.errors import Span
    write(tmp_path, "secret.txt", "TOP SECRET LINE\n")
    tests = write(tmp_path / "tests", "t.vbr", 'tests for "../secret.txt"\n')
    for name in ["../secret.txt", str(tmp_path / "secret.txt"), "/etc/passwd"]:
        with pytest.raises(VbrError) as info:
            load_rules(name, tests=tests, span=Span(file=str(tests), line=1, col=1))
        assert info.value.message.startswith("`tests for` takes a bundled rule file's name (")
        assert "TOP SECRET" not in info.value.render()
    write(tmp_path, "rules.vbr", 'game "r"\n' + GOOD_TAIL)
    assert load_rules("../rules.vbr", tests=tests).title == "r"
    assert load_rules("siatka", tests=tests).title == "Siatka"


def test_an_error_located_in_a_file_that_is_not_a_rule_file_quotes_none_of_it(tmp_path):
    from vbr.errors import Span, VbrError
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET=1\n")
    text = VbrError.at(Span(file=str(secret), line=1, col=1), "something").render()
    assert "something" in text and "TOPSECRET" not in text
    rule = tmp_path / "g.vbr"
    rule.write_text('game "x"\nstart p\nphase p { end draw }\n')
    assert "phase p { end draw }" in VbrError.at(Span(file=str(rule), line=3, col=1), "here").render()


def test_many_problems_on_a_long_line_render_in_bounded_size(tmp_path):
    """Each problem quotes its line: 12,000 problems on one 180 kB line once printed 2 GB. The
    line is cut to a window around the caret, and only the first 100 problems are rendered."""
    from vbr.errors import MAX_SHOWN, SHOWN_WIDTH
    fields = ", ".join(f"f{i}: nope" for i in range(3000))  # 3,000 unknown types on one line
    p = tmp_path / "wide.vbr"
    p.write_text(f'game "x"\nkind K {{ {fields} }}\nstart q\nphase q {{ end draw }}\n')
    with pytest.raises(VbrError) as info:
        load(p)
    text = info.value.render()
    assert len(info.value.diagnostics) > MAX_SHOWN
    assert text.count(": error: ") == MAX_SHOWN
    assert text.endswith(f"more problems (the first {MAX_SHOWN} are shown)")
    lines = text.splitlines()
    assert max(len(x) for x in lines) <= SHOWN_WIDTH + 200  # the head's message plus a cut line
    # the caret still sits under the name the message is about
    head, quoted, caret = lines[3:6]
    name = head.split("`")[1]
    assert quoted[caret.index("^"):].startswith(name)


def test_a_scenario_file_may_not_name_a_rule_file_outside_its_reach(tmp_path):
    from vbr.scenario import run_file
    p = tmp_path / "evil_test.vbr"
    p.write_text('tests for "/etc/passwd"\n\nscenario "x" {\n  expect true\n}\n')
    with pytest.raises(VbrError) as info:
        run_file(p)
    assert "takes a bundled rule file's name" in info.value.render() and "root:" not in info.value.render()


def test_check_and_graph_of_procedures_each_calling_the_next_twice_end_and_draw_every_phase(tmp_path):
    # each call is walked under its own conditions: 40 levels of two calls each were 2**40 walks
    # of p40's body, and `vbr check` never ended (vbr/turn_flow.py's WALK_BUDGET bounds it)
    text = 'game "Doubling"\nseats 2\nstart one\nvar x: int = 0\n' + "".join(
        f"proc p{i}() {{\n  p{i + 1}()\n  p{i + 1}()\n}}\n" for i in range(40)) + (
        "proc p40() {\n  x += 1\n}\nphase one {\n  p0()\n  choose m from [1, 2] by 0 as \"m\"\n  goto two\n}\n"
        "phase two {\n  p0()\n  end winner 0\n}\n")
    path = write(tmp_path, "doubling.vbr", text)
    check = subprocess.run([sys.executable, "-m", "vbr", "check", "--strict", str(path)], capture_output=True,
                           text=True, timeout=HANG_GUARD)
    assert check.returncode == 0 and check.stdout == f"{path}: ok\n", check.stdout + check.stderr
    graph = subprocess.run([sys.executable, "-m", "vbr", "graph", str(path)], capture_output=True, text=True,
                           timeout=HANG_GUARD)
    assert graph.returncode == 0, graph.stderr
    assert '"one" -> "two"' in graph.stdout and '"two" -> "game over"' in graph.stdout
