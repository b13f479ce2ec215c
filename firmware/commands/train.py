"""``mus-table train``: train the card model on rendered scenes and export ``models/cards.onnx``.

The same as ``python -m models.train``; ``--corners`` trains the corner model
instead (``models/corners.onnx``, as ``python -m models.corners``), ``--ends``
the ends reader's two models (``models/index.onnx`` and ``models/pintas.onnx``,
as ``python -m models.index`` and ``python -m models.pintas``). All need the
``train`` extra (torch).
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
    parser.add_argument("--corners", action="store_true",
                        help="train the corner model (models/corners.onnx) instead of the card model")
    parser.add_argument("--corner-decks", type=int, default=120,
                        help="with --corners: random decks rendered (40 cards x 3 views each)")
    parser.add_argument("--corner-epochs", type=int, default=3, help="with --corners: epochs")
    parser.add_argument("--ends", action="store_true",
                        help="train the ends reader (models/index.onnx, models/pintas.onnx) instead")


def run(args: argparse.Namespace) -> int:
    from models.train import check_decks

    check_decks(tuple(args.decks))  # a one-line error before torch is even looked for
    if importlib.util.find_spec("torch") is None:
        raise TrainingUnavailable("training needs torch: pip install 'mus-table[train]'")
    if args.ends:
        from models import index, pintas

        common = ["--seed", str(args.seed), "--threads", str(args.threads)]
        index.main(common)
        pintas.main(common)
        return 0
    if args.corners:
        from models import corners

        out = None if args.out == corners.default_corner_model_path().with_name("cards.onnx") else args.out
        corners.train(args.corner_decks, args.corner_epochs, args.seed, args.threads, args.workers, out,
                      decks=tuple(args.decks), cache=args.cache)
        return 0
    from models.train import train

    train(args.scenes, args.epochs, args.seed, args.threads, args.workers, args.out, fournier=args.fournier,
          decks=tuple(args.decks), strong=args.strong, cache=args.cache, quantized=args.quantized)
    return 0
