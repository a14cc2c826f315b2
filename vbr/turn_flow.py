"""The turn flow as the rules' text says it: walking a phase's (or setup's) statements, into the
procedures it calls and the handlers of the events it emits, collects where play can go next
(`Exit`s, with the conditions under which each `goto`/`end` runs), who chooses on the way
(`ChoicePoint`s), and whether the body can fall off its end.

Pure Python over the checked model: `vbr check`'s findings read it without building a graph;
vbr/visualizer/graph.py turns it into the NetworkX graph that diagrams and reports draw, and a
traced run (vbr.flow_steps) follows the procedures that graph draws as nodes (`jumping_procs`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from vbr.checker import Model
from vbr.grammar import ast as A
from vbr.grammar.printer import expr
from vbr.grammar.substitute import substitute
from vbr.errors import Span

START = "start"
END = "game over"

# Ways a block can finish without handing play on: it falls off its end, or a statement sends
# control elsewhere in the same body (`return` out of a procedure, `break`/`continue` in a loop).
NEXT, RETURN, LOOP, BREAK = "next", "return", "loop", "break"

Guards = tuple[str, ...]

# Statements one body's walk goes through before it stops walking again the procedures and events
# it has walked once (the bundled books' largest walk: 349): each call of a procedure is walked
# under its own conditions, so procedures that each call the next twice would take a walk twice
# as long per level. Past it, a call or an emit goes on as its first walk did, adding no exits,
# choices or actors: time bounded for any rule file (docs/language.md, Limits).
WALK_BUDGET = 10_000


@dataclass
class Exit:
    """One `goto`/`end` found in a body, with the conditions under which it runs."""

    target: str  # a phase name, END, or a procedure's node (`proc_node(name)`)
    guards: Guards
    span: Span
    name: str | None = None  # `goto serve as "point scored"`


@dataclass
class ChoicePoint:
    """A `choose` a body can reach: what it asks, who answers, under which conditions, where."""

    prompt: str
    actor: str
    guards: Guards
    span: Span
    proc: str | None  # the procedure it is written in (None: the body itself)


@dataclass
class Flow:
    """What running one body can do: where play goes next, and who chooses on the way."""

    exits: list[Exit] = field(default_factory=list)
    actors: set[str] = field(default_factory=set)
    choices: int = 0
    falls_through: Guards | None = None  # when the body can end without a goto (None: never)
    returns: bool = False  # a `return` can leave the body (a procedure's)
    choice_points: list = field(default_factory=list)  # ChoicePoint, in the order the walk meets them


def proc_node(name: str) -> str:
    """The node of a procedure drawn on its own: `point()`, never a phase's name."""
    return f"{name}()"


def jumping_procs(model: Model) -> set[str]:
    """The procedures that can end the game or hand play to a phase, themselves or through the
    procedures and handlers they run."""
    ctx = FlowContext(model, set(), False)
    return {name for name, proc in model.procs.items() if ctx.flow(proc.body, following=[name]).exits}


@dataclass
class FlowContext:
    """How bodies are walked: `nodes` are the procedures drawn on their own (a call to one is an
    exit into it, not a walk through it); `fold` decides the tests the chosen options decide."""

    model: Model
    nodes: set[str]
    fold: bool

    def flow(self, body: A.Block, following: list[str] | None = None, params: list[str] = ()) -> Flow:
        """Walk `body`; `following`: the procedures it is the body of (not walked again when it
        calls them), `params`: the names its parameters bind there (never an option's)."""
        walker = _Walker(self.model, self.nodes, self.fold)
        walker.following = list(following or [])
        walker.bound.update(params)
        ways, after = walker.block(body.body, ())
        walker.flow.falls_through = after if NEXT in ways else None
        walker.flow.returns = RETURN in ways
        return walker.flow


def flow_of(model: Model, body: A.Block) -> Flow:
    """Walk one body (a phase's or setup's), following procedure calls and emitted events."""
    return FlowContext(model, set(), False).flow(body)


