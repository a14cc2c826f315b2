"""The lowering's fast paths (lowering.py and the templates of expressions.py), each on by
default, and the bounds of the code the chained functions copy (`lower_ops`). A test turns a path
off, or a bound down, to compare the generated code and the games: every setting plays exactly
the games the closures play."""

INLINE_IN = True  # `x in zone` and `x in list` written out (expressions.py, `_in_zone_template`)
FIELD_BY_KIND = True  # `x.f` of a thing of several kinds: its place read from a tuple by kind (expressions.py)
CHOICE_LEAN = True  # a choice's options counted once (`_n`), no check a static bound makes moot
WHERE_BY_NAME = True  # a choice's `where` reads each item as a Python name, not from its local slot (`_choose_options`)
COMP_BY_NAME = True  # a comprehension's body and filter read its item as the Python name, `(_t := x)` aliases dropped
HOIST_INVARIANTS = True  # what a choice's `where` computes alike for every item, computed once per loop (`_hoisted`)
STRUCTURED = True  # the ways of a branch or choice meet again in one function, a loop is a Python `while` (`_Flow`)
MEMO_BARE_KEY = True  # a remembered fn keys its answers by its arguments themselves (a dict per argument), not by a tuple
FIELDS_ONCE = True  # a thing's field read once per expression, its kind checked once (field_reads.py)
COMP_LOOPS = True  # a comprehension is a generated function with a `for` loop, not a generator expression
FIRST_LOOPS = True  # `first(x for x in C if x.f OP v)` a generated loop (`first_in_loop`), not expressions.py's `first_in`
JOIN_COPIES = 8  # a place several ops lead to is written in at most this many functions of its code
COPIES = 4  # any other op in at most this many (generated code stays within a few times the ops)
