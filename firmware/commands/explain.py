"""``mus-table explain FILE|-``: a hand's tanteo step by step, as a juez de mesa says it."""

from __future__ import annotations

import argparse

from firmware.commands.score import quiet_broken_pipe, read_input

HELP = "say a hand's tanteo step by step, as a juez de mesa would"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FICHERO", help="un registro mus-hand/1, o - para la entrada estándar")


def run(args: argparse.Namespace) -> int:
    from table.explain import explain
    from table.record import parse

    lines = explain(parse(read_input(args.file)))
    try:
        print("\n".join(lines))
    except BrokenPipeError:
        return quiet_broken_pipe()
    return 0
