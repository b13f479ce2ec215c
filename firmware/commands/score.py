"""``mus-table score FILE|-``: score ``mus-hand/1`` records, print the answers as JSON.

One record: the answer, pretty-printed; invalid input: one line on stderr, exit 2.
``--jsonl``: one record per line, one compact answer per line; a bad line answers
``{"error": "line N: ..."}`` and the others go on; the exit status is 2 if any
line was bad, else 0. Lines holding only whitespace are skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from table.errors import InvalidInput

HELP = "score mus-hand/1 records and print the answer as JSON"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a mus-hand/1 record, or - for standard input")
    parser.add_argument("--jsonl", action="store_true",
                        help="read one record per line and print one answer per line "
                             '(a bad line answers {"error": ...}; exit status 2 if any was bad)')


def read_input(path: str) -> bytes:
    """The bytes of FILE, or of standard input for ``-``; a one-line error otherwise."""
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror or exc}") from None


def dump(obj: Any, pretty: bool = False) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=2 if pretty else None,
                      separators=None if pretty else (",", ":"))


def quiet_broken_pipe() -> int:
    """The reader went away (``| head``): stop quietly, no traceback."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 0


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except BrokenPipeError:
        return quiet_broken_pipe()


def _run(args: argparse.Namespace) -> int:
    from table.record import parse
    from table.tanteo import score

    data = read_input(args.file)
    if not args.jsonl:
        print(dump(score(parse(data)).to_json(), pretty=True))
        return 0
    bad = False
    out = sys.stdout
    for number, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        try:
            answer: dict[str, Any] = score(parse(line)).to_json()
        except InvalidInput as exc:
            bad = True
            answer = {"error": f"line {number}: {exc}"}
        out.write(dump(answer) + "\n")
    return 2 if bad else 0
