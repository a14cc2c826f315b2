"""`vbr mutate FILE [--tests TESTFILE] [-n N] [--seed S] [--workers K] [--kind KIND]... [--lines A-B]... [--json]`.

vbr/cli.py wires it in with `add_parser(subparsers)`; the parser's default `func` is `run`.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from vbr.cli_common import engine_type, file_name, integer
from vbr.errors import EngineUnavailable, UsageError, VbrError
from vbr.number_text import decimal_number, whole_number
from vbr.terminal import clean
from vbr.mutation import KINDS


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "mutate", help="score a rule file's scenarios: how many small rule changes they notice",
        description="Make small semantic changes of a rule file (a number ±1, a flipped comparison, and↔or, "
                    "a deleted statement, two list items swapped, a direction changed, a comprehension's condition "
                    "dropped or negated, a side of and/or dropped, two call arguments swapped), keep those that pass "
                    "the checker, run the scenarios against each and report the share they kill and every "
                    "survivor, grouped by the rulebook passage its line cites.")
    p.add_argument("file", help="a rule file, or a bundled rule file's name")
    p.add_argument("--tests", type=file_name, help="the scenario file (default: tests/NAME.vbr beside the rule file)")
    p.add_argument("-n", type=_positive, default=100,
                   help="how many mutants that pass the checker to run (default 100; all when the file has fewer)")
    p.add_argument("--seed", type=integer, default=1, help="the seed that samples the mutants (default 1)")
    p.add_argument("--workers", type=_workers, default=1,
                   help="processes to run mutants in (default 1, at most 256); any number gives the same report")
    p.add_argument("--kind", action="append", choices=KINDS, dest="kinds", metavar="KIND",
                   help=f"only mutants of this kind (repeatable; one of {', '.join(KINDS)})")
    p.add_argument("--lines", action="append", type=_line_range, metavar="A-B",
                   help="only mutants on lines A to B of the rule file, or on line A alone (repeatable)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--max-seconds", type=_seconds, default=None, metavar="S",
                   help="start no mutant after S seconds (default 600); at most 10 × n mutants are tried in any case")
    p.add_argument("--engine", type=engine_type(("auto", "python", "c")), default="auto", metavar="{auto,python,c}",
                   help="what runs the scenarios: auto (the default) and python take the typed program's own "
                        "Python engine, which runs a mutant with no build; c compiles every mutant (seconds "
                        "each). A rule file using a construct the typed program cannot express yet is an error")
    p.set_defaults(func=run)
    return p


def _positive(s: str) -> int:
    v = integer(s)
    if v < 1:
        raise argparse.ArgumentTypeError(f"{s} is less than 1")
    return v


def _workers(s: str) -> int:
    """`--workers`: 1 to MAX_WORKERS processes, as for `vbr sim` (each is a whole Python process:
    a mistyped 100000 would exhaust the machine's memory)."""
    from vbr.sim import MAX_WORKERS
    v = _positive(s)
    if v > MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"{s} is more than {MAX_WORKERS}")
    return v


def _seconds(s: str) -> float:
    """`--max-seconds`: a number of seconds, 0 or more (nan, which every comparison fails, would be
    no bound at all)."""
    try:
        v = decimal_number(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{s!r} is not a number of seconds") from None
    if not 0 <= v < math.inf:
        raise argparse.ArgumentTypeError(f"{s!r} is not a number of seconds from 0 up")
    return v


def _line_range(s: str) -> tuple[int, int]:
    first, dash, last = s.partition("-")
    try:
        a, b = whole_number(first), whole_number(last if dash else first)  # `12-` names no last line
    except ValueError:
        raise argparse.ArgumentTypeError(f"{s!r} is not a line (12) or a range of lines (12-40)") from None
    if a < 1 or b < a:
        raise argparse.ArgumentTypeError(f"{s!r} is not a range of lines from 1 up (12-40)")
    return a, b


def run(args) -> int:
    """0 when every counted mutant is killed, 1 when some survive, 2 on a usage or file error."""
    from vbr.loader import resolve
    from vbr.mutation import report, runner
    path = resolve(args.file)
    tests = Path(args.tests) if getattr(args, "tests", None) else None  # None: tests/NAME.vbr beside it
    try:
        result = _run(args, path, tests, getattr(args, "engine", "auto"))
    except VbrError as exc:
        print(exc.render(), file=sys.stderr)
        return 2
    except EngineUnavailable as exc:  # the typed program cannot express the rule file yet, or no C compiler
        print(clean(exc.render()), file=sys.stderr)
        return 2
    s = report.summary(result.ctx, result)
    if getattr(args, "json", False):
        s = {k: v for k, v in s.items() if k != "killed_by"} | {"killed_by": s["killed_by"]}
        from vbr.json_text import dumps
        sys.stdout.write(dumps(s, indent=2) + "\n")
    else:
        sys.stdout.write(report.text(s))
    return 1 if s["survived"] else 0


def _run(args, path: Path, tests: Path | None, engine: str):
    """The mutation run through `engine`; auto: python (a mutant is run once: the engine that
    costs no build is the quicker)."""
    from vbr.mutation import runner
    seconds = args.max_seconds if getattr(args, "max_seconds", None) is not None else runner.DEFAULT_SECONDS
    return runner.run(path, tests, n=args.n, seed=args.seed, workers=args.workers,
                      kinds=getattr(args, "kinds", None), lines=getattr(args, "lines", None), seconds=seconds,
                      engine="python" if engine == "auto" else engine)


def main(argv: list[str] | None = None) -> int:
    """`python -m vbr.mutation.command FILE ...`, until `vbr mutate` is wired into vbr/cli.py."""
    parser = argparse.ArgumentParser(prog="vbr")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["mutate", *(sys.argv[1:] if argv is None else argv)])
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
