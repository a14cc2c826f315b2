"""`vbr importance`: what each option of a rule file is worth to the seat that has it.

For every word a restriction can name (vbr.restrict.nameable_words: the file's enum members, its
kinds, `pass`), each seat in turn plays the same deals (seeds) restricted — never taking what the
word names — against unrestricted play; its win rate is compared with its win rate in the same
deals unrestricted. The drop is the mean of the per-deal differences (won unrestricted minus won
restricted, each 1, 0 or -1), pooled over the seats the word ever took an option from, with a
paired interval: the same seeds keep the rest of the game alike (under the typed engines, every
draw the restriction does not touch is the same draw), and the seats' differences of one deal are
one cluster, as they share its draws. Where the deals cannot give one (fewer than two, or every
deal's differences alike on average: the seat won every deal in one run and none in the other),
the interval is Newcombe's from the two win rates' Wilson intervals, as `vbr compare` falls back
to it (`drop_ci`).
"""
from __future__ import annotations

from dataclasses import dataclass
from statistics import fmean

from vbr.analysis import stats as S


@dataclass
class Importance:
    word: str
    what: str  # what the word names in the file (an enum member of X, a kind, passing)
    drop: float | None  # mean per-deal loss of the restricted seat's wins
    ci95: tuple | None
    restricted_rate: float  # the restricted seat's win rate, pooled over the seats
    base_rate: float  # the same seats' win rate in the same deals, unrestricted
    narrowed_per_game: float  # choices the restriction narrowed, per game
    played_whole: int  # choices it would have emptied (played unrestricted)
    games: int
    paired: bool = True  # the interval is the paired one (else Newcombe's: `drop_ci`)

    def row(self) -> dict:
        r4 = (lambda x: None if x is None else round(x, 4))
        return {"word": self.word, "what": self.what, "drop": r4(self.drop),
                "ci95": None if self.ci95 is None else [r4(x) for x in self.ci95],
                "restricted_rate": r4(self.restricted_rate), "base_rate": r4(self.base_rate),
                "narrowed_per_game": round(self.narrowed_per_game, 3), "played_whole": self.played_whole,
                "games": self.games}

    def out_row(self) -> dict:
        """The row `--out` writes: `row`, but the interval in two numeric columns, `drop lo` and
        `drop hi` (as `vbr compare --out` writes `diff lo` and `diff hi`), empty where there is
        none; one cell `-0.23--0.12` reads ambiguously and a spreadsheet takes it for text."""
        row = self.row()
        lo, hi = row.pop("ci95") or (None, None)
        at = list(row).index("drop") + 1
        items = list(row.items())
        return dict(items[:at] + [("drop lo", lo), ("drop hi", hi)] + items[at:])


# the columns of --out (Importance.out_row): a file of no word has them too
OUT_COLUMNS = ("word", "what", "drop", "drop lo", "drop hi", "restricted_rate", "base_rate", "narrowed_per_game",
               "played_whole", "games")


def rule_for(seat: int, word: str) -> str:
    """The restriction that takes `word` away from `seat`: `never:pass` for passing (the seat never
    passes where it may), not `pass` (which takes away every option but passing)."""
    return f"{seat}=never:{word}"


def importance_of(word: str, what: str, base: dict, restricted: dict, side_of: list[int]) -> Importance:
    """One word's figure from the runs: `base[seat]` and `restricted[seat]` are each the trials of
    the same deals, in the same order, unrestricted and with `seat` restricted."""
    diffs, wins_r, wins_b, deals, narrowed, whole = [], [], [], [], 0, 0
    for seat, trials in restricted.items():
        side = side_of[seat]
        whole += sum(t.restricted[1] for t in trials)
        if not any(t.restricted[0] for t in trials):
            continue  # the word never took an option from this seat: nothing of it to measure there
        for t_base, t_restricted in zip(base[seat], trials):
            b, r = int(t_base.winner == side), int(t_restricted.winner == side)
            diffs.append(float(b - r))
            wins_b.append(b)
            wins_r.append(r)
            deals.append(t_base.seed)
            narrowed += t_restricted.restricted[0]
    n = len(diffs)
    if not n:
        return Importance(word, what, None, None, 0.0, 0.0, 0.0, whole, 0)
    ci, paired = drop_ci(diffs, wins_r, wins_b, deals)
    return Importance(word, what, fmean(diffs), ci, sum(wins_r) / n, sum(wins_b) / n, narrowed / n, whole, n, paired)


