"""`vbr sim`, `vbr sweep` and `vbr compare`: runs of many games turned into answers.

Each command checks everything it can before the first game (options, agents, where its files go),
plays through a backend, and on Ctrl-C still writes what finished, saying that the run was cut
short. The arithmetic lives in `metrics`, the drawing in `plots`; this module only wires them.
"""
from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from itertools import compress
from operator import itemgetter
from pathlib import Path

from vbr.analysis import output
from vbr.errors import UsageError
from vbr.sim import RunResult

INTERRUPTED = 130


class Variant:
    """One side of a comparison, or one cell of a sweep: its game, its label, the engine it plays
    in when that is its own (a sweep's cell under --engine auto: vbr.engine_choice), and what a
    sweep reads of every cell before and after its games (the option values, seats, sides and the
    measures' names). Made with `loaded_as`, the (path, options, engine) vbr.sim.game_for loaded
    the game by, a variant keeps no game of its own: `game` asks game_for, which keeps at most
    GAMES_KEPT games at once, so a sweep of thousands of cells holds a few games, loading a
    cell's again when it is played."""

    def __init__(self, game, label: str, engine: str = "", loaded_as: tuple | None = None):
        self.label, self.engine = label, engine
        self.option_values, self.seats, self.sides = game.option_values, game.seats, side_of_seat(game)
        self.measure_names = tuple(m.name for m in game.program.measures)
        self._game, self._loaded_as = (None, loaded_as) if loaded_as else (game, None)

    @property
    def game(self):
        if self._loaded_as is None:
            return self._game
        from vbr.sim import game_for
        return game_for(*self._loaded_as)


def load_variant(file, options: dict, label: str | None, engine: str) -> Variant:
    """The game of `file` under `options` through `engine` (python or c), loaded once for
    the command and its runs (vbr.sim.game_for), and its label (by default its options in force)."""
    from vbr.engines.c_engine import CEngineUnavailable
    from vbr.sim import game_for
    key = tuple(sorted(options.items()))
    try:
        game = game_for(str(file), key, engine)
    except CEngineUnavailable as exc:  # which of a sweep's or a comparison's games would not build
        raise CEngineUnavailable(f"{exc} (the game under {label or options_text(options)})") from None
    return Variant(game, label or options_text(game.option_values), loaded_as=(str(file), key, engine))


def chosen_variant(file, options: dict, label: str, choice, games: int) -> Variant:
    """load_variant through the engine `choice` (a vbr.engine_choice.EngineChoice) picks for
    `games` games of `file` under `options`."""
    engine, game = choice.load(options, games)
    return Variant(game, label, engine, loaded_as=(str(file), tuple(sorted(options.items())), engine))


def options_text(options: dict) -> str:
    from vbr.values import text
    return ", ".join(f"{k}={text(v)}" for k, v in options.items()) or "no options"


def check_outputs(args) -> None:
    """Before any game: the files and folders this run will write to must be writable, neither
    `--out` nor `--rows` may be a rule file of the run (writing it would replace the rules), and
    no two of `--base-rows` (read), `--out` and `--rows` (written) and `--plot` (a folder) may name
    the same path."""
    from vbr.cli_common import check_not_rule_file
    for flag in ("--out", "--rows"):
        name = getattr(args, flag[2:], None)
        for rules in (getattr(args, a, None) for a in ("file", "base", "variant")):
            if name and rules:
                check_not_rule_file(name, rules, flag)
    seen: dict = {}
    for flag in ("--base-rows", "--out", "--rows"):
        name = getattr(args, flag[2:].replace("-", "_"), None)
        if not name:
            continue
        key = Path(name).resolve()
        if key in seen:
            raise UsageError(f"{flag} {name}: {seen[key]} names the same file; give each its own file")
        seen[key] = flag
    if getattr(args, "out", None):
        output.check_file(args.out, "--out", (".jsonl", ".csv") if args.command != "sweep" else (".csv", ".jsonl", ".json"))
    if getattr(args, "plot", None):
        key = Path(args.plot).resolve()
        if key in seen:
            raise UsageError(f"--plot {args.plot}: {seen[key]} names it as a file; the plots need a folder of their own")
        output.check_dir(args.plot, "--plot")


def check_count(n: int) -> int:
    if n < 1:
        raise UsageError(f"-n must be at least 1, not {n}")
    from vbr.cli_common import MAX_GAMES
    if n > MAX_GAMES:
        raise UsageError(f"-n must be at most {MAX_GAMES}, not {n}")
    return n


@contextmanager
def backend_for(args):
    """One backend for a whole command: a sweep or a comparison starts Ray, or its local worker
    processes, once, not once per run, and always shuts down what it started."""
    from vbr.backends import default_workers, make_backend
    workers = args.workers
    if workers is None and args.backend == "local":
        workers = default_workers(getattr(args, "agents", None))
    with make_backend(args.backend, workers, getattr(args, "ray_address", None)) as backend:
        yield backend


def rotates(args, agents: list[str]) -> bool:
    """Whether the run rotates seats: as `--rotate-seats` or `--no-rotate-seats` says, else exactly
    when the agents differ."""
    chosen = getattr(args, "rotate_seats", None)
    return len(set(agents)) > 1 if chosen is None else bool(chosen)


