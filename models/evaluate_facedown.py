"""Measure the face-down check of deck learning: ``python -m models.evaluate_facedown``.

For each deck (the held-out drawn styles, ``--random`` random training
styles, the scanned Fournier 1878 deck as printed and redrawn where
``data/decks/fournier1878`` is present) and each resolution learning runs
at (2.9 px/mm: a full-resolution still; 1.45: the camera's 2304 x 1296
frames), the three learning frames are rendered face up and checked as the
display checks each photo (:func:`vision.learnt.frame_faults`): a
``learn_face_down`` fault there is a false alarm. Then, for each back of
``models.deck.BACK_DESIGNS``, one learning frame is rendered with one to
four of its cards (at random) lying face down showing that back: a card is
caught when its zone is refused, by a ``learn_face_down`` fault naming it
(``named``) or by any fault of its zone (``refused``: the finder may not
take a back printed to the edge for a card at all). One JSON line per deck
and resolution, then the totals.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Mapping

import numpy as np

from models.deck import (
    BACK_COLOURS,
    BACK_DESIGNS,
    HELD_OUT_STYLES,
    DeckStyle,
    deck_faces,
    load_fournier1878,
    random_style,
    redrawn_deck,
    render_back,
)
from models.scene import learning_scene, render_scene
from table.cards import Card
from vision.classifier import CardClassifier
from vision.learnt import frame_faults, learning_cards

RESOLUTIONS = (2.9, 1.45)


def decks(random: int, seed: int) -> dict[str, DeckStyle | Mapping[Card, np.ndarray]]:
    """The decks measured: held out, ``random`` training styles, Fournier 1878 where present."""
    out: dict[str, DeckStyle | Mapping[Card, np.ndarray]] = dict(HELD_OUT_STYLES)
    rng = np.random.default_rng(seed)
    for i in range(random):
        out[f"random {i}"] = random_style(rng)
    fournier = load_fournier1878()
    if fournier is not None:
        out["fournier1878"] = fournier
        out["fournier1878 redrawn"] = redrawn_deck(fournier, seed)
    return out


def measure(name: str, deck: DeckStyle | Mapping[Card, np.ndarray], px_per_mm: float, seed: int,
            model: CardClassifier) -> dict[str, object]:
    """False alarms over the three face-up frames, and the face-down cards caught, one frame per back."""
    faces = deck_faces(deck) if isinstance(deck, DeckStyle) else deck
    card_mm = deck.card_mm if isinstance(deck, DeckStyle) else (61.5, 95.0)
    rng = np.random.default_rng(seed)
    other: Counter[str] = Counter()
    alarms = up_cards = 0
    alarm_at: list[str] = []
    for k in range(3):
        frame = render_scene(learning_scene(rng, k, deck=faces, px_per_mm=px_per_mm), rng).image
        faults = frame_faults(k, frame, model=model)
        for f in faults:
            if f.code == "learn_face_down":
                alarms += len(f.params["places"])
                alarm_at.append(f"frame {k} seat {f.params['seat']} cards {f.params['places']}")
        other.update(f.code for f in faults if f.code != "learn_face_down")
        up_cards += sum(len(s) for s in learning_cards(k))
    down = named = refused = 0
    missed: list[str] = []
    by_design: dict[str, list[int]] = {}
    for design in BACK_DESIGNS:
        back = render_back(design, BACK_COLOURS[int(rng.integers(len(BACK_COLOURS)))], card_mm)
        k = int(rng.integers(3))
        laid = [(s, i) for s, seat in enumerate(learning_cards(k)) for i in range(len(seat))]
        chosen = [laid[j] for j in rng.choice(len(laid), int(rng.integers(1, 5)), replace=False)]
        backs = {learning_cards(k)[s][i] for s, i in chosen}
        frame = render_scene(learning_scene(rng, k, deck={c: back if c in backs else f for c, f in faces.items()},
                                            px_per_mm=px_per_mm), rng).image
        faults = frame_faults(k, frame, model=model)
        tally = by_design.setdefault(design, [0, 0])
        for s, i in chosen:
            down += 1
            tally[1] += 1
            zone = [f for f in faults if f.params.get("seat") == s]
            if any(f.code == "learn_face_down" and i + 1 in f.params["places"] for f in zone):
                named += 1
            if zone:
                refused += 1
                tally[0] += 1
            else:
                missed.append(f"{design} frame {k} seat {s} card {i + 1}")
    return {"deck": name, "px_per_mm": px_per_mm, "up_cards": up_cards, "false_alarms": alarms, "alarms": alarm_at,
            "other_faults_face_up": dict(other), "down_cards": down, "named": named, "refused": refused,
            "refused_by_back": {d: f"{a}/{b}" for d, (a, b) in by_design.items()}, "missed": missed}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--random", type=int, default=8, help="random training styles besides the held-out ones")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", default="", help="measure only the decks whose name holds this")
    args = ap.parse_args(argv)
    model = CardClassifier()
    total: Counter[str] = Counter()
    for n, (name, deck) in enumerate(decks(args.random, args.seed).items()):
        if args.only not in name:
            continue
        for r, px in enumerate(RESOLUTIONS):
            out = measure(name, deck, px, args.seed * 1000 + 10 * n + r, model)
            print(json.dumps(out), flush=True)
            for key in ("up_cards", "false_alarms", "down_cards", "named", "refused"):
                total[key] += int(out[key])  # type: ignore[call-overload]
    print(json.dumps({"total": dict(total)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
