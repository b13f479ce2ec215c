"""Card crops cut from rendered scenes, the way the card finder cuts them: the model's training data.

Each card of a rendered scene is warped through :func:`vision.cardcrop.warp_card`
from its true quad moved a few pixels at each corner (the finder is never
exact) and sometimes turned half round, so the model sees at training time
what it sees at run time. No torch here: evaluation and tests use it too.

>>> import numpy as np
>>> crops, labels = make_crops(1, np.random.default_rng(0), styles="held-out")
>>> crops.shape[1:], crops.dtype, labels.dtype
((112, 72, 3), dtype('uint8'), dtype('int64'))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

import numpy as np
import numpy.typing as npt

from models.deck import (
    HELD_OUT_STYLES,
    DeckStyle,
    load_deck,
    load_fournier1878,
    random_style,
    render_card,
    restyle_faces,
)
from models.scene import RenderedScene, random_cards, random_scene, render_scene
from table.cards import Card
from vision.cardcrop import half_turn, warp_card

Image = npt.NDArray[np.uint8]
StyleSet = Literal["training", "held-out"]


def jitter_quad(quad: npt.ArrayLike, rng: np.random.Generator, px: float = 3.0) -> npt.NDArray[np.float32]:
    """A quad as a finder might return it: corners off by up to ``px``, a little larger or smaller."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    c = q.mean(axis=0)
    q = c + (q - c) * rng.uniform(0.97, 1.04)
    amp = px * (2.0 if rng.random() < 0.1 else 1.0)
    return np.asarray(q + rng.uniform(-amp, amp, (4, 2)), np.float32)


def crops_of(scene: RenderedScene, rng: np.random.Generator, jitter_px: float = 3.0,
             turn: bool = True) -> tuple[list[Image], list[int]]:
    """Every card of a scene as a model crop and its class id (its index in DECK)."""
    crops, labels = [], []
    for t in scene.cards:
        crop = warp_card(scene.image, jitter_quad(t.quad_image, rng, jitter_px) if jitter_px else t.quad_image)
        if turn and rng.random() < 0.5:
            crop = half_turn(crop)
        crops.append(crop)
        labels.append(t.card.index)
    return crops, labels


def _deck_for(styles: StyleSet, rng: np.random.Generator, cards: list[Card],
              scanned: Sequence[Mapping[Card, Image]], scanned_share: float
              ) -> tuple[DeckStyle | dict[Card, Image], float]:
    if styles == "held-out":
        names = sorted(HELD_OUT_STYLES)
        return HELD_OUT_STYLES[names[int(rng.integers(len(names)))]], 61.5
    if scanned and rng.random() < scanned_share:
        deck = scanned[int(rng.integers(len(scanned)))] if len(scanned) > 1 else scanned[0]
        faces = restyle_faces({c: deck[c] for c in set(cards)}, rng)
        return faces, float(rng.uniform(56.0, 68.0))
    style = random_style(rng)
    return {c: render_card(c, style, rng) for c in set(cards)}, style.card_mm[0]


def make_crops(n_scenes: int, rng: np.random.Generator, styles: StyleSet = "training",
               scanned: Sequence[Mapping[Card, Image]] = (), scanned_share: float = 0.2,
               jitter_px: float = 3.0) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """Crops (N, 112, 72, 3) BGR and labels (N,) from ``n_scenes`` random scenes of 16 cards.

    ``styles="training"`` draws a new random deck style per scene (and one of
    the ``scanned`` decks, restyled, in ``scanned_share`` of them when given);
    ``"held-out"`` uses only :data:`models.deck.HELD_OUT_STYLES`.
    """
    all_crops: list[Image] = []
    all_labels: list[int] = []
    for _ in range(n_scenes):
        cards = random_cards(rng)
        deck, width = _deck_for(styles, rng, [c for seat in cards for c in seat], scanned, scanned_share)
        spec = random_scene(rng, cards=cards, deck=deck, card_width_mm=width, extras=())
        try:
            scene = render_scene(spec, rng)
        except ValueError:  # a crowded layout that does not fit: draw another scene
            continue
        crops, labels = crops_of(scene, rng, jitter_px)
        all_crops += crops
        all_labels += labels
    return np.stack(all_crops), np.asarray(all_labels, np.int64)


def _worker(args: tuple[int, int, str, bool, tuple[str, ...]]) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    import cv2

    cv2.setNumThreads(1)
    n, seed, styles, use_fournier, deck_dirs = args
    found = [load_fournier1878() if use_fournier else None] + [load_deck(d) for d in deck_dirs]
    scanned = [d for d in found if d is not None]
    return make_crops(n, np.random.default_rng(seed), styles, scanned)  # type: ignore[arg-type]


def build_dataset(path: Path, n_scenes: int, seed: int, styles: StyleSet = "training",
                  workers: int = 2, chunk: int = 25, use_fournier: bool = True,
                  deck_dirs: tuple[str, ...] = (), progress: bool = True) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """Render ``n_scenes`` scenes in chunks (seeded per chunk) and cache the crops as ``path`` (.npz)."""
    import multiprocessing as mp
    import sys
    import time

    if path.exists():
        with np.load(path) as z:
            return z["crops"], z["labels"]
    for d in deck_dirs:
        if load_deck(d) is None:
            raise ValueError(f"no complete deck of 40 faces {{rank}}_{{oro,copa,espada,basto}} (.webp, .png, .jpg) in {d}")
    jobs = [(min(chunk, n_scenes - i), seed * 100003 + i, styles, use_fournier, deck_dirs)
            for i in range(0, n_scenes, chunk)]
    crops, labels = [], []
    t0 = time.time()
    ctx = mp.get_context("fork")
    with ctx.Pool(workers) as pool:
        for i, (c, lab) in enumerate(pool.imap(_worker, jobs)):
            crops.append(c)
            labels.append(lab)
            if progress:
                done = min((i + 1) * chunk, n_scenes)
                print(f"  rendered {done}/{n_scenes} scenes ({sum(len(x) for x in labels)} crops, "
                      f"{time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
    out_c, out_l = np.concatenate(crops), np.concatenate(labels)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, crops=out_c, labels=out_l)
    return out_c, out_l