def drop_ci(diffs: list[float], wins_r: list[int], wins_b: list[int], deals: list) -> tuple[tuple | None, bool]:
    """(the drop's 95% interval, whether it is the paired one). `diffs[i]`: pair i's won
    unrestricted less won restricted; `wins_r[i]`, `wins_b[i]`: its wins, restricted and not;
    `deals[i]`: its deal (seed), shared by the seats' pairs of one deal.

    The paired interval takes each deal as one cluster (`stats.clustered_mean_ci` of the deals'
    summed differences: the ratio estimator over the deals, t at the deals less one), as the
    seats' pairs of one deal are the same deal played with the restriction on each seat and share
    its draws: pooled as independent pairs, s/√n over the pairs would be too narrow where they
    move together (for every seat's difference alike in a deal, by about √seats). With every deal
    one pair it is the paired t interval of the differences (`stats.mean_ci`). Where the deals'
    mean differences have no spread, or are fewer than two (every deal won unrestricted and lost
    restricted, or lost in both), it would be a point, certainty that a few deals do not give:
    then the drop is taken as the difference of the two win rates, with Newcombe's interval from
    their Wilson intervals (`stats.diff_proportions`; as `vbr compare` does where its paired
    differences are all alike), each deal's games one cluster (`stats.clustered_wilson`)."""
    sums, counts = S.cluster_totals(diffs, deals)
    if len({total / games for total, games in zip(sums, counts)}) > 1:  # exact: whole sums over whole counts
        return S.clustered_mean_ci(sums, counts), True
    n = len(diffs)
    return S.diff_proportions(sum(wins_r), n, sum(wins_b), n, clusters_a=S.cluster_totals(wins_r, deals),
                              clusters_b=S.cluster_totals(wins_b, deals)), False


def ranked(figures: list[Importance]) -> list[Importance]:
    """Largest drop first; words the restriction never bit (nothing to take) last."""
    return sorted(figures, key=lambda f: (f.narrowed_per_game == 0, -(f.drop or 0.0), f.word))


def render(title: str, figures: list[Importance], agents: list[str], games: int) -> str:
    """The ranking as a table no wider than 100 columns."""
    from vbr.report import counted
    out = [f"{title}: what each option is worth to the seat that has it ({counted(games, 'deal')} per seat, agents "
           f"{' | '.join(agents)}; drop = the restricted seat's lost win rate, paired per deal, 95% CI)"]
    if not figures:
        out.append("  no word to weigh: the file has no enum member or kind, and no choice that may be passed")
        return "\n".join(out)
    width = max([len(f.word) for f in figures] + [4])
    out.append(f"  {'word':<{width}}  {'drop':>7}  {'95% CI':<15}  {'narrowed/game':>13}  what")
    for f in figures:
        if f.narrowed_per_game == 0:
            why = "never offered" if not f.played_whole else "never avoidable"
            out.append(f"  {f.word:<{width}}  {'—':>7}  {why:<15}  {0:>13}  {f.what}"
                       + (f" ({counted(f.played_whole, 'choice')} offered nothing else)" if f.played_whole else ""))
            continue
        ci = f"{100 * f.ci95[0]:+.1f}..{100 * f.ci95[1]:+.1f}" + ("" if f.paired else "*") if f.ci95 else "no interval"
        out.append(f"  {f.word:<{width}}  {100 * f.drop:>+6.1f}%  {ci:<15}  {f.narrowed_per_game:>13.2f}  {f.what}"
                   + (f" ({counted(f.played_whole, 'choice')} played whole)" if f.played_whole else ""))
    if any(f.ci95 and not f.paired for f in figures):
        out += ["  * not paired: the per-deal differences were all alike (or fewer than two deals), so Newcombe's",
                "    interval of the difference of the two win rates, from their Wilson intervals"]
    return "\n".join(out)


