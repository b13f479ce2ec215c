"""The mat of ``docs/mat.md``: markers, zones and the pool, in mat millimetres.

Origin at the top-left of the play area, x right, y down, seat 0 at the bottom.
The reference side is 800 mm; a mat of another side scales every position
(but not the card and stone sizes). The values every part of the project
shares are defined here once: the marker dictionary (:data:`ARUCO_DICTIONARY`),
the least resolution (:data:`MIN_PX_PER_MM`) and the sides a mat may have
(:data:`MIN_SIDE_MM`, :data:`MAX_SIDE_MM`).

>>> mat = Mat()
>>> mat.zone_at(400, 400)
<Zone.POOL: 'pool'>
>>> zone = mat.zone_at(400, 680)
>>> str(zone), zone.kind, zone.seat
('seat 0 cards', <ZoneKind.CARDS: 'cards'>, 0)
>>> Zone.parse("seat 3 stones") is Zone.stones(3)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

import cv2

from table.errors import InvalidInput

REFERENCE_SIDE_MM = 800.0
MIN_SIDE_MM = 640.0
"""Smallest play area: below it a seat's stone zone runs into a corner marker's quiet zone,
and the card zone (scaled) no longer holds four cards."""
MAX_SIDE_MM = 1500.0
"""Largest play area: a camera seeing a wider one gives under :data:`MIN_PX_PER_MM` (and it is no table)."""
MIN_PX_PER_MM = 1.2
"""The least resolution the reader needs, px per mm of mat (a card 75 px across); also the
resolution of the top-down view cards and stones are searched in."""
ARUCO_DICTIONARY = cv2.aruco.DICT_4X4_50
"""OpenCV's dictionary of the four markers (ids 0-3)."""
MARKER_MM = 50.0
"""Side of a marker's outer black square, the same at every mat size."""
MARKER_IDS = (0, 1, 2, 3)
POOL_RADIUS_MM = 110.0
CARD_MM = (61.5, 95.0)
"""Nominal width and height of a Spanish card (other decks are within ±15 %)."""

# Seat 0's zones on the reference mat, (x0, y0, x1, y1).
_SEAT0_CARDS = (220.0, 620.0, 580.0, 740.0)
_SEAT0_STONES = (600.0, 600.0, 720.0, 720.0)


Rect = tuple[float, float, float, float]
Point = tuple[float, float]


def aruco_dictionary() -> cv2.aruco.Dictionary:
    """The markers' dictionary, as OpenCV's detector and drawing functions take it."""
    return cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY)


class ZoneKind(StrEnum):
    """What a zone holds."""

    POOL = "pool"
    CARDS = "cards"
    STONES = "stones"


class Zone(StrEnum):
    """A zone of the mat; its string is the reading's JSON spelling (``"seat 2 cards"``).

    >>> Zone.cards(1), Zone.POOL.seat
    (<Zone.SEAT_1_CARDS: 'seat 1 cards'>, None)
    """

    POOL = "pool"
    SEAT_0_CARDS = "seat 0 cards"
    SEAT_0_STONES = "seat 0 stones"
    SEAT_1_CARDS = "seat 1 cards"
    SEAT_1_STONES = "seat 1 stones"
    SEAT_2_CARDS = "seat 2 cards"
    SEAT_2_STONES = "seat 2 stones"
    SEAT_3_CARDS = "seat 3 cards"
    SEAT_3_STONES = "seat 3 stones"

    @property
    def kind(self) -> ZoneKind:
        return ZoneKind(self.value.rsplit(" ", 1)[-1])

    @property
    def seat(self) -> int | None:
        """The seat a card or stone zone belongs to (None for the pool)."""
        return None if self is Zone.POOL else int(self.value[5])

    @classmethod
    def cards(cls, seat: int) -> Zone:
        return cls(f"seat {seat} cards")

    @classmethod
    def stones(cls, seat: int) -> Zone:
        return cls(f"seat {seat} stones")

    @classmethod
    def parse(cls, text: str) -> Zone:
        """The zone of its JSON spelling; :class:`InvalidInput` for anything else."""
        try:
            return cls(text)
        except ValueError:
            raise InvalidInput(f"not a zone: {text!r} (pool, or seat 0-3 cards/stones)") from None


