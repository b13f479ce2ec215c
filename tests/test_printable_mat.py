"""The printed mat must be the mat of docs/mat.md: measured, not trusted.

Each test renders the mat, finds what a camera or a ruler would find (ArUco
markers with cv2.aruco, zone outlines by their colour, crosshairs on tiles) and
compares it with vision.mat.Mat to within 1 mm. The PDF is read back with pypdf.
"""

from __future__ import annotations

import math
import re
import struct
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pypdf import PageObject, PdfReader

from firmware.cli import main
from hardware import printable_mat as pm
from vision.mat import MARKER_IDS, MARKER_MM, MAX_SIDE_MM, MIN_SIDE_MM, Mat, aruco_dictionary

TOL_MM = 1.0
PPM = 4.0  # px per mm of the test renders


# --- measuring ---------------------------------------------------------------------------------

def find_markers(img: np.ndarray) -> dict[int, np.ndarray]:
    """Marker id -> its 4 corners in OpenCV order, in pixel coordinates."""
    gray = img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(
        aruco_dictionary(), params)
    corners, ids, _ = detector.detectMarkers(gray)
    assert ids is not None, "no marker found"
    return {int(i): c.reshape(4, 2).astype(float) for i, c in zip(ids.ravel(), corners, strict=True)}


def to_mm(px: np.ndarray | float, origin_mm: float = 0.0) -> np.ndarray | float:
    """Pixel coordinate (pixel centres at integers) to mm, the image's origin at ``origin_mm``."""
    return (np.asarray(px) + 0.5) / PPM + origin_mm


def marker_errors(found: dict[int, np.ndarray], mat: Mat, origin: tuple[float, float]) -> float:
    assert sorted(found) == list(MARKER_IDS)
    worst = 0.0
    for marker_id, corners in found.items():
        got = np.column_stack([to_mm(corners[:, 0], origin[0]), to_mm(corners[:, 1], origin[1])])
        want = np.array(mat.marker_corners(marker_id))
        worst = max(worst, float(np.abs(got - want).max()))
    return worst


def colour_mask(img: np.ndarray, rgb: tuple[int, int, int], tol: int = 12) -> np.ndarray:
    bgr = np.array(rgb[::-1], dtype=np.int16)
    return np.all(np.abs(img.astype(np.int16) - bgr) <= tol, axis=2)


def run_centres(line: np.ndarray) -> list[float]:
    """Centres (pixel coordinates) of the runs of True in a 1-D mask."""
    padded = np.concatenate([[False], line, [False]]).astype(np.int8)
    d = np.diff(padded)
    starts, ends = np.flatnonzero(d == 1), np.flatnonzero(d == -1)
    return [(s + e - 1) / 2 for s, e in zip(starts, ends, strict=True)]


def nearest(values: list[float], want: float) -> float:
    assert values, "no outline found on the scan line"
    return min(values, key=lambda v: abs(v - want))


def zone_errors(img: np.ndarray, mat: Mat, origin: tuple[float, float],
                colour: tuple[int, int, int]) -> float:
    """Worst distance (mm) between each zone outline as printed and the spec's zone edges."""
    mask = colour_mask(img, colour)
    ox, oy = origin
    worst = 0.0

    def row(y_mm: float) -> list[float]:
        return [float(to_mm(c, ox)) for c in run_centres(mask[round((y_mm - oy) * PPM - 0.5)])]

    def col(x_mm: float) -> list[float]:
        return [float(to_mm(c, oy)) for c in run_centres(mask[:, round((x_mm - ox) * PPM - 0.5)])]

    for seat in range(4):
        for x0, y0, x1, y1 in (mat.card_zone(seat), mat.stone_zone(seat)):
            for f in (0.3, 0.5, 0.7):
                xs = row(y0 + f * (y1 - y0))
                ys = col(x0 + f * (x1 - x0))
                worst = max(worst, abs(nearest(xs, x0) - x0), abs(nearest(xs, x1) - x1),
                            abs(nearest(ys, y0) - y0), abs(nearest(ys, y1) - y1))
    cx, cy = mat.centre
    for k in range(16):  # the pool: radius along 16 rays
        a = 2 * math.pi * k / 16
        rs = np.arange(mat.pool_radius - 8, mat.pool_radius + 8, 0.05)
        hits = [r for r in rs if mask[round((cy + r * math.sin(a) - oy) * PPM - 0.5),
                                      round((cx + r * math.cos(a) - ox) * PPM - 0.5)]]
        assert hits, "pool outline missing"
        worst = max(worst, abs((min(hits) + max(hits)) / 2 - mat.pool_radius))
    return worst


