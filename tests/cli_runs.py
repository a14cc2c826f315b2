"""Running vbr's command line inside a test, and reading the rows a run writes with `--out`."""
import json

from vbr.cli import main


def run(capsys, *argv):
    """(exit code, stdout, stderr) of `vbr ARGV` run in this process, each argument as text."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def rows_of(path) -> list[dict]:
    """The rows of a `--out FILE.jsonl`, one per line."""
    return [json.loads(line) for line in path.read_text().splitlines()]
