"""The loop of a game a person plays: agents move, the screen is drawn, the person is asked, the
answer is checked and applied; at the end (or when the person leaves) the log is written.

The person's seats are asked only when they have a real choice: a choice with one legal option
is made for them and shows among the events as `(only option)`.

Hot seat: seats whose agent is `human` are played by other people at the same terminal. Each
person is the seats of one team played there (in a game without teams, one seat). When the seat
asked belongs to another person than the last one asked, the screen is handed over: cleared (on a
terminal, its scrollback too), then a line asks that person to press Enter, so that nobody sees
another's hidden cards. Each person is shown the events since their own last question, as their
seats may know them; the end of the game shows only what every person may see."""
from __future__ import annotations

import re
import shutil
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from vbr.errors import VbrError
from vbr.terminal import clean
from vbr.agents.spec import HUMAN  # the agent of a seat another person plays here (hot seat)
from vbr.tty_play.screen import HEIGHT, WIDTH, Board, Screen, event_lines, plain, styled, text_line, truncate
from vbr.tty_play.typed import TypedAgent, TypedPlay

QUIT = {"q", "quit", "exit"}
HELP = {"?", "h", "help"}
CLEAR = "\x1b[H\x1b[2J\x1b[3J"  # home, erase the screen, erase the scrollback
ERASE = "\r\x1b[2K"  # to the start of the line, erase it
_WHOLE = re.compile(r"[+-]?[0-9]+")  # a number typed as a choice, its sign included
KEYS = "keys: a number and Enter chooses, ? the choices, z every zone in full, q leaves"


@dataclass
class Outcome:
    finished: bool  # the game reached its end (else the person left)
    choices: int
    events: int


class Left(Exception):
    """The person left the game (q, Ctrl-D)."""


