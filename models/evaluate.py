"""Measure the card model on rendered scenes of deck styles it never saw in training.

``python -m models.evaluate`` renders seeded scenes of the held-out styles
(:data:`models.deck.HELD_OUT_STYLES`), cuts every card as the finder would
(its true quad moved a few pixels per corner), and classifies the crops with
``models/cards.onnx`` through the reader's own :class:`vision.classifier.CardClassifier`,
calling a card exactly as the reader does: the crop and its half-turned view must agree, each with probability at
least :data:`models.CONFIDENCE_THRESHOLD`; otherwise the card is unknown.
It prints cards right / wrong / unknown, scenes with all sixteen right, the
per-card time on one thread, and draws a confusion matrix (``--confusion``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from models.dataset import crops_of
from models.deck import HELD_OUT_STYLES, load_deck, load_fournier1878, redrawn_deck
from models.scene import random_cards, random_scene, render_scene
from models.train import cache_dir
from table.cards import DECK
from vision.classifier import DEFAULT_THRESHOLD as CONFIDENCE_THRESHOLD
from vision.classifier import CardClassifier

CONFUSION_NAME = "confusion.png"


def session(path: Path | None = None, threads: int = 1) -> CardClassifier:
    """The reader's own classifier for the model at ``path`` (default: the installed one)."""
    return CardClassifier(path, threads=threads)


