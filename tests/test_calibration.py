"""Calibration from the mat's ArUco markers: any three place the mat, fewer leave it stale."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.calibration import (
    Calibrator,
    _refine_full,
    calibrate,
    detect_markers,
    fit,
    marker_blur_mm,
)
from vision.mat import Mat

K = 2.0  # px per mm of the flat mat drawing


MARGIN = 30.0  # felt around the play area, mm (the markers' quiet zones reach past its edge)


def flat_mat(felt: tuple[int, int, int] = (40, 110, 30), hide: tuple[int, ...] = ()) -> np.ndarray:
    """A plain mat drawn top-down at K px/mm: felt, white quiet zones, the four markers.

    Pixel (i, j) is mat point ((j - MARGIN * K) / K, (i - MARGIN * K) / K), pixel centres at integers.
    """
    mat = Mat()
    side = int((mat.side + 2 * MARGIN) * K)
    img = np.full((side, side, 3), felt, np.uint8)
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    off = int(MARGIN * K)
    for mid in range(4):
        (x0, y0), _, (x1, y1), _ = mat.marker_corners(mid)
        a, b = int(x0 * K) + off, int(y0 * K) + off
        n = int((x1 - x0) * K)
        q = int(12 * K)
        img[b - q:b + n + q, a - q:a + n + q] = 255
        if mid not in hide:
            img[b:b + n, a:a + n] = cv2.cvtColor(cv2.aruco.generateImageMarker(d, mid, n),
                                                 cv2.COLOR_GRAY2BGR)
    return img


def camera(angle_deg: float, tilt_deg: float = 0.0, scale: float = 1.3,
           size: tuple[int, int] = (1600, 1600)) -> np.ndarray:
    """A homography mat mm -> image px: a camera turned by angle, tilted, at scale px/mm."""
    w, h = size
    a = np.deg2rad(angle_deg)
    rot = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
    centre = np.array([[1, 0, -400], [0, 1, -400], [0, 0, 1]], dtype=np.float64)
    t = np.deg2rad(tilt_deg)
    # a tilt about the image's x axis: a keystone whose strength grows with the tilt
    persp = np.array([[1, 0, 0], [0, 1, 0], [0, np.sin(t) / 900.0, 1]])
    out = np.array([[scale, 0, w / 2], [0, scale, h / 2], [0, 0, 1]])
    return out @ persp @ rot @ centre


def shoot(flat: np.ndarray, mat_to_image: np.ndarray, size: tuple[int, int] = (1600, 1600),
          background: int = 90) -> np.ndarray:
    to_flat = np.array([[K, 0, MARGIN * K - 0.5], [0, K, MARGIN * K - 0.5], [0, 0, 1]])
    m = mat_to_image @ np.linalg.inv(to_flat)
    return cv2.warpPerspective(flat, m, size, borderMode=cv2.BORDER_CONSTANT,
                               borderValue=(background,) * 3)


def check_maps_like(cal_h: np.ndarray, truth_mat_to_image: np.ndarray, tol_mm: float) -> None:
    pts = np.array([[x, y] for x in (0, 200, 400, 600, 800) for y in (0, 200, 400, 600, 800)],
                   dtype=np.float64)
    img = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), truth_mat_to_image)
    back = cv2.perspectiveTransform(img, cal_h).reshape(-1, 2)
    assert np.abs(back - pts).max() < tol_mm


@pytest.mark.parametrize("angle", [0, 37, 90, 180, 251])
def test_all_four_markers_place_the_mat_at_any_turn(angle: float) -> None:
    h = camera(angle)
    cal = calibrate(shoot(flat_mat(), h))
    assert cal is not None and cal.markers == (0, 1, 2, 3)
    check_maps_like(cal.image_to_mat, h, tol_mm=1.0)
    assert cal.residual_mm < 1.0
    assert cal.px_per_mm() == pytest.approx(1.3, rel=0.05)


@pytest.mark.parametrize("tilt", [-15, 8, 15])
def test_tilted_camera(tilt: float) -> None:
    h = camera(63, tilt_deg=tilt)
    cal = calibrate(shoot(flat_mat(), h))
    assert cal is not None
    check_maps_like(cal.image_to_mat, h, tol_mm=1.5)


@pytest.mark.parametrize("hidden", [0, 1, 2, 3])
def test_three_markers_are_enough(hidden: int) -> None:
    h = camera(20, tilt_deg=10)
    cal = calibrate(shoot(flat_mat(hide=(hidden,)), h))
    assert cal is not None and hidden not in cal.markers and len(cal.markers) == 3
    check_maps_like(cal.image_to_mat, h, tol_mm=2.0)  # the hidden marker's own corner is extrapolated


def test_two_markers_are_stale_and_the_last_good_calibration_is_kept() -> None:
    h = camera(-30)
    calibrator = Calibrator()
    first = calibrator.update(shoot(flat_mat(hide=(1, 2)), h))
    assert first.stale and first.calibration is None  # a lone frame: nothing to fall back on
    good = calibrator.update(shoot(flat_mat(), h))
    assert not good.stale and good.calibration is not None
    later = calibrator.update(shoot(flat_mat(hide=(0, 3)), h))
    assert later.stale and later.seen == (1, 2)
    assert later.calibration is good.calibration


def test_black_frame_has_no_markers() -> None:
    frame = np.zeros((720, 1280, 3), np.uint8)
    assert detect_markers(frame) == {}
    assert calibrate(frame) is None


def test_a_marker_found_in_the_wrong_place_is_dropped_from_the_fit() -> None:
    h = camera(10)
    found = detect_markers(shoot(flat_mat(), h))
    assert set(found) == {0, 1, 2, 3}
    found[2] = found[2] + np.array([-500.0, 300.0])  # a false detection far from its corner
    cal = fit(found)
    assert cal is not None and cal.markers == (0, 1, 3)
    check_maps_like(cal.image_to_mat, h, tol_mm=1.5)


def test_a_mirrored_view_is_refused() -> None:
    h = camera(0)
    flip = np.array([[-1, 0, 1600], [0, 1, 0], [0, 0, 1]], dtype=np.float64)
    found = detect_markers(shoot(flat_mat(), h))
    mirrored = {i: cv2.perspectiveTransform(c.reshape(-1, 1, 2), flip).reshape(4, 2)
                for i, c in found.items()}
    assert fit(mirrored) is None


def test_large_frames_are_refined_at_full_resolution() -> None:
    size = (2800, 2400)
    h = camera(45, scale=2.0, size=size)
    cal = calibrate(shoot(flat_mat(), h, size=size))
    assert cal is not None
    check_maps_like(cal.image_to_mat, h, tol_mm=0.8)


def test_a_corner_refined_in_its_crop_is_refined_as_on_the_whole_frame() -> None:
    size = (2800, 2400)
    frame = shoot(flat_mat(), camera(10, tilt_deg=10, scale=1.8, size=size), size=size)
    found = detect_markers(frame)
    assert len(found) == 4
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    for mid, corners in found.items():
        start = corners + np.array([[1.4, -1.1], [-0.9, 1.3], [1.2, 0.8], [-1.3, -0.7]])
        whole = start.astype(np.float32).reshape(-1, 1, 2)
        side = float(np.linalg.norm(start[0] - start[2])) / 1.414
        win = int(max(2, min(8, side / 12)))
        cv2.cornerSubPix(gray, whole, (win, win), (-1, -1),
                         (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 30, 0.01))
        refined = _refine_full(frame, mid, start)
        assert np.abs(refined - whole.reshape(4, 2)).max() < 1e-3  # the same pixels read, the same corners
        assert np.abs(refined - corners).max() < 0.3  # and back where they were found from 1.5 px off


def test_rectify_puts_the_centre_in_the_middle() -> None:
    h = camera(120)
    frame = shoot(flat_mat(), h)
    cal = calibrate(frame)
    assert cal is not None
    top = cal.rectify(frame, 1.0)
    assert top.shape[:2] == (800, 800)
    assert top[25, 25].tolist() == [0, 0, 0] or top[25, 25].sum() < 150  # marker 3 top-left
    assert top[400, 400].tolist() == pytest.approx([40, 110, 30], abs=3)


@pytest.mark.parametrize("blur_px", [0.0, 1.2])
def test_the_markers_edges_measure_how_blurred_a_frame_is(blur_px: float) -> None:
    h = camera(0, tilt_deg=8, scale=1.45)  # a 2304 x 1296 frame's resolution
    frame = shoot(flat_mat(), h)
    if blur_px:
        frame = cv2.GaussianBlur(frame, (0, 0), blur_px)
    cal = calibrate(frame)
    assert cal is not None
    got = marker_blur_mm(frame, cal)
    assert got is not None
    # the blur in mm, with the frame's own pixels' (about half a px, 0.34 mm here; it adds in squares)
    want = float(np.hypot(blur_px, 0.5)) / 1.45
    assert abs(got - want) < 0.1, (got, want)


def test_a_frame_blurred_more_measures_more() -> None:
    h = camera(180, tilt_deg=-12, scale=2.9, size=(2600, 2600))  # a full-resolution still's
    frame = shoot(flat_mat(), h, size=(2600, 2600))
    cal = calibrate(frame)
    assert cal is not None
    blurs = [marker_blur_mm(cv2.GaussianBlur(frame, (0, 0), s) if s else frame, cal) for s in (0.0, 1.0, 2.0)]
    assert all(b is not None for b in blurs)
    a, b, c = (float(x or 0.0) for x in blurs)
    assert a + 0.1 < b and b + 0.15 < c  # 1 px more is 0.34 mm more at 2.9 px/mm (less the own px, in squares)
