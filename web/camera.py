"""The camera picture for the web: the latest frame with the zones and what was read drawn on it.

One :class:`Picture` per app encodes a JPEG only when the loop has a new
frame and somebody asks for it, and every viewer of ``/stream.mjpg`` or
``/frame.jpg`` shares that one encoding (a Pi must not encode once per
phone). The drawing is :func:`vision.overlay.draw_view`: markers, the mat's
zones and seats, and the stone counts of the latest reading.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import cv2
import numpy as np

from vision.calibration import Calibrator
from vision.mat import Mat
from vision.overlay import ViewLabels, draw_view
from web.strings import texts

MAX_WIDTH = 960
"""Pictures are scaled down to this width: enough for a 1080p overlay's inset and a phone."""
JPEG_QUALITY = 75
BOUNDARY = "frame"
RESEND_S = 5.0


def view_labels(lang: str = "es") -> ViewLabels:
    """The words drawn on the camera's picture (:mod:`web.strings`), seats 1-4. OpenCV's
    font draws ASCII alone, so these words carry no accent."""
    t = texts(lang)
    return ViewLabels(t["view_seat"], t["view_pool"], t["view_no_mat"], t["view_stale"], first_seat=1)


class Picture:
    """The latest frame of ``loop`` as a JPEG, drawn and encoded at most once per frame."""

    def __init__(self, loop: Any, *, mat: Mat | None = None, max_width: int = MAX_WIDTH,
                 labels: ViewLabels | None = None) -> None:
        self.loop = loop
        self.labels = labels or view_labels()
        self.mat = mat or getattr(loop, "mat", None) or Mat()
        self.max_width = max_width
        self._calibrator = Calibrator(self.mat)
        self._lock = threading.Lock()
        self._frame_id: int | None = None
        self._jpeg: bytes | None = None

    def jpeg(self) -> bytes | None:
        """The JPEG of the latest frame (None when the loop has none)."""
        frame = self.loop.latest_frame()
        if frame is None:
            return None
        with self._lock:
            if self._frame_id != id(frame) or self._jpeg is None:
                self._jpeg = self._encode(frame)
                self._frame_id = id(frame)
            return self._jpeg

    def _encode(self, frame: np.ndarray) -> bytes:
        state = self._calibrator.update(frame)
        reading = self.loop.latest_reading()
        img = draw_view(frame, state.calibration, reading, mat=self.mat, labels=self.labels)
        h, w = img.shape[:2]
        if w > self.max_width:
            img = np.asarray(cv2.resize(img, (self.max_width, int(h * self.max_width / w)),
                                        interpolation=cv2.INTER_AREA), np.uint8)
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        if not ok:  # pragma: no cover - OpenCV encodes any 8-bit image
            raise RuntimeError("JPEG encoding failed")
        return bytes(buf)

    def mjpeg(self, fps: float = 2.0, limit: int | None = None) -> Iterator[bytes]:
        """A multipart stream of the pictures, ``fps`` a second (``limit`` parts, for tests)."""
        sent = 0
        last: bytes | None = None
        last_at = 0.0
        while limit is None or sent < limit:
            jpeg = self.jpeg()
            now = time.monotonic()
            # a new picture, or the same again every few seconds (a closed viewer is noticed)
            if jpeg is not None and (jpeg is not last or now - last_at >= RESEND_S):
                last, last_at = jpeg, now
                sent += 1
                yield (f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\n"
                       f"Content-Length: {len(jpeg)}\r\n\r\n").encode() + jpeg + b"\r\n"
            elif limit is not None and jpeg is None:
                return
            time.sleep(1.0 / fps)
