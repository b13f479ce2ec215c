"""How right the whole reader is on rendered scenes: the measure behind ``mus-table bench accuracy``.

It lives with the scene renderer because it draws the scenes; ``vision``
never imports it (the Pi's reader does not depend on the training code).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from models.deck import HELD_OUT_STYLES, DeckStyle
from models.scene import CardTruth, RenderedScene, random_scene, render_scene
from table.cards import Card
from vision.cards import CardObject, quad_error_mm
from vision.mat import Zone
from vision.reading import STONES_HIDDEN, Reading, TableReader

_STONE_ZONES = ("pool", *(f"seat {s} stones" for s in range(4)))
_ZONES = (Zone.POOL, *(Zone.stones(s) for s in range(4)))
_SEEN = 0.75
"""A stone this much in view (the rest under a hand) must be counted ..."""
_HIDDEN = 0.25
"""... and one this little in view must not; between, either is right, if the reading says the zone is covered."""
_SAID = 0.2
"""A card not read is said (not dropped silently) when a card found or an ``unknown`` box covers this share of it."""


@dataclass
class Tally:
    """The counts over the scenes read; :meth:`summary` gives the percentages."""

    scenes: int = 0
    placed: int = 0
    truth_cards: int = 0
    found: int = 0
    found_right_place: int = 0
    card_objects: int = 0
    right: int = 0
    wrong: int = 0
    unknown: int = 0
    scenes_all_right: int = 0
    impossible_scenes: int = 0
    zones: int = 0
    zones_exact: int = 0
    zones_exact_centre: int = 0
    zones_hidden: int = 0
    zones_hidden_said: int = 0
    zones_said_none_hidden: int = 0
    seconds: float = 0.0
    wrong_cases: list[str] = field(default_factory=list)
    unknown_cases: list[str] = field(default_factory=list)
    """Per scene with a card not read: which, and why the reader left things unknown."""
    silent: int = 0
    """True cards dropped silently: not read, and under no card found nor any ``unknown`` box (:func:`silent_cards`)."""
    silent_cases: list[str] = field(default_factory=list)
    stone_misses: list[str] = field(default_factory=list)

    def summary(self, with_model: bool) -> dict[str, object]:
        def pct(a: int, b: int) -> float:
            return round(100.0 * a / b, 2) if b else float("nan")

        out: dict[str, object] = {
            "scenes": self.scenes,
            "calibrated_pct": pct(self.placed, self.scenes),
            "finder_recall_pct": pct(self.found, self.truth_cards),
            "finder_precision_pct": pct(self.found_right_place, self.card_objects),
            "stones_exact_zones_pct": pct(self.zones_exact, self.zones),
            "stones_exact_zones_centre_pct": pct(self.zones_exact_centre, self.zones),
            "stones_hidden_zones": self.zones_hidden,
            "stones_hidden_said_pct": pct(self.zones_hidden_said, self.zones_hidden),
            "stones_said_none_hidden_zones": self.zones_said_none_hidden,
            "ms_per_frame": round(1000 * self.seconds / max(1, self.scenes), 1),
        }
        if with_model:
            out.update({
                "cards_right_pct": pct(self.right, self.truth_cards),
                "cards_wrong_pct": pct(self.wrong, self.truth_cards),
                "cards_unknown_pct": pct(self.unknown, self.truth_cards),
                "scenes_all_right_pct": pct(self.scenes_all_right, self.scenes),
                "wrong_cases": self.wrong_cases[:20],
                "unknown_cases": self.unknown_cases[:20],
                "cards_silent": self.silent,
                "silent_cases": self.silent_cases[:20],
            })
        out["stone_misses"] = self.stone_misses[:20]
        return out


def silent_cards(scene: RenderedScene, reading: Reading, objects: Sequence[CardObject],
                 missed: set[str]) -> list[CardTruth]:
    """The true cards of ``missed`` (not read) that the reading does not say: under no card found and no ``unknown``
    box (a stone zone's hand left aside) by :data:`_SAID` of their area. Issue 24: none may be dropped silently."""
    said = [o.quad for o in objects if o.why is None and o.seat is not None]
    said += [np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)
             for x0, y0, x1, y1 in (u.box for u in reading.unknown if u.why != STONES_HIDDEN)]
    out = []
    for t in scene.cards:
        if str(t.card) not in missed:
            continue
        quad = np.asarray(t.quad_mat, np.float32)
        area = float(cv2.contourArea(quad))
        if not any(cv2.intersectConvexConvex(quad, q.astype(np.float32))[0] >= _SAID * area for q in said):
            out.append(t)
    return out


