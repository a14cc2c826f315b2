"""Running a rule file's scenarios against its mutants.

Each mutant is printed back to text through the canonical printer, parsed and checked in memory (no
file is written: an `extends` is resolved beside the original), and kept only when it passes the
checker with the default options. Its scenarios are then run; it is killed when any scenario fails,
errors, or reaches the step limit. The step limit of a mutant's scenarios is a guard derived from
the original file (ten times the most steps any of its scenarios takes, at least 10 000, never more
than the rule file's own limit): a mutant that loops ends, deterministically, with no clock.

Mutants are sampled with a seeded generator from the full list (the list shuffled by the seed; the
first `n` that pass the checker count), restricted first, when asked, to some kinds or some lines; with `workers` > 1 they are run in a process pool (`spawn`) and the results are
taken in the sampled order, so the report is the same for any number of workers.
"""
from __future__ import annotations

import multiprocessing
import random
import time
import re
from dataclasses import dataclass, field
from pathlib import Path

from vbr import stop_signals
from vbr.errors import Diagnostic, EngineUnavailable, UsageError, VbrCheckError, VbrError
from vbr.grammar import ast as A
from vbr.grammar import printer
from vbr.grammar.parser import parse
from vbr.checking import checked_model
from vbr.loader import RuleSet, load_rules, merge, parse_file, resolve
from vbr.mutation.mutants import Mutant, apply, mutants
from vbr.scenario import run_file, scenario_file

GUARD_FACTOR = 10
GUARD_FLOOR = 10_000


@dataclass
class Outcome:
    index: int
    status: str  # "invalid" (the checker rejects it), "killed", "survived"
    reason: str = ""  # the checker's first error, or the first scenario that failed and why


@dataclass
class Context:
    path: Path
    tests: Path
    tree: A.GameFile
    text: str
    mutants: list[Mutant]
    scenarios: tuple = ()  # the scenario file as read once at the start (vbr.scenario.scenario_file)
    guard: int = 0
    engine: str = "python"  # what runs the scenarios: python or c (vbr.scenario.run_file)


@dataclass
class Result:
    path: Path
    tests: Path
    seed: int
    requested: int
    total: int  # mutants the file has
    selected: int = 0  # of them, those of the kinds and lines asked for (all when none are asked for)
    tried: list[Outcome] = field(default_factory=list)  # in the sampled order, up to `requested` valid ones
    guard: int = 0
    ctx: Context | None = None
    stopped: str = ""  # why fewer than `requested` were checked with mutants left: a bound (see `run`)


def default_tests(path: Path) -> Path:
    return Path(path).parent / "tests" / Path(path).name


def ruleset(path: Path, text: str) -> RuleSet:
    """A rule file's RuleSet from its text, as the loader would make it from the file at `path`."""
    tree = parse(text, str(path))
    if not isinstance(tree, A.GameFile):
        raise VbrCheckError([Diagnostic(tree.span, "this is a scenario file, not a rule file")], {str(path): text})
    parents = [d for d in tree.decls if isinstance(d, A.Extends)]
    own = [d for d in tree.decls if not isinstance(d, A.Extends)]
    if not parents:
        return RuleSet(Path(path), tree.title, own, {str(path): text}, [str(path)])
    base = load_rules(resolve(parents[0].path, Path(path)))
    decls, problems = merge(base.decls, own)
    sources = {**base.sources, str(path): text}
    if problems:
        raise VbrCheckError(problems, sources)
    return RuleSet(Path(path), tree.title, decls, sources, [str(path)] + base.chain)


def context(path: Path, tests: Path | None = None) -> Context:
    """The rule file, its scenario file (`tests`, else tests/NAME.vbr beside it) and its mutants;
    a missing or broken file of either is a VbrError before any work."""
    from vbr.loader import MissingFileError
    from vbr.errors import Span
    path = Path(path)
    given = tests is not None
    tests = Path(tests) if given else default_tests(path)
    tree, text = parse_file(path)
    if not isinstance(tree, A.GameFile):
        raise VbrCheckError([Diagnostic(tree.span, "this is a scenario file; `vbr mutate` takes a rule file")],
                            {str(path): text})
    if not given and not tests.exists():  # not named by the user: say which file it is
        raise MissingFileError([Diagnostic(Span(file=str(tests), line=0, col=0, end_line=0, end_col=0),
                                           "no scenario file here: vbr mutate runs the scenarios of tests/NAME.vbr "
                                           "beside the rule file, or of the file --tests names")])
    read = scenario_file(tests)  # a missing or broken scenario file is reported before any work
    return Context(path, tests, tree, text, mutants(tree), read)


