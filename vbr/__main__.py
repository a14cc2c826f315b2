"""`python -m vbr ...` is `vbr ...`."""
import sys

from vbr.cli import main

if __name__ == "__main__":
    sys.exit(main())
