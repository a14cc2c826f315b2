"""The differential test reaches every construct (issue 11).

Every construct is compiled twice: a closure (expressions.py, statements.py, structured.py,
builtins.py) and a Python template (lowering.py). tests/test_lowering.py compares the two forms on
the bundled rule files, which use only part of the language; the corpus
tests/fixtures/valid/every_construct_*.vbr uses all of it, and this file

(a) checks that the corpus holds an instance of every body and expression node class of
    vbr.grammar.ast (found by introspection, less the classes listed in EXCLUDED) and a call of
    every built-in in BUILTINS;
(b) compares the two forms on it: the same JSON log, outcome, steps and choices for every seed
    in SEEDS (`random_game_log`), and the same final state with random seats answered in place
    (`final_state`, through vbr.play.play_game);
(c) checks that those games *run* every construct, not only contain it.

What "reached" means in (c): the closure form is compiled again with a recorder around each
node's code: every closure that ExprCompiler.compile returns for an expression node, and a
recorder put just before each statement (an extra straight-line action in the VM's ops, or a
wrapper around the closure of a statement in a pure block). A node is *reached* when its recorder
runs in one of the games (b) plays: the same seeds, the same two ways of playing. The recorders
change nothing in a game (no step, no draw), and the test holds them to it: the recorded games
must give the same logs and final states as the plain closures. Then:

- every statement of every phase, procedure, handler and `setup` of the corpus is reached, and
  the body of every `fn` (there is no dead code in the corpus);
- every construct in `required()` is reached by at least one node: each node class; both ways
  of each `bool` or optional field (`choose ... optional` and without, `return` with and
  without a value, ...); each operator, aggregate, assignment and `move` position; each
  built-in; calls of a `fn`, of a procedure that can suspend (the VM's ops) and of one that
  cannot (straight closures, lowered inline), and a procedure's result taken by `let` and `=`;
  each statement both in a block of the VM's ops and in a pure block (but those that can only
  be one of them); each way a name resolves (local, var, const, option, zone, ...).

An expression folded into its parent (the `3` of `n < 3`, the items of `[1, 2]`) runs no code
of its own and is not reached; each class is reached through another instance.

The recorders measure the closure form. The lowered form plays the same games, event for event
and step for step (b), so the same statements run in it; whether each runs through its template
or through a closure the lowering falls back to is not measured. What this file checks of the
lowered form directly is coarser: every phase, handler, `setup` and procedure run as ops starts
with a generated function that the games enter, and so does every function generated for a
`fn` or a pure procedure that is called rather than written in place (a `sys.setprofile` hook
filtered on the generated module's file name, `<vbr: FILE>`).
"""
from __future__ import annotations

import contextlib
import sys
import typing
from functools import lru_cache

import pytest

from conftest import FIXTURES
from test_lowering import assert_only_data, both_forms, final_state, random_game_log
from vbr.grammar import ast as A
from vbr.interpreter.builtins import BUILTINS
from vbr.interpreter.compiler import compile_rules
from vbr.interpreter.expressions import ExprCompiler
from vbr.interpreter.game import Game
from vbr.interpreter.statements import StmtCompiler
from vbr.interpreter.structured import StructuredCompiler
from vbr.loader import load_rules

CORPUS = sorted((FIXTURES / "valid").glob("every_construct_*.vbr"))
SEEDS = range(10)

# Node classes of vbr.grammar.ast that never stand in a body or an expression, and why. Every
# other class is required, so a class added to ast.py fails (a) until the corpus uses it (or it
# is listed here, with its reason).
EXCLUDED = {
    "Node": "the abstract base", "Expr": "the abstract base of expressions",
    "Stmt": "the abstract base of statements", "Decl": "the abstract base of declarations",
    "GameFile": "the rule file itself", "Comment": "kept for `vbr fmt`, never compiled",
    "TestFile": "scenario files only", "Scenario": "scenario files only", "ScenarioStep": "scenario files only",
    "TypeRef": "a type, written in declarations and parameters", "Param": "a parameter of a declaration",
    "Team": "part of `seats`", "Field": "part of `kind`", "CourtItem": "part of `court`", "VarRange": "part of `var`",
    # declarations: they hold bodies and expressions, they are none; their bodies are what is required
    **{name: "a declaration" for name in (
        "Extends", "Seats", "Option", "Enum", "Kind", "Zone", "Court", "Direction", "Die", "Var", "Const", "Fn",
        "Proc", "Event", "Handler", "Phase", "Stage", "Setup", "StartAt", "Points", "Limit", "Require", "Measure")},
}