def seatings_per_deal(args, agents: list[str], sides=()) -> int:
    """The games of each deal of the run: its agents' seatings over the seats' `sides`
    (`vbr.seating.seating_cycle`) when it rotates seats, else 1."""
    from vbr.seating import seating_cycle
    return len(seating_cycle(agents, sides)[0]) if rotates(args, agents) else 1


def precision_games(target: float, per_deal: int) -> int:
    """`-n` of a run stopped at a precision when none is given: twice the deals a rate of 50 %
    needs to reach the target (the widest rate: any other reaches it sooner; the room to spare
    for deals the rate is not taken over), in games, at most MAX_GAMES. A note says so."""
    from vbr.analysis.sequential import concentration, games_needed
    from vbr.cli_common import MAX_GAMES
    n = min(2 * games_needed(target, concentration(target)) * per_deal, MAX_GAMES)
    note(f"--precision {target:g} without -n: at most {n:,} games, twice what a rate of 50% needs")
    return n


def rotate_seats(args, agents: list[str], sides=(), arms=()) -> bool:
    """Whether the run rotates seats (every deal played in each of its seatings over the seats'
    `sides`, see `vbr.seating.seating_cycle`): as `--rotate-seats` or `--no-rotate-seats` says,
    else exactly when the agents differ, with a note on stderr saying so; and a note when `-n`
    ends inside a deal. `arms`, (label, sides) of each game a sweep or comparison plays, stand
    for `sides` where the games' sides differ: the notes then give each game's seatings."""
    from vbr.seating import balanced_cycle
    chosen = getattr(args, "rotate_seats", None)
    rotate = rotates(args, agents)
    kinds: dict[tuple, list[str]] = {}  # (seatings a deal, balanced) -> the labels of the games that have them
    for label, arm_sides in (arms or [("", sides)]):
        key = (seatings_per_deal(args, agents, arm_sides), bool(balanced_cycle(agents, arm_sides)))
        kinds.setdefault(key, []).append(label)
    named = len(kinds) > 1  # the games differ in their seatings: each kind names its games

    def which(k: int, balanced: bool, labels: list[str]) -> str:
        kind = "seatings that put each agent given once on every side in turn" if balanced else "seatings of the agents"
        return f"{k} {kind}" + (f" ({', '.join(labels)})" if named else "")
    if rotate and chosen is None:
        each = "; in each of the ".join(which(k, b, labels) for (k, b), labels in kinds.items())
        note(f"the agents differ, so seats are rotated: every deal is played in each of the {each} "
             f"(--no-rotate-seats plays each deal once, agents as given)")
    by_count: dict[int, list[str]] = {}
    for (k, _), labels in kinds.items():
        by_count.setdefault(k, []).extend(labels)
    for k, labels in by_count.items():
        if args.n % k:
            of = f" of {', '.join(labels)}" if len(by_count) > 1 else ""
            note(f"-n {args.n} is not a multiple of the {k} seatings{of}: the last deal is played in the first "
                 f"{args.n % k} of them only")
    return rotate


def note(text: str) -> None:
    from vbr.terminal import clean
    print(clean(f"vbr: {text}"), file=sys.stderr, flush=True)


def run_spec(variant: Variant, args, agents: list[str], deals=()):
    """What `play` plays: `args.n` games from `args.seed`, or the given deals ((seed, agents) each).
    The agents are those of the variant's seats: a sweep or comparison of games with different
    numbers of seats names one agent for the most seats (`arms_agents`), of which a game with
    fewer plays, and records, the first; a deal of fewer seats (`--base-rows` of such a game)
    is played by that one agent in every seat."""
    from dataclasses import replace

    from vbr.sim import RunSpec
    seats = variant.game.seats
    agents = agents[:seats]
    deals = [(seed, tuple(dealt[:seats]) if len(dealt) >= seats else tuple(agents)) for seed, dealt in deals]
    spec = RunSpec.of(variant.game.path, variant.game.options, args.seed, agents, args.n,
                      engine=variant.engine or getattr(args, "engine", "python"),
                      rotate=bool(getattr(args, "rotate_seats", False)), restrict=getattr(args, "restrict", None) or (),
                      sides=side_of_seat(variant.game))
    return replace(spec, deals=tuple(deals), n=len(deals)) if deals else spec


def play(variant: Variant, args, agents: list[str], backend, label: str = "", watch=None, deals=(), sink=None,
         keep: bool = True):
    """One run of `args.n` games of a variant (or of the given deals), on the given backend, its
    seats rotated when `args.rotate_seats` (as `rotate_seats` decided it); stopped early when
    `watch` (a `sequential.Running` with a target) says so. Progress on a terminal, or wherever
    `--progress` asks, with the running estimate of `watch`, else of the headline win rate.
    `sink` and `keep` as `vbr.sim.run` takes them: who hears the games as they come, and whether
    the result keeps them too."""
    from vbr.progress import Progress
    from vbr.sim import run
    spec = run_spec(variant, args, agents, deals)
    shown = watch or running(variant, args, agents)
    progress = Progress.for_terminal(label, quiet=getattr(args, "json", False), force=getattr(args, "progress", None),
                                     estimate=shown.text, may_stop_early=watch is not None and watch.target is not None)
    try:  # the running estimate is worked out only to be shown, or to stop the run
        return run(spec, backend, progress, sink=sink, watch=shown if progress or watch is not None else None,
                   keep=keep)
    finally:
        if progress:
            progress.close()