def whole(mat: Mat, palette: str = "green") -> np.ndarray:
    return pm.render(pm.whole_page(mat, pm.PALETTES[palette]), PPM)


# --- the whole mat -----------------------------------------------------------------------------

@pytest.mark.parametrize("felt", ["green", "white"])
def test_png_markers_and_zones_match_the_spec(felt: str) -> None:
    mat = Mat(800)
    img = whole(mat, felt)
    origin = (-pm.MARGIN_MM, -pm.MARGIN_MM)
    assert img.shape[:2] == (round(840 * PPM), round(840 * PPM))
    assert marker_errors(find_markers(img), mat, origin) < TOL_MM
    assert zone_errors(img, mat, origin, pm.PALETTES[felt].zone) < TOL_MM


@pytest.mark.parametrize("side", [640.0, 1000.0])
def test_size_scales_the_zones_but_not_the_markers(side: float) -> None:
    mat = Mat(side)
    img = whole(mat)
    origin = (-pm.MARGIN_MM, -pm.MARGIN_MM)
    found = find_markers(img)
    assert marker_errors(found, mat, origin) < TOL_MM
    for corners in found.values():  # 50 mm black squares at any size
        assert abs(np.linalg.norm(corners[1] - corners[0]) / PPM - MARKER_MM) < TOL_MM
    assert zone_errors(img, mat, origin, pm.PALETTES["green"].zone) < TOL_MM
    assert mat.card_zone(0)[2] - mat.card_zone(0)[0] == pytest.approx(360 * side / 800)


def test_markers_have_a_white_quiet_zone_of_at_least_10_mm() -> None:
    mat = Mat(800)
    img = whole(mat)
    white = colour_mask(img, (255, 255, 255), tol=3)
    o = -pm.MARGIN_MM
    for marker_id in MARKER_IDS:
        (x0, y0), _, (x1, y1), _ = mat.marker_corners(marker_id)
        ring = np.zeros_like(white)
        ring[round((y0 - 10 - o) * PPM):round((y1 + 10 - o) * PPM),
             round((x0 - 10 - o) * PPM):round((x1 + 10 - o) * PPM)] = True
        ring[round((y0 - 0.5 - o) * PPM):round((y1 + 0.5 - o) * PPM),
             round((x0 - 0.5 - o) * PPM):round((x1 + 0.5 - o) * PPM)] = False
        assert white[ring].all(), f"marker {marker_id}: something printed in its quiet zone"


def test_the_scale_bar_measures_100_mm() -> None:
    mat = Mat(800)
    img = whole(mat)
    bar = next(s for s in pm.mat_shapes(mat) if s.tag == "scale bar")
    assert isinstance(bar, pm.Rect)
    y = round((bar.y + bar.h / 2 + pm.MARGIN_MM) * PPM - 0.5)
    ink = colour_mask(img, pm.PALETTES["green"].ink)[y]
    mid = round((bar.x + bar.w / 2 + pm.MARGIN_MM) * PPM)
    assert ink[mid]
    left = mid - np.flatnonzero(~ink[:mid][::-1])[0]
    right = mid + np.flatnonzero(~ink[mid:])[0]
    assert abs((right - left) / PPM - 100.0) < 0.5


