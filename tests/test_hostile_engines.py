"""Untrusted rule files under the typed engines (issue 35, goal 7): every hostile file the tests
use (the recipes of test_hostile_input.py and test_runtime_limits.py, and run-time abuses of the
constructs the typed program adds) gives the same located error, or the same end, under
`--engine python` and `--engine c`, each run in a process of its own bounded in time and memory.
Each file's end is also worked out by hand from its text (EXPECTED): refused while read or checked,
at the limit it passes; stopped in play, at the rule that faults; or played to its end.

The typed engines keep their own bounds (a unit started or a loop's head reached is a step; a
choice offers, and a range built in play holds, at most 4,096; docs/cli.md, docs/language.md)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from vbr import limits as L
from vbr.ir.build import MAX_LIST_VAR

ROOT = Path(__file__).resolve().parent.parent
HANG_GUARD = 240  # seconds for a file under both engines: generous on a busy machine
MEMORY = 3 << 30  # bytes of address space a process may take (the C compiler's included)
MAX = 2 ** 63 - 1

# One process per file: under each typed engine, load the file, play random seats from seed 1 to the
# end, and say what came of it: refused at load, a construct the typed engines cannot run, a
# located error in play, or the end and the words.
CHILD = r"""
import hashlib, json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[2]), int(sys.argv[2])))
path = sys.argv[1]
from vbr.engines.game import load
from vbr.errors import EngineUnavailable, VbrError

def outcome(engine):
    try:
        game = load(path, {}, engine=engine)
    except VbrError as e:
        return {"refused at load": e.render()}
    except EngineUnavailable as e:
        return {"cannot run": e.located()}
    try:
        s = game.new_state(1)
        s.play_random(2)
    except VbrError as e:
        return {"stopped in play": e.render()}
    words = hashlib.sha256(repr([int(x) for x in s.words_in_use()]).encode()).hexdigest()
    return {"end": str(s.outcome()), "words": words}

print(json.dumps({"python": outcome("python"), "c": outcome("c")}))
"""


def outcomes(path: Path) -> dict:
    run = subprocess.run([sys.executable, "-c", CHILD, str(path), str(MEMORY)], capture_output=True, text=True,
                         timeout=HANG_GUARD, cwd=ROOT)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr[-3000:]
    return json.loads(run.stdout.splitlines()[-1])


# ------------------------------------------------------------------------------------ the files
GOOD_TAIL = "start p\nphase p {\n  end draw\n}\n"


def phase_with(statement: str, head: str = "") -> str:
    """test_hostile_input.py's shape: a var `v`, one statement, then the end."""
    return f'game "x"\nvar v: int = 0\n{head}start p\nphase p {{\n  {statement}\n  end draw\n}}\n'


def phase(body: str, head: str = "var n: int = 0\n") -> str:
    """test_runtime_limits.py's shape."""
    return 'game "x"\n' + head + "start p\nphase p {\n" + body + "  end draw\n}\n"


def doubling_procs(n: int) -> str:
    procs = "proc p0() {\n  t += 1\n}\n" + "".join(f"proc p{i}() {{\n  p{i - 1}()\n  p{i - 1}()\n}}\n"
                                                   for i in range(1, n))
    return ('game "x"\nseats 2\nvar picks: list of int per seat = [[1, 2], [3]]\nvar t: int = 0\n' + procs +
            f"start one\nphase one {{\n  for r in picks {{\n    p{n - 1}()\n  }}\n  end draw\n}}\n")


def fn_chain(n: int) -> str:
    fns = "".join(f"fn f{i}(a: int) = f{i - 1}(a) + 1\n" for i in range(1, n))
    return 'game "x"\nfn f0(a: int) = a\n' + fns + f"var v: int = 0\nstart p\nphase p {{\n  v = f{n - 1}(1)\n  end draw\n}}\n"


def doubling(levels: int, sign: str = "+") -> str:
    return "fn g0(a: int) = a\n" + "".join(f"fn g{i}(a: int) = g{i - 1}(a) {sign} g{i - 1}(a)\n"
                                            for i in range(1, levels + 1))


