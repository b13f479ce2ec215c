"""The ``mus-table`` command: one subcommand per module in :mod:`firmware.commands`.

Every expected failure prints one line on stderr and exits with status 2;
a traceback is a bug.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

from table.errors import MusTableError

# name -> (module under firmware.commands, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("demo", "the whole table on a laptop: the synthetic table plays hands through the real loop"),
    "score": ("score", "score mus-hand/1 records and print the answer as JSON"),
    "explain": ("explain", "say a hand's tanteo step by step, as a juez de mesa would"),
    "replay": ("replay", "replay a whole partida (JSON lines of mus-hand/1 records), checking each hand follows"),
    "bench": ("bench", "measure speed: 'bench score' (hands/s) or 'bench read' (ms per frame)"),
    "read": ("read", "read the cards and stones of overhead images (one JSON line each)"),
    "mat": ("mat", "draw the printable mat (PDF, SVG or PNG), whole or tiled on sheets"),
    "camera-check": ("camera_check", "heights at which each camera sees the mat well enough"),
    "calibrate": ("calibrate", "draw the detected mat and zones over a camera frame, to aim it"),
    "deck": ("deck", "learn a deck from three frames of it laid out on the mat; list or remove learnt decks"),
    "train": ("train", "train the card model on rendered scenes and export models/cards.onnx"),
    "run": ("run", "run the table: camera, reader, score, journal, panel, display and MQTT, as table.toml says"),
    "check": ("check", "self-check: the configuration, the journal and a first frame (after an install)"),
    "journal": ("journal", "list the partidas of a table's journal, or export one as mus-hand/1 JSON lines"),
    "hub": ("hub", "the tournament hub: follow every table on a broker, the juez's console, draw and standings"),
}


def _load(name: str):  # type: ignore[no-untyped-def]
    module, _ = COMMANDS[name]
    return importlib.import_module(f"firmware.commands.{module}")


class _Parser(argparse.ArgumentParser):
    """argparse, with its refusals in one line like every other (``mus-table replay:
    argument --hand: must be 1 or more, not 0``), exit status 2; ``--help`` as usual."""

    def error(self, message: str) -> NoReturn:
        from web.strings import say_argparse  # noqa: PLC0415 - only on a failure

        self.exit(2, f"{self.prog}: {say_argparse(message)}\n")


def build_parser(argv: Sequence[str]) -> argparse.ArgumentParser:
    parser = _Parser(
        prog="mus-table",
        description="mus-table: reads a mus table from above and keeps the tanteo by the rules.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = next((a for a in argv if not a.startswith("-")), None)
    for name, (_, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name == wanted:  # only the command that runs imports its module
            _load(name).add_arguments(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(args_list)
    args = parser.parse_args(args_list)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return int(_load(args.command).run(args))
    except MusTableError as exc:
        from web.strings import say_error  # noqa: PLC0415 - only on a failure

        print(f"mus-table {args.command}: {say_error(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