class Session:
    def __init__(self, game, seed: int, seats: tuple[int, ...], agents: list[str | None], out, inp,
                 colour: bool = False, log_path: Path | None = None, terminal: bool = False):
        """`game`: the game played (vbr.engines.game, run by the python or c engine); its
        checked model draws the board. `agents`: one spec per seat, None for `seats`, `human`
        for a seat another person plays here. `terminal`: the output is a terminal: a hand-over
        between people clears it, and a searching agent's seat says it is thinking while it does."""
        self.game = game
        self.seed = seed
        self.you = tuple(seats)
        self.specs = agents  # one spec per seat; None for the person's seats, `human` for other people's
        self.out = out
        self.inp = inp
        self.colour = colour
        self.log_path = log_path
        self.log_written = False  # a game stopped in its set-up has no play to log
        self.board = Board(game)
        self.state = None
        self.terminal = terminal
        self.people = people(game, self.you, agents)
        self.shown = [0] * len(self.people)  # per person, events of the log already shown to them
        self.asked: int | None = None  # the person asked last
        self.leaving = False  # the game is being left (the input ended, or an error): the log comes next
        self.stopped = 0  # a stop signal (SIGHUP, SIGTERM) that came as it was left
        self.seen_chosen: set[int] = set()  # log positions of the person's choices of a thing their seat saw
        self.unseen: dict[int, frozenset[int]] = {}  # log positions of choices offering `pass`: who may not see them

    # -------------------------------------------------------------- output
    def put(self, lines) -> None:
        draw = styled if self.colour else plain
        for line in lines:
            self.out.write(draw(line) + "\n")
        self.out.flush()

    def say(self, text: str, style: str | None = None) -> None:
        self.put([text_line(text, style)])

    # -------------------------------------------------------------- the game
    def play(self) -> Outcome:
        state, agents = self._game()
        try:
            while state.result is None:
                seat = state.pending.seat
                before, unseen = len(state.log), self.unseen_by(seat)
                if seat in agents:
                    state.apply_index(self.agent_move(seat, agents[seat]))
                elif len(state.pending.options) == 1:
                    self.choose(seat, 0)
                else:
                    self.choose(seat, self.decide(seat))
                at = self.choice_at(before) if unseen else None
                if at is not None:
                    self.unseen[at] = unseen
        except Left:
            self.leaving = True
            self.write_log()
            return Outcome(False, state.choices, len(state.log))
        except VbrError as exc:  # an error in the rules: the play up to it, and the error
            self.leaving = True
            self.write_log(exc)
            raise
        except BaseException as exc:  # the play so far, for whoever looks into what went wrong
            self.leaving = True
            self.write_log(stopped=isinstance(exc, KeyboardInterrupt))
            raise
        self.finish()
        self.write_log()
        return Outcome(True, state.choices, len(state.log))

    def _game(self):
        """The game, logged, and the other seats' agents: the seeds and streams of `vbr run`."""
        from vbr.play import typed_agents
        state = self.state = TypedPlay(self.game, self.seed)
        seats = typed_agents(self.seed, [spec if spec not in (None, HUMAN) else "random" for spec in self.specs])
        agents = {seat: TypedAgent(state, kind, params, stream)
                  for seat, (kind, params, stream) in enumerate(seats) if self.specs[seat] not in (None, HUMAN)}
        return state, agents

    def agent_move(self, seat: int, agent: TypedAgent) -> int:
        """The agent's choice. On a terminal a searching agent (mcts) may take seconds: a line says
        it is thinking, and is erased once it has chosen; not at a choice of one option (taken at
        once), nor at one it may pass (unseen_by: that it was asked may tell what its hand holds)."""
        from vbr.agents.spec import searches
        if (not (self.terminal and searches(self.specs[seat])) or len(self.state.pending.options) == 1
                or self.unseen_by(seat)):
            return agent.act()
        room = min(WIDTH, shutil.get_terminal_size((WIDTH, HEIGHT)).columns) - 1  # one line, to erase
        note = truncate(f"seat {seat} ({clean(self.specs[seat])}) is thinking... (Ctrl-C leaves)", room)
        self.out.write((styled if self.colour else plain)(text_line(note, "dim")))  # no newline: erased after
        self.out.flush()
        try:
            with _no_echo(self.inp):  # keys typed meanwhile would break the line; they are dropped anyway
                return agent.act()
        finally:
            self.out.write(ERASE)
            self.out.flush()

    def person(self, seat: int) -> int:
        return next(i for i, seats in enumerate(self.people) if seat in seats)

    def screen(self, seat: int) -> Screen:
        return Screen(self.board, self.state.observation(seat), seat, self.people[self.person(seat)])

    def choose(self, seat: int, index: int) -> None:
        """The person's `seat` makes its choice `index`. When it chooses a thing its seat may see,
        the log position of that choice is kept: the event shows the person the thing they chose
        even once it is out of sight (put face down), never a thing chosen blind."""
        obs = self.state.observation(seat)
        legal = obs.get("legal", [])
        seen = {d.partition(" ")[0] for content in obs["zones"].values() if isinstance(content, list) for d in content}
        before = len(self.state.log)
        self.state.apply_index(index)
        if index < len(legal) and legal[index] in seen:
            at = self.choice_at(before)
            if at is not None:
                self.seen_chosen.add(at)

    def choice_at(self, before: int) -> int | None:
        """The log position of the choice just made, whose events begin at `before`."""
        return next((i for i in range(before, len(self.state.log)) if self.state.log[i].get("t") == "choice"), None)

    def unseen_by(self, seat: int) -> frozenset[int]:
        """The people, other than the one playing `seat`, from whom the pending choice of `seat`
        is kept when `seat` declines it: every other person, when it offers `pass`
        (vbr.engines.observation.passable_elsewhere: such a choice is put only when there is
        something to choose, which may turn on a hand they may not see); else nobody."""
        from vbr.engines.observation import passable_elsewhere
        st = self.state.state
        return frozenset(who for who, seats in enumerate(self.people)
                         if seat not in seats and passable_elsewhere(st.game, st.words, seats[0]))

    def news(self, screen: Screen, who: int) -> list:
        """The events person `who` has not been shown yet, as `screen` may know them."""
        start = self.shown[who]
        events = self.state.log[start:]
        self.shown[who] = len(self.state.log)
        return event_lines(events, self.board, screen, {i - start for i in self.seen_chosen if i >= start},
                           {i - start for i, people in self.unseen.items() if i >= start and who in people})

    def hand_over(self, who: int) -> None:
        """Between two people, the screen cleared and the next one asked to press Enter."""
        if self.asked is not None:  # before the first question nothing of anyone's is shown
            self.wipe()
        seats = self.people[who]
        name = f"seat {seats[0]}" if len(seats) == 1 else f"seats {', '.join(map(str, seats[:-1]))} and {seats[-1]}"
        self.say(f"{name} to play: hand the terminal to {name}.", "prompt")
        answer = self.ask(f"{name}, press Enter to see your screen (q leaves): ")
        if answer is None or answer.lower() in QUIT:
            raise Left

    def wipe(self) -> None:
        """What the last person was shown, gone: a terminal's screen and scrollback cleared;
        other output (a file, a pipe) keeps all, a line marks the hand-over."""
        if self.terminal:
            self.out.write(CLEAR)
        else:
            self.say("-" * 40, "dim")

    def decide(self, seat: int) -> int:
        """The option the person at `seat` chooses (an index into the pending options)."""
        sc = self.screen(seat)
        offers = sc.offers()
        n = len(offers)
        if n == 1:  # cards alike in all but their id: one offer, made as an only option is
            return offers[0][0]
        who = self.person(seat)
        if len(self.people) > 1 and who != self.asked:
            self.hand_over(who)
        self.asked = who
        self.put(self.news(sc, who) + sc.board_lines() + sc.choice_lines())
        while True:
            answer = self.ask(sc.ask())
            if answer is None or answer.lower() in QUIT:
                raise Left
            if answer.lower() in HELP:
                self.put(sc.choice_lines() + [text_line(KEYS, "dim")])
                continue
            if answer.lower() == "z":
                self.put(sc.board_lines(full=True) + sc.choice_lines())
                continue
            if not answer:
                self.say(f"type a number from 1 to {n} and Enter (? shows the choices, q leaves)", "hint")
                continue
            if not _WHOLE.fullmatch(answer):  # ASCII digits only: str.isdigit takes `²`, which int() refuses
                self.say(f"{_quote(answer)} is not a number: type 1 to {n} (? shows the choices)", "hint")
                continue
            k = _in_range(answer, n)
            if k is None:
                self.say(f"{_number(answer)} is not a choice: type 1 to {n} (? shows the choices)", "hint")
                continue
            return offers[k - 1][0]

    def ask(self, prompt: str) -> str | None:
        """A line from the person, None at the end of input (Ctrl-D). On a terminal, what was
        typed before the question shows (while an agent thought) is dropped: it would answer a
        question nobody has seen."""
        _drop_typeahead(self.inp)
        self.out.write(prompt)
        self.out.flush()
        try:
            line = self.inp.readline()
        except OSError:  # the terminal is gone (EIO once it was closed): no more input, as at Ctrl-D
            line = ""
        if not line:
            self.leaving = True
            try:
                self.out.write("\n")
            except OSError:
                pass
            return None
        return line.strip()

    def finish(self) -> None:
        """The last events and the board, with the result; with several people at the terminal,
        the board as every one of them may see it (a zone one of them may not see, as its count),
        and the winner named."""
        seat = self.you[0]
        out = self.state.outcome()
        won = out.team if self.board.teamed else out.winner
        if len(self.people) == 1:
            sc = self.screen(seat)
            self.put(self.news(sc, 0) + sc.board_lines())
            side = self.board.team_of[seat] if self.board.teamed else seat
            verdict = "" if won is None else ": you won" if won == side else ": you lost"  # a draw says so itself
            self.say(f"result: {self.result_text(out)} after {_choices(self.state.choices)}{verdict}", "result")
            return
        self.wipe()
        shared = self.shared(seat)
        start = min(self.shown)
        events = self.state.log[start:]
        self.put(event_lines(events, self.board, shared, unseen={i - start for i in self.unseen if i >= start})
                 + shared.board_lines())
        self.say(f"result: {self.result_text(out)} after {_choices(self.state.choices)}", "result")

    def result_text(self, out) -> str:
        """The outcome (`team 0 wins (3, 0)`) with the winning team named as the board names its
        side: `team red wins (3, 0)` in a game of teams, `seat 1 wins` where each team is one seat."""
        text = str(out)
        b = self.board
        if not out.by_team or out.team is None or not 0 <= out.team < len(b.teams):
            return text
        seats = b.teams[out.team]
        if b.teamed and out.team < len(b.side_names):
            name = b.side_names[out.team]
        elif len(seats) == 1:
            name = f"seat {seats[0]}"
        else:
            return text
        return text.replace(f"team {out.team} wins", f"{name} wins", 1)

    def shared(self, seat: int) -> Screen:
        """`seat`'s screen narrowed to what every person at the terminal may see: the things each
        of their seats' views holds, nobody named `you`."""
        sc = Screen(self.board, self.state.observation(seat), seat, shared=True)
        views = [self.screen(seats[0]) for seats in self.people]
        sc.narrow(k for k in sc.items if all(k in other.items for other in views))
        return sc

    def write_log(self, fault: VbrError | None = None, stopped: bool = False) -> None:
        """The play so far, to `--log`; with `fault`, the error in the rules that stopped it last
        (vbr.gamelog.fault_event), as `vbr run --log` writes it; `stopped` (Ctrl-C, which may
        land inside the rules' run after a choice), vbr.gamelog.STOPPED last."""
        if self.log_path is None or self.state is None:
            return
        with _signals_held():  # a hang-up or Ctrl-C meanwhile: handled after, not half way
            from vbr.gamelog import STOPPED, fault_event, header, write_log
            agents = [spec if spec is not None else HUMAN for spec in self.specs]
            events = self.state.log + ([fault_event(fault, self.game.path)] if fault is not None else []) + \
                ([STOPPED] if stopped else [])
            write_log(self.log_path, header(self.game, self.seed, agents, self.game.engine.name), events)
        self.log_written = True


