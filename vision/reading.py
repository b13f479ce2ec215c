"""A reading of one frame — the cards by seat, the stones by zone — and the reader that makes it.

:class:`TableReader` chains the steps: place the mat (:mod:`vision.calibration`),
model the felt (:mod:`vision.felt`), find the cards (:mod:`vision.cards`), read
them all in one model call (:mod:`vision.classifier`), count the stones
(:mod:`vision.stones`). :class:`Reading` is what it says, and
:meth:`Reading.to_json` is the object of ``docs/mat.md``.

A card is put in ``cards`` only when the model is sure of it in both views and
the table is possible; everything else seen in a card zone goes to
``unknown`` with the reason. A card seen twice, or more than four cards at a
seat, make the table impossible: the cards concerned go to ``unknown``, the
reason to ``impossible``, and the reading is not ``ok``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

from table.cards import Card
from vision.calibration import Calibration, Calibrator
from vision.cardcrop import warp_card
from vision.cards import UNREAD_WHY, CardObject, card_area_share, find_cards, unread_things
from vision.classifier import DEFAULT_THRESHOLD, CardClassifier, Classifier, Prediction, SizedDeck
from vision.felt import Felt, estimate_felt
from vision.frames import as_frame
from vision.mat import MIN_PX_PER_MM, Mat, Zone
from vision.stones import StoneCount, StoneReading, count_stones

Image = npt.NDArray[np.uint8]

STONES_HIDDEN = "may hide stones"
"""The reason of an ``unknown`` item over the pool or a stone zone (a hand): stones under it are not counted."""

RECTIFIED_PX_PER_MM = MIN_PX_PER_MM
"""Resolution of the top-down view the cards and stones are searched in (cards are read from the frame)."""


@dataclass(frozen=True, slots=True)
class Item:
    """Something seen in a zone but not read as a card, or seen outside every zone.

    ``box`` is [x0, y0, x1, y1] in mat mm; ``card`` is what the model read when
    the item was refused for another reason than doubt (a card seen twice).
    """

    zone: Zone | None
    box: tuple[int, int, int, int]
    why: str
    card: Card | None = None

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"zone": str(self.zone) if self.zone is not None else "outside",
                                  "box": list(self.box), "why": self.why}
        if self.card is not None:
            out["card"] = str(self.card)
        return out


@dataclass(frozen=True)
class Reading:
    """What one frame shows. ``cards[s]`` holds only cards read with confidence."""

    cards: tuple[tuple[Card, ...], ...] = ((), (), (), ())
    stones: StoneCount = field(default_factory=StoneCount)
    unknown: tuple[Item, ...] = ()
    stale: bool = False
    impossible: tuple[str, ...] = ()
    """Why the table cannot be as seen (a card twice, five cards at a seat); empty when possible."""
    ignored: tuple[Item, ...] = ()
    """Objects outside every zone (cards, stones or other things), reported and not read."""
    markers: tuple[int, ...] = ()
    """The marker ids found in this frame."""
    calibrated: bool = True
    """False when no calibration was available at all (then nothing was read)."""

    @property
    def ok(self) -> bool:
        """Calibrated from this frame and a possible table."""
        return self.calibrated and not self.stale and not self.impossible

    def to_json(self) -> dict[str, object]:
        """The object of ``docs/mat.md``, plus ``impossible``, ``ignored`` and ``markers``."""
        return {
            "cards": [[str(c) for c in seat] for seat in self.cards],
            "stones": self.stones.to_json(),
            "unknown": [u.to_json() for u in self.unknown],
            "stale": self.stale,
            "impossible": list(self.impossible),
            "ignored": [i.to_json() for i in self.ignored],
            "markers": list(self.markers),
        }

    def to_line(self) -> str:
        """One line of JSON (the ``mus-table read --json`` output)."""
        return json.dumps(self.to_json(), separators=(", ", ": "))



def check_table(cards: list[tuple[CardObject, Prediction]], max_per_seat: int = 4
                ) -> tuple[list[tuple[CardObject, Prediction]], list[Item], list[str]]:
    """Split sure cards into the possible ones and those an impossible table puts in doubt.

    A card seen twice: every copy is refused. A seat with more than four cards:
    all that seat's cards are refused (which four are real cannot be told).
    """
    by_card: dict[Card, list[tuple[CardObject, Prediction]]] = {}
    for obj, pred in cards:
        by_card.setdefault(pred.card, []).append((obj, pred))
    problems: list[str] = []
    refused: dict[int, str] = {}
    for card, seen in by_card.items():
        if len(seen) > 1:
            where = " and ".join(_where(o) for o, _ in seen)
            times = "twice" if len(seen) == 2 else f"{len(seen)} times"
            problems.append(f"card {card} seen {times} ({where})")
            for o, _ in seen:
                refused[id(o)] = f"card {card} seen {times}"
    seats: dict[int | None, int] = {}
    for obj, _ in cards:
        seats[obj.seat] = seats.get(obj.seat, 0) + 1
    for seat, n in sorted(seats.items(), key=lambda kv: -1 if kv[0] is None else kv[0]):
        if seat is not None and n > max_per_seat:
            problems.append(f"{n} cards at seat {seat}")
            for obj, _ in cards:
                if obj.seat == seat:
                    refused.setdefault(id(obj), f"{n} cards at seat {seat}")
    good = [(o, p) for o, p in cards if id(o) not in refused]
    items = [Item(o.zone, o.box, refused[id(o)], p.card) for o, p in cards if id(o) in refused]
    return good, items, problems


def _where(obj: CardObject) -> str:
    return f"seat {obj.seat}" if obj.seat is not None else "outside"


@dataclass
class Timings:
    """Milliseconds spent in each step of the last read."""

    calibration: float = 0.0
    rectify: float = 0.0
    cards: float = 0.0
    model: float = 0.0
    stones: float = 0.0
    total: float = 0.0
    crops: int = 0


@dataclass
class Detail:
    """What the reader saw on the way (for the calibration view, tests and evaluation)."""

    calibration: Calibration | None = None
    objects: list[CardObject] = field(default_factory=list)
    predictions: list[Prediction | None] = field(default_factory=list)
    stones: StoneReading | None = None
    rectified: Image | None = None
    """The mat as :func:`vision.cards.find_cards` saw it (at ``TableReader.px_per_mm``)..."""
    felt: Felt | None = None
    """...and the felt it judged the cards against."""


class TableReader:
    """Reads frames: ``TableReader().read(frame) -> Reading``.

    ``classifier`` may be injected (a fake in tests); by default the model in
    ``models/cards.onnx`` is loaded on first use with ``threads`` threads.
    """

    def __init__(self, mat: Mat | None = None, classifier: Classifier | None = None,
                 threshold: float = DEFAULT_THRESHOLD, threads: int = 1,
                 px_per_mm: float = RECTIFIED_PX_PER_MM,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.mat = mat or Mat()
        self.calibrator = Calibrator(self.mat)
        self._classifier = classifier
        self.threads = threads
        self.threshold = threshold
        self.px_per_mm = px_per_mm
        self.timings = Timings()
        self.detail = Detail()
        self._clock = clock

    @property
    def classifier(self) -> Classifier:
        if self._classifier is None:
            self._classifier = CardClassifier(threads=self.threads)
        return self._classifier

    def read(self, frame: Image) -> Reading:
        """Read one BGR frame. The calibrator remembers the last good calibration across calls.

        Grey, alpha, 16-bit and float frames are converted; an array that is
        no frame raises :class:`vision.frames.InvalidFrame`.
        """
        clock = self._clock
        t0 = clock()
        frame = as_frame(frame)
        state = self.calibrator.update(frame)
        t1 = clock()
        self.detail = Detail(state.calibration)
        self.timings = Timings(calibration=(t1 - t0) * 1000)
        cal = state.calibration
        if cal is None:
            self.timings.total = (clock() - t0) * 1000
            return Reading(stale=True, markers=state.seen, calibrated=False)
        k = self.px_per_mm
        rect = cal.rectify(frame, k)
        felt = estimate_felt(rect, k, self.mat)
        t2 = clock()
        deck_size = self._classifier.card_mm if isinstance(self._classifier, SizedDeck) else None
        objects = find_cards(rect, felt, k, self.mat, card_mm=deck_size)
        objects += unread_things(rect, felt, k, self.mat, objects)
        crops_for = [o for o in objects if o.why is None and o.seat is not None]
        crops = [warp_card(frame, cal.to_image(o.quad).astype(np.float32)) for o in crops_for]
        t3 = clock()
        preds = self.classifier.classify(crops) if crops else []
        t4 = clock()
        exclude = np.zeros(rect.shape[:2], np.uint8)
        for o in objects:  # the cards (stones lighter than the felt are objects too: not those)
            if o.why is not None:
                continue
            pts = np.round(o.quad * k - 0.5).astype(np.int32)
            cv2.fillPoly(exclude, [pts], 255)
        exclude = np.asarray(cv2.dilate(exclude, np.ones((5, 5), np.uint8)), np.uint8)
        stones = count_stones(rect, felt, k, self.mat, exclude=exclude)
        t5 = clock()

        unknown: list[Item] = []
        ignored: list[Item] = []
        sure: list[tuple[CardObject, Prediction]] = []
        pred_of = dict(zip((id(o) for o in crops_for), preds, strict=True))
        for o in objects:
            if o.seat is None:
                if o.zone is None:
                    what = "card" if o.why is None else "object"
                    ignored.append(Item(None, o.box, f"{what} outside every zone"))
                elif o.why is None or card_area_share(o) > 0.6:
                    unknown.append(Item(o.zone, o.box, o.why or "card outside the card zones"))
                continue
            p = pred_of.get(id(o))
            if p is None:
                unknown.append(Item(o.zone, o.box, o.why or "not card-shaped"))
            elif p.sure(self.threshold):
                sure.append((o, p))
            else:
                unknown.append(Item(o.zone, o.box, "low confidence" if p.agreed else "views disagree"))
        unsure = [o for o in crops_for if not any(o is s for s, _ in sure)]
        if unsure:  # a rectangle found across the gap between two cards and refused covers neither: said again
            unknown += _uncovered(rect, felt, k, self.mat, [o for o in objects if not any(o is u for u in unsure)],
                                  unknown)
        good, refused, impossible = check_table(sure)
        unknown.extend(refused)
        seats: list[list[Card]] = [[], [], [], []]
        for o, p in sorted(good, key=lambda op: _along_seat(op[0], self.mat)):
            assert o.seat is not None
            seats[o.seat].append(p.card)
        for r in stones.rejected:  # stones may lie under it: the count there is what shows
            unknown.extend(Item(z, r.box, STONES_HIDDEN) for z in r.covers)
        for s in stones.stones:
            if s.zone is None:
                ignored.append(Item(None, (int(s.x - 5), int(s.y - 5), int(s.x + 5), int(s.y + 5)),
                                    "stone outside every zone"))
        self.detail = Detail(cal, objects, [pred_of.get(id(o)) for o in objects], stones, rect, felt)
        self.timings = Timings((t1 - t0) * 1000, (t2 - t1) * 1000, (t3 - t2) * 1000,
                               (t4 - t3) * 1000, (t5 - t4) * 1000, (clock() - t0) * 1000, len(crops))
        return Reading(tuple(tuple(s) for s in seats), stones.count, tuple(unknown), state.stale,
                       tuple(impossible), tuple(ignored), state.seen, True)


SAID_SHARE = 0.5
"""A busy thing seen once the cards read unsure are taken off is what items already say when this share of its
box lies under theirs: that card itself, or a thing already in ``unknown`` (a phone, cut into rectangles)."""


def _uncovered(rect: Image, felt: Felt, k: float, mat: Mat, kept: list[CardObject],
               said: list[Item]) -> list[Item]:
    """Card-sized busy things under no object ``kept`` whose box the items ``said`` do not already give.

    A card read unsure is in ``unknown`` with its own box; when it is no card but a rectangle found across the
    gap between two cards, the box it covers of each is not where they lie: each is said with its own box.
    """
    return [Item(o.zone, o.box, o.why or UNREAD_WHY) for o in unread_things(rect, felt, k, mat, kept)
            if _said_share(o.box, [u.box for u in said]) < SAID_SHARE]


def _said_share(box: tuple[int, int, int, int], said: list[tuple[int, int, int, int]]) -> float:
    """The share of a box [x0, y0, x1, y1] (mm) that lies under some of the boxes ``said``.

    >>> _said_share((0, 0, 10, 10), [(5, 0, 15, 10), (0, 0, 10, 5)])
    0.75
    """
    x0, y0, x1, y1 = box
    under = np.zeros((max(1, y1 - y0), max(1, x1 - x0)), bool)
    for bx0, by0, bx1, by1 in said:
        under[max(0, by0 - y0):max(0, by1 - y0), max(0, bx0 - x0):max(0, bx1 - x0)] = True
    return float(under.mean())


def _along_seat(obj: CardObject, mat: Mat) -> float:
    """Position of a card along its seat's edge, left to right as its player sees it."""
    x, y = obj.centre
    c = mat.side / 2
    seat = obj.seat or 0
    return [x - c, -(y - c), -(x - c), y - c][seat]
