"""Counting the stones in the pool and in each seat's stone zone.

Stones are flat round tokens 15-30 mm across, of one colour that stands out
from the felt; they may touch. On the rectified mat, what is unlike the felt
(:mod:`vision.felt`) is split into blobs. The size of one stone is learnt from
the frame itself (the median of the blobs that are single round discs), then
each blob is *peeled*: a stone-sized disc is placed at the blob's deepest point
(the distance transform's peak), removed, and so on until no stone-sized
part is left. That counts touching stones and gives each one a centre, so a
stone belongs to the zone that holds its centre, as the spec says.

A blob is not stones when it is thicker than a stone (a palm, a card), when
the discs do not account for it (fingers, a sleeve, a glare streak), or when
its colour is not the stones' colour. A hand over the pool is refused by these
tests in a single frame; :class:`StoneSmoother` adds the median over a few
frames for the live table.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

from vision.felt import LOG_OFFSET, Felt, channel_max, log_image
from vision.mat import Mat, Zone

Image = npt.NDArray[np.uint8]

STONE_MM = (15.0, 30.0)
"""Diameters of the tokens the spec allows."""
MIN_COLOUR_T = 0.1
"""Least colour difference (:meth:`vision.felt.Felt.contrast`) of a stone of another colour."""
MIN_LIGHT_T = 0.2
"""Least brightness gain over the felt of a stone of the felt's colour, lighter."""
DARKEST_SHADOW = 0.5
"""Shadows darken the felt to no less than this share of its light; darker is a stone."""
DARK_SEED = 0.56
"""A pixel this dark (against the felt model, which follows shadows) seeds a dark stone."""
DARK_GROW = 0.65
"""A dark stone is what is darker than this and joined to a seed (its rim straddles the limit)."""
MARGIN_MM = 18.0
"""How far beyond a zone's edge a stone centred in it may reach."""
COLOUR_TOL = 0.5
"""How far (largest per-channel log ratio) a pixel's colour may be from the stones' to be one of them."""
MAX_DEPTH = 2.1
"""A blob of stones is nowhere thicker than this many stone radii (seven in a flower: 1.75 to 2)."""
SEARCH_PAD_MM = 40.0
"""Room searched around each region, so that a card or an arm reaching in is seen as one big blob."""
BLOB_PAD = 4
"""Pixels of the blob's surroundings kept around each blob's crop."""
SOFT_EDGE = 0.5
"""A blob that keeps more than this share of its contrast just outside its edge is the felt's own blotch."""
GLARE_STEP_MM = 3.0
"""Resolution of the glare fields (a glare is broad)."""
GLARE_SMOOTH_MM = 6.0
"""Smoothing of the glare fields: wider than a gap between stones, narrower than a glare."""
GLARE_MIN_MM = 35.0
"""Least radius of a glare: smaller bright spots are things lying there (a white stone)."""
GLARE_MIN = 25.0
"""White (grey levels) a glare adds before it is taken off."""
PALE_MIN = 0.12
"""Least contrast along the stones' hue (log ratio) of a stone paled by a glare, disc against ring."""
PALE_SHARE = 0.15
"""... and least share of the stones' own contrast it keeps."""
PALE_COS = 0.7
"""A paled stone keeps the stones' hue: cosine of its colour (log ratios to the felt) to theirs."""


@dataclass(frozen=True, slots=True)
class StoneCount:
    """Stones by zone: the pool and each seat's stone zone."""

    pool: int = 0
    seats: tuple[int, int, int, int] = (0, 0, 0, 0)

    def to_json(self) -> dict[str, object]:
        return {"pool": self.pool, "seats": list(self.seats)}

    def __str__(self) -> str:
        return f"pool {self.pool}, seats {' '.join(str(s) for s in self.seats)}"


@dataclass(frozen=True, slots=True)
class Stone:
    """One stone found: its centre on the mat (mm) and its zone (None: outside every zone)."""

    x: float
    y: float
    zone: Zone | None


@dataclass(frozen=True, slots=True)
class Rejected:
    """A blob near the stones that was not counted, and why."""

    zone: Zone | None
    box: tuple[int, int, int, int]
    why: str


@dataclass(frozen=True)
class StoneReading:
    count: StoneCount
    stones: tuple[Stone, ...] = ()
    rejected: tuple[Rejected, ...] = ()
    diameter_mm: float | None = None
    """The diameter of one stone as learnt from this frame."""
    colour: tuple[float, float, float] | None = field(default=None)


def _regions(mat: Mat) -> list[tuple[float, float, float, float]]:
    cx, cy = mat.centre
    r = mat.pool_radius + MARGIN_MM
    out = [(cx - r, cy - r, cx + r, cy + r)]
    for seat in range(4):
        x0, y0, x1, y1 = mat.stone_zone(seat)
        out.append((x0 - MARGIN_MM, y0 - MARGIN_MM, x1 + MARGIN_MM, y1 + MARGIN_MM))
    return out


def _fill_small_holes(mask: Image, max_area: float, round_area: float = 0.0) -> Image:
    """Fill a mask's holes under ``max_area`` px (specks), and round ones under ``round_area``.

    A stone's printed centre or its highlight leaves a round hole; the gap
    between three touching stones is a hollow triangle and is left open (it
    is felt), so the blob's area still counts the stones.
    """
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
    if hierarchy is None:
        return mask
    out = mask.copy()
    holes = [c for c, hier in zip(contours, hierarchy[0], strict=True) if hier[3] >= 0]
    for c in holes:
        area = float(cv2.contourArea(c)) + 0.5 * float(cv2.arcLength(c, True))  # px inside the hole
        if area < max_area:
            cv2.drawContours(out, [c], -1, 255, -1)
        elif area < round_area:
            circ = 4 * math.pi * cv2.contourArea(c) / max(cv2.arcLength(c, True), 1e-6) ** 2
            if circ > 0.6:
                cv2.drawContours(out, [c], -1, 255, -1)
    return out


@dataclass
class _Blob:
    mask: Image  # crop of the blob (255 inside), padded
    x0: int  # crop origin in rectified px
    y0: int
    area: float  # px
    perimeter: float
    hull_area: float
    depth: float  # distance-transform peak, px
    colour: npt.NDArray[np.float32]  # median signed log ratio to the felt, per channel
    touches_edge: bool  # reaches the edge of the searched area: bigger than it
    signed: npt.NDArray[np.float32]  # log ratio to the felt of the blob's box (crop-sized, 3 channels)
    split: bool = False  # already a part of a blob split by colour
    disc: bool = False  # a round part cut from a blob at its necks: one whole stone or nothing

    @property
    def equivalent_radius(self) -> float:
        return math.sqrt(self.area / math.pi)

    @property
    def round_single(self) -> bool:
        circ = 4 * math.pi * self.area / max(self.perimeter, 1e-6) ** 2
        solidity = self.area / max(self.hull_area, 1e-6)
        return circ > 0.78 and solidity > 0.93 and self.depth > 0.75 * self.equivalent_radius


