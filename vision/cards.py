"""Finding the cards on the rectified mat: one quadrilateral (in mat mm) per card-shaped object.

What is unlike the felt (:mod:`vision.felt`) is split into blobs. A blob the
size and shape of a Spanish card (61.5 x 95 mm, within ±15 %) is a card; its
rectangle is fitted to its outline. Cards may touch: a blob of two or three
cards is split first where it is narrow (the distance transform's cores, then
a watershed), then, when the cards lie edge to edge, into equal parts along
its length when its size is a whole number of cards. What is too small or the
wrong shape is reported, never read.

A blob that is a card and a glare together is cut at rising lightness, by
openings, and by a top-hat (what a square wider than a card leaves of the
light), until every card in it stands alone; what the cards leave of such a
blob, card-sized, is reported where a seat still lacks a card (a second card
the same glare washes out), never dropped. When a seat then shows fewer
than the four cards of a hand, the finder looks again: first for cards of
nearly the felt's colour (cream paper on beige felt, which the felt model
takes for felt) by their sharp outlines, fitted to their edges at full
resolution; then as rectangles of the deck's size whose four sides all run
along an edge (paper as pale as the felt or darker, a grimy edge); then, if a
seat is still short, for faint cards (under a glare on dark felt, where the
first cut, set by the frame's brightest paper, is too high). Last, each side
of every card moves to where the card's colour meets the felt's: worn paper
fades towards its edge, and the cut leaves that band out.

Quads are in mat millimetres; the reader maps them back to the camera frame
and warps each card from the original frame (more pixels than the rectified
view) with :func:`vision.cardcrop.warp_card`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

import cv2
import numpy as np
import numpy.typing as npt

from vision.felt import CONTRAST_OFFSET, DISTANCE_OFFSET, Felt, every, log_image, median, percentile
from vision.mat import CARD_MM, Mat, Zone, ZoneKind

Image = npt.NDArray[np.uint8]
FloatImage = npt.NDArray[np.float32]
QuadMM = npt.NDArray[np.float64]
Contour = npt.NDArray[Any]
"""An OpenCV contour or hull: N x 1 x 2 integer points."""

SIZE_TOLERANCE = 0.22
"""Other decks are within ±15 % of the nominal card (spec); the finder allows more (the model decides)."""
MIN_THRESHOLD = 0.06
"""Least lightness over the felt (:meth:`vision.felt.Felt.lightness`) of a card pixel."""
MIN_REPORTED_AREA = 0.3
"""Objects smaller than this share of a card (a stone, a crumb) are not reported by the card finder."""
PAPER_SHARE = 0.15
"""The first cut is at least this share of the frame's paper lightness (printed lines fall under it)."""
MIN_FILL = 0.7
"""Least share of its rectangle an object's outline fills to be one card."""
DARKER_THAN_SHADOW = 0.5
"""Brightness ratio to the felt under which a pixel is ink, not a shadow."""
JOIN_MM = 6.0
"""Pieces of paper this close belong to one card (a printed frame line splits a card's paper)."""
FAINT_SMOOTH_MM = 2.5
"""The second look, for faint cards, judges the lightness averaged over a square this wide."""
OUTLINE_PX_PER_MM = 0.5
"""Resolution the outlines are looked for at (a card's edge needs no more)."""
OUTLINE_CONTRAST = 0.015
"""Least log-brightness by which an outlined card's paper is lighter than the felt around it."""
DARK_FELT = 80.0
"""Felt darker than this (mean of the channels) is also searched for outlines in plain brightness."""
OFF_SIZE = 0.04
"""A card found this much larger or smaller than its frame's deck (either side) is refitted at the deck's size."""
TRIM_MM = 6.0
"""A single card larger than its deck loses what sticks out narrower than twice this (:func:`_trimmed`)."""
REFIT_EDGE = 0.016
"""Least rise of log-brightness a pixel inwards along every side of a refit (:func:`_fitted_on_edges`)..."""
SHRUNK = 0.92
"""...unless the card found is this much smaller than its deck (either side): then it is refitted anyway."""
SEARCH_PAD_MM = 62.0
"""Room searched around each card zone: a card centred in the zone reaches this far out."""


@dataclass(frozen=True)
class CardObject:
    """Something card-sized or bigger found on the mat.

    ``quad`` is four corners in mat mm (clockwise on the mat); ``why`` is None for
    a card-shaped object, else why it is not read ("not card-shaped").
    """

    quad: QuadMM
    zone: Zone | None
    why: str | None = None

    @property
    def centre(self) -> tuple[float, float]:
        c = self.quad.mean(axis=0)
        return float(c[0]), float(c[1])

    @property
    def seat(self) -> int | None:
        """The seat whose card zone holds the object's centre."""
        if self.zone is not None and self.zone.kind is ZoneKind.CARDS:
            return self.zone.seat
        return None

    @property
    def box(self) -> tuple[int, int, int, int]:
        """Integer bounding box [x0, y0, x1, y1] in mat mm."""
        x0, y0 = np.floor(self.quad.min(axis=0))
        x1, y1 = np.ceil(self.quad.max(axis=0))
        return int(x0), int(y0), int(x1), int(y1)

    @property
    def size(self) -> tuple[float, float]:
        """Short and long side, mm."""
        a = float(np.linalg.norm(self.quad[1] - self.quad[0]))
        b = float(np.linalg.norm(self.quad[2] - self.quad[1]))
        return (min(a, b), max(a, b))


def card_shaped(short: float, long: float, tolerance: float = SIZE_TOLERANCE) -> bool:
    """Sides within the spec's ±15 % of a Spanish card, and the card's proportions.

    >>> card_shaped(61.5, 95.0), card_shaped(70, 70), card_shaped(40, 60)
    (True, False, False)
    """
    w, h = CARD_MM
    ratio, nominal = long / max(short, 1e-6), h / w
    return (w * (1 - tolerance) <= short <= w * (1 + tolerance)
            and h * (1 - tolerance) <= long <= h * (1 + tolerance)
            and abs(ratio / nominal - 1) <= 0.13)


def _search_mask(mat: Mat, k: float, shape: tuple[int, int]) -> Image:
    mask = np.zeros(shape, np.uint8)
    for seat in range(4):
        x0, y0, x1, y1 = mat.card_zone(seat)
        p = SEARCH_PAD_MM
        cv2.rectangle(mask, (int((x0 - p) * k), int((y0 - p) * k)),
                      (int((x1 + p) * k), int((y1 + p) * k)), 255, -1)
    return mask


def outline_band(mat: Mat, k: float, shape: tuple[int, int], half_mm: float = 3.0) -> Image:
    """255 within ``half_mm`` of the zones' outlines and the pool's circle (where a mat prints lines)."""
    band = np.zeros(shape, np.uint8)
    t = max(1, round(2 * half_mm * k))
    for seat in range(4):
        for x0, y0, x1, y1 in (mat.card_zone(seat), mat.stone_zone(seat)):
            cv2.rectangle(band, (round(x0 * k), round(y0 * k)), (round(x1 * k), round(y1 * k)), 255, t)
    cx, cy = mat.centre
    cv2.circle(band, (round(cx * k), round(cy * k)), round(mat.pool_radius * k), 255, t)
    return band


def _hull_gap(a: Contour, b: Contour) -> float:
    """Distance (px) between two convex hulls; 0 when they overlap."""
    gap = np.inf
    for p, q in ((a, b), (b, a)):
        for pt in p.reshape(-1, 2):
            d = -cv2.pointPolygonTest(q, (float(pt[0]), float(pt[1])), True)
            if d <= 0:
                return 0.0
            gap = min(gap, d)
    return float(gap)


Piece = tuple[list[Contour], Contour]
"""Contours of some paper, and their convex hull."""


def _pieces(paper: Image, rectified: Image, felt: Felt, search: Image, k: float) -> list[Piece]:
    """The paper, in pieces: each the paper tied together by a card's ink, as (contour, hull).

    A card's printed frame and figures cut its paper into an outer band and
    inner fields; the ink between them is of another colour than the felt (or
    far darker than any shadow), while between two cards lies felt, or its
    shadow (the felt's colour, only darker). So the paper's pieces are grouped
    by the regions of paper-or-ink; ink alone (a phone) makes no piece.
    """
    tied = (paper | _ink(rectified, felt)) & search
    tied = np.asarray(cv2.morphologyEx(tied, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)), np.uint8) | paper
    n, labels = cv2.connectedComponents(tied, connectivity=8)
    out = []
    contours, _ = cv2.findContours(paper, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    by_label: dict[int, list[Contour]] = {}
    thin = 1.5 * k
    for c in contours:
        if cv2.contourArea(c) < 4 or (thin > _THINNEST and _thickness(c) < thin):
            continue
        x, y = (int(v) for v in c[0, 0])
        by_label.setdefault(int(labels[y, x]), []).append(c)
    for cs in by_label.values():
        out.append((cs, cv2.convexHull(np.concatenate(cs))))
    return out


def _ink(rectified: Image, felt: Felt) -> Image:
    """255 where a pixel is of another colour than the felt or far darker than a shadow (a card's ink).

    It depends on the image and the felt only: kept with the felt for the image, so that a second
    look (:func:`_faint_cards`) does not take it again.
    """
    cached = felt._cache.get(("ink", id(rectified)))
    if isinstance(cached, tuple) and cached[0] is rectified:
        return np.asarray(cached[1], np.uint8)
    _, noise_dp = felt.contrast_noise(rectified)
    # at half resolution: the ink only has to tie pieces together
    h, w = rectified.shape[:2]
    half = Felt(every(felt.colour_map, 2), felt.colour, every(felt.free, 2))
    a, dp = half.contrast(every(rectified, 2))
    ink = ((dp > max(0.08, 6.0 * noise_dp)) | (a < DARKER_THAN_SHADOW)).astype(np.uint8) * 255
    ink = np.asarray(cv2.resize(ink, (w, h), interpolation=cv2.INTER_NEAREST), np.uint8)
    felt._cache[("ink", id(rectified))] = (rectified, ink)  # the image kept too: its id is not reused
    return ink


def _group_pieces(pieces: list[Piece], k: float) -> list[list[int]]:
    """Put together the pieces of one card: pieces within :data:`JOIN_MM` of a group join it
    while the group still fits in the largest card (cards never overlap, and lie apart or touching)."""
    biggest = (CARD_MM[0] * (1 + SIZE_TOLERANCE) * k, CARD_MM[1] * (1 + SIZE_TOLERANCE) * k)
    order = sorted(range(len(pieces)), key=lambda i: -sum(cv2.contourArea(c) for c in pieces[i][0]))
    groups: list[list[int]] = []
    hulls: list[Contour] = []
    boxes: list[tuple[int, int, int, int]] = []
    reach = JOIN_MM * k
    for i in order:
        c, hull = pieces[i]
        x, y, w, h = cv2.boundingRect(hull)
        joined = False
        for g, (gx, gy, gw, gh) in enumerate(boxes):
            if x > gx + gw + reach or gx > x + w + reach or y > gy + gh + reach or gy > y + h + reach:
                continue
            if _hull_gap(hull, hulls[g]) > reach:
                continue
            merged = cv2.convexHull(np.concatenate([hulls[g], hull]))
            (_, _), (rw, rh), _ = cv2.minAreaRect(merged)
            inside = _hull_gap(hull, hulls[g]) == 0.0 and cv2.contourArea(hull) < cv2.contourArea(hulls[g])
            if inside or (min(rw, rh) <= biggest[0] and max(rw, rh) <= biggest[1]):
                groups[g].append(i)
                hulls[g] = merged
                bx, by, bw, bh = cv2.boundingRect(merged)
                boxes[g] = (bx, by, bw, bh)
                joined = True
                break
        if not joined:
            groups.append([i])
            hulls.append(hull)
            boxes.append((x, y, w, h))
    return groups


def _hull_shaped(members: list[int], pieces: list[Piece], k: float) -> bool:
    hull = cv2.convexHull(np.concatenate([pieces[j][1] for j in members]))
    (_, _), (w, h), _ = cv2.minAreaRect(hull)
    return card_shaped(min(w, h) / k, max(w, h) / k)


def _drop_strays(members: list[int], pieces: list[Piece], k: float) -> list[int]:
    """A group that is not card-shaped but would be without a small piece (a stone beside a card)."""
    if len(members) < 2 or _hull_shaped(members, pieces, k):
        return members
    by_size = sorted(members, key=lambda j: sum(cv2.contourArea(c) for c in pieces[j][0]))
    for j in by_size[:-1]:
        rest = [m for m in members if m != j]
        if _hull_shaped(rest, pieces, k):
            return rest
    return members


_THINNEST = 2.0 * float(np.float32(0.955))
"""The least :func:`_thickness` of any piece (one pixel wide: twice the distance transform's side step).
Under 1.27 px/mm (the live 1.2) the 1.5 mm test refuses none, and drawing each piece for it is skipped."""


def _thickness(contour: Contour) -> float:
    """Twice the largest distance from inside a contour to its edge (px): the piece's width."""
    x, y, w, h = cv2.boundingRect(contour)
    m = np.zeros((h + 2, w + 2), np.uint8)
    cv2.drawContours(m, [contour - np.array([x - 1, y - 1])], -1, 255, -1)
    return 2.0 * float(cv2.distanceTransform(m, cv2.DIST_L2, 3).max())


def _fill(mask: Image) -> Image:
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, contours, -1, 255, -1)
    return filled


def object_mask(rectified: Image, felt: Felt, px_per_mm: float, mat: Mat | None = None,
                threshold: float | None = None, light: FloatImage | None = None,
                paper_share: float = PAPER_SHARE) -> Image:
    """255 where a light object (a card's paper) lies, around the card zones; holes filled.

    1. The pixels lighter than the felt by ``threshold``.
    2. Pieces of one card are put together: a card's printed frame line can cut
       its paper into an outer band (open at the corner indices) and an inner
       field; pieces whose convex hulls overlap are one object (cards never
       overlap), closed within their hull (never across the felt to a neighbour).
    3. Each object is cut again at half the lightness of its own paper near its
       edge, so its outline sits on the middle of the blurred edge rather than
       its outer foot, and neighbours a few mm apart stay apart.
    """
    mat = mat or Mat()
    k = px_per_mm
    light = felt.lightness(rectified) if light is None else light
    search = _search_mask(mat, k, light.shape[:2])
    # above the felt's own noise (light felt is quiet, dark felt noisy in these units)
    threshold = max(MIN_THRESHOLD, 5.0 * felt.noise(light)) if threshold is None else threshold
    # the paper's lightness in this frame: printed lines and glare are far less light than it
    values = light[(search > 0) & (light > threshold)]
    if values.size > 0.02 * CARD_MM[0] * CARD_MM[1] * k * k:
        threshold = max(threshold, paper_share * float(percentile(values, 90)))
    limit: Any = threshold  # a scalar to OpenCV (its stubs know arrays only)
    mask = np.asarray(cv2.compare(light, limit, cv2.CMP_GT), np.uint8)  # 255 where lighter, in one pass
    mask &= search
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    mask = np.asarray(cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel), np.uint8)
    # the zones' printed outlines: thin light lines, kept only where something thick lies on them
    thick = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (2 * round(2.0 * k) + 1,) * 2))
    lines = outline_band(mat, k, mask.shape[:2])
    mask = np.asarray(cv2.copyTo(thick, lines, mask), np.uint8)  # on the lines, only what is thick
    min_area = MIN_REPORTED_AREA * CARD_MM[0] * CARD_MM[1] * k * k * 0.5
    pieces = _pieces(mask, rectified, felt, search, k)
    groups = _group_pieces(pieces, k)
    out = np.zeros_like(mask)
    h, w = mask.shape
    close = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * round(3.5 * k) + 1,) * 2)
    ring_out = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * round(1.5 * k) + 1,) * 2)
    ring_in = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * round(3.5 * k) + 1,) * 2)
    for members in groups:
        members = _drop_strays(members, pieces, k)
        hull = cv2.convexHull(np.concatenate([pieces[j][1] for j in members]))
        if cv2.contourArea(hull) < min_area:
            continue
        x, y, bw, bh = cv2.boundingRect(hull)
        pad = round(4 * k) + 2
        x0, y0, x1, y1 = max(0, x - pad), max(0, y - pad), min(w, x + bw + pad), min(h, y + bh + pad)
        off = np.array([x0, y0])
        union = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.drawContours(union, [c - off for j in members for c in pieces[j][0]], -1, 255, -1)
        hull_mask = np.zeros_like(union)
        cv2.drawContours(hull_mask, [hull - off], -1, 255, -1)
        (_, _), (rw, rh), _ = cv2.minAreaRect(hull)
        if card_shaped(min(rw, rh) / k, max(rw, rh) / k):
            blob8 = hull_mask  # a card is convex: its paper's hull is the card, figures and all
        else:
            blob8 = _fill(np.asarray(cv2.morphologyEx(union, cv2.MORPH_CLOSE, close), np.uint8) & hull_mask
                          | union)
        blob = blob8 > 0
        inner = cv2.erode(blob8, ring_in) > 0
        ring = (cv2.erode(blob8, ring_out) > 0) ^ inner if inner.any() else blob
        ring = ring if ring.any() else blob
        patch = light[y0:y1, x0:x1]
        edge = float(median(patch[ring]))
        cut = max(threshold, 0.5 * edge)
        sub = (((patch > cut) & blob) | inner).astype(np.uint8) * 255
        sub = _fill(np.asarray(cv2.morphologyEx(sub, cv2.MORPH_OPEN, kernel), np.uint8))
        out[y0:y1, x0:x1] |= sub
    return out