def quarter_turn(x: float, y: float, turns: int, centre: float = 400.0) -> Point:
    """Turn a point ``turns`` quarter turns counterclockwise (seen from above) about the centre."""
    for _ in range(turns % 4):
        x, y = centre + (y - centre), centre - (x - centre)
    return x, y


def _turn_rect(rect: Rect, turns: int, centre: float) -> Rect:
    (ax, ay), (bx, by) = (quarter_turn(rect[0], rect[1], turns, centre),
                          quarter_turn(rect[2], rect[3], turns, centre))
    return (min(ax, bx), min(ay, by), max(ax, bx), max(ay, by))


@dataclass(frozen=True, slots=True)
class Mat:
    """The geometry of one mat, of side ``side`` mm (800 by default)."""

    side: float = REFERENCE_SIDE_MM

    def __post_init__(self) -> None:
        if not MIN_SIDE_MM <= self.side <= MAX_SIDE_MM:
            raise InvalidInput(f"a mat of side {self.side:g} mm: a play area between "
                               f"{MIN_SIDE_MM:g} and {MAX_SIDE_MM:g} mm, please", code="mat_side",
                               params={"side": f"{self.side:g}", "least": f"{MIN_SIDE_MM:g}",
                                       "most": f"{MAX_SIDE_MM:g}"})

    @property
    def scale(self) -> float:
        return self.side / REFERENCE_SIDE_MM

    @property
    def centre(self) -> Point:
        return (self.side / 2, self.side / 2)

    @property
    def pool_radius(self) -> float:
        return POOL_RADIUS_MM * self.scale

    def marker_corners(self, marker_id: int) -> list[Point]:
        """The four corners of a marker's black square, in OpenCV's order.

        OpenCV's order is top-left, top-right, bottom-right, bottom-left as seen
        from seat 0 (markers are printed upright for seat 0).
        """
        s, m = self.side, MARKER_MM
        x0, y0 = {0: (0.0, s - m), 1: (s - m, s - m), 2: (s - m, 0.0), 3: (0.0, 0.0)}[marker_id]
        return [(x0, y0), (x0 + m, y0), (x0 + m, y0 + m), (x0, y0 + m)]

    def card_zone(self, seat: int) -> Rect:
        return _zone_rects(self.side)[0][seat]

    def stone_zone(self, seat: int) -> Rect:
        return _zone_rects(self.side)[1][seat]

    def zone_at(self, x: float, y: float) -> Zone | None:
        """The zone that holds a point, or None outside every zone."""
        cx, cy = self.centre
        if math.hypot(x - cx, y - cy) <= self.pool_radius:
            return Zone.POOL
        cards, stones = _zone_rects(self.side)
        for seat in range(4):
            x0, y0, x1, y1 = cards[seat]
            if x0 <= x <= x1 and y0 <= y <= y1:
                return _CARD_ZONES[seat]
            x0, y0, x1, y1 = stones[seat]
            if x0 <= x <= x1 and y0 <= y <= y1:
                return _STONE_ZONES[seat]
        return None


@lru_cache(maxsize=16)
def _zone_rects(side: float) -> tuple[tuple[Rect, ...], tuple[Rect, ...]]:
    """Each seat's card and stone zones of a mat of ``side`` mm (a reading asks for them hundreds of times)."""
    scale = side / REFERENCE_SIDE_MM
    cards = tuple(v * scale for v in _SEAT0_CARDS)
    stones = tuple(v * scale for v in _SEAT0_STONES)
    return (tuple(_turn_rect(cards, seat, side / 2) for seat in range(4)),  # type: ignore[arg-type]
            tuple(_turn_rect(stones, seat, side / 2) for seat in range(4)))  # type: ignore[arg-type]


_CARD_ZONES = tuple(Zone.cards(seat) for seat in range(4))
_STONE_ZONES = tuple(Zone.stones(seat) for seat in range(4))
