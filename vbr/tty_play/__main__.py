"""`python -m vbr.tty_play FILE ...`: the same as `vbr play FILE ...`."""
import sys

from vbr.tty_play.command import main

sys.exit(main())
