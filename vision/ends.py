"""A card read by its ends: the rank from the printed index, the suit from the pintas.

Every Spanish deck says which card it is in the same two places, whatever
its art: the index in the top-left corner (and, turned, the bottom-right),
and the «pintas», breaks in the top and bottom line of the frame (none for
oros, one for copas, two for espadas, three for bastos). Two small models
read just those, so that a deck no model was trained on can still be read:
``models/index.onnx`` names the rank from a corner patch, ``models/pintas.onnx``
counts the breaks from an end strip. Each has two views, one per end of the
card, so the reader's two-views rule holds; a card is named only when both
models are sure in both views (:func:`call_ends`).

Both are cut from a face rectified from the frame itself (:func:`warp_face`,
about 2.6 px/mm), so a full-resolution still keeps its detail.
"""

from __future__ import annotations

import importlib.resources
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from table.cards import Card, Suit
from vision.cardcrop import order_quad

FACE_W = 160
FACE_H = 248
"""A rectified face, about 2.6 px per mm of a 61.5 x 95 mm card."""
PATCH = 42
"""A corner patch, ``PATCH x PATCH`` px of the face: about 16 x 16 mm."""
END_W = FACE_W
END_H = 36
"""An end strip: the face's top 36 rows (about 14 mm), its whole width."""
RANKS = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
"""The index model's classes, in order."""
SUITS_BY_BREAKS: tuple[Suit | None, ...] = (Suit.OROS, Suit.COPAS, Suit.ESPADAS, Suit.BASTOS, None)
"""The pinta model's classes, in order: 0, 1, 2, 3 breaks, and not a card's end (no frame line there)."""
MIN_PX_PER_MM = 2.0
"""The ends read a card only from a frame at least this fine at the card (a full-resolution still).

At the live camera's 1.2-1.8 px/mm a 3.5 mm index (the Fournier pattern's)
is 4-6 px tall: the index model still names most ranks, but not surely
enough never to be wrong."""
CARD_WIDTH_MM = 61.5
INDEX_MODEL_NAME = "index.onnx"
PINTA_MODEL_NAME = "pintas.onnx"
ENDS_THRESHOLD = 0.8
"""Least probability, in both views, for the rank and for the suit to count."""


def default_path(name: str) -> Path:
    """A model file inside the installed ``models`` package."""
    return Path(str(importlib.resources.files("models").joinpath(name)))


def ends_installed() -> bool:
    """Whether the ends reader's two models are installed beside the card model."""
    return default_path(INDEX_MODEL_NAME).is_file() and default_path(PINTA_MODEL_NAME).is_file()


def warp_face(image: npt.NDArray[np.uint8], quad: npt.ArrayLike, margin: int = 0) -> npt.NDArray[np.uint8]:
    """The card inside ``quad`` rectified to ``FACE_H x FACE_W`` BGR, cut from the frame itself.

    ``margin``: that many face px of the frame beyond the quad on every side too
    (``FACE_H + 2 margin`` x ``FACE_W + 2 margin``), the face at ``[margin:-margin, margin:-margin]``.
    """
    src = order_quad(quad)
    a, w, h = margin, FACE_W + margin - 1, FACE_H + margin - 1
    dst = np.array([[a, a], [w, a], [w, h], [a, h]], np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    return np.asarray(cv2.warpPerspective(image, m, (FACE_W + 2 * margin, FACE_H + 2 * margin),
                                          flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE), np.uint8)


def px_per_mm_of(crop: npt.NDArray[np.uint8]) -> float:
    """How fine the frame a crop was cut from is at the card: its short sides in px over a card's width.

    A crop that forgot its frame has only its own 72 px across (1.17 px/mm).
    """
    source = getattr(crop, "source", None)
    if source is None:
        return float(crop.shape[1]) / CARD_WIDTH_MM
    return quad_px_per_mm(source[1])


def quad_px_per_mm(quad: npt.NDArray[np.floating[Any]]) -> float:
    """How fine a frame is at a card whose quad (in the frame's pixels) is ``quad``: its short sides over a
    card's width."""
    q = order_quad(np.asarray(quad, np.float64))
    short = (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[3] - q[2])) / 2
    return float(short / CARD_WIDTH_MM)