def running(variant: Variant, args, agents: list[str], target: float | None = None):
    """The measure `--metric` names (the headline win rate without it), watched game by game
    (`vbr.analysis.sequential.Running`), with `target` the half width that stops the run."""
    from vbr.analysis.sequential import Running, measures
    from vbr.play import side_names
    from vbr.seating import seating_cycle
    rotated = bool(getattr(args, "rotate_seats", False))
    declared = tuple((m.name, m.type, m.label) for m in variant.game.program.measures)
    sides = side_of_seat(variant.game)
    known = measures(side_names(variant.game), agents, rotated, sides, declared)
    name = getattr(args, "metric", None) or "win_rate"
    if name not in known:
        raise UsageError(f"--metric {name}: not a measure a run can be stopped on; the measures are "
                         f"{', '.join(known)}")
    return Running(known[name], len(seating_cycle(agents, sides)[0]) if rotated else 1, target)


def check_precision(args) -> float | None:
    """`--precision`, if given: a half width between 0 and 0.5 (a rate's interval is never wider)."""
    target = getattr(args, "precision", None)
    if target is not None and not 0 < target < 0.5:
        raise UsageError(f"--precision must be above 0 and below 0.5 (a half width of a rate: 0.02 is "
                         f"\u00b12 percentage points), not {target:g}")
    return target


def summary(variant: Variant, result, backend, agents: list[str], games=None) -> dict:
    """Everything `vbr sim --json` prints: the counts, every metric with its CI, the seatings
    played and, when the seats were rotated, each agent's win rate (`per_agent`), and the speed.
    `games`: the run's games as a `ColumnStore`, made of `result.trials` when not given."""
    from vbr.analysis.column_store import ColumnStore
    from vbr.analysis.metrics import seating_win_rates, summarize_columns
    from vbr.play import side_names, side_unit
    from vbr.seating import unequal_sides
    game = variant.game
    unit = side_unit(game)
    columns = games if games is not None else ColumnStore.of(result.trials)
    n = columns.games
    m = summarize_columns(columns, unit, measure_labels(game))
    name_first_mover(m["metrics"], game)
    wins = {s: v["wins"] for s, v in m["win_rate"].items()}
    return {
        "rules": str(game.path), "title": game.title, "options": game.option_values,
        "games": n, "games_planned": result.spec.n, "interrupted": result.interrupted,
        "seed": result.spec.seed, "sides": unit, "side_names": side_names(game), "agents": agents[:game.seats],
        "wins": wins, "draws": n - sum(wins.values()),
        "win_rate": {s: v["value"] for s, v in m["win_rate"].items()},
        "ci95": {s: v["ci95"] for s, v in m["win_rate"].items()},
        "mean_steps": round(sum(columns.choices) / n, 2) if n else 0.0,
        "points_per_game": points_per_side(columns),
        "metrics": m["metrics"], "measures": m["measures"],
        "restricted": restricted_summary(result.spec.restrict, columns.restricted, n),
        "rotate_seats": result.spec.rotate, "seatings": [list(x) for x in result.spec.plan()],
        "seatings_per_deal": result.spec.per_deal,
        "per_agent": (seating_win_rates(columns.seatings_won(), side_of_seat(game), unequal_sides(side_of_seat(game)))
                      if result.spec.rotate else None),
        "backend": backend.name, "workers": backend.workers, "engine": result.spec.engine,
        "seconds": round(result.seconds, 3), "games_per_s": result.games_per_s,
        "load_seconds": round(result.load_seconds, 3),
    }


def points_per_game(points: list) -> list[float] | None:
    """Each side's points over all games (`points`: each game's final score, None or empty
    without points), to 3 decimals; None when no game has points."""
    scored = [p for p in points if p]
    if not scored:
        return None
    return [round(sum(map(itemgetter(i), scored)) / len(points), 3) for i in range(len(scored[0]))]


def points_per_side(games) -> list[float] | None:
    """`points_per_game` of a ColumnStore's games, read side by side: the sides of the first game
    with points, each side's points summed over the games with points."""
    sizes = games.points_size
    first = next(filter(None, sizes), None)
    if first is None:
        return None
    return [round(sum(compress(games.points_side(i), sizes)) / games.games, 3) for i in range(first)]


def restricted_summary(specs, restricted: tuple[int, int], games: int) -> dict | None:
    """Under `--restrict`: the rules in force by seat, and how often they bit over so many games
    (`restricted`: the choices narrowed and those left with no option, summed over them): choices
    narrowed per game, and choices left with no option (played whole)."""
    if not specs:
        return None
    return {"rules": list(specs), "narrowed_per_game": round(restricted[0] / (games or 1), 3),
            "played_whole": restricted[1]}


def name_first_mover(metrics: dict, game) -> None:
    """Say in the first-mover figure's label whose first move it is (`first_mover_label`)."""
    entry = metrics.get("first_mover_advantage")
    if entry is not None:
        entry["label"] = first_mover_label(entry["label"], game)


def first_mover_label(label: str, game) -> str:
    """The first-mover figure's `label` saying whose first move it is: the file's first-mover
    measure's (`first-mover advantage (first server)`), or the first choice's when the file
    declares none."""
    first = next((m for m in game.program.measures if m.first_mover), None)
    return label + (f" ({first.label})" if first is not None else " (first choice)")


