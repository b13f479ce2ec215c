"""The mat of ``docs/mat.md``: markers, zones and the pool, in mat millimetres.

Origin at the top-left of the play area, x right, y down, seat 0 at the bottom.
The reference side is 800 mm; a mat of another side scales every position
(but not the card and stone sizes).

>>> mat = Mat()
>>> mat.zone_at(400, 400)
'pool'
>>> mat.zone_at(400, 680)
'seat 0 cards'
"""

from __future__ import annotations

import math
from dataclasses import dataclass

REFERENCE_SIDE_MM = 800.0
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
        return _turn_rect(tuple(v * self.scale for v in _SEAT0_CARDS), seat, self.side / 2)  # type: ignore[arg-type]

    def stone_zone(self, seat: int) -> Rect:
        return _turn_rect(tuple(v * self.scale for v in _SEAT0_STONES), seat, self.side / 2)  # type: ignore[arg-type]

    def zone_at(self, x: float, y: float) -> str | None:
        """The zone that holds a point: ``"pool"``, ``"seat s cards"``, ``"seat s stones"`` or None."""
        cx, cy = self.centre
        if math.hypot(x - cx, y - cy) <= self.pool_radius:
            return "pool"
        for seat in range(4):
            x0, y0, x1, y1 = self.card_zone(seat)
            if x0 <= x <= x1 and y0 <= y <= y1:
                return f"seat {seat} cards"
            x0, y0, x1, y1 = self.stone_zone(seat)
            if x0 <= x <= x1 and y0 <= y <= y1:
                return f"seat {seat} stones"
        return None
