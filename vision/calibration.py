"""Placing the mat in a camera frame from its four ArUco markers.

The markers (:data:`vision.mat.ARUCO_DICTIONARY`, ids 0-3, geometry in :meth:`vision.mat.Mat.marker_corners`)
give sixteen known mat points; any three markers (twelve points) fix the
homography from image pixels to mat millimetres, whatever the camera's height,
turn or tilt. With fewer than three the mat is not placed: a :class:`Calibrator`
keeps the last good calibration and says that it is stale.

>>> cal = calibrate(frame)                       # doctest: +SKIP
>>> cal.to_mat([[1152, 648]])                    # doctest: +SKIP
array([[400.2, 399.7]])
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

from vision.mat import MARKER_IDS, Mat, aruco_dictionary

FloatArray = npt.NDArray[np.float64]
Image = npt.NDArray[np.uint8]

MIN_MARKERS = 3
"""Markers needed to place the mat (spec: any three are enough)."""

MAX_RESIDUAL_MM = 4.0
"""A marker whose corners land further than this from where the fit puts them is a misread."""

DETECT_MAX_SIDE = 1100
"""Frames larger than this (longest side, px) are searched at a reduced scale, then refined at full scale."""


ADAPTIVE_WINDOWS = (13, 23, 10)
"""The detector's adaptive-threshold windows (least, most, step, px): two passes, 13 and 23.

OpenCV's default also thresholds with a 3 px window, which only finds
markers whose cells are about 3 px: ours are 5-9 px at the searched scale
(50 mm markers at 1.2 px/mm or finer, frames searched at up to
:data:`DETECT_MAX_SIDE`). Dropping it lost no marker of 480 rendered
frames (light, tilt, glare, blur, hands; live and full-resolution),
nor of 120 of them searched at half that scale, and saves a third of
the search."""


def _detector() -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.adaptiveThreshWinSizeMin, params.adaptiveThreshWinSizeMax, params.adaptiveThreshWinSizeStep = \
        ADAPTIVE_WINDOWS
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    params.cornerRefinementWinSize = 3
    params.cornerRefinementMaxIterations = 40
    params.cornerRefinementMinAccuracy = 0.01
    return cv2.aruco.ArucoDetector(aruco_dictionary(), params)


_DETECTOR: cv2.aruco.ArucoDetector | None = None


def _get_detector() -> cv2.aruco.ArucoDetector:
    global _DETECTOR
    if _DETECTOR is None:
        _DETECTOR = _detector()
    return _DETECTOR


def to_gray(image: Image) -> Image:
    """A single-channel view of a BGR (or already grey) frame."""
    if image.ndim == 2:
        return image
    return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), dtype=np.uint8)


def detect_markers(image: Image) -> dict[int, FloatArray]:
    """The mat markers seen in a frame: id -> its four corners (4 x 2, image px, OpenCV order).

    Only ids 0-3 are kept; an id seen twice is ambiguous and dropped. Large
    frames are searched at a reduced scale and the corners refined on the full
    frame (sub-pixel), which is both faster and as precise. The reduced frame
    is first sampled (:func:`_reduced_gray`); where that misses a marker it is
    searched again smoothed (the whole frame grey, reduced bilinearly), which
    finds more on sharp, steeply tilted frames.
    """
    h, w = image.shape[:2]
    scale = min(1.0, DETECT_MAX_SIDE / max(h, w))
    if scale == 1.0:
        return _markers_in(to_gray(image), image, 1.0)
    size = (round(w * scale), round(h * scale))
    found = _markers_in(_reduced_gray(image, size), image, scale)
    if len(found) < len(MARKER_IDS):
        smooth = cv2.resize(to_gray(image), size, interpolation=cv2.INTER_LINEAR)
        again = _markers_in(np.asarray(smooth, np.uint8), image, scale)
        if len(again) > len(found):
            found = again
    return found


def _markers_in(small: Image, image: Image, scale: float) -> dict[int, FloatArray]:
    """The markers found in ``small`` (``image`` reduced by ``scale``), refined on ``image``."""
    corners, ids, _ = _get_detector().detectMarkers(small)
    found: dict[int, FloatArray] = {}
    if ids is None:
        return found
    seen: dict[int, int] = {}
    for marker_id in ids.ravel().tolist():
        seen[int(marker_id)] = seen.get(int(marker_id), 0) + 1
    for quad, marker_id in zip(corners, ids.ravel().tolist(), strict=True):
        mid = int(marker_id)
        if mid not in MARKER_IDS or seen[mid] > 1:
            continue
        pts = (np.asarray(quad, dtype=np.float64).reshape(4, 2) + 0.5) / scale - 0.5
        if scale != 1.0:
            pts = _refine_full(image, mid, pts)
        found[mid] = pts
    return found


def _reduced_gray(image: Image, size: tuple[int, int]) -> Image:
    """The frame in grey at ``size``: the nearest pixel to each of its pixels' centres, then grey.

    Only the pixels kept are turned grey: the whole 11 Mpx frame's grey cost
    5-6 ms a read, its bilinear reduction 1.3 more; this ~1.5 ms. The corners
    found on it are refined on the full frame (:func:`_refine_full`), where
    the search's own sub-pixel corners only start the refinement.
    """
    return to_gray(np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_NEAREST_EXACT), np.uint8))


REFINE_MARGIN = 4
"""The full frame is turned grey only around a marker's corners, this many refinement windows beyond them.

