"""`python -m vbr.tty_play FILE ...`: `vbr play` before it is wired into vbr/cli.py."""
import sys

from vbr.tty_play.command import main

sys.exit(main())