def evaluate(n: int, seed: int = 0, deck: str = "held-out", classifier: object | None = None,
             progress: bool = False, faces: Mapping[Card, np.ndarray] | DeckStyle | None = None,
             px_per_mm: float | None = None, styles: Sequence[str] = ()) -> Tally:
    """Render ``n`` seeded scenes and read each; ``faces`` (a scanned deck, or one style) overrides ``deck``.

    ``px_per_mm`` fixes the frames' resolution (2.9: a Camera Module 3's full-resolution
    still); by default each scene has the live camera's 1.2-1.8. The held-out deck
    takes each of ``styles`` in turn (by default every one of :data:`HELD_OUT_STYLES`).
    """
    rng = np.random.default_rng(seed)
    tally = Tally()
    styles = list(styles) or list(HELD_OUT_STYLES)
    unknown = [s for s in styles if s not in HELD_OUT_STYLES]
    if unknown:
        raise ValueError(f"no held-out style {unknown[0]!r}")
    for i in range(n):
        overrides: dict[str, object] = {} if px_per_mm is None else {"px_per_mm": px_per_mm}
        if faces is not None:
            overrides["deck"] = faces
        elif deck == "held-out":
            overrides["deck"] = HELD_OUT_STYLES[styles[i % len(styles)]]
        spec = random_scene(rng, **overrides)
        scene = render_scene(spec, rng)
        reader = TableReader(classifier=classifier)  # type: ignore[arg-type]
        t0 = time.perf_counter()
        reading = reader.read(scene.image)
        tally.seconds += time.perf_counter() - t0
        tally.scenes += 1
        tally.placed += int(not reading.stale)
        truth = [set(s) for s in scene.truth_cards]
        tally.truth_cards += sum(len(s) for s in truth)
        # the finder: card-shaped objects in card zones against the true quads
        objs = [o for o in reader.detail.objects if o.why is None and o.seat is not None]
        tally.card_objects += len(objs)
        used: set[int] = set()
        for t in scene.cards:
            best = min(((quad_error_mm(o.quad, t.quad_mat), j) for j, o in enumerate(objs) if j not in used),
                       default=(1e9, -1))
            if best[0] < 5.0:
                used.add(best[1])
                tally.found += 1
        tally.found_right_place += len(used)
        # the cards read
        read = [set(map(str, s)) for s in reading.cards]
        right = sum(len(r & t) for r, t in zip(read, truth, strict=True))
        wrong = sum(len(r - t) for r, t in zip(read, truth, strict=True))
        tally.right += right
        tally.wrong += wrong
        tally.unknown += sum(len(s) for s in truth) - right
        tally.impossible_scenes += int(bool(reading.impossible))
        if read == truth:
            tally.scenes_all_right += 1
        if wrong:
            tally.wrong_cases.append(f"scene {i}: read {[sorted(r) for r in read]} truth {[sorted(t) for t in truth]}")
        missed = sorted(str(c) for r, t in zip(read, truth, strict=True) for c in t - r)
        if missed:
            whys = sorted(u.why for u in reading.unknown if u.why != STONES_HIDDEN)
            tally.unknown_cases.append(f"scene {i}: not read {missed}; unknown: {whys}")
            dropped = silent_cards(scene, reading, reader.detail.objects, set(missed))
            tally.silent += len(dropped)
            tally.silent_cases += [f"scene {i}: {t.card} at seat {t.seat} dropped silently" for t in dropped]
        # stones
        got = [reading.stones.pool, *reading.stones.seats]
        said = {u.zone for u in reading.unknown if u.why == STONES_HIDDEN}
        exact = 0
        for z, name in enumerate(_STONE_ZONES):
            truth = [t for t in scene.stone_truth if t.zone == name]
            lo = sum(1 for t in truth if t.visible >= _SEEN)
            hi = sum(1 for t in truth if t.visible > _HIDDEN)
            hidden = lo < len(truth)
            tally.zones_hidden += int(hidden)
            tally.zones_hidden_said += int(hidden and _ZONES[z] in said)
            tally.zones_said_none_hidden += int(not hidden and _ZONES[z] in said)
            centre = sum(1 for t in truth if not t.under_hand)
            tally.zones_exact_centre += int(got[z] == centre)
            ok = lo <= got[z] <= hi and (not hidden or _ZONES[z] in said)
            exact += int(ok)
            if not ok:
                tally.stone_misses.append(
                    f"scene {i}: {name} got {got[z]} truth {lo if lo == hi else f'{lo}-{hi}'}"
                    + (f" of {len(truth)}, {'said' if _ZONES[z] in said else 'not said'} hidden" if hidden else "")
                    + (" (hand)" if spec.hand_over_pool else "")
                    + (f" (glare {spec.glare:.2f})" if spec.glare else ""))
        tally.zones += 5
        tally.zones_exact += exact
        if progress and (i + 1) % 10 == 0:
            print(f"  {i + 1}/{n} scenes", flush=True)
    return tally
