"""What the run-time checks of the generated code cost: a rule file's lowered program as it is,
against the same program with some of its checks taken out of the generated Python.

Why. docs/performance.md asks where the gap to hand-written Python is. The generated code checks
what the language promises (a thing's kind before a field is read, a seat's range before a zone
is indexed, 64-bit overflow) and keeps books (`_k`, the statement a fault is reported at; steps
counted against `limit steps`). Taking them out shows what they cost, which is an upper bound on
what a checker that proves them away could buy. The stripped program is an experiment, never a
way to run rules: it plays the same games only when nothing faults (checked on 40 seeds first).

    python benchmarks/stripped.py                      # every part stripped, Siatka, 2000 games
    python benchmarks/stripped.py --strip steps,marks  # some parts
    python benchmarks/stripped.py --rules tanto-cuore-beach-volleyball -n 1000

Parts: marks (`_k = N`), overflow (`-MAX <= v <= MAX`), kind (`KD[x] == k` before a field),
seat (`0 <= s < n` before a per-seat zone), steps (`st.steps += ...`). Games alternate in blocks
of 20 on the same seeds, in thread CPU time; printed: as-is time / stripped time.
"""
from __future__ import annotations

import argparse
import ast
import statistics
import time

from vbr.interpreter.compiler import compile_rules
from vbr.interpreter.game import Game
from vbr.loader import load_rules
from vbr.play import play_game

PARTS = ("marks", "overflow", "kind", "seat", "steps")
INT_MAX = 9223372036854775807


class Stripper(ast.NodeTransformer):
    """Takes the chosen parts out of generated code (which this module re-parses from its text)."""

    def __init__(self, parts: set[str]):
        self.parts = parts

    def visit_Assign(self, node):
        self.generic_visit(node)
        target = node.targets[0]
        if "marks" in self.parts and isinstance(target, ast.Name) and target.id == "_k" \
                and not (isinstance(node.value, ast.Constant) and node.value.value == 0):
            return ast.Pass()  # `_k = 0` stays: the fault handler reads it
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if "steps" in self.parts and ast.unparse(node.target) == "st.steps":
            if isinstance(node.value, ast.NamedExpr):  # `st.steps += (_n := len(xs))`: keep `_n`
                return ast.Assign([ast.Name(node.value.target.id, ast.Store())], node.value.value)
            return ast.Pass()
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        test = node.test
        if "overflow" in self.parts and isinstance(test, ast.Compare) and len(test.ops) == 2 \
                and isinstance(test.left, ast.Constant) and test.left.value == -INT_MAX:
            return test.comparators[0]  # `_t if -MAX <= (_t := a + b) <= MAX else ...` -> `(_t := a + b)`
        if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) and len(test.values) == 2):
            return node
        first, second = test.values
        if not ast.unparse(first).endswith("is not None"):
            return node
        if "kind" in self.parts and ast.unparse(second).startswith("KD["):
            node.test = first  # `E[x][i] if x is not None and KD[x] == k else ...`: none still checked
            return node
        if "seat" in self.parts and isinstance(second, ast.Compare) and len(second.ops) == 2 \
                and isinstance(second.left, ast.Constant) and second.left.value == 0 \
                and isinstance(first.left, ast.NamedExpr) and isinstance(node.body, ast.Subscript) \
                and isinstance(node.body.slice, ast.Name) and node.body.slice.id == first.left.target.id:
            return ast.Subscript(node.body.value, first.left, ast.Load())  # `T[_t] if (_t := s) ... else` -> `T[(_t := s)]`
        return node


def stripped_game(name: str, parts: set[str]) -> Game:
    """The rule file's game with its generated functions rebuilt from stripped code."""
    rules = load_rules(name)
    prog = compile_rules(rules, {}, keep_code=True)
    namespace = dict(prog.lowering.namespace)
    for module in prog.lowering.modules:
        tree = ast.fix_missing_locations(Stripper(parts).visit(ast.parse(ast.unparse(module))))
        exec(compile(tree, f"<stripped {name}>", "exec"), namespace)  # our own generated code, re-read
    for code in [*prog.phases.values(), *prog.procs.values(), prog.setup]:
        for i, op in enumerate(code.ops):
            fn = getattr(op, "__code__", None)
            if fn is not None and fn.co_filename.startswith("<vbr") and op.__name__ in namespace:
                code.ops[i] = namespace[op.__name__]
    return Game(rules, prog, {})


def outcome(r) -> tuple:
    return r.winner, r.points, r.choices, r.options, r.forced


def compare(name: str, parts: set[str], n: int) -> tuple[float, float]:
    as_is, stripped = Game(load_rules(name), compile_rules(load_rules(name), {}), {}), stripped_game(name, parts)
    agents = ["random"] * as_is.seats
    for seed in range(40):
        assert outcome(play_game(as_is, seed, agents)) == outcome(play_game(stripped, seed, agents)), seed
    totals, ratios = [0.0, 0.0], []
    for start in range(0, n, 20):
        block = []
        for i, game in enumerate((as_is, stripped)):
            t0 = time.thread_time()
            for seed in range(start, start + 20):
                play_game(game, seed, agents)
            block.append(time.thread_time() - t0)
            totals[i] += block[-1]
        ratios.append(block[0] / block[1])
    return totals[0] / totals[1], statistics.median(ratios)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", default="siatka")
    ap.add_argument("--strip", default=",".join(PARTS), help=f"comma-separated, of {', '.join(PARTS)}")
    ap.add_argument("-n", type=int, default=2000, help="games of each (default 2000)")
    args = ap.parse_args(argv)
    parts = set(p for p in args.strip.split(",") if p)
    unknown = parts - set(PARTS)
    if unknown:
        ap.error(f"unknown part(s): {', '.join(sorted(unknown))}")
    total, median = compare(args.rules, parts, args.n)
    print(f"{args.rules}, stripped {', '.join(sorted(parts))}: as-is/stripped {total:.3f} (median block {median:.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