def _choices(n: int) -> str:
    return f"{n} choice{'' if n == 1 else 's'}"


@contextmanager
def _no_echo(inp):
    """A terminal's input not echoed meanwhile (Ctrl-C still interrupts); nothing for other input."""
    try:
        import termios
        fd = inp.fileno() if inp.isatty() else None
        saved = termios.tcgetattr(fd) if fd is not None else None
    except (AttributeError, ValueError, OSError, ImportError):
        saved = None
    if saved is None:
        yield
        return
    quiet = list(saved)
    quiet[3] &= ~termios.ECHO
    termios.tcsetattr(fd, termios.TCSANOW, quiet)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, saved)


@contextmanager
def _signals_held():
    """SIGHUP, SIGTERM and SIGINT held back meanwhile, and handled after; nothing where the
    platform cannot hold signals."""
    import signal
    held = {getattr(signal, n) for n in ("SIGHUP", "SIGTERM", "SIGINT") if hasattr(signal, n)}
    try:
        before = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    except (AttributeError, OSError, ValueError):
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _drop_typeahead(inp) -> None:
    """Discard the keys a terminal holds that nobody has read yet; nothing for other input."""
    try:
        if not inp.isatty():
            return
        import termios
        termios.tcflush(inp.fileno(), termios.TCIFLUSH)
    except (AttributeError, ValueError, OSError, ImportError):  # no file, closed, not POSIX
        return