def measure_labels(game) -> dict[str, str]:
    """What reports call each of the file's measures: its `as` text, else its name."""
    return {m.name: m.label for m in game.program.measures}


def side_of_seat(game) -> list[int]:
    """The side each seat plays for: its team in a game of teams, else itself."""
    return game.team_of if game.by_team else list(range(game.seats))


def plot_view(stats: dict) -> dict:
    """The summary as `metrics.summarize` shapes it, which is what the plots read: a win rate per
    side with its wins and interval in one entry (the JSON keeps them apart, as it always has)."""
    return {"win_rate": {s: {"wins": stats["wins"][s], "value": stats["win_rate"][s], "ci95": stats["ci95"][s]}
                         for s in stats["wins"]},
            "metrics": stats["metrics"]}


def run_fields(variant: Variant, args, arm: str) -> dict:
    """What a per-game row says was played (`metrics.RUN_FIELDS`): the arm, the rule file, every
    option in force as text, the engine, the `--restrict` rules (SEAT=RULE each; none unrestricted)."""
    from vbr.values import text
    return {"arm": arm, "rules": str(variant.game.path),
            "rule_options": {k: text(v) for k, v in variant.game.option_values.items()},
            "engine": variant.engine or getattr(args, "engine", "python"),
            "restrict": list(getattr(args, "restrict", None) or ())}


def write_game_rows(path, runs) -> None:
    """One row per game (`metrics.row`) of every (trials, run fields) given, in order."""
    from vbr.analysis.metrics import row
    output.write_rows(Path(path), [row(t, run) for trials, run in runs for t in trials])


@contextmanager
def rows_as_played(path, run: dict):
    """A sink for a run's games (`vbr.sim.run`) that writes each game's row (`metrics.row`, `run`
    its run fields) to `path` as it arrives: the file is the whole of `path` once the block ends
    with a game written, else `path` is left as it was (`output.streamed_rows`). No `path`: a
    sink that writes nothing."""
    with arms_rows_as_played(path) as arm:
        yield arm(run)


@contextmanager
def arms_rows_as_played(path, variants=()):
    """`rows_as_played` of several runs into one file: `arm(run)` is the sink of the games of the
    run whose fields are `run`; the rows in the order the sinks heard the games, a CSV's columns
    those of the runs' `variants` (each one's measures: `metrics.row_columns`)."""
    if not path:
        yield lambda run: lambda trials: None
        return
    from vbr.analysis.metrics import row, row_columns
    columns = row_columns(name for v in variants for name in v.measure_names) if variants else None
    with output.streamed_rows(path, columns) as rows:
        yield lambda run: lambda trials: rows.add([row(t, run) for t in trials])


def say_interrupted(done: int, planned: int, wrote: list[str]) -> None:
    where = f"; written: {', '.join(wrote)}" if wrote else ""
    print(f"vbr: interrupted after {done} of {planned} games{where}", file=sys.stderr)


# ------------------------------------------------------------------------------------- sim
class Kept:
    """A run's sink (`vbr.sim.run`) that hands its games, a thousand at a time (`flush`: the
    rest), to a store (`ColumnStore.add`) and to `write` (their `--out` rows), both or neither:
    Ctrl-C and the stop signals are held back while it does (`stop_signals.deferred`), so the
    store and the rows hold the same games, every game the sink heard once `flush` has run."""

    EVERY = 1000  # games per hand-over: the signals' holding back costs some µs each time

    def __init__(self, store, write):
        self.store, self._write = store, write
        self._pending: list = []

    def __call__(self, trials: list) -> None:
        self._pending += trials
        if len(self._pending) >= self.EVERY:
            self.flush()

    def flush(self) -> None:
        """The games heard and not yet handed on, handed on."""
        from vbr import stop_signals
        with stop_signals.deferred():
            pending, self._pending = self._pending, []
            self.store.add(pending)
            self._write(pending)


def cmd_sim(args, game, agents) -> int:
    """`vbr sim`: the run's games kept as columns (`ColumnStore`) and their `--out` rows written as
    they arrive, each game let go once both have it; then the summary, the plots, the report."""
    from vbr.analysis.column_store import ColumnStore
    target = check_precision(args)
    if args.n is None:
        args.n = precision_games(target, seatings_per_deal(args, agents, side_of_seat(game))) if target is not None else 100
    check_count(args.n)
    check_outputs(args)
    sides = side_of_seat(game)
    args.rotate_seats = rotate_seats(args, agents, sides)
    if args.rotate_seats and mixed_side(agents, sides):
        seats, shared = mixed_side(agents, sides)
        note(f"in some seatings different agents share a side (seats {', '.join(map(str, seats))}: "
             f"{' | '.join(shared)}): a side's win counts for each of its agents, so the agents' wins add up to "
             f"more than the games")
    if args.rotate_seats and len(set(agents)) > 1:
        from vbr.play import side_names
        spread = spread_note(agents, sides, side_names(game))
        if spread:
            note(spread)
    variant = Variant(game, options_text(game.option_values))
    watch = running(variant, args, agents, target) if target is not None else None
    with backend_for(args) as backend, rows_as_played(args.out, run_fields(variant, args, "")) as write_rows:
        kept = Kept(ColumnStore(), write_rows)
        result = play(variant, args, agents, backend, watch=watch, sink=kept, keep=False)
        kept.flush()
    games = kept.store
    if not games.games:
        say_interrupted(0, args.n, [])
        return result.exit_code or INTERRUPTED
    stats = summary(variant, result, backend, agents, games)
    if watch is not None:
        stats["precision"] = precision_summary(watch, result)
    if getattr(args, "skill", None):
        stats["skill"] = skill_summary(stats)
    wrote = [args.out] if args.out else []
    if args.plot:
        from vbr.analysis.plots import write_sim_plots
        paths = write_sim_plots(Path(args.plot), games, plot_view(stats), stats["side_names"], game.title, agents)
        wrote.append(args.plot)
        stats["plots"] = [str(p) for p in paths]
    if args.json:
        print(json.dumps(stats, sort_keys=True))
    else:
        from vbr.report import render_stats
        print(render_stats(stats))
    if result.interrupted:
        say_interrupted(games.games, args.n, wrote)
        return result.exit_code
    return 0


