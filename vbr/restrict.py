"""Restricted play (Jaffe et al., AIIDE 2012): one seat plays without some of its options, and
the win rate it loses measures what those options are worth.

A restriction is `SEAT=RULE` (`--restrict 0=never:superatak`): `never:WORD[,WORD...]` takes away
every option that WORD names — an option whose text is WORD (an enum member, a number, `true` or
`false`, `pass`), a thing of kind WORD, or a thing with an enum field whose member is WORD
(Siatka's `never:mocne_odbicie` is every Mocne odbicie card) — and `pass` takes away every option but `pass` where a choice may be
passed. A choice whose every option is taken away is played unrestricted, and counted. The engine
still generates the legal choices; the play loop only hands the seat's agent the ones it may take
(vbr.play.typed_decision's `allowed`), so any agent plays restricted.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass

from vbr.errors import UsageError
from vbr.grammar import ast as A


@dataclass(frozen=True)
class Restriction:
    """What one seat may not choose."""
    never: frozenset = frozenset()  # words naming options it never takes
    only_pass: bool = False  # where passing is allowed, it passes

    def keep(self, options: list[frozenset]) -> list[int]:
        """The indices of the options this restriction leaves, given each option's words
        (`typed_option_words`)."""
        passing = self.only_pass and any("pass" in words for words in options)
        return [i for i, words in enumerate(options) if not (words & self.never) and (not passing or "pass" in words)]

    def text(self) -> str:
        parts = (["pass"] if self.only_pass else []) + ([f"never:{','.join(sorted(self.never))}"] if self.never else [])
        return " and ".join(parts)


def nameable_words(model) -> dict[str, str]:
    """Every word a restriction of this file can name, with what it is: its enum members, its
    kinds, and `pass` when some choice may be passed."""
    words = {}
    for enum, members in model.enums.items():
        for member in members:
            words[member] = f"a member of {enum}"
    for kind in model.kinds:
        words[kind] = "a kind"
    if any(_optional_choices(model)):
        words["pass"] = "passing an optional choice"
    return words


def _optional_choices(model):
    for decl in [*model.phases.values(), *model.procs.values(), *(h for hs in model.handlers.values() for h in hs),
                 *([model.setup] if model.setup else [])]:
        for node in A.walk(decl):
            if isinstance(node, A.Choose) and node.optional:
                yield node


NUMBERED = frozenset({"int", "seat", "team"})  # the types of options whose text is a whole number


def value_words(items) -> dict[str, str]:
    """The words that name options by their value, given the types of the options the file's
    choices offer (`ChoiceSite.item` of each): `true` and `false` where one offers a bool. A
    whole number, which any choice offering numbers may offer, is `takes_numbers`'s."""
    return {"true": "a true-or-false option", "false": "a true-or-false option"} if "bool" in items else {}


def takes_numbers(items) -> bool:
    """Whether some choice offers numbers (a whole number, a seat, a team), so that a whole
    number names options: `never:1` in a file of `choose x from 1..3`."""
    return bool(NUMBERED & set(items))


def _whole(word: str) -> bool:
    digits = word[1:] if word[:1] == "-" else word
    return digits.isascii() and digits.isdigit()


def parse_restrictions(specs: list[str] | None, seats: int, model, items=()) -> dict[int, Restriction]:
    """`--restrict` values as restrictions by seat; a UsageError for a malformed one, a seat that
    is not one, or a word the file cannot offer (listing the words it can). `items`: the types of
    the options the file's choices offer (`ChoiceSite.item`), whose values a word may name too
    (`value_words`, `takes_numbers`)."""
    out: dict[int, Restriction] = {}
    words = nameable_words(model) | value_words(items)
    numbers = takes_numbers(items)
    for spec in specs or []:
        seat_text, sep, rule = spec.partition("=")
        if not sep or not (seat_text.strip().isascii() and seat_text.strip().isdigit()):
            raise UsageError(f"--restrict {spec}: expected SEAT=RULE, e.g. 0=never:superatak or 1=pass")
        seat = int(seat_text)
        if not 0 <= seat < seats:
            raise UsageError(f"--restrict {spec}: the seats are 0..{seats - 1}")
        old = out.get(seat, Restriction())
        rule = rule.strip()
        if rule == "pass":
            if "pass" not in words:
                raise UsageError(f"--restrict {spec}: no choice of this file may be passed")
            out[seat] = Restriction(old.never, True)
            continue
        kind, sep, listed = rule.partition(":")
        named = [w.strip() for w in listed.split(",") if w.strip()]
        if kind != "never" or not sep or not named:
            raise UsageError(f"--restrict {spec}: a rule is never:WORD[,WORD...] or pass")
        unknown = [w for w in named if w not in words and not (numbers and _whole(w))]
        if unknown:
            close = difflib.get_close_matches(unknown[0], sorted(words), n=1)
            can = sorted(words) + (["a whole number"] if numbers else [])
            meant = f"; did you mean `{close[0]}`?" if close else f"; it can name: {', '.join(can) or 'nothing'}"
            raise UsageError(f"--restrict {spec}: `{unknown[0]}` names no option of this file{meant}")
        named = [str(int(w)) if numbers and _whole(w) else w for w in named]  # `01` names what `1` does
        out[seat] = Restriction(old.never | frozenset(named), old.only_pass)
    return out


def same_rules(specs) -> tuple[str, ...]:
    """`--restrict` values as one text for each set of values that restricts alike, read as
    `parse_restrictions` reads them without the file: every seat's words in one sorted
    `SEAT=never:W1,W2` and its `SEAT=pass`, by seat (`0=never:b,a` and `0=never:a` with `0=never:b`
    are `("0=never:a,b",)`). A value it cannot read is kept as it is, after the others."""
    never: dict[int, set] = {}
    passing: set[int] = set()
    unread = []
    for spec in specs:
        seat_text, _, rule = str(spec).partition("=")
        kind, sep, listed = rule.strip().partition(":")
        named = {w.strip() for w in listed.split(",") if w.strip()}
        if not (seat_text.strip().isascii() and seat_text.strip().isdigit()):
            unread.append(str(spec))
        elif rule.strip() == "pass":
            passing.add(int(seat_text))
        elif kind == "never" and sep and named:
            never.setdefault(int(seat_text), set()).update(named)
        else:
            unread.append(str(spec))
    rules = [(seat, f"{seat}=never:{','.join(sorted(words))}") for seat, words in never.items()]
    rules += [(seat, f"{seat}=pass") for seat in passing]
    return tuple(text for _, text in sorted(rules)) + tuple(sorted(unread))


def typed_option_words(state) -> list[frozenset]:
    """The words that name each option of a typed-engine state's pending choice."""
    from vbr.ir.layout import Header as H
    from vbr.ir.values import NONE
    program, words = state.game.program, state.words
    lay, names = program.layout, program.names
    site = program.choices[int(words[H.SITE])]
    out = []
    for v in state.options():
        named = {names.text(site.item, v, words)}
        if site.item.startswith("ent") and v != NONE:
            kind = int(words[lay.kinds + v])
            kind_name, fields, types = program.kinds[kind]
            named.add(kind_name)
            for field, ty in zip(fields, types):
                if ty.startswith("enum:"):
                    at = lay.fields + v * lay.width + program.field_at[(kind, field)]
                    named.add(names.text(ty, int(words[at])))
        out.append(frozenset(named))
    return out
