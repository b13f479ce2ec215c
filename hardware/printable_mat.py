"""The printable mat of docs/mat.md: one drawing, three writers (SVG, PDF through fpdf2, PNG through OpenCV).

The drawing is a list of shapes in mat millimetres (origin at the play area's
top-left, y down, seat 0 at the bottom), taken from :class:`vision.mat.Mat` so
the print and the reader can never disagree. A :class:`Page` places shapes on a
sheet of paper: the whole mat on one large sheet (a print shop), or
:func:`tiles` of it on A4 or Letter pages with overlap, crosshairs and a label
each, to tape together.

>>> page = whole_page(Mat(800))
>>> (page.width_mm, page.height_mm)
(840.0, 840.0)
>>> svg = svg_document(page)  # true scale: width="840mm"
"""

from __future__ import annotations

import math
import struct
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np
from fpdf import FPDF
from fpdf.fonts import CORE_FONTS_CHARWIDTHS

from table.errors import InvalidInput
from vision.mat import MARKER_IDS, MARKER_MM, Mat, aruco_dictionary, quarter_turn

RGB = tuple[int, int, int]
Point = tuple[float, float]
Box = tuple[float, float, float, float]
"""(x, y, width, height) in mm."""

MARGIN_MM = 20.0
"""White paper around the play area: holds the markers' outer quiet zone and the caption."""
QUIET_MM = 12.0
"""White around each marker's black square (docs/mat.md asks ≥ 10 mm; 2 more for trimming)."""
ZONE_LINE_MM = 2.0
"""Zone outlines, centred on the zone's edge: visible to players and in the calibration view."""
PAGE_MARGIN_MM = 10.0
"""Unprinted border of a tiled page (most printers cannot print the last 4-6 mm)."""
LABEL_STRIP_MM = 16.0
"""Foot of a tiled page: its label and a 100 mm check line."""
MIN_OVERLAP_MM = 20.0
CHECK_MM = 100.0
MAX_PNG_PIXELS = 120_000_000

WHITE: RGB = (255, 255, 255)
BLACK: RGB = (0, 0, 0)
MARGIN_INK: RGB = (70, 70, 70)
CROSSHAIR: RGB = (220, 0, 160)
"""Alignment crosshairs: a colour nothing else on the mat uses (tests find them by it)."""
CUT: RGB = (140, 140, 140)

PAPERS: dict[str, tuple[float, float]] = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}


@dataclass(frozen=True, slots=True)
class Palette:
    """The colours of one mat: the felt (None for plain paper), zone outlines, label ink."""

    name: str
    felt: RGB | None
    zone: RGB
    ink: RGB


PALETTES: dict[str, Palette] = {
    "green": Palette("green", (28, 102, 58), (250, 212, 90), (236, 236, 228)),
    "blue": Palette("blue", (24, 66, 120), (250, 212, 90), (236, 236, 228)),
    "white": Palette("white", None, (0, 118, 168), (60, 60, 60)),
}


# --- shapes (mm) -------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    fill: RGB | None = None
    stroke: RGB | None = None
    width: float = 0.0
    tag: str = ""


@dataclass(frozen=True, slots=True)
class RectUnion:
    """Rectangles filled as one path, so that no seam shows where they touch (marker bits)."""

    rects: tuple[Box, ...]
    fill: RGB
    tag: str = ""


@dataclass(frozen=True, slots=True)
class Line:
    x0: float
    y0: float
    x1: float
    y1: float
    colour: RGB
    width: float
    dash: tuple[float, float] | None = None
    tag: str = ""


@dataclass(frozen=True, slots=True)
class Circle:
    cx: float
    cy: float
    r: float
    stroke: RGB
    width: float
    tag: str = ""


@dataclass(frozen=True, slots=True)
class Polygon:
    points: tuple[Point, ...]
    fill: RGB
    tag: str = ""


@dataclass(frozen=True, slots=True)
class Text:
    """Text whose baseline is centred on (x, y); ``size`` is the em in mm; ``turns``
    quarter turns counterclockwise as seen from above (seat s reads turns = s)."""

    x: float
    y: float
    text: str
    size: float
    colour: RGB
    turns: int = 0
    tag: str = ""


Shape = Rect | RectUnion | Line | Circle | Polygon | Text


@dataclass(frozen=True, slots=True)
class Layer:
    """Shapes moved by ``offset`` onto the page and cut to ``clip`` (page mm), if any."""

    shapes: tuple[Shape, ...]
    offset: Point = (0.0, 0.0)
    clip: Box | None = None


@dataclass(frozen=True, slots=True)
class Page:
    width_mm: float
    height_mm: float
    layers: tuple[Layer, ...]
    label: str = ""