def _dark(a: npt.NDArray[np.float32]) -> npt.NDArray[np.bool_]:
    """Darker than any shadow, and what is a little less dark around it (a dark stone on dark felt).

    A black stone on dark felt lies near the shadow limit: its pixels straddle
    it and it falls apart into crumbs, each of which would count a stone. The
    darkest pixels (:data:`DARK_SEED`) are seeds; the stone is what is darker
    than :data:`DARK_GROW` and joined to a seed. A shadow alone has no seed, so
    it never grows.
    """
    seed = a < DARK_SEED
    if not seed.any():
        return seed
    n, labels = cv2.connectedComponents((a < DARK_GROW).astype(np.uint8), connectivity=8)
    keep = np.zeros(n, bool)
    keep[np.unique(labels[seed])] = True  # seeds lie inside the grown parts, never in label 0
    return np.asarray(keep[labels])


def _blobs(mask: Image, signed: npt.NDArray[np.float32], min_area: float) -> list[_Blob]:
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    out = []
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if area < min_area:
            continue
        pad = BLOB_PAD
        crop = np.zeros((h + 2 * pad, w + 2 * pad), np.uint8)
        crop[pad:pad + h, pad:pad + w][labels[y:y + h, x:x + w] == i] = 255
        contours, _ = cv2.findContours(crop, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        cnt = max(contours, key=cv2.contourArea)
        hull = cv2.convexHull(cnt)
        dt = cv2.distanceTransform(crop, cv2.DIST_L2, 5)
        inside = crop[pad:pad + h, pad:pad + w] > 0
        colour = np.median(signed[y:y + h, x:x + w][inside], axis=0).astype(np.float32)
        touches = x == 0 or y == 0 or x + w == mask.shape[1] or y + h == mask.shape[0]
        box = np.zeros((h + 2 * pad, w + 2 * pad, 3), np.float32)
        # with what lies around the blob too (its edge is judged by it)
        sy0, sy1 = max(0, y - pad), min(signed.shape[0], y + h + pad)
        sx0, sx1 = max(0, x - pad), min(signed.shape[1], x + w + pad)
        box[sy0 - y + pad:sy1 - y + pad, sx0 - x + pad:sx1 - x + pad] = signed[sy0:sy1, sx0:sx1]
        out.append(_Blob(crop, x - pad, y - pad, float(area), float(cv2.arcLength(cnt, True)),
                         float(cv2.contourArea(hull)), float(dt.max()), colour, touches, box))
    return out


def _arc_radii(blob: _Blob, k: float) -> npt.NDArray[np.float64]:
    """Radii (px) of circles fitted to short stretches of a blob's outline that bulge outwards.

    A cluster of touching stones is outlined by arcs of one stone's radius,
    meeting at notches; straight or hollow stretches are left out.
    """
    contours, _ = cv2.findContours(blob.mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return np.zeros(0)
    pts = max(contours, key=cv2.contourArea).reshape(-1, 2).astype(np.float64)
    n = len(pts)
    half = max(3, int(round(9.0 * k)))  # stretches of about 18 mm of outline
    if n < 2 * half + 3:
        return np.zeros(0)
    idx = (np.arange(n)[:, None] + np.arange(-half, half + 1)[None, :]) % n
    x, y = pts[idx, 0], pts[idx, 1]
    # algebraic circle fit per stretch: x^2 + y^2 + D x + E y + F = 0
    mx, my = x.mean(axis=1, keepdims=True), y.mean(axis=1, keepdims=True)
    u, v = x - mx, y - my
    suu, svv, suv = (u * u).sum(1), (v * v).sum(1), (u * v).sum(1)
    suuu, svvv = (u ** 3).sum(1), (v ** 3).sum(1)
    suvv, svuu = (u * v * v).sum(1), (v * u * u).sum(1)
    det = suu * svv - suv ** 2
    ok = np.abs(det) > 1e-9
    det = np.where(ok, det, 1.0)
    bu = 0.5 * (suuu + suvv)
    bv = 0.5 * (svvv + svuu)
    uc = (bu * svv - bv * suv) / det
    vc = (bv * suu - bu * suv) / det
    # + 0.5: the outline's pixel centres lie half a pixel inside the edge
    r = np.sqrt(uc ** 2 + vc ** 2 + (suu + svv) / (2 * half + 1)) + 0.5
    cx, cy = uc + mx[:, 0], vc + my[:, 0]
    inside = np.zeros(n, bool)
    h, w = blob.mask.shape
    xi, yi = np.clip(np.round(cx).astype(int), 0, w - 1), np.clip(np.round(cy).astype(int), 0, h - 1)
    inside = blob.mask[yi, xi] > 0  # bulging outwards: the centre lies inside the blob
    fit_r = np.sqrt((x - cx[:, None]) ** 2 + (y - cy[:, None]) ** 2)
    residual = np.sqrt(((fit_r - (r[:, None] - 0.5)) ** 2).mean(axis=1))
    keep = (ok & inside & (residual < 0.5) & (r >= STONE_MM[0] * 0.4 * k)
            & (r <= STONE_MM[1] * 0.6 * k))
    return np.asarray(r[keep], np.float64)


def _peel(blob: _Blob, radius: float, max_stones: int = 80) -> tuple[list[tuple[float, float]], float]:
    """Stone centres (crop px) peeled off a blob, and the share of the blob the discs cover."""
    work = blob.mask.copy()
    discs = np.zeros_like(work)
    centres: list[tuple[float, float]] = []
    while len(centres) < max_stones:
        dt = cv2.distanceTransform(work, cv2.DIST_L2, 5)
        _, peak, _, (px, py) = cv2.minMaxLoc(dt)
        if peak < 0.55 * radius:
            break
        # centre the disc on the plateau of the peak (sub-pixel by the local DT mass)
        y0, y1 = max(0, py - 2), py + 3
        x0, x1 = max(0, px - 2), px + 3
        win = dt[y0:y1, x0:x1]
        win = np.where(win >= peak - 0.75, win, 0.0)
        ys, xs = np.mgrid[y0:y0 + win.shape[0], x0:x0 + win.shape[1]]
        total = float(win.sum())
        cx = float((win * xs).sum() / total) if total else float(px)
        cy = float((win * ys).sum() / total) if total else float(py)
        centres.append((cx, cy))
        c = (round(cx), round(cy))
        cv2.circle(work, c, int(round(radius * 1.08)), 0, -1)
        cv2.circle(discs, c, int(round(radius)), 255, -1)
    inside = blob.mask > 0
    covered = float(np.count_nonzero(discs[inside] > 0)) / max(1.0, float(np.count_nonzero(inside)))
    return centres, covered


def count_stones(rectified: Image, felt: Felt, px_per_mm: float, mat: Mat | None = None,
                 exclude: Image | None = None) -> StoneReading:
    """Count the stones of a rectified mat image (``px_per_mm``), with its felt model.

    ``exclude`` (255 where something else is known to lie, e.g. the cards
    found) is left out of the search.
    """
    mat = mat or Mat()
    k = px_per_mm
    h, w = rectified.shape[:2]
    colour_t, light_t = _thresholds(rectified, felt)
    if exclude is not None:
        # a card lies in a card zone: what the card finder took for a card inside a stone zone or the pool
        # (a cluster of white stones is card-sized) is looked at again; a real card there is refused anyway
        exclude = exclude.copy()
        for seat in range(4):
            zx0, zy0, zx1, zy1 = mat.stone_zone(seat)
            exclude[int(zy0 * k):int(zy1 * k), int(zx0 * k):int(zx1 * k)] = 0
        cv2.circle(exclude, (int(mat.centre[0] * k), int(mat.centre[1] * k)), int(mat.pool_radius * k), 0, -1)
    glared = np.zeros((h, w), np.uint8)  # where a glare was taken off
    markers = np.zeros((h, w), np.uint8)  # the markers and their white quiet zones
    for mid in range(4):
        (mx0, my0), (mx1, my1) = np.min(mat.marker_corners(mid), axis=0), np.max(mat.marker_corners(mid), axis=0)
        cv2.rectangle(markers, (int((mx0 - 16) * k), int((my0 - 16) * k)), (int((mx1 + 16) * k), int((my1 + 16) * k)),
                      255, -1)
    r_min = STONE_MM[0] / 2 * k
    # an opening with a disc well under a stone's width drops printed lines and specks
    d = 2 * round(0.2 * STONE_MM[0] * k) + 1
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (d, d))
    regions = []
    for rx0, ry0, rx1, ry1 in _regions(mat):
        # each region searched with room around it, so a card or an arm is seen whole
        x0, y0 = max(0, int((rx0 - SEARCH_PAD_MM) * k)), max(0, int((ry0 - SEARCH_PAD_MM) * k))
        x1, y1 = min(w, int((rx1 + SEARCH_PAD_MM) * k)), min(h, int((ry1 + SEARCH_PAD_MM) * k))
        if x1 <= x0 or y1 <= y0:
            continue
        felt_map = np.ascontiguousarray(felt.colour_map[y0:y1, x0:x1])
        known = np.ascontiguousarray(markers[y0:y1, x0:x1])
        if exclude is not None:
            known = np.maximum(known, exclude[y0:y1, x0:x1])
        seen, felt_map, amp = _deglare(np.ascontiguousarray(rectified[y0:y1, x0:x1]), felt_map, felt.colour, k,
                                       colour_t, known)
        a, dp = Felt(felt_map, felt.colour, felt.free).contrast(seen)
        # a stone is of another colour, or lighter, or far darker than a shadow
        # (where a glare was taken off, the darkness is noisier: the plain limit, no growth from
        # seeds, which there grew haze into stones: seed 23 scene 89 read 14 pool stones for 10)
        lit = (dp > colour_t) | (a > 1.0 + light_t)
        dark = _dark(a) if amp is None else a < DARKEST_SHADOW
        stone = lit | dark
        if amp is not None:  # under a glare taken off the noise is louder: thresholds there from the felt's spread there
            under = (amp > 1.05) & ~stone
            if np.count_nonzero(under) > 100:
                # what is left of the glare (a haze, broad) measured on the felt around and taken off too;
                # the noise there is what a small blur takes away
                wgt = under.astype(np.float32)
                s_bg = GLARE_SMOOTH_MM * 2.0 * k
                den = cv2.GaussianBlur(wgt, (0, 0), s_bg) + 1e-3
                glare_on = amp > 1.05
                a = np.where(glare_on, a - cv2.GaussianBlur((a - 1.0) * wgt, (0, 0), s_bg) / den, a)
                dp = np.where(glare_on, dp - cv2.GaussianBlur(dp * wgt, (0, 0), s_bg) / den, dp)
                a_hf = (a - cv2.GaussianBlur(a, (0, 0), 2.0))[under]
                dp_hf = (dp - cv2.GaussianBlur(dp, (0, 0), 2.0))[under]
                ct_u = max(colour_t, 6.0 * _spread(dp_hf))
                lt_u = max(light_t, 6.0 * _spread(a_hf))
                lit = np.where(glare_on, (dp > ct_u) | (a > 1.0 + lt_u), lit)
                dark = np.where(glare_on, a < DARKEST_SHADOW, dark)
                stone = lit | dark
        signed = np.asarray(cv2.subtract(log_image(seen), np.log(felt_map + LOG_OFFSET)), dtype=np.float32)
        if amp is not None:
            glared[y0:y1, x0:x1][amp > 1.05] = 255
        regions.append(((rx0, ry0, rx1, ry1), (x0, y0, x1, y1), stone, signed, dark & ~lit))

    first: list[list[_Blob]] = []

    def cut(mask: Image, i: int, radius: float) -> list[_Blob]:
        """The blobs of a region's stone mask (255), opened, small holes filled, near the region."""
        (rx0, ry0, rx1, ry1), (x0, y0, _, _), _, signed, _ = regions[i]
        if exclude is not None:
            mask[exclude[y0:y0 + mask.shape[0], x0:x0 + mask.shape[1]] > 0] = 0
        # the gaps between three touching stones are felt, and stay holes: the area counts stones
        mask = _fill_small_holes(np.asarray(cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel), np.uint8),
                                 0.02 * math.pi * (STONE_MM[0] / 2 * k) ** 2, 0.2 * math.pi * radius ** 2)
        kept = []
        for b in _blobs(mask, signed, min_area=0.35 * math.pi * r_min ** 2):
            b.x0 += x0
            b.y0 += y0
            cx, cy = (b.x0 + b.mask.shape[1] / 2) / k, (b.y0 + b.mask.shape[0] / 2) / k
            if rx0 - STONE_MM[1] <= cx <= rx1 + STONE_MM[1] and ry0 - STONE_MM[1] <= cy <= ry1 + STONE_MM[1]:
                kept.append(b)
        return kept

    def search(colour: npt.NDArray[np.float32] | None, radius: float) -> list[_Blob]:
        found: list[_Blob] = []
        for i, (_, (x0, y0, _, _), stone, signed, only_dark) in enumerate(regions):
            if colour is None:
                first.append(cut((stone * 255).astype(np.uint8), i, radius))
                found.extend(first[i])
                continue
            # and what has the stones' own colour (a stone in a shadow)
            off = channel_max(np.asarray(cv2.absdiff(signed, np.full_like(signed, colour)), np.float32))
            # nearer the stones' colour than the felt's: paled stones never make the felt a stone
            extra = (off < 0.8 * COLOUR_TOL) & (off < 0.8 * channel_max(np.abs(signed))) & ~stone
            worth = 0.1 * math.pi * radius ** 2
            # a deep shadow matters where it makes a third of a stone of a blob found (a stone's own
            # shadow beside it is less)
            shaded: list[_Blob] = []
            shadow = np.zeros_like(stone)
            if any(_count_in(only_dark, b, x0, y0) >= 3 * worth for b in first[i]):
                shadow = _deep_shadow(signed, colour, only_dark)
                shaded = [b for b in first[i] if _count_in(shadow, b, x0, y0) >= 3 * worth]
            if np.count_nonzero(extra) >= 0.02 * np.count_nonzero(stone) + worth:
                found.extend(cut(((stone & ~shadow if shaded else stone) | extra).astype(np.uint8) * 255, i, radius))
                continue
            # nothing worth a second look, but the blobs a deep shadow joined: those again, without it
            found.extend(b for b in first[i] if not any(b is c for c in shaded))
            if shaded:
                mask = np.zeros(stone.shape, np.uint8)
                for b in shaded:
                    _paint(mask, b, x0, y0)
                mask[shadow] = 0
                found.extend(cut(mask, i, radius))
        return found

    blobs = search(None, STONE_MM[1] / 2 * k)  # round holes up to the largest stone's are filled

    singles = _in_plain_light([b for b in blobs if b.round_single
                               and STONE_MM[0] * 0.4 * k <= b.equivalent_radius <= STONE_MM[1] * 0.6 * k], glared)
    if singles:
        radius = float(np.median([b.equivalent_radius for b in singles]))
        colour = np.median(np.stack([b.colour for b in singles]), axis=0)
    else:
        # every stone touches another: their outlines are still arcs of one stone's radius
        small = [b for b in blobs if not b.touches_edge and b.depth <= STONE_MM[1] * 0.6 * 2 * k]
        arcs = np.concatenate([_arc_radii(b, k) for b in small]) if small else np.zeros(0)
        if arcs.size == 0:
            return StoneReading(StoneCount(), (), tuple(_rejected(b, k, mat, "not a stone")
                                                        for b in blobs))
        radius = float(np.median(arcs))
        colour = np.median(np.stack([b.colour for b in small]), axis=0)
    # again, now that the stones' colour is known: the parts of stones the first cut missed;
    # and the size of one stone again, from these whole stones; and without the deep shadows
    # beside them (what only darkness made stones, not of the stones' hue)
    blobs = search(np.asarray(colour, np.float32), radius)
    singles = _in_plain_light([b for b in blobs if b.round_single and abs(b.equivalent_radius / radius - 1) < 0.3],
                              glared)
    if singles:
        radius = float(np.median([b.equivalent_radius for b in singles]))

    stones: list[Stone] = []
    rejected: list[Rejected] = []
    queue = list(blobs)
    seen_blobs = np.zeros((h, w), np.uint8)  # the stones counted and the large things refused
    while queue:
        b = queue.pop(0)
        why = _not_stones(b, radius, colour, glared)
        peeled: tuple[list[tuple[float, float]], float] | None = None
        if why is None and b.area > 3.5 * math.pi * radius ** 2:
            # stone-sized discs leave much of it (fingers, a sleeve); a ragged cluster of stones is still
            # covered by its discs, a compact one is not ragged
            peeled = _peel(b, radius)
            covered = peeled[1]
            if (b.area > 5.5 * math.pi * radius ** 2 and covered < 0.66) or (
                    covered < 0.8 and b.area < 0.65 * b.hull_area):
                why = "not round stones"
        if why is not None and not b.split:
            # stones touching something else (a glare, a hand, a card): keep the stones' colour
            # round stones at its edge first (a hand's), then the rest by the stones' colour
            parts, taken = _disc_parts(b, radius)
            parts += _colour_parts(b, colour, radius, taken)
            if parts:
                queue.extend(parts)
                continue
        n = 0
        if why is None and b.disc:
            n_area = b.area / (math.pi * radius ** 2)
            if not (b.round_single and 0.75 <= n_area <= 1.3):
                why = "not a whole stone"  # a fingertip, a knuckle: only whole discs count
        if why is None:
            # touching stones of one size: the blob's area counts them; peeling places them
            n_area = b.area / (math.pi * radius ** 2)
            if not b.split and n_area > 1.2 and 0.7 * radius <= b.depth < 0.9 * radius and _under_glare(b, glared):
                # stones a glare paled lose their rims to the cut: touching, they are as thick as they
                # look, not as the stones in plain light (seed 11 scene 24: five read as three)
                n_area = b.area / (math.pi * b.depth ** 2)
            n = int(round(n_area))
            if n >= 2 and abs(n_area - n) > 0.3 and _under_glare(b, glared):
                # where a glare was taken off a haze of it may cling to the stones, or their paled edges
                # be lost: between two counts, the stone-sized discs that fit in the blob decide
                n = min(max(len(_peel(b, radius)[0]), math.floor(n_area)), math.ceil(n_area))
            solidity = b.area / max(b.hull_area, 1e-6)
            if n < 1:
                why = "smaller than a stone"
            elif n >= 2 and solidity > (0.94 if b.split else 0.985):
                why = "not round stones"  # touching discs leave notches; a bar or a blob (a finger) does not
            elif b.split and (n > 5 or solidity < 0.7 or b.depth > 1.3 * radius):
                why = "not stones"  # what is left of a hand or a glare of the stones' colour
            elif b.split and n >= 2 and _peel(b, radius)[1] < 0.7:
                why = "not stones"  # a piece of a hand or arm of the stones' colour: discs leave much of it
            elif b.split and b.depth < 0.8 * radius and float(np.abs(b.colour - colour).max()) > 0.25:
                why = "no stone fits in it"  # a fingertip of nearly the stones' colour (a stone half hidden is theirs)
            elif b.split and b.area / (math.pi * b.depth ** 2) > max(2.5, 1.3 * n_area):
                why = "thinner than a stone"  # a finger of the stones' colour
        if why is not None:
            rejected.append(_rejected(b, k, mat, why))
            if b.area > 2.0 * math.pi * radius ** 2:
                _paint(seen_blobs, b)  # a hand, a card, a sleeve: nothing in it is looked at again
            continue
        _paint(seen_blobs, b)
        # the peel is greedy: its first n discs are the same whether it stops at n or goes on
        centres = peeled[0][:n] if peeled is not None else _peel(b, radius, max_stones=n)[0]
        ys, xs = np.nonzero(b.mask)
        while len(centres) < n:  # stones the peel could not place: at the blob's middle
            centres.append((float(xs.mean()), float(ys.mean())))
        for cx, cy in centres:
            x, y = (b.x0 + cx + 0.5) / k, (b.y0 + cy + 0.5) / k
            stones.append(Stone(x, y, mat.zone_at(x, y)))
    if glared.any():
        known_all = np.maximum(markers, exclude) if exclude is not None else markers
        for cx, cy in _paled_stones(regions, glared, seen_blobs | known_all, colour, radius):
            x, y = (cx + 0.5) / k, (cy + 0.5) / k
            stones.append(Stone(x, y, mat.zone_at(x, y)))
    pool = sum(1 for s in stones if s.zone is Zone.POOL)
    seats = tuple(sum(1 for s in stones if s.zone is Zone.stones(i)) for i in range(4))
    colour_bgr = tuple(float(c) for c in colour)
    return StoneReading(StoneCount(pool, seats), tuple(stones), tuple(rejected),  # type: ignore[arg-type]
                        2 * radius / k, colour_bgr)  # type: ignore[arg-type]


