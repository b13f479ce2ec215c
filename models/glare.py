"""How much glare the reader tolerates: the measure behind ``mus-table bench glare``.

A glare in the renderer (``models.scene``) is a round spot where the picture
is blended towards white: at its centre a fraction ``glare`` of each pixel is
the lamp's reflection (0.5: half washed out), fading over 3-9 % of the frame.
Here every scene gets one, centred on one seat's card zone (the worst place:
on the cards), at each strength asked; the cards are read as the table reads
them, and right / wrong / unknown counted per strength. The hardware guide's
«Light» section quotes the figures.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from models.deck import HELD_OUT_STYLES
from models.scene import random_scene, render_scene
from vision.mat import Mat
from vision.reading import TableReader


@dataclass(frozen=True)
class GlareFigures:
    glare: float
    cards: int
    right: int
    wrong: int

    @property
    def right_pct(self) -> float:
        return round(100 * self.right / max(1, self.cards), 1)

    @property
    def wrong_pct(self) -> float:
        return round(100 * self.wrong / max(1, self.cards), 1)

    def to_json(self) -> dict[str, float | int]:
        return {"glare": self.glare, "cards": self.cards, "right_pct": self.right_pct, "wrong_pct": self.wrong_pct}


def measure(levels: tuple[float, ...] = (0.0, 0.3, 0.5, 0.7, 0.9), n: int = 20, seed: int = 1,
            px_per_mm: float | None = None) -> list[GlareFigures]:
    """``n`` scenes per glare strength, the same scenes (same seed) at each strength."""
    styles = list(HELD_OUT_STYLES)  # clasica, moderna first, as when they were the only two
    mat = Mat()
    out = []
    for level in levels:
        cards = right = wrong = 0
        for i in range(n):
            rng = np.random.default_rng([seed, i])  # scene i is the same at every strength
            x0, y0, x1, y1 = mat.card_zone(i % 4)
            overrides: dict[str, object] = {"glare": level, "glare_at": ((x0 + x1) / 2, (y0 + y1) / 2),
                                            "deck": HELD_OUT_STYLES[styles[i % len(styles)]]}
            if px_per_mm is not None:
                overrides["px_per_mm"] = px_per_mm
            spec = random_scene(rng, **overrides)
            scene = render_scene(spec, rng)
            reading = TableReader().read(scene.image)
            truth = [set(s) for s in scene.truth_cards]
            read = [set(map(str, s)) for s in reading.cards]
            cards += sum(len(t) for t in truth)
            right += sum(len(r & t) for r, t in zip(read, truth, strict=True))
            wrong += sum(len(r - t) for r, t in zip(read, truth, strict=True))
        out.append(GlareFigures(level, cards, right, wrong))
    return out
