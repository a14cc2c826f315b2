"""`vbr play`: a person plays a rule file in the terminal against agents (docs/play.md).

`screen.py` draws what one seat may see as text within 80×24; `session.py` is the loop (ask,
check, apply, agents move, write the log); `command.py` is the command's arguments and `run`."""