def test_each_seat_reads_its_own_label() -> None:
    mat = Mat(800)
    shapes = pm.mat_shapes(mat)
    for seat in range(4):
        label = next(s for s in shapes if s.tag == f"label seat {seat}")
        assert isinstance(label, pm.Text)
        assert label.text == f"ASIENTO {seat + 1}" and label.turns == seat
        # It lies between the seat's card zone and its edge of the table.
        x, y, w, h = pm.bounds(label)
        x0, y0, x1, y1 = mat.card_zone(seat)
        edge = [(y1, mat.side, 1), (x1, mat.side, 0), (0, y0, 1), (0, x0, 0)][seat]
        lo, hi, axis = edge
        a, b = (y, y + h) if axis else (x, x + w)
        assert lo < a and b < hi


def test_labels_land_in_the_seat_strips_in_the_raster() -> None:
    """Seat 1's name sits along the right edge, turned: its ink is tall and narrow there."""
    mat = Mat(800)
    img = whole(mat)
    ink = colour_mask(img, pm.PALETTES["green"].ink)
    o = pm.MARGIN_MM
    strip = ink[round((300 + o) * PPM):round((500 + o) * PPM), round((745 + o) * PPM):round((800 + o) * PPM)]
    ys, xs = np.nonzero(strip)
    assert len(ys) > 100 and (ys.max() - ys.min()) > 2 * (xs.max() - xs.min())


@settings(max_examples=40, deadline=None)
@given(st.floats(min_value=MIN_SIDE_MM, max_value=MAX_SIDE_MM))
def test_nothing_printed_collides_at_any_size(side: float) -> None:
    mat = Mat(side)
    shapes = pm.mat_shapes(mat)
    boxes = {s.tag: pm.bounds(s) for s in shapes if s.tag and s.tag != "felt"}

    def overlap(a: pm.Box, b: pm.Box) -> bool:
        return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]

    zones = [t for t in boxes if t.endswith(("cards", "stones")) or t == "pool"]
    quiet = [t for t in boxes if t.startswith("quiet")]
    others = [t for t in boxes if t not in zones and t not in quiet
              and not t.startswith("marker") and t != "scale tick"]
    for a in quiet:
        for b in zones + others:
            assert not overlap(boxes[a], boxes[b]), f"{b} runs into {a} at side {side}"
    for a in others:
        for b in zones:
            assert not overlap(boxes[a], boxes[b]), f"{a} runs into {b} at side {side}"
        x, y, w, h = boxes[a]
        assert -pm.MARGIN_MM <= x and x + w <= side + pm.MARGIN_MM
        assert -pm.MARGIN_MM <= y and y + h <= side + pm.MARGIN_MM


def test_the_mat_prints_every_side_a_mat_may_have_and_no_other() -> None:
    """The sides come from vision.mat (Mat refuses others); the print fits at both ends."""
    for side in (MIN_SIDE_MM, MAX_SIDE_MM):
        assert pm.whole_page(Mat(side)).width_mm == side + 2 * pm.MARGIN_MM
    for side in (MIN_SIDE_MM - 1, MAX_SIDE_MM + 1, float("nan")):
        with pytest.raises(pm.InvalidInput):
            Mat(side)


# --- SVG and PDF -------------------------------------------------------------------------------

def _svg_markers(root: ET.Element, page_mm: float) -> dict[int, np.ndarray]:
    """Rasterise the SVG's marker paths (M x y h w v h h -w z) and find the markers."""
    ns = {"s": "http://www.w3.org/2000/svg"}
    img = np.full((round(page_mm * PPM),) * 2, 255, np.uint8)
    for g in root.iterfind(".//s:g[@transform]", ns):
        dx, dy = map(float, re.findall(r"-?[\d.]+", g.attrib["transform"]))
        for el in g:
            if el.attrib.get("data-tag", "").startswith("quiet"):
                x, y, w, h = (float(el.attrib[k]) for k in ("x", "y", "width", "height"))
                assert el.attrib["fill"] == "rgb(255,255,255)"
            if el.tag.endswith("path") and el.attrib.get("data-tag", "").startswith("marker"):
                for x, y, w, h in re.findall(r"M(-?[\d.]+) (-?[\d.]+)h(-?[\d.]+)v(-?[\d.]+)",
                                             el.attrib["d"]):
                    x0, y0 = float(x) + dx, float(y) + dy
                    x1, y1 = x0 + float(w), y0 + float(h)
                    img[round(y0 * PPM):round(y1 * PPM), round(x0 * PPM):round(x1 * PPM)] = 0
    return find_markers(img)


