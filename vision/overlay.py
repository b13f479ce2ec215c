"""The calibration view: what the reader sees, drawn over the camera frame, to aim the camera.

Markers found (green, with their ids), the play area's outline, every zone
and seat label as the calibration places them, and — when a reading is
given — the cards found (green when read, orange when unknown) and the stone
counts. An installer moves the camera until the outline sits on the mat.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.calibration import Calibration, detect_markers
from vision.mat import Mat
from vision.reading import Detail, Reading

Image = npt.NDArray[np.uint8]


@dataclass(frozen=True, slots=True)
class ViewLabels:
    """The words drawn on the picture: the edges pass their own language's (``web/strings.py``),
    so the reader holds no sentence a person sees. ``{n}`` is the number.

    ``first_seat``: the number the first seat is given (1 where people read it).
    OpenCV's font draws ASCII only: words without accents.
    """

    seat: str
    pool: str
    no_mat: str
    stale: str
    first_seat: int = 1

GREEN = (60, 200, 60)
YELLOW = (0, 220, 255)
ORANGE = (0, 140, 255)
RED = (40, 40, 230)
WHITE = (255, 255, 255)


def _poly(img: Image, cal: Calibration, pts_mm: npt.ArrayLike, colour: tuple[int, int, int],
          thickness: int) -> None:
    pts = cal.to_image(np.asarray(pts_mm, np.float64))
    cv2.polylines(img, [np.round(pts).astype(np.int32)], True, colour, thickness, cv2.LINE_AA)


def _rect(r: tuple[float, float, float, float], n: int = 4) -> npt.NDArray[np.float64]:
    """A rectangle's outline with intermediate points, so that a tilted view stays straight."""
    x0, y0, x1, y1 = r
    t = np.linspace(0, 1, n, endpoint=False)
    top = np.stack([x0 + (x1 - x0) * t, np.full_like(t, y0)], 1)
    right = np.stack([np.full_like(t, x1), y0 + (y1 - y0) * t], 1)
    bottom = np.stack([x1 - (x1 - x0) * t, np.full_like(t, y1)], 1)
    left = np.stack([np.full_like(t, x0), y1 - (y1 - y0) * t], 1)
    return np.concatenate([top, right, bottom, left])


def _text(img: Image, text: str, at: npt.ArrayLike, colour: tuple[int, int, int], scale: float) -> None:
    x, y = (int(round(v)) for v in np.asarray(at, np.float64).ravel()[:2])
    size, _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
    org = (x - size[0] // 2, y + size[1] // 2)
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 4, cv2.LINE_AA)
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 2, cv2.LINE_AA)


def draw_view(frame: Image, calibration: Calibration | None, reading: Reading | None = None,
              detail: Detail | None = None, mat: Mat | None = None, *, labels: ViewLabels) -> Image:
    """The frame with markers, mat outline, zones, seat labels, cards and stone counts drawn on it."""
    mat = mat or (calibration.mat if calibration is not None else Mat())
    img = np.asarray(cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR) if frame.ndim == 2 else frame.copy(), np.uint8)
    scale = max(0.5, min(img.shape[:2]) / 1400)
    thick = max(1, int(round(2 * scale)))
    for mid, corners in detect_markers(frame).items():
        cv2.polylines(img, [np.round(corners).astype(np.int32)], True, GREEN, thick + 1, cv2.LINE_AA)
        cv2.circle(img, tuple(int(v) for v in np.round(corners[0])), 3 * thick, RED, -1)
        _text(img, f"{mid}", corners.mean(axis=0), GREEN, scale)
    if calibration is None:
        _text(img, labels.no_mat, (img.shape[1] / 2, img.shape[0] / 2), RED, scale)
        return img
    cal = calibration
    _poly(img, cal, _rect((0.0, 0.0, mat.side, mat.side), 16), YELLOW, thick + 1)
    for seat in range(4):
        _poly(img, cal, _rect(mat.card_zone(seat)), WHITE, thick)
        _poly(img, cal, _rect(mat.stone_zone(seat)), WHITE, thick)
        x0, y0, x1, y1 = mat.card_zone(seat)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        # the label just outside the card zone, towards the seat's edge
        ox, oy = mat.centre
        dx, dy = cx - ox, cy - oy
        n = max(1e-6, float(np.hypot(dx, dy)))
        label = cal.to_image([[cx + dx / n * 40, cy + dy / n * 40]])[0]
        _text(img, labels.seat.format(n=seat + labels.first_seat), label, YELLOW, scale)
    t = np.linspace(0, 2 * np.pi, 72, endpoint=False)
    cx, cy = mat.centre
    circle = np.stack([cx + mat.pool_radius * np.cos(t), cy + mat.pool_radius * np.sin(t)], 1)
    _poly(img, cal, circle, WHITE, thick)
    if detail is not None:
        for obj, pred in zip(detail.objects, detail.predictions, strict=False):
            colour = GREEN if pred is not None and pred.sure() else ORANGE
            if obj.why is not None or obj.seat is None:
                colour = RED
            _poly(img, cal, obj.quad, colour, thick + 1)
            if pred is not None:
                _text(img, str(pred.card), cal.to_image([obj.centre])[0], colour, scale * 0.9)
        if detail.stones is not None:
            for s in detail.stones.stones:
                p = cal.to_image([[s.x, s.y]])[0]
                cv2.circle(img, (int(p[0]), int(p[1])), 3 * thick, GREEN if s.zone else RED, -1)
    if reading is not None:
        _text(img, labels.pool.format(n=reading.stones.pool), cal.to_image([[cx, cy + mat.pool_radius + 20]])[0],
              YELLOW, scale)
        for seat in range(4):
            x0, y0, x1, y1 = mat.stone_zone(seat)
            at = cal.to_image([[(x0 + x1) / 2, (y0 + y1) / 2]])[0]
            _text(img, str(reading.stones.seats[seat]), at, YELLOW, scale * 1.3)
        if reading.stale:
            _text(img, labels.stale, (img.shape[1] / 2, 40 * scale), RED, scale * 1.5)
    return img
