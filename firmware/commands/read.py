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
    parser.add_argument("images", nargs="+", metavar="IMAGEN", help="fotos de la mesa tomadas desde arriba")
    parser.add_argument("--json", action="store_true", help="un objeto JSON por línea (la lectura del contrato)")
    parser.add_argument("--sequence", action="store_true",
                        help="fotos de una misma cámara: conserva de una a otra la última calibración buena")
    parser.add_argument("--threads", type=int, default=1, metavar="N",
                        help="hilos del modelo (por omisión 1)")
    parser.add_argument("--threshold", type=float, default=None, metavar="P",
                        help="probabilidad mínima del modelo para dar una carta (por omisión: la del lector)")
    parser.add_argument("--model", default=None, metavar="MODELO",
                        help="modelo de cartas (por omisión: models/cards.onnx)")
    parser.add_argument("--deck", default=None, metavar="NOMBRE",
                        help="lee con una baraja aprendida con 'mus-table deck learn NOMBRE ...'")


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