def baseline(ctx: Context) -> int:
    """Run the scenarios against the file itself (printed and read back, as every mutant is); all
    must pass. Returns the step guard for the mutants."""
    rules = ruleset(ctx.path, printer.program(ctx.tree))
    model = checked_model(rules, {})
    results = run_file(ctx.tests, rules, engine=ctx.engine, read=ctx.scenarios or None)
    failed = [r for r in results if not r.ok]
    if failed:
        r = failed[0]
        raise VbrError.at(r.span, f"{len(failed)} scenario(s) fail on the rule file itself, so mutants cannot be "
                                  f"judged by them; first: {r.title}: {r.message.splitlines()[0] if r.message else ''}")
    limit = model.limits["steps"]
    most = max((r.steps for r in results), default=0)
    return min(limit, max(GUARD_FLOOR, GUARD_FACTOR * most))


def evaluate(ctx: Context, m: Mutant) -> Outcome:
    text = printer.program(apply(ctx.tree, m))
    try:
        rules = ruleset(ctx.path, text)
        checked_model(rules, {})
    except VbrError as exc:
        return Outcome(m.index, "invalid", _first_line(exc.render()))
    try:
        results = run_file(ctx.tests, rules, step_limit=ctx.guard, engine=ctx.engine, read=ctx.scenarios or None)
    except VbrError as exc:  # the scenario file does not compile against the mutant
        return Outcome(m.index, "killed", _first_line(exc.render()))
    except EngineUnavailable as exc:  # a mutant the typed engine cannot express: not judged
        return Outcome(m.index, "invalid", _first_line(exc.located()))
    except Exception as exc:  # noqa: BLE001 — an engine's fault still tells the mutant apart
        return Outcome(m.index, "killed", f"{type(exc).__name__}: {exc}")
    for r in results:
        if not r.ok:
            return Outcome(m.index, "killed", f"{r.title}: {_first_line(r.message)}")
    return Outcome(m.index, "survived")


def order(total: int, seed: int) -> list[int]:
    """The mutants to try, in order: all of them shuffled by the seed (the first `n` valid ones count)."""
    idx = list(range(total))
    random.Random(seed).shuffle(idx)
    return idx


def selected(m: Mutant, kinds=None, lines=None) -> bool:
    """Whether the mutant is of one of `kinds` and on a line of one of the (first, last) ranges in
    `lines`; None asks for every kind, or every line."""
    return (not kinds or m.kind in kinds) and (not lines or any(a <= m.line <= b for a, b in lines))


ATTEMPTS_PER_MUTANT = 10  # mutants tried, valid or not, for each of the `n` asked for
DEFAULT_SECONDS = 600.0  # the run's time bound, unless the caller gives one