def predict(clf: CardClassifier, crops: list[npt.NDArray[np.uint8]]
            ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Class and confidence per crop as the reader calls them (confidence 0 when the views disagree)."""
    preds = clf.classify(crops)
    k = np.asarray([p.card.index for p in preds], np.int64)
    conf = np.asarray([p.probability if p.agreed else 0.0 for p in preds], np.float64)
    return k, conf


@dataclass
class Figures:
    deck: str
    scenes: int
    cards: int
    right: float
    wrong: float
    unknown: float
    scenes_all_right: float
    top1_accuracy: float
    threshold: float


def evaluate_scenes(sess: CardClassifier, faces_or_styles: list, n_scenes: int, seed: int, jitter_px: float = 3.0,  # type: ignore[type-arg]
                    threshold: float = CONFIDENCE_THRESHOLD, name: str = "held-out"
                    ) -> tuple[Figures, npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """Render scenes of the given decks (cycled), classify every card; figures and raw results."""
    rng = np.random.default_rng(seed)
    truths, preds, confs, scene_ok = [], [], [], []
    for i in range(n_scenes):
        deck = faces_or_styles[i % len(faces_or_styles)]
        spec = random_scene(rng, cards=random_cards(rng), deck=deck, extras=())
        scene = render_scene(spec, rng)
        crops, labels = crops_of(scene, rng, jitter_px)
        k, c = predict(sess, crops)
        lab = np.asarray(labels)
        ok = (k == lab) & (c >= threshold)
        scene_ok.append(bool(ok.all()))
        truths.append(lab)
        preds.append(k)
        confs.append(c)
    t, p, c = np.concatenate(truths), np.concatenate(preds), np.concatenate(confs)
    called = c >= threshold
    fig = Figures(name, n_scenes, len(t), float(((p == t) & called).mean()), float(((p != t) & called).mean()),
                  float((~called).mean()), float(np.mean(scene_ok)), float((p == t).mean()), threshold)
    return fig, t, c, p


def confusion_image(truth: npt.NDArray[np.int64], pred: npt.NDArray[np.int64], path: Path, title: str) -> None:
    """A 40x40 confusion matrix (rows: true card, columns: read card; log colour), drawn with cv2."""
    m = np.zeros((40, 40), np.int64)
    np.add.at(m, (truth, pred), 1)
    cell, left, top = 18, 46, 64
    size = (top + 40 * cell + 10, left + 40 * cell + 10)
    img = np.full((*size, 3), 255, np.uint8)
    norm = np.log1p(m) / max(1e-9, np.log1p(m.max()))
    for i in range(40):
        for j in range(40):
            if m[i, j] == 0:
                continue
            v = norm[i, j]
            colour = (int(255 * (1 - v)), int(255 * (1 - v)), 255) if i != j else \
                (int(255 * (1 - v) * 0.6 + 100), int(120 + 100 * (1 - v)), int(255 * (1 - v) * 0.6))
            x0, y0 = left + j * cell, top + i * cell
            cv2.rectangle(img, (x0, y0), (x0 + cell - 1, y0 + cell - 1), colour, -1)
            if i != j:
                cv2.putText(img, str(m[i, j]), (x0 + 2, y0 + 13), cv2.FONT_HERSHEY_PLAIN, 0.8, (0, 0, 0), 1)
    for k, card in enumerate(DECK):
        cv2.putText(img, str(card), (4, top + k * cell + 13), cv2.FONT_HERSHEY_PLAIN, 0.9, (0, 0, 0), 1)
        x = left + k * cell + 3
        for r, ch in enumerate(str(card)):
            cv2.putText(img, ch, (x, top - 30 + r * 10), cv2.FONT_HERSHEY_PLAIN, 0.7, (0, 0, 0), 1)
    for k in range(0, 41, 10):
        cv2.line(img, (left + k * cell, top), (left + k * cell, top + 40 * cell), (160, 160, 160), 1)
        cv2.line(img, (left, top + k * cell), (left + 40 * cell, top + k * cell), (160, 160, 160), 1)
    cv2.putText(img, title, (4, 14), cv2.FONT_HERSHEY_SIMPLEX, 0.42, (0, 0, 0), 1, cv2.LINE_AA)
    cv2.imwrite(str(path), img)


def time_per_card(sess: CardClassifier, crops: list[npt.NDArray[np.uint8]], repeats: int = 20) -> float:
    """Milliseconds per card for a batch of 16 crops with both views (32 model inputs), one thread."""
    batch = crops[:16]
    predict(sess, batch)
    t = time.perf_counter()
    for _ in range(repeats):
        predict(sess, batch)
    return (time.perf_counter() - t) / repeats / len(batch) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models.evaluate", description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=None, help="card model (default: the installed one)")
    parser.add_argument("--scenes", type=int, default=200, help="scenes of 16 cards per held-out style")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--jitter", type=float, default=3.0, help="corner error of the finder, px")
    parser.add_argument("--confusion", type=Path, default=None,
                        help=f"where to draw the confusion matrix (default: the cache folder's {CONFUSION_NAME}; "
                             "the model card's is models/confusion.png)")
    parser.add_argument("--deck-dir", type=Path, action="append", default=[],
                        help="also measure on a scanned deck: a folder of {rank}_{oro,copa,espada,basto}.webp")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.confusion is None:
        args.confusion = cache_dir() / CONFUSION_NAME
        args.confusion.parent.mkdir(parents=True, exist_ok=True)
    sess = session(args.model)
    results = []
    all_t, all_p = [], []
    for name, style in HELD_OUT_STYLES.items():
        fig, t, c, p = evaluate_scenes(sess, [style], args.scenes, args.seed, args.jitter, name=name)
        results.append(fig)
        all_t.append(t)
        all_p.append(p)
        sweep = {th: (float(((p == t) & (c >= th)).mean()), float(((p != t) & (c >= th)).mean()))
                 for th in (0.5, 0.8, 0.9, 0.95, 0.98)}
        print(f"{name}: " + ", ".join(f"t={th}: right {r:.4f} wrong {w:.4f}" for th, (r, w) in sweep.items()),
              file=sys.stderr)
    decks = [(d.name, load_deck(d)) for d in args.deck_dir]
    if not args.deck_dir:
        decks.append(("fournier1878 (in training unless trained with --no-fournier)", load_fournier1878()))
    for name, faces in decks:
        if faces is None:
            print(f"{name}: no complete deck there, skipped", file=sys.stderr)
            continue
        fig, *_ = evaluate_scenes(sess, [faces], max(20, args.scenes // 2), args.seed + 1, args.jitter, name=name)
        results.append(fig)
        # the same pattern as another maker might print it: how much of the deck's own drawing was learnt
        fig, *_ = evaluate_scenes(sess, [redrawn_deck(faces, args.seed)], max(20, args.scenes // 2), args.seed + 2,
                                  args.jitter, name=f"{name.split(' ')[0]} redrawn")
        results.append(fig)
    t_all, p_all = np.concatenate(all_t), np.concatenate(all_p)
    confusion_image(t_all, p_all, args.confusion,
                    f"held-out styles {', '.join(HELD_OUT_STYLES)}: {len(t_all)} cards, "
                    f"top-1 {float((t_all == p_all).mean()):.4f} (rows true, columns read)")
    rng = np.random.default_rng(args.seed)
    scene = render_scene(random_scene(rng, cards=random_cards(rng), deck=HELD_OUT_STYLES["clasica"]), rng)
    crops, _ = crops_of(scene, rng)
    ms = time_per_card(sess, crops)
    if args.json:
        print(json.dumps({"results": [asdict(r) for r in results], "ms_per_card": ms}))
    else:
        for r in results:
            print(f"{r.deck}: {r.cards} cards in {r.scenes} scenes: right {100 * r.right:.2f} %, "
                  f"wrong {100 * r.wrong:.2f} %, unknown {100 * r.unknown:.2f} %, "
                  f"scenes all 16 right {100 * r.scenes_all_right:.1f} % "
                  f"(top-1 {100 * r.top1_accuracy:.2f} %, threshold {r.threshold})")
        print(f"inference: {ms:.2f} ms per card (onnxruntime, one thread, 16 crops x 2 views per call)")
        print(f"confusion matrix: {args.confusion}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