The refinement (:func:`cv2.cornerSubPix`) reads a window (plus a pixel) around
its running estimate and gives up a point that ends further than a window from
where it started: but for a runaway refinement, the pixels it reads lie well inside such a crop."""


def _refine_full(image: Image, marker_id: int, pts: FloatArray) -> FloatArray:
    """Refine a marker's corners found in the reduced frame on the full frame (sub-pixel).

    Only a crop around the corners is turned grey: the same grey pixels there as the whole frame's.
    """
    side = float(np.linalg.norm(pts[0] - pts[2])) / 1.414
    win = int(max(2, min(8, side / 12)))
    h, w = image.shape[:2]
    m = REFINE_MARGIN * win + 2
    x0, y0 = max(0, int(np.floor(pts[:, 0].min())) - m), max(0, int(np.floor(pts[:, 1].min())) - m)
    x1, y1 = min(w, int(np.ceil(pts[:, 0].max())) + m + 1), min(h, int(np.ceil(pts[:, 1].max())) + m + 1)
    if x1 <= x0 or y1 <= y0:
        return pts
    gray = np.ascontiguousarray(to_gray(image[y0:y1, x0:x1]))
    fine = (pts - (x0, y0)).astype(np.float32).reshape(-1, 1, 2)
    cv2.cornerSubPix(gray, fine, (win, win), (-1, -1),
                     (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 30, 0.01))
    out = np.asarray(fine, dtype=np.float64).reshape(4, 2) + (x0, y0)
    moved = np.linalg.norm(out - pts, axis=1).max()
    return out if moved < 0.75 * win else pts


@dataclass(frozen=True)
class Calibration:
    """Where the mat lies in one camera's frames: the homography image px -> mat mm."""

    image_to_mat: FloatArray
    markers: tuple[int, ...]
    """The marker ids the fit used."""
    residual_mm: float
    """Root-mean-square distance between the markers' known corners and where the fit puts them."""
    mat: Mat = field(default_factory=Mat)

    @property
    def mat_to_image(self) -> FloatArray:
        return np.asarray(np.linalg.inv(self.image_to_mat), dtype=np.float64)

    def to_mat(self, points: npt.ArrayLike) -> FloatArray:
        """Image pixels (N x 2) to mat millimetres (N x 2)."""
        return _apply(self.image_to_mat, points)

    def to_image(self, points: npt.ArrayLike) -> FloatArray:
        """Mat millimetres (N x 2) to image pixels (N x 2)."""
        return _apply(self.mat_to_image, points)

    def px_per_mm(self) -> float:
        """The camera's resolution at the centre of the mat (pixels per millimetre of mat)."""
        cx, cy = self.mat.centre
        p = self.to_image([[cx - 50, cy], [cx + 50, cy], [cx, cy - 50], [cx, cy + 50]])
        return float((np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[3] - p[2])) / 200.0)

    def rectify(self, image: Image, px_per_mm: float,
                region: tuple[float, float, float, float] | None = None,
                interpolation: int = cv2.INTER_LINEAR) -> Image:
        """A top-down view of (a region of) the mat at ``px_per_mm``.

        ``region`` is ``(x0, y0, x1, y1)`` in mat mm (the whole mat by default);
        pixel (i, j) of the result is mat point (x0 + (j + 0.5) / k, y0 + (i + 0.5) / k).
        """
        x0, y0, x1, y1 = region if region is not None else (0.0, 0.0, self.mat.side, self.mat.side)
        k = px_per_mm
        # mat mm -> rectified px
        to_rect = np.array([[k, 0, -k * x0 - 0.5], [0, k, -k * y0 - 0.5], [0, 0, 1]], dtype=np.float64)
        m = to_rect @ self.image_to_mat
        size = (max(1, round((x1 - x0) * k)), max(1, round((y1 - y0) * k)))
        return np.asarray(cv2.warpPerspective(image, m, size, flags=interpolation,
                                              borderMode=cv2.BORDER_REPLICATE), dtype=np.uint8)