def _paint(canvas: Image, b: _Blob, ox: int = 0, oy: int = 0) -> None:
    """Mark a blob's pixels (255) on a mask whose origin lies at (ox, oy) on the mat."""
    h, w = b.mask.shape
    bx, by = b.x0 - ox, b.y0 - oy
    y0, x0 = max(0, by), max(0, bx)
    dst = canvas[y0:by + h, x0:bx + w]
    dst |= b.mask[y0 - by:y0 - by + dst.shape[0], x0 - bx:x0 - bx + dst.shape[1]]


def _ring_kernel(r0: float, r1: float) -> npt.NDArray[np.float32]:
    """A normalised flat kernel over the ring r0 <= d < r1 (a disc when r0 is 0)."""
    half = int(math.ceil(r1))
    yy, xx = np.mgrid[-half:half + 1, -half:half + 1]
    d = np.hypot(xx, yy)
    kern = ((d >= r0) & (d < r1)).astype(np.float32)
    return np.asarray(kern / kern.sum(), np.float32)


def _paled_stones(regions: list[tuple[tuple[float, float, float, float], tuple[int, int, int, int], npt.NDArray[np.bool_],
                                      npt.NDArray[np.float32], npt.NDArray[np.bool_]]],
                  glared: Image, taken: Image, colour: npt.NDArray[np.float32], radius: float
                  ) -> list[tuple[float, float]]:
    """Centres (rectified px) of the stones a glare paled below the pixel thresholds.

    Under a glare of 0.6-0.9 a stone keeps its hue but loses half or more of
    its contrast: its pixels fall under the thresholds, or the few that pass
    make a blob too small or too pale to be a stone. Along the stones' hue,
    the mean over a stone-sized disc less the mean over the ring around it
    still stands out; at each such peak, where a glare was taken off and
    nothing was counted or refused, the stone is cut at half its contrast
    and counted only if that cut is one round stone of the frame's size or
    a few touching, of the stones' hue, with a sharp edge (a haze of the
    glare or a blotch of the felt rises slowly).
    """
    norm = float(np.linalg.norm(colour))
    if norm < 1e-6:
        return []
    u = (colour / norm).astype(np.float32).reshape(1, 3)
    disc, around = _ring_kernel(0.0, 0.8 * radius), _ring_kernel(1.25 * radius, 1.8 * radius)
    peak_disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * round(radius) + 1,) * 2)
    out: list[tuple[float, float]] = []
    done = taken.copy()
    pad = int(math.ceil(2.0 * radius))
    for _, (rx0, ry0, _, _), _, whole, _ in regions:
        rh, rw = whole.shape[:2]
        gys, gxs = np.nonzero(glared[ry0:ry0 + rh, rx0:rx0 + rw])
        if not len(gys):
            continue
        # only around the glare (with room for a stone and its ring)
        cx0, cy0 = max(0, int(gxs.min()) - pad), max(0, int(gys.min()) - pad)
        cx1, cy1 = min(rw, int(gxs.max()) + pad + 1), min(rh, int(gys.max()) + pad + 1)
        signed = np.ascontiguousarray(whole[cy0:cy1, cx0:cx1])
        x0, y0 = rx0 + cx0, ry0 + cy0
        hh, ww = signed.shape[:2]
        glare = glared[y0:y0 + hh, x0:x0 + ww] > 0
        s = np.asarray(cv2.transform(signed, u), np.float32)
        inner = cv2.filter2D(s, -1, disc, borderType=cv2.BORDER_REFLECT)
        outer = cv2.filter2D(s, -1, around, borderType=cv2.BORDER_REFLECT)
        resp = inner - outer
        peaks = (resp >= cv2.dilate(resp, peak_disc)) & (resp > max(PALE_MIN, PALE_SHARE * norm)) & glare
        ys, xs = np.nonzero(peaks)
        for py, px in sorted(zip(ys.tolist(), xs.tolist(), strict=True), key=lambda p: -resp[p[0], p[1]]):
            if done[y0 + py, x0 + px]:
                continue
            found = _paled_stone(s, signed, px, py, float(inner[py, px]), float(outer[py, px]), colour, radius)
            if found is None:
                continue
            centres, part, (wx0, wy0) = found
            region_done = done[y0:y0 + hh, x0:x0 + ww]
            sub = region_done[wy0:wy0 + part.shape[0], wx0:wx0 + part.shape[1]]
            if np.count_nonzero(sub[part > 0]) > 0.1 * np.count_nonzero(part):
                continue  # it overlaps what was counted or refused
            sub |= np.asarray(cv2.dilate(part, _rim(radius)), np.uint8)[:sub.shape[0], :sub.shape[1]]
            out.extend((x0 + cx, y0 + cy) for cx, cy in centres)
    return out


