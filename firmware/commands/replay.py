"""``mus-table replay PARTIDA.jsonl``: a whole partida replayed hand by hand, to settle a dispute.

The input is the hands of one partida, one ``mus-hand/1`` record per line in the
order played (what ``mus-table journal export`` writes). Every hand must follow
from the one before as a table plays them (:func:`table.match.follow`): the
first line that does not is refused with one line naming it, exit status 2,
and nothing is printed. Otherwise: one line per hand and the result; ``--json``
one JSON answer per hand and a closing summary line; ``--explain`` every hand
narrated as ``mus-table explain`` does; ``--hand N`` that hand only (its narration,
with or without ``--explain``; with ``--json``, its JSON line).
"""

from __future__ import annotations

import argparse
import sys

from firmware.commands.score import dump, quiet_broken_pipe, read_input
from table.errors import InvalidInput
from table.match import JUEGOS, VACAS

HELP = "replay a whole partida (JSON lines of mus-hand/1 records), checking each hand follows"


def _count(text: str, most: int | None = 1000) -> int:
    """A whole number from 1 (to ``most``), for argparse."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"no es un número entero: {text[:40]!r}") from None
    if n < 1 or (most is not None and n > most):
        bound = "1 o más" if most is None else f"de 1 a {most}"
        raise argparse.ArgumentTypeError(f"debe ser {bound}, no {str(n)[:40]}")
    return n


def _hand(text: str) -> int:
    return _count(text, None)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="PARTIDA.jsonl",
                        help="las manos de la partida, un registro mus-hand/1 por línea, o - para la entrada "
                             "estándar")
    parser.add_argument("--juegos", type=_count, default=JUEGOS, metavar="N",
                        help=f"juegos que ganan una vaca (por omisión {JUEGOS}: «a tres juegos»; "
                             "el Campeonato del Mundo juega a 4)")
    parser.add_argument("--vacas", type=_count, default=VACAS, metavar="N",
                        help=f"vacas que ganan la partida (por omisión {VACAS})")
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--json", action="store_true",
                     help="una línea JSON por mano (la respuesta y la partida tras ella) y al final un resumen")
    how.add_argument("--explain", action="store_true", help="cuenta cada mano como lo hace mus-table explain")
    parser.add_argument("--hand", type=_hand, default=None, metavar="N",
                        help="solo la mano N: su tanteo en palabras (con --explain o sin él), o con --json "
                             "su línea JSON")


def run(args: argparse.Namespace) -> int:
    from table.match import replay
    from table.partida import hand_json, narrate, summary_json

    partida, played = replay(read_input(args.file).splitlines(), args.juegos, args.vacas)
    if args.hand is not None and args.hand > len(played):
        raise InvalidInput(f"--hand {args.hand}: the partida has {len(played)} hands", code="hand_beyond",
                           params={"hand": args.hand, "hands": len(played)})
    if args.json and args.hand is not None:
        lines = [dump(hand_json(played[args.hand - 1]))]
    elif args.json:
        lines = [dump(hand_json(step)) for step in played] + [dump(summary_json(partida, played))]
    else:
        lines = narrate(partida, played, full=args.explain, hand=args.hand)
    try:
        sys.stdout.write("\n".join(lines) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        return quiet_broken_pipe()
    return 0