def _rect_quad(contour: Contour, k: float) -> tuple[QuadMM, float]:
    """The minimum-area rectangle of a contour in mat mm, and how much of it the contour fills."""
    rect = cv2.minAreaRect(contour)
    box = cv2.boxPoints(rect).astype(np.float64)
    area = float(cv2.contourArea(contour))
    (w, h) = rect[1]
    fill = area / max(w * h, 1e-6)
    quad = (box + 0.5) / k
    return _clockwise(quad), fill


def _clockwise(quad: QuadMM) -> QuadMM:
    c = quad.mean(axis=0)
    ang = np.arctan2(quad[:, 1] - c[1], quad[:, 0] - c[0])
    return np.asarray(quad[np.argsort(ang)], dtype=np.float64)


def _clockwise_each(quads: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """:func:`_clockwise` of each of n quads (n x 4 x 2)."""
    c = quads.mean(axis=1)
    ang = np.arctan2(quads[:, :, 1] - c[:, None, 1], quads[:, :, 0] - c[:, None, 0])
    return np.asarray(np.take_along_axis(quads, np.argsort(ang, axis=1)[:, :, None], axis=1), dtype=np.float64)


def _split_even(quad: QuadMM, n: int) -> list[QuadMM]:
    """Cut a rectangle into ``n`` equal parts across its long side."""
    q = _clockwise(quad)
    d01 = float(np.linalg.norm(q[1] - q[0]))
    d12 = float(np.linalg.norm(q[2] - q[1]))
    if d01 < d12:
        q = np.roll(q, -1, axis=0)  # make 0->1 the long side
    a, b, c, d = q
    parts = []
    for i in range(n):
        t0, t1 = i / n, (i + 1) / n
        parts.append(np.array([a + (b - a) * t0, a + (b - a) * t1, d + (c - d) * t1, d + (c - d) * t0]))
    return parts


def _whole_cards(short: float, long: float, card: tuple[float, float]) -> int:
    """How many cards lying side by side (long sides touching or short sides touching) make a rectangle."""
    w, h = card
    for n in (2, 3, 4, 5):
        for cw, ch in ((w * n, h), (h * n, w), (w, h * n), (h, w * n)):
            s, lg = min(cw, ch), max(cw, ch)
            if abs(short / s - 1) <= 0.08 and abs(long / lg - 1) <= 0.08:
                return n
    return 0


def _watershed_split(blob: Image, core_px: float) -> list[Contour]:
    """Split a blob of touching cards at its narrow necks; contours of the parts (px)."""
    dt = cv2.distanceTransform(blob, cv2.DIST_L2, 5)
    cores = ((dt > core_px) * 255).astype(np.uint8)
    n, markers = cv2.connectedComponents(cores, connectivity=8)
    if n <= 2:
        return []
    markers = markers.astype(np.int32) + 1
    markers[(blob > 0) & (cores == 0)] = 0
    markers[blob == 0] = 1
    colour = cv2.cvtColor(blob, cv2.COLOR_GRAY2BGR)
    cv2.watershed(colour, markers)
    parts = []
    for label in range(2, n + 1):
        part = ((markers == label) * 255).astype(np.uint8)
        part = np.asarray(cv2.dilate(part, np.ones((3, 3), np.uint8)), np.uint8) & blob
        cs, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        if cs:
            parts.append(max(cs, key=cv2.contourArea))
    return parts


def find_cards(rectified: Image, felt: Felt, px_per_mm: float, mat: Mat | None = None,
               threshold: float | None = None, card_mm: tuple[float, float] | None = None) -> list[CardObject]:
    """Every card-sized object around the card zones of a rectified mat image.

    ``card_mm``: the deck's card size (short, long side, mm) where it is known (a learnt deck's), else the
    size is taken from the cards of the frame.
    """
    mat = mat or Mat()
    k = px_per_mm
    light = felt.lightness(rectified)
    mask = object_mask(rectified, felt, k, mat, threshold, light)
    card_area = CARD_MM[0] * CARD_MM[1] * k * k
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    singles: list[QuadMM] = []
    single_contours: list[Contour] = []
    pending: list[Contour] = []
    found: list[CardObject] = []
    for cnt in contours:
        area = float(cv2.contourArea(cnt))
        if area < MIN_REPORTED_AREA * card_area:
            continue
        quad, fill = _rect_quad(cnt, k)
        obj = CardObject(quad, None)
        if fill > MIN_FILL and card_shaped(*obj.size):
            singles.append(quad)
            single_contours.append(cnt)
        else:
            pending.append(cnt)
    # each side onto the card's own edge (a faded, grimy edge band is cut off with the felt)
    singles = [_colour_fitted(CardObject(q, None), rectified, felt, k).quad for q in singles]
    # the deck's own size: the learnt deck's where known, else learnt from the single cards of this frame (on felt
    # as pale as a worn deck's paper they may all be cut at their printed frame, 8 mm small)
    if card_mm is not None:
        card = card_mm
    elif singles:
        sizes = np.array([CardObject(q, None).size for q in singles])
        card = (float(np.median(sizes[:, 0])), float(np.median(sizes[:, 1])))
    else:
        card = CARD_MM
    # a single larger than its deck may have taken a patch of felt at its edge with it
    singles = [_trimmed(q, c, k, card) if _larger(CardObject(q, None), card) else q
               for q, c in zip(singles, single_contours, strict=True)]
    lit: list[Contour] = []  # light blobs that cards were freed from: what the cards leave of them is said
    for cnt in pending:
        parts = _split(cnt, k, card)
        if len(parts) == 1 and parts[0].why is not None:
            rescued = _rescue(cnt, light, k, edges=(rectified, card))
            lit += [cnt] if rescued else []
            parts = rescued or parts
        else:  # a card split off a blob with a glare: the glare's part may still hold a card
            freed = []
            for p in parts:
                piece = _part_blob(p, mask, k) if p.why else None
                rescued = _rescue(piece, light, k, edges=(rectified, card)) if piece is not None else []
                lit += [piece] if rescued and piece is not None else []
                freed += rescued or [p]
            parts = freed
        found.extend(parts)
    found.extend(CardObject(q, None) for q in singles)
    deck = card  # the deck's size, measured on more cards where one or two singles gave it (below)
    if _seat_short(found, mat):  # a seat short of its four cards: look again, harder
        cards = [o for o in found if o.why is None]
        plain: list[CardObject] = []
        more, opened = _outlined_cards(rectified, felt, k, mat, cards, card)
        if _seat_short(cards + more, mat):  # paper as pale as the felt, or darker: its straight outline
            measured = [CardObject(q, None).size for q in singles]
            if card_mm is None and (len(measured) < RECTANGLES.sized_by or not _agree(measured)):
                # a size from one or two cards may be one cut small (a worn edge as pale as the felt): the
                # outlined cards whose sides the colour moves onto their edges measure it too
                for o in more:
                    f = _colour_fitted(o, rectified, felt, k)
                    measured += [f.size] if f.quad is not o.quad else []
                if measured:
                    deck = (float(np.median([m[0] for m in measured])), float(np.median([m[1] for m in measured])))
            sized = card_mm is not None or (len(measured) >= RECTANGLES.sized_by and _agree(measured))
            learnt = card_mm is not None
            more += _rectangle_cards(rectified, felt, k, mat, found + more, deck, sized, learnt=learnt)
            if _seat_short(cards + more, mat):  # paper as bright as a felt of another hue: edges in colour too
                more += _rectangle_cards(rectified, felt, k, mat, found + more, deck, sized, in_colour=True,
                                         learnt=learnt)
            if _seat_short(cards + more, mat) and sum(felt.colour) < 3 * DARK_FELT:
                # a card under a glare on dark felt: its edges under the log brightness's noise, not the plain's;
                # but the glare's own light edges a card-sized patch of felt there too (a 12o was read on a glare
                # and half a 7c): a weaker sign, said where nothing else finds a card, never read
                plain = _rectangle_cards(rectified, felt, k, mat, found + more, deck, sized, in_plain=True,
                                         learnt=learnt)
        if _seat_short(cards + more, mat):  # the outlines find most; the faint cut costs as much
            more += _faint_cards(rectified, felt, light, k, mat, cards + more, card)
        if opened and _seat_short(cards + more, mat):  # last: outlines a card's only once a short edge is opened off
            more += _where_short(opened, cards + more, mat, card)
        said = [CardObject(o.quad, None, UNREAD_WHY) for o in _where_short(plain, cards + more, mat, card)]
        # what was not card-shaped and held a card found now (a card and its glare, its shadow) is that card,
        # and what the card leaves of it is said below
        held = [o for o in found if o.why is not None and any(_covers(o, m) for m in more)]
        lit += [c for c in (_part_blob(o, mask, k) for o in held) if c is not None]
        found = [o for o in found if not any(o is h for h in held)] + more + said
    # a card of another size than the frame's deck lost part of its paper (to a glare) or took
    # some felt with it (a glare's edge, a printed mark on its border): the deck's rectangle,
    # fitted to its edges, is the card
    found = [_refitted(o, card, rectified, k) if o.why is None and _off_size(o, card) else o for o in found]
    # every side where the card's colour meets the felt's (what the other looks and the refits leave of a
    # worn edge; the single cards were fitted so before the deck's size was taken from them), never past the
    # deck's size (a card freed from a glare touches the glare's light, as unlike the felt as its paper)
    found = [_colour_fitted(o, rectified, felt, k, deck if singles or card_mm is not None else None)
             if o.why is None and not any(o.quad is q for q in singles) else o for o in found]
    # a learnt deck's card found a side or two off its paper (on felt as pale as the paper a printed frame
    # line or a zone line edges a rectangle as well as the card's own edge) is moved onto its paper
    if card_mm is not None:
        found = _onto_paper(found, rectified, felt, k, card_mm)
    # a blob that cards were freed from may hold another card, washed out by the same glare: what the
    # cards found leave of it, when card-sized, is reported (never dropped silently), where a seat still
    # lacks a card (beside a hand of four it is only the glare)
    if lit:
        cards = [o for o in found if o.why is None]
        seats = [CardObject(o.quad, mat.zone_at(*o.centre)).seat for o in cards]
        rests = [r for blob in lit for r in _rest(blob, cards, k)]
        found += [r for r in rests if (seat := CardObject(r.quad, _zone_of(r, mat)).seat) is not None
                  and seats.count(seat) < 4]
    # one card is one object, however many of the looks found it (two cards' centres are never
    # 10 mm apart, unless one lies on the other and hides it)
    unique: list[CardObject] = []
    centres: list[tuple[float, float]] = []  # of the cards kept (each quad's mean taken once, not per pair)
    for o in found:
        c = o.centre
        if o.why is not None or not any(math.dist(u, c) < 10.0 for u in centres):
            unique.append(o)
            if o.why is None:
                centres.append(c)
    return [CardObject(o.quad, _zone_of(o, mat), o.why) for o in unique]


def _zone_of(obj: CardObject, mat: Mat) -> Zone | None:
    """The zone of an object's centre; for a thing not card-shaped centred outside the card zones
    (a glare around a card, reaching past the zone), the card zone it covers a card's
    :data:`UNREAD_AREA` of, if any: it may hide a card there, which must not go unsaid; for a
    card centred outside every zone, the card zone it covers :data:`OUTSIDE_CARD_AREA` of."""
    zone = mat.zone_at(*obj.centre)
    if zone is not None and (obj.why is None or zone.kind is ZoneKind.CARDS):
        return zone
    # a card centred just past a zone's edge (or found a few mm off there) is that zone's when it
    # covers a third of a card of it: it is read, not ignored
    quad = obj.quad.astype(np.float32)
    best, most = zone, (OUTSIDE_CARD_AREA if obj.why is None else UNREAD_AREA) * CARD_MM[0] * CARD_MM[1]
    for seat in range(4):
        x0, y0, x1, y1 = mat.card_zone(seat)
        rect = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
        area, _ = cv2.intersectConvexConvex(quad, rect)
        if area >= most:
            best, most = Zone.cards(seat), area
    return best


OUTSIDE_CARD_AREA = 0.3
"""A card centred outside every zone belongs to the card zone it covers this share of a card of."""
UNREAD_WHY = "card-sized, not found as a card"
"""Why a thing that :func:`unread_things` found is in ``unknown``."""
UNREAD_EDGE_SIGMAS = 6.0
"""A pixel is busy when its log-brightness gradient is this many times the free felt's (and at least
:data:`UNREAD_MIN_EDGE`)."""
UNREAD_MIN_EDGE = 0.045
"""A white card under a glare on pale grey felt (cincuenta, seed 20507, scene 24) kept print edges of 0.04-0.063
a pixel, under the 0.06 this was: it was neither found nor listed. At 0.045 it is busy enough for the rectangle
look to be asked at its seat, which finds it; on 240 random full-resolution scenes (seeds 7 and 8) the things
listed are the same three as at 0.06."""
UNREAD_CLOSE_MM = 10.0
"""Busy pixels this close are one thing (a card's print is dense; a felt's weave, shadow or glare is not)."""
UNREAD_AREA = 0.25
"""Least share of a card a busy thing left uncovered must fill to be reported..."""
UNREAD_INK = 0.08
"""...or, a thing that fills this share at least, span (its convex hull), its print filling
:data:`UNREAD_DENSITY` of that span. A plain card (a dos de copas) whose frame line breaks where a quad found
across it ends leaves only its top band and two cups: 0.12 of a card, spanning 0.33 (antigua on felt of its
paper's colour, seed 18406, scene 38: the card went unsaid)."""
UNREAD_DENSITY = 0.25
"""A card's print fills 0.36 of what it spans; the outline of a phone on dark felt 0.11 of its 1.15 (seed 7,
scene 0), and a phone is no card."""
UNREAD_REACH_MM = 20.0
"""Room looked at around each card zone: a card whose centre lies in the zone reaches out of it."""


def unread_things(rectified: Image, felt: Felt, px_per_mm: float, mat: Mat,
                  found: list[CardObject]) -> list[CardObject]:
    """Card-sized things in the card zones that no object found covers: reported, never read.

    The finder looks for paper lighter than the felt; a card on a felt as pale
    as its paper (or paler) can escape it. Its print cannot: the edges of the
    ink are dense over a card and rare on felt, whatever its colour, a shadow
    or a glare. So what is busy with edges, card-sized, in a card zone and not
    under anything found is put in ``unknown`` with its box, and a table is
    never read short of a card without a hint where.
    """
    k = px_per_mm
    blob = _unread_blob(rectified, felt, k, mat, found)
    card_px = CARD_MM[0] * CARD_MM[1] * k * k
    if cv2.countNonZero(blob) < UNREAD_INK * card_px:
        return glare_hides(rectified, felt, px_per_mm, mat, found)  # no part card-sized (most frames): no labelling
    n, labels, stats, _ = cv2.connectedComponentsWithStats(blob, connectivity=8)
    out = []
    for i in range(1, n):
        ink = stats[i, cv2.CC_STAT_AREA]
        if ink < UNREAD_INK * card_px \
                or stats[i, cv2.CC_STAT_WIDTH] * stats[i, cv2.CC_STAT_HEIGHT] < UNREAD_AREA * card_px:
            continue
        if ink < UNREAD_AREA * card_px:
            span = cv2.contourArea(cv2.convexHull(cv2.findNonZero(np.asarray(labels == i, np.uint8))))
            if span < UNREAD_AREA * card_px or ink < UNREAD_DENSITY * span:
                continue
        x, y, w, h = (int(v) for v in stats[i, :4])
        quad = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float64) / k
        obj = CardObject(quad, mat.zone_at(*quad.mean(axis=0)), UNREAD_WHY)
        if obj.seat is not None:
            out.append(obj)
    return out + glare_hides(rectified, felt, px_per_mm, mat, found + out)


GLARE_WHY = "a glare may hide a card"
"""Why :func:`glare_hides` puts a glare's box in ``unknown``."""


