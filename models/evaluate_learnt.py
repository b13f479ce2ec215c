"""Measure learnt decks: ``python -m models.evaluate_learnt``.

For each deck never seen in training (the held-out drawn styles, the
scanned Fournier 1878 deck redrawn as another maker might print it, and any
``--deck-dir``), three learning frames are rendered as ``docs/mat.md`` lays
them out (one felt, light and camera each), the deck is learnt from them
(:func:`vision.learnt.learn_deck`, exactly as ``mus-table deck learn``), and
then ``--scenes`` scenes with the reader's full variety (other felts and
lights, tilt, blur, glare, a hand, objects) are read twice by the whole reader
(``mus-table bench accuracy``'s ``evaluate``): with the model alone (out of the box) and
with the learnt deck. Cards right / wrong / unknown are per true card.

Where the reader refuses a learning frame (a card it does not find), the
three frames are taken again with another felt and light, as a person at
the table would, up to :data:`LEARN_TRIES` times; each refusal is reported
(``learning_refused``).

``--px-per-mm`` fixes the reading frames' resolution (2.9: a Camera Module
3's full-resolution still, 4608 x 2592; by default the live camera's
1.2-1.8), ``--learn-px-per-mm`` the learning frames' (1.45: its 2304 x 1296
frames). ``learnt, no ends`` reads with the learnt faces alone, ``learnt``
also asks the ends reader about the cards they are not sure of (stills only).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from models.accuracy import evaluate
from models.deck import (
    HELD_OUT_STYLES,
    DeckStyle,
    load_deck,
    load_fournier1878,
    redrawn_deck,
)
from models.scene import learning_scene, render_scene
from table.cards import Card
from vision.classifier import CardClassifier
from vision.learnt import LayoutRefused, learn_deck

LEARN_TRIES = 5
"""Learning frames taken at most this many times over when the reader refuses them (each refusal is reported).
Five since learning refuses a card found on its shadow (4 Dec): `antigua`'s seed 61005 drew three sets in a row
with a card found so, each on a pale felt, and was learnt from the fourth."""


def held_out_decks(deck_dirs: list[Path], seed: int) -> dict[str, DeckStyle | Mapping[Card, np.ndarray]]:
    """The decks to learn and read: never in training (Fournier 1878 as printed is, for reference)."""
    decks: dict[str, DeckStyle | Mapping[Card, np.ndarray]] = dict(HELD_OUT_STYLES)
    fournier = load_fournier1878()
    if fournier is not None:
        decks["fournier1878 redrawn"] = redrawn_deck(fournier, seed)
        decks["fournier1878 (in training)"] = fournier
    decks.update(scanned_decks(deck_dirs))
    return decks


def scanned_decks(deck_dirs: list[Path]) -> dict[str, Mapping[Card, np.ndarray]]:
    """Each folder of ``{rank}_{oro,copa,espada,basto}.webp`` faces, by its name; an incomplete one stops the measure."""
    decks: dict[str, Mapping[Card, np.ndarray]] = {}
    for d in deck_dirs:
        faces = load_deck(d)
        if faces is None:
            raise SystemExit(f"{d}: no complete deck of 40 faces there")
        decks[d.name] = faces
    return decks


def measure(name: str, deck: DeckStyle | Mapping[Card, np.ndarray], scenes: int, seed: int,
            model: CardClassifier, px_per_mm: float | None = None, learn_px_per_mm: float | None = None,
            alone: CardClassifier | None = None, out_of_box: bool = True) -> dict[str, object]:
    """Learn ``deck`` from three rendered frames, then read ``scenes`` scenes with and without it."""
    rng = np.random.default_rng(seed)
    fixed = {} if learn_px_per_mm is None else {"px_per_mm": learn_px_per_mm}
    refused: list[str] = []
    learnt = None
    while learnt is None and len(refused) < LEARN_TRIES:
        # as at the table: a learning frame refused (a card not found) is taken again, on another felt and light
        frames = [render_scene(learning_scene(rng, k, deck=deck, **fixed), rng).image for k in range(3)]
        t0 = time.process_time()
        try:
            learnt = learn_deck(frames, model=model)
        except LayoutRefused as exc:
            refused.append(str(exc))
        learn_s = time.process_time() - t0
    faces = deck  # a style itself, not its faces: what a style does in a scene (a plastic deck's shine) is kept
    out: dict[str, object] = {"deck": name, "learn_cpu_s": round(learn_s, 1), "learning_refused": refused}
    ways: list[tuple[str, object]] = [("model alone", model)] if out_of_box else []
    if learnt is not None:
        ways.append(("learnt", learnt.classifier(model)))
    if alone is not None and learnt is not None:
        ways.append(("learnt, no ends", learnt.classifier(alone)))
    for what, clf in ways:
        tally = evaluate(scenes, seed + 1, classifier=clf, faces=faces, px_per_mm=px_per_mm)
        s = tally.summary(True)
        read = {k: s[k] for k in ("cards_right_pct", "cards_wrong_pct", "cards_unknown_pct",
                                  "scenes_all_right_pct", "finder_recall_pct", "wrong_cases",
                                  "unknown_cases", "cards_silent", "silent_cases")}
        read.update(cards=tally.truth_cards, right=tally.right, wrong=tally.wrong,  # the counts, for bounds
                    scenes=tally.scenes, scenes_all_right=tally.scenes_all_right)
        out[what] = read
        out["cards"] = tally.truth_cards
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models.evaluate_learnt", description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=100, help="scenes read per deck")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--deck-dir", type=Path, action="append", default=[],
                        help="also a scanned deck: a folder of {rank}_{oro,copa,espada,basto}.webp")
    parser.add_argument("--only", action="append", default=[], help="measure only these decks (by name)")
    parser.add_argument("--model", type=Path, default=None,
                        help="the card model to learn and read with (default: the installed one); one trained "
                             "with --no-fournier makes Fournier 1878 a real deck it never saw")
    parser.add_argument("--px-per-mm", type=float, default=None,
                        help="the reading frames' resolution (2.9: a full-resolution still; default 1.2-1.8)")
    parser.add_argument("--learn-px-per-mm", type=float, default=None,
                        help="the learning frames' resolution (default: the live camera's 1.2-1.8)")
    parser.add_argument("--no-ends-too", action="store_true", help="also read with the learnt faces alone")
    parser.add_argument("--learnt-only", action="store_true",
                        help="skip the out-of-the-box read (the same scenes whatever the learning frames)")
    args = parser.parse_args(argv)
    model = CardClassifier(args.model, threads=1, ends=True)
    alone = CardClassifier(args.model, threads=1, ends=False) if args.no_ends_too else None
    for name, deck in held_out_decks(args.deck_dir, args.seed).items():
        if args.only and name not in args.only:
            continue
        print(json.dumps(measure(name, deck, args.scenes, args.seed, model, args.px_per_mm, args.learn_px_per_mm,
                                 alone, not args.learnt_only)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