def test_svg_is_true_scale_and_its_markers_and_zones_are_the_spec(tmp_path: Path) -> None:
    mat = Mat(800)
    out = tmp_path / "mat.svg"
    assert pm.write(out, mat) == [out]
    root = ET.parse(out).getroot()
    assert root.attrib["width"] == "840mm" and root.attrib["height"] == "840mm"
    assert root.attrib["viewBox"] == "0 0 840 840"
    found = _svg_markers(root, 840)
    assert marker_errors(found, mat, (-pm.MARGIN_MM, -pm.MARGIN_MM)) < TOL_MM
    ns = {"s": "http://www.w3.org/2000/svg"}
    rects = {el.attrib["data-tag"]: el for el in root.iterfind(".//s:rect[@data-tag]", ns)}
    for seat in range(4):
        for kind, zone in (("cards", mat.card_zone(seat)), ("stones", mat.stone_zone(seat))):
            el = rects[f"seat {seat} {kind}"]
            x, y, w, h = (float(el.attrib[k]) for k in ("x", "y", "width", "height"))
            assert (x, y, x + w, y + h) == pytest.approx(zone, abs=0.01)
    pool = root.find(".//s:circle[@data-tag='pool']", ns)
    assert pool is not None and float(pool.attrib["r"]) == pytest.approx(110.0)
    texts = [el.text for el in root.iterfind(".//s:text", ns)]
    assert {f"ASIENTO {s}" for s in range(1, 5)} <= set(texts)


class PdfDrawing:
    """One page of a PDF as pypdf reads it: its size and what it fills, strokes and writes,
    in page millimetres with y down (pypdf tracks the transformation matrix)."""

    def __init__(self, page: PageObject) -> None:
        self.width_mm = float(page.mediabox.width) / pm.PT_PER_MM
        self.height_mm = float(page.mediabox.height) / pm.PT_PER_MM
        self.fills: list[tuple[tuple[int, ...], tuple[float, float, float, float]]] = []
        self.strokes: list[tuple[tuple[int, ...], tuple[float, float, float, float]]] = []
        self.curves: list[tuple[tuple[int, ...], list[tuple[float, float]]]] = []
        self.texts: list[tuple[str, tuple[float, float], tuple[float, float]]] = []
        """(text, baseline start in mm, baseline direction in y-down mm)."""
        self.clips = 0
        self._fill: tuple[int, ...] = (0, 0, 0)
        self._stroke: tuple[int, ...] = (0, 0, 0)
        self._saved: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
        self._rects: list[tuple[float, float, float, float]] = []
        self._points: list[tuple[float, float]] = []
        page.extract_text(visitor_operand_before=self._op, visitor_text=self._text)

    def _mm(self, cm: list[float], x: float, y: float) -> tuple[float, float]:
        a, b, c, d, e, f = cm
        px, py = a * x + c * y + e, b * x + d * y + f
        return px / pm.PT_PER_MM, self.height_mm - py / pm.PT_PER_MM

    def _op(self, op: bytes, args: list[Any], cm: list[float], tm: list[float]) -> None:
        v = [float(a) for a in args if isinstance(a, int | float)]
        if op == b"q":
            self._saved.append((self._fill, self._stroke))
        elif op == b"Q":
            self._fill, self._stroke = self._saved.pop()
        elif op in (b"rg", b"g"):
            self._fill = tuple(round(c * 255) for c in (v * 3 if op == b"g" else v))
        elif op in (b"RG", b"G"):
            self._stroke = tuple(round(c * 255) for c in (v * 3 if op == b"G" else v))
        elif op == b"re":
            (x0, y0), (x1, y1) = self._mm(cm, v[0], v[1]), self._mm(cm, v[0] + v[2], v[1] + v[3])
            self._rects.append((min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)))
        elif op in (b"m", b"l", b"c"):
            self._points.append(self._mm(cm, v[-2], v[-1]))
        elif op in (b"f", b"f*", b"S", b"n", b"W"):
            if op == b"W":
                self.clips += 1
                return
            if op.startswith(b"f"):
                self.fills += [(self._fill, r) for r in self._rects]
            elif op == b"S":
                self.strokes += [(self._stroke, r) for r in self._rects]
                if self._points:
                    self.curves.append((self._stroke, self._points))
            self._rects, self._points = [], []

    def _text(self, text: str, cm: list[float], tm: list[float], font: Any, size: float) -> None:
        if text.strip():
            m = [cm[0] * tm[0] + cm[2] * tm[1], cm[1] * tm[0] + cm[3] * tm[1]]
            start = self._mm(cm, tm[4], tm[5])
            n = math.hypot(*m)
            self.texts.append((text, start, (m[0] / n, -m[1] / n)))


