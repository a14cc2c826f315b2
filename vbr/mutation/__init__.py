"""`vbr mutate`: how much of a rule file its scenarios pin down.

mutants.py makes small semantic changes from the AST, runner.py checks each and runs the scenarios
against it, report.py writes the score and the survivors, command.py is the command line."""

# The kinds of mutant mutants.py makes (described there); here so that the command line lists them
# without loading the grammar.
KINDS = ("number", "compare", "logic", "delete", "swap", "direction", "filter", "argument")