def people(game, you: tuple[int, ...], agents: list[str | None]) -> list[tuple[int, ...]]:
    """The people at the terminal, each as the seats they play: `you` first, then, per team in
    seat order, that team's seats whose agent is `human` (a seat alone in a game without teams)."""
    out = [tuple(you)]
    for team in game.program.teams:
        mine = tuple(s for s in team if agents[s] == HUMAN and s not in you)
        if mine:
            out.append(mine)
    return out


def _in_range(number: str, n: int) -> int | None:
    """The choice `number` (ASCII digits, maybe signed) picks among 1 to `n`, or None. Its digits are
    counted before it is read: a number of thousands of digits is past Python's int() limit."""
    digits = number.lstrip("+-").lstrip("0")
    if number.startswith("-") or not digits or len(digits) > len(str(n)):
        return None
    k = int(digits)
    return k if k <= n else None


def _number(number: str) -> str:
    """A number typed, as a hint repeats it: `-1`, `7`, a long one cut as `'99999...'`."""
    sign = "-" if number.startswith("-") else ""
    digits = number.lstrip("+-").lstrip("0") or "0"
    return _quote(sign + digits) if len(digits) > 20 else str(int(sign + digits))


def _quote(text: str) -> str:
    """`text` typed, as a hint repeats it: quoted, control characters as `\\xNN` (once: repr()
    would double the backslash), cut after 20 characters."""
    shown = clean(text)
    return "'" + (shown if len(shown) <= 20 else shown[:20] + "...") + "'"