def read_pdf(path: Path) -> list[PdfDrawing]:
    return [PdfDrawing(page) for page in PdfReader(path).pages]


def test_pdf_is_one_true_scale_page_with_the_spec_geometry(tmp_path: Path) -> None:
    mat = Mat(800)
    out = tmp_path / "mat.pdf"
    pm.write(out, mat)
    (page,) = read_pdf(out)
    assert (page.width_mm, page.height_mm) == pytest.approx((840, 840), abs=0.01)
    img = np.full((round(840 * PPM),) * 2, 255, np.uint8)
    for colour, (x0, y0, x1, y1) in page.fills:
        if colour == (0, 0, 0):
            img[round(y0 * PPM):round(y1 * PPM), round(x0 * PPM):round(x1 * PPM)] = 0
    assert marker_errors(find_markers(img), mat, (-pm.MARGIN_MM, -pm.MARGIN_MM)) < TOL_MM
    zone = pm.PALETTES["green"].zone
    outlines = sorted(r for c, r in page.strokes if c == zone)
    m = pm.MARGIN_MM
    want = sorted((z[0] + m, z[1] + m, z[2] + m, z[3] + m)
                  for s in range(4) for z in (mat.card_zone(s), mat.stone_zone(s)))
    assert np.allclose(outlines, want, atol=0.05)
    (pool,) = [pts for c, pts in page.curves if c == zone]
    r = [math.dist(p, (mat.centre[0] + m, mat.centre[1] + m)) for p in pool]
    assert min(r) == pytest.approx(mat.pool_radius, abs=0.05) and max(r) == pytest.approx(
        mat.pool_radius, abs=0.05)


def test_pdf_labels_face_their_seats_at_their_places(tmp_path: Path) -> None:
    mat = Mat(800)
    out = tmp_path / "mat.pdf"
    pm.write(out, mat)
    (page,) = read_pdf(out)
    for seat in range(4):
        label = next(s for s in pm.mat_shapes(mat) if s.tag == f"label seat {seat}")
        assert isinstance(label, pm.Text)
        (start, u), = [(p, u) for t, p, u in page.texts if t == f"ASIENTO {seat + 1}"]
        assert u == pytest.approx(pm._TEXT_DIRECTIONS[seat], abs=1e-6)
        w = pm.text_width_mm(label.text, label.size)
        centre = (start[0] + u[0] * w / 2 - pm.MARGIN_MM, start[1] + u[1] * w / 2 - pm.MARGIN_MM)
        assert math.dist(centre, (label.x, label.y)) < TOL_MM
    assert any("debe medir 100 mm" in t for t, _, _ in page.texts)


