"""``mus-table read IMAGE... [--json]``: read the cards and stones of overhead images.

With ``--json``, one line per image, in the order given, each one JSON object
as ``docs/mat.md`` says; an image that cannot be read gets
``{"error": "..."}`` on its line, the others are still read, and the exit
status is 2 (whatever the file holds: :func:`vision.frames.load_frame` checks
it before decoding). Each image is read on its own (a lone image with fewer than three
markers is stale, with no cards); ``--sequence`` reads them as successive
frames of one camera, so a frame with hidden markers uses the last good
calibration.
"""

from __future__ import annotations

import argparse
import json
import sys

from table.errors import MusTableError
from web.strings import say_error, say_reading

HELP = "read the cards and stones of overhead images (one JSON line each)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="overhead camera images")
    parser.add_argument("--json", action="store_true", help="one JSON object per line (the spec's reading)")
    parser.add_argument("--sequence", action="store_true",
                        help="frames of one camera: keep the last good calibration from frame to frame")
    parser.add_argument("--threads", type=int, default=1, help="model threads (default 1)")
    parser.add_argument("--threshold", type=float, default=None,
                        help="least model probability to call a card (default: the reader's)")
    parser.add_argument("--model", default=None, help="card model (default: models/cards.onnx)")
    parser.add_argument("--deck", default=None, metavar="NAME",
                        help="read with a deck learnt by 'mus-table deck learn NAME ...'")


def run(args: argparse.Namespace) -> int:
    from vision.classifier import DEFAULT_THRESHOLD, CardClassifier
    from vision.frames import load_frame
    from vision.reading import TableReader

    classifier = CardClassifier(args.model, threads=args.threads)
    if getattr(args, "deck", None):
        from vision.learnt import load_deck

        classifier = load_deck(args.deck).classifier(classifier)  # type: ignore[assignment]
    threshold = DEFAULT_THRESHOLD if args.threshold is None else args.threshold

    def new_reader() -> TableReader:
        return TableReader(classifier=classifier, threshold=threshold)

    reader = new_reader()
    failed = False
    for path in args.images:
        if not args.sequence:
            reader = new_reader()
        try:
            reading = reader.read(load_frame(path))
        except MusTableError as exc:
            failed = True
            if args.json:
                print(json.dumps({"error": str(exc)}), flush=True)
            else:
                said = say_error(exc)
                print(said if said.startswith(f"{path}:") else f"{path}: {said}", flush=True)
            continue
        if args.json:
            print(reading.to_line(), flush=True)
        else:
            print(f"{path}:")
            for line in say_reading(reading):
                print(f"  {line}")
            sys.stdout.flush()
    return 2 if failed else 0