@dataclass(frozen=True)
class GlareHint:
    """Where a glare is said to hide a card (:func:`glare_hides`)."""

    lift: float = 1.5
    """A glare lights the felt around a seat's card zone this many times the frame's felt brightness (the felt
    model follows its light)..."""
    washed: float = 1.32
    """...and there lighter than the paper of the frame's cards (the median of their :attr:`paper_rank`
    percentiles) by this share: paper under it is lit past its own print. The two cards a glare washed out whole
    (5 Dec): a 12o under felt lit 2.18 times the frame's felt and 1.94 times the paper (antigua, seed 21405,
    scene 66), a 6c under 1.70 and 1.40 (catalana, seed 22203, scene 42). Over the 129 seats of one to three
    cards in 240 random full-resolution scenes (seeds 7 and 8), the felt was lit at most 1.24 times the paper
    (3.54 times its own brightness: a glare on dark felt), and nowhere else past 1.12."""
    paper_rank: float = 75.0
    """A card's paper is this percentile of its pixels' brightness (its print is darker, and under a quarter)."""
    core: float = 0.5
    """The glare's box is where the felt is lit this share of the way from the frame's felt to the glare's peak."""


GLARE_HINT = GlareHint()


def glare_hides(rectified: Image, felt: Felt, px_per_mm: float, mat: Mat, found: list[CardObject],
                hint: GlareHint = GLARE_HINT) -> list[CardObject]:
    """The box of a glare over a seat that shows one to three cards and nothing else, as a thing not read.

    A glare on felt as pale as a card's paper can wash a card out whole: its paper
    as light as the glared felt (the felt model takes it in), its print and its
    edges under the felt's own grain (antigua on pale grey felt under a strong
    glare, seed 21405, scene 66: print edges of 0.036 a pixel, the felt's
    0.027). Nothing of it can be found; but a seat short of its four cards under
    such a glare is said there, never left an impossible table with no hint
    where. An empty seat (cards still in hand) is not: no glare hides four cards.
    """
    k = px_per_mm
    per_seat = [0, 0, 0, 0]
    for o in found:
        if o.seat is not None:
            per_seat[o.seat] += 1
    short = [s for s in range(4) if 0 < per_seat[s] < 4]
    cards = [o for o in found if o.why is None and o.seat is not None]
    if not short or not cards:
        return []
    papers = []
    for o in cards:
        x0, y0, x1, y1 = o.box
        x0, y0 = max(0, round(x0 * k)), max(0, round(y0 * k))
        patch = rectified[y0:round(y1 * k) + 1, x0:round(x1 * k) + 1].sum(axis=2, dtype=np.float32)
        inside = np.zeros(patch.shape, np.uint8)
        cv2.fillConvexPoly(inside, np.round(o.quad * k - (x0, y0)).astype(np.int32), 1)
        values = patch[inside > 0]
        if values.size:
            papers.append(float(percentile(values, hint.paper_rank)))
    if not papers:
        return []
    paper = float(np.median(papers))
    out = []
    for seat in short:  # the felt's brightness around the seat only (the rest of the frame is not asked)
        c0, r0, c1, r1 = _around_zone(mat, seat, k, felt.colour_map.shape[:2])
        felt_sum = np.asarray(felt.colour_map[r0:r1, c0:c1], np.float32).sum(axis=2)
        if not felt_sum.size:
            continue
        around = felt_sum / max(1.0, float(sum(felt.colour)))
        peak = float(around.max())
        if peak < hint.lift or float(felt_sum.max()) < hint.washed * paper:
            continue
        ys, xs = np.nonzero(around >= 1.0 + hint.core * (peak - 1.0))
        bx0, by0, bx1, by1 = (xs.min() + c0) / k, (ys.min() + r0) / k, (xs.max() + c0 + 1) / k, (ys.max() + r0 + 1) / k
        quad = np.array([[bx0, by0], [bx1, by0], [bx1, by1], [bx0, by1]], np.float64)
        out.append(CardObject(quad, Zone.cards(seat), GLARE_WHY))
    return out


def _unread_blob(rectified: Image, felt: Felt, k: float, mat: Mat, found: list[CardObject]) -> Image:
    """255 over what is busy with edges around the card zones and not under anything found (:func:`unread_things`)."""
    cached = felt._cache.get(("busy", id(rectified)))
    if isinstance(cached, tuple) and cached[0] is rectified:
        busy = np.asarray(cached[1], np.uint8)
    else:
        busy = _busy(rectified, felt, k, mat)
        felt._cache[("busy", id(rectified))] = (rectified, busy)  # the image kept too: its id is not reused
    size = 2 * round(UNREAD_CLOSE_MM * k / 2) + 1
    closed = cv2.morphologyEx(busy, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size)))
    blob = _fill(np.asarray(closed, np.uint8))  # a card's frame line holds its plain middle
    blob &= np.asarray(cv2.bitwise_not(_taken(found, k, busy.shape[:2], 3.0)), np.uint8)
    return blob


def _busy(rectified: Image, felt: Felt, k: float, mat: Mat) -> Image:
    """255 where the log brightness's gradient is far above the free felt's, around the card zones."""
    grey = _log_grey(rectified)
    mag = _gradient(grey) / 8.0  # Sobel's scale: per pixel
    free = felt.free > 0
    spread = float(median(mag[free])) * 1.4826 if free.any() else 0.0
    busy: Image = np.asarray((mag > max(UNREAD_MIN_EDGE, UNREAD_EDGE_SIGMAS * spread)), np.uint8) * np.uint8(255)
    zones = np.zeros(busy.shape, np.uint8)
    for s in range(4):  # a card centred in a zone reaches past it: what is around is looked at too
        x0, y0, x1, y1 = mat.card_zone(s)
        r = UNREAD_REACH_MM
        cv2.rectangle(zones, (round((x0 - r) * k), round((y0 - r) * k)),
                      (round((x1 + r) * k) - 1, round((y1 + r) * k) - 1), 255, -1)
    busy &= zones
    busy &= np.asarray(cv2.bitwise_not(outline_band(mat, k, busy.shape[:2], half_mm=2.0)), np.uint8)  # mat lines
    return busy


def _faint_cards(rectified: Image, felt: Felt, light: FloatImage, k: float, mat: Mat,
                 found: list[CardObject], card: tuple[float, float]) -> list[CardObject]:
    """Cards far fainter than the frame's paper (under a glare on dark felt), cut at the felt's noise.

    The first cut is set by the frame's brightest paper; a glare lifts the felt
    under a card nearly as much as the card, so such a card falls under it.
    Where nothing was found, cut again just above the felt's noise and keep
    only single card-shaped objects.
    """
    # averaged over a few mm, the sensor's grain falls by several times and a faint card's paper not
    size = 2 * round(FAINT_SMOOTH_MM * k / 2) + 1
    smooth = np.asarray(cv2.blur(light, (size, size)), np.float32)
    low = max(MIN_THRESHOLD, 5.0 * felt.noise(smooth))
    taken = _taken(found, k, smooth.shape[:2], 3.0)
    # only where something card-sized is left beside what was found (most frames: nowhere)
    left = ((smooth > low) & (taken == 0) & (_search_mask(mat, k, smooth.shape[:2]) > 0)).astype(np.uint8)
    one = CARD_MM[0] * CARD_MM[1] * k * k
    if cv2.countNonZero(left) < 0.6 * one:
        return []  # nothing card-sized can be left
    # not the largest piece of it: a faint card's print, darker than the cut, splits its paper into pieces
    # under 0.6 of a card that the mask below closes into one (a 10 de bastos under a glare of 0.84 on dark
    # felt: its largest piece 0.51 of a card, closed 0.73, found and read)
    smooth = np.where(taken > 0, np.float32(-1.0), smooth)
    mask = object_mask(rectified, felt, k, mat, low, smooth, paper_share=0.0)
    out = []
    for cnt in cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0]:
        if cv2.contourArea(cnt) < 0.6 * card[0] * card[1] * k * k:
            continue
        quad, fill = _rect_quad(cnt, k)
        obj = CardObject(quad, None)
        region = np.zeros_like(mask)
        cv2.drawContours(region, [cnt], -1, 255, -1)
        overlap = np.count_nonzero(region & taken) / max(1.0, float(np.count_nonzero(region)))
        if fill > MIN_FILL and card_shaped(*obj.size) and overlap < 0.05:
            out.append(obj)
    return out


def _covers(blob: CardObject, card: CardObject) -> bool:
    """Whether a card's centre lies inside an object's quad."""
    inside = cv2.pointPolygonTest(blob.quad.astype(np.float32).reshape(-1, 1, 2), card.centre, False)
    return bool(inside >= 0)


def _per_seat(found: list[CardObject], mat: Mat) -> list[int]:
    """How many card-shaped objects each seat's zone holds (their centres)."""
    per_seat = [0, 0, 0, 0]
    for o in found:
        seat = CardObject(o.quad, mat.zone_at(*o.centre)).seat
        if o.why is None and seat is not None:
            per_seat[seat] += 1
    return per_seat


def _seat_short(found: list[CardObject], mat: Mat) -> bool:
    """Whether some seat shows fewer than the four cards of a hand (card-shaped objects in its zone)."""
    return min(_per_seat(found, mat)) < 4


def _taken(found: list[CardObject], k: float, shape: tuple[int, int], pad_mm: float) -> Image:
    """255 on and around the objects found so far (a later look must not find them again)."""
    taken = np.zeros(shape, np.uint8)
    for o in found:
        cv2.fillPoly(taken, [np.round(o.quad * k - 0.5).astype(np.int32)], 255)
    size = 2 * round(pad_mm * k) + 1
    return np.asarray(cv2.dilate(taken, np.ones((size, size), np.uint8)), np.uint8)


def _outlined_cards(rectified: Image, felt: Felt, k: float, mat: Mat, found: list[CardObject],
                    card: tuple[float, float]) -> tuple[list[CardObject], list[CardObject]]:
    """Cards of nearly the felt's own colour (cream paper on beige felt), found by their outlines.

    The felt model cannot tell such paper from felt, but a card's edge is sharp
    and a shadow's or a glare's is not: Canny's edges of the log brightness
    (thresholds above the felt's own gradient noise) close around each card.
    An outline that is card-shaped, with paper lighter than the felt just
    outside it, is a card of this frame's deck (``card``, its size learnt from
    the cards already found): its rectangle keeps its centre and turn and takes
    that size (an edge's blur and a card's shadow make outlines a little large),
    then is fitted to the card's edges at full resolution (:func:`_fit_edges`).
    Outlines of cards a few mm apart, joined by their edges, are cut at their
    necks; the edges are looked at again without the zones' printed lines, and
    on dark felt in plain brightness too, while a seat is still short.

    Also, apart, the cards of outlines of no card's shape that are one once a
    wide disc opens them (:data:`OPEN_SPUR_MM`): a short edge joins a card's
    outline to a neighbour's a few mm off (a sparse ace under a glare on dark
    felt, found by nothing else), but a shadow or a worn edge makes such
    outlines too; a weaker sign, taken last (:func:`_where_short`).
    """
    f = min(1.0, OUTLINE_PX_PER_MM / k)
    small = np.asarray(cv2.resize(rectified, None, fx=f, fy=f, interpolation=cv2.INTER_AREA), np.uint8)
    ks = k * f
    log = cv2.GaussianBlur(_log_grey(small), (0, 0), 1.0)
    mag = _gradient(log)
    free = cv2.resize(felt.free, (mag.shape[1], mag.shape[0]), interpolation=cv2.INTER_NEAREST) > 0
    if not free.any():
        return [], []
    search = _search_mask(mat, ks, mag.shape[:2]) & ~_taken(found, ks, mag.shape[:2], 3.0)
    # Canny's thin edges keep cards a few mm apart from joining. In 8 bits: from just under the
    # felt's darkest (stones and shadows may go black) to the lightest paper, at most 200 levels
    # a log unit
    lo = float(percentile(log[free], 0.5)) - 0.05
    scale = min(200.0, 255.0 / max(1e-3, float(percentile(log, 99.5)) - lo))
    looks = [(np.clip((log - lo) * scale, 0, 255).astype(np.uint8), float(median(mag[free])) * scale)]
    # On dark felt the log brightness is noisy, and a card under a glare on it has an edge
    # no stronger than that noise: look again in plain brightness, where the noise is small
    grey = np.asarray(cv2.GaussianBlur(cv2.transform(small, np.full((1, 3), 1.0 / 3.0, np.float32)),
                                       (0, 0), 1.0), np.uint8)
    if float(np.median(grey[free])) < DARK_FELT:
        looks.append((grey, float(median(_gradient(grey)[free]))))
    out: list[CardObject] = []
    opened: list[CardObject] = []
    for img8, noise in looks:
        edges = cv2.Canny(img8, 4.0 * noise, 8.0 * noise, L2gradient=True) & search
        # a card touching a printed zone line joins it: look again without the lines (only when
        # some outline too large or too ragged for a card was seen)
        variant, lines_cut = edges, False
        while True:
            if not _seat_short(found + out, mat):
                return out, opened  # each seat has its four: no need to look any harder
            outlines, ragged = _card_outlines(np.asarray(cv2.dilate(variant, np.ones((3, 3), np.uint8)), np.uint8),
                                              ks, card)
            for outline in outlines:
                whole = np.round(outline / f).astype(np.int32)
                obj = _outline_quad(whole, rectified, k, 1.0 / ks)
                into = out
                if obj is None and not card_shaped(*_outline_rect(whole, k, 1.0 / ks)[0].size):
                    # no card's shape: a short edge may join the card's outline to a neighbour's a few mm off
                    parts = (np.round(p / f).astype(np.int32) for p in _lines_opened(outline, ks, OPEN_SPUR_MM))
                    obj = next((o for o in (_outline_quad(p, rectified, k, 1.0 / ks) for p in parts) if o), None)
                    into = opened
                if obj is not None and not any(_covers(o, obj) for o in into):
                    into.append(CardObject(_fit_edges(_resized(obj.quad, card), rectified, k), None))
            if lines_cut or not ragged:
                break
            variant, lines_cut = edges & ~outline_band(mat, ks, edges.shape[:2], 4.0), True
    return out, opened


def _where_short(more: list[CardObject], found: list[CardObject], mat: Mat,
                 card: tuple[float, float]) -> list[CardObject]:
    """Of cards a weaker sign gave, those in a seat still short of its four and off every card ``found`` (by
    :attr:`RectangleLook.most_overlap` of a card)."""
    per_seat = _per_seat(found, mat)
    least = RECTANGLES.most_overlap * card[0] * card[1]
    kept = [o.quad.astype(np.float32) for o in found if o.why is None]
    out = []
    for o in more:
        seat = CardObject(o.quad, mat.zone_at(*o.centre)).seat
        q = o.quad.astype(np.float32)
        if seat is None or per_seat[seat] >= 4 or any(cv2.intersectConvexConvex(q, f)[0] > least for f in kept):
            continue
        out.append(o)
        kept.append(q)
        per_seat[seat] += 1
    return out


@dataclass(frozen=True)
class RectangleLook:
    """The look for cards by their straight outline at their deck's size (:func:`_rectangle_cards`)."""

    step_deg: float = 3.0
    """Turns tried, from 0 to 90 degrees (each both ways up)."""
    px_per_mm: float = 0.6
    """Resolution the rectangles are tried at (the edges are found at the frame's)."""
    blur_px: float = 0.6
    """The log brightness is smoothed this much (sigma, px) before its gradient is taken."""
    edge_sigmas: float = 4.0
    """A pixel is on an edge across a side when its gradient along the side's normal is this many
    times the free felt's median gradient..."""
    min_edge: float = 0.008
    """...and at least this (log-brightness a pixel); or its colour difference from the felt
    (:meth:`vision.felt.Felt.contrast`) changes as many times the felt's own..."""
    min_colour_edge: float = 0.004
    """...and at least this a pixel (paper as bright as a felt of another hue shows its edge in colour only); or,
    on dark felt, its plain brightness (the channels' mean) changes as many times the felt's own..."""
    min_plain_edge: float = 1.0
    """...and at least this (grey levels a pixel)..."""
    glare_lift: float = 2.0
    """...around a seat where a glare lights the felt this many times its own brightness (elsewhere the log
    brightness's edges are as good, and the look costs 10-250 ms a seat)."""
    min_side: float = 0.5
    """Least share of every side of a rectangle that runs along an edge."""
    corners: float = 0.12
    """Each side's ends (a card's rounded corners, a neighbour's edge crossing) are left out."""
    pad_mm: float = 50.0
    """Room searched around a short seat's card zone (a card's centre lies in the zone)."""
    tries: int = 40
    """Peaks looked at per turn and way up (a peak refused is only itself taken off)."""
    unlike_ratio: float = 0.04
    """A point is unlike the felt when its brightness is this far from the felt's (or its colour unlike it)..."""
    least_paper: float = 0.4
    """...and this share of a rectangle's middle must be, for it to be a card."""
    least_busy: float = 0.1
    """A short seat is searched when this share of a card around its zone is busy with print, not found..."""
    least_unlike: float = 0.4
    """...or when a patch unlike the felt of this share of a card lies there (stones beside it are less)."""
    most_overlap: float = 0.1
    """Largest share of a card a new rectangle may share with a card already found."""
    own_paper: float = 0.6
    """A thing found that is no card, inside a rectangle and this share of a card or more, is the card's paper."""
    refit_apart_mm: float = 5.0
    """A rectangle whose centre lies this near one whose colour fit failed is not fitted again (it would fail too)."""
    sized_by: int = 3
    """The deck's size is sure when this many single cards gave it; else (one or two, maybe cut small) each
    rectangle's size is fitted too (:attr:`StepFit.grows_mm`)."""
    size_spread_mm: float = 4.0
    """The single cards give their deck's size for sure only when their sizes lie within this of each other
    (either side): on pale felt two of three singles may be cut small (a worn edge lost, a shadow taken)."""
    first_peaks: int = 8
    """Peaks of each map judged in the first round (twice as many each next round): the work done, not what
    is found."""