def precision_summary(watch, result) -> dict:
    """A run with `--precision`: the watched measure, its confidence sequence, whether the target
    was reached (else how many games a rate of 50 % would need: the deals it needs, each played in
    every seating, as `-n` counts games), over the games kept."""
    from vbr.analysis.sequential import games_needed
    return watch.report() | {"reached": result.precise,
                             "games_needed_at_half": games_needed(watch.target, watch.c) * watch.per_deal}


def skill_agents(skill: str, agents: list[str], game) -> list[str]:
    """`--skill PARAM=LOW,HIGH`: the one agent of `--agents` at two values of one parameter, one
    agent per seat, HIGH in the seats of seat 0's side and LOW in the others (the seats are then
    rotated, so each plays every seat). HIGH comes first, so it is the headline (`--precision`,
    the progress line, the `skill` line)."""
    from vbr.agents.spec import AGENTS, parse_agent
    from vbr.play import parse_agents
    name, eq, values = skill.partition("=")
    levels = [v.strip() for v in values.split(",")]
    if not name.strip() or not eq or len(levels) != 2 or not all(levels):
        raise UsageError(f"--skill {skill!r}: expected PARAM=LOW,HIGH (e.g. --skill iterations=50,400)")
    if len(set(agents)) != 1:
        raise UsageError("--skill plays one agent against itself: give one agent in --agents (e.g. --agents mcts)")
    base = agents[0]
    given = [p.partition("=")[0] for p in base.partition(":")[2].split(",")]  # its settings off their default
    if name.strip() in given:
        raise UsageError(f"--skill {skill!r}: --agents {base} sets {name.strip()} already, and --skill sets it "
                         f"to each of its two values: leave it out of --agents")
    agent = parse_agent(base)[0]
    if not AGENTS[agent].params:  # random, the default of --agents, or first
        raise UsageError(f"--skill {skill!r}: {agent} has no parameters; --skill sets a parameter of the agent "
                         "--agents names (--agents greedy --skill samples=1,8, --agents mcts --skill iterations=50,400)")
    low, high = (parse_agents(f"{base}{',' if ':' in base else ':'}{name.strip()}={v}", 1)[0] for v in levels)
    if low == high:
        raise UsageError(f"--skill {skill!r}: the two values make the same agent, {low}")
    sides = side_of_seat(game)
    seated = [high if side == sides[0] else low for side in sides]
    refuse_mixed_sides(skill, seated, sides)
    return seated


def refuse_mixed_sides(skill: str, seated: list[str], sides: list[int]) -> None:
    """A UsageError when the skill figure would not be one setting against the other: a game with
    no second side that has seats (one seat; a solo game against a side the rules play), or one
    where rotating the seats puts both settings on one side (teams of unequal size, Cattack's
    `players=3`), whose wins would count for both."""
    if len(set(seated)) < 2:
        raise UsageError(f"--skill {skill!r}: the game has no second side with seats, so the two settings "
                         f"cannot play against each other")
    mixed = mixed_side(seated, sides)
    if mixed:
        seats, agents = mixed
        raise UsageError(f"--skill {skill!r}: rotating the seats puts both settings on one side (seats "
                         f"{', '.join(map(str, seats))} play {' | '.join(agents)}), whose wins "
                         f"would count for both: the skill figure needs the sides' seats rotated whole")


def spread_note(agents: list[str], sides: list[int], names: list[str]) -> str | None:
    """For a rotated run on sides of unequal size (`vbr.seating.unequal_sides`): which seatings it
    plays and how often each agent sits on each side over them (`vbr.seating.spread`), in the
    words of `names` (the sides' names). None where the sides are of one size."""
    from vbr.report import counted
    from vbr.seating import balanced_cycle, seating_cycle, side_seats, spread, unequal_sides
    if not unequal_sides(sides):
        return None
    teams = side_seats(sides)
    sizes = ", ".join(f"{names[sides[seats[0]]]} {counted(len(seats), 'seat')}" for seats in teams)
    cycle = seating_cycle(agents, sides)
    played = f"{counted(sum(map(len, cycle)), 'seating')}"
    if balanced_cycle(agents, sides):
        filler = next(a for a in agents if agents.count(a) > 1)
        players = " and ".join(a for a in dict.fromkeys(agents) if a != filler)
        every = f"every {len(cycle)} deals" if len(cycle) > 1 else "each deal"
        head = (f"the sides differ in size ({sizes}), so the seatings are side-balanced: each deal puts "
                f"{players} on every side once, and {every} in each seat of a side equally often, {filler} in the "
                f"other seats; over the {played} of {counted(len(cycle), 'deal')}")
    else:
        head = (f"the sides differ in size ({sizes}), and rotating over the seats puts an agent on a side "
                f"as often as the side has seats: no side-balanced seatings for these agents (they need one "
                f"agent given more than once and every other once, at most {len(teams) * min(map(len, teams))} of "
                f"them); over the {played}")
    return f"{head}, " + "; ".join(_spread_text(name, entry, names) for name, entry in spread(cycle, sides).items())


