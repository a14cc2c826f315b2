"""How the build of a rule file grows with it: generated rule files of one shape each (a long list
literal, many statements, phases, procedures, fns, vars, zones, kinds, handlers, blocks, lets,
choices, fns written out at many calls, consts of doubling fns, deep expressions), at a size n and at 2n, through `vbr check`, `vbr run --engine python` and
`vbr run --engine c` (each a process of its own, the C engine with a cache folder of its own so
that it builds). Prints each command's CPU seconds (the process and its compiler) and peak
resident memory at n and 2n, and the ratio of the CPU seconds: about 2 is linear, about 4
quadratic (the start of a process, about 0.5 s, keeps a small file's ratio nearer 1).

    python benchmarks/hostile_build.py [--shape NAME ...] [--engines check,python,c] [--scale 1.0]
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _game(head: list[str], body: list[str], tail: list[str] = ()) -> str:
    return "\n".join(['game "Shape"', "seats 2", "var x: int = 0", *head, "start p", "phase p {",
                      *("  " + b for b in body), "  end winner x % 2", "}", *tail]) + "\n"


def list_literal(n: int) -> str:
    return _game([], [f"x = sum(y for y in [{', '.join(str(i % 97) for i in range(n))}])"])


def list_of_reads(n: int) -> str:
    return _game([], [f"x = count([{', '.join(['x'] * n)}])"])


def list_of_divisions(n: int) -> str:
    return _game([], [f"x = count([{', '.join(f'x / {i % 7 + 1}' for i in range(n))}])"])


def statements(n: int) -> str:
    return _game([], [f"x = (x + {i % 9 + 1}) % 1000" for i in range(n)])


def ifs(n: int) -> str:
    return _game([], [f"if x > {i} {{ x = x + 1 }}" for i in range(n)])


def lets(n: int) -> str:
    return _game([], [f"let a{i} = x + {i}" for i in range(n)] + [f"x = a{n - 1}"])


def phases(n: int) -> str:
    lines = ['game "Shape"', "seats 2", "var x: int = 0", "start p0"]
    for i in range(n):
        nxt = f"goto p{i + 1}" if i < n - 1 else "end winner x % 2"
        lines += [f"phase p{i} {{", "  x = x + 1", f"  {nxt}", "}"]
    return "\n".join(lines) + "\n"


def procs(n: int) -> str:
    head = [f"proc q{i}() {{\n  x = x + {i % 5}\n}}" for i in range(n)]
    return _game(head, [f"q{i}()" for i in range(n)])


def fns(n: int) -> str:
    head = [f"fn f{i}(a: int) = (a * {i % 7 + 1} + {i}) % 1000" for i in range(n)]
    return _game(head, [f"x = f{i}(x)" for i in range(n)])


def fns_nested(n: int) -> str:
    """Each fn calls the one before it in a chain of 8, and the phase calls the last of each chain."""
    head = []
    for i in range(n):
        prev = f"g{i - 1}(a)" if i % 8 else "a"
        head.append(f"fn g{i}(a: int) = ({prev} + {i}) % 1000")
    return _game(head, [f"x = g{i}(x)" for i in range(7, n, 8)])


def vars_(n: int) -> str:
    return _game([f"var v{i}: int = {i}" for i in range(n)], [f"x = x + v{i}" for i in range(n)])


def zones(n: int) -> str:
    head = ["kind Chip { v: int }", *[f"zone z{i} public" for i in range(n)]]
    return _game(head, ["create Chip(v: 1) in z0", *[f"move top(z{i}) to z{i + 1}" for i in range(n - 1)]])


def kinds(n: int) -> str:
    head = [f"kind K{i} {{ v: int }}" for i in range(n)] + ["zone pile public"]
    return _game(head, [f"create K{i}(v: {i}) in pile" for i in range(n)] + ["x = count(pile)"])


def handlers(n: int) -> str:
    head = ["event hit()", *[f"on hit() {{\n  x = x + {i % 3}\n}}" for i in range(n)]]
    return _game(head, ["emit hit()"])


def choices(n: int) -> str:
    return _game([], [f"choose c{i} from [1, 2, 3] by {i % 2}\n  x = x + c{i}" for i in range(n)])


def _doubling(levels: int, first: str = "a") -> list[str]:
    """g0..g<levels>, each calling the one before twice."""
    return [f"fn g0(a: int) = {first}"] + [f"fn g{i}(a: int) = (g{i - 1}(a) + g{i - 1}(a + 1)) % 1000"
                                           for i in range(1, levels + 1)]


def light_fn_calls(n: int) -> str:
    """A fn of 1,015 nodes written out (just under a heavy fn's 1,024) called in n statements."""
    return _game(_doubling(6, "(a * 3 + 1) % 1000"), ["x = g6(x)"] * n)


def list_fn_calls(n: int) -> str:
    """A fn given a list (always written out) calling one of 1,015 nodes: past 49 calls, the limit."""
    return _game(_doubling(6, "(a * 3 + 1) % 1000") + ["fn k(xs: list of int) = g6(count(xs))"], ["x = x + k([x])"] * n)


def list_proc_calls(n: int) -> str:
    """A procedure giving a list (written out at each call) of 20 statements, called n times."""
    proc = "proc g(): list of int {\n" + "".join(f"  x = (x + {i}) % 1000\n" for i in range(20)) + "  return [x]\n}"
    return _game([proc], [f"let a{k} = g()\n  x = x + count(a{k})" for k in range(n)])


def consts(n: int) -> str:
    """n consts, each of a fn doubling 11 times (24,000 nodes written out)."""
    return _game(_doubling(11) + [f"const c{k} = g11({k})" for k in range(n)], [f"x = c{n - 1}"])


def draws_asked(n: int) -> str:
    """n calls of a fn given a list whose argument calls a fn doubling 11 times."""
    return _game(_doubling(11) + ["fn k(xs: list of int) = count(xs)"], ["x = k([g11(x)])"] * n)


def deep_expressions(n: int) -> str:
    """n statements, each an expression 45 levels deep."""
    e = "x"
    for i in range(45):
        e = f"({e} + {i % 7})" if i % 2 else f"({e} * 1)"
    return _game([], [f"x = {e} % 1000"] * n)


SHAPES = {  # name -> (the rule file of size n, n)
    "list literal": (list_literal, 12_000),
    "list of reads": (list_of_reads, 12_000),
    "list of divisions": (list_of_divisions, 6_000),
    "statements": (statements, 2_000),
    "ifs": (ifs, 1_000),
    "lets": (lets, 2_000),
    "phases": (phases, 1_000),
    "procs": (procs, 1_000),
    "fns": (fns, 1_000),
    "fns nested": (fns_nested, 1_000),
    "vars": (vars_, 1_000),
    "zones": (zones, 500),
    "kinds": (kinds, 1_000),
    "handlers": (handlers, 1_000),
    "choices": (choices, 1_000),
    "light fn calls": (light_fn_calls, 1_000),
    "list fn calls": (list_fn_calls, 20),
    "list proc calls": (list_proc_calls, 150),
    "consts": (consts, 2_000),
    "draws asked": (draws_asked, 1_000),
    "deep expressions": (deep_expressions, 100),
}

COMMANDS = {"check": ["check"], "python": ["run", "--engine", "python"], "c": ["run", "--engine", "c"]}


def measured(args: list[str], cache: Path, out: Path) -> tuple[float, float, int, str]:
    """(CPU seconds of the process and the processes it waited for, the C compiler's among them;
    wall seconds; the largest of their peak resident memories, in MB; the last line it wrote)
    of `vbr ARGS`."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(cache)}
    start = time.perf_counter()
    with open(out, "w") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "vbr", *args], stdout=sink, stderr=subprocess.STDOUT, env=env,
                                cwd=ROOT)
        _, _, usage = os.wait4(proc.pid, 0)
        proc.returncode = 0  # reaped above
    wall = time.perf_counter() - start
    lines = out.read_text(errors="replace").strip().splitlines()
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss >> 10, (lines[-1] if lines else "")[:60]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", action="append", choices=sorted(SHAPES), help="only these shapes")
    ap.add_argument("--engines", default="check,python,c", help="of check, python, c (comma-separated)")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply each shape's n")
    a = ap.parse_args()
    print(f"{'shape':<18} {'command':<7} {'n':>7} {'cpu s':>7} {'MB':>5} {'2n':>7} {'cpu s':>7} {'MB':>5} {'ratio':>6}  "
          "output at 2n")
    with tempfile.TemporaryDirectory() as tmp:
        for name in a.shape or SHAPES:
            make, n = SHAPES[name]
            n = max(2, int(n * a.scale))
            files = {}
            for size in (n, 2 * n):
                files[size] = Path(tmp) / f"{name.replace(' ', '_')}_{size}.vbr"
                files[size].write_text(make(size))
            for command in a.engines.split(","):
                got = {size: measured([*COMMANDS[command][:1], str(files[size]), *COMMANDS[command][1:]],
                                      Path(tmp) / f"cache-{name}-{command}-{size}".replace(" ", "_"),
                                      Path(tmp) / "out.txt")
                       for size in (n, 2 * n)}
                ratio = got[2 * n][0] / max(got[n][0], 1e-9)
                print(f"{name:<18} {command:<7} {n:>7} {got[n][0]:>7.2f} {got[n][2]:>5} {2 * n:>7} "
                      f"{got[2 * n][0]:>7.2f} {got[2 * n][2]:>5} {ratio:>6.2f}  {got[2 * n][3]}", flush=True)


if __name__ == "__main__":
    main()
