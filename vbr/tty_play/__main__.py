"""`python -m vbr.tty_play FILE ...`: the same as `vbr play FILE ...`."""
import sys

from vbr.cli import main

sys.exit(main(["play", *sys.argv[1:]]))