# The values of the fields that say which operation a node is (their comments in ast.py; the
# grammar's COMP_OP, ADD_OP, MUL_OP, AGG, ASSIGN_OP and END_POS): each must be reached.
OPERATIONS = {
    ("Binary", "op"): ("+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "and", "or", "in", "not in"),
    ("Unary", "op"): ("-", "not"),
    ("Comprehension", "agg"): ("sum", "any", "all", "first", "every"),
    ("Assign", "op"): ("=", "+=", "-="),
    ("Move", "position"): ("top", "bottom"),
}
# The ways ExprCompiler.c_Name resolves a name, in its order (docs/language.md 5.2).
NAME_KINDS = ("local", "var", "var per", "const", "option", "member", "direction", "zone", "zone per", "enum",
              "kind", "seats", "teams")
# Where a statement is compiled: in a block of the VM's ops (statements.py), or in a pure block,
# as one straight closure (structured.py). Each statement is required in both, but for these:
NEVER_PURE = {"Choose", "Goto", "EndWinner", "EndDraw", "Emit", "Return"}  # they suspend or hand control on
ALWAYS_PURE = {"Move", "Shuffle", "Create", "Say", "Reveal"}  # straight-line: nothing in them can suspend


def concrete(base: type) -> list[type]:
    """The classes of vbr.grammar.ast below `base`, the abstract bases left out."""
    out, todo = [], [base]
    while todo:
        cls = todo.pop()
        out.append(cls)
        todo += cls.__subclasses__()
    return [c for c in out if c.__module__ == A.__name__ and c not in (A.Node, A.Expr, A.Stmt, A.Decl)]


def body_classes() -> set[str]:
    return {c.__name__ for c in concrete(A.Node)} - set(EXCLUDED)


def flags(cls: type) -> list[tuple[str, tuple]]:
    """The fields of a node class that are on or off: `bool`s, and `Optional`s (given or not)."""
    out = []
    for name, field in cls.model_fields.items():
        if field.annotation is bool:
            out.append((name, (True, False)))
        elif typing.get_origin(field.annotation) is typing.Union and type(None) in typing.get_args(field.annotation):
            out.append((name, ("given", "absent")))
    return out


def required() -> set[tuple]:
    """Every construct (c) wants reached: see the module's docstring."""
    want = set()
    for cls in concrete(A.Expr) + concrete(A.Stmt):
        want.add((cls.__name__,))
        for name, values in flags(cls):
            want |= {(cls.__name__, name, v) for v in values}
    for (cls, field), values in OPERATIONS.items():
        want |= {(cls, field, v) for v in values}
    want |= {("Call", name) for name in BUILTINS} | {("Call", "fn")}
    want |= {("If", "elif"), ("Let", "proc result"), ("Assign", "proc result")}
    want |= {("Name", kind) for kind in NAME_KINDS}
    for cls in concrete(A.Stmt):
        if cls.__name__ not in ALWAYS_PURE:
            want.add((cls.__name__, "ops"))
        if cls.__name__ not in NEVER_PURE:
            want.add((cls.__name__, "pure"))
    return want


# ---------------------------------------------------------------------- (a) the corpus holds
def parsed(path) -> list[A.Node]:
    rules = load_rules(path)
    return [n for d in rules.decls for n in A.walk(d)]


def test_the_corpus_is_there_and_canonical():
    from vbr.grammar.parser import parse
    from vbr.grammar.printer import program
    assert len(CORPUS) >= 2
    for path in CORPUS:
        text = path.read_text()
        assert program(parse(text, str(path))) == text, f"run `vbr fmt {path}`"
        assert text.splitlines()[1].startswith("# "), "a header comment says what the file is for"


def test_excluded_names_are_classes_of_the_ast():
    assert set(EXCLUDED) <= {c.__name__ for c in concrete(A.Node)} | {"Node", "Expr", "Stmt", "Decl"}


def test_the_corpus_holds_every_node_class_and_builtin():
    nodes = [n for path in CORPUS for n in parsed(path)]
    assert body_classes() - {type(n).__name__ for n in nodes} == set()
    assert set(BUILTINS) - {n.func for n in nodes if isinstance(n, A.Call)} == set()


# ---------------------------------------------------------------------- (b) the two forms agree
@lru_cache(maxsize=None)
def forms(path):
    return both_forms(path)


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_both_forms_play_the_same_games(path):
    closures, lowered = forms(path)
    assert lowered.program.lowering.functions > 0 and not lowered.program.lowering.refused
    for seed in SEEDS:
        assert random_game_log(lowered, seed) == random_game_log(closures, seed), seed
        assert final_state(lowered, seed) == final_state(closures, seed), seed


# ---------------------------------------------------------------------- (c) the games run it all
def key(node: A.Node) -> tuple:
    s = node.span
    return type(node).__name__, s.file, s.line, s.col, s.end_line, s.end_col


def name_kind(m, scope, name: str) -> str:
    if scope.lookup(name) is not None:
        return "local"
    for kind, table in (("var", m.vars), ("const", m.consts), ("option", m.options), ("member", m.member_enum),
                        ("direction", m.directions), ("zone", m.zones), ("enum", m.enums), ("kind", m.kinds)):
        if name in table:
            per = kind in ("var", "zone") and table[name].per
            return kind + " per" if per else kind
    return name  # seats, teams


def expr_constructs(m, scope, e: A.Expr) -> set[tuple]:
    cls = type(e).__name__
    out = {(cls,)} | {(cls, name, v) for name, values in flags(type(e)) for v in values
                      if v == _flag(getattr(e, name))}
    out |= {(c, f, getattr(e, f)) for (c, f) in OPERATIONS if c == cls}
    if isinstance(e, A.Call):
        out.add(("Call", "fn" if e.func in m.fns else e.func))
    elif isinstance(e, A.Name):
        out.add(("Name", name_kind(m, scope, e.id)))
    return out


def stmt_constructs(m, s: A.Stmt, path: str) -> set[tuple]:
    cls = type(s).__name__
    out = {(cls,), (cls, path)} | {(cls, name, v) for name, values in flags(type(s)) for v in values
                                   if v == _flag(getattr(s, name))}
    out |= {(c, f, getattr(s, f)) for (c, f) in OPERATIONS if c == cls}
    if isinstance(s, A.If) and len(s.branches) > 1:
        out.add(("If", "elif"))
    if isinstance(s, (A.Let, A.Assign)) and isinstance(s.value, A.Call) and s.value.func in m.procs:
        out.add((cls, "proc result"))
    return out


def _flag(value):
    return value if isinstance(value, bool) else "absent" if value is None else "given"


@contextlib.contextmanager
def recording(reached: dict):
    """While it lasts, compiled closures record what they run in `reached` (node key -> the
    constructs it stands for): see the module's docstring."""
    pure = [0]  # > 0 while the structured compiler compiles a pure statement

    def compile(self, e, scope):
        f, t = plain_compile(self, e, scope)
        k, what = key(e), expr_constructs(self.m, scope, e)

        def recorded(st, L):
            reached[k] = what
            return f(st, L)
        return recorded, t

    def pure_stmt(self, s, scope):
        pure[0] += 1
        try:
            compiled = plain_pure_stmt(self, s, scope)
        finally:
            pure[0] -= 1
        if compiled is None:
            return None
        f, span = compiled
        k, what = key(s), stmt_constructs(self.m, s, "pure")

        def recorded(st, L):
            reached[k] = what
            return f(st, L)
        return recorded, span

    def op_stmt(method):
        def compile_stmt(self, b, s, scope, loop):
            if not pure[0]:
                k, what = key(s), stmt_constructs(self.m, s, "ops")

                def recorded(st, L):
                    reached[k] = what
                b.action(recorded, s.span)
            return method(self, b, s, scope, loop)
        return compile_stmt

    plain_compile, plain_pure_stmt = ExprCompiler.compile, StructuredCompiler.stmt
    methods = {name: m for name, m in vars(StmtCompiler).items() if name.startswith("s_")}
    try:
        ExprCompiler.compile = compile
        StructuredCompiler.stmt = pure_stmt
        for name, method in methods.items():
            setattr(StmtCompiler, name, op_stmt(method))
        yield
    finally:
        ExprCompiler.compile, StructuredCompiler.stmt = plain_compile, plain_pure_stmt
        for name, method in methods.items():
            setattr(StmtCompiler, name, method)


@lru_cache(maxsize=None)
def reached_in(path) -> dict:
    """Node key -> constructs, for every node the games of (b) run in the closure form."""
    rules = load_rules(path)
    reached: dict = {}
    with recording(reached):
        program = compile_rules(rules, {}, lower=False)
    reached.clear()  # consts and dice faces run while compiling: only play counts
    recorded = Game(rules, program, {})
    closures, _ = forms(path)
    for seed in SEEDS:
        assert random_game_log(recorded, seed) == random_game_log(closures, seed), "the recorders changed a game"
        assert final_state(recorded, seed) == final_state(closures, seed), "the recorders changed a game"
    return reached


def bodies(path):
    """The statements of every phase, proc, handler and setup, and the body of every fn."""
    for node in parsed(path):
        if isinstance(node, (A.Phase, A.Proc, A.Handler, A.Setup)):
            yield from (n for n in A.walk(node.body) if isinstance(n, A.Stmt))
        elif isinstance(node, A.Fn):
            yield node.body


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_random_games_run_every_statement_and_fn(path):
    nodes = list(parsed(path))
    assert len({key(n) for n in nodes}) == len(nodes), "a key names one node"
    reached = reached_in(path)
    missed = [f"{n.span.line}:{n.span.col} {type(n).__name__}" for n in bodies(path) if key(n) not in reached]
    assert missed == []


def test_random_games_run_every_construct():
    reached = set()
    for path in CORPUS:
        for what in reached_in(path).values():
            reached |= what
    assert sorted(required() - reached, key=str) == []


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_the_lowered_games_run_generated_code(path):
    """Every phase, handler, `setup` and procedure run as ops (a procedure that can suspend)
    starts with a generated function, which the games enter; so is every function generated for
    a `fn` or a pure procedure that is called rather than written in place. (The other
    generated functions are places the VM may enter, which the code before them mostly runs
    through: not all of them are entered, and need not be.)"""
    _, lowered = both_forms(path)  # compiled afresh: a fn's remembered answers live as long as its program
    prog, filename = lowered.program, f"<vbr: {path.name}>"
    codes = [*prog.phases.values(), *(h for hs in prog.handlers.values() for h in hs), *filter(None, [prog.setup]),
             *(code for name, code in prog.procs.items() if name not in prog.pure_procs)]
    starts = [(code.name, code.ops[0].__code__) for code in codes]  # two handlers of one event share a name
    assert [name for name, c in starts if c.co_filename != filename] == []
    functions = {d.name for module in prog.lowering.modules for d in module.body if d.name[0] in "FP"}
    entered = set()

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename == filename:
            entered.add(frame.f_code)
    sys.setprofile(profile)
    try:
        for seed in SEEDS:
            random_game_log(lowered, seed)
            final_state(lowered, seed)
    finally:
        sys.setprofile(None)
    assert [name for name, c in starts if c not in entered] == []
    assert sorted(functions - {c.co_name for c in entered}) == []


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_generated_code_holds_only_its_own_names(path):
    assert_only_data(forms(path)[1].program)