def run(path: Path, tests: Path | None = None, n: int = 100, seed: int = 1, workers: int = 1,
        kinds=None, lines=None, seconds: float = DEFAULT_SECONDS, engine: str = "python") -> Result:
    """Sample up to `n` mutants that pass the checker from those `selected` by kinds and lines, and
    judge each. Bounded: at most ATTEMPTS_PER_MUTANT × n mutants are tried (the checker rejects
    some, each at the cost of a whole check), and none is started after `seconds`; a run stopped
    by either says so in `Result.stopped`. `engine` runs the scenarios (vbr.scenario.run_file):
    python by default, as each mutant's program is run once and the Python engine's costs no
    build; c compiles every mutant."""
    started = time.monotonic()
    ctx = context(path, tests)
    ctx.engine = engine
    todo = [i for i in order(len(ctx.mutants), seed) if selected(ctx.mutants[i], kinds, lines)]
    if not todo and (kinds or lines):
        raise UsageError(_none_selected(ctx))
    ctx.guard = baseline(ctx)
    result = Result(ctx.path, ctx.tests, seed, n, len(ctx.mutants), len(todo), guard=ctx.guard, ctx=ctx)
    valid = 0
    workers = min(workers, len(todo))  # a process per mutant at most: each is a whole Python process
    if workers <= 1:
        outcomes = (evaluate(ctx, ctx.mutants[i]) for i in todo)
        pool = None
    else:
        with stop_signals.starting_a_worker():
            pool = multiprocessing.get_context("spawn").Pool(workers, initializer=_init,
                                                             initargs=(ctx,))
        outcomes = pool.imap(_work, todo, chunksize=1)
    try:
        pending = iter(outcomes)
        while valid < n:  # the bounds are looked at before each mutant is started, the first too
            if len(result.tried) >= ATTEMPTS_PER_MUTANT * n:
                result.stopped = f"the bound of {ATTEMPTS_PER_MUTANT * n} mutants tried ({ATTEMPTS_PER_MUTANT} × n)"
                break
            if time.monotonic() - started > seconds:
                result.stopped = f"the time bound ({seconds:g} s)"
                break
            o = next(pending, None)
            if o is None:
                break
            result.tried.append(o)
            if o.status != "invalid":
                valid += 1
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
    return result


def _none_selected(ctx: Context) -> str:
    """Why `--kind` and `--lines` left no mutant: where the file's mutants are, and of what kinds."""
    ms = ctx.mutants
    where = (f"its {len(ms)} mutants are on lines {min(m.line for m in ms)}-{max(m.line for m in ms)}, of the kinds "
             f"{', '.join(sorted({m.kind for m in ms}))}") if ms else "it has no mutants"
    return f"--kind and --lines select no mutant of {ctx.path.name}: {where}"


_CTX: Context | None = None


def _init(ctx: Context) -> None:
    """A worker: the run's context, with the rule file and scenarios as the run read them."""
    global _CTX
    stop_signals.in_a_worker()
    _CTX = ctx


def _work(i: int) -> Outcome:
    return evaluate(_CTX, _CTX.mutants[i])


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


# ------------------------------------------------------------------------------------ annotations
_EQUIV = re.compile(r'EQUIVALENT\(([a-z]+(?:\s*,\s*[a-z]+)*)(?:\s+"([^"]*)")?(?:\s*(?:→|->)\s*"([^"]*)")?\):\s*(.*)')


@dataclass(frozen=True)
class Equivalence:
    line: int
    kinds: tuple[str, ...]
    text: str  # when given, only mutants whose `before` contains it
    why: str
    after: str = ""  # when given, only mutants whose `after` contains it

    def covers(self, m: Mutant) -> bool:
        return m.line == self.line and m.kind in self.kinds and self.text in m.before and self.after in m.after


def equivalences(text: str) -> list[Equivalence]:
    """Survivors the rule file marks as provably equivalent: a comment
    `EQUIVALENT(kind, ... "text"): why` on the line of the mutated code, or on its own line just
    above it (the next line of code). With "text", only the mutants of that line whose code before
    the change contains it (`EQUIVALENT(number "field: 0"): ...`); with `→ "text"` as well, only
    those whose code after the change contains that (`EQUIVALENT(number "n > 0" → "n > -1"): ...`).
    On its own line, the reason may go on over the comment lines below it, up to the code or up to
    the next mark (marks stacked above one line of code each keep their own reason)."""
    from vbr.trace import _comment, source_lines
    out: list[Equivalence] = []
    lines = source_lines(text)
    for n, line in enumerate(lines, 1):
        found = _EQUIV.search(_comment(line))
        if not found:
            continue
        target = n
        why = [found.group(4).strip()]
        if line.strip().startswith("#"):
            target = n + 1
            reason_goes_on = True  # over the comment lines below, up to the code or the next mark
            while target <= len(lines) and lines[target - 1].strip().startswith("#"):
                reason_goes_on = reason_goes_on and not _EQUIV.search(_comment(lines[target - 1]))
                if reason_goes_on:
                    why.append(_comment(lines[target - 1]).strip())
                target += 1
        kinds = tuple(k.strip() for k in found.group(1).split(","))
        out.append(Equivalence(target, kinds, found.group(2) or "", " ".join(w for w in why if w), found.group(3) or ""))
    return out
