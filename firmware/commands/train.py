"""``mus-table train``: train the card model on rendered scenes and export ``models/cards.onnx``.

The same as ``python -m models.train``; it needs the ``train`` extra (torch).
"""

from __future__ import annotations

import argparse
import importlib.util

from table.errors import MusTableError

HELP = "train the card model on rendered scenes and export models/cards.onnx"


class TrainingUnavailable(MusTableError):
    """Training was asked for on a machine without torch."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from models.train import add_arguments as add

    add(parser)


def run(args: argparse.Namespace) -> int:
    from models.train import check_decks

    check_decks(tuple(args.decks))  # a one-line error before torch is even looked for
    if importlib.util.find_spec("torch") is None:
        raise TrainingUnavailable("training needs torch: pip install 'mus-table[train]'")
    from models.train import train

    train(args.scenes, args.epochs, args.seed, args.threads, args.workers, args.out, fournier=args.fournier,
          decks=tuple(args.decks), strong=args.strong, cache=args.cache)
    return 0