def _apply(h: FloatArray, points: npt.ArrayLike) -> FloatArray:
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2)
    if len(pts) == 0:
        return np.zeros((0, 2), dtype=np.float64)
    return np.asarray(cv2.perspectiveTransform(pts, h), dtype=np.float64).reshape(-1, 2)


def fit(markers: dict[int, FloatArray], mat: Mat | None = None) -> Calibration | None:
    """The homography from the markers' corners, or None when fewer than three agree.

    All corners of all markers go into one least-squares fit; a marker that
    then lies more than :data:`MAX_RESIDUAL_MM` off (a misread, a marker that
    was moved) is dropped and the fit redone while three or more remain.
    """
    mat = mat or Mat()
    ids = sorted(markers)
    while len(ids) >= MIN_MARKERS:
        src = np.concatenate([markers[i] for i in ids]).astype(np.float64)
        dst = np.concatenate([np.asarray(mat.marker_corners(i), dtype=np.float64) for i in ids])
        found, _ = cv2.findHomography(src, dst, 0)
        if found is None or not np.all(np.isfinite(found)):
            return None
        h = np.asarray(found, dtype=np.float64)
        proj = _apply(h, src)
        err = np.linalg.norm(proj - dst, axis=1).reshape(len(ids), 4).max(axis=1)
        worst = int(np.argmax(err))
        if err[worst] <= MAX_RESIDUAL_MM * mat.scale:
            if not _orientation_ok(h, mat):
                return None
            rms = float(np.sqrt(np.mean(np.sum((proj - dst) ** 2, axis=1))))
            return Calibration(h, tuple(ids), rms, mat)
        del ids[worst]
    return None


def _orientation_ok(h: FloatArray, mat: Mat) -> bool:
    """The mat seen from above, not mirrored, and the whole of it in front of the camera."""
    inv = np.linalg.inv(h)
    s = mat.side
    corners = np.array([[0, 0, 1], [s, 0, 1], [s, s, 1], [0, s, 1]], dtype=np.float64)
    w = corners @ inv.T
    if not (np.all(w[:, 2] > 0) or np.all(w[:, 2] < 0)):
        return False  # the horizon crosses the mat
    img = w[:, :2] / w[:, 2:3]
    area = 0.5 * sum(img[i, 0] * img[(i + 1) % 4, 1] - img[(i + 1) % 4, 0] * img[i, 1] for i in range(4))
    return bool(area > 0)  # clockwise on screen as on the mat (y down in both)


def calibrate(image: Image, mat: Mat | None = None) -> Calibration | None:
    """Place the mat in one frame; None when fewer than three markers are found."""
    return fit(detect_markers(image), mat)


@dataclass(frozen=True)
class CalibrationState:
    """The calibration to read a frame with, and whether it came from an earlier frame."""

    calibration: Calibration | None
    stale: bool
    seen: tuple[int, ...]
    """Marker ids found in this frame."""


class Calibrator:
    """Calibrates frame after frame, keeping the last good calibration when markers are hidden.

    >>> cal = Calibrator()
    >>> state = cal.update(frame)                 # doctest: +SKIP
    >>> state.stale, state.calibration is None    # doctest: +SKIP
    (False, False)
    """

    def __init__(self, mat: Mat | None = None) -> None:
        self.mat = mat or Mat()
        self.last: Calibration | None = None

    def update(self, image: Image) -> CalibrationState:
        markers = detect_markers(image)
        cal = fit(markers, self.mat)
        if cal is not None:
            self.last = cal
            return CalibrationState(cal, False, tuple(sorted(markers)))
        return CalibrationState(self.last, True, tuple(sorted(markers)))

    def reset(self) -> None:
        """Forget the last good calibration (the camera was moved)."""
        self.last = None