def _spread_text(name: str, entry: dict, names: list[str]) -> str:
    """`random on team red in 4, team blue in 2 (on several sides at once in 2)`."""
    on = ", ".join(f"{names[side]} in {k}" for side, k in entry["sides"].items() if side < len(names))
    several = f" (on several sides at once in {entry['several']})" if entry["several"] else ""
    return f"{name} on {on}{several}"


def mixed_side(agents: list[str], sides: list[int]) -> tuple[list[int], list[str]] | None:
    """The first side that some seating of the agents (`vbr.seating.seating_cycle`) fills with
    different agents, as (its seats, their agents in that seating); None when every seating keeps
    each side to one agent."""
    from vbr.seating import seating_cycle
    for seating in (one for deal in seating_cycle(agents, sides) for one in deal):
        for side in dict.fromkeys(sides):
            seats = [k for k, s in enumerate(sides) if s == side]
            if len({seating[k] for k in seats}) > 1:
                return seats, [seating[k] for k in seats]
    return None


def skill_summary(stats: dict) -> dict:
    """The skill-expression figure of a `--skill` run: how often the higher setting wins against
    the lower, over every seating (`per_agent` of the first agent)."""
    high, low = stats["agents"][0], next(a for a in stats["agents"] if a != stats["agents"][0])
    return {"high": high, "low": low} | stats["per_agent"][high]


# ----------------------------------------------------------------------------------- sweep
def cmd_sweep(args, file, base_options: dict, agents_spec: str | None) -> int:
    from vbr.analysis.sweep import combinations, parse_grid, refuse_same_values
    from vbr.play import parse_agents
    from vbr.sim import build_ahead
    check_count(args.n)
    check_outputs(args)
    if getattr(args, "rows", None):
        output.check_file(args.rows, "--rows")
    axes = parse_grid(args.grid or [])
    combos = combinations(axes, base_options)
    if args.engine == "auto":
        from vbr.engine_choice import EngineChoice
        choice = EngineChoice(file, agents_spec, (args.workers or 1) if args.backend == "local" else 1, note)
        if choice.searching:  # every combination in C: their builds at once
            build_ahead([(file, combo) for combo in combos])
        variants = [chosen_variant(file, combo, combo_label(combo, axes), choice, args.n) for combo in combos]
    else:
        if args.engine == "c":
            build_ahead([(file, combo) for combo in combos])
        variants = [load_variant(file, combo, combo_label(combo, axes), args.engine) for combo in combos]
    for a in axes:  # `1` and `01` name one value: its games would be played twice
        refuse_same_values("--grid", a.name, [c[a.name] for c in combos],
                           [v.option_values[a.name] for v in variants])
    agents = arms_agents(agents_spec, [v.seats for v in variants])
    args.rotate_seats = rotate_seats(args, agents, arms=[(v.label, v.sides) for v in variants])
    rows, played, interrupted = [], [], 0  # interrupted: the exit code of what stopped the sweep
    with backend_for(args) as backend, arms_rows_as_played(getattr(args, "rows", None), variants) as arm:
        for i, v in enumerate(variants):
            result, games = _play_combination(args, v, agents, backend, f"[{i + 1}/{len(variants)}] {v.label}", arm)
            if games.games:
                rows.append({"options": {a.name: v.option_values[a.name] for a in axes},
                             "summary": summary(v, result, backend, agents, games)})
                played.append((v, games))
            if result.interrupted:
                interrupted = result.exit_code
                break
    return _finish_sweep(args, rows, axes, variants, played, interrupted)


def _play_combination(args, v: Variant, agents: list[str], backend, label: str, arm) -> tuple:
    """One combination of a sweep played: its result and its games as a `ColumnStore`, their
    `--rows` handed to `arm(its run fields)` as they arrive."""
    from vbr.analysis.column_store import ColumnStore
    kept = Kept(ColumnStore(), arm(run_fields(v, args, v.label)))
    result = play(v, args, agents, backend, label, sink=kept, keep=False)
    kept.flush()
    return result, kept.store


def arms_agents(spec: str | None, seat_counts: list[int]) -> list[str]:
    """One agent spec per seat for runs of games of these numbers of seats (a sweep's
    combinations, a compare's arms): for the most seats any of them has when their seats differ
    (a game plays the first of them), which only one agent for every seat can give; else one per
    seat of them all."""
    from vbr.play import parse_agents
    seats = sorted(set(seat_counts))
    if len(seats) == 1:
        return parse_agents(spec, seats[0])
    try:
        one = parse_agents(spec, 1)
    except UsageError:
        raise UsageError(f"--agents {spec}: the games have {' and '.join(map(str, seats))} seats: give one agent "
                         "for every seat (e.g. --agents greedy), not one per seat") from None
    return one * seats[-1]