def nested_sums(n: int, inner: str = "1") -> str:
    """n aggregates, each inside the one before: sum(sum(1 for x1 in 1..2) for x0 in 1..2)."""
    for i in reversed(range(n)):
        inner = f"sum({inner} for x{i} in 1..2)"
    return inner


def kind_fields(n: int) -> str:
    return phase_with("v = 1", head="kind card { " + ", ".join(f"f{i}: int" for i in range(n)) + " }\n")


AT_READING = {  # test_hostile_input.py: refused while the file is read, parsed or checked, or plays
    "a thousand terms": phase_with("v = " + " + ".join(["1"] * 1000)),
    "48 nested ifs": phase_with("".join("if true {\n" for _ in range(48)) + "v = 1\n" + "}\n" * 48),
    "a say hole of 200 terms": phase_with('say "{' + "+".join(["1"] * 200) + '}"'),
    "5000 digits": phase_with("v = " + "9" * 5000),
    "2^63": phase_with(f"v = {MAX + 1}"),
    "2^63 - 1 exactly": phase_with(f"v = {MAX} - {MAX}"),
    "past the token limit": 'game "x"\nvar v: int = 0\nstart p\nphase p {\n' + "v += 1\n" * (L.MAX_TOKENS // 4 + 2)
                            + "end draw\n}\n",
    "a million comments": 'game "x"\nstart p\nphase p {\n  end draw\n}\n' + "#\n" * 1_000_000,
    "a chain of a thousand fns": fn_chain(1000),
    "a chain of fns at the limit": fn_chain(73),
    "a chain of a thousand procs": 'game "x"\nproc p0() {\n  say "hi"\n}\n' + "".join(
        f"proc p{i}() {{\n  p{i - 1}()\n}}\n" for i in range(1, 1000)) + "start p\nphase p {\n  p999()\n  end draw\n}\n",
    "a chain of a thousand consts": 'game "x"\nconst c0 = 1\n' + "".join(
        f"const c{i} = c{i - 1} + 1\n" for i in range(1, 1000)) + "var v: int = 0\nstart p\nphase p {\n  v = c999\n  end draw\n}\n",
    "40 doubling fns": 'game "x"\n' + doubling(40) + "const c = g40(1)\n" + phase_with("v = c").split("\n", 1)[1],
    "12 doubling fns": 'game "x"\n' + doubling(12) + "const c = g12(1)\n" + phase_with("v = c").split("\n", 1)[1],
    "12 nested aggregates": phase_with("v = " + nested_sums(12)),
    "13 nested aggregates": phase_with("v = " + nested_sums(13)),
    # Python compiles at most 20 loops nested in one function: past it the Python engine had no source
    "30 nested aggregates": phase_with("v = " + nested_sums(30)),
    "13 nested aggregates, 6 of them in a fn": phase_with("v = " + nested_sums(7, "six(1)"),
                                                          head="fn six(a: int) = " + nested_sums(6, "a") + "\n"),
    "limits above the caps": phase_with("v = 1", head="limit depth 100000000\nlimit steps 999999999999\n"),
    "limits at the caps": phase_with("v = 1", head="".join(f"limit {k} {v}\n" for k, v in L.MAX_USER_LIMITS.items())),
    "a billion columns": phase_with("v = 1", head="court {\n  rows 10\n  cols 1000000000\n}\n"),
    "a huge net": phase_with("v = 1", head="court {\n  rows 2\n  cols 2\n  net 100000000\n}\n"),
    "a literal range too large": phase_with("choose n from 1..100000000 by 0"),
    "a literal range at the limit": phase_with(f"choose n from 1..{L.MAX_LITERAL_RANGE} by 0"),
    "fields past the limit": kind_fields(L.MAX_FIELDS + 1),
    "fields at the limit": kind_fields(L.MAX_FIELDS),
    "members past the limit": phase_with("v = 1", head="enum big { " + ", ".join(
        f"m{i}" for i in range(L.MAX_MEMBERS + 1)) + " }\n"),
    "declarations past the limit": 'game "x"\n' + "".join(
        f"const c{i} = {i}\n" for i in range(L.MAX_DECLARATIONS + 1)) + GOOD_TAIL,
    "3000 unknown types on a line": 'game "x"\nkind K { ' + ", ".join(
        f"f{i}: nope" for i in range(3000)) + " }\nstart q\nphase q { end draw }\n",
}

IN_PLAY = {  # test_runtime_limits.py, and the typed program's own constructs abused
    "nested repeats": phase("  repeat 1000000 {\n    repeat 1000000 {\n      n += 1\n    }\n  }\n"),
    "nested bounded loops": phase("  loop max 1000000000 {\n    loop max 1000000000 {\n      n += 1\n    }\n  }\n",
                                  "limit steps 20000\nvar n: int = 0\n"),
    "a loop of skipped choices": phase("  loop max 1000000 {\n    choose x from [] by 0 optional\n  }\n",
                                       "limit steps 5000\nseats 2\n"),
    "nested comprehensions": phase("  let xs = 1..1000\n  n = sum(sum(1 for y in xs) for x in xs)\n",
                                   "limit steps 50000\nvar n: int = 0\n"),
    "a range of two million": phase("  let xs = 1..n\n", "var n: int = 2000000\n"),
    "a range past the integers": phase("  let xs = 0 - n..n\n", f"var n: int = {MAX}\n"),
    # a `for` over a per-seat list var's slots calling a procedure that calls the next twice, 40
    # deep: what the loop may assign was gathered anew for each call (2**40 walks of bodies)
    "40 doubling procs in a for over a per-seat list": doubling_procs(40),
    # lists of a million items worked out in play: 8 MB each, past the C stack (a segfault once)
    "a choice from a million numbers filtered": phase_with("choose n from 1..1000000 where n < 5 by 0"),
    "every of a million numbers": phase_with("v = count(every(x for x in 1..1000000))"),
    # a million items holding 4,000 values: each offered once (the C engine compared each with
    # every value kept, 4e9 comparisons a choice)
    "a choice from a million repeats": phase_with("choose n from every(x % 4000 for x in 1..1000000) by 0"),
    "a choice of 10001": phase("  choose x from 1..10001 by 0\n", "seats 2\n"),
    "a choice of 10000": phase("  choose x from 1..10000 by 0\n", "seats 2\n"),
    "a sum past 64 bits": phase("  loop max 100 {\n    n = n + n\n  }\n", "var n: int = 3\n"),
    "a product past 64 bits": phase("  loop max 100 {\n    n = n * 1000\n  }\n", "var n: int = 3\n"),
    "a difference past 64 bits": phase("  n = 3 - n - n\n", f"var n: int = {MAX}\n"),
    "+= past 64 bits": phase("  n += 1\n", f"var n: int = {MAX}\n"),
    "sum() past 64 bits": phase(f"  n = sum(x for x in [{MAX}, n])\n", "var n: int = 3\n"),
    "the largest integer": phase(f"  n = {MAX - 1}\n  n += 1\n  n = 0 - n\n"),
    "a heavy fn called": phase("  n = g12(n)\n", doubling(12, "-") + "var n: int = 0\n"),
    "a loop of heavy fn calls": phase("  loop max 1000000 {\n    n = g12(n)\n  }\n",
                                      doubling(12, "-") + "limit steps 5000\nvar n: int = 0\n"),
    # a phase going to itself: the C engine plays it again without leaving its function
    "a phase going to itself without end": phase("  n += 1\n  if n > 0 {\n    goto p\n  }\n",
                                                 "limit steps 5000\nvar n: int = 0\n"),
    "a procedure calling itself without end": phase("  deeper(1)\n", "var n: int = 0\nproc deeper(k: int) {\n"
                                                    "  n = k\n  deeper(k + 1)\n}\n"),
    # deeper than Python's own stack goes (about 1,000 calls): the calls push frames, not functions
    "a procedure calling itself 5000 deep": phase("  deeper(5000)\n", "limit depth 6000\nvar n: int = 0\n"
                                                 "proc deeper(k: int) {\n  n += 1\n  if k > 0 {\n    deeper(k - 1)\n  }\n}\n"),
    "a procedure calling itself past limit depth 6000": phase("  deeper(1)\n", "limit depth 6000\nvar n: int = 0\n"
                                                              "proc deeper(k: int) {\n  n = k\n  deeper(k + 1)\n}\n"),
    # an emit pushes the frames of all its handlers at once, so 201 handlers pass `limit depth` (200)
    "an event of 201 handlers": phase("  emit ping()\n", "var n: int = 0\nevent ping()\n" + "".join(
        f"on ping() {{\n  n += {i % 3}\n}}\n" for i in range(201))),
    "an event of 199 handlers": phase("  emit ping()\n", "var n: int = 0\nevent ping()\n" + "".join(
        f"on ping() {{\n  n += {i % 3}\n}}\n" for i in range(199))),
    "things past any bound": phase("  repeat 100 {\n    create Chip(v: n) in pile times 1000\n  }\n",
                                   "kind Chip { v: int }\nzone pile public\nvar n: int = 0\n"),
    "a division by zero": phase("  n = 7 / (n - n)\n", "var n: int = 3\n"),
    "two faults in one expression": phase("  n = (7 / m) + other(n)\n", "var n: int = 5\nvar m: int = 0\n"),
    "two faults in one built-in's arguments": phase("  n = distance(field(0, n), cell_at(n, 1, 1))\n",
                                                    "court {\n  rows 2\n  cols 2\n  field 1 at row 1 col 1\n}\n"
                                                    "var n: int = 5\n"),
    "other of 5": phase("  n = other(n)\n", "var n: int = 5\n"),
    "a seat's slot out of range": phase("  s[n] = 1\n", "seats 2\nvar s: int per seat = 0\nvar n: int = 7\n"),
    "an index past a list": phase("  n = [1, 2, 3][n]\n", "var n: int = 3\n"),
    "abs of none": phase("  n = abs(m)\n", "var n: int = 0\nvar m: int = none\n"),
    "arithmetic on none": phase("  n = m + 1\n", "var n: int = 0\nvar m: int = none\n"),
    "a list var past its bound": phase("  picks = 1..n\n", "var picks: list of int = []\nvar n: int = 300\n"),
    "a list var per seat past its slots": phase("  n = 1\n", "seats 2\nvar h: list of int per seat = [[1], [2], [3]]\n"
                                                "var n: int = 0\n"),
    "a list var read past its end": phase("  n = picks[n]\n", "var picks: list of int = [1, 2]\nvar n: int = 2\n"),
    "step far off the court": phase("  ball = step(ball, forward, 0, n)\n", "court {\n  rows 2\n  cols 2\n"
                                    "  field 1 at row 1 col 1\n}\n"
                                    "direction forward = (0, 1)\nvar ball: cell = none\nvar n: int = 4611686018427387904\n"
                                    "setup {\n  ball = field(0, 1)\n}\n"),
    "step paying far off the court": phase("  ball = step(ball, far, 0, 1024, 0)\n", "court {\n  rows 2\n  cols 2\n"
                                           "  net 1\n  field 1 at row 1 col 1\n}\n"
                                           f"direction far = ({MAX}, {MAX})\nvar ball: cell = none\n"
                                           "setup {\n  ball = field(0, 1)\n}\n"),
    "step along none": phase("  ball = step(ball, d, 0, 1 / n)\n", "court {\n  rows 2\n  cols 2\n"
                             "  field 1 at row 1 col 1\n}\n"
                             "direction forward = (0, 1)\nvar ball: cell = none\nvar d: dir = none\nvar n: int = 0\n"
                             "setup {\n  ball = field(0, 1)\n}\n"),
    "reach in play past 64": phase("  let ends = reach(field(0, 1), n, 0, [d])\n", "court {\n  rows 2\n  cols 2\n"
                                   "  field 1 at row 1 col 1\n}\ndirection forward = (0, 1)\nvar d: dir = forward\n"
                                   "var n: int = 65\n"),
    "reach in play on the largest court": phase("  n = count(reach(field(0, 1), 64, 0, [d, e], n))\n",
                                                "court {\n  rows 100\n  cols 100\n  net 100\n  field 1 at row 1 col 1\n}\n"
                                                "direction forward = (0, 1)\ndirection right = (1, 0)\n"
                                                "var d: dir = forward\nvar e: dir = right\nvar n: int = 0\n"),
}


REFUSED, STOPPED, END = "refused at load", "stopped in play", "end"
OUT_OF_INTEGERS = "error: a result out of the range of integers (-9223372036854775807..9223372036854775807)"
STEP_OFF = "error: `step` from or along none, or to a position off the court by more than 32768"
# What each file comes to, worked out from its text: the kind of end, and a part of its message
# (`LINE:COL: error: ...` where the place is plain from the recipe: phase_with's statement is on
# line 5; a step limit is met while a phase runs and is located at `phase p`).
EXPECTED = {
    "a thousand terms": (REFUSED, "hostile.vbr:5:3: error: this nests more than 100 levels deep"),
    "48 nested ifs": (REFUSED, "error: this nests more than 100 levels deep"),
    "a say hole of 200 terms": (REFUSED, "hostile.vbr:5:9: error: this nests more than 100 levels deep"),  # the hole
    "5000 digits": (REFUSED, "hostile.vbr:5:7: error: the number 999999999999...999999 (5000 digits) is too large"),
    "2^63": (REFUSED, "hostile.vbr:5:7: error: the number 9223372036854775808 is too large"),
    "2^63 - 1 exactly": (END, "draw"),
    "past the token limit": (REFUSED, f"error: the file has more than {L.MAX_TOKENS:,} tokens"),
    "a million comments": (REFUSED, f"error: the file has more than {L.MAX_TOKENS:,} tokens"),
    "a chain of a thousand fns": (REFUSED, "the limit on depth through calls is 150"),
    "a chain of fns at the limit": (END, "draw"),
    "12 nested aggregates": (END, "draw"),  # v = 2**12: each sum adds up its body twice
    "13 nested aggregates": (REFUSED, "hostile.vbr:4:1: error: this nests 13 loops over lists in one another "
                                      "(aggregates, comprehensions, `in`), counting into the fns and consts it "
                                      f"uses; the limit on nested loops is {L.MAX_LOOP_NESTING}"),
    "30 nested aggregates": (REFUSED, "hostile.vbr:4:1: error: this nests 30 loops over lists"),
    "13 nested aggregates, 6 of them in a fn": (REFUSED, "hostile.vbr:5:1: error: this nests 13 loops over lists"),
    "a chain of a thousand procs": (REFUSED, "the limit on depth through calls is 150"),
    "a chain of a thousand consts": (REFUSED, "the limit on depth through calls is 150"),
    "40 doubling fns": (REFUSED, "is more than 50,000 expression nodes with every fn it calls written out"),
    "12 doubling fns": (END, "draw"),  # 6 * 2**12 - 5 nodes: under 50,000
    "limits above the caps": (REFUSED, "hostile.vbr:3:13: error: `limit depth` may be at most 10,000"),
    "limits at the caps": (END, "draw"),
    "a billion columns": (REFUSED, "hostile.vbr:5:3: error: a court has 1 to 100 cols, not 1,000,000,000"),
    "a huge net": (REFUSED, "hostile.vbr:6:3: error: a court has 0 to 100 net rows, not 100,000,000"),
    "a literal range too large": (REFUSED, "hostile.vbr:5:17: error: the range 1..100000000 has 100,000,000 items"),
    "a literal range at the limit": (STOPPED, "hostile.vbr:5:3: error: `choose n` offers 1000000 options; a choice "
                                              "offers at most 4096"),
    "fields past the limit": (REFUSED, f"has more than {L.MAX_FIELDS} fields"),
    "fields at the limit": (END, "draw"),
    "members past the limit": (REFUSED, f"hostile.vbr:3:1: error: enum `big` has more than {L.MAX_MEMBERS:,} members"),
    "declarations past the limit": (REFUSED, f"error: more than {L.MAX_DECLARATIONS:,} declarations"),
    "3000 unknown types on a line": (REFUSED, "hostile.vbr:2:14: error: unknown type `nope`"),  # the first of them
    "nested repeats": (STOPPED, "hostile.vbr:4:1: error: the game ran more than 1000000 steps"),  # the default
    "nested bounded loops": (STOPPED, "hostile.vbr:5:1: error: the game ran more than 20000 steps"),
    "a loop of skipped choices": (STOPPED, "hostile.vbr:5:1: error: the game ran more than 5000 steps"),
    # items of a comprehension are no steps (units started and loop rounds are: docs/language.md), and
    # a range built in play holds 4,096 at most: a million items of work end the game
    "nested comprehensions": (END, "draw"),
    "a range of two million": (STOPPED, "hostile.vbr:5:12: error: the range 1..2000000 holds more than 4096 numbers"),
    "a range past the integers": (STOPPED, "hostile.vbr:5:12: error: the range "
                                           "-9223372036854775807..9223372036854775807 holds more than 4096 numbers"),
    # steps 1-3: the set-up, phase `one`, the for's head; then a step as each proc starts, p39's
    # calls in preorder: the 999,998th start of that tree of calls is p3's (`proc p3` on line 16)
    "40 doubling procs in a for over a per-seat list": (STOPPED, "hostile.vbr:16:1: error: the game ran more than "
                                                                 "1000000 steps"),
    "a choice from a million numbers filtered": (END, "draw"),
    "every of a million numbers": (END, "draw"),
    "a choice from a million repeats": (END, "draw"),
    "a choice of 10001": (STOPPED, "hostile.vbr:5:3: error: `choose x` offers 10001 options; a choice offers at most "
                                   "4096"),
    "a choice of 10000": (STOPPED, "hostile.vbr:5:3: error: `choose x` offers 10000 options; a choice offers at most "
                                   "4096"),
    "a sum past 64 bits": (STOPPED, "hostile.vbr:6:9: " + OUT_OF_INTEGERS),  # at `n + n`
    "a product past 64 bits": (STOPPED, "hostile.vbr:6:9: " + OUT_OF_INTEGERS),
    "a difference past 64 bits": (STOPPED, "hostile.vbr:5:7: " + OUT_OF_INTEGERS),
    "+= past 64 bits": (STOPPED, "hostile.vbr:5:3: " + OUT_OF_INTEGERS),
    "sum() past 64 bits": (STOPPED, "hostile.vbr:5:7: " + OUT_OF_INTEGERS),
    "the largest integer": (END, "draw"),
    "a heavy fn called": (END, "draw"),  # 383 steps
    "a loop of heavy fn calls": (STOPPED, "hostile.vbr:18:1: error: the game ran more than 5000 steps"),
    # each time the phase plays it counts its blocks (the phase's, the `if`'s): 5000 steps run
    # out while n counts up, at the phase
    "a phase going to itself without end": (STOPPED, "hostile.vbr:5:1: error: the game ran more than 5000 steps"),
    "a procedure calling itself without end": (STOPPED, "hostile.vbr:3:1: error: calls nest deeper than 200"),
    "a procedure calling itself 5000 deep": (END, "draw"),  # 5001 frames, under the limit of 6000
    "a procedure calling itself past limit depth 6000": (STOPPED, "hostile.vbr:4:1: error: calls nest deeper than 6000"),
    "an event of 201 handlers": (STOPPED, "hostile.vbr:609:3: error: `emit ping` runs its handlers on frames of their "
                                          "own, pushed at once: with the frames below them, more than 200 (`limit depth`)"),
    "an event of 199 handlers": (END, "draw"),  # the phase's frame and 199 handlers': 200 frames, at the limit
    "things past any bound": (STOPPED, "hostile.vbr:8:5: error: more than 4096 things"),
    "a division by zero": (STOPPED, "hostile.vbr:5:7: error: division by zero"),
    "two faults in one expression": (STOPPED, "hostile.vbr:6:8: error: division by zero"),  # the left one first
    "two faults in one built-in's arguments": (STOPPED, "hostile.vbr:10:16: error: there is no field 5 on side 0"),
    "other of 5": (STOPPED, "hostile.vbr:5:7: error: `other(5)`: only 0 and 1 have an other side"),
    "a seat's slot out of range": (STOPPED, "hostile.vbr:7:3: error: `s[7]`: out of 0..1"),
    "an index past a list": (STOPPED, "hostile.vbr:5:7: error: list index 3 out of range 0..2"),
    "abs of none": (STOPPED, "hostile.vbr:6:7: error: `abs` of none"),
    "arithmetic on none": (STOPPED, "hostile.vbr:6:7: error: arithmetic on none"),
    "a list var past its bound": (STOPPED, f"hostile.vbr:6:3: error: `picks` holds at most {MAX_LIST_VAR} items; "
                                           "this list has 300"),
    "a list var per seat past its slots": (REFUSED, "hostile.vbr:3:31: error: `h` is kept per seat: its initial list "
                                                    "has 3 values for 2 seats"),
    "a list var read past its end": (STOPPED, "hostile.vbr:6:7: error: list index 2 out of range 0..1"),
    "step far off the court": (STOPPED, "hostile.vbr:15:10: " + STEP_OFF),
    "step paying far off the court": (STOPPED, "hostile.vbr:15:10: " + STEP_OFF),
    # the direction is none: the engines fault at `step` itself (its count, 1 / 0, is not reported)
    "step along none": (STOPPED, "hostile.vbr:16:10: " + STEP_OFF),
    "reach in play past 64": (STOPPED, "hostile.vbr:12:14: error: `reach` distance 65 is out of 0..64"),
    "reach in play on the largest court": (END, "draw"),
}


def test_every_hostile_file_has_its_end_worked_out():
    assert set(EXPECTED) == set(AT_READING) | set(IN_PLAY)


@pytest.mark.parametrize("name", list(AT_READING) + list(IN_PLAY))
def test_a_hostile_file_ends_alike_under_both_typed_engines_in_bounded_time_and_memory(tmp_path, name):
    path = tmp_path / "hostile.vbr"
    path.write_text(AT_READING.get(name) or IN_PLAY[name])
    got = outcomes(path)
    assert got["python"] == got["c"]
    kind, words = EXPECTED[name]
    assert kind in got["python"] and words in got["python"][kind], got["python"]


# Threads that each play a game with a list of a million items (8 MB, past the C stack): the C
# engine's buffer for it is released when the call that needed it returns, so the process's
# resident memory after 12 such threads, each ended, is not even one buffer larger than after one.
THREADS = r"""
import sys, threading
from vbr.engines.game import load

def resident():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) * 1024

game = load(sys.argv[1], {}, engine="c")

def one():
    s = game.new_state(1)
    s.play_random(2)
    assert s.is_terminal()

for n in range(13):
    t = threading.Thread(target=one)
    t.start()
    t.join()
    if n == 0:
        after_one = resident()
print(resident() - after_one)
"""


def test_the_c_engines_long_list_buffers_do_not_outlive_their_call(tmp_path):
    # glibc serves blocks of 1 MB and more straight from the system and gives them back when
    # freed (MALLOC_MMAP_THRESHOLD_ fixed: by default it moves up after a free, and a freed 8 MB
    # block may then stay in a thread's arena): resident memory then says what is still held
    path = tmp_path / "million.vbr"
    path.write_text(phase_with("v = count(every(x for x in 1..1000000))"))
    run = subprocess.run([sys.executable, "-c", THREADS, str(path)], capture_output=True, text=True,
                         timeout=HANG_GUARD, cwd=ROOT, env={**os.environ, "MALLOC_MMAP_THRESHOLD_": str(1 << 20)})
    assert run.returncode == 0, run.stderr[-3000:]
    grown = int(run.stdout.split()[-1])
    assert grown < 8_000_000  # not one buffer (8 MB) more; 12 kept were 192 MB
