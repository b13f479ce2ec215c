"""``mus-table bench glare --n 20``: cards right and wrong as a lamp's reflection on the cards grows.

Each scene (a deck the model never saw) gets a glare spot centred on one
seat's cards, at strengths 0 to 0.9 (the fraction of the picture washed out
at the spot's centre); the same scenes at each strength. The figures are for
the hardware guide's «Light» section.
"""

from __future__ import annotations

import argparse
import json

HELP = "cards right/wrong as a glare on the cards grows (rendered scenes)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--px-per-mm", type=float, default=None, help="render at this resolution (2.71: the still)")


def run(args: argparse.Namespace) -> int:
    from models.glare import measure

    figures = measure(n=args.n or 20, seed=args.seed, px_per_mm=args.px_per_mm)
    if args.json:
        print(json.dumps([f.to_json() for f in figures]))
        return 0
    print("glare  cards  right %  wrong %")
    for f in figures:
        print(f"{f.glare:5.2f}  {f.cards:5d}  {f.right_pct:7.1f}  {f.wrong_pct:7.1f}")
    return 0