RECTANGLES = RectangleLook()


def _glared(felt: Felt, mat: Mat, seat: int, k: float, look: RectangleLook = RECTANGLES) -> bool:
    """Whether a glare lights the felt around a seat's card zone :attr:`RectangleLook.glare_lift` times its own
    brightness (the felt's model follows the glare's light)."""
    c0, r0, c1, r1 = _around_zone(mat, seat, k, felt.colour_map.shape[:2])
    lit = felt.colour_map[r0:r1, c0:c1]
    return bool(lit.size) and float(lit.sum(axis=2).max()) >= look.glare_lift * sum(felt.colour)


def _around_zone(mat: Mat, seat: int, k: float, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    """The pixels (x0, y0, x1, y1) of a seat's card zone and :data:`UNREAD_REACH_MM` around it, in the image."""
    x0, y0, x1, y1 = mat.card_zone(seat)
    r = UNREAD_REACH_MM
    return (max(0, round((x0 - r) * k)), max(0, round((y0 - r) * k)),
            min(shape[1], round((x1 + r) * k)), min(shape[0], round((y1 + r) * k)))


def _agree(sizes: list[tuple[float, float]], look: RectangleLook = RECTANGLES) -> bool:
    """Whether cards' sizes (short, long side, mm) lie within :attr:`RectangleLook.size_spread_mm` of each other."""
    a = np.asarray(sizes, np.float64).reshape(-1, 2)
    return bool(len(a) == 0 or float(np.ptp(a, axis=0).max()) <= look.size_spread_mm)


def _rectangle_cards(rectified: Image, felt: Felt, k: float, mat: Mat,
                     found: list[CardObject], card: tuple[float, float], sized: bool = True,
                     in_colour: bool = False, in_plain: bool = False,
                     look: RectangleLook = RECTANGLES, learnt: bool = False) -> list[CardObject]:
    """Cards found as rectangles of their deck's size whose four sides all run along an edge.

    Paper as pale as the felt, or darker (yellowed paper on pale felt), or a
    card whose edge is grimy, may differ from the felt too little in colour for
    any cut; its outline is still a straight edge all round, at a size the deck
    fixes. For each turn, the edges across each side's direction (either
    way: paper lighter than the felt or its shadow, darker than the felt
    elsewhere on the same card) are summed along a side's length by a box
    filter; a card may lie where all four sides of its rectangle run along
    edges. Such a rectangle is a card when the felt's colour lies just outside
    every side (not a printed frame line on one side and a shadow's edge on the
    other), its middle is mostly unlike the felt (not felt round a lighter),
    it is not half on a thing that is no card (a napkin), and it overlaps no
    card found. Only the seats still short of their four cards, with
    something busy with print left beside the cards found, are searched.
    ``learnt``: ``card`` is a learnt deck's size (:attr:`StepFit.learnt_step`, :attr:`StepFit.shadow`).
    """
    per_seat = _per_seat(found, mat)
    H, W = rectified.shape[:2]
    short = [s for s in range(4) if per_seat[s] < 4 and (not in_plain or _glared(felt, mat, s, k, look))]
    if not short:
        return []
    # only seats with something busy with print left beside the cards found (a card's print shows,
    # whatever its paper), or a patch unlike the felt (a glare on pale felt washes print out, not the
    # paper's tint): a seat short because its player has fewer cards costs nothing more. What was
    # found and is no card (a glare joined to a card) hides no print: a card may lie under it
    blob = _unread_blob(rectified, felt, k, mat, [o for o in found if o.why is None])
    boxes = []
    for seat in short:
        x0, y0, x1, y1 = mat.card_zone(seat)
        r = UNREAD_REACH_MM
        region = (max(0, round((x0 - r) * k)), max(0, round((y0 - r) * k)), min(W, round((x1 + r) * k)),
                  min(H, round((y1 + r) * k)))
        left = blob[region[1]:region[3], region[0]:region[2]]
        if (cv2.countNonZero(left) < look.least_busy * CARD_MM[0] * CARD_MM[1] * k * k
                and not _unlike_left(rectified, felt, k, region, found, look)):
            continue
        p = look.pad_mm
        boxes.append((seat, max(0, int((x0 - p) * k)), max(0, int((y0 - p) * k)),
                      min(W, int((x1 + p) * k)), min(H, int((y1 + p) * k))))
    if not boxes:
        return []
    free = every(felt.free, 2) > 0
    if not free.any():
        return []
    gx, gy = _log_gradient(every(rectified, 2), look.blur_px / 2)
    noise = float(median(np.asarray(cv2.magnitude(gx, gy), np.float32)[free])) / 2  # a full-size pixel
    limit: Any = max(look.min_edge, look.edge_sigmas * noise)  # a scalar to OpenCV (its stubs know arrays only)
    ks = look.px_per_mm  # searched at this resolution; the edges are found at the frame's
    f = ks / k
    a_px, b_px = card[0] * ks, card[1] * ks
    la = max(1, round(a_px * (1 - 2 * look.corners)))
    lb = max(1, round(b_px * (1 - 2 * look.corners)))
    ha, hb = round(a_px / 2), round(b_px / 2)
    one = np.ones((3, 3), np.uint8)
    contrast = _ContrastMap.of(rectified, felt, k)
    # the edges of a second image count too: ``in_colour``, the colour difference from the felt (a card's edge
    # may show in colour only: yellowed paper as bright as a felt of another hue); ``in_plain``, the plain
    # brightness (a glare on dark felt veils a card's edge under the log brightness's noise there, not the plain's)
    second: FloatImage | None = None
    climit: Any = np.inf
    if in_colour or in_plain:
        second, least = ((contrast.dp, look.min_colour_edge) if in_colour else
                         (np.asarray(cv2.transform(rectified, np.full((1, 3), 1.0 / 3.0, np.float32)), np.float32),
                          look.min_plain_edge))
        cgx, cgy = _blurred_gradient(every(second, 2), look.blur_px / 2)
        cnoise = float(median(np.asarray(cv2.magnitude(cgx, cgy), np.float32)[free])) / 2
        climit = max(least, look.edge_sigmas * cnoise)
    maps: list[_PeakMap] = []
    for seat, bx0, by0, bx1, by1 in boxes:
        sgx, sgy = _log_gradient(np.ascontiguousarray(rectified[by0:by1, bx0:bx1]), look.blur_px)
        dgx, dgy = (_blurred_gradient(np.ascontiguousarray(second[by0:by1, bx0:bx1]), look.blur_px)
                    if second is not None else (sgx, sgy))
        zx0, zy0, zx1, zy1 = mat.card_zone(seat)
        h, w = sgx.shape
        centre = ((w - 1) / 2.0, (h - 1) / 2.0)
        for deg in np.arange(0.0, 90.0, look.step_deg):
            r = math.radians(float(deg))
            cos, sin = math.cos(r), math.sin(r)
            # edges across the sides whose normal is u = (cos, sin), and across those whose normal is
            # v = (-sin, cos), either way (paper lighter than the felt or its shadow, or darker than the felt)
            # (in log brightness, and in the second image's)
            across = [cv2.compare(np.abs(sgx * cos + sgy * sin), limit, cv2.CMP_GT),
                      cv2.compare(np.abs(sgy * cos - sgx * sin), limit, cv2.CMP_GT)]
            if second is not None:
                across = [cv2.bitwise_or(across[0], cv2.compare(np.abs(dgx * cos + dgy * sin), climit, cv2.CMP_GT)),
                          cv2.bitwise_or(across[1], cv2.compare(np.abs(dgy * cos - dgx * sin), climit, cv2.CMP_GT))]
            planes = cv2.dilate(cv2.merge(across), one)  # kept whole when scaled down
            # the crop turned so that u runs along x, at the search's resolution
            tw, th = int(math.ceil((w * cos + h * sin) * f)) + 2, int(math.ceil((w * sin + h * cos) * f)) + 2
            m = cv2.getRotationMatrix2D(centre, float(deg), f)
            m[:, 2] += np.array([(tw - 1) / 2.0, (th - 1) / 2.0]) - np.array(centre)
            across_u, across_v = cv2.split(cv2.warpAffine(planes, m, (tw, th), flags=cv2.INTER_LINEAR))
            inv = cv2.invertAffineTransform(m)
            u, v = np.array([cos, sin]), np.array([-sin, cos])
            for (sx, lx, hx), (sy, ly, hy) in (((ha, lb, card[0] / 2), (hb, la, card[1] / 2)),
                                               ((hb, la, card[1] / 2), (ha, lb, card[0] / 2))):
                if 2 * sx >= tw or 2 * sy >= th:
                    continue
                # the sides across x at +-sx run along y, lx long (the rest of the side along x: corners)...
                vert, horiz = cv2.blur(across_u, (1, lx)), cv2.blur(across_v, (ly, 1))
                # the score of the rectangle centred at (x + sx, y + sy): its weakest side (placed at the deck's
                # own size, not the whole pixels of the search's)
                score = cv2.min(cv2.min(vert[sy:th - sy, :tw - 2 * sx], vert[sy:th - sy, 2 * sx:]),
                                cv2.min(horiz[:th - 2 * sy, sx:tw - sx], horiz[2 * sy:, sx:tw - sx]))
                scores = np.asarray(score, np.uint8)
                maps.append(_PeakMap(seat, (zx0, zy0, zx1, zy1), scores, k, _peak_order(scores, 255 * look.min_side),
                                     np.asarray(inv, np.float64), sx, sy, bx0, by0, u * hx, v * hy))
    # the peaks of every map judged together (one by one, thousands a hard frame, they cost seconds): what
    # a peak is does not hang on the others, only whether it is looked at (a rectangle kept blanks its neighbours)
    walks = [_PeakWalk(pm) for pm in maps]
    while True:  # a round: the next peaks of every map still looked in, judged at once
        batches = [(w, w.next_peaks(look)) for w in walks if not w.done]
        batches = [(w, b) for w, b in batches if b.size]
        if not batches:
            break
        placed = [w.peaks.placed(b) for w, b in batches]
        ok = _judged(np.concatenate([c for c, _ in placed]), np.concatenate([q for _, q in placed]),
                     np.repeat(np.array([w.peaks.zone for w, _ in batches], np.float64),
                               [b.size for _, b in batches], axis=0), contrast, look)
        ends = np.cumsum([b.size for _, b in batches])
        for (w, b), (cxy, quads), judged in zip(batches, placed, np.split(ok, ends[:-1]), strict=True):
            w.walk(b, cxy, quads, judged, mat, look)
    ranked = [q for _, q in sorted((c for w in walks for c in w.kept), key=lambda sq: -sq[0])]
    kept = [o.quad for o in found if o.why is None]
    area = card[0] * card[1]
    others = [(o.quad.astype(np.float32), o.size[0] * o.size[1]) for o in found if o.why is not None]

    def unclaimed(quad: QuadMM) -> bool:
        """Whether a rectangle is off every card kept and not half on a thing that is no card."""
        q32 = quad.astype(np.float32)
        # half on a thing that is no card (a napkin, a lighter): a card lies inside such a thing or off it;
        # unless the thing lies inside the rectangle and fills most of it: the card's own paper, cut too narrow
        for q, a in others:
            inter = cv2.intersectConvexConvex(q32, q)[0]
            own = look.own_paper * area <= a < area and inter >= (1 - look.most_overlap) * a
            if look.most_overlap * area < inter < (1 - look.most_overlap) * area and not own:
                return False
        return not any(cv2.intersectConvexConvex(q32, q.astype(np.float32))[0] > look.most_overlap * area
                       for q in kept)

    # A peak of edges all round may be a printed frame line and a shadow's edge as much as the card's own
    # edge. Where the paper's colour tells (its fall to the felt's across the sides of a card, :class:`StepFit`),
    # the rectangles on it are taken first (on it all round, as found: a fit would only trade a mm here for a
    # turn there; else fitted near where they are), then those farther off moved onto it, last the rest as found
    levels = _colour_levels(np.asarray(ranked + kept, np.float64).reshape(-1, 4, 2), contrast, shadows=learnt)
    sides = np.sort(levels[:, :, 0] - levels[:, :, 1], axis=1)
    # a fit is taken on a fall the paper of this frame's cards can show (yellowed paper on felt of nearly its
    # hue falls less than most decks' paper), above the felt's own spread
    least = STEP_FIT.least_step
    if kept:
        paper = float(np.median(levels[len(ranked):, :, 0]))
        least = max(contrast.least_step, min(least, STEP_FIT.paper_share * paper))
    if learnt:
        least = min(least, STEP_FIT.learnt_step)
    tells = bool(np.any(sides[:, 1] >= least))  # on some card found or candidate: worth fitting the rest
    clear = sides[:len(ranked), 1] >= STEP_FIT.least_step
    # of those on the colour's fall, those on it all round first (a rectangle a third off a figure card may have
    # three sides on it, its fourth on the figure's colour), each kind best edges first
    by_fall = sorted(np.flatnonzero(clear), key=lambda i: not bool(sides[i, 0] >= STEP_FIT.least_step))
    out: list[QuadMM] = []

    def keep(quad: QuadMM) -> None:
        kept.append(quad)
        out.append(quad)

    def fitted(quad: QuadMM, coarse: bool = True) -> tuple[QuadMM, bool]:
        """The colour's fit, at the frame's least fall; resized too where the deck's size is not sure."""
        return _colour_step_fitted(quad, contrast, least, coarse=coarse, resize=not sized, shadows=learnt)

    deferred: list[QuadMM] = []
    failed: list[npt.NDArray[np.float64]] = []  # centres whose fit found no fall: a peak beside one is no better
    for i in by_fall:
        quad = ranked[i]
        if unclaimed(quad):
            if sides[i, 0] < STEP_FIT.least_step:  # one side off the fall: a mm or two off, or turned
                quad, _ = fitted(quad, coarse=False)
            if unclaimed(quad):
                keep(quad)
    for quad in [q for q, c in zip(ranked, clear, strict=True) if not c]:
        if not unclaimed(quad):
            continue
        centre = quad.mean(axis=0)
        if not tells or any(float(np.linalg.norm(centre - f)) < look.refit_apart_mm for f in failed):
            deferred.append(quad)
            continue
        moved_to, moved = fitted(quad)
        if not moved:
            failed.append(centre)
            deferred.append(quad)
        elif unclaimed(moved_to):
            keep(moved_to)
        elif learnt:  # moved onto a card kept (a neighbour's edge): the rectangle as found may still be its card
            deferred.append(quad)
    for quad in deferred:
        if unclaimed(quad):
            keep(quad)
    return [CardObject(q, None) for q in out]


@dataclass(frozen=True)
class StepFit:
    """A rectangle of the deck's size moved and turned, whole, onto where its colour ends (:func:`_colour_step_fitted`)."""

    steps: tuple[tuple[float, float, float, float], ...] = ((2.0, 10.0, 3.0, 14.0), (0.5, 2.0, 0.5, 2.0))
    """Coarse then fine: (shift step mm, shift span mm either way along each axis, turn step deg, turn span deg
    either way); the rectangle search's peaks may be 10 mm and 13 degrees off."""
    depths_mm: tuple[float, ...] = (1.5, 3.0)
    """The colour difference from the felt is taken this far inside and outside each side..."""
    points: int = 8
    """...at this many points along it (its ends left out)."""
    least_step: float = 0.025
    """Least fall of the colour difference from the felt outwards across three of the four sides for a fit to
    be taken (a neighbour may touch the fourth)..."""
    least_quiet_step: float = 0.012
    """...or on a felt whose colour is quiet, down to this (yellowed paper on a felt of nearly its hue differs
    from it by less than the paper of most decks, but far more than the felt from itself)..."""
    noise_times: float = 10.0
    """...when it is at least this many times the free felt's own spread in colour difference..."""
    paper_share: float = 0.6
    """...and this share of the colour difference of the paper just inside the sides of the cards found."""
    paper_inside: float = 0.5
    """Just inside every side the colour difference is at least this share of the rectangle's paper's (the
    median of its sides'): a rectangle moved half off its card onto the print's colour edges has bare felt
    inside one side."""
    learnt_step: float = 0.012
    """Where the deck's size is a learnt deck's (:func:`find_cards`'s ``card_mm``), a fall this large is enough:
    only the place and turn are sought, and a rectangle of the card's own size finds no place with three sides
    on a fall but on its card (worn paper on felt of nearly its colour falls 0.015-0.02, under the frame's
    least)."""
    shadow: float = 0.1
    """Where the deck's size is a learnt deck's, outside a side a point this share darker than the rectangle's
    paper (the median brightness just inside its sides) is the card's shadow, taken for the felt: a shadow's
    colour difference from the felt, small as it is, matches that of paper nearly of the felt's colour, and the
    fit would take the shadow for the card. (Not in a frame read out of the box, nor a learning frame: there the
    fit left the shadow inside a card found off its card, and :func:`off_card` refuses a learning frame by it;
    moved off the shadow, not always onto its card, a quad 8-16 mm off had none inside, and was learnt.)"""
    grows_mm: tuple[tuple[float, ...], ...] = ((-2.0, 0.0, 2.0), (-1.0, -0.5, 0.0, 0.5, 1.0))
    """Coarse then fine: the sides' lengths tried, each grown by these (mm) from the last stage's: a deck's size
    taken from one or two cards cut small (a worn edge as pale as the felt) is a few mm off, and a rectangle
    of the wrong size has no place with every side on the card's edge."""


def _across_sides(q: npt.NDArray[np.float64], points: int, offsets_mm: list[float]) -> npt.NDArray[np.float64]:
    """Points along each side of each clockwise rectangle (n x 4 x 2), from 15 % to 85 % of its length, at each
    offset along the side's outward normal (negative: inside): n x 4 x offsets x points x 2."""
    c = q.mean(axis=1)
    t = np.linspace(0.15, 0.85, points)[:, None]
    a, b = q, np.roll(q, -1, axis=1)  # side i joins corners i and i+1
    n = (a + b) / 2 - c[:, None]
    n = n / np.maximum(np.linalg.norm(n, axis=2), 1e-9)[..., None]
    d = np.asarray(offsets_mm, np.float64)
    return np.asarray(a[:, :, None, None] + (b - a)[:, :, None, None] * t
                      + n[:, :, None, None] * d[None, None, :, None, None], np.float64)


STEP_FIT = StepFit()


def _colour_levels(quads: npt.NDArray[np.float64], contrast: _ContrastMap, fit: StepFit = STEP_FIT,
                   shadows: bool = False) -> npt.NDArray[np.float32]:
    """For each rectangle (n x 4 x 2), each side's colour difference from the felt just inside and just outside
    it (n x 4 x 2): the medians of the points at :attr:`StepFit.depths_mm` either way; with ``shadows``, a
    shadow outside a side counts as felt (:attr:`StepFit.shadow`)."""
    q = _clockwise_each(quads)
    pts = _across_sides(q, fit.points, [-x for x in fit.depths_mm] + list(fit.depths_mm))
    ratio, dp = contrast.at(pts.reshape(-1, 2))
    shape = (len(q), 4, 2, len(fit.depths_mm) * fit.points)
    ratio, dp = ratio.reshape(shape), dp.reshape(shape)
    if shadows:  # outside a side, what is far darker than the rectangle's paper is its shadow, of the felt's colour
        dp[:, :, 1] = _shadow_as_felt(ratio[:, :, 0], ratio[:, :, 1], dp[:, :, 1], fit)
    return _median(dp)


def _on_paper_all_round(levels: npt.NDArray[np.float32], fit: StepFit = STEP_FIT) -> npt.NDArray[np.bool_]:
    """For each rectangle's side levels (n x 4 x 2, :func:`_colour_levels`), whether paper lies just inside every
    side: none has the felt's colour on both sides (the rectangle half off its card, on bare felt), though a
    neighbour's paper may lie outside one."""
    inside = levels[:, :, 0]
    paper = _median(inside)
    return np.asarray(inside.min(axis=1) >= fit.paper_inside * paper, bool)


def _rotations(turns_deg: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """The rotation matrix of each turn (degrees): turns x 2 x 2."""
    rads = np.deg2rad(turns_deg)
    return np.asarray(np.stack([np.stack([np.cos(rads), -np.sin(rads)], axis=1),
                                np.stack([np.sin(rads), np.cos(rads)], axis=1)], axis=1), np.float64)


def _shadow_as_felt(inside_ratio: npt.NDArray[Any], outside_ratio: npt.NDArray[Any], outside_dp: npt.NDArray[Any],
                    fit: StepFit = STEP_FIT) -> npt.NDArray[np.float32]:
    """``outside_dp`` (each rectangle's colour difference from the felt outside its sides, rectangles first) with
    each point far darker than its rectangle's paper (the median brightness just inside its sides) taken for the
    felt: a shadow, of the felt's colour (:attr:`StepFit.shadow`). No rectangle: none."""
    n = len(inside_ratio)
    paper = _median(inside_ratio.reshape(n, int(np.prod(inside_ratio.shape[1:]))))
    paper = paper.reshape((n,) + (1,) * (outside_ratio.ndim - 1))
    return np.asarray(np.where(outside_ratio < paper * np.float32(1.0 - fit.shadow), np.float32(0.0), outside_dp),
                      np.float32)


def _colour_step_fitted(quad: QuadMM, contrast: _ContrastMap, least: float | None = None, fit: StepFit = STEP_FIT,
                        coarse: bool = True, resize: bool = False, shadows: bool = False) -> tuple[QuadMM, bool]:
    """The rectangle moved and turned (and, if ``resize``, resized) to where its colour falls to the felt's, and
    whether it does.

    On felt as pale as the paper the rectangle search's edges are as much a
    printed frame line, a worn band's inner edge or a shadow's outer edge as
    the card's own: a rectangle of the deck's size lands a few mm off, or turned.
    Worn, yellowed or tinted paper still differs from the felt in colour
    (a shadow keeps the felt's): the card is where the colour difference falls
    outwards across its sides. Searched coarse (unless ``coarse`` is False: the
    rectangle is near already) by the weakest of the three strongest sides (a
    neighbour may touch the fourth), then fine by their sum (the sharper
    optimum), among the rectangles with paper just inside every side (one
    moved half off its card onto a row of signs has bare felt inside one:
    :attr:`StepFit.paper_inside`); the quad found is taken only when that
    fall is clear (``least``, by default :attr:`StepFit.least_step`), else the
    rectangle stays as it was. Where the deck's size came from one or two
    cards (a worn edge cut off makes them small) the size is searched too
    (:attr:`StepFit.grows_mm`): at the wrong size no place has every side on
    the card's edge, and the best three land on the print.
    """
    q = _clockwise(quad)
    c0 = q.mean(axis=0)
    rel = q - c0
    u, v = q[1] - q[0], q[2] - q[1]
    u, v = u / max(float(np.linalg.norm(u)), 1e-9), v / max(float(np.linalg.norm(v)), 1e-9)
    # each corner's way along u and along v: a growth g of a side's length moves it by g / 2 that way
    su, sv = np.sign(rel @ u)[:, None] * u / 2, np.sign(rel @ v)[:, None] * v / 2
    cx, cy, cd, ga, gb = 0.0, 0.0, 0.0, 0.0, 0.0
    weakest = -np.inf
    for n, ((step, span, dstep, dspan), grows) in enumerate(zip(fit.steps, fit.grows_mm, strict=True)):
        if n == 0 and not coarse:
            continue
        grows = grows if resize else (0.0,)
        offsets = np.arange(-span, span + 1e-9, step)
        turns = cd + np.arange(-dspan, dspan + 1e-9, dstep)
        shifts = np.stack(np.meshgrid(cx + offsets, cy + offsets, indexing="ij"), axis=-1).reshape(-1, 2)
        sizes = np.stack(np.meshgrid(ga + np.asarray(grows), gb + np.asarray(grows), indexing="ij"),
                         axis=-1).reshape(-1, 2)
        shapes = rel[None] + sizes[:, 0, None, None] * su[None] + sizes[:, 1, None, None] * sv[None]  # sizes x 4 x 2
        turned = np.einsum("spj,tij->stpi", shapes, _rotations(turns))  # sizes x turns x 4 x 2
        quads = (turned[:, :, None] + (c0 + shifts)[None, None, :, None]).reshape(-1, 4, 2)
        levels = _colour_levels(quads, contrast, fit, shadows)
        steps = np.sort(levels[:, :, 0] - levels[:, :, 1], axis=1)
        last = n == len(fit.steps) - 1
        score = steps.sum(axis=1) if last else steps[:, 1]
        i = int(np.argmax(np.where(_on_paper_all_round(levels, fit), score, -np.inf)))
        zi, rest = divmod(i, len(turns) * len(shifts))
        ti, si = divmod(rest, len(shifts))
        cx, cy, cd, weakest = float(shifts[si, 0]), float(shifts[si, 1]), float(turns[ti]), float(steps[i, 1])
        ga, gb = float(sizes[zi, 0]), float(sizes[zi, 1])
    if weakest < (fit.least_step if least is None else least):
        return quad, False
    r = math.radians(cd)
    rot = np.array([[math.cos(r), -math.sin(r)], [math.sin(r), math.cos(r)]])
    fitted = _clockwise((rel + ga * su + gb * sv) @ rot.T + c0 + (cx, cy))
    return (fitted, True) if card_shaped(*CardObject(fitted, None).size) else (quad, False)


class _Sampler(Protocol):
    """What gives the brightness ratio and colour difference from the felt at points (mat mm)."""

    def at(self, points: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]: ...


@dataclass(frozen=True)
class _PointContrast:
    """:func:`_felt_contrast` at the points asked only: a frame's few hundred side points cost far less than the
    whole frame's map (:class:`_ContrastMap`), which only a search needs."""

    rectified: Image
    felt: Felt
    k: float

    def at(self, points: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        return _felt_contrast(self.rectified, self.felt, points, self.k)


@dataclass(frozen=True)
class PaperFit:
    """A learnt deck's card found off its paper moved, whole, onto where its colour ends (:func:`_onto_paper`)."""

    off_edge: float = 0.3
    """A card lies off its card's edge when its score (:func:`_paper_fit_score`: its weakest side's mean fall of
    the colour difference outwards, as a share of the frame's paper's) is under this (cards on their edges score
    0.4-1, a side of theirs under a glare or a neighbour's shadow; those a side off, 0-0.28)..."""
    on_edge: float = 0.5
    """...and is moved only to a place that scores this..."""
    least_gain: float = 0.2
    """...and this much more than where it was (a place on a card never found, not a neighbour's)."""
    points: int = 10
    """Points along each side (its ends left out) at :attr:`StepFit.depths_mm` inside and outside."""
    steps: tuple[tuple[float, float, float, float], ...] = ((6.0, 36.0, 6.0, 90.0), (1.0, 4.0, 1.0, 4.0),
                                                            (0.5, 1.0, 0.5, 1.0))
    """Coarse to fine (shift step mm, span mm either way, turn step deg, span deg either way): a rectangle kept on
    a frame line and the felt beside its card lies up to half a card off (seen 17-31 mm), or across it. (A coarse
    grid of 4 mm and 5 degrees found the same places at twice the cost: 360 ms at the p95 of a learnt read.)"""
    apart: float = 0.75
    """A place whose centre lies nearer another card's than this share of the deck's short side is that card's."""
    paper_percentile: float = 75.0
    """The frame's paper's colour difference from the felt: this percentile of it just inside every card's sides
    (a card kept half off its paper has the felt inside two; its score must not top out on its own)."""
    coarse_depths_mm: tuple[float, ...] = (3.0, 5.0)
    """The coarse grid judges the colour this far either side of each side (its step may miss a card's edge by
    2 mm, and the fine stages' depths, :attr:`StepFit.depths_mm`, then fall on the wrong side of it)."""
    kept: int = 4
    """The coarse grid's best places (apart by its step) each refined: its step may miss the card's place by half."""
    least_paper: float = 0.015
    """No card is moved where the frame's paper (:attr:`paper_percentile`) differs from the felt by less than this:
    there the colour says nothing of where an edge lies. Measured (5 Dec) on 150 scenes of antigua learnt, on felts
    of about its paper's colour (2 112 cards): of the 96 cards moved in frames whose paper differed by 0.016-0.19,
    95 were moved to within 3 mm of their card (from 3-300 mm off) and one from 8.5 to 3.2 mm; the four moved in
    the one frame whose paper differed by 0.009 were all on their card and were moved 11-14 mm off it."""


PAPER_FIT = PaperFit()


def _placed(rel: npt.NDArray[np.float64], c0: npt.NDArray[np.float64], shifts: npt.NDArray[np.float64],
            turns_deg: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """A rectangle's corners (``rel``, about its centre ``c0``) turned by each turn and moved by each shift:
    (turns x shifts) x 4 x 2, turn-major."""
    turned = np.einsum("pj,tij->tpi", rel, _rotations(turns_deg))
    return np.asarray((turned[:, None] + (c0 + shifts)[None, :, None]).reshape(-1, 4, 2), np.float64)


def _side_points(quads: npt.NDArray[np.float64], contrast: _Sampler, fit: PaperFit = PAPER_FIT,
                 step: StepFit = STEP_FIT, depths_mm: tuple[float, ...] | None = None
                 ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """The colour difference from the felt just inside and just outside each point of each side of each
    rectangle (n x 4 x points each, the mean over ``depths_mm``, by default :attr:`StepFit.depths_mm`), a
    shadow outside taken for the felt (:attr:`StepFit.shadow`)."""
    q = _clockwise_each(quads)
    depths = step.depths_mm if depths_mm is None else depths_mm
    d = len(depths)
    pts = _across_sides(q, fit.points, [-x for x in depths] + list(depths))
    ratio, dp = contrast.at(pts.reshape(-1, 2))
    shape = (len(q), 4, 2 * d, fit.points)
    ratio, dp = ratio.reshape(shape), dp.reshape(shape)
    outside = _shadow_as_felt(ratio[:, :, :d], ratio[:, :, d:], dp[:, :, d:], step)
    return np.asarray(dp[:, :, :d].mean(axis=2), np.float32), np.asarray(outside.mean(axis=2), np.float32)


def _paper_fit_score(inside: npt.NDArray[np.float32], outside: npt.NDArray[np.float32], paper: float
                     ) -> npt.NDArray[np.float32]:
    """How well each rectangle lies on its card's edge: its weakest side's mean fall of the colour difference
    outwards, each point's taken up to the frame's paper's (a side turned across the edge scores its share;
    a side a neighbour touches scores little, as does one a rectangle turned across its card lays over paper
    both ways: only a place that scores well elsewhere moves it)."""
    fall = np.clip(inside - outside, 0.0, paper) / np.float32(max(paper, 1e-6))
    return np.asarray(fall.mean(axis=2).min(axis=1), np.float32)


def _onto_paper(found: list[CardObject], rectified: Image, felt: Felt, k: float, card: tuple[float, float],
                fit: PaperFit = PAPER_FIT) -> list[CardObject]:
    """Each card with a side off its card's edge moved, at the learnt deck's size ``card``, to the nearby place
    (:attr:`PaperFit.steps`) where its colour falls to the felt's across every side, if there is one.

    The rectangle look's edges on felt as pale as the paper are as much a printed frame line or a zone line as
    a card's edge: a rectangle of the deck's size may be kept with one side on its card's frame line and the
    opposite side on the felt (or the next card) beyond it, or turned across its card. Its colour says so: just
    inside a side lies felt. A learnt deck's exact size leaves a card one place where every side has its paper
    inside and the felt outside.
    """
    cards = [i for i, o in enumerate(found) if o.why is None]
    if not cards:
        return found
    quads = np.asarray([_resized(found[i].quad, card) for i in cards], np.float64)
    inside, outside = _side_points(quads, _PointContrast(rectified, felt, k), fit)  # the whole map only if needed
    paper = float(np.percentile(inside, fit.paper_percentile))
    before = _paper_fit_score(inside, outside, paper)
    off = before < fit.off_edge
    if not off.any() or paper < fit.least_paper:
        return found
    contrast = _ContrastMap.of(rectified, felt, k)
    out = list(found)
    apart = fit.apart * card[0]
    area = card[0] * card[1]
    for j in np.flatnonzero(off):
        i = cards[int(j)]
        others = [out[n].quad for n in cards if n != i]
        centres = np.array([q.mean(axis=0) for q in others], np.float64).reshape(-1, 2)
        q = _clockwise(quads[int(j)])
        c0 = q.mean(axis=0)
        rel = q - c0
        starts = [(0.0, 0.0, 0.0)]
        best, cx, cy, cd = -np.inf, 0.0, 0.0, 0.0
        for n_step, (step, span, dstep, dspan) in enumerate(fit.steps):
            tried: list[tuple[float, float, float, float]] = []
            for sx, sy, sd in starts:
                offsets = np.arange(-span, span + 1e-9, step)
                shifts = np.stack(np.meshgrid(sx + offsets, sy + offsets, indexing="ij"), axis=-1).reshape(-1, 2)
                turns = sd + np.arange(-dspan, dspan - 1e-9 if dspan >= 90.0 else dspan + 1e-9, dstep)
                placed = _placed(rel, c0, shifts, turns)
                near = (np.linalg.norm(placed.mean(axis=1)[:, None] - centres[None], axis=2) < apart).any(axis=1)
                pin, pout = _side_points(placed, contrast, fit, depths_mm=fit.coarse_depths_mm if n_step == 0 else None)
                score = np.where(near, -np.inf, _paper_fit_score(pin, pout, paper))
                # the coarse grid's best few, apart (its step may fall either side of the card's place)
                for n in np.argsort(-score)[:fit.kept * 8 if n_step == 0 else 1]:
                    ti, si = divmod(int(n), len(shifts))
                    tried.append((float(score[n]), float(shifts[si, 0]), float(shifts[si, 1]), float(turns[ti])))
            tried.sort(key=lambda t: -t[0])
            starts = []
            for sc, x, y, d in tried:
                if sc > -np.inf and all(math.dist((x, y), (a, b)) > step for a, b, _ in starts):
                    starts.append((x, y, d))
                    if len(starts) == (fit.kept if n_step == 0 else 1):
                        break
            if not starts:
                break
            best, (cx, cy, cd) = tried[0][0], starts[0]
        if best < max(fit.on_edge, before[j] + fit.least_gain):
            continue
        moved = _clockwise(_placed(rel, c0, np.array([[cx, cy]]), np.array([cd]))[0])
        m32 = moved.astype(np.float32)
        if any(cv2.intersectConvexConvex(m32, o.astype(np.float32))[0] > RECTANGLES.most_overlap * area
               for o in others):
            continue
        out[i] = CardObject(moved, found[i].zone)
    return out


def _unlike_left(rectified: Image, felt: Felt, k: float, region: tuple[int, int, int, int],
                 found: list[CardObject], look: RectangleLook) -> bool:
    """Whether a patch unlike the felt, of :attr:`RectangleLook.least_unlike` of a card, lies in ``region`` (px)
    beside the cards found: a card whose print a glare washes out still differs from the felt a little in
    brightness or tint over its whole paper (averaged over a few mm, the sensor's grain does not)."""
    x0, y0, x1, y1 = region
    if x1 - x0 < 2 or y1 - y0 < 2:
        return False
    ratio, dp = felt.contrast(rectified, region)
    size = 2 * round(FAINT_SMOOTH_MM * k / 2) + 1
    ratio = np.asarray(cv2.blur(ratio, (size, size)), np.float32)
    dp = np.asarray(cv2.blur(dp, (size, size)), np.float32)
    floor = max(SIDES.min_colour, SIDES.noise_times * felt.contrast_noise(rectified)[1])
    taken = _taken([o for o in found if o.why is None], k, rectified.shape[:2], 3.0)[y0:y1, x0:x1]
    unlike = ((np.abs(ratio - 1.0) > look.unlike_ratio) | (dp > floor)) & (taken == 0)
    n, _, stats, _ = cv2.connectedComponentsWithStats(unlike.astype(np.uint8), connectivity=8)
    return n > 1 and int(stats[1:, cv2.CC_STAT_AREA].max()) >= look.least_unlike * CARD_MM[0] * CARD_MM[1] * k * k


@dataclass(frozen=True)
class _PeakMap:
    """One turn and way up of a seat's rectangle search: its scores (blanked around a rectangle kept), its
    peaks in :func:`cv2.minMaxLoc`'s order (highest first, then the first along the rows), and how a peak is
    placed on the mat."""

    seat: int
    zone: tuple[float, float, float, float]
    score: Image
    k: float
    order: npt.NDArray[np.intp]
    inv: npt.NDArray[np.float64]
    sx: int
    sy: int
    bx0: int
    by0: int
    du: npt.NDArray[np.float64]
    dv: npt.NDArray[np.float64]

    def placed(self, peaks: npt.NDArray[np.intp]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """The centres (n x 2, mm) and rectangles (n x 4 x 2, clockwise) of peaks (indices into the scores)."""
        vy, vx = np.divmod(peaks, self.score.shape[1])
        pxy = self.inv @ np.stack([vx + self.sx, vy + self.sy, np.ones(len(peaks))])
        cxy = np.stack([(pxy[0] + self.bx0 + 0.5) / self.k, (pxy[1] + self.by0 + 0.5) / self.k], axis=1)
        du, dv = self.du, self.dv
        return cxy, _clockwise_each(np.stack([cxy - du - dv, cxy + du - dv, cxy + du + dv, cxy - du + dv], axis=1))


def _peak_order(score: Image, least: float) -> npt.NDArray[np.intp]:
    """The pixels (flat indices) of at least ``least``, in the order repeated :func:`cv2.minMaxLoc` finds them,
    each taken off once found: highest first, and of equal ones the first along the rows."""
    flat = score.reshape(-1)
    above = np.flatnonzero(flat >= least)
    return above[np.argsort(-flat[above].astype(np.int16), kind="stable")]


def _judged(cxy: npt.NDArray[np.float64], quads: npt.NDArray[np.float64], zones: npt.NDArray[np.float64],
            contrast: _ContrastMap, look: RectangleLook) -> npt.NDArray[np.bool_]:
    """Whether each rectangle's centre lies in its zone's rectangle (each zone x0, y0, x1, y1), the felt's colour
    just outside it (a rectangle from a printed frame line to a shadow's edge has paper outside one side), and
    paper within it; cheapest first (a centre outside the zone's rectangle is in no other seat's)."""
    ok = ((zones[:, 0] <= cxy[:, 0]) & (cxy[:, 0] <= zones[:, 2])
          & (zones[:, 1] <= cxy[:, 1]) & (cxy[:, 1] <= zones[:, 3]))
    ok[ok] = _felt_outside(quads[ok], contrast)
    ok[ok] = _paper_within(quads[ok], contrast, look)
    return ok


class _PeakWalk:
    """One map's peaks looked at best first (as :func:`cv2.minMaxLoc` would find them), up to
    :attr:`RectangleLook.tries` of them and four rectangles kept: a peak refused is only itself taken off,
    one kept blanks the peaks around it. Every peak looked at is blanked, so the next to look at are
    always the first left."""

    def __init__(self, peaks: _PeakMap) -> None:
        self.peaks = peaks
        self.kept: list[tuple[float, QuadMM]] = []
        """The rectangles kept, each with its score."""
        self.visits = 0
        self.done = False
        self._pos = self._rounds = 0
        self._flat = peaks.score.reshape(-1)  # a view: the circles drawn on the scores show here

    def next_peaks(self, look: RectangleLook) -> npt.NDArray[np.intp]:
        """The next peaks that may be looked at (none when the map is done): a few at first (the first are
        often kept, and four kept end the map), twice as many each round."""
        rest = self.peaks.order[self._pos:]
        most = min(look.first_peaks << self._rounds, look.tries - self.visits)
        self._rounds += 1
        left = np.flatnonzero(self._flat[rest])[:most]
        if not left.size:
            self.done = True
            return rest[:0]
        self._pos += int(left[-1]) + 1
        return rest[left]

    def walk(self, batch: npt.NDArray[np.intp], cxy: npt.NDArray[np.float64], quads: npt.NDArray[np.float64],
             ok: npt.NDArray[np.bool_], mat: Mat, look: RectangleLook) -> None:
        """Look at peaks placed and judged (:func:`_judged`), best first; the seat is checked last."""
        flat, width = self._flat, self.peaks.score.shape[1]
        for j, peak in enumerate(batch):
            if len(self.kept) >= 4 or self.visits >= look.tries:
                break
            if not flat[peak]:
                continue  # under a rectangle kept
            self.visits += 1
            if not ok[j] or CardObject(cxy[j][None], mat.zone_at(*cxy[j])).seat != self.peaks.seat:
                flat[peak] = 0  # a peak refused: only itself taken off
                continue
            self.kept.append((float(flat[peak]), quads[j]))
            vy, vx = divmod(int(peak), width)
            cv2.circle(self.peaks.score, (vx, vy), max(1, self.peaks.sx), 0.0, -1)
        self.done = len(self.kept) >= 4 or self.visits >= look.tries


@dataclass(frozen=True)
class SideFit:
    """Each side of a card found moved alone to where the card's colour ends (:func:`_sides_fitted`)."""

    inside_mm: float = 8.0
    """A side moves at most this far in (a card found shifted, a side on the felt)..."""
    outside_mm: float = 10.0
    """...and this far out (a worn edge band no lighter than the felt)."""
    paper_mm: float = 3.0
    """What lies under a side is judged over this much inside it."""
    felt_mm: float = 3.0
    """Past a side moved out, this much is of the felt's colour (a printed line on a neighbour's paper is not)."""
    felt_ratio: float = 0.12
    """A side lies on the felt when what is inside it is of the felt's colour and this close to its brightness."""
    step_mm: float = 1.0
    """Steps of each side's profile (about a pixel of the rectified view; the crossing is interpolated)."""
    min_colour: float = 0.03
    """Least colour difference from the felt (:meth:`vision.felt.Felt.contrast`) of a card's paper for its
    sides to be moved by colour..."""
    noise_times: float = 10.0
    """...and at least this many times the free felt's own spread in it."""
    points: int = 16
    """Points along each side whose median is its profile."""
    most_over_deck: float = OFF_SIZE
    """A fit that leaves a card larger than its frame's deck by more than this share (either side) is not taken,
    where the deck's size is known: a worn band brings a card up to its deck's size, not past it; past it lies
    something else unlike the felt that the card touches (a glare's light beside a card on dark felt)."""


SIDES = SideFit()


@dataclass(frozen=True)
class OnCard:
    """Whether a card found sits on its card: no side with the card's own shadow just inside it (:func:`off_card`).

    A card casts its shadow on the felt beside two of its sides; on a felt of
    nearly the paper's colour and brightness the finder may take the shadow's
    outer edge for the card's, and the rectangle, of the right size, lands
    6-20 mm off, with a band of shadow just inside one side. Paper is never
    darker than the felt, of its colour, at every depth just inside one side
    while brighter inside the others; a shadow is. Measured (:func:`shadow_fall`,
    4 Dec) on the six held-out decks' learning frames (seeds 60601, 11001, 70102
    and 90001 at 1.45 px/mm, 61005, 31337 and 42424 at 2.9; two sets each, 252
    frames): all 3281 cards found within 2 mm of their card fell 0; the 5 frames
    refused each had its worst card 5-36 mm off, falling 0.15-1.3 (antigua's frame
    at seed 61005: 0.21 and 0.23, at 1.45 and 2.9 px/mm). Not caught: two frames
    with a card 7-8 mm off for another reason (no shadow inside it).
    """

    depths_mm: tuple[float, ...] = (1.5, 3.0)
    """Each side's inside is taken this far in, each depth the median of...: a shadow darkens every depth, a
    frame line printed 3-5 mm in (`cincuenta`'s) only the deeper ones, with paper before it..."""
    points: int = 8
    """...this many points along it (its ends left out)."""
    fall: float = 0.10
    """Least fall in brightness (ratio to the felt) from the card's paper (its second brightest side's inside)
    to one side's inside for that side to have a shadow inside it..."""
    below_felt: float = 0.03
    """...which must also be darker than the felt by this share, and of its colour (a colour difference under
    the floor paper's sides are judged by, :class:`SideFit`): a shadow darkens the felt and keeps its colour."""


ON_CARD = OnCard()


def shadow_fall(quads: list[QuadMM], rectified: Image, felt: Felt, k: float, check: OnCard = ON_CARD,
                fit: SideFit = SIDES) -> npt.NDArray[np.float64]:
    """For each quad (mat mm), how much darker than its paper the inside of its darkest shadow-like side is
    (brightness ratio to the felt; 0 where no side has inside it what is darker than the felt and of its colour)."""
    if not quads:
        return np.zeros(0, np.float64)
    q = _clockwise_each(np.asarray(quads, np.float64).reshape(-1, 4, 2))
    depths = len(check.depths_mm)
    pts = _across_sides(q, check.points, [-d for d in check.depths_mm])
    ratio, dp = _felt_contrast(rectified, felt, pts.reshape(-1, 2), k)
    # each depth's median along the side; the side is as shadowed as its least shadowed depth
    inside_ratio = _median(ratio.reshape(len(q), 4, depths, check.points)).max(axis=2).astype(np.float64)
    inside_dp = _median(dp.reshape(len(q), 4, depths, check.points)).max(axis=2)
    paper = np.sort(_median(ratio.reshape(len(q), 4, -1)).astype(np.float64), axis=1)[:, -2:-1]
    floor = max(fit.min_colour, fit.noise_times * felt.contrast_noise(rectified)[1])
    felt_like = (inside_ratio <= 1.0 - check.below_felt) & (inside_dp < floor)
    return np.asarray(np.where(felt_like, paper - inside_ratio, 0.0).max(axis=1), np.float64)


def off_card(quads: list[QuadMM], rectified: Image, felt: Felt, k: float, check: OnCard = ON_CARD,
             fit: SideFit = SIDES) -> npt.NDArray[np.bool_]:
    """For each quad (mat mm), whether it lies off its card: a shadow just inside one of its sides
    (:func:`shadow_fall` at least :attr:`OnCard.fall`)."""
    return np.asarray(shadow_fall(quads, rectified, felt, k, check, fit) >= check.fall, bool)


def _sides_fitted(quad: QuadMM, rectified: Image, felt: Felt, k: float, fit: SideFit = SIDES) -> QuadMM:
    """The rectangle with each side moved alone, along its normal, to where the card's colour meets the felt.

    Worn paper fades towards a grimy edge: the band outside its printed frame
    may be no lighter than the felt, so the cut leaves it out, and the card is
    found several mm small. It is still of the paper's colour, not the felt's
    (a shadow darkens the felt but keeps its colour): walking out from inside
    each side, the card ends where the colour difference falls to half the
    paper's. A side whose paper is of the felt's own colour, or that meets no
    felt within :attr:`SideFit.outside_mm` (a neighbour touching), stays.
    """
    q = _clockwise(quad)
    c = q.mean(axis=0)
    t = np.linspace(0.15, 0.85, fit.points)[:, None]
    sides = [(q[i], q[(i + 1) % 4]) for i in range(4)]  # side i joins corners i and i+1
    normals = [(a + b) / 2 - c for a, b in sides]
    normals = [n / max(float(np.linalg.norm(n)), 1e-9) for n in normals]

    def across(offsets: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Brightness ratio and colour difference to the felt at points along every side, moved out by each
        offset (mm): each side x offset, the median of its points."""
        pts = np.stack([(a + (b - a) * t)[None] + offsets[:, None, None] * n
                        for (a, b), n in zip(sides, normals, strict=True)])
        ratio, dp = _felt_contrast(rectified, felt, pts.reshape(-1, 2), k)
        shape = (4, len(offsets), fit.points)
        return (np.asarray(np.median(ratio.reshape(shape), axis=2), np.float64),
                np.asarray(np.median(dp.reshape(shape), axis=2), np.float64))

    floor = max(fit.min_colour, fit.noise_times * felt.contrast_noise(rectified)[1])
    # first, cheaply: a side with paper of another colour than the felt just inside it and the felt's
    # colour just outside, or with the felt just outside and the felt just inside, stays
    _, near = across(np.array([-2.0 * fit.step_mm, 1.5 * fit.step_mm]))
    paper = float(near[:, 0].max())
    if paper < floor or bool(np.all(near[:, 1] < np.maximum(near[:, 0], paper) / 2)):
        return quad
    offsets = np.arange(-fit.inside_mm, fit.outside_mm + 1e-9, fit.step_mm)
    ratio, profiles = across(offsets)
    out = q.copy()
    for i in range(4):
        move = _colour_end(offsets, profiles[i], ratio[i], floor, paper, fit)
        out[i] += normals[i] * move
        out[(i + 1) % 4] += normals[i] * move
    return _clockwise(out)


def _colour_end(offsets: npt.NDArray[np.float64], profile: npt.NDArray[Any], ratio: npt.NDArray[Any],
                floor: float, paper: float, fit: SideFit) -> float:
    """Where (mm, outwards) a side's colour-difference profile crosses half the paper's.

    On paper of another colour than the felt (over the :attr:`SideFit.paper_mm` inside the side),
    the side moves out to where the profile falls to half that; on the felt (as bright as it,
    and of its colour), in to where it first rises to half ``paper`` (the paper's colour inside
    another side). 0 when it never crosses within reach (a neighbour's paper beyond), and
    never inwards from paper of the felt's colour: a white border, a figure's panel inside it.
    """
    z = int(np.argmin(np.abs(offsets)))
    band = slice(max(0, z - round(fit.paper_mm / fit.step_mm)), z)
    inside = float(np.median(profile[band]))
    if inside >= floor:
        half = inside / 2
        below = np.nonzero(profile[z:] < half)[0]
        if not below.size or below[0] == 0:
            return 0.0
        j = z + int(below[0])
        if bool(np.any(profile[j:j + round(fit.felt_mm / fit.step_mm)] >= half)):
            return 0.0  # not the felt: a line printed on a neighbour's paper
    elif abs(float(np.median(ratio[band])) - 1.0) < fit.felt_ratio:
        half = paper / 2
        above = np.nonzero(profile[:z] >= half)[0]
        if not above.size:
            return 0.0
        j = int(above[-1]) + 1
    else:
        return 0.0
    p0, p1 = float(profile[j - 1]), float(profile[j])
    return float(offsets[j - 1] + (offsets[j] - offsets[j - 1]) * (p0 - half) / (p0 - p1 or 1e-9))


def _felt_outside(quads: npt.NDArray[np.float64], contrast: _ContrastMap,
                  fit: SideFit = SIDES) -> npt.NDArray[np.bool_]:
    """For each rectangle (n x 4 x 2), whether just outside every side lies what is of the
    felt's colour (the felt or a shadow on it) while the paper inside is of another; True when the paper is of
    the felt's colour too."""
    if not len(quads):
        return np.zeros(0, bool)
    q = _clockwise_each(quads)
    pts = _across_sides(q, fit.points, [-2.5, 1.5])
    _, dp = contrast.at(pts.reshape(-1, 2))
    side = _median(dp.reshape(len(q), 4, 2, fit.points))  # each quad x side x (inside, outside)
    paper = _median(side[:, :, 0]).astype(np.float64)
    floor = contrast.floor
    half = (np.maximum(floor, paper) / 2).astype(np.float32)  # compared as the felt's float32 measures are
    return np.asarray((paper < floor) | np.all(side[:, :, 1] < half[:, None], axis=1), bool)


def _paper_within(quads: npt.NDArray[np.float64], contrast: _ContrastMap,
                  look: RectangleLook = RECTANGLES) -> npt.NDArray[np.bool_]:
    """For each rectangle (n x 4 x 2), whether most of its middle is unlike the felt (paper, however pale), not
    felt around a smaller thing (a lighter, a phone's edge) whose edges and shadows happen to frame a card's size."""
    if not len(quads):
        return np.zeros(0, bool)
    q = _clockwise_each(quads)
    c = q.mean(axis=1)
    g = np.linspace(-0.4, 0.4, 9)
    gu, gv = np.meshgrid(g, g)
    grid = (c[:, None] + gu.reshape(-1, 1) * (q[:, None, 1] - q[:, None, 0])
            + gv.reshape(-1, 1) * (q[:, None, 3] - q[:, None, 0]))
    ratio, dp = contrast.at(grid.reshape(-1, 2))
    unlike = (np.abs(ratio - 1.0) > look.unlike_ratio) | (dp > contrast.floor)
    return np.asarray(np.mean(unlike.reshape(len(q), -1), axis=1) >= look.least_paper, bool)


def _median(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """``np.median(x, axis=-1)``, the same floats, without its overhead (thousands of small calls a frame)."""
    s = np.sort(x, axis=-1)
    m = s.shape[-1] // 2
    return np.asarray(s[..., m] if s.shape[-1] % 2 else (s[..., m - 1] + s[..., m]) / s.dtype.type(2), x.dtype)


def _colour_fitted(obj: CardObject, rectified: Image, felt: Felt, k: float,
                   card: tuple[float, float] | None = None, fit: SideFit = SIDES) -> CardObject:
    """A card with its sides where its colour meets the felt's (:func:`_sides_fitted`), if still card-shaped
    and, where its deck's size ``card`` is known, no larger than the deck by :attr:`SideFit.most_over_deck`."""
    fitted = CardObject(_sides_fitted(obj.quad, rectified, felt, k, fit), obj.zone)
    if card is not None and max(fitted.size[0] / card[0], fitted.size[1] / card[1]) > 1 + fit.most_over_deck:
        return obj
    return fitted if card_shaped(*fitted.size) else obj


def _felt_contrast(rectified: Image, felt: Felt, points: npt.NDArray[np.float64], k: float
                   ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """:meth:`vision.felt.Felt.contrast` (brightness ratio, colour difference) at points (mat mm), the nearest
    pixel's: computed for those pixels only."""
    v, u = _nearest_pixels(points, k, rectified.shape[:2])
    return _contrast(rectified[v, u], felt.colour_map[v, u])


def _nearest_pixels(points: npt.NDArray[np.float64], k: float, shape: tuple[int, ...]
                    ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Row and column of the pixel nearest each point (mat mm), kept inside the image."""
    h, w = shape[:2]
    u = np.clip(np.round(points[:, 0] * k - 0.5).astype(int), 0, w - 1)
    v = np.clip(np.round(points[:, 1] * k - 0.5).astype(int), 0, h - 1)
    return v, u


def _contrast(pixels: npt.NDArray[Any], felt_colour: npt.NDArray[Any]
              ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """:meth:`vision.felt.Felt.contrast`'s two measures of BGR pixels (n x 3) against the felt's colour there."""
    i = pixels.astype(np.float32) + np.float32(CONTRAST_OFFSET)
    f = np.asarray(felt_colour, np.float32) + np.float32(CONTRAST_OFFSET)
    ff = np.einsum("ij,ij->i", f, f)
    a = np.einsum("ij,ij->i", i, f) / (ff + np.float32(1.0))
    perp = i - f * a[:, None]
    dp = np.sqrt(np.einsum("ij,ij->i", perp, perp)) / (np.sqrt(ff) + np.float32(DISTANCE_OFFSET))
    return np.asarray(a, np.float32), np.asarray(dp, np.float32)


@dataclass(frozen=True)
class _ContrastMap:
    """:func:`_felt_contrast` of every pixel of a frame, taken once: the rectangle search samples it around
    thousands of rectangles a hard frame (one by one, that cost seconds)."""

    ratio: FloatImage
    dp: FloatImage
    k: float
    floor: float
    """Least colour difference from the felt of paper whose sides are judged by colour (:class:`SideFit`)."""
    least_step: float
    """Least fall of the colour difference across a side that tells where a card ends (:class:`StepFit`)."""

    @staticmethod
    def of(rectified: Image, felt: Felt, k: float, fit: SideFit = SIDES, step: StepFit = STEP_FIT) -> _ContrastMap:
        h, w = rectified.shape[:2]
        ratio, dp = _contrast(rectified.reshape(-1, 3), np.asarray(felt.colour_map).reshape(-1, 3))
        noise = felt.contrast_noise(rectified)[1]
        floor = max(fit.min_colour, fit.noise_times * noise)
        least = min(step.least_step, max(step.least_quiet_step, step.noise_times * noise))
        return _ContrastMap(ratio.reshape(h, w), dp.reshape(h, w), k, floor, least)

    def at(self, points: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """Both measures at points (mat mm), the nearest pixel's."""
        v, u = _nearest_pixels(points, self.k, self.dp.shape)
        return self.ratio[v, u], self.dp[v, u]


def _log_gradient(rectified: Image, blur_px: float = 1.0) -> tuple[FloatImage, FloatImage]:
    """The log brightness's gradient (log units a pixel), smoothed by ``blur_px``."""
    return _blurred_gradient(_log_grey(rectified), blur_px)


def _blurred_gradient(image: FloatImage, blur_px: float) -> tuple[FloatImage, FloatImage]:
    """A float image's gradient (its units a pixel), smoothed by ``blur_px``."""
    smooth = cv2.GaussianBlur(image, (0, 0), blur_px)
    return (np.asarray(cv2.Sobel(smooth, cv2.CV_32F, 1, 0), np.float32) / np.float32(8.0),
            np.asarray(cv2.Sobel(smooth, cv2.CV_32F, 0, 1), np.float32) / np.float32(8.0))


def _gradient(image: npt.NDArray[Any]) -> FloatImage:
    """Sobel's gradient magnitude, in the units Canny thresholds the same image in."""
    return np.asarray(cv2.magnitude(cv2.Sobel(image, cv2.CV_32F, 1, 0), cv2.Sobel(image, cv2.CV_32F, 0, 1)),
                      np.float32)


def _larger(obj: CardObject, card: tuple[float, float]) -> bool:
    """Whether a card found is larger than its frame's deck by more than :data:`OFF_SIZE` either side."""
    return max(obj.size[0] / card[0], obj.size[1] / card[1]) > 1 + OFF_SIZE


def _trimmed(quad: QuadMM, cnt: Contour, k: float, card: tuple[float, float]) -> QuadMM:
    """A single card's rectangle without what sticks out of its outline (a patch of lit felt, a mark).

    An opening by a disc of :data:`TRIM_MM` radius takes off whatever is narrower
    than it and leaves a rectangle's straight sides where they are: the opened
    outline's rectangle is kept when it is card-shaped and nearer the deck's size.
    """
    x, y, w, h = cv2.boundingRect(cnt)
    blob = np.zeros((h + 2, w + 2), np.uint8)
    cv2.drawContours(blob, [cnt - np.array([x - 1, y - 1])], -1, 255, -1)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * round(TRIM_MM * k) + 1,) * 2)
    opened = np.asarray(cv2.morphologyEx(blob, cv2.MORPH_OPEN, disc), np.uint8)
    cs, _ = cv2.findContours(opened, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not cs:
        return quad
    trimmed, fill = _rect_quad(max(cs, key=cv2.contourArea) + np.array([x - 1, y - 1]), k)
    size, before = CardObject(trimmed, None).size, CardObject(quad, None).size

    def off(sz: tuple[float, float]) -> float:
        return abs(sz[0] / card[0] - 1) + abs(sz[1] / card[1] - 1)

    return trimmed if fill > MIN_FILL and card_shaped(*size) and off(size) < off(before) else quad


def _off_size(obj: CardObject, card: tuple[float, float]) -> bool:
    """Whether a card found is off its frame's deck's size by more than :data:`OFF_SIZE` either side."""
    return max(abs(obj.size[0] / card[0] - 1), abs(obj.size[1] / card[1] - 1)) > OFF_SIZE


def _refitted(obj: CardObject, card: tuple[float, float], rectified: Image, k: float) -> CardObject:
    """A card found at another size than its deck's, as the deck's rectangle on the card's edges.

    What was lost or taken in is at one end or the other: the deck's rectangle
    is started at the found centre and at each end the found rectangle reaches
    (its side, kept, with the deck's length from it) and fitted to the edges
    from there (:func:`_fit_edges`), the best fit kept.
    """
    q = _clockwise(obj.quad)
    a, b = q[1] - q[0], q[2] - q[1]
    la, lb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    u, v = a / max(la, 1e-9), b / max(lb, 1e-9)
    da, db = (la - card[0], lb - card[1]) if la <= lb else (la - card[1], lb - card[0])
    starts = [tuple(i * da / 2 * u + j * db / 2 * v) for i in (-1, 0, 1) for j in (-1, 0, 1)
              if (i == 0 or abs(da) > 1.0) and (j == 0 or abs(db) > 1.0)]
    quad, weakest = _fitted_on_edges(_resized(obj.quad, card), rectified, k, starts=starts)
    if weakest < REFIT_EDGE and min(obj.size[0] / card[0], obj.size[1] / card[1]) >= SHRUNK:
        return obj  # no clear edge all round (paper as pale as the felt, a dark rim): as found
    return CardObject(quad, None)


def _fit_edges(quad: QuadMM, rectified: Image, k: float, reach_mm: float = 5.0,
               turn_deg: float = 4.0, starts: list[tuple[float, float]] | None = None) -> QuadMM:
    """The rectangle moved and turned (not resized) onto the card's edges at full resolution
    (:func:`_fitted_on_edges`)."""
    return _fitted_on_edges(quad, rectified, k, reach_mm, turn_deg, starts)[0]


def _fitted_on_edges(quad: QuadMM, rectified: Image, k: float, reach_mm: float = 5.0, turn_deg: float = 4.0,
                     starts: list[tuple[float, float]] | None = None) -> tuple[QuadMM, float]:
    """The rectangle moved and turned (not resized) onto the card's edges, and its weakest side's score.

    An outline found at 2 mm a pixel may be off by a few mm, enough to cut an
    index off the crop. The best rectangle is the one along whose sides the
    brightness rises most steeply inwards (paper lighter than felt), searched
    within ``reach_mm`` and ``turn_deg``, coarse then fine. A side scores the
    median of its points, so that a strong edge of the art beside part of a
    side does not pull the rectangle onto it. ``starts`` (mm, default the
    quad where it is) are where the coarse search is centred. The weakest
    side's score (log-brightness a pixel) says how sure the fit is: on a
    card's edge every side rises inwards.
    """
    q = _clockwise(quad)
    c0 = q.mean(axis=0)
    starts = starts or [(0.0, 0.0)]
    pad = reach_mm + 3.0 + max(math.hypot(*st) for st in starts)
    x0, y0 = np.floor((q.min(axis=0) - pad) * k).astype(int)
    x1, y1 = np.ceil((q.max(axis=0) + pad) * k).astype(int)
    H, W = rectified.shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return quad, 0.0
    log = cv2.GaussianBlur(_log_grey(np.ascontiguousarray(rectified[y0:y1, x0:x1])), (0, 0), 1.0)
    gx = cv2.Sobel(log, cv2.CV_32F, 1, 0) / 8.0
    gy = cv2.Sobel(log, cv2.CV_32F, 0, 1) / 8.0
    # points along each side (mm, from the centre) and their inward normals, corners left out
    rel = q - c0
    per_side = 16
    pts, normals = [], []
    for i in range(4):
        a, b = rel[i], rel[(i + 1) % 4]
        t = np.linspace(0.1, 0.9, per_side)[:, None]
        pts.append(a + (b - a) * t)
        mid = (a + b) / 2
        normals.append(np.repeat((-mid / max(float(np.linalg.norm(mid)), 1e-9))[None], per_side, axis=0))
    p, n = np.concatenate(pts), np.concatenate(normals)

    def rotation(deg: float) -> npt.NDArray[np.float64]:
        r = np.deg2rad(deg)
        return np.array([[np.cos(r), -np.sin(r)], [np.sin(r), np.cos(r)]])

    def sides(shifts: npt.NDArray[np.float64], deg: float) -> npt.NDArray[np.float64]:
        """Each side's score (shifts x 4) of the rectangle turned by ``deg`` at each shift (mm)."""
        rot = rotation(deg)
        pp = (p @ rot.T + c0)[None] + shifts[:, None]  # (shifts, points, 2)
        nn = n @ rot.T
        u = np.clip(np.round(pp[..., 0] * k - 0.5 - x0).astype(int), 0, x1 - x0 - 1)
        v = np.clip(np.round(pp[..., 1] * k - 0.5 - y0).astype(int), 0, y1 - y0 - 1)
        inward = gx[v, u] * nn[:, 0] + gy[v, u] * nn[:, 1]
        return np.asarray(np.median(inward.reshape(len(shifts), 4, per_side), axis=2), np.float64)

    def best_of(shifts: npt.NDArray[np.float64], deg: float) -> tuple[float, int]:
        """The best score of the rectangle turned by ``deg`` at each shift (mm), and its index."""
        scores = sides(shifts, deg).sum(axis=1)
        i = int(np.argmax(scores))
        return float(scores[i]), i

    best = (-np.inf, 0.0, 0.0, 0.0)
    for step, span, dstep, dspan in ((1.0, reach_mm, 2.0, turn_deg), (0.5, 1.0, 0.5, 1.5)):
        _, cx, cy, cd = best
        offsets = np.arange(-span, span + 1e-9, step)
        centres = starts if best[0] == -np.inf else [(cx, cy)]
        shifts = np.array([(sx + dx, sy + dy) for sx, sy in centres for dx in offsets for dy in offsets])
        for deg in cd + np.arange(-dspan, dspan + 1e-9, dstep):
            score, i = best_of(shifts, float(deg))
            if score > best[0]:
                best = (score, float(shifts[i, 0]), float(shifts[i, 1]), float(deg))
    _, dx, dy, deg = best
    weakest = float(sides(np.array([(dx, dy)]), deg).min())
    return _clockwise(rel @ rotation(deg).T + c0 + (dx, dy)), weakest


def _card_outlines(edges: Image, k: float, card: tuple[float, float]) -> tuple[list[Contour], bool]:
    """The closed outlines of an edge image that may be single cards (px of ``edges``).

    Also whether some outline was at least a card's size and yet no card (too
    large, or too ragged: joined to something, a printed line perhaps).
    """
    one = CARD_MM[0] * CARD_MM[1] * k * k
    out = []
    ragged = False
    for cnt in cv2.findContours(edges, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0]:
        area = float(cv2.contourArea(cnt))
        if area < 0.6 * one:
            continue
        if area <= 1.6 * one and _rect_quad(cnt, k)[1] >= MIN_FILL:
            out.append(cnt)
            continue
        parts = []
        if 1.6 * one < area <= 5.0 * one:  # cards a few mm apart, their edges joined: cut at the necks
            parts = [np.round(p.quad * k).astype(np.int32).reshape(-1, 1, 2)
                     for p in _split(cnt, k, card) if p.why is None]
        if not parts:
            ragged = True
            if area <= 5.0 * one:  # a card's outline joined to a printed zone line it lies across
                parts = _lines_opened(cnt, k)
        out += parts
    return out, ragged


OPEN_LINES_MM = 8.0
"""An outline filled and opened by a disc this wide loses what is joined to it by a thin line (a printed zone line,
a few mm wide once its edges are grown) and keeps a card's body (57-70 mm wide)."""
OPEN_SPUR_MM = 20.0
"""An outline refused whole is opened by a disc this wide: a short edge joined to it (where a neighbour's edge comes
within a few mm, a knob some 12 mm across at the outline's resolution) goes, a card's body stays."""


def _lines_opened(cnt: Contour, k: float, mm: float = OPEN_LINES_MM) -> list[Contour]:
    """The single cards' outlines left of an outline, filled, once thin lines joined to it are opened off.

    A card lying across a printed zone line (touching it, or turned over it) has its outline joined to the
    line's, into one that is no card's shape; cutting the lines out cuts the card's own edge where it crosses
    them, and its outline no longer closes. Filled, the card's outline is a solid body and the line a thin
    strip: an opening (by a disc ``mm`` wide) takes the strip off and leaves the card.
    """
    x, y, w, h = cv2.boundingRect(cnt)
    pad = 2
    filled = np.zeros((h + 2 * pad, w + 2 * pad), np.uint8)
    cv2.drawContours(filled, [cnt - np.array([x - pad, y - pad])], -1, 255, -1)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * round(mm * k / 2) + 1,) * 2)
    opened = np.asarray(cv2.morphologyEx(filled, cv2.MORPH_OPEN, disc), np.uint8)
    one = CARD_MM[0] * CARD_MM[1] * k * k
    out = []
    for part in cv2.findContours(opened, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0]:
        if 0.6 * one <= float(cv2.contourArea(part)) <= 1.6 * one and _rect_quad(part, k)[1] >= MIN_FILL:
            out.append(part + np.array([x - pad, y - pad]))
    return out


def _resized(quad: QuadMM, size: tuple[float, float]) -> QuadMM:
    """A rectangle with the same centre and turn and the given (short, long) size in mm."""
    q = _clockwise(quad)
    c = q.mean(axis=0)
    a, b = np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[1])
    u, v = (q[1] - q[0]) / max(a, 1e-9), (q[2] - q[1]) / max(b, 1e-9)
    su, sv = (size[0], size[1]) if a <= b else (size[1], size[0])
    corners = [c + (-su * u - sv * v) / 2, c + (su * u - sv * v) / 2, c + (su * u + sv * v) / 2,
               c + (-su * u + sv * v) / 2]
    return _clockwise(np.asarray(corners, np.float64))


def _log_grey(image: Image) -> FloatImage:
    """log of the channels' mean: cream paper and beige felt differ in blue more than in red."""
    grey = cv2.transform(image, np.full((1, 3), 1.0 / 3.0, np.float32))
    return log_image(np.asarray(grey, np.uint8))


def _outline_rect(cnt: Contour, k: float, grown_mm: float) -> tuple[CardObject, float]:
    """An outline's rectangle (px, grown by ``grown_mm`` all round) taken in by what it was grown, and how much of
    the rectangle the outline fills."""
    quad, fill = _rect_quad(cnt, k)
    short, long = CardObject(quad, None).size
    return CardObject(_resized(quad, (max(0.0, short - 2 * grown_mm), max(0.0, long - 2 * grown_mm))), None), fill


def _outline_quad(cnt: Contour, rectified: Image, k: float, grown_mm: float) -> CardObject | None:
    """The card inside an outline (px of ``rectified``, grown by ``grown_mm`` all round), if it is one.

    The edge lies where the brightness changes fastest, which for a blurred
    step is halfway between paper and felt: the outline's rectangle, taken in
    by what the edges were grown, is the card. Its paper must be lighter than
    the felt just outside it.
    """
    obj, fill = _outline_rect(cnt, k, grown_mm)
    if fill < MIN_FILL or not card_shaped(*obj.size):
        return None
    quad = obj.quad
    x, y, w, h = cv2.boundingRect(cnt)
    pad = round(6 * k)
    H, W = rectified.shape[:2]
    x0, y0, x1, y1 = max(0, x - pad), max(0, y - pad), min(W, x + w + pad), min(H, y + h + pad)
    region = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(region, [np.round(quad * k - 0.5 - np.array([x0, y0])).astype(np.int32)], 255)
    patch = _log_grey(np.ascontiguousarray(rectified[y0:y1, x0:x1]))

    def disc(mm: float) -> Image:
        return np.asarray(cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * round(mm * k) + 1,) * 2), np.uint8)

    inner = cv2.erode(region, disc(4.0)) > 0
    ring = (cv2.dilate(region, disc(5.0)) > 0) & ~(cv2.dilate(region, disc(2.0)) > 0)
    if not inner.any() or not ring.any():
        return None
    if float(median(patch[inner])) - float(median(patch[ring])) < OUTLINE_CONTRAST:
        return None
    return obj


def _part_blob(part: CardObject, mask: Image, k: float) -> Contour | None:
    """The outline of the largest piece of the mask within a part's quad (a part of a split blob), if any."""
    x0, y0, x1, y1 = part.box
    h, w = mask.shape[:2]
    px0, py0 = max(0, math.floor(x0 * k) - 1), max(0, math.floor(y0 * k) - 1)
    px1, py1 = min(w, math.ceil(x1 * k) + 1), min(h, math.ceil(y1 * k) + 1)
    if px1 <= px0 or py1 <= py0:
        return None
    region = np.zeros((py1 - py0, px1 - px0), np.uint8)
    cv2.fillPoly(region, [np.round(part.quad * k - 0.5 - np.array([px0, py0])).astype(np.int32)], 255)
    cs, _ = cv2.findContours(mask[py0:py1, px0:px1] & region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return max(cs, key=cv2.contourArea) + np.array([px0, py0]) if cs else None


LOOSE_RESCUE_FILL = 0.85
"""A piece cut from a light blob that fills less of its rectangle than a card's hull (a glare's bump on one side)
but this much is a card only where the deck's rectangle fitted on it runs along clear edges all round."""
REST_AREA = 0.5
"""What cards found leave of a light blob is reported when a piece of it covers this share of a card."""


def _rest(blob: Contour, cards: list[CardObject], k: float) -> list[CardObject]:
    """The pieces of a light blob (its outline, px) that no card found covers, each of :data:`REST_AREA` of a
    card or more, as things not card-shaped: a glare that joined two cards, one freed and one washed out,
    still holds the second."""
    x, y, w, h = cv2.boundingRect(blob)
    rest = np.zeros((h, w), np.uint8)
    cv2.drawContours(rest, [blob - np.array([x, y])], -1, 255, -1)
    off = np.array([x, y], np.float64)
    for c in cards:
        cv2.fillPoly(rest, [np.round(c.quad * k - 0.5 - off).astype(np.int32)], 0)
    # slivers along the cards' edges (a quad a pixel off its paper) are no piece
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * round(3.0 * k) + 1,) * 2)
    rest = np.asarray(cv2.morphologyEx(rest, cv2.MORPH_OPEN, disc), np.uint8)
    least = REST_AREA * CARD_MM[0] * CARD_MM[1] * k * k
    return [CardObject(_rect_quad(p + np.array([x, y]), k)[0], None, "not card-shaped")
            for p in cv2.findContours(rest, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0]
            if cv2.contourArea(p) >= least]


def _rescue(cnt: Contour, light: FloatImage, k: float, depth: int = 0,
            edges: tuple[Image, tuple[float, float]] | None = None) -> list[CardObject]:
    """A card inside a light blob that is not card-shaped (a glare around it): cut higher.

    The card's paper is the lightest part of such a blob; cut at rising levels
    of the blob's own lightness until a card-shaped piece stands alone. A card
    is convex, so each piece is taken as its hull (its figures and all). Where
    no cut frees one whole, a piece that is a card with a glare's bump on one
    side (:data:`LOOSE_RESCUE_FILL`) is the card when ``edges`` (the rectified
    view and the deck's size) show the deck's rectangle on it with a clear edge
    all round (:data:`REFIT_EDGE`).
    """
    area = float(cv2.contourArea(cnt)) / (k * k)
    one = CARD_MM[0] * CARD_MM[1]
    if not 0.7 * one <= area <= 8 * one:
        return []
    x, y, w, h = cv2.boundingRect(cnt)
    blob = np.zeros((h, w), np.uint8)
    cv2.drawContours(blob, [cnt - np.array([x, y])], -1, 255, -1)
    patch = light[y:y + h, x:x + w]
    values = patch[blob > 0]
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    edge = cv2.distanceTransform(cv2.copyMakeBorder(blob, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0),
                                 cv2.DIST_L2, 3)[1:-1, 1:-1]
    cuts = []
    # first: something stuck to the card broken off, a crumb, then a stone (up to 30 mm across,
    # which a disc of 16 mm radius cannot enter while a card's 57-70 mm width still can)
    for mm in (3.0, 6.0, 10.0, 16.0):
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * round(mm * k) + 1,) * 2)
        cuts.append(np.asarray(cv2.morphologyEx(blob, cv2.MORPH_OPEN, disc), np.uint8))
    for q in (40, 55, 70, 80):  # then: the lightest part of a glare
        cut = ((patch > np.percentile(values, q)) & (blob > 0)).astype(np.uint8) * 255
        cuts.append(np.asarray(cv2.morphologyEx(cut, cv2.MORPH_OPEN, kernel), np.uint8))
    # last: a glare wider than a card, taken off by what a square wider than a card leaves of the light
    hat = _top_hat(light, (x, y, w, h), k)
    top = hat[blob > 0]
    if top.size:
        cut = ((hat > 0.5 * float(percentile(top, 90))) & (blob > 0)).astype(np.uint8) * 255
        cuts.append(np.asarray(cv2.morphologyEx(cut, cv2.MORPH_OPEN, kernel), np.uint8))
    loose: list[CardObject] = []
    for cut in cuts:
        cards = []
        pieces = [c for c in cv2.findContours(cut, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0]
                  if cv2.contourArea(c) >= 0.01 * one * k * k]
        # a card's frame line parts its paper: first all of it together, then piece by piece
        candidates = ([pieces] if len(pieces) > 1 else []) + [
            [c] for c in pieces if cv2.contourArea(c) >= 0.3 * one * k * k]
        for group in candidates:
            _, fill = _rect_quad(cv2.convexHull(np.concatenate(group)) + np.array([x, y]), k)
            # where something was broken off, the outline the opening drew across the break is not an edge
            obj = CardObject(_quad_on_blob_edges(np.concatenate(group), edge, np.array([x, y]), k), None)
            if fill > 0.9 and card_shaped(*obj.size):
                cards.append(obj)
                if group is pieces:
                    break
            elif fill > LOOSE_RESCUE_FILL and card_shaped(*obj.size) and len(group) == 1:
                loose.append(obj)
        if cards:
            return cards + _rescue_rest(blob, cards, (x, y), light, k, depth)
    if edges is not None:  # a glare's bump on one side of the card: the deck's rectangle on clear edges all round
        rectified, card = edges
        for obj in loose:
            quad, weakest = _fitted_on_edges(_resized(obj.quad, card), rectified, k)
            if weakest >= REFIT_EDGE:
                return [CardObject(quad, None)]
    return []


def _rescue_rest(blob: Image, cards: list[CardObject], at: tuple[int, int], light: FloatImage,
                 k: float, depth: int) -> list[CardObject]:
    """What of a rescued blob is left beside its cards (a second card in the same glare), rescued again."""
    if depth >= 2:
        return []
    rest = blob.copy()
    off = np.array(at, np.float64)
    for c in cards:
        cv2.fillPoly(rest, [np.round(c.quad * k - 0.5 - off).astype(np.int32)], 0)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * round(3.0 * k) + 1,) * 2)
    rest = np.asarray(cv2.morphologyEx(rest, cv2.MORPH_OPEN, disc), np.uint8)
    more: list[CardObject] = []
    for piece in cv2.findContours(rest, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0]:
        # a rest that surrounds the cards (a glare all round) has them in its holes, which its
        # outline fills again: what is found there is those cards once more
        more.extend(m for m in _rescue(piece + np.array(at), light, k, depth + 1)
                    if not any(_covers(c, m) for c in cards + more))
    return more