def combo_label(combo: dict, axes) -> str:
    return ", ".join(f"{a.name}={combo[a.name]}" for a in axes)


def sweep_analysis(axes, cells: list, unit: str, labels: dict | None = None, names: list[str] | None = None) -> dict:
    """What a sweep says beyond its table: each option's values pooled over the rest of the grid,
    the values as entrants with their Bradley-Terry ranking (when the grid is one pick per side),
    and every combination against the first, paired, with Holm's correction over all of them.
    `cells`: (label, the swept options' values as text, its games: a `ColumnStore`, or a list of
    Trials) per combination, in grid order;
    `labels`: what the file calls its measures (`measure_labels`), `names` its sides."""
    from vbr.analysis import levels
    from vbr.analysis.comparison import compare_columns, mark_significant
    from vbr.analysis.pairing import pair_up_stores
    from vbr.analysis.column_store import ColumnStore
    cells = [(label, options, ColumnStore.of(g) if isinstance(g, list) else g) for label, options, g in cells]
    grid = [levels.Cell(options, games) for _, options, games in cells]
    sides = max((c.games.sides for c in grid if c.games.games), default=0)
    chosen = levels.entrant_axes(axes, sides)
    vs_first = []
    first = cells[0][2] if cells else None
    for label, _, games in cells[1:]:
        rows = compare_columns(first, games, unit, names, labels, pair_up_stores(first, games))
        vs_first += [{"combination": label, **r} for r in rows]
    mark_significant(vs_first)
    return {"pooled": levels.pooled(axes, grid) if len(axes) > 1 else [],
            "entrants": levels.entrants(chosen, grid) if chosen else None,
            "against_first": {"first": cells[0][0] if cells else None, "rows": vs_first}}


def sweep_cells(axes, played: list) -> list:
    """(label, swept options as text, games) of each combination played ((variant, games) each)."""
    from vbr.values import text
    return [(v.label, {a.name: text(v.option_values[a.name]) for a in axes}, games) for v, games in played]


def _finish_sweep(args, rows, axes, variants, played, interrupted: int) -> int:
    from vbr.report import render_sweep, sweep_side_names, sweep_table
    wrote = []
    first = rows[0]["summary"] if rows else None
    analysis = (sweep_analysis(axes, sweep_cells(axes, played), first["sides"], measure_labels(variants[0].game),
                               sweep_side_names(rows)) if rows else None)
    if args.out and rows:
        output.write_rows(Path(args.out), sweep_table(rows))
        wrote.append(args.out)
    if getattr(args, "rows", None) and played:  # written as the games arrived
        wrote.append(args.rows)
    if args.plot and rows:
        from vbr.analysis.plots import write_sweep_plots
        from vbr.report import sweep_side_names
        view = [{"options": r["options"], "summary": plot_view(r["summary"])} for r in rows]
        first = rows[0]["summary"]
        write_sweep_plots(Path(args.plot), view, variants[0].game.title, sweep_side_names(rows), first["agents"])
        wrote.append(args.plot)
    if args.json:
        print(json.dumps({"grid": {a.name: list(a.values) for a in axes}, "rows": rows, "analysis": analysis,
                          "interrupted": bool(interrupted)}, sort_keys=True))
    elif rows:
        stopped = (f"interrupted: {sum(r['summary']['games'] for r in rows)} of {args.n * len(variants)} games "
                   f"played, {len(variants)} combinations planned" if interrupted else "")
        print(render_sweep(variants[0].game.title, rows, analysis, args.out, stopped))
    if interrupted:
        say_interrupted(sum(r["summary"]["games"] for r in rows), args.n * len(variants), wrote)
        return interrupted
    return 0


# --------------------------------------------------------------------------------- compare
def compare_row(r: dict) -> dict:
    """One figure of a comparison as `--out` writes it: the interval of the difference in two
    columns, `diff lo` and `diff hi` (as `vbr sweep` writes its intervals), its p-value before and
    after Holm's correction, the pairs it was taken over and the games per variant an unpaired run
    would need (empty for an unpaired figure), the figure it is game for game (`same as`, whose
    Holm test it shares), and the same columns in every row (`reason` empty
    where there is an interval)."""
    lo, hi = r["ci95"] or (None, None)
    return {"metric": r["metric"], "label": r["label"], "unit": r["unit"], "a": r["a"], "b": r["b"],
            "diff": r["diff"], "diff lo": lo, "diff hi": hi, "method": r["method"],
            "p": r.get("p"), "p holm": r.get("p_holm"), "significant": r["significant"],
            "pairs": r.get("pairs"), "unpaired games": r.get("unpaired_games"), "same as": r.get("same_as"),
            "reason": r.get("reason")}


class _Unfinished(Exception):
    """A comparison stopped before both arms were played: its `--rows` file is left as it was."""