@dataclass(frozen=True, slots=True)
class Tile:
    """One sheet of a tiled mat: ``window`` (mat mm) printed at ``window_on_page`` (page mm)."""

    row: int
    col: int
    rows: int
    cols: int
    window: Box
    window_on_page: Box
    page: Page
    crosshairs: tuple[Point, ...] = field(default=())


# --- text metrics (Helvetica, the PDF's built-in font; widths per 1000 em) -------------------

CAP_HEIGHT_EM = 0.718
_HELVETICA = CORE_FONTS_CHARWIDTHS["helvetica"]


def text_width_mm(text: str, size: float) -> float:
    return sum(_HELVETICA.get(ch, 556) for ch in text) * size / 1000


# --- geometry helpers ------------------------------------------------------------------------

def _turn_point(p: Point, turns: int, centre: float) -> Point:
    return quarter_turn(p[0], p[1], turns, centre)


def _turn_box(b: Box, turns: int, centre: float) -> Box:
    (ax, ay), (bx, by) = (_turn_point((b[0], b[1]), turns, centre),
                          _turn_point((b[0] + b[2], b[1] + b[3]), turns, centre))
    return (min(ax, bx), min(ay, by), abs(bx - ax), abs(by - ay))


def turn_shape(s: Shape, turns: int, centre: float) -> Shape:
    """A shape turned ``turns`` quarter turns counterclockwise about (centre, centre)."""
    if turns % 4 == 0:
        return s
    if isinstance(s, Rect):
        x, y, w, h = _turn_box((s.x, s.y, s.w, s.h), turns, centre)
        return replace(s, x=x, y=y, w=w, h=h)
    if isinstance(s, RectUnion):
        return replace(s, rects=tuple(_turn_box(b, turns, centre) for b in s.rects))
    if isinstance(s, Line):
        (x0, y0), (x1, y1) = (_turn_point((s.x0, s.y0), turns, centre),
                              _turn_point((s.x1, s.y1), turns, centre))
        return replace(s, x0=x0, y0=y0, x1=x1, y1=y1)
    if isinstance(s, Circle):
        cx, cy = _turn_point((s.cx, s.cy), turns, centre)
        return replace(s, cx=cx, cy=cy)
    if isinstance(s, Polygon):
        return replace(s, points=tuple(_turn_point(p, turns, centre) for p in s.points))
    x, y = _turn_point((s.x, s.y), turns, centre)
    return replace(s, x=x, y=y, turns=(s.turns + turns) % 4)


def _box(rect: tuple[float, float, float, float]) -> Box:
    """A vision.mat rect (x0, y0, x1, y1) as (x, y, w, h)."""
    return (rect[0], rect[1], rect[2] - rect[0], rect[3] - rect[1])


def marker_bits(marker_id: int) -> np.ndarray:
    """The 6 × 6 cells of a marker (border included, vision.mat's dictionary), True where black."""
    return np.asarray(cv2.aruco.generateImageMarker(aruco_dictionary(), marker_id, 6) == 0)


def _marker_shapes(mat: Mat, marker_id: int) -> list[Shape]:
    (x0, y0) = mat.marker_corners(marker_id)[0]
    bits = marker_bits(marker_id)
    cell = MARKER_MM / bits.shape[0]
    runs: list[Box] = []
    for r, row in enumerate(bits):
        c = 0
        while c < len(row):
            if row[c]:
                start = c
                while c < len(row) and row[c]:
                    c += 1
                runs.append((x0 + start * cell, y0 + r * cell, (c - start) * cell, cell))
            else:
                c += 1
    q = QUIET_MM
    return [Rect(x0 - q, y0 - q, MARKER_MM + 2 * q, MARKER_MM + 2 * q, fill=WHITE,
                 tag=f"quiet {marker_id}"),
            RectUnion(tuple(runs), BLACK, tag=f"marker {marker_id}")]


def _seat_label(mat: Mat, palette: Palette, seat: int) -> list[Shape]:
    """A seat's name and a hint of the order of play, drawn where seat 0's goes (the strip
    below its card zone); the caller turns it to the seat's edge."""
    k, s = mat.scale, mat.side
    cx = s / 2
    big, small = 13.0 * k, 5.5 * k
    name = f"ASIENTO {seat + 1}"  # seats as people count them, 1-4 (seat 0 is «ASIENTO 1»)
    y_name = s - 26.0 * k
    shapes: list[Shape] = [Text(cx, y_name, name, big, palette.ink, tag=f"label seat {seat}")]
    # An arrow after the name points to this seat's right: the next seat to speak.
    ax = cx + text_width_mm(name, big) / 2 + 8.0 * k
    ay = y_name - CAP_HEIGHT_EM * big / 2
    length, head = 26.0 * k, 7.0 * k
    shapes.append(Polygon(((ax, ay - 1.2 * k), (ax + length - head, ay - 1.2 * k),
                           (ax + length - head, ay - head / 2 - 1.2 * k), (ax + length, ay),
                           (ax + length - head, ay + head / 2 + 1.2 * k),
                           (ax + length - head, ay + 1.2 * k), (ax, ay + 1.2 * k)),
                          palette.ink, tag=f"arrow seat {seat}"))
    shapes.append(Text(cx, s - 10.0 * k, "el turno y la mano pasan a la derecha", small,
                       palette.ink, tag=f"hint seat {seat}"))
    return shapes