def _paled_stone(s: npt.NDArray[np.float32], signed: npt.NDArray[np.float32], px: int, py: int,
                 inner: float, outer: float, colour: npt.NDArray[np.float32], radius: float
                 ) -> tuple[list[tuple[float, float]], Image, tuple[int, int]] | None:
    """The stones at a peak of the disc response, cut at half its contrast: their centres, the cut and its origin.

    None unless the cut is one round stone of the frame's size or a few
    touching (counted by area, with the notches touching leaves), of the
    stones' hue, with a sharp edge.
    """
    hh, ww = s.shape
    half = int(math.ceil(3.5 * radius))
    wx0, wy0 = max(0, px - half), max(0, py - half)
    wx1, wy1 = min(ww, px + half + 1), min(hh, py + half + 1)
    win = s[wy0:wy1, wx0:wx1]
    cut = (win > outer + 0.5 * (inner - outer)).astype(np.uint8) * 255
    # printed lines and specks are thinner than half a stone: an opening takes them off
    cut = np.asarray(cv2.morphologyEx(cut, cv2.MORPH_OPEN, cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (2 * max(1, round(0.25 * radius)) + 1,) * 2)), np.uint8)
    _, labels, stats, cents = cv2.connectedComponentsWithStats(cut, connectivity=8)
    lab = labels[py - wy0, px - wx0]
    if lab == 0:
        return None
    x, y, bw, bh, area = (int(v) for v in stats[lab])
    if x == 0 or y == 0 or x + bw == win.shape[1] or y + bh == win.shape[0]:
        return None  # reaches out of the window: bigger than a few stones
    part = (labels == lab).astype(np.uint8) * 255
    n_area = area / (math.pi * radius ** 2)
    contours, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    cnt = max(contours, key=cv2.contourArea)
    circ = 4 * math.pi * area / max(float(cv2.arcLength(cnt, True)), 1e-6) ** 2
    solidity = area / max(float(cv2.contourArea(cv2.convexHull(cnt))), 1e-6)
    # cut at half their contrast, stones lose their darker rims: a single one is 0.7-0.9 of a stone
    if 0.7 <= n_area <= 1.35:
        if circ <= 0.75 or solidity <= 0.9:
            return None
        n = 1
    else:
        n = int(round(n_area / 0.85))
        depth = float(cv2.distanceTransform(part, cv2.DIST_L2, 5).max())
        if not (2 <= n <= 4 and abs(n_area / 0.85 - n) < 0.3 and 0.72 <= solidity <= 0.95
                and 0.7 * radius <= depth <= 1.2 * radius):
            return None
    mean = signed[wy0:wy1, wx0:wx1][part > 0].mean(axis=0)
    if _cosine(mean, colour) < PALE_COS:
        return None  # not the stones' hue
    # a sharp edge: just outside the cut the contrast is back to the felt's
    ring = (cv2.dilate(part, np.ones((7, 7), np.uint8)) > 0) & ~(cv2.dilate(part, np.ones((3, 3), np.uint8)) > 0)
    inside = float(np.median(win[part > 0])) - outer
    if inside <= 0 or (float(np.median(win[ring])) - outer) / inside > SOFT_EDGE:
        return None
    if n == 1:
        cx, cy = cents[lab]
        centres = [(float(cx), float(cy))]
    else:
        blob = _Blob(part, 0, 0, float(area), 0.0, 0.0, 0.0, np.zeros(3, np.float32), False,
                     np.zeros((*part.shape, 3), np.float32))
        centres = _peel(blob, 0.92 * radius, max_stones=n)[0]
        ys, xs = np.nonzero(part)
        while len(centres) < n:
            centres.append((float(xs.mean()), float(ys.mean())))
    return [(wx0 + cx, wy0 + cy) for cx, cy in centres], part, (wx0, wy0)