def _top_hat(light: FloatImage, box: tuple[int, int, int, int], k: float) -> FloatImage:
    """The lightness over what an opening by a square wider than a card leaves (a glare, a lamp's light).

    A card cannot hold the square, so the opening takes it off entirely; a glare
    wider than the square stays in the opening, and so drops out of the difference.
    Computed at 1 px per mm over the box with a card's width around it.
    """
    x, y, w, h = box
    pad = round(CARD_MM[0] * k)
    H, W = light.shape[:2]
    x0, y0, x1, y1 = max(0, x - pad), max(0, y - pad), min(W, x + w + pad), min(H, y + h + pad)
    region = np.ascontiguousarray(light[y0:y1, x0:x1])
    f = 1.0 / k
    small = cv2.resize(region, (max(1, round((x1 - x0) * f)), max(1, round((y1 - y0) * f))),
                       interpolation=cv2.INTER_AREA)
    side = 2 * round(1.25 * CARD_MM[0] / 2) + 1
    opened = cv2.morphologyEx(small, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (side, side)))
    opened = cv2.resize(opened, (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
    hat = region - opened
    return np.asarray(hat[y - y0:y - y0 + h, x - x0:x - x0 + w], np.float32)


def _quad_on_blob_edges(part: Contour, inside: npt.NDArray[Any], offset: npt.NDArray[Any], k: float) -> QuadMM:
    """The quad of a part cut from a blob, fitted to the part's points on the blob's own outline.

    ``inside`` is the blob's distance transform. A cut (between two touching
    cards, or where a stone was broken off) is not a card's edge; when most of
    the part's outline is a cut, the whole outline is used.
    """
    pts = part.reshape(-1, 2)
    outer = pts[inside[pts[:, 1], pts[:, 0]] <= 2.0]
    fit = outer.reshape(-1, 1, 2) if len(outer) >= 0.5 * len(pts) else part
    return _rect_quad(fit + offset, k)[0]


def _split(cnt: Contour, k: float,
           card: tuple[float, float]) -> list[CardObject]:
    """A blob that is not one card: touching cards, or something else."""
    area_mm = float(cv2.contourArea(cnt)) / (k * k)
    one = card[0] * card[1]
    quad, fill = _rect_quad(cnt, k)
    whole = CardObject(quad, None)
    if area_mm < 1.5 * one:
        return [CardObject(quad, None, "not card-shaped")]
    x, y, w, h = cv2.boundingRect(cnt)
    pad = 2
    blob = np.zeros((h + 2 * pad, w + 2 * pad), np.uint8)
    cv2.drawContours(blob, [cnt - np.array([x - pad, y - pad])], -1, 255, -1)
    out: list[CardObject] = []
    inside = cv2.distanceTransform(blob, cv2.DIST_L2, 3)
    # 1: narrow necks (cards touching at a corner or along part of an edge)
    for frac in (0.6, 0.75, 0.85):
        parts = _watershed_split(blob, frac * card[0] / 2 * k)
        if len(parts) >= 2:
            for part in parts:
                # the part's own edges are the blob's; the cut between two cards is not an edge
                q = _quad_on_blob_edges(part, inside, np.array([x - pad, y - pad]), k)
                _, f = _rect_quad(part + np.array([x - pad, y - pad]), k)
                o = CardObject(q, None)
                if f > 0.8 and card_shaped(*o.size):
                    out.append(o)
                elif float(cv2.contourArea(part)) / (k * k) >= 1.5 * one:
                    out.extend(_split_aligned(o, f, card))
                else:
                    out.append(CardObject(q, None, "not card-shaped"))
            return out
    # 2: cards edge to edge, making one rectangle
    return _split_aligned(whole, fill, card)


def _split_aligned(obj: CardObject, fill: float, card: tuple[float, float]) -> list[CardObject]:
    n = _whole_cards(*obj.size, card) if fill > 0.85 else 0
    if n:
        return [CardObject(q, None) for q in _split_even(obj.quad, n)]
    return [CardObject(obj.quad, None, "not card-shaped")]


def quad_error_mm(found: npt.ArrayLike, truth: npt.ArrayLike) -> float:
    """Largest corner distance between two quads, matching corners in the best rotation."""
    a = _clockwise(np.asarray(found, np.float64).reshape(4, 2))
    b = _clockwise(np.asarray(truth, np.float64).reshape(4, 2))
    return min(float(np.linalg.norm(a - np.roll(b, s, axis=0), axis=1).max()) for s in range(4))


def card_area_share(obj: CardObject) -> float:
    """The object's area as a share of a nominal card's."""
    s, lg = obj.size
    return s * lg / (CARD_MM[0] * CARD_MM[1])


__all__ = ["CardObject", "card_shaped", "find_cards", "object_mask", "quad_error_mm",
           "card_area_share", "off_card", "shadow_fall", "OnCard", "ON_CARD"]