def _scale_bar(mat: Mat, palette: Palette) -> list[Shape]:
    """A 100 mm bar with 10 mm ticks, bottom-left of the play area, to check the print's scale."""
    s = mat.side
    x0, y = 75.0, s - 13.0
    shapes: list[Shape] = [Rect(x0, y, CHECK_MM, 2.5, fill=palette.ink, tag="scale bar")]
    for i in range(11):
        tall = 5.0 if i in (0, 5, 10) else 3.0
        shapes.append(Line(x0 + 10 * i, y, x0 + 10 * i, y - tall, palette.ink, 0.5, tag="scale tick"))
    shapes.append(Text(x0 + CHECK_MM / 2, y - 7.0, "100 mm", 5.0, palette.ink, tag="scale text"))
    return shapes


def mat_shapes(mat: Mat, palette: Palette = PALETTES["green"]) -> list[Shape]:
    """Everything printed on the mat, in mat mm (the play area is 0..side)."""
    s = mat.side
    shapes: list[Shape] = []
    if palette.felt is not None:
        shapes.append(Rect(0, 0, s, s, fill=palette.felt, tag="felt"))
    for marker_id in MARKER_IDS:
        shapes.extend(_marker_shapes(mat, marker_id))
    for seat in range(4):
        for kind, rect in (("cards", mat.card_zone(seat)), ("stones", mat.stone_zone(seat))):
            x, y, w, h = _box(rect)
            shapes.append(Rect(x, y, w, h, stroke=palette.zone, width=ZONE_LINE_MM,
                               tag=f"seat {seat} {kind}"))
    cx, cy = mat.centre
    shapes.append(Circle(cx, cy, mat.pool_radius, palette.zone, ZONE_LINE_MM, tag="pool"))
    for seat in range(4):
        shapes.extend(turn_shape(shape, seat, s / 2) for shape in _seat_label(mat, palette, seat))
    shapes.extend(_scale_bar(mat, palette))
    caption = (f"tapete de mus-table - zona de juego de {s:g} mm - marcas ArUco DICT_4X4_50 0-3 "
               f"({MARKER_MM:g} mm) - la barra de abajo a la izquierda debe medir 100 mm")
    shapes.append(Text(s / 2, s + 13.0, caption, 4.0, MARGIN_INK, tag="caption"))
    return shapes


def bounds(shape: Shape) -> Box:
    """An axis-aligned box holding the shape (text approximated with Helvetica widths)."""
    if isinstance(shape, Rect):
        h = shape.width / 2
        return (shape.x - h, shape.y - h, shape.w + 2 * h, shape.h + 2 * h)
    if isinstance(shape, RectUnion):
        xs = [b[0] for b in shape.rects] + [b[0] + b[2] for b in shape.rects]
        ys = [b[1] for b in shape.rects] + [b[1] + b[3] for b in shape.rects]
        return (min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))
    if isinstance(shape, Line):
        h = shape.width / 2
        x0, x1 = sorted((shape.x0, shape.x1))
        y0, y1 = sorted((shape.y0, shape.y1))
        return (x0 - h, y0 - h, x1 - x0 + 2 * h, y1 - y0 + 2 * h)
    if isinstance(shape, Circle):
        r = shape.r + shape.width / 2
        return (shape.cx - r, shape.cy - r, 2 * r, 2 * r)
    if isinstance(shape, Polygon):
        xs = [p[0] for p in shape.points]
        ys = [p[1] for p in shape.points]
        return (min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))
    w = text_width_mm(shape.text, shape.size)
    u = _TEXT_DIRECTIONS[shape.turns % 4]
    v = (u[1], -u[0])
    pts = [(shape.x + a * u[0] + b * v[0], shape.y + a * u[1] + b * v[1])
           for a in (-w / 2, w / 2) for b in (-0.22 * shape.size, CAP_HEIGHT_EM * shape.size)]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return (min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))


_TEXT_DIRECTIONS = ((1, 0), (0, -1), (-1, 0), (0, 1))
"""A text's baseline direction for 0-3 quarter turns, in y-down mm; glyph-up is (u.y, -u.x)."""