class _Walker:
    """Follows the statements a body can run, into procedures and handlers, collecting exits and choices."""

    def __init__(self, model: Model, nodes: set[str] | None = None, fold: bool = False):
        self.model = model
        self.nodes = nodes or set()  # procedures drawn as nodes: a call is an exit into them
        self.fold = fold
        self.flow = Flow()
        self.following: list[str] = []  # procedures and events being followed: stops recursion
        self.quiet = 0  # > 0 inside a procedure drawn as its own node: its exits and actors are its own
        self.env: dict[str, str] = {}  # names bound here (parameters, `let`, loop variables) → how the rules read
        self.args: dict[str, A.Expr] = {}  # the parameters of the procedure or handler walked → this call's arguments
        self.bound: set[str] = set()  # names the rules bind on the walk (parameters, let, for, choose): never an option
        self.visits = 0  # statements walked
        self.walked: dict[str, set[str]] = {}  # procedure or `on EVENT` → how its first walk could finish

    def block(self, body: list[A.Stmt], guards: Guards) -> tuple[set[str], Guards]:
        """How the block can finish, and what holds when it falls off its end."""
        ways: set[str] = set()
        for s in body:
            outs, guards = self.stmt(s, guards)
            ways |= outs - {NEXT}
            if NEXT not in outs:
                return ways, guards  # the rest of the block cannot run
        return ways | {NEXT}, guards

    def stmt(self, s: A.Stmt, guards: Guards) -> tuple[set[str], Guards]:
        self.visits += 1
        match s:
            case A.Goto() | A.EndWinner() | A.EndDraw():
                self.leave(s, guards)
                return set(), guards
            case A.If():
                return self.if_(s, guards)
            case A.Choose():
                return self.choose(s, guards)
            case A.For() | A.Repeat() | A.Loop() | A.While():
                if isinstance(s, A.For):
                    self.env[s.var] = "each of " + self.read(s.source)
                    self.bound.add(s.var)
                outs, _ = self.block(s.body.body, guards)
                # a `loop` ends only by `break` (or by leaving the body: `goto`, `end`, `return`);
                # past its `max` it is an error, so without a `break` nothing after it runs
                after = {NEXT} if not isinstance(s, A.Loop) or BREAK in outs else set()
                return after | (outs & {RETURN}), guards
            case A.Let(value=A.Call(func=name, args=args)) | A.Assign(value=A.Call(func=name, args=args)) \
                    if name in self.model.procs:  # a procedure's result taken: its flow is the call's
                if isinstance(s, A.Let):
                    self.env[s.name] = f"the result of {name}()"
                    self.bound.add(s.name)
                return self.call(name, guards, args)
            case A.Let():
                self.env[s.name] = self.read(s.value)
                self.bound.add(s.name)
            case A.CallStmt(call=A.Call(func=name, args=args)) if name in self.model.procs:
                return self.call(name, guards, args)
            case A.Emit():
                return self.emit(s, guards)
            case A.Break():
                return {BREAK}, guards
            case A.Continue():
                return {LOOP}, guards
            case A.Return():
                return {RETURN}, guards
        return {NEXT}, guards

    def here(self, e: A.Expr) -> A.Expr:
        """A condition in the terms of the body the walk started in: the parameters of the
        procedures and handlers it went into replaced by the arguments they were given."""
        return substitute(e, self.args)

    def read(self, e: A.Expr) -> str:
        """An expression as the rules read here: a bound name becomes what it was bound to."""
        if isinstance(e, A.Name) and e.id in self.env:
            return self.env[e.id]
        return expr(e)

    def leave(self, s: A.Stmt, guards: Guards) -> None:
        if self.quiet:
            return
        target = s.phase if isinstance(s, A.Goto) else END
        self.flow.exits.append(Exit(target, guards, s.span, getattr(s, "label", None)))

    def if_(self, s: A.If, guards: Guards) -> tuple[set[str], Guards]:
        """Each branch runs under its test and the earlier tests' negations. What follows the
        `if` runs under whatever every branch that falls through has in common. With `fold`, a
        test the options decide is decided: a branch that cannot run is not walked."""
        ways: set[str] = set()
        earlier: list[str] = []
        through: list[Guards] = []
        for br in s.branches:
            known = static_value(self.model, br.test, bound=frozenset(self.bound)) if self.fold else None
            if known is False:
                continue
            test = [] if known is True else [_test(self.here(br.test))]
            outs, after = self.block(br.body.body, _and(guards, earlier + test))
            ways |= outs
            if NEXT in outs:
                through.append(after)
            if known is True:
                return ways, _common_prefix(through) if through else guards
            earlier.append(_negate(self.here(br.test)))
        if s.orelse is not None:
            outs, after = self.block(s.orelse.body, _and(guards, earlier))
        else:
            outs, after = {NEXT}, _and(guards, earlier)
        ways |= outs
        if NEXT in outs:
            through.append(after)
        return ways, _common_prefix(through) if through else guards

    def choose(self, s: A.Choose, guards: Guards) -> tuple[set[str], Guards]:
        """A choice point. Its `else` block runs when nothing is left to choose from."""
        self.flow.choices += 1
        self.bound.add(s.var)
        actor = ("team " if s.by_team else "") + self.read(s.by)
        if not self.quiet:
            self.flow.actors.add(actor)
            where = next((f for f in reversed(self.following) if not f.startswith("on ")), None)
            self.flow.choice_points.append(ChoicePoint(s.prompt or f"choose {s.var}", actor, guards, s.span, where))
        if s.orelse is None or s.optional:  # `optional` always offers "none": no else
            return {NEXT}, guards
        outs, _ = self.block(s.orelse.body, _and(guards, [_nothing_to_choose(s, self.here)]))
        return outs | {NEXT}, guards

    def call(self, name: str, guards: Guards, args: list[A.Expr] = ()) -> tuple[set[str], Guards]:
        if name in self.following:
            return {NEXT}, guards
        if self.visits > WALK_BUDGET and name in self.walked:
            return self.walked[name], guards
        node = name in self.nodes
        if node and not self.quiet:
            self.flow.exits.append(Exit(proc_node(name), guards, self.model.procs[name].span))
        self.following.append(name)
        saved, saved_args, saved_bound = dict(self.env), self.args, set(self.bound)
        params = [p.name for p in self.model.procs[name].params]
        self.bound.update(params)
        self.env.update({p: self.read(a) for p, a in zip(params, args)})
        self.args = {p: self.here(a) for p, a in zip(params, args)}
        self.quiet += node
        outs, after = self.block(self.model.procs[name].body.body, guards)
        self.quiet -= node
        self.env, self.args, self.bound = saved, saved_args, saved_bound
        self.following.pop()
        if RETURN in outs:
            after = guards  # a `return` leaves under conditions this walk does not keep
        finishes = {NEXT} if outs & {NEXT, RETURN} else set()
        self.walked.setdefault(name, finishes)
        return finishes, after

    def emit(self, s: A.Emit, guards: Guards) -> tuple[set[str], Guards]:
        """Every handler of the event runs (those whose `when` holds), then the emitter goes on,
        unless a handler that always runs always hands play on."""
        key = "on " + s.event
        if key in self.following:
            return {NEXT}, guards
        if self.visits > WALK_BUDGET and key in self.walked:
            return self.walked[key], guards
        self.following.append(key)
        leaves = False
        saved_args, saved_bound = self.args, set(self.bound)
        for h in self.model.handlers.get(s.event, []):
            self.args = {p.name: substitute(a, saved_args) for p, a in zip(h.params, s.args)}
            self.bound = saved_bound | {p.name for p in h.params}
            when = [_test(self.here(h.when))] if h.when is not None else []
            outs, _ = self.block(h.body.body, _and(guards, when))
            leaves |= h.when is None and not outs & {NEXT, RETURN}
        self.args, self.bound = saved_args, saved_bound
        self.following.pop()
        finishes = set() if leaves else {NEXT}
        self.walked.setdefault(key, finishes)
        return finishes, guards