def test_tiled_pdf_has_one_clipped_a4_page_per_tile(tmp_path: Path) -> None:
    mat = Mat(800)
    out = tmp_path / "mat.pdf"
    pm.write(out, mat, tile="a4")
    pages = read_pdf(out)
    sheets = pm.tiles(mat, paper="a4")
    assert len(pages) == len(sheets)
    for n, (p, t) in enumerate(zip(pages, sheets, strict=True), start=1):
        assert (p.width_mm, p.height_mm) == pytest.approx(
            (t.page.width_mm, t.page.height_mm), abs=0.01)
        assert sorted((p.width_mm, p.height_mm)) == pytest.approx([210, 297], abs=0.01)
        assert p.clips >= 1
        assert any(f"hoja {n} de {len(sheets)}" in text for text, _, _ in p.texts)


# --- tiles -------------------------------------------------------------------------------------

@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_tiles_cover_the_whole_sheet_with_overlap(paper: str) -> None:
    mat = Mat(800)
    sheets = pm.tiles(mat, paper=paper)
    rows, cols = sheets[0].rows, sheets[0].cols
    assert len(sheets) == rows * cols and rows > 1 and cols > 1
    assert {(t.row, t.col) for t in sheets} == {(r, c) for r in range(rows) for c in range(cols)}
    lo, hi = -pm.MARGIN_MM, mat.side + pm.MARGIN_MM
    grid = {(t.row, t.col): t.window for t in sheets}
    assert grid[0, 0][:2] == (lo, lo)
    x, y, w, h = grid[rows - 1, cols - 1]
    assert x + w == pytest.approx(hi) and y + h == pytest.approx(hi)
    for (r, c), (x, y, w, h) in grid.items():
        if c + 1 < cols:
            assert x + w - grid[r, c + 1][0] >= pm.MIN_OVERLAP_MM - 1e-9
        if r + 1 < rows:
            assert y + h - grid[r + 1, c][1] >= pm.MIN_OVERLAP_MM - 1e-9
    for t in sheets:
        pw, ph = pm.PAPERS[paper]
        assert sorted((t.page.width_mm, t.page.height_mm)) == sorted((pw, ph))
        wx, wy, ww, wh = t.window_on_page
        assert wx >= pm.PAGE_MARGIN_MM and wx + ww <= t.page.width_mm - pm.PAGE_MARGIN_MM
        assert f"fila {t.row + 1} de {rows}, columna {t.col + 1} de {cols}" in t.page.label
        assert len(t.crosshairs) >= 2


def _crosshairs(img: np.ndarray) -> list[np.ndarray]:
    mask = colour_mask(img, pm.CROSSHAIR, tol=40).astype(np.uint8)
    n, _, stats, centroids = cv2.connectedComponentsWithStats(mask)
    return [centroids[i] for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] > 40]


def _shift(a: list[np.ndarray], b: list[np.ndarray]) -> tuple[np.ndarray, int]:
    """The translation t that puts most of b's crosshairs onto a's (b + t = a)."""
    best, best_n = np.zeros(2), 0
    for pa in a:
        for pb in b:
            t = pa - pb
            pairs = [(qa, qb) for qb in b for qa in a if np.linalg.norm(qb + t - qa) < 2]
            if len(pairs) > best_n:
                best_n = len(pairs)
                best = np.mean([qa - qb for qa, qb in pairs], axis=0)
    return best, best_n