def whole_page(mat: Mat, palette: Palette = PALETTES["green"]) -> Page:
    """The whole mat on one sheet: the play area plus a white margin of MARGIN_MM."""
    side = mat.side + 2 * MARGIN_MM
    return Page(side, side, (Layer(tuple(mat_shapes(mat, palette)), (MARGIN_MM, MARGIN_MM)),),
                label=f"tapete de mus-table de {mat.side:g} mm")


# --- tiling ----------------------------------------------------------------------------------

def _spans(total: float, window: float) -> list[float]:
    """Start of each window so that windows of ``window`` cover ``total`` evenly, overlapping."""
    if window >= total:
        return [0.0]
    n = math.ceil((total - MIN_OVERLAP_MM) / (window - MIN_OVERLAP_MM))
    n = max(n, 2)
    step = (total - window) / (n - 1)
    return [i * step for i in range(n)]


def _keepouts(shapes: Sequence[Shape]) -> list[Box]:
    """Where crosshairs must not go: zones, markers and their quiet zones, labels, scale bar."""
    return [bounds(s) for s in shapes if s.tag and s.tag != "felt"]


def _free(p: Point, keepouts: Sequence[Box], clearance: float = 9.0) -> bool:
    x, y = p
    for bx, by, bw, bh in keepouts:
        if bx - clearance < x < bx + bw + clearance and by - clearance < y < by + bh + clearance:
            return False
    return True


def _marks_along(fixed: float, lo: float, hi: float, vertical: bool,
                 keepouts: Sequence[Box]) -> list[Point]:
    """Two crosshair positions on a band's centre line between ``lo`` and ``hi``, far apart and clear."""
    cands = [lo + 15.0 + 5.0 * i for i in range(int((hi - lo - 30.0) / 5.0) + 1)]
    pts = [(fixed, c) if vertical else (c, fixed) for c in cands]
    free = [p for p in pts if _free(p, keepouts)]
    chosen = free if len(free) >= 2 else pts
    return [chosen[0], chosen[-1]] if len(chosen) >= 2 else chosen


def _crosshair(p: Point) -> list[Shape]:
    x, y = p
    arm, w = 6.0, 0.35
    return [Line(x - arm, y, x + arm, y, CROSSHAIR, w, tag="crosshair"),
            Line(x, y - arm, x, y + arm, CROSSHAIR, w, tag="crosshair"),
            Circle(x, y, 2.5, CROSSHAIR, w, tag="crosshair")]