@dataclass(frozen=True, slots=True)
class BlurGauge:
    """How :func:`marker_blur_mm` measures a frame's blur: across the markers' outer edges.

    Each marker's black square lies on its white quiet zone: a printed step
    from black to white, on the table's own plane, wherever the mat is. Its
    profile across the edge, blurred by a Gaussian of sigma s, rises from a
    quarter to three quarters of the step over 1.349 s.
    """

    reach_mm: float = 4.0
    """Each profile runs this far into the square (its border cell is 8 mm) and out into the quiet zone (10 mm
    or more): its ends, a fifth of it each, lie clear of an edge blurred by up to 1.4 mm (2 px at 1.45 px/mm)."""
    step_mm: float = 0.1
    """Spacing of a profile's samples (0.15-0.3 px at 1.45-2.9 px/mm)."""
    along: int = 16
    """Profiles per side of a marker ..."""
    span: tuple[float, float] = (0.2, 0.8)
    """... spread over this middle share of it (clear of the corners)."""
    least_contrast: float = 40.0
    """Least grey levels between a profile's black end and its white end (a glare or a shadow over it: not counted)."""


BLUR_GAUGE = BlurGauge()
_QUARTILE_RISE = 1.349
"""A Gaussian-blurred step rises from 25 % to 75 % over this many sigmas."""


def marker_blur_mm(image: Image, cal: Calibration, gauge: BlurGauge = BLUR_GAUGE) -> float | None:
    """How blurred a frame is at the mat, in mm: the median sigma of the markers' edges (``None``: none measured).

    It includes the frame's own pixels (about half a pixel's sigma in a frame
    rendered without blur). Learning a deck keeps it, so that a finer frame
    read later can be blurred as the learning frames were
    (:meth:`vision.learnt.LearntClassifier.as_learnt`).
    """
    grey = to_gray(image).astype(np.float32)
    s = np.arange(-gauge.reach_mm, gauge.reach_mm + gauge.step_mm / 2, gauge.step_mm)
    ends = max(1, len(s) // 5)
    sigmas: list[float] = []
    for mid in cal.markers:
        c = np.asarray(cal.mat.marker_corners(mid), np.float64)
        centre = c.mean(axis=0)
        for j in range(4):
            a, b = c[j], c[(j + 1) % 4]
            t = (b - a) / np.linalg.norm(b - a)
            n = np.array([-t[1], t[0]])
            if n @ ((a + b) / 2 - centre) < 0:
                n = -n  # outwards: from the black square into the quiet zone
            f = np.linspace(*gauge.span, gauge.along)
            pts = (a + f[:, None] * (b - a))[:, None, :] + s[None, :, None] * n
            xy = cal.to_image(pts.reshape(-1, 2)).astype(np.float32).reshape(gauge.along, len(s), 2)
            profiles = cv2.remap(grey, xy[..., 0], xy[..., 1], cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=-1.0)
            for p in profiles:
                sigma = _edge_sigma(p, s, ends, gauge.least_contrast)
                if sigma is not None:
                    sigmas.append(sigma)
    return float(np.median(sigmas)) if sigmas else None


def _edge_sigma(p: npt.NDArray[np.float32], s: FloatArray, ends: int, least: float) -> float | None:
    """The sigma of one dark-to-light edge profile ``p`` sampled at ``s`` (mm); ``None`` where it is no clear step."""
    if float(p.min()) < 0:
        return None  # beyond the frame
    lo, hi = float(np.median(p[:ends])), float(np.median(p[-ends:]))
    if hi - lo < least:
        return None
    e = (p - lo) / (hi - lo)

    def rise(v: float) -> float | None:
        i = int(np.argmax(e >= v))
        if i == 0 or e[i] <= e[i - 1]:
            return None
        return float(s[i - 1] + (v - e[i - 1]) / (e[i] - e[i - 1]) * (s[i] - s[i - 1]))

    q1, q3 = rise(0.25), rise(0.75)
    if q1 is None or q3 is None or q3 < q1:
        return None
    return (q3 - q1) / _QUARTILE_RISE
