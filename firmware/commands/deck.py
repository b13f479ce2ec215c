"""``mus-table deck learn NAME FRAME0 FRAME1 FRAME2 | list | remove NAME``: the players' own decks.

``learn`` reads the three learning frames of ``docs/mat.md`` ("Learning a
deck"), refuses one not laid out as it says (one line naming the frame and
the zone, nothing kept), and keeps the deck under
``$XDG_DATA_HOME/mus-table/decks/NAME``; ``mus-table read --deck NAME`` reads
with it.
"""

from __future__ import annotations

import argparse

from table.errors import MusTableError

HELP = "learn a deck from three frames of it laid out on the mat; list or remove learnt decks"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    learn = sub.add_parser("learn", help="learn a deck from its three learning frames (docs/mat.md)")
    learn.add_argument("name", metavar="NAME", help="what to call the deck (letters, digits, - _ .)")
    learn.add_argument("frames", nargs=3, metavar="FRAME", help="the frames 0, 1 and 2, in that order")
    learn.add_argument("--model", default=None, help="card model (default: models/cards.onnx)")
    sub.add_parser("list", help="the learnt decks")
    remove = sub.add_parser("remove", help="forget a learnt deck")
    remove.add_argument("name", metavar="NAME")


def run(args: argparse.Namespace) -> int:
    from vision.learnt import check_name, list_decks, remove_deck

    if args.action == "list":
        for name in list_decks():
            print(name)
        return 0
    if args.action == "remove":
        remove_deck(args.name)
        print(f"forgot deck {args.name}")
        return 0
    from vision.classifier import CardClassifier
    from vision.frames import load_frame
    from vision.learnt import learn_deck, save_deck

    name = check_name(args.name)
    frames = []
    for k, path in enumerate(args.frames):
        try:
            frames.append(load_frame(path))
        except MusTableError as exc:
            raise MusTableError(f"frame {k}: {exc}") from exc
    deck = learn_deck(frames, model=CardClassifier(args.model))
    folder = save_deck(name, deck)
    print(f"learnt deck {name}: 40 cards, kept in {folder}")
    return 0