def tiles(mat: Mat, palette: Palette = PALETTES["green"], paper: str = "a4") -> list[Tile]:
    """The mat cut into pages of ``paper`` ("a4" or "letter"), row by row from the top-left.

    Neighbouring windows overlap by at least MIN_OVERLAP_MM; on the centre line of
    each overlap two crosshairs per neighbour show where the sheets meet, and a
    dashed line on a sheet's left and top sides shows where to cut it.
    """
    if paper not in PAPERS:
        raise InvalidInput(f"unknown paper {paper!r} (a4, letter)")
    shapes = mat_shapes(mat, palette)
    x_min, y_min = -MARGIN_MM, -MARGIN_MM
    total = mat.side + 2 * MARGIN_MM
    best: tuple[int, float, float, float, float] | None = None
    for pw, ph in (PAPERS[paper], PAPERS[paper][::-1]):  # portrait, then landscape
        ww, wh = pw - 2 * PAGE_MARGIN_MM, ph - 2 * PAGE_MARGIN_MM - LABEL_STRIP_MM
        n = len(_spans(total, ww)) * len(_spans(total, wh))
        if best is None or n < best[0]:
            best = (n, pw, ph, ww, wh)
    assert best is not None
    _, pw, ph, ww, wh = best
    xs = [x_min + v for v in _spans(total, ww)]
    ys = [y_min + v for v in _spans(total, wh)]
    rows, cols = len(ys), len(xs)
    keep = _keepouts(shapes)
    # Crosshairs on the centre line of every overlap band, two per pair of neighbours.
    vbands = [(xs[c + 1] + xs[c] + ww) / 2 for c in range(cols - 1)]
    hbands = [(ys[r + 1] + ys[r] + wh) / 2 for r in range(rows - 1)]
    # Along a band, only where no third sheet overlaps, so each crosshair is on two sheets.
    row_spans = [(ys[r - 1] + wh if r else ys[r], ys[r + 1] if r < rows - 1 else ys[r] + wh)
                 for r in range(rows)]
    col_spans = [(xs[c - 1] + ww if c else xs[c], xs[c + 1] if c < cols - 1 else xs[c] + ww)
                 for c in range(cols)]
    marks: list[Point] = []
    for xb in vbands:
        for lo, hi in row_spans:
            marks += _marks_along(xb, lo, hi, True, keep)
    for yb in hbands:
        for lo, hi in col_spans:
            marks += _marks_along(yb, lo, hi, False, keep)
    out: list[Tile] = []
    for r, y0 in enumerate(ys):
        for c, x0 in enumerate(xs):
            cuts: list[Shape] = []
            if c > 0:
                cuts.append(Line(vbands[c - 1], y0, vbands[c - 1], y0 + wh, CUT, 0.3, (3.0, 2.0),
                                 tag="cut"))
            if r > 0:
                cuts.append(Line(x0, hbands[r - 1], x0 + ww, hbands[r - 1], CUT, 0.3, (3.0, 2.0),
                                 tag="cut"))
            crosshairs: list[Shape] = []
            for p in marks:
                if x0 <= p[0] <= x0 + ww and y0 <= p[1] <= y0 + wh:
                    crosshairs += _crosshair(p)
            # Cut lines go just over the felt, under everything else (markers, zone outlines
            # stay whole); crosshairs on top, so each prints whole.
            felt = 1 if shapes and shapes[0].tag == "felt" else 0
            layered = (*shapes[:felt], *cuts, *shapes[felt:], *crosshairs)
            n = r * cols + c + 1
            label = (f"tapete de mus-table de {mat.side:g} mm - hoja {n} de {rows * cols} - "
                     f"fila {r + 1} de {rows}, columna {c + 1} de {cols} - imprimir al 100 %, sin ajustar a la hoja")
            fy = ph - PAGE_MARGIN_MM
            furniture: list[Shape] = [
                Text(pw / 2, fy - 1.0, label, 3.5, MARGIN_INK, tag="page label"),
                Rect((pw - CHECK_MM) / 2, fy - 9.0, CHECK_MM, 1.5, fill=MARGIN_INK, tag="check line"),
                Line((pw - CHECK_MM) / 2, fy - 9.0, (pw - CHECK_MM) / 2, fy - 12.0, MARGIN_INK, 0.4),
                Line((pw + CHECK_MM) / 2, fy - 9.0, (pw + CHECK_MM) / 2, fy - 12.0, MARGIN_INK, 0.4),
                Text((pw + CHECK_MM) / 2 + 12.0, fy - 7.6, "100 mm", 3.5, MARGIN_INK,
                     tag="check text"),
            ]
            on_page = (PAGE_MARGIN_MM, PAGE_MARGIN_MM, ww, wh)
            page = Page(pw, ph, (
                Layer(layered, (PAGE_MARGIN_MM - x0, PAGE_MARGIN_MM - y0), on_page),
                Layer(tuple(furniture)),
            ), label=label)
            here = tuple(p for p in marks if x0 <= p[0] <= x0 + ww and y0 <= p[1] <= y0 + wh)
            out.append(Tile(r, c, rows, cols, (x0, y0, ww, wh), on_page, page, here))
    return out


# --- SVG ---------------------------------------------------------------------------------------

def _n(v: float) -> str:
    s = f"{v:.3f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _rgb(c: RGB | None) -> str:
    return "none" if c is None else f"rgb({c[0]},{c[1]},{c[2]})"


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _svg_shape(s: Shape) -> str:
    tag = f' data-tag="{_esc(s.tag)}"' if s.tag else ""
    if isinstance(s, Rect):
        stroke = "" if s.stroke is None else f' stroke="{_rgb(s.stroke)}" stroke-width="{_n(s.width)}"'
        return (f'<rect x="{_n(s.x)}" y="{_n(s.y)}" width="{_n(s.w)}" height="{_n(s.h)}" '
                f'fill="{_rgb(s.fill)}"{stroke}{tag}/>')
    if isinstance(s, RectUnion):
        d = " ".join(f"M{_n(x)} {_n(y)}h{_n(w)}v{_n(h)}h{_n(-w)}z" for x, y, w, h in s.rects)
        return f'<path d="{d}" fill="{_rgb(s.fill)}"{tag}/>'
    if isinstance(s, Line):
        dash = "" if s.dash is None else f' stroke-dasharray="{_n(s.dash[0])} {_n(s.dash[1])}"'
        return (f'<line x1="{_n(s.x0)}" y1="{_n(s.y0)}" x2="{_n(s.x1)}" y2="{_n(s.y1)}" '
                f'stroke="{_rgb(s.colour)}" stroke-width="{_n(s.width)}"{dash}{tag}/>')
    if isinstance(s, Circle):
        return (f'<circle cx="{_n(s.cx)}" cy="{_n(s.cy)}" r="{_n(s.r)}" fill="none" '
                f'stroke="{_rgb(s.stroke)}" stroke-width="{_n(s.width)}"{tag}/>')
    if isinstance(s, Polygon):
        pts = " ".join(f"{_n(x)},{_n(y)}" for x, y in s.points)
        return f'<polygon points="{pts}" fill="{_rgb(s.fill)}"{tag}/>'
    rot = f' transform="rotate({-90 * s.turns} {_n(s.x)} {_n(s.y)})"' if s.turns % 4 else ""
    return (f'<text x="{_n(s.x)}" y="{_n(s.y)}" font-family="Helvetica, Arial, sans-serif" '
            f'font-size="{_n(s.size)}" text-anchor="middle" fill="{_rgb(s.colour)}"{rot}{tag}>'
            f"{_esc(s.text)}</text>")