def _over_runs(progress, total: int, per_run: int):
    """A run's progress callback that shows the games of the whole command: each run of
    `per_run` games counted after those before it, out of `total`."""
    runs_before = [0]

    def shown(done: int, planned: int) -> None:
        progress(runs_before[0] * per_run + done, total)
        if done >= planned:
            runs_before[0] += 1
    return shown


def cmd_importance(args, game, agents: list[str]) -> int:
    """Every nameable word's importance, ranked; `--json` prints the rows (the interval as `ci95`,
    a pair), `--out` writes them (the interval as `drop lo` and `drop hi`: Importance.out_row). A
    file with no word to restrict plays no game and says so."""
    from vbr.analysis.commands import INTERRUPTED, backend_for, check_count, check_outputs, say_interrupted, \
        side_of_seat
    from vbr.progress import Progress
    from vbr.restrict import nameable_words
    from vbr.sim import RunSpec, run
    from vbr.stop_signals import exit_code
    check_count(args.n)
    check_outputs(args)
    words = nameable_words(game.model)
    seats = range(game.seats)

    def spec(restrict=()):
        return RunSpec.of(game.path, game.options, args.seed, agents, args.n, engine=args.engine, restrict=restrict)

    if not words:  # nothing to restrict: no game would tell anything
        return _finish(args, game, agents, [])
    figures = []
    shown = Progress.for_terminal("importance", quiet=args.json, force=args.progress)
    progress = _over_runs(shown, args.n * (1 + len(words) * game.seats), args.n) if shown else None
    played = [0]  # games of the runs finished so far, for a stop between two runs

    def tally(result):
        played[0] += len(result.trials)
        return result

    try:
        with backend_for(args) as backend:
            base = tally(run(spec(), backend, progress))
            if base.interrupted:
                say_interrupted(len(base.trials), args.n, [])
                return base.exit_code or INTERRUPTED
            for word, what in words.items():
                runs = {s: tally(run(spec((rule_for(s, word),)), backend, progress)) for s in seats}
                stopped = [r.exit_code for r in runs.values() if r.interrupted]
                if stopped:
                    say_interrupted(sum(len(r.trials) for r in runs.values()), args.n * game.seats, [])
                    return stopped[0]
                figures.append(importance_of(word, what, {s: base.trials for s in seats},
                                             {s: r.trials for s, r in runs.items()}, side_of_seat(game)))
    except KeyboardInterrupt as exc:  # a stop between two runs (within one, the run keeps its games)
        say_interrupted(played[0], args.n * (1 + len(words) * game.seats), [])
        return exit_code(exc)
    finally:
        if shown:
            shown.close()
    return _finish(args, game, agents, ranked(figures))


def _finish(args, game, agents: list[str], figures: list[Importance]) -> int:
    """The ranking written (--out), and printed (--json, or the table)."""
    import json
    from pathlib import Path

    from vbr.analysis import output
    from vbr.report import clean
    rows = [f.row() for f in figures]
    if args.out:
        output.write_rows(Path(args.out), [f.out_row() for f in figures], OUT_COLUMNS)
    if args.json:
        print(json.dumps({"rules": str(game.path), "agents": agents, "games": args.n, "seed": args.seed,
                          "engine": args.engine, "importance": rows}, sort_keys=True))
    else:
        print(clean(render(game.title, figures, agents, args.n)))
    return 0