def _in_plain_light(blobs: list[_Blob], glared: Image) -> list[_Blob]:
    """The blobs away from any glare taken off (they give the stones' size and colour), if any."""
    plain = [b for b in blobs
             if not glared[min(b.y0 + b.mask.shape[0] // 2, glared.shape[0] - 1),
                           min(b.x0 + b.mask.shape[1] // 2, glared.shape[1] - 1)]]
    return plain or blobs


def _colour_parts(b: _Blob, colour: npt.NDArray[np.float32], radius: float,
                  taken: Image | None = None) -> list[_Blob]:
    """The parts of a blob that have the stones' colour, as blobs of their own (never split again).

    ``taken`` (255 where stones were already cut from the blob) is left out.
    """
    near = np.abs(b.signed - colour).max(axis=2) < COLOUR_TOL
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * max(1, round(0.25 * radius)) + 1,) * 2)
    sub = np.asarray(cv2.morphologyEx(((b.mask > 0) & near).astype(np.uint8) * 255, cv2.MORPH_OPEN, disc), np.uint8)
    if not sub.any() or np.count_nonzero(sub) > 0.97 * np.count_nonzero(b.mask):
        return []  # all of it has the stones' colour (a hand like them): colour cannot split it
    if taken is not None:
        sub = np.asarray(cv2.morphologyEx(((b.mask > 0) & near & (taken == 0)).astype(np.uint8) * 255,
                                          cv2.MORPH_OPEN, disc), np.uint8)
    # give back the stones' darker rims: a little growth, inside the blob only
    sub = np.asarray(cv2.dilate(sub, _rim(radius)), np.uint8) & b.mask
    parts = _blobs(sub, b.signed, min_area=0.35 * math.pi * radius ** 2)
    for p in parts:
        p.x0 += b.x0
        p.y0 += b.y0
        p.split = True
    return parts


def _rim(radius: float) -> Image:
    """A disc as wide as a stone's darker rim: what a cut of the stones' colour leaves off."""
    d = 2 * max(1, round(0.15 * radius)) + 1
    return np.asarray(cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (d, d)), np.uint8)


def _disc_parts(b: _Blob, radius: float) -> tuple[list[_Blob], Image | None]:
    """The round stones at the edge of a refused blob (stones touching a hand), one by one.

    Eroded by 0.7 of a stone's radius, touching stones fall apart into small
    cores (they meet at a point), while a palm and its fingers stay one part.
    Each small core grown back inside the blob is a candidate; only a whole
    round stone is kept (never split again).
    """
    if b.area < 2.0 * math.pi * radius ** 2:
        return [], None
    d = 2 * max(1, round(0.7 * radius)) + 1
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (d, d))
    core = np.asarray(cv2.erode(b.mask, disc), np.uint8)
    # a stone lying against a finger or the palm is still tied to it by a thread: cut the threads
    thread = 2 * max(1, round(0.2 * radius)) + 1
    core = np.asarray(cv2.morphologyEx(core, cv2.MORPH_OPEN,
                                       cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (thread, thread))), np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(core, connectivity=8)
    parts: list[_Blob] = []
    for i in range(1, n):
        if stats[i, cv2.CC_STAT_AREA] > math.pi * (0.45 * radius) ** 2:
            continue  # a palm, a finger, two stones overlapping: not one stone
        one = np.asarray(cv2.dilate((labels == i).astype(np.uint8) * 255, disc), np.uint8) & b.mask
        parts.extend(p for p in _blobs(one, b.signed, min_area=0.75 * math.pi * radius ** 2)
                     if p.round_single and p.area <= 1.3 * math.pi * radius ** 2)
    taken = np.zeros_like(b.mask)
    for p in parts:
        h, w = p.mask.shape
        taken[p.y0:p.y0 + h, p.x0:p.x0 + w] |= p.mask
        p.x0 += b.x0
        p.y0 += b.y0
        p.split = p.disc = True
    return parts, np.asarray(cv2.dilate(taken, _rim(radius)), np.uint8)