def cmd_compare(args, base: Variant, variant: Variant, agents: list[str]) -> int:
    """The base and the variant on the same deals, compared pair by pair. With `--base-rows`, the
    base's games are read from rows already played and only the variant is played, on their deals.
    Each arm's games are kept as columns (`ColumnStore`) and their `--rows` written as they
    arrive; stopped before both arms are whole, it writes nothing (`--rows` left as it was)."""
    check_count(args.n)
    check_outputs(args)
    if getattr(args, "rows", None):
        output.check_file(args.rows, "--rows")
    reused = base_rows(args, base, agents) if getattr(args, "base_rows", None) else None
    if reused is None:
        args.rotate_seats = rotate_seats(args, agents, arms=[(a.label, a.sides) for a in (base, variant)])
    else:
        args.rotate_seats = len({tuple(t.agents) for t in reused}) > 1
    deals = [(t.seed, tuple(t.agents)) for t in reused] if reused else ()
    runs: list = []  # (result, backend, games) of each arm played or read
    try:
        with backend_for(args) as backend, arms_rows_as_played(getattr(args, "rows", None), (base, variant)) as arm:
            _play_arms(args, (base, variant), agents, backend, arm, reused, deals, runs)
    except _Unfinished:
        played = runs[1:] if reused else runs
        say_interrupted(sum(g.games for _, _, g in played), len(deals) or 2 * args.n, [])
        return runs[-1][0].exit_code or INTERRUPTED
    return _finish_compare(args, base, variant, agents, runs, reused is not None)


def _play_arms(args, variants, agents, backend, arm, reused, deals, runs: list) -> None:
    """Each arm's (result, backend, ColumnStore of its games) appended to `runs`, its rows handed
    to `arm(its run fields)` as the games arrive: the base's read from `reused` when given, else
    played; then the variant's, on the same deals. Raises `_Unfinished` when an arm was stopped,
    or the variant played no game."""
    from vbr.analysis.column_store import ColumnStore
    for label, v in zip(("base", "variant"), variants):
        kept = Kept(ColumnStore(), arm(run_fields(v, args, label)))
        if reused and label == "base":
            kept(reused)
            result = RunResult(run_spec(v, args, agents, deals), games=len(reused))
        else:
            result = play(v, args, agents, backend, f"{label}: {v.label}", deals=deals, sink=kept, keep=False)
        kept.flush()
        runs.append((result, backend, kept.store))
        if result.interrupted:
            raise _Unfinished
    if not runs[1][2].games:
        raise _Unfinished


def _finish_compare(args, base, variant, agents, runs, reused: bool) -> int:
    from vbr.analysis.comparison import compare_columns
    from vbr.analysis.pairing import pair_up_stores, pairing_columns
    (ra, ba, ga), (rb, bb, gb) = runs
    sa, sb = summary(base, ra, ba, agents, ga), summary(variant, rb, bb, agents, gb)
    labels = measure_labels(base.game) | measure_labels(variant.game)
    pairs = pair_up_stores(ga, gb)
    from vbr.report import sweep_side_names
    names = sweep_side_names([{"summary": sa}, {"summary": sb}])  # `seat 0 / team red` where the arms differ
    rows = compare_columns(ga, gb, sa["sides"], names, measure_labels=labels, pairs=pairs)
    report = {"base": {"label": base.label, "rules": sa["rules"], "options": sa["options"]},
              "variant": {"label": variant.label, "rules": sb["rules"], "options": sb["options"]},
              "games": gb.games, "seed": args.seed, "agents": agents, "metrics": rows,
              "engine": getattr(args, "engine", "python"), "base_rows": args.base_rows if reused else None,
              "pairing": pairing_columns(ga, gb, pairs), "base_summary": sa, "variant_summary": sb}
    if args.out:
        output.write_rows(Path(args.out), [{**compare_row(r), "engine": report["engine"]} for r in rows])
    if args.plot:
        from vbr.analysis.plots import write_compare_plots
        write_compare_plots(Path(args.plot), ga, plot_view(sa), gb, plot_view(sb), base.label, variant.label,
                            names, base.game.title, agents)
    if args.json:
        print(json.dumps(report, sort_keys=True))
    else:
        from vbr.report import render_compare
        print(render_compare(report))
    return 0


def base_rows(args, base: Variant, agents: list[str]) -> list:
    """The base's games from `--base-rows`: the rows of the arm with the base's rule file, options
    and agents, played by either engine (both play the same games; this run's engine first); a
    usage error, listing the arms it holds, when the file has none."""
    from vbr.analysis import rows as R
    from vbr.restrict import same_rules
    try:
        merged = R.read([args.base_rows])
    except R.RowsError as exc:
        raise UsageError(f"--base-rows: {exc}") from None
    want = run_fields(base, args, "base")
    agents = agents[:base.game.seats]  # one agent for the most seats of the arms (`arms_agents`): the base's seats
    key = (R.same_file(want["rules"]), tuple(sorted(want["rule_options"].items())), want["engine"],
           tuple(sorted(agents)), same_rules(want["restrict"]))
    played = [a for a in merged.arms if a.key[:2] + a.key[3:] == key[:2] + key[3:]]
    arm = next((a for a in played if a.engine == want["engine"]), played[0] if played else None)
    if arm is None:
        found = "; ".join(f"{a.rules} ({a.label}, engine {a.engine}, agents {','.join(a.agents)})"
                          for a in merged.arms) or "no games"
        raise UsageError(f"--base-rows {args.base_rows}: no games of the base ({base.label}, "
                         f"agents {','.join(agents)}); it holds: {found}")
    from vbr.sim import game_sides
    try:
        arm.check_game(game_sides(base.game), base.game.seats)
    except R.RowsError as exc:
        raise UsageError(f"--base-rows: {exc}") from None
    return arm.trials
