"""``mus-table bench accuracy --n 200 --seed 7``: how right the reader is on rendered scenes.

(Also ``python -m firmware.benchmarks.accuracy``, with the same options.)

Each scene is drawn by ``models.scene`` with the usual variety (any felt,
camera turned and tilted, warm or cold uneven light, shadows, glare, blur,
noise, JPEG, a marker hidden now and then, a hand over the pool, objects in a
card zone) and read by :class:`vision.reading.TableReader`. Reported:

- calibration: scenes placed (not stale);
- the card finder: recall and precision of card quads (within 5 mm of the truth);
- cards: right, wrong (read as another card) and unknown, per card, and the
  scenes with every card right (needs the card model);
- stones: zones with the exact count (the pool's truth leaves out the stones
  whose centre lies under a hand: they cannot be seen);
- the mean time per frame (all threads of this machine, not ``bench read``'s one core).

The deck is one the model never saw (``--deck held-out``, the default: each of
:data:`models.deck.HELD_OUT_STYLES` in turn, or only those named by ``--style``), the
training distribution (``--deck training``), or a scanned deck of your own
(``--deck-dir DIR``: the 40 faces as ``{rank}_{oro,copa,espada,basto}.webp``,
or .png/.jpg), which is how to measure the reader on another maker's cards. ``--px-per-mm 2.9``
renders full-resolution stills, where the ends reader stands behind the card
model (``--no-ends`` leaves it out; ``--model`` a card model trained without
a deck, to measure that deck as one never seen).
"""

from __future__ import annotations

import argparse
import json
import sys

from firmware.benchmarks import scanned_deck
from models.accuracy import evaluate
from models.deck import HELD_OUT_STYLES
from table.errors import MusTableError
from vision.classifier import CardClassifier, ModelNotFound, NeverSure
from vision.ends import ends_installed

HELP = "how right the reader is on rendered scenes: cards right/wrong/unknown, stone zones exact"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options besides ``--n``, ``--seed`` and ``--json`` (which ``mus-table bench`` gives every target)."""
    parser.add_argument("--deck", choices=("held-out", "training"), default="held-out")
    parser.add_argument("--style", action="append", default=[], choices=list(HELD_OUT_STYLES),
                        help="with --deck held-out: only this held-out style (again for more; default all)")
    parser.add_argument("--deck-dir", default=None,
                        help="a scanned deck to draw the scenes with: {rank}_{oro,copa,espada,basto}.webp")
    parser.add_argument("--model", default=None, help="card model (default models/cards.onnx)")
    parser.add_argument("--no-model", action="store_true", help="measure the finder and stones only")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--px-per-mm", type=float, default=None,
                        help="render the frames at this resolution (2.9: a full-resolution still; "
                             "default: 1.2-1.8, the live camera)")
    parser.add_argument("--no-ends", action="store_true",
                        help="without the ends reader (by default it stands behind any --model, as in the table)")


def run(args: argparse.Namespace) -> int:
    classifier: object
    with_model = not args.no_model
    if with_model:
        try:
            classifier = CardClassifier(args.model, threads=args.threads,
                                        ends=False if args.no_ends else (True if ends_installed() else None))
        except ModelNotFound as exc:
            print(f"{exc}: measuring the finder and stones only")
            classifier, with_model = NeverSure(), False
    else:
        classifier = NeverSure()
    faces = None if args.deck_dir is None else scanned_deck(args.deck_dir)
    tally = evaluate(args.n or 200, args.seed, args.deck, classifier, progress=not args.json, faces=faces,
                     px_per_mm=args.px_per_mm, styles=args.style)
    result = tally.summary(with_model)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            if isinstance(value, list):
                print(f"{key}:")
                for line in value:
                    print(f"  {line}")
            else:
                print(f"{key}: {value}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m firmware.benchmarks.accuracy",
                                     description=HELP)
    parser.add_argument("--n", type=int, default=200, help="scenes to render and read")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    add_arguments(parser)
    try:
        return run(parser.parse_args(argv))
    except MusTableError as exc:
        print(f"accuracy: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