def _deglare(image: Image, felt_map: npt.NDArray[np.float32], felt_colour: tuple[float, float, float], k: float,
             colour_t: float, known: Image | None = None
             ) -> tuple[Image, npt.NDArray[np.float32], npt.NDArray[np.float32] | None]:
    """The image with a glare taken off, and the felt under it without the glare.

    A glare (a lamp's reflection) adds white and washes the felt's own colour
    out: felt under it is ``alpha * felt colour + white``, and a stone under
    the same glare is paled alike. Both fields are fitted on the pixels that
    are felt seen so (their colour lies between the felt's and white, with
    some of the felt's left: a white, grey or complementary stone does not),
    smoothed, and the white taken off the image; the felt is then the felt's
    colour at ``alpha``. The felt model may follow a glare in part or not at
    all: this does not depend on it. Where no glare lies nothing changes.
    A glare is broad (a white stone's halo, a card's paper are not); ``known``
    (255 where cards and markers lie) is left out.
    """
    h, w = image.shape[:2]
    step = max(1, round(GLARE_STEP_MM * k))
    sw, sh = max(2, w // step), max(2, h // step)
    p = np.asarray(cv2.resize(image, (sw, sh), interpolation=cv2.INTER_AREA), np.float32)
    m = np.asarray(cv2.resize(felt_map, (sw, sh), interpolation=cv2.INTER_NEAREST), np.float32)  # it is smooth
    c = np.asarray(felt_colour, np.float64) + 1.0
    norm_f = float(np.linalg.norm(c))
    c /= norm_f
    cc, c1, lam = 1.0, float(c.sum()), 0.05  # lam pulls the white towards 0 (grey felt: a glare is light)
    cp = cv2.transform(p, c.reshape(1, 3).astype(np.float32))
    p1 = cv2.transform(p, np.ones((1, 3), np.float32))
    det = cc * (3.0 + lam) - c1 * c1
    alpha = ((3.0 + lam) * cp - c1 * p1) / det
    white = (cc * p1 - c1 * cp) / det
    res = p - alpha[:, :, None] * c.astype(np.float32) - white[:, :, None]
    norm_m = np.sqrt(cv2.transform(m * m, np.ones((1, 3), np.float32)))
    r = np.sqrt(cv2.transform(res * res, np.ones((1, 3), np.float32))) / (norm_m + 40.0)
    felt_like = (r < 1.5 * colour_t) & (alpha > 0.06 * norm_f) & (alpha < 1.3 * norm_m) & (white > -0.1 * norm_m)
    if known is not None:
        felt_like &= cv2.resize(known, (sw, sh), interpolation=cv2.INTER_AREA) == 0
    # not the edge of anything (a white stone's edge is a blend of white and felt, like a glare)
    felt_like = cv2.erode(felt_like.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    # a glare is broad: white added over a wide patch of felt; a white stone's inside is a small island
    bright = (felt_like & (white > GLARE_MIN)).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(bright, connectivity=8)
    wide = stats[:, cv2.CC_STAT_AREA] >= math.pi * (GLARE_MIN_MM * k / step) ** 2
    wide[0] = False
    for i in np.flatnonzero(wide):  # and it fades out: a hand or a sleeve is as white all over as at its middle
        w_i = white[labels == i]
        if np.count_nonzero(w_i > 0.6 * float(np.percentile(w_i, 95))) > 0.75 * w_i.size:
            wide[i] = False
    if not wide.any():
        return image, felt_map, None  # no glare worth the name here
    felt_like &= ~(bright.astype(bool) & ~wide[labels])
    wgt = felt_like.astype(np.float32)
    s = GLARE_SMOOTH_MM * k / step
    den = cv2.GaussianBlur(wgt, (0, 0), s) + 1e-3
    w_s = cv2.GaussianBlur(white * wgt, (0, 0), s) / den
    a_s = cv2.GaussianBlur(alpha * wgt, (0, 0), s) / den
    # once more without what is far brighter or whiter than the felt around it (a stone of the felt's hue)
    wgt = (felt_like & (alpha < 1.2 * a_s + 5.0) & (white < 1.2 * w_s + 10.0)).astype(np.float32)
    den = cv2.GaussianBlur(wgt, (0, 0), s) + 1e-3
    w_s = cv2.GaussianBlur(white * wgt, (0, 0), s) / den
    a_s = cv2.GaussianBlur(alpha * wgt, (0, 0), s) / den
    a_full = cv2.resize(a_s, (w, h), interpolation=cv2.INTER_LINEAR)
    w_full = np.maximum(cv2.resize(w_s, (w, h), interpolation=cv2.INTER_LINEAR), 0.0)
    # only where a glare lies (white added well above the noise): elsewhere the image and felt as they are
    use = np.clip((w_full - 0.5 * GLARE_MIN) / GLARE_MIN, 0.0, 1.0)[:, :, None]
    img = image.astype(np.float32) - use * w_full[:, :, None]
    under = np.maximum(a_full, 1.0)[:, :, None] * c.astype(np.float32)
    felt_seen = felt_map + use * (under - felt_map)
    # the noise is the same, the felt it is measured against darker: by this much louder
    amp = (np.linalg.norm(felt_map, axis=2) + 20.0) / (np.linalg.norm(felt_seen, axis=2) + 20.0)
    return (np.asarray(np.clip(img + 0.5, 0, 255), np.uint8), np.asarray(felt_seen, np.float32),
            np.asarray(np.maximum(amp, 1.0), np.float32))


def _spread(values: npt.NDArray[np.float32]) -> float:
    """A robust standard deviation (of a blur's residue: slightly under the noise's, hence 1.2)."""
    return 1.2 * 1.4826 * float(np.median(np.abs(values - np.median(values))))


def _thresholds(rectified: Image, felt: Felt) -> tuple[float, float]:
    """Colour and brightness thresholds of a stone pixel, well above the felt's own spread."""
    noise_a, noise_dp = felt.contrast_noise(rectified)
    return max(MIN_COLOUR_T, 6.0 * noise_dp), max(MIN_LIGHT_T, 6.0 * noise_a)


def _not_stones(b: _Blob, radius: float, colour: npt.NDArray[np.float32], glared: Image) -> str | None:
    if b.touches_edge:
        return "too big for a stone"
    if b.depth > MAX_DEPTH * radius:
        return "too big for a stone"
    if not b.split and _soft_edge(b) > SOFT_EDGE and not _under_glare(b, glared):
        return "no edge: a blotch of the felt"
    # the stones' colour against the felt (log ratios per channel): a patch of light scales it,
    # another thing (a hand, a glare) points elsewhere; a stone where a glare was taken off may
    # still be paler, but it is a stone's shape (elsewhere such a blob is a piece of a hand), and
    # not as pale as a haze of the glare left behind
    if not _same_colour(b.colour, colour) and not (_stone_shaped(b, radius) and _cosine(b.colour, colour) >= 0.6
                                                   and float(np.linalg.norm(b.colour)) > 0.25 * float(np.linalg.norm(colour))
                                                   and _under_glare(b, glared)):
        return "not the stones' colour"
    return None


def _soft_edge(b: _Blob) -> float:
    """How much of the blob's contrast is left just outside it (a stone's edge: about none).

    A stone is a disc with a sharp edge: 2-3 px outside it lies felt. A lighter
    blotch of a mottled felt rises slowly from the felt; cut where it passes
    the threshold, it is still nearly as unlike the felt just outside the cut
    as inside it. The contrast is taken along the blob's own colour.
    """
    norm = float(np.linalg.norm(b.colour))
    if norm < 1e-6:
        return 0.0
    s = b.signed @ (b.colour / norm)
    ring = (cv2.dilate(b.mask, np.ones((7, 7), np.uint8)) > 0) & ~(cv2.dilate(b.mask, np.ones((3, 3), np.uint8)) > 0)
    inside = b.mask > 0
    if not ring.any() or not inside.any():
        return 0.0
    return float(np.median(s[ring])) / max(float(np.median(s[inside])), 1e-6)


def _deep_shadow(signed: npt.NDArray[np.float32], colour: npt.NDArray[np.float32],
                 only_dark: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """What only its darkness made a stone pixel and is not of the stones' hue: a deep shadow.

    A stone in a shadow is the stones' colour made darker: its log ratios to
    the felt are the stones' shifted alike in every channel. A shadow beside a
    red stone darkens the felt in every channel alike, which the stones' hue
    is not (seed 23 scene 56: a red stone and the dark felt it lay in were one
    blob of two stones' area).
    """
    out = np.zeros(only_dark.shape, bool)
    ys, xs = np.nonzero(only_dark)
    if len(ys):
        d = signed[ys, xs] - colour
        hue_off = np.abs(d - d.mean(axis=1, keepdims=True)).max(axis=1)
        out[ys, xs] = hue_off >= COLOUR_TOL
    return out


def _count_in(marked: npt.NDArray[np.bool_], b: _Blob, x0: int, y0: int) -> int:
    """How many of a blob's pixels are marked in a region's mask (the region's origin at x0, y0)."""
    h, w = b.mask.shape
    bx, by = b.x0 - x0, b.y0 - y0
    sy0, sx0 = max(0, by), max(0, bx)
    sub = marked[sy0:by + h, sx0:bx + w]
    inside = b.mask[sy0 - by:sy0 - by + sub.shape[0], sx0 - bx:sx0 - bx + sub.shape[1]] > 0
    return int(np.count_nonzero(sub[inside]))


def _share(marked: Image, b: _Blob) -> float:
    """The share of a blob's pixels marked (255) in a mat-sized mask."""
    h, w = b.mask.shape
    y0, x0 = max(0, b.y0), max(0, b.x0)
    under = marked[y0:b.y0 + h, x0:b.x0 + w]
    inside = b.mask[y0 - b.y0:y0 - b.y0 + under.shape[0], x0 - b.x0:x0 - b.x0 + under.shape[1]] > 0
    return float(np.count_nonzero(under[inside])) / max(1, int(np.count_nonzero(inside)))


def _under_glare(b: _Blob, glared: Image) -> bool:
    """Whether a blob lies partly where a glare was taken off."""
    return _share(glared, b) > 0.2


def _cosine(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32]) -> float:
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    return float(np.dot(a, b)) / (na * nb) if na > 1e-6 and nb > 1e-6 else 0.0


def _stone_shaped(b: _Blob, radius: float) -> bool:
    """One round stone of the frame's size, or a few touching (with the notches that leaves)."""
    n = b.area / (math.pi * radius ** 2)
    solidity = b.area / max(b.hull_area, 1e-6)
    if b.round_single and 0.75 <= n <= 1.3:
        return True
    return 1.5 <= n <= 4.5 and 0.85 * radius <= b.depth <= 1.3 * radius and 0.72 <= solidity <= 0.95


def _same_colour(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32]) -> bool:
    """Two colours against the felt (log ratios) alike in direction and not too unlike in strength."""
    if float(np.abs(a - b).max()) <= 0.45:
        return True
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    return _cosine(a, b) >= 0.9 and 0.5 <= na / max(nb, 1e-6) <= 2.0


def _rejected(b: _Blob, k: float, mat: Mat, why: str) -> Rejected:
    ys, xs = np.nonzero(b.mask)
    x0, x1 = (b.x0 + xs.min()) / k, (b.x0 + xs.max() + 1) / k
    y0, y1 = (b.y0 + ys.min()) / k, (b.y0 + ys.max() + 1) / k
    return Rejected(mat.zone_at((x0 + x1) / 2, (y0 + y1) / 2),
                    (int(x0), int(y0), int(math.ceil(x1)), int(math.ceil(y1))), why)


class StoneSmoother:
    """The median count of the last few frames, zone by zone: a hand passing over is forgotten.

    >>> s = StoneSmoother(window=3)
    >>> for c in (StoneCount(5), StoneCount(0), StoneCount(5)):
    ...     smoothed = s.push(c)
    >>> smoothed.pool
    5
    """

    def __init__(self, window: int = 5) -> None:
        self.window = window
        self._history: deque[StoneCount] = deque(maxlen=window)

    def push(self, count: StoneCount) -> StoneCount:
        self._history.append(count)
        pools = [c.pool for c in self._history]
        seats = [[c.seats[i] for c in self._history] for i in range(4)]
        return StoneCount(_median_int(pools),
                          (_median_int(seats[0]), _median_int(seats[1]),
                           _median_int(seats[2]), _median_int(seats[3])))


def _median_int(values: list[int]) -> int:
    return int(sorted(values)[len(values) // 2])
