"""Every limit vbr puts on a rule file, in one place (docs/language.md, "Limits", lists them).

Rule files are untrusted: whatever one says, reading, parsing and checking it ends in bounded time
and memory, and going past a limit is a located error that names the limit and its value. The
values are far above what the bundled rule files need (the largest has about 10,000 tokens, 130
declarations, and nests 22 levels deep).
"""
from __future__ import annotations

# ---------------------------------------------------------------- reading
MAX_FILE_BYTES = 4 * 1024 * 1024   # a rule or scenario file, read at most this much
MAX_EXTENDS_DEPTH = 16             # files in one `extends` chain, the file itself included

# ---------------------------------------------------------------- parsing
MAX_TOKENS = 50_000                # words, numbers, strings, symbols and comments in one file (holes count)
MAX_NAME_CHARS = 256               # characters of one name (a word outside strings and comments, not a number)
MAX_NESTING = 100                  # levels of the parse tree: each operator, call, statement, block
MAX_INT = 2 ** 63 - 1              # an integer literal's magnitude

# ---------------------------------------------------------------- checking
MAX_DECLARATIONS = 5_000           # declarations, with everything `extends` brings in
MAX_DEPTH_THROUGH_CALLS = 150      # nesting counted into every fn, proc and const a body uses
MAX_EXPANDED_SIZE = 50_000         # expression nodes of a fn or const with every fn call written out
MAX_LOOP_NESTING = 12              # loops over lists (aggregates, comprehensions, `in`) nested in one another, into fns
MAX_WRITTEN_OUT = 50_000           # nodes of fns and list-giving procs written out at their calls, in the whole file
MAX_FIELDS = 256                   # fields of one kind
MAX_MEMBERS = 1_000                # members of one enum, values of one option's `in { ... }`
MAX_COURT_SIDE = 100               # a court's rows, and its cols
MAX_LITERAL_RANGE = 1_000_000      # numbers in a range whose ends are fixed (`1..N`), as at run time
MAX_USER_LIMITS = {                # the most a rule file may ask for with `limit NAME N`
    "steps": 100_000_000,
    "choices": 10_000_000,
    "depth": 10_000,
}

# ---------------------------------------------------------------- playing (both typed engines)
MAX_STATE_WORDS = 4 * 1024 * 1024  # a whole state's words (32 MiB), refused at load (vbr/ir/state_bound.py)
MAX_TEXT_CHARS = 4_096             # a say, a prompt, a chosen thing, a reveal's items: as a game writes them
TEXT_CUT_MARK = f" [... cut at {MAX_TEXT_CHARS} characters]"  # after a text cut there