def test_tiles_taped_together_by_their_crosshairs_give_back_the_mat() -> None:
    mat = Mat(800)
    sheets = pm.tiles(mat, paper="a4")
    imgs = {(t.row, t.col): pm.render(t.page, PPM) for t in sheets}
    marks = {k: _crosshairs(v) for k, v in imgs.items()}
    rows, cols = sheets[0].rows, sheets[0].cols
    # Where each sheet lies relative to sheet (0, 0), from the crosshairs alone.
    where: dict[tuple[int, int], np.ndarray] = {(0, 0): np.zeros(2)}
    for r in range(rows):
        for c in range(cols):
            if (r, c) == (0, 0):
                continue
            ref = (r, c - 1) if c else (r - 1, c)
            axis = 0 if c else 1  # a sheet's right (or bottom) side meets its neighbour's left (top)
            half = imgs[ref].shape[1 - axis] / 2
            t, n = _shift([m for m in marks[ref] if m[axis] > half],
                          [m for m in marks[r, c] if m[axis] < half])
            assert n >= 2, f"sheet {(r, c)} shares too few crosshairs with {ref}"
            where[r, c] = where[ref] + t
    # The crosshairs agree with the layout, to a pixel.
    x00, y00 = sheets[0].window[:2]
    for t in sheets:
        nominal = np.array([t.window[0] - x00, t.window[1] - y00]) * PPM
        assert np.abs(where[t.row, t.col] - nominal).max() <= 1.0
    # Paste each sheet's printed window where the crosshairs put it.
    size = round((mat.side + 2 * pm.MARGIN_MM + 40) * PPM)
    canvas = np.full((size, size, 3), 255, np.uint8)
    for t in sheets:
        wx, wy, ww, wh = (round(v * PPM) for v in t.window_on_page)
        ox, oy = (round(v) for v in where[t.row, t.col])
        canvas[oy + wy:oy + wy + wh, ox + wx:ox + wx + ww] = imgs[t.row, t.col][wy:wy + wh, wx:wx + ww]
    found = find_markers(canvas)
    # One translation (no scale, no turn) must put the assembled mat onto the spec.
    got = np.concatenate([found[i] for i in MARKER_IDS])
    want = np.concatenate([np.array(mat.marker_corners(i)) for i in MARKER_IDS])
    origin = (want - (got + 0.5) / PPM).mean(axis=0)
    assert marker_errors(found, mat, (origin[0], origin[1])) < TOL_MM
    assert zone_errors(canvas, mat, (origin[0], origin[1]), pm.PALETTES["green"].zone) < TOL_MM


# --- files and the command ---------------------------------------------------------------------

def test_png_carries_its_resolution(tmp_path: Path) -> None:
    out = tmp_path / "mat.png"
    pm.write(out, Mat(800), dpi=50)
    data = out.read_bytes()
    at = data.index(b"pHYs")
    x, y, unit = struct.unpack(">IIB", data[at + 4:at + 13])
    assert unit == 1 and x == y == round(50 / 0.0254)
    assert struct.unpack(">I", data[at + 13:at + 17])[0] == zlib.crc32(data[at:at + 13])
    img = cv2.imread(str(out))
    assert img.shape[:2] == (round(840 * 50 / 25.4),) * 2


def test_mat_command_writes_tiled_svgs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "mat.svg"
    assert main(["mat", "--out", str(out), "--tile", "letter", "--size", "700"]) == 0
    n = len(pm.tiles(Mat(700), paper="letter"))
    files = sorted(tmp_path.glob("mat-*.svg"))
    assert [f.name for f in files] == [f"mat-{i:02d}.svg" for i in range(1, n + 1)]
    root = ET.parse(files[0]).getroot()
    assert {root.attrib["width"], root.attrib["height"]} == {"215.9mm", "279.4mm"}
    assert f"{n} hojas Letter" in capsys.readouterr().out


@pytest.mark.parametrize("argv, why", [
    (["--size", "300"], "va de 640 a 1500 mm"),
    (["--dpi", "5"], "--dpi"),
])
def test_mat_command_refuses_bad_input_and_writes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], why: str) -> None:
    out = tmp_path / "mat.png"
    assert main(["mat", "--out", str(out), *argv]) == 2
    err = capsys.readouterr().err
    assert why in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_mat_command_refuses_unknown_formats_and_folders(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mat", "--out", str(tmp_path / "mat.docx")]) == 2
    assert main(["mat", "--out", str(tmp_path / "nowhere" / "mat.pdf")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert "debe acabar en .pdf, .svg o .png" in err[0] and "no existe esa carpeta" in err[1]
    assert list(tmp_path.iterdir()) == []
