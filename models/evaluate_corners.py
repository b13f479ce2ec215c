"""Measure the corner model, the main model and the two combined, on decks never seen in training.

``python -m models.evaluate_corners`` renders seeded scenes of each deck
(the held-out drawn styles; every ``--deck-dir`` scanned deck, as printed and
redrawn), cuts every card as the finder would (true quad moved up to 3 px per
corner at 1.5 px/mm), and calls it three ways: the main model alone
(``cards.onnx``, the reader's two-views rule), the corner model alone
(``corners.onnx``, both end bands at :data:`vision.classifier.CORNER_THRESHOLD`)
and the two combined (:func:`vision.classifier.combine`, what the reader does).
``--px`` sets the frame's resolution: ``live`` is the camera's 1.2-1.8 px/mm,
``still`` a full-resolution still's 2.4-3.0.

A figure is honest only for a deck that no model measured was trained on:
the committed main model has the 1878 Fournier deck in training, the corner
model does not.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from models.dataset import jitter_quad
from models.deck import HELD_OUT_STYLES, load_deck, redrawn_deck
from models.scene import random_cards, random_scene, render_scene
from vision.cardcrop import half_turn, warp_card
from vision.classifier import (
    CORNER_THRESHOLD,
    DEFAULT_THRESHOLD,
    CardClassifier,
    CornerModel,
    Prediction,
    call_cards,
    combine,
)

PX = {"live": (1.2, 1.8), "still": (2.4, 3.0)}


@dataclass
class Row:
    deck: str
    px: str
    reader: str
    cards: int
    right: float
    wrong: float
    unknown: float
    scenes_all_right: float
    top1: float
    rank_top1: float | None = None
    """The ends reader's rank alone (``models.evaluate_ends``); None for the other readers."""
    suit_top1: float | None = None


def _row(deck: str, px: str, reader: str, preds: list[list[Prediction]], truth: list[list[int]],
         threshold: float) -> Row:
    flat = [(p, t) for ps, ts in zip(preds, truth, strict=True) for p, t in zip(ps, ts, strict=True)]
    n = len(flat)
    right = sum(p.sure(threshold) and p.card.index == t for p, t in flat)
    wrong = sum(p.sure(threshold) and p.card.index != t for p, t in flat)
    top1 = sum(p.card.index == t for p, t in flat)
    allr = sum(all(p.sure(threshold) and p.card.index == t for p, t in zip(ps, ts, strict=True))
               for ps, ts in zip(preds, truth, strict=True))
    return Row(deck, px, reader, n, right / n, wrong / n, (n - right - wrong) / n, allr / len(preds), top1 / n)


def print_row(r: Row) -> None:
    """One row as a line of text (the ends reader's rows with its rank and suit alone)."""
    extra = (f", rank {100 * r.rank_top1:.2f} %, suit {100 * r.suit_top1:.2f} %"
             if r.rank_top1 is not None and r.suit_top1 is not None else "")
    print(f"{r.deck:>22} {r.px:>5} {r.reader:>8}: {r.cards} cards, right {100 * r.right:6.2f} %, "
          f"wrong {100 * r.wrong:5.2f} %, unknown {100 * r.unknown:6.2f} %, "
          f"all 16 right {100 * r.scenes_all_right:5.1f} %, top-1 {100 * r.top1:6.2f} %{extra}", flush=True)


def measure(main: CardClassifier, corners: CornerModel, deck: Any, name: str, scenes: int, seed: int,
            px: str = "live") -> list[Row]:
    """Rows for the main model, the corner model and the two combined, on the same crops."""
    rng = np.random.default_rng(seed + (7 if px == "still" else 0))
    pm, pc, pb, truth = [], [], [], []
    lo, hi = PX[px]
    for _ in range(scenes):
        k = float(rng.uniform(lo, hi))
        spec = random_scene(rng, cards=random_cards(rng), deck=deck, extras=(), px_per_mm=k)
        scene = render_scene(spec, rng)
        crops = []
        for t in scene.cards:
            crop = warp_card(scene.image, jitter_quad(t.quad_image, rng, 3.0 * k / 1.5))
            crops.append(half_turn(crop) if rng.random() < 0.5 else crop)
        m = call_cards(main.probabilities(crops))
        c = call_cards(corners.probabilities(crops))
        pm.append(m)
        pc.append(c)
        pb.append(combine(m, c))
        truth.append([t.card.index for t in scene.cards])
    return [_row(name, px, "main", pm, truth, DEFAULT_THRESHOLD),
            _row(name, px, "corners", pc, truth, CORNER_THRESHOLD),
            _row(name, px, "combined", pb, truth, DEFAULT_THRESHOLD)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models.evaluate_corners", description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=None, help="main card model (default: the installed one)")
    parser.add_argument("--corners", type=Path, default=None, help="corner model (default: the installed one)")
    parser.add_argument("--scenes", type=int, default=50, help="scenes of 16 cards per deck and resolution")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--px", choices=[*PX, "both"], default="both")
    parser.add_argument("--deck-dir", type=Path, action="append", default=[],
                        help="a scanned deck to measure on (as printed and redrawn)")
    parser.add_argument("--no-drawn", action="store_true", help="leave out the held-out drawn styles")
    parser.add_argument("--json", action="store_true")
    a = parser.parse_args(argv)
    main_model = CardClassifier(a.model, corners=False)
    corners = CornerModel(a.corners)
    scanned: list[tuple[str, Any]] = []
    for d in a.deck_dir:
        faces = load_deck(d)
        if faces is None:
            print(f"{d}: no complete deck there, skipped", file=sys.stderr)
            continue
        scanned.append((d.name, faces))
    decks = scanned + ([] if a.no_drawn else list(HELD_OUT_STYLES.items()))
    decks += [(f"{name} redrawn", redrawn_deck(faces, a.seed)) for name, faces in scanned]
    rows: list[Row] = []
    for px in (list(PX) if a.px == "both" else [a.px]):
        for i, (name, deck) in enumerate(decks):
            for r in measure(main_model, corners, deck, name, a.scenes, a.seed + 31 * i, px):
                rows.append(r)
                if not a.json:
                    print_row(r)
    if a.json:
        print(json.dumps([asdict(r) for r in rows]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
