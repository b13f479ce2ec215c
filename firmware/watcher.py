"""Deciding when to read: cards lie in the zones and the picture has been still for a moment.

Reading the table costs half a second; watching it must cost almost nothing,
every frame. The watcher looks at a small grey copy of each frame for motion
(mean difference from the frame before) and, where it knows where the mat is,
at the card zones for cards (the share of pixels far from the felt's colour).
When cards lie in enough zones and no motion was seen for ``still_frames``
frames it says «read» — once: it says it again only after something moved
(a fix on the felt, the next hand).

>>> w = Watcher(WatchSettings(still_frames=2, zones=0))
>>> still = np.zeros((60, 80, 3), np.uint8)
>>> [w.feed(still).read for _ in range(4)]
[False, False, True, False]
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from table.errors import InvalidInput
from vision.calibration import Calibration
from vision.mat import Mat

Image = npt.NDArray[np.uint8]
SMALL = 96
"""Side (px) of the grey copy motion is measured on."""


@dataclass(frozen=True, slots=True)
class WatchSettings:
    still_frames: int = 4
    """Frames without motion before the table counts as still."""
    motion: float = 3.0
    """Mean grey difference (0-255) between two small frames that counts as motion."""
    zones: int = 4
    """Card zones that must hold cards (0: read on stillness alone, where the mat is not placed)."""
    paper: float = 0.25
    """Share of a card zone's pixels far from the felt for the zone to hold cards."""
    felt_distance: float = 60.0

    def __post_init__(self) -> None:
        if self.still_frames < 1 or not 0 <= self.zones <= 4 or not 0 < self.paper < 1 or self.motion <= 0:
            raise InvalidInput(f"watch settings out of range: {self}")


@dataclass(frozen=True, slots=True)
class Watch:
    """What the watcher made of one frame."""

    motion: float
    still_for: int
    zones_with_cards: int | None
    """None when the mat is not placed (no calibration yet)."""
    read: bool


class Watcher:
    """Feed it every frame (:meth:`feed`); ``read`` is True once per still table with cards."""

    def __init__(self, settings: WatchSettings | None = None, mat: Mat | None = None) -> None:
        self.settings = settings or WatchSettings()
        self.mat = mat or Mat()
        self._prev: npt.NDArray[np.float32] | None = None
        self._still = 0
        self._armed = True

    def rearm(self) -> None:
        """Allow a read of the table as it lies now (after «leer» was refused, say)."""
        self._armed = True

    def feed(self, frame: Image, calibration: Calibration | None = None) -> Watch:
        s = self.settings
        small = cv2.resize(_gray(frame), (SMALL, SMALL), interpolation=cv2.INTER_AREA).astype(np.float32)
        motion = 255.0 if self._prev is None else float(np.mean(np.abs(small - self._prev)))
        self._prev = small
        if motion >= s.motion:
            self._still = 0
            self._armed = True
        else:
            self._still += 1
        zones = None if calibration is None else self.zones_with_cards(frame, calibration)
        enough = zones >= s.zones if zones is not None else s.zones == 0
        read = self._armed and self._still >= s.still_frames and enough
        if read:
            self._armed = False
        return Watch(motion, self._still, zones, read)

    def zones_with_cards(self, frame: Image, calibration: Calibration) -> int:
        """How many card zones hold something that is not felt (cards, face up or down)."""
        h, w = frame.shape[:2]
        m = self.mat
        c = m.side / 2
        # free felt: a band between seat 2's card zone and the pool
        band = calibration.to_image([[c - 70 * m.scale, c - 205 * m.scale], [c + 70 * m.scale, c - 205 * m.scale],
                                     [c + 70 * m.scale, c - 125 * m.scale], [c - 70 * m.scale, c - 125 * m.scale]])
        felt_px = _pixels(frame, band)
        if felt_px.size == 0:
            return 0
        felt = np.median(felt_px, axis=0)
        n = 0
        for seat in range(4):
            x0, y0, x1, y1 = m.card_zone(seat)
            quad = calibration.to_image([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
            px = _pixels(frame, quad)
            if px.size == 0:
                continue
            far = np.max(np.abs(px.astype(np.float32) - felt), axis=1) > self.settings.felt_distance
            n += float(np.mean(far)) >= self.settings.paper
        return n


def _gray(frame: Image) -> Image:
    if frame.ndim == 2:
        return frame
    return np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8)


def _pixels(frame: Image, quad: npt.NDArray[np.float64]) -> npt.NDArray[np.uint8]:
    """The pixels inside a quadrilateral (every other row and column: enough to judge)."""
    h, w = frame.shape[:2]
    x0, y0 = np.clip(np.floor(quad.min(axis=0)).astype(int), 0, [w, h])
    x1, y1 = np.clip(np.ceil(quad.max(axis=0)).astype(int) + 1, 0, [w, h])
    if x1 - x0 < 2 or y1 - y0 < 2:
        return np.zeros((0, 3), np.uint8)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad - [x0, y0]).astype(np.int32), 255)
    crop = frame[y0:y1, x0:x1]
    if crop.ndim == 2:
        crop = np.asarray(cv2.cvtColor(crop, cv2.COLOR_GRAY2BGR), np.uint8)
    sel = mask[::2, ::2] > 0
    return np.asarray(crop[::2, ::2][sel], np.uint8)
