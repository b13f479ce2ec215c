"""Measure the ends reader (index and pinta models), the main model and the two combined, on unseen decks.

``python -m models.evaluate_ends`` renders seeded scenes of each deck (the
held-out drawn styles; every ``--deck-dir`` scanned deck, as printed and
redrawn), cuts every card as the finder would (true quad moved up to 3 px
per corner at 1.5 px/mm), and calls it three ways: the main model alone
(``cards.onnx``, the reader's two-views rule), the ends alone (rank from
the index, suit from the pintas, both ends at
:data:`vision.ends.ENDS_THRESHOLD`) and the two combined
(:func:`vision.classifier.fall_back`, what the reader does: the ends only
where the main model is not sure, and only from a frame of at least
:data:`vision.ends.MIN_PX_PER_MM` at the card; the "ends" rows show what
the ends make of every card, whatever the resolution). ``--px`` sets
the frame's resolution: ``live`` is the camera's 1.2-1.8 px/mm, ``still``
a full-resolution still's 2.4-3.0.

Neither ends model has any scanned deck in its training, so their figures
on a scanned deck are honest "never seen" ones; the committed main model
has the 1878 Fournier deck in training, so the combined figure on it is not.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from models.dataset import jitter_quad
from models.deck import HELD_OUT_STYLES, load_deck, redrawn_deck
from models.evaluate_corners import PX, Row, _row, print_row
from models.scene import random_cards, random_scene, render_scene
from vision.cardcrop import half_turn, warp_card
from vision.classifier import DEFAULT_THRESHOLD, CardClassifier, Prediction, call_cards
from vision.ends import ENDS_THRESHOLD, EndsModel, warp_face


def measure(main: CardClassifier, ends: EndsModel, deck: Any, name: str, scenes: int, seed: int,
            px: str = "live", threshold: float = ENDS_THRESHOLD) -> list[Row]:
    """Rows for the main model, the ends and the two combined, on the same crops.

    ``combined`` is the reader's own classifier (``main``'s model with the
    ends beside it), so it measures exactly what the reader does.
    """
    reader = CardClassifier(main.path, threads=1, corners=False, ends=ends, ends_threshold=threshold)
    rng = np.random.default_rng(seed + (7 if px == "still" else 0))
    pm, pe, pb, truth = [], [], [], []
    ranks = suits = total = 0
    lo, hi = PX[px]
    for _ in range(scenes):
        k = float(rng.uniform(lo, hi))
        spec = random_scene(rng, cards=random_cards(rng), deck=deck, extras=(), px_per_mm=k)
        scene = render_scene(spec, rng)
        crops, faces, frames = [], [], []
        for t in scene.cards:
            quad = jitter_quad(t.quad_image, rng, 3.0 * k / 1.5)
            crop = warp_card(scene.image, quad)
            face = warp_face(scene.image, quad)
            if rng.random() < 0.5:
                crop, face = half_turn(crop), np.ascontiguousarray(face[::-1, ::-1])
            crops.append(crop)
            faces.append(face)
            frames.append((scene.image, quad))
        m = call_cards(main.probabilities(crops))
        readings = ends.read(faces, frames=frames)
        e = [Prediction(r.card, r.probability, r.agreed and r.suit is not None) for r in readings]
        for r, t in zip(readings, scene.cards, strict=True):
            ranks += r.rank == t.card.rank
            suits += r.suit == t.card.suit
            total += 1
        pm.append(m)
        pe.append(e)
        pb.append(reader.classify(crops))
        truth.append([t.card.index for t in scene.cards])
    rows = [_row(name, px, "main", pm, truth, DEFAULT_THRESHOLD),
            _row(name, px, "ends", pe, truth, threshold),
            _row(name, px, "combined", pb, truth, DEFAULT_THRESHOLD)]
    rows[1].rank_top1, rows[1].suit_top1 = ranks / total, suits / total
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models.evaluate_ends", description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=None, help="main card model (default: the installed one)")
    parser.add_argument("--index", type=Path, default=None, help="index model (default: the installed one)")
    parser.add_argument("--pintas", type=Path, default=None, help="pinta model (default: the installed one)")
    parser.add_argument("--scenes", type=int, default=50, help="scenes of 16 cards per deck and resolution")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--px", choices=[*PX, "both"], default="both")
    parser.add_argument("--deck-dir", type=Path, action="append", default=[],
                        help="a scanned deck to measure on (as printed and redrawn)")
    parser.add_argument("--no-drawn", action="store_true", help="leave out the held-out drawn styles")
    parser.add_argument("--no-redrawn", action="store_true", help="leave out the scanned decks redrawn")
    parser.add_argument("--only", action="append", default=[],
                        help="measure only these decks (by name; each keeps the seed it has among all)")
    parser.add_argument("--threshold", type=float, default=ENDS_THRESHOLD,
                        help="least probability (rank and suit, both ends) for the ends to call a card")
    parser.add_argument("--json", action="store_true")
    a = parser.parse_args(argv)
    main_model = CardClassifier(a.model, corners=False, ends=False)
    ends = EndsModel(a.index, a.pintas)
    scanned: list[tuple[str, Any]] = []
    for d in a.deck_dir:
        faces = load_deck(d)
        if faces is None:
            print(f"{d}: no complete deck there, skipped", file=sys.stderr)
            continue
        scanned.append((d.name, faces))
    decks = scanned + ([] if a.no_drawn else list(HELD_OUT_STYLES.items()))
    if not a.no_redrawn:
        decks += [(f"{name} redrawn", redrawn_deck(faces, a.seed)) for name, faces in scanned]
    rows: list[Row] = []
    for px in (list(PX) if a.px == "both" else [a.px]):
        for i, (name, deck) in enumerate(decks):
            if a.only and name not in a.only:
                continue
            for r in measure(main_model, ends, deck, name, a.scenes, a.seed + 31 * i, px, a.threshold):
                rows.append(r)
                if not a.json:
                    print_row(r)
    if a.json:
        print(json.dumps([asdict(r) for r in rows]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
