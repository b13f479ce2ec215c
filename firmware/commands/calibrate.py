"""``mus-table calibrate IMAGE --out view.png``: the calibration view, to aim the camera.

Draws the markers found, the mat's outline, the zones and the seat labels
(and the cards and stones read, when the card model is there) over the frame,
writes it to ``--out``, and prints where the mat was placed. Exit status 2
when fewer than three markers are seen (the view is still written).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2

from table.errors import MusTableError

HELP = "draw the detected mat and zones over a camera frame, to aim it"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("image", metavar="IMAGEN", help="una foto de la cámara")
    parser.add_argument("--out", default="calibration.png", metavar="FICHERO",
                        help="dónde escribir la vista (PNG o JPEG; por omisión calibration.png)")
    parser.add_argument("--no-cards", action="store_true", help="dibuja solo el tapete y las zonas")


def run(args: argparse.Namespace) -> int:
    from vision.classifier import CardClassifier, ModelNotFound
    from vision.frames import load_frame
    from vision.mat import MIN_PX_PER_MM
    from vision.overlay import draw_view
    from vision.reading import TableReader
    from web.camera import view_labels

    frame = load_frame(args.image)
    classifier = None
    if not args.no_cards:
        try:
            classifier = CardClassifier()
        except ModelNotFound:
            print("aviso: no se pudo cargar el modelo de cartas; se dibujan solo el tapete y las zonas")
    reader = TableReader(classifier=classifier)
    if classifier is not None:
        reading = reader.read(frame)
        detail = reader.detail
        cal = detail.calibration
    else:
        state = reader.calibrator.update(frame)
        cal, reading, detail = state.calibration, None, None
    view = draw_view(frame, cal, reading, detail, labels=view_labels())
    out = Path(args.out)
    if not cv2.imwrite(str(out), view):
        raise MusTableError(f"cannot write {out}", code="cannot_write", params={"path": str(out)})
    if cal is None:
        print(f"escrita {out}: no se ve el tapete (menos de tres marcas)")
        return 2
    markers = " ".join(str(m) for m in cal.markers)
    print(f"escrita {out}: marcas {markers}, residuo {cal.residual_mm:.2f} mm, "
          f"{cal.px_per_mm():.2f} px/mm en el centro")
    if cal.px_per_mm() < MIN_PX_PER_MM:
        print(f"aviso: menos de {MIN_PX_PER_MM:g} px/mm, la resolución mínima: acercad la cámara")
    return 0
