"""``mus-table demo``: a partida on the synthetic table, from the rendered frame to the tanteo."""

from __future__ import annotations

import argparse
from pathlib import Path

from table.rules import Rules

HELP = "play a partida on the synthetic table: render, read and score hand after hand"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hands", type=int, default=3, help="hands to play (stops when the partida is won)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the cards, bets and scenes")
    parser.add_argument("--reyes", type=int, choices=(8, 4), default=8)
    parser.add_argument("--target", type=int, choices=(40, 30), default=40)
    parser.add_argument("--frames", type=Path, default=None,
                        help="save each rendered frame here (JPEG) to look at or to 'mus-table read'")


def run(args: argparse.Namespace) -> int:
    from firmware.demo import narrate, play

    read_ok = played = 0
    for hand in play(args.hands, args.seed, Rules(reyes=args.reyes, target=args.target), args.frames):
        played += 1
        read_ok += hand.read_ok
        print("\n".join(narrate(hand)), end="\n\n", flush=True)
    print(f"{played} manos; la cámara leyó sola todas las cartas en {read_ok} de {played}.")
    return 0