def svg_document(page: Page) -> str:
    """An SVG of the page at true scale (width and height in mm, 1 user unit = 1 mm)."""
    w, h = _n(page.width_mm), _n(page.height_mm)
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}mm" height="{h}mm" '
           f'viewBox="0 0 {w} {h}">',
           f"<title>{_esc(page.label)}</title>",
           f'<rect x="0" y="0" width="{w}" height="{h}" fill="rgb(255,255,255)"/>']
    for i, layer in enumerate(page.layers):
        dx, dy = layer.offset
        open_clip = ""
        if layer.clip is not None:
            cx, cy, cw, ch = layer.clip
            out.append(f'<clipPath id="clip{i}"><rect x="{_n(cx)}" y="{_n(cy)}" width="{_n(cw)}" '
                       f'height="{_n(ch)}"/></clipPath>')
            open_clip = f' clip-path="url(#clip{i})"'
        out.append(f"<g{open_clip}><g transform=\"translate({_n(dx)} {_n(dy)})\">")
        out.extend(_svg_shape(s) for s in layer.shapes if _visible(s, layer))
        out.append("</g></g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _visible(s: Shape, layer: Layer) -> bool:
    """Whether a shape can show through the layer's clip (skipping the rest keeps tiles small)."""
    if layer.clip is None:
        return True
    x, y, w, h = bounds(s)
    x, y = x + layer.offset[0], y + layer.offset[1]
    cx, cy, cw, ch = layer.clip
    return x < cx + cw and x + w > cx and y < cy + ch and y + h > cy


# --- PDF (fpdf2) -------------------------------------------------------------------------------

def _pdf_shape(pdf: FPDF, s: Shape) -> None:
    """Draw one shape on the current page; ``pdf`` works in page millimetres, y down."""
    if isinstance(s, Rect):
        if s.fill is not None:
            pdf.set_fill_color(*s.fill)
            pdf.rect(s.x, s.y, s.w, s.h, style="F")
        if s.stroke is not None:
            pdf.set_draw_color(*s.stroke)
            pdf.set_line_width(s.width)
            pdf.rect(s.x, s.y, s.w, s.h, style="D")
    elif isinstance(s, RectUnion):
        # One path for all the runs, so that no seam shows where two cells touch.
        with pdf.new_path() as path:
            path.style.fill_color = "#{:02x}{:02x}{:02x}".format(*s.fill)
            path.style.stroke_color = None
            for x, y, w, h in s.rects:
                path.rectangle(x, y, w, h)
    elif isinstance(s, Line):
        pdf.set_draw_color(*s.colour)
        pdf.set_line_width(s.width)
        if s.dash is not None:
            pdf.set_dash_pattern(*s.dash)
        pdf.line(s.x0, s.y0, s.x1, s.y1)
        if s.dash is not None:
            pdf.set_dash_pattern()
    elif isinstance(s, Circle):
        pdf.set_draw_color(*s.stroke)
        pdf.set_line_width(s.width)
        pdf.circle(s.cx, s.cy, s.r, style="D")
    elif isinstance(s, Polygon):
        pdf.set_fill_color(*s.fill)
        pdf.polygon(s.points, style="F")
    else:
        pdf.set_text_color(*s.colour)
        pdf.set_font_size(s.size * PT_PER_MM)
        # fpdf2 turns counterclockwise as seen on the page, like Text.turns.
        with pdf.rotation(90 * (s.turns % 4), s.x, s.y):
            pdf.text(s.x - text_width_mm(s.text, s.size) / 2, s.y, s.text)


PT_PER_MM = 72 / 25.4


def pdf_document(pages: Sequence[Page], title: str = "mus-table mat") -> bytes:
    """A vector PDF, one page per :class:`Page`, each its own size in millimetres at true scale."""
    if not pages:
        raise InvalidInput("a PDF needs at least one page")
    pdf = FPDF(unit="mm", format=(pages[0].width_mm, pages[0].height_mm))
    pdf.set_title(title)
    pdf.set_producer("mus-table")
    pdf.set_auto_page_break(False)
    pdf.set_margin(0)
    pdf.set_font("Helvetica")
    for page in pages:
        pdf.add_page(format=(page.width_mm, page.height_mm))
        for layer in page.layers:
            dx, dy = layer.offset
            shapes = [_moved(s, dx, dy) for s in layer.shapes if _visible(s, layer)]
            if layer.clip is None:
                for s in shapes:
                    _pdf_shape(pdf, s)
            else:
                with pdf.rect_clip(*layer.clip):
                    for s in shapes:
                        _pdf_shape(pdf, s)
    return bytes(pdf.output())


# --- PNG (raster, through OpenCV) -------------------------------------------------------------

_SHIFT = 4
_ONE = 1 << _SHIFT


def _fx(v: float, ppm: float) -> int:
    """mm to OpenCV's fixed-point pixels: pixel i covers mm [i, i + 1) / ppm, its centre is i."""
    return int(round((v * ppm - 0.5) * _ONE))


def _poly(points: Iterable[Point], ppm: float) -> np.ndarray:
    return np.array([[_fx(x, ppm), _fx(y, ppm)] for x, y in points], dtype=np.int32)


def _box_poly(x: float, y: float, w: float, h: float, ppm: float) -> np.ndarray:
    return _poly(((x, y), (x + w, y), (x + w, y + h), (x, y + h)), ppm)


def _bgr(c: RGB) -> tuple[int, int, int]:
    return (c[2], c[1], c[0])


def _pt(x: float, y: float, ppm: float) -> tuple[int, int]:
    return (_fx(x, ppm), _fx(y, ppm))


def _px(width_mm: float, ppm: float) -> int:
    """A stroke's width in whole pixels (OpenCV's thickness), at least one."""
    return max(1, round(width_mm * ppm))


def _draw_text(img: np.ndarray, s: Text, ppm: float) -> None:
    font = cv2.FONT_HERSHEY_SIMPLEX
    cap_px = CAP_HEIGHT_EM * s.size * ppm
    (_, h1), _ = cv2.getTextSize("H", font, 1.0, 1)
    scale = cap_px / h1
    thick = max(1, round(scale * 1.6))
    (tw, th), base = cv2.getTextSize(s.text, font, scale, thick)
    if tw == 0:
        return
    pad = thick + 2
    mask = np.zeros((th + base + 2 * pad, tw + 2 * pad), np.uint8)
    cv2.putText(mask, s.text, (pad, pad + th), font, scale, 255, thick, cv2.LINE_AA)
    bx, by = pad + tw / 2, pad + th  # the baseline centre in the mask
    k = s.turns % 4
    mh, mw = mask.shape
    mask = np.rot90(mask, k)
    for _ in range(k):  # follow the anchor through each counterclockwise quarter turn
        bx, by = by, mw - bx
        mh, mw = mw, mh
    x0 = int(round(s.x * ppm - bx))
    y0 = int(round(s.y * ppm - by))
    h, w = mask.shape
    ix0, iy0 = max(x0, 0), max(y0, 0)
    ix1, iy1 = min(x0 + w, img.shape[1]), min(y0 + h, img.shape[0])
    if ix0 >= ix1 or iy0 >= iy1:
        return
    a = mask[iy0 - y0:iy1 - y0, ix0 - x0:ix1 - x0].astype(np.float32)[..., None] / 255
    region = img[iy0:iy1, ix0:ix1].astype(np.float32)
    colour = np.array(_bgr(s.colour), np.float32)
    img[iy0:iy1, ix0:ix1] = (region * (1 - a) + colour * a).round().astype(np.uint8)


def _draw(img: np.ndarray, s: Shape, ppm: float) -> None:
    if isinstance(s, Rect):
        if s.fill is not None:
            cv2.fillPoly(img, [_box_poly(s.x, s.y, s.w, s.h, ppm)], _bgr(s.fill), cv2.LINE_8, _SHIFT)
        if s.stroke is not None:  # centred on the edge, like the PDF's and the SVG's
            cv2.rectangle(img, _pt(s.x, s.y, ppm), _pt(s.x + s.w, s.y + s.h, ppm), _bgr(s.stroke),
                          _px(s.width, ppm), cv2.LINE_8, _SHIFT)
    elif isinstance(s, RectUnion):
        cv2.fillPoly(img, [_box_poly(*b, ppm) for b in s.rects], _bgr(s.fill), cv2.LINE_8, _SHIFT)
    elif isinstance(s, Line):
        length = math.hypot(s.x1 - s.x0, s.y1 - s.y0) or 1.0
        on, off = s.dash or (length, 0.0)
        t = 0.0
        while t < length:
            a, b = t / length, min(t + on, length) / length
            cv2.line(img, _pt(s.x0 + (s.x1 - s.x0) * a, s.y0 + (s.y1 - s.y0) * a, ppm),
                     _pt(s.x0 + (s.x1 - s.x0) * b, s.y0 + (s.y1 - s.y0) * b, ppm),
                     _bgr(s.colour), _px(s.width, ppm), cv2.LINE_8, _SHIFT)
            t += on + off
    elif isinstance(s, Circle):
        cv2.circle(img, _pt(s.cx, s.cy, ppm), round(s.r * ppm * _ONE), _bgr(s.stroke),
                   _px(s.width, ppm), cv2.LINE_AA, _SHIFT)
    elif isinstance(s, Polygon):
        cv2.fillPoly(img, [_poly(s.points, ppm)], _bgr(s.fill), cv2.LINE_8, _SHIFT)
    else:
        _draw_text(img, s, ppm)


def render(page: Page, px_per_mm: float) -> np.ndarray:
    """The page as a BGR image, ``px_per_mm`` pixels per millimetre."""
    w, h = round(page.width_mm * px_per_mm), round(page.height_mm * px_per_mm)
    if w * h > MAX_PNG_PIXELS:
        raise InvalidInput(f"{w} x {h} px is too large an image; lower --dpi or use --tile", code="mat_too_large",
                               params={"w": w, "h": h})
    img = np.full((h, w, 3), 255, np.uint8)
    for layer in page.layers:
        target = img if layer.clip is None else img.copy()
        dx, dy = layer.offset
        for s in layer.shapes:
            if _visible(s, layer):
                _draw(target, _moved(s, dx, dy), px_per_mm)
        if layer.clip is not None:
            cx, cy, cw, ch = layer.clip
            x0, y0 = round(cx * px_per_mm), round(cy * px_per_mm)
            x1, y1 = round((cx + cw) * px_per_mm), round((cy + ch) * px_per_mm)
            img[y0:y1, x0:x1] = target[y0:y1, x0:x1]
    return img


def _moved(s: Shape, dx: float, dy: float) -> Shape:
    if dx == 0 and dy == 0:
        return s
    if isinstance(s, Rect):
        return replace(s, x=s.x + dx, y=s.y + dy)
    if isinstance(s, RectUnion):
        return replace(s, rects=tuple((x + dx, y + dy, w, h) for x, y, w, h in s.rects))
    if isinstance(s, Line):
        return replace(s, x0=s.x0 + dx, y0=s.y0 + dy, x1=s.x1 + dx, y1=s.y1 + dy)
    if isinstance(s, Circle):
        return replace(s, cx=s.cx + dx, cy=s.cy + dy)
    if isinstance(s, Polygon):
        return replace(s, points=tuple((x + dx, y + dy) for x, y in s.points))
    return replace(s, x=s.x + dx, y=s.y + dy)


def png_bytes(img: np.ndarray, dpi: float) -> bytes:
    """PNG bytes carrying the resolution (a pHYs chunk), so that it prints at true scale."""
    ok, buf = cv2.imencode(".png", img)
    if not ok:
        raise InvalidInput("could not encode the PNG")
    data = bytes(buf)
    ppm = round(dpi / 0.0254)
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    end_ihdr = 8 + 8 + 13 + 4
    return data[:end_ihdr] + chunk + data[end_ihdr:]


# --- files -------------------------------------------------------------------------------------

FORMATS = (".pdf", ".svg", ".png")


def write(out: Path, mat: Mat, palette: Palette = PALETTES["green"], tile: str | None = None,
          dpi: float = 150.0) -> list[Path]:
    """Write the mat to ``out`` (by its suffix); tiled SVG/PNG go one file per sheet,
    ``<stem>-01<suffix>`` and on, row by row. Returns the files written."""
    suffix = out.suffix.lower()
    if suffix not in FORMATS:
        raise InvalidInput(f"{out.name}: the output must end in .pdf, .svg or .png", code="mat_suffix",
                           params={"path": out.name})
    if not 30 <= dpi <= 1200:
        raise InvalidInput(f"--dpi {dpi:g}: between 30 and 1200, please", code="option_range",
                           params={"option": "--dpi", "least": 30, "most": 1200, "value": f"{dpi:g}"})
    pages = [whole_page(mat, palette)] if tile is None else [t.page for t in tiles(mat, palette, tile)]
    ppm = dpi / 25.4
    if suffix == ".png":  # fail before writing anything
        for p in pages[:1]:
            w, h = round(p.width_mm * ppm), round(p.height_mm * ppm)
            if w * h > MAX_PNG_PIXELS:
                raise InvalidInput(f"{w} x {h} px is too large an image; lower --dpi or use --tile", code="mat_too_large",
                               params={"w": w, "h": h})
    if suffix == ".pdf":
        out.write_bytes(pdf_document(pages, pages[0].label))
        return [out]
    paths = [out] if len(pages) == 1 else [
        out.with_name(f"{out.stem}-{i:02d}{out.suffix}") for i in range(1, len(pages) + 1)]
    for page, path in zip(pages, paths, strict=True):
        if suffix == ".svg":
            path.write_text(svg_document(page), encoding="utf-8")
        else:
            path.write_bytes(png_bytes(render(page, ppm), dpi))
    return paths