def face_of(crop: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """A crop's face: from its frame where the crop remembers it (full detail), else the crop enlarged."""
    source = getattr(crop, "source", None)
    if source is not None:
        return warp_face(*source)
    return np.asarray(cv2.resize(np.asarray(crop), (FACE_W, FACE_H), interpolation=cv2.INTER_LINEAR), np.uint8)


def normalise(img: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """Grey, stretched so that its paper is light and its darkest ink black.

    The models see shape, not colour or light: the same number in brown on
    cream under warm light and in blue on white under a glare look alike.
    """
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) if img.ndim == 3 else img
    grey = np.asarray(grey, np.uint8)
    g = grey.astype(np.float32)
    lo, hi = _percentiles_u8(grey, (1.0, 80.0))
    if hi - lo < 8:
        hi = lo + 8
    return np.asarray(np.clip((g - lo) * (220.0 / (hi - lo)), 0, 255), np.uint8)


SECOND_LOOK = ((3, 0), (0, 3), (-3, 0), (0, -3))
"""Where a second look cuts the patch and the strip again, in face px (about 1.2 mm) from the first.

The finder's quad may be a millimetre off, and a model can be unsure of a
corner cut just so and sure of it cut a little aside. Asked only where the
first look was not sure, the second look's four cuts and the first are
combined (the geometric mean of the five, per view) and must still reach
the same threshold: more looks, the same bar.
"""


def _cut(face: npt.NDArray[np.uint8], shift: tuple[int, int], h: int, w: int) -> npt.NDArray[np.uint8]:
    """``face[dy:dy+h, dx:dx+w]`` for a shift ``(dx, dy)`` of up to 4 px, the face's edge repeated beyond it."""
    dx, dy = shift
    if shift == (0, 0):
        return np.ascontiguousarray(face[:h, :w])
    pad = cv2.copyMakeBorder(np.ascontiguousarray(face), 4, 4, 4, 4, cv2.BORDER_REPLICATE)
    return np.ascontiguousarray(pad[4 + dy:4 + dy + h, 4 + dx:4 + dx + w])


def _percentiles_u8(grey: npt.NDArray[np.uint8], qs: tuple[float, ...]) -> list[float]:
    """``np.percentile(grey.astype(np.float32), q)`` for each q, bit for bit, from the grey levels' histogram.

    A tenth of the time on a corner patch: the two order statistics are read
    off the cumulative histogram, then blended as numpy's linear method does
    (in float32, the weight a float64 cast down where it is used, the far end
    subtracted from when the weight is at least one half).

    >>> g = np.arange(100, dtype=np.uint8).reshape(10, 10)
    >>> _percentiles_u8(g, (1.0, 80.0)) == [float(np.percentile(g.astype(np.float32), q)) for q in (1.0, 80.0)]
    True
    """
    cum = np.cumsum(np.bincount(grey.ravel(), minlength=256))
    n = int(cum[-1])
    out = []
    for q in qs:
        pos = (n - 1) * (q / 100.0)
        k = int(np.floor(pos))
        t = pos - k
        a = np.float32(np.searchsorted(cum, k, side="right"))
        b = np.float32(np.searchsorted(cum, min(k + 1, n - 1), side="right"))
        d = b - a
        out.append(float(b - d * np.float32(1 - t) if t >= 0.5 else a + d * np.float32(t)))
    return out


def corner_patches(face: npt.NDArray[np.uint8], shift: tuple[int, int] = (0, 0)) -> npt.NDArray[np.uint8]:
    """The face's two index corners, ``(2, PATCH, PATCH)``: top-left, and bottom-right turned.

    ``shift`` (dx, dy) moves both cuts inwards-right and down as each corner
    is seen upright (a second look, :data:`SECOND_LOOK`).
    """
    turned = face[::-1, ::-1]
    return np.stack([normalise(_cut(f, shift, PATCH, PATCH)) for f in (face, turned)])


def end_strips(face: npt.NDArray[np.uint8], shift: tuple[int, int] = (0, 0),
               close: bool = False) -> npt.NDArray[np.uint8]:
    """The face's two ends, ``(2, END_H, END_W)``: the top, and the bottom turned (``shift`` as above).

    ``close``: each strip with its frame line's notch round the index closed (:func:`close_notch`).
    """
    turned = face[::-1, ::-1]
    strips = [normalise(_cut(f, shift, END_H, END_W)) for f in (face, turned)]
    return np.stack([close_notch(s) for s in strips] if close else strips)


@dataclass(frozen=True, slots=True)
class NotchRule:
    """How a frame line that steps in round the index is told from a pinta (:func:`close_notch`), in strip px."""

    reach: int = 3
    """A line is darker than the paper this far to both sides of it (a ridge; a line is 0.15-1 mm)."""
    contrast: float = 40.0
    """By this much, on the normalised strip's 0-220 scale."""
    least_share: float = 0.25
    """The frame line: a band of rows with horizontal ridge on at least this share of the strip's width."""
    descend: int = 8
    """A corner: a vertical ridge running down at least this far (about 3 mm) from the line's end."""
    least_notch: int = 12
    """A notch: the line turns down at least this far (about 4.5 mm) in from where the other corner,
    mirrored, says the frame's corner is (a face cut off-centre moves the two apart by a few px)."""
    index_ink: float = 0.03
    """... and it holds the index: at least this share of the stretch under the line (``descend``
    rows) is strokes, ridges either way (outside a frame's corner there is only paper)."""
    blurred_side: int = 2
    """A notch's corner whose outer side the index's ink blurs into (a frame under 2.5 px/mm, the face
    enlarged to its 2.6): the line's first column past the stretch, with one column this far to either
    side of it dark from the line all the way down ``descend`` rows, the paper beside it not needed
    (a digit under a break is not joined to the line, nor one column for so long)."""
    least_line: int = 4
    """... where the line starts past the stretch: its first run of at least this many columns of band
    (a digit's top touching the line's rows makes a shorter one)."""


NOTCH = NotchRule()


def close_notch(strip: npt.NDArray[np.uint8], rule: NotchRule = NOTCH) -> npt.NDArray[np.uint8]:
    """A normalised end strip with a notch in its frame line drawn closed: a step is not a pinta.

    Some decks (Fournier's current pattern) step the frame line in round
    the index: at that end the top line stops short, turns down, and runs
    out to the card's edge lower down. The pinta model takes that missing
    stretch for one more break. A pinta, though, is a break with line on
    both sides; a notch is where the line turns down (a corner) well in
    from where the frame's other corner, mirrored about the face's middle,
    says the frame ends, with no line at all between (paper where the
    line would run, not even a faint or broken line). That stretch is
    drawn in (and the corner's side line below it), so the model sees a
    frame with the index inside its corner, as it learnt. A strip whose
    line turns down at both frame corners, or where any line is left in the
    stretch, is returned as it is: a break next to a corner is never closed.

    From a coarse frame (a still near 2 px/mm, its face enlarged to 2.6)
    the index's ink blurs into the notch's side, so no corner there has
    paper outside it; the line's first column past the stretch is then
    taken for the corner where ink runs down below it all the same
    (``rule.blurred_side``). Left open, the notch read as one more pinta
    (a 12 de espadas as bastos, sure in both views, at 2.1 px/mm).
    """
    h, w = strip.shape
    r = rule.reach
    f = strip.astype(np.float32)
    p = cv2.copyMakeBorder(f, r, r, r, r, cv2.BORDER_REPLICATE)
    across = f + rule.contrast < np.minimum(p[0:h, r:r + w], p[2 * r:2 * r + h, r:r + w])  # a horizontal line
    outside_left = f + rule.contrast < p[r:r + h, 0:w]  # darker than the paper to its left
    outside_right = f + rule.contrast < p[r:r + h, 2 * r:2 * r + w]
    strokes = across | (outside_left & outside_right)
    rows = np.convolve(across.sum(axis=1), np.ones(5), mode="same")
    long = np.nonzero(rows >= rule.least_share * w)[0]
    if len(long) == 0:
        return strip
    r0 = int(long[0] + np.argmax(rows[long[0]:long[0] + 5]))  # the topmost long line: the frame's, not art's
    ys, xs = np.nonzero(across[max(0, r0 - 4):r0 + 5])
    ys_mean = _mean(ys)
    xm, ym = _mean(xs), ys_mean + max(0, r0 - 4)
    spread = float(((xs - xm) ** 2).sum())
    slope = float(((xs - xm) * (ys - ys_mean)).sum()) / spread if spread else 0.0  # the line may lean
    at0 = ym - slope * xm
    cols = np.arange(w)
    line = np.round(at0 + slope * cols).astype(int)
    if line.min() < 2 or line.max() + 2 + rule.descend > h:
        return strip
    band = np.zeros(w, bool)
    for d in (-1, 0, 1):
        band |= across[line + d, cols]
    joined = band.copy()
    for k in (1, 2):
        joined[k:] |= band[:-k]
        joined[:-k] |= band[k:]

    def turns(outside: npt.NDArray[np.bool_]) -> npt.NDArray[np.intp]:
        """Columns where the line turns down: a line running on below it, paper on its outer side
        (art may lie against its inner side, as a figure's panel does)."""
        side = outside.copy()
        side[:, 1:] |= outside[:, :-1]
        side[:, :-1] |= outside[:, 1:]
        below = side[line[None, :] + 2 + np.arange(rule.descend)[:, None], cols[None, :]]
        # numpy's mean over the rows, to the bit: the count in float64 over the number of rows
        share = np.add.reduce(below, axis=0, dtype=np.float64) / np.float64(rule.descend)
        return np.nonzero((share >= 0.85) & joined)[0]

    lefts, rights = turns(outside_left), turns(outside_right)
    if len(lefts) == 0 or len(rights) == 0 or lefts[0] >= rights[-1]:
        return strip
    left, right = int(lefts[0]), int(rights[-1])
    # as normalise makes it: 220 (np.percentile(f, 80), read off the histogram of the bytes)
    paper = _percentiles_u8(strip, (80.0,))[0] if strip.dtype == np.uint8 else float(np.percentile(f, 80))
    out = strip.copy()

    def draw(a: int, b: int, corner: int, span: tuple[int, int] = (left, right)) -> None:
        """The line from a to b and the corner's side below it, in the line's own ink (its darker fifth
        over ``span``, the frame's line between its two corners)."""
        lo, hi = span
        on = band[lo:hi + 1]
        ink = np.uint8(np.percentile(strip[line[lo:hi + 1], cols[lo:hi + 1]][on], 20) if on.any() else 0)
        for c in range(a, b + 1):
            out[line[c]:line[c] + 2, c] = np.minimum(out[line[c]:line[c] + 2, c], ink)
        out[line[corner]:, corner:corner + 2] = np.minimum(out[line[corner]:, corner:corner + 2], ink)

    def notch(a: int, b: int, on_line_band: npt.NDArray[np.bool_] = band) -> bool:  # no line from a to b, the index under it
        if b - a <= rule.least_notch or on_line_band[a + 3:b - 2].any():
            return False
        on_line = f[line[a + 4:b - 4] + np.arange(-2, 0)[:, None], cols[a + 4:b - 4]]  # the line's rows, clear of the corners
        if (on_line < paper - rule.contrast).any():  # a faint or broken line there: it may be a pinta's
            return False
        top = int(line[a:b + 1].max()) + 3
        return bool(strokes[top:top + rule.descend, a + 3:b - 2].mean() >= rule.index_ink)

    def blurred_corner(c: int) -> bool:  # a column of ink from the line at c straight down, whatever lies beside it
        near = np.clip(np.arange(c - rule.blurred_side, c + rule.blurred_side + 1), 0, w - 1)
        below = f[line[c] + 1 + np.arange(rule.descend + 1)[:, None], near[None, :]] < paper - rule.contrast
        return bool(below.all(axis=0).any())

    # the line itself, for a blurred corner: the band without runs too short to be line (a digit's top)
    span = np.ones(rule.least_line, np.int32)
    starts = np.convolve(band.astype(np.int32), span, "valid") == rule.least_line  # band[i:i + least_line] all on
    solid = np.convolve(starts.astype(np.int32), span, "full") > 0
    mirror_left, mirror_right = w - 1 - right, w - 1 - left
    if notch(mirror_left, left):
        draw(mirror_left, left, mirror_left)
    elif right > w // 2 and len(on := np.nonzero(solid[mirror_left + 3:])[0]):
        # no corner with paper outside it where the line starts: the index's ink may be blurred into it
        start = mirror_left + 3 + int(on[0])
        if start != left and notch(mirror_left, start, solid) and blurred_corner(start):
            draw(mirror_left, start, mirror_left, (mirror_left, right))
    if notch(right, mirror_right):
        draw(right, mirror_right, mirror_right - 1)
    elif left < w // 2 and len(on := np.nonzero(solid[:max(0, mirror_right - 2)])[0]):
        end = int(on[-1])
        if end != right and notch(end, mirror_right, solid) and blurred_corner(end):
            draw(end, mirror_right, mirror_right - 1, (left, mirror_right))
    return out


def _mean(values: npt.NDArray[np.intp]) -> np.float64:
    """``values.mean()`` of whole numbers, the very same value: numpy's float64 sum over the count,
    without its generic path's overhead (a strip's line is fitted a few hundred times a frame)."""
    return np.float64(np.add.reduce(values, dtype=np.float64) / values.size)


@dataclass(frozen=True, slots=True)
class CutGuard:
    """A one-digit rank is called only if a look beyond the quad names it too.

    A quad that misses the card's edge inwards by 1-2 mm can cut the leading
    "1" off an index printed close to the edge, in both views alike: "12"
    then reads "2" and "11" or "10" reads "1", surely. Only those calls can
    come of such a cut, so only they are checked: both corners are cut again
    from the frame itself, ``look_px`` face px (about 2.3 mm) further out on
    the side where a leading digit would be, and unless the index model
    names the same rank there (the rank most likely in both views together)
    the rank is left unsaid: unknown, never a wrong card.
    """

    ranks: tuple[int, ...] = (1, 2)
    """The calls a cut 10, 11 or 12 can make."""
    look_px: int = 6


CUT_GUARD = CutGuard()
Frame = tuple[npt.NDArray[np.uint8], npt.ArrayLike]
"""A frame and a card's quad in it, as a crop remembers them (``crop.source``)."""


def beyond_patches(frame: Frame, look_px: int) -> npt.NDArray[np.uint8]:
    """The two index corners cut ``look_px`` face px further out to the left, from the frame itself."""
    wide = warp_face(frame[0], frame[1], look_px)
    return np.stack([normalise(np.ascontiguousarray(c[look_px:look_px + PATCH, :PATCH]))
                     for c in (wide, wide[::-1, ::-1])])


@dataclass(frozen=True, slots=True)
class EndsReading:
    """What the two models make of one card's ends."""

    rank: int
    rank_probability: float
    suit: Suit | None
    """``None``: the pinta model sees no card's end there (blank paper, felt, a phone, a card's back)."""
    suit_probability: float
    agreed: bool
    """Whether each model's two views named the same rank or suit as both together."""

    @property
    def card(self) -> Card:
        return Card(self.rank, self.suit if self.suit is not None else Suit.OROS)

    @property
    def probability(self) -> float:
        return min(self.rank_probability, self.suit_probability)

    def sure(self, threshold: float = ENDS_THRESHOLD) -> bool:
        return self.suit is not None and self.agreed and self.probability >= threshold


def _joint(p: npt.NDArray[np.float64]) -> tuple[int, float, bool]:
    """The class most likely in both views ``[2, K]``, its lesser probability, and whether each view agrees."""
    k = int(np.argmax(p[0] * p[1]))
    return k, float(min(p[0, k], p[1, k])), int(np.argmax(p[0])) == int(np.argmax(p[1])) == k


def call_ends(ranks: npt.NDArray[np.float64], suits: npt.NDArray[np.float64]) -> list[EndsReading]:
    """Readings from rank probabilities ``[N, 2, 10]`` and pinta probabilities ``[N, 2, 5]`` (or 4).

    >>> r = np.zeros((1, 2, 10)); r[0, :, 3] = 0.99; s = np.zeros((1, 2, 4)); s[0, :, 2] = 0.98
    >>> e = call_ends(r, s)[0]
    >>> str(e.card), e.sure()
    ('4e', True)
    """
    out = []
    for rp, sp in zip(ranks, suits, strict=True):
        r, pr, ar = _joint(rp)
        s, ps, as_ = _joint(sp)
        out.append(EndsReading(RANKS[r], pr, SUITS_BY_BREAKS[s], ps, ar and as_))
    return out


class EndsModel:
    """The index and pinta models (onnxruntime) behind one call: faces in, readings out."""

    def __init__(self, index: str | Path | None = None, pintas: str | Path | None = None,
                 threads: int = 1) -> None:
        from vision.classifier import _session  # the one way this project opens a model

        self.index_path = Path(index) if index is not None else default_path(INDEX_MODEL_NAME)
        self.pinta_path = Path(pintas) if pintas is not None else default_path(PINTA_MODEL_NAME)
        self._index: Any = _session(self.index_path, threads, "index model")
        self._pintas: Any = _session(self.pinta_path, threads, "pinta model")

    def probabilities(self, faces: list[npt.NDArray[np.uint8]]
                      ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Rank ``[N, 2, 10]`` and pinta ``[N, 2, 5]`` probabilities of rectified faces, two calls in all.

        The pintas are read from strips with a notch round the index closed
        (:func:`close_notch`; a strip with none is read as cut).
        """
        n = len(faces)
        if n == 0:
            return np.zeros((0, 2, len(RANKS))), np.zeros((0, 2, 4))
        return self._ranks(faces, (0, 0)), self._suits(faces, (0, 0), close=True)

    def _ranks(self, faces: list[npt.NDArray[np.uint8]], shift: tuple[int, int]) -> npt.NDArray[np.float64]:
        from vision.classifier import softmax

        x = np.concatenate([corner_patches(f, shift) for f in faces])[:, None].astype(np.float32) / 255
        r = self._index.run(["logits"], {"corners": np.ascontiguousarray(x)})[0]
        return np.asarray(softmax(np.asarray(r, np.float32)), np.float64).reshape(len(faces), 2, -1)

    def _suits(self, faces: list[npt.NDArray[np.uint8]], shift: tuple[int, int],
               close: bool | Sequence[bool] = False) -> npt.NDArray[np.float64]:
        """Pinta probabilities of the faces' strips, with a notch closed (``close``, for all or per face)."""
        from vision.classifier import softmax

        shut = [close] * len(faces) if isinstance(close, bool) else list(close)
        x = np.concatenate([end_strips(f, shift, c) for f, c in zip(faces, shut, strict=True)])
        x = x[:, None].astype(np.float32) / 255
        s = self._pintas.run(["logits"], {"ends": np.ascontiguousarray(x)})[0]
        return np.asarray(softmax(np.asarray(s, np.float32)), np.float64).reshape(len(faces), 2, -1)

    def read(self, faces: list[npt.NDArray[np.uint8]], threshold: float = ENDS_THRESHOLD,
             frames: Sequence[Frame | None] | None = None, guard: CutGuard = CUT_GUARD) -> list[EndsReading]:
        """Readings of rectified faces; a rank or suit the first look is not sure of gets a second look.

        The second look (:data:`SECOND_LOOK`) cuts the patches (or strips)
        of the faces in doubt four times more, a little aside, and reads each
        by the geometric mean of its five looks per view: one model call more
        for each model. A face is in doubt when the first look fell short of
        ``threshold`` for its rank or suit but reached half of it for both
        (and agreed in both views): further off, five looks never got there
        on any deck measured, and a face that is no card's end costs nothing more.

        ``frames``: each face's frame and quad (``None`` where unknown); a
        sure rank the ``guard`` checks is looked at beyond the quad (:class:`CutGuard`).
        """
        ranks, suits = self.probabilities(faces)
        first = [(_least(ranks[i]), _least(suits[i])) for i in range(len(faces))]
        hopeful = [r >= threshold / 2 and s >= threshold / 2 for r, s in first]
        again_r = [i for i, (r, _) in enumerate(first) if hopeful[i] and r < threshold]
        again_s = [i for i, (_, s) in enumerate(first) if hopeful[i] and s < threshold]
        ranks = self._look_again(faces, ranks, again_r, self._ranks)
        # a notch closed at the first look is closed in the looks aside; no other strip is looked at for one
        shut = [any(not np.array_equal(close_notch(e), e) for e in end_strips(faces[i])) for i in again_s]
        suits = self._look_again(faces, suits, again_s, lambda some, shift: self._suits(some, shift, shut))
        readings = call_ends(ranks, suits)
        return readings if frames is None else self.guard_cuts(readings, frames, threshold, guard)

    def guard_cuts(self, readings: list[EndsReading], frames: Sequence[Frame | None],
                   threshold: float = ENDS_THRESHOLD, guard: CutGuard = CUT_GUARD) -> list[EndsReading]:
        """``readings`` with each sure rank of ``guard.ranks`` that a look beyond the quad does not name unsaid."""
        from vision.classifier import softmax

        check = [i for i, (r, f) in enumerate(zip(readings, frames, strict=True))
                 if f is not None and r.rank in guard.ranks and r.agreed and r.rank_probability >= threshold]
        if not check:
            return readings
        x = np.concatenate([beyond_patches(f, guard.look_px) for i in check if (f := frames[i]) is not None])
        r = self._index.run(["logits"], {"corners": np.ascontiguousarray(x[:, None].astype(np.float32) / 255)})[0]
        p = np.asarray(softmax(np.asarray(r, np.float32)), np.float64).reshape(len(check), 2, -1)
        out = list(readings)
        for i, pi in zip(check, p, strict=True):
            if RANKS[_joint(pi)[0]] != readings[i].rank:
                out[i] = replace(readings[i], rank_probability=0.0)
        return out

    @staticmethod
    def _look_again(faces: list[npt.NDArray[np.uint8]], p: npt.NDArray[np.float64], which: list[int],
                    look: Callable[[list[npt.NDArray[np.uint8]], tuple[int, int]], npt.NDArray[np.float64]]
                    ) -> npt.NDArray[np.float64]:
        """``p`` with the faces ``which`` read by the geometric mean of their first look (as in ``p``)
        and four more cut aside by ``look``."""
        if not which:
            return p
        some = [faces[i] for i in which]
        looks = np.stack([p[which], *(look(some, shift) for shift in SECOND_LOOK)])  # [5, n, 2, K]
        mean = np.exp(np.log(looks + 1e-9).mean(axis=0))
        out = p.copy()
        out[which] = mean / mean.sum(axis=-1, keepdims=True)
        return out


def _least(p: npt.NDArray[np.float64]) -> float:
    """One card's two views ``[2, K]``: the lesser probability of the class both name, 0 when they differ."""
    _, least, agreed = _joint(p)
    return least if agreed else 0.0