def static_value(model: Model, e: A.Expr, depth: int = 0, bound: frozenset = frozenset()):
    """The value of an expression the options alone decide (literals, options, constants and
    functions built from them, `not`, `and`, `or`, comparisons), or None when play decides it.
    A function's parameters are unknown: `fn is_ai(t) = SOLO and t == 1` is false when SOLO is."""
    if depth > 50:
        return None
    again = lambda x, b=bound: static_value(model, x, depth + 1, b)  # noqa: E731
    match e:
        case A.BoolLit() | A.IntLit() | A.StrLit():
            return e.value
        case A.Name(id=name):
            if name in bound:
                return None
            if name in model.options:
                value = model.options[name]
                return str(value) if isinstance(value, str) else value
            if name in model.consts:
                return static_value(model, model.consts[name].value, depth + 1)
            if name in model.member_enum:
                return name
            return None
        case A.Call(func=name) if name in model.fns:
            fn = model.fns[name]
            return static_value(model, fn.body, depth + 1, frozenset(p.name for p in fn.params))
        case A.Unary(op="not"):
            v = again(e.operand)
            return None if v is None else not v
        case A.Binary(op="and"):
            a, b = again(e.left), again(e.right)
            if a is False or b is False:
                return False
            return True if a is True and b is True else None
        case A.Binary(op="or"):
            a, b = again(e.left), again(e.right)
            if a is True or b is True:
                return True
            return False if a is False and b is False else None
        case A.Binary(op=op) if op in ("==", "!=", "<", "<=", ">", ">="):
            a, b = again(e.left), again(e.right)
            if a is None or b is None or type(a) is not type(b) or isinstance(a, bool) and op not in ("==", "!="):
                return None
            return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
    return None


def _test(e: A.Expr) -> str:
    """A condition as one conjunct: `a or b` gets parentheses so that joining with `and` is safe."""
    return expr(e, 2)


def _negate(e: A.Expr) -> str:
    if isinstance(e, A.Unary) and e.op == "not":
        return _test(e.operand)  # not (not x) is x
    return f"not ({expr(e)})"


def _nothing_to_choose(s: A.Choose, here) -> str:
    """The condition for a `choose ... else` block, written as a .vbr expression (`here` puts
    it in the walked body's terms)."""
    wanted = s.where if s.where is not None else A.BoolLit(span=s.span, value=True)
    return "not " + expr(here(A.Comprehension(span=s.span, agg="any", body=wanted, var=s.var, source=s.source)))


def _and(guards: Guards, more: list[str]) -> Guards:
    return guards + tuple(g for g in more if g not in guards)


def _common_prefix(paths: list[Guards]) -> Guards:
    first = paths[0]
    n = 0
    while n < len(first) and all(len(p) > n and p[n] == first[n] for p in paths):
        n += 1
    return first[:n]
