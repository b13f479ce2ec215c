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
tests in a single frame, and the zones it covers are named
(:attr:`Rejected.covers`: stones may lie under it, the count there is what
shows); :class:`StoneSmoother` adds the median over a few frames for the
live table.

:func:`count_stones` runs in stages (:func:`_candidates`, :func:`_search`,
:func:`_learn_size`, :func:`_judge`, :func:`_paled_stones`, :func:`_by_zone`);
every number they are tuned by is a field of :class:`StoneParams`, whose one
instance :data:`STONES` they read. How those numbers were settled is told in
``docs/decisions-vision.md`` (the stone counter's stages and parameters).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import cv2
import numpy as np
import numpy.typing as npt

from vision.felt import LOG_OFFSET, Felt, by_bands, channel_max, log_image, median
from vision.mat import Mat, Zone

Image = npt.NDArray[np.uint8]
FloatImage = npt.NDArray[np.float32]
Mask = npt.NDArray[np.bool_]


@dataclass(frozen=True, slots=True)
class StoneParams:
    """The stone counter's fixed numbers, named.

    Lengths are in mat mm; ``*_r`` sizes are in the radius of one stone as
    learnt from the frame, ``*_area`` sizes in the area of one such stone
    (``pi r²``); colours are log ratios to the felt per channel.
    """

    # what a stone is
    stone_mm: tuple[float, float] = (15.0, 30.0)
    """Diameters of the tokens the spec allows."""
    size_band: tuple[float, float] = (0.4, 0.6)
    """A lone round blob is a stone when its radius lies within these shares of the least and largest diameters."""
    single_circularity: float = 0.78
    """Least circularity (4 pi area / perimeter²) of a single round stone."""
    single_solidity: float = 0.93
    """Least solidity (area / convex hull's) of a single round stone."""
    single_depth: float = 0.75
    """Least depth (distance-transform peak) of a single round stone, in its own equivalent radius."""
    whole_area: tuple[float, float] = (0.75, 1.3)
    """Area of one whole stone, least and most (stone areas)."""
    relearn_tol: float = 0.3
    """On the second look, a round blob within this share of the first size gives the size again."""

    # the pixels unlike the felt
    min_colour_t: float = 0.1
    """Least colour difference (:meth:`vision.felt.Felt.contrast`) of a stone of another colour."""
    min_light_t: float = 0.2
    """Least brightness gain over the felt of a stone of the felt's colour, lighter."""
    noise_sigmas: float = 6.0
    """The colour and brightness thresholds lie this many of the felt's noise spreads above it."""
    spread_blur: float = 1.2
    """A blur's residue is this much under the noise's spread (robust spread scaled up by it)."""
    darkest_shadow: float = 0.5
    """Shadows darken the felt to no less than this share of its light; darker is a stone."""
    dark_seed: float = 0.56
    """A pixel this dark (against the felt model, which follows shadows) seeds a dark stone."""
    dark_grow: float = 0.65
    """A dark stone is what is darker than this and joined to a seed (its rim straddles the limit)."""
    colour_tol: float = 0.5
    """How far (largest per-channel log ratio) a pixel's colour may be from the stones' to be one of them."""

    # where to look
    margin_mm: float = 18.0
    """How far beyond a zone's edge a stone centred in it may reach."""
    search_pad_mm: float = 40.0
    """Room searched around each region, so that a card or an arm reaching in is seen as one big blob."""
    marker_quiet_mm: float = 16.0
    """Room left out around each marker (its white quiet zone)."""

    # blobs
    open_share: float = 0.2
    """The opening that drops printed lines and specks: a disc this share of the least stone's diameter."""
    speck_area: float = 0.02
    """Holes under this share of the least stone's area are specks, and filled."""
    round_hole_area: float = 0.2
    """Round holes under this many stone areas (a printed centre, a highlight) are filled."""
    round_hole_circularity: float = 0.6
    """Least circularity of such a round hole."""
    min_blob_area: float = 0.35
    """Blobs under this share of the least stone's area (of one stone's, for parts) are left out."""
    blob_pad: int = 4
    """Pixels of the blob's surroundings kept around each blob's crop."""
    max_depth_r: float = 2.1
    """A blob of stones is nowhere thicker than this many stone radii (seven in a flower: 1.75 to 2)."""

    # outlines (every stone touching another)
    arc_stretch_mm: float = 9.0
    """Half the stretch of outline a circle is fitted to (about 18 mm of outline)."""
    arc_residual: float = 0.5
    """Most rms distance (px) of a stretch from its fitted circle."""

    # peeling
    peel_stop_r: float = 0.55
    """The peel stops when the deepest point left is shallower than this (stone radii)."""
    peel_plateau: float = 0.75
    """A disc is centred on the distance transform within this many px of its peak."""
    peel_clear_r: float = 1.08
    """Each disc placed clears this many stone radii around its centre."""
    peel_max: int = 80
    """Most stones peeled from one blob."""

    # the glare
    glare_step_mm: float = 3.0
    """Resolution of the glare fields (a glare is broad)."""
    glare_smooth_mm: float = 6.0
    """Smoothing of the glare fields: wider than a gap between stones, narrower than a glare."""
    glare_min_mm: float = 35.0
    """Least radius of a glare: smaller bright spots are things lying there (a white stone)."""
    glare_depth: float = 0.5
    """A glare is as deep as this share of its least radius (a chain of white stones, as long, is thinner)."""
    glare_min: float = 25.0
    """White (grey levels) a glare adds before it is taken off."""
    glare_pull: float = 0.05
    """Pull of the fitted white towards 0 (on grey felt a glare is light)."""
    glare_noise: float = 40.0
    """Grey levels added to the felt's norm when judging a pixel felt seen through a glare."""
    glare_felt_res: float = 1.5
    """A pixel is felt under a glare when its residue is under this many colour thresholds."""
    glare_alpha: tuple[float, float] = (0.06, 1.3)
    """Felt under a glare keeps between these shares of the felt's colour (of its norm, of the model's)."""
    glare_white_min: float = -0.1
    """Least white (share of the felt model's norm) of felt under a glare."""
    glare_fade: tuple[float, float, float] = (0.6, 95.0, 0.75)
    """A glare fades out: not more than the third share of it is over the first share of its percentile."""
    glare_outlier: tuple[float, float, float, float] = (1.2, 5.0, 1.2, 10.0)
    """Felt far brighter or whiter than the smoothed field (scale and offset each) is left out of the refit."""
    glare_dark_outlier: float = 0.7
    """... and felt that keeps less than this share of the smoothed field's colour (a dark stone's edge blended
    with the felt)."""
    glare_ramp: float = 0.5
    """The glare is taken off in full from this many glare minimums on past one more."""
    glare_amp_floor: float = 20.0
    """Grey levels added to both norms when measuring how much louder the noise is under a glare."""
    glare_on: float = 1.05
    """Where the noise is this much louder a glare was taken off."""
    haze_min_px: int = 100
    """Least felt pixels under a glare to measure its haze on."""
    haze_smooth: float = 2.0
    """The haze left of a glare is smoothed this many glare smoothings."""
    haze_blur_px: float = 2.0
    """The noise under a glare is what a blur of this many px takes away."""
    under_glare: float = 0.2
    """A blob whose share over this lies where a glare was taken off is under the glare."""

    # the second look, once the stones' colour is known
    extra_near: float = 0.8
    """A pixel is of the stones' colour within this share of the tolerance, and of its own contrast."""
    worth_area: float = 0.1
    """What is worth a second look: this many stone areas."""
    extra_share: float = 0.02
    """... beyond this share of the stone pixels found."""
    shadow_worth: float = 3.0
    """A deep shadow matters where it makes this many worths of a blob found."""

    # judging a blob
    peel_area: float = 3.5
    """Blobs over this many stone areas are peeled to see whether discs account for them."""
    ragged: tuple[float, float, float, float] = (5.5, 0.66, 0.8, 0.65)
    """Not stones: over the first areas and covered under the second, or covered under the third and
    under the fourth share of its hull."""
    cluster_outline: tuple[float, float] = (0.5, 1.3)
    """... unless this share of its outline is arcs of a stone's radius and it is nowhere deeper than this (radii):
    a cluster of touching stones the greedy peel covered badly (a hand's outline is straight)."""
    refuse_cover_area: float = 2.0
    """A refused blob over this many stone areas (a hand, a card) hides what lies in it."""
    cover_least: float = 1.0
    """... and covers a zone where this many stone areas of it lie inside the zone"""
    cover_thick_r: float = 0.5
    """... of its parts at least this thick (radii: a disc this size fits in them; a finger hides a stone's middle)."""
    pale_thick: tuple[float, float, float] = (1.2, 0.7, 0.9)
    """Stones a glare paled: over the first areas and between the other depths (radii) are counted by depth."""
    between_counts: float = 0.3
    """A count this far from whole is settled by the discs that fit (in plain light, only if they cover the blob)."""
    between_cover: float = 0.9
    """In plain light the discs settle a count only when they cover this share of the blob (the peel went right)."""
    touching_solidity: tuple[float, float] = (0.985, 0.94)
    """Most solidity of touching stones (they leave notches), whole blobs and parts."""
    notch_r: float = 0.15
    """A whole blob more solid than that is still touching stones with two notches this deep (radii)."""
    part_limits: tuple[int, float, float] = (5, 0.7, 1.3)
    """A part is not stones over this count, under this solidity or deeper than this (radii)."""
    part_cover: float = 0.7
    """Touching stones of a part are covered by their discs by at least this share."""
    fingertip: tuple[float, float] = (0.8, 0.25)
    """A part shallower than this (radii) and further than this from the stones' colour is a fingertip."""
    tip_arcs: float = 0.3
    """... unless it is the stones' colour shaded and this share of its outline is arcs of a stone's radius
    (and touching stones under a glare have as much)."""
    tip_arc_tol: float = 0.2
    """An arc of a stone's radius: within this share of it."""
    own_arcs: float = 0.3
    """Touching stones in plain light are counted by their own radius when this share of their outline is arcs."""
    thin: tuple[float, float] = (2.5, 1.3)
    """A part whose area is over the larger of these (depth discs, counted areas) is a finger."""
    edge_ring_px: tuple[int, int] = (3, 7)
    """The ring just outside a blob an edge is judged on: between dilations of these widths (px)."""
    soft_edge: float = 0.5
    """A blob that keeps more than this share of its contrast just outside its edge is the felt's own blotch."""
    glared_colour: tuple[float, float] = (0.6, 0.25)
    """A stone-shaped blob under a glare: least cosine to the stones' colour, and share of its strength."""
    shaded: tuple[float, float, float] = (-1.0, -0.15, 0.35)
    """A whole round stone cut from a hand's blob in its shadow: its colour the stones' shifted alike in every
    channel by between the first two (log), within the third."""
    paled_plain: tuple[float, float] = (0.8, 0.25)
    """One whole round stone by itself, where no glare was taken off: least cosine to the stones' colour, and
    share of its strength (a glare too faint to be taken off pales it too)."""
    same_colour: tuple[float, float, float, float] = (0.45, 0.9, 0.5, 2.0)
    """Alike colours: within the first per channel, or with the cosine and strength ratio the others allow."""
    touching_shape: tuple[float, float, float, float, float, float] = (1.5, 4.5, 0.85, 1.3, 0.72, 0.95)
    """A few touching stones: areas, depths (radii) and solidity, each least and most."""

    # blobs refused, cut into parts
    colour_open_r: float = 0.25
    """Opening (radii) of a blob's part of the stones' colour."""
    all_colour: float = 0.97
    """A blob this much of the stones' colour cannot be split by it."""
    rim_r: float = 0.15
    """A stone's darker rim, given back to a cut (radii)."""
    disc_min_area: float = 2.0
    """Only blobs over this many stone areas have stones at their edge cut out."""
    disc_erode_r: tuple[float, ...] = (0.7, 0.85)
    """Touching stones fall apart eroded by this (radii); a palm stays one. The second, deeper, frees a
    stone whose neck to the hand its soft shadow widened."""
    disc_thread_r: float = 0.2
    """Threads tying a stone to a hand are thinner than this (radii)."""
    disc_core_r: float = 0.45
    """A core larger than a disc of this radius (radii) is not one stone."""
    disc_free: float = 0.1
    """A stone cut out by the deeper erosion has felt around this share of its edge at least."""
    disc_own: float = 0.15
    """... and this share of its pixels of the stones' own colour."""

    # stones a glare paled
    pale_min: float = 0.12
    """Least contrast along the stones' hue (log ratio) of a stone paled by a glare, disc against ring (only
    where to look: the cut at half of it decides)."""
    pale_cos: float = 0.7
    """A paled stone keeps the stones' hue: cosine of its colour (log ratios to the felt) to theirs."""
    pale_disc_r: float = 0.8
    """The disc of the disc-against-ring response (radii)."""
    pale_ring_r: tuple[float, float] = (1.25, 1.8)
    """The ring around it (radii)."""
    pale_pad_r: float = 2.0
    """Room around a glare searched for paled stones (radii)."""
    pale_window_r: float = 3.5
    """Half the window a paled stone is cut in (radii)."""
    pale_cut: float = 0.5
    """A paled stone is cut at this share of its contrast."""
    pale_single: tuple[float, float, float, float] = (0.7, 1.35, 0.75, 0.9)
    """A single paled stone: area (stone areas) least and most, least circularity, least solidity."""
    pale_shrink: float = 0.85
    """Cut at half their contrast, paled stones keep this share of their area."""
    pale_raw_shrink: float = 1.0
    """... and stones as seen, glare and all (their contrast not washed out), about all of it."""
    pale_few: tuple[int, int, float, float, float, float, float] = (2, 4, 0.3, 0.72, 0.95, 0.7, 1.2)
    """A few touching paled stones: count least and most, off whole, solidity and depth (radii) least and most."""
    pale_peel_r: float = 0.92
    """Paled stones are peeled with discs of this many radii."""
    pale_overlap: float = 0.1
    """A paled stone overlapping what was counted or refused by more than this share is left out."""


STONES = StoneParams()
"""The parameters :func:`count_stones` uses."""

STONE_MM = STONES.stone_mm
"""Diameters of the tokens the spec allows."""
MIN_COLOUR_T = STONES.min_colour_t
MIN_LIGHT_T = STONES.min_light_t
DARKEST_SHADOW = STONES.darkest_shadow
DARK_SEED = STONES.dark_seed
DARK_GROW = STONES.dark_grow
MARGIN_MM = STONES.margin_mm
COLOUR_TOL = STONES.colour_tol
MAX_DEPTH = STONES.max_depth_r
SEARCH_PAD_MM = STONES.search_pad_mm
BLOB_PAD = STONES.blob_pad
SOFT_EDGE = STONES.soft_edge
GLARE_STEP_MM = STONES.glare_step_mm
GLARE_SMOOTH_MM = STONES.glare_smooth_mm
GLARE_MIN_MM = STONES.glare_min_mm
GLARE_MIN = STONES.glare_min
PALE_MIN = STONES.pale_min
PALE_COS = STONES.pale_cos


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
    covers: tuple[Zone, ...] = ()
    """The stone zones (or the pool) this thing lies over, large enough to hide a stone there."""


@dataclass(frozen=True)
class StoneReading:
    count: StoneCount
    stones: tuple[Stone, ...] = ()
    rejected: tuple[Rejected, ...] = ()
    """What was not counted; those that ``cover`` a zone may hide stones in it (the count there is a least)."""
    diameter_mm: float | None = None
    """The diameter of one stone as learnt from this frame."""
    colour: tuple[float, float, float] | None = field(default=None)


class _Region(NamedTuple):
    """One region searched (the pool or a seat's stone zone, with its margin) and what its pixels are."""

    bounds: tuple[float, float, float, float]  # the region on the mat, mm
    box: tuple[int, int, int, int]  # the searched box (with room around), rectified px
    stone: Mask  # pixels unlike the felt
    signed: FloatImage  # log ratio to the felt, per channel
    only_dark: Mask  # pixels that only their darkness made stone pixels
    raw: FloatImage | None = None  # where a glare was taken off: the log ratio of the image as seen, glare and all


@dataclass(frozen=True)
class _Search:
    """What the blob cuts of every region share: the scale, the cards left out, the regions, the opening."""

    k: float
    exclude: Image | None
    regions: list[_Region]
    kernel: Image
    r_min: float


def count_stones(rectified: Image, felt: Felt, px_per_mm: float, mat: Mat | None = None,
                 exclude: Image | None = None) -> StoneReading:
    """Count the stones of a rectified mat image (``px_per_mm``), with its felt model.

    ``exclude`` (255 where something else is known to lie, e.g. the cards
    found) is left out of the search.
    """
    mat = mat or Mat()
    k = px_per_mm
    h, w = rectified.shape[:2]
    if exclude is not None:
        exclude = _reopen_stone_zones(exclude, mat, k)
    markers = _marker_mask(mat, (h, w), k)
    glared = np.zeros((h, w), np.uint8)  # where a glare was taken off
    regions = _candidates(rectified, felt, k, mat, markers, exclude, glared)
    # an opening with a disc well under a stone's width drops printed lines and specks
    d = 2 * round(STONES.open_share * STONES.stone_mm[0] * k) + 1
    search = _Search(k, exclude, regions, np.asarray(cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (d, d)), np.uint8),
                     STONES.stone_mm[0] / 2 * k)
    first: list[list[_Blob]] = []
    blobs = _search(search, first, None, STONES.stone_mm[1] / 2 * k)  # round holes up to the largest stone's filled
    learnt = _learn_size(blobs, glared, k)
    if learnt is None:  # nothing like a stone: what is large may still hide some (a hand over them all)
        r_min = STONES.stone_mm[0] / 2 * k
        big = STONES.refuse_cover_area * math.pi * r_min ** 2
        return StoneReading(StoneCount(), (), tuple(
            _rejected(b, k, mat, "not a stone", _covers(b.mask, b.x0, b.y0, k, mat, r_min) if b.area > big else ()) for b in blobs))
    radius, colour = learnt
    # again, now that the stones' colour is known: the parts of stones the first cut missed;
    # and the size of one stone again, from these whole stones; and without the deep shadows
    # beside them (what only darkness made stones, not of the stones' hue)
    blobs = _search(search, first, np.asarray(colour, np.float32), radius)
    radius = _relearn_size(blobs, radius, glared)
    stones, rejected, seen_blobs = _judge(blobs, radius, colour, glared, k, mat)
    if glared.any():
        known_all = np.maximum(markers, exclude) if exclude is not None else markers
        for cx, cy in _paled_stones(regions, glared, seen_blobs | known_all, colour, radius):
            x, y = (cx + 0.5) / k, (cy + 0.5) / k
            stones.append(Stone(x, y, mat.zone_at(x, y)))
    colour_bgr = tuple(float(c) for c in colour)
    return StoneReading(_by_zone(stones), tuple(stones), tuple(rejected),
                        2 * radius / k, colour_bgr)  # type: ignore[arg-type]


def _by_zone(stones: list[Stone]) -> StoneCount:
    """The count per zone: a stone belongs to the zone that holds its centre."""
    pool = sum(1 for s in stones if s.zone is Zone.POOL)
    seats = tuple(sum(1 for s in stones if s.zone is Zone.stones(i)) for i in range(4))
    return StoneCount(pool, seats)  # type: ignore[arg-type]


def _reopen_stone_zones(exclude: Image, mat: Mat, k: float) -> Image:
    """The cards' mask without the stone zones and the pool: a card lies in a card zone.

    What the card finder took for a card inside a stone zone or the pool (a
    cluster of white stones is card-sized) is looked at again; a real card
    there is refused anyway.
    """
    exclude = exclude.copy()
    for seat in range(4):
        zx0, zy0, zx1, zy1 = mat.stone_zone(seat)
        exclude[int(zy0 * k):int(zy1 * k), int(zx0 * k):int(zx1 * k)] = 0
    cv2.circle(exclude, (int(mat.centre[0] * k), int(mat.centre[1] * k)), int(mat.pool_radius * k), 0, -1)
    return exclude


def _marker_mask(mat: Mat, shape: tuple[int, int], k: float) -> Image:
    """The markers and their white quiet zones (255): printed, never stones, and no felt for the glare fit."""
    markers = np.zeros(shape, np.uint8)
    q = STONES.marker_quiet_mm
    for mid in range(4):
        (mx0, my0), (mx1, my1) = np.min(mat.marker_corners(mid), axis=0), np.max(mat.marker_corners(mid), axis=0)
        cv2.rectangle(markers, (int((mx0 - q) * k), int((my0 - q) * k)), (int((mx1 + q) * k), int((my1 + q) * k)),
                      255, -1)
    return markers


def _candidates(rectified: Image, felt: Felt, k: float, mat: Mat, markers: Image, exclude: Image | None,
                glared: Image) -> list[_Region]:
    """Each region's stone pixels: of another colour than the felt, or lighter, or far darker than a shadow.

    Each region is searched with room around it, so a card or an arm is seen
    whole. A glare is taken off first (:func:`_deglare`); where it was, the
    haze it leaves is taken off too and the thresholds follow the louder
    noise there (:func:`_haze_off`), and ``glared`` is marked.
    """
    h, w = rectified.shape[:2]
    colour_t, light_t = _thresholds(rectified, felt)
    pad = STONES.search_pad_mm
    regions = []
    for rx0, ry0, rx1, ry1 in _regions(mat):
        x0, y0 = max(0, int((rx0 - pad) * k)), max(0, int((ry0 - pad) * k))
        x1, y1 = min(w, int((rx1 + pad) * k)), min(h, int((ry1 + pad) * k))
        if x1 <= x0 or y1 <= y0:
            continue
        felt_map = np.ascontiguousarray(felt.colour_map[y0:y1, x0:x1])
        known = np.ascontiguousarray(markers[y0:y1, x0:x1])
        if exclude is not None:
            known = np.maximum(known, exclude[y0:y1, x0:x1])
        seen, felt_map, amp = _deglare(np.ascontiguousarray(rectified[y0:y1, x0:x1]), felt_map, felt.colour, k,
                                       colour_t, known)
        a, dp = Felt(felt_map, felt.colour, felt.free).contrast(seen)
        # where a glare was taken off the darkness is noisier: the plain limit, no growth from seeds
        lit = (dp > colour_t) | (a > 1.0 + light_t)
        dark = _dark(a) if amp is None else a < STONES.darkest_shadow
        stone = lit | dark
        if amp is not None:
            lit, dark, stone = _haze_off(a, dp, amp, stone, lit, dark, k, colour_t, light_t)
        signed = by_bands(_signed, seen, felt_map, 1, 3)[0]
        raw = None
        if amp is not None:
            glared[y0:y1, x0:x1][amp > STONES.glare_on] = 255
            # against the felt model, which follows a glare in part: on light felt the glare's fit may take a
            # black stone's grey for felt, while as seen it is still darker than the felt around it
            raw = np.asarray(cv2.subtract(log_image(np.ascontiguousarray(rectified[y0:y1, x0:x1])),
                                          np.log(felt.colour_map[y0:y1, x0:x1] + LOG_OFFSET)), dtype=np.float32)
        regions.append(_Region((rx0, ry0, rx1, ry1), (x0, y0, x1, y1), stone, signed, dark & ~lit, raw))
    return regions


def _signed(seen: Image, felt_map: npt.NDArray[np.float32]) -> tuple[npt.NDArray[np.float32], ...]:
    """Each channel's log against the felt's (a band of a region, :func:`vision.felt.by_bands`)."""
    return (np.asarray(cv2.subtract(log_image(seen), np.log(felt_map + LOG_OFFSET)), dtype=np.float32),)


def _haze_off(a: FloatImage, dp: FloatImage, amp: FloatImage, stone: Mask, lit: Mask, dark: Mask, k: float,
              colour_t: float, light_t: float) -> tuple[Mask, Mask, Mask]:
    """Lit, dark and stone pixels again under a glare taken off: its haze off, thresholds from the noise there.

    Under a glare the noise is louder: what is left of the glare (a haze,
    broad) is measured on the felt around and taken off too, and the
    thresholds there come from the felt's spread there (what a small blur
    takes away).
    """
    glare_on = amp > STONES.glare_on
    under = glare_on & ~stone
    if np.count_nonzero(under) > STONES.haze_min_px:
        # every value used lies under the glare: the blurs are taken over the glare's box with each blur's
        # reach around it (the same values there as over the whole region)
        s_bg = STONES.glare_smooth_mm * STONES.haze_smooth * k
        gx, gy, gw, gh = cv2.boundingRect(glare_on.astype(np.uint8))
        h, w = a.shape
        r1, r2 = _blur_reach(s_bg), _blur_reach(STONES.haze_blur_px)
        o1 = (slice(max(0, gy - r1), min(h, gy + gh + r1)), slice(max(0, gx - r1), min(w, gx + gw + r1)))
        y2, x2 = max(0, gy - r2), max(0, gx - r2)
        o2 = (slice(y2, min(h, gy + gh + r2)), slice(x2, min(w, gx + gw + r2)))
        i2 = (slice(y2 - o1[0].start, o2[0].stop - o1[0].start), slice(x2 - o1[1].start, o2[1].stop - o1[1].start))
        a1, dp1, on1 = a[o1], dp[o1], glare_on[o1]
        wgt = under[o1].astype(np.float32)
        den = cv2.GaussianBlur(wgt, (0, 0), s_bg) + 1e-3
        a2 = np.asarray(np.where(on1, a1 - cv2.GaussianBlur((a1 - 1.0) * wgt, (0, 0), s_bg) / den, a1)[i2],
                        np.float32)
        dp2 = np.asarray(np.where(on1, dp1 - cv2.GaussianBlur(dp1 * wgt, (0, 0), s_bg) / den, dp1)[i2], np.float32)
        under2, on2 = under[o2], glare_on[o2]
        a_hf = (a2 - cv2.GaussianBlur(a2, (0, 0), STONES.haze_blur_px))[under2]
        dp_hf = (dp2 - cv2.GaussianBlur(dp2, (0, 0), STONES.haze_blur_px))[under2]
        ct_u = max(colour_t, STONES.noise_sigmas * _spread(dp_hf))
        lt_u = max(light_t, STONES.noise_sigmas * _spread(a_hf))
        lit, dark = lit.copy(), dark.copy()
        lit[o2] = np.where(on2, (dp2 > ct_u) | (a2 > 1.0 + lt_u), lit[o2])
        dark[o2] = np.where(on2, a2 < STONES.darkest_shadow, dark[o2])
        stone = lit | dark
    return lit, dark, stone


def _blur_reach(sigma: float) -> int:
    """How far (px) OpenCV's Gaussian blur of a float image reaches (half its kernel), with a pixel to spare."""
    return (int(round(sigma * 8 + 1)) | 1) // 2 + 2


def _cut(search: _Search, mask: Image, i: int, radius: float) -> list[_Blob]:
    """The blobs of a region's stone mask (255), opened, small holes filled, near the region.

    The gaps between three touching stones are felt and stay holes: the
    blob's area counts the stones. A blob whose box centre lies more than a
    stone's width outside the region belongs to another.
    """
    k = search.k
    region = search.regions[i]
    (rx0, ry0, rx1, ry1), (x0, y0, _, _), signed = region.bounds, region.box, region.signed
    if search.exclude is not None:
        mask[search.exclude[y0:y0 + mask.shape[0], x0:x0 + mask.shape[1]] > 0] = 0
    # opened and filled only in the box around what is marked, with the opening's reach around it: the
    # same pixels as over the whole region (the box's edge lies on nothing the opening could reach)
    bx, by, bw, bh = cv2.boundingRect(mask)
    if bw == 0 or bh == 0:
        return []
    m = search.kernel.shape[0] // 2 + 1
    h, w = mask.shape
    cx0, cy0, cx1, cy1 = max(0, bx - m), max(0, by - m), min(w, bx + bw + m), min(h, by + bh + m)
    # specks of felt inside a stone (a dark stone on dark felt straddles the limit) filled before the opening:
    # it widens every hole by its disc, and a stone riddled with them lost two thirds of its area
    speck = STONES.speck_area * math.pi * (STONES.stone_mm[0] / 2 * k) ** 2
    filled = _fill_small_holes(np.ascontiguousarray(mask[cy0:cy1, cx0:cx1]), speck)
    opened = np.asarray(cv2.morphologyEx(filled, cv2.MORPH_OPEN, search.kernel), np.uint8)
    mask = np.zeros_like(mask)
    mask[cy0:cy1, cx0:cx1] = _fill_small_holes(opened, speck, STONES.round_hole_area * math.pi * radius ** 2)
    reach = STONES.stone_mm[1]
    kept = []
    for b in _blobs(mask, signed, min_area=STONES.min_blob_area * math.pi * search.r_min ** 2):
        b.x0 += x0
        b.y0 += y0
        cx, cy = (b.x0 + b.mask.shape[1] / 2) / k, (b.y0 + b.mask.shape[0] / 2) / k
        if rx0 - reach <= cx <= rx1 + reach and ry0 - reach <= cy <= ry1 + reach:
            kept.append(b)
    return kept


def _search(search: _Search, first: list[list[_Blob]], colour: npt.NDArray[np.float32] | None,
            radius: float) -> list[_Blob]:
    """The blobs of every region: a first cut (``colour`` None, kept in ``first``), or the second look.

    On the second look, the stones' colour known, what has that colour is
    added (a stone in a shadow; nearer the stones' colour than the felt's, so
    paled stones never make the felt a stone) and cut again where it is worth
    it. A deep shadow (:func:`_deep_shadow`) matters where it makes a third of
    a stone of a blob found (a stone's own shadow beside it is less): only
    those blobs are cut again, without it.
    """
    found: list[_Blob] = []
    for i, region in enumerate(search.regions):
        (x0, y0, _, _), stone, signed, only_dark = region.box, region.stone, region.signed, region.only_dark
        if colour is None:
            first.append(_cut(search, stone.astype(np.uint8) * 255, i, radius))
            found.extend(first[i])
            continue
        off = _farthest_channel(signed, colour)
        strength = _farthest_channel(signed, np.zeros(3, np.float32))
        extra = (off < STONES.extra_near * STONES.colour_tol) & (off < STONES.extra_near * strength) & ~stone
        worth = STONES.worth_area * math.pi * radius ** 2
        shaded: list[_Blob] = []
        shadow = np.zeros_like(stone)
        if any(_count_in(only_dark, b, x0, y0) >= STONES.shadow_worth * worth for b in first[i]):
            shadow = _deep_shadow(signed, colour, only_dark)
            shaded = [b for b in first[i] if _count_in(shadow, b, x0, y0) >= STONES.shadow_worth * worth]
        if np.count_nonzero(extra) >= STONES.extra_share * np.count_nonzero(stone) + worth:
            found.extend(_cut(search, ((stone & ~shadow if shaded else stone) | extra).astype(np.uint8) * 255, i,
                              radius))
            continue
        # nothing worth a second look, but the blobs a deep shadow joined: those again, without it
        found.extend(b for b in first[i] if not any(b is c for c in shaded))
        if shaded:
            mask = np.zeros(stone.shape, np.uint8)
            for b in shaded:
                _paint(mask, b, x0, y0)
            mask[shadow] = 0
            found.extend(_cut(search, mask, i, radius))
    return found


def _farthest_channel(values: FloatImage, colour: npt.NDArray[np.float32]) -> FloatImage:
    """The largest per-channel distance of each pixel from a colour.

    Taken against a scalar: an image filled with the colour, as large as the region, cost ten times the
    difference itself.
    """
    scalar: Any = (*(float(c) for c in colour), 0.0)
    return channel_max(np.asarray(cv2.absdiff(values, scalar), np.float32))


def _learn_size(blobs: list[_Blob], glared: Image, k: float
                ) -> tuple[float, npt.NDArray[np.float32]] | None:
    """One stone's radius (px) and the stones' colour, from the single round stones in plain light.

    When every stone touches another, their outlines are still arcs of one
    stone's radius (:func:`_arc_radii`). None when nothing is stone-like.
    """
    lo, hi = STONES.size_band
    singles = _in_plain_light([b for b in blobs if b.round_single
                               and STONES.stone_mm[0] * lo * k <= b.equivalent_radius <= STONES.stone_mm[1] * hi * k],
                              glared)
    if singles:
        radius = float(np.median([b.equivalent_radius for b in singles]))
        colour = np.median(np.stack([b.colour for b in singles]), axis=0)
        return radius, colour
    small = [b for b in blobs if not b.touches_edge and b.depth <= STONES.stone_mm[1] * hi * 2 * k]
    arcs = np.concatenate([_arc_radii(b, k) for b in small]) if small else np.zeros(0)
    if arcs.size == 0:
        return None
    radius = float(np.median(arcs))
    colour = np.median(np.stack([b.colour for b in small]), axis=0)
    return radius, colour


def _relearn_size(blobs: list[_Blob], radius: float, glared: Image) -> float:
    """One stone's radius again, from the whole stones of the second look near the first size."""
    singles = _in_plain_light([b for b in blobs if b.round_single
                               and abs(b.equivalent_radius / radius - 1) < STONES.relearn_tol], glared)
    if singles:
        radius = float(np.median([b.equivalent_radius for b in singles]))
    return radius


def _regions(mat: Mat) -> list[tuple[float, float, float, float]]:
    cx, cy = mat.centre
    r = mat.pool_radius + STONES.margin_mm
    out = [(cx - r, cy - r, cx + r, cy + r)]
    for seat in range(4):
        x0, y0, x1, y1 = mat.stone_zone(seat)
        m = STONES.margin_mm
        out.append((x0 - m, y0 - m, x1 + m, y1 + m))
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
            if circ > STONES.round_hole_circularity:
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
    touches_edge: bool  # reaches the edge of the searched area: bigger than it
    signed: npt.NDArray[np.float32]  # log ratio to the felt of the blob's box (crop-sized, 3 channels)
    split: bool = False  # already a part of a blob split by colour
    disc: bool = False  # a round part cut from a blob at its necks: one whole stone or nothing
    _colour: npt.NDArray[np.float32] | None = field(default=None, repr=False)

    @property
    def colour(self) -> npt.NDArray[np.float32]:
        """The median signed log ratio to the felt, per channel.

        Taken when first asked: a large blob (a hand, a card) is mostly refused by its size alone, and
        the median over its many pixels was a good share of the blob cut's time.
        """
        if self._colour is None:
            self._colour = _median_colour(self.signed[self.mask > 0])
        return self._colour

    @property
    def equivalent_radius(self) -> float:
        return math.sqrt(self.area / math.pi)

    @property
    def round_single(self) -> bool:
        circ = 4 * math.pi * self.area / max(self.perimeter, 1e-6) ** 2
        solidity = self.area / max(self.hull_area, 1e-6)
        return (circ > STONES.single_circularity and solidity > STONES.single_solidity
                and self.depth > STONES.single_depth * self.equivalent_radius)


def _dark(a: npt.NDArray[np.float32]) -> npt.NDArray[np.bool_]:
    """Darker than any shadow, and what is a little less dark around it (a dark stone on dark felt).

    A black stone on dark felt lies near the shadow limit: its pixels straddle
    it and it falls apart into crumbs, each of which would count a stone. The
    darkest pixels (:attr:`StoneParams.dark_seed`) are seeds; the stone is what is darker
    than :attr:`StoneParams.dark_grow` and joined to a seed. A shadow alone has no seed, so
    it never grows.
    """
    seed = a < STONES.dark_seed
    if not seed.any():
        return seed
    grow = (a < STONES.dark_grow).astype(np.uint8)
    x, y, w, h = cv2.boundingRect(grow)  # labelled only in the box around the dark parts (they hold the seeds)
    n, labels = cv2.connectedComponents(grow[y:y + h, x:x + w], connectivity=8)
    keep = np.zeros(n, bool)
    keep[np.unique(labels[seed[y:y + h, x:x + w]])] = True  # seeds lie inside the grown parts, never in label 0
    out = np.zeros(a.shape, bool)
    out[y:y + h, x:x + w] = keep[labels]
    return out


def _median_colour(values: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """The per-channel median of N x 3 values: channel by channel on a contiguous copy (the same
    numbers as ``np.median(values, axis=0)``, several times faster than down the strided columns)."""
    return np.array([median(c) for c in np.ascontiguousarray(values.T)], np.float32)


def _blobs(mask: Image, signed: npt.NDArray[np.float32], min_area: float) -> list[_Blob]:
    # only the box around what is marked is labelled; its corner kept on even pixels, so the labelling's
    # 2 x 2 blocks and hence the order of the labels are those of the whole mask
    bx, by, bw, bh = cv2.boundingRect(mask)
    if bw == 0 or bh == 0:
        return []
    ox, oy = bx - bx % 2, by - by % 2
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask[oy:by + bh, ox:bx + bw], connectivity=8)
    out = []
    for i in range(1, n):
        lx, ly, w, h, area = (int(v) for v in stats[i])
        if area < min_area:
            continue
        x, y = lx + ox, ly + oy
        pad = STONES.blob_pad
        crop = np.zeros((h + 2 * pad, w + 2 * pad), np.uint8)
        crop[pad:pad + h, pad:pad + w][labels[ly:ly + h, lx:lx + w] == i] = 255
        contours, _ = cv2.findContours(crop, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        cnt = max(contours, key=cv2.contourArea)
        hull = cv2.convexHull(cnt)
        dt = cv2.distanceTransform(crop, cv2.DIST_L2, 5)
        touches = x == 0 or y == 0 or x + w == mask.shape[1] or y + h == mask.shape[0]
        box = np.zeros((h + 2 * pad, w + 2 * pad, 3), np.float32)
        # with what lies around the blob too (its edge is judged by it)
        sy0, sy1 = max(0, y - pad), min(signed.shape[0], y + h + pad)
        sx0, sx1 = max(0, x - pad), min(signed.shape[1], x + w + pad)
        box[sy0 - y + pad:sy1 - y + pad, sx0 - x + pad:sx1 - x + pad] = signed[sy0:sy1, sx0:sx1]
        out.append(_Blob(crop, x - pad, y - pad, float(area), float(cv2.arcLength(cnt, True)),
                         float(cv2.contourArea(hull)), float(dt.max()), touches, box))
    return out


def _arc_radii(blob: _Blob, k: float, stride: int = 1) -> npt.NDArray[np.float64]:
    """Radii (px) of circles fitted to short stretches of a blob's outline that bulge outwards.

    A cluster of touching stones is outlined by arcs of one stone's radius,
    meeting at notches; straight or hollow stretches are left out. A stretch
    starts at every ``stride``-th point of the outline.
    """
    contours, _ = cv2.findContours(blob.mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return np.zeros(0)
    pts = max(contours, key=cv2.contourArea).reshape(-1, 2).astype(np.float64)
    n = len(pts)
    half = max(3, int(round(STONES.arc_stretch_mm * k)))
    if n < 2 * half + 3:
        return np.zeros(0)
    idx = (np.arange(0, n, stride)[:, None] + np.arange(-half, half + 1)[None, :]) % n
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
    lo, hi = STONES.size_band
    keep = (ok & inside & (residual < STONES.arc_residual) & (r >= STONES.stone_mm[0] * lo * k)
            & (r <= STONES.stone_mm[1] * hi * k))
    return np.asarray(r[keep], np.float64)


def _peel(blob: _Blob, radius: float, max_stones: int = STONES.peel_max) -> tuple[list[tuple[float, float]], float]:
    """Stone centres (crop px) peeled off a blob, and the share of the blob the discs cover."""
    work = blob.mask.copy()
    discs = np.zeros_like(work)
    centres: list[tuple[float, float]] = []
    while len(centres) < max_stones:
        dt = cv2.distanceTransform(work, cv2.DIST_L2, 5)
        _, peak, _, (px, py) = cv2.minMaxLoc(dt)
        if peak < STONES.peel_stop_r * radius:
            break
        # centre the disc on the plateau of the peak (sub-pixel by the local DT mass)
        y0, y1 = max(0, py - 2), py + 3
        x0, x1 = max(0, px - 2), px + 3
        win = dt[y0:y1, x0:x1]
        win = np.where(win >= peak - STONES.peel_plateau, win, 0.0)
        # the window's coordinates, broadcast (np.mgrid's full grids cost more than the rest of the step)
        ys, xs = np.arange(y0, y0 + win.shape[0])[:, None], np.arange(x0, x0 + win.shape[1])[None, :]
        total = float(win.sum())
        cx = float((win * xs).sum() / total) if total else float(px)
        cy = float((win * ys).sum() / total) if total else float(py)
        centres.append((cx, cy))
        c = (round(cx), round(cy))
        cv2.circle(work, c, int(round(radius * STONES.peel_clear_r)), 0, -1)
        cv2.circle(discs, c, int(round(radius)), 255, -1)
    inside = blob.mask > 0
    covered = float(np.count_nonzero(discs[inside] > 0)) / max(1.0, float(np.count_nonzero(inside)))
    return centres, covered


def _judge(blobs: list[_Blob], radius: float, colour: npt.NDArray[np.float32], glared: Image, k: float,
           mat: Mat) -> tuple[list[Stone], list[Rejected], Image]:
    """The stones the blobs hold, the blobs refused and why, and the mask of both (stones and large refusals).

    A refused blob that is whole (not a part already) may be stones touching
    something else (a glare, a hand, a card): its round stones at the edge
    (:func:`_disc_parts`) and its parts of the stones' colour
    (:func:`_colour_parts`) are judged instead. A large thing refused (a
    hand, a card, a sleeve) hides what lies in it from the later look for
    paled stones.
    """
    stones: list[Stone] = []
    rejected: list[Rejected] = []
    queue = list(blobs)
    seen_blobs = np.zeros(glared.shape, np.uint8)
    counted = np.zeros(glared.shape, np.uint8)  # the blobs counted as stones
    big = STONES.refuse_cover_area * math.pi * radius ** 2
    split: list[tuple[_Blob, str]] = []  # large blobs refused whole, judged by their parts
    while queue:
        b = queue.pop(0)
        why, peeled = _refusal(b, radius, colour, glared, k)
        if why is not None and not b.split:
            parts, taken = _disc_parts(b, radius, colour)
            parts += _colour_parts(b, colour, radius, taken)
            if parts:
                queue.extend(parts)
                if b.area > big:
                    split.append((b, why))
                continue
        n = 0
        if why is None and b.disc:
            lo, hi = STONES.whole_area
            n_area = b.area / (math.pi * radius ** 2)
            if not (b.round_single and lo <= n_area <= hi):
                why = "not a whole stone"  # a fingertip, a knuckle: only whole discs count
        if why is None:
            n, why = _how_many(b, radius, colour, glared, k)
        if why is not None:
            if b.area > big:
                _paint(seen_blobs, b)
                rejected.append(_rejected(b, k, mat, why, _covers(b.mask, b.x0, b.y0, k, mat, radius)))
            else:
                rejected.append(_rejected(b, k, mat, why))
            continue
        _paint(seen_blobs, b)
        _paint(counted, b)
        # the peel is greedy: its first n discs are the same whether it stops at n or goes on
        centres = peeled[0][:n] if peeled is not None else _peel(b, radius, max_stones=n)[0]
        if len(centres) < n:  # stones the peel could not place: at the blob's middle
            ys, xs = np.nonzero(b.mask)
            centres += [(float(xs.mean()), float(ys.mean()))] * (n - len(centres))
        for cx, cy in centres:
            x, y = (b.x0 + cx + 0.5) / k, (b.y0 + cy + 0.5) / k
            stones.append(Stone(x, y, mat.zone_at(x, y)))
    # a hand with stones cut from its edge: what is left of it besides them may hide more
    counted = np.asarray(cv2.dilate(counted, _rim(radius)), np.uint8)
    for b, why in split:
        h, w = b.mask.shape
        y0, x0 = max(0, b.y0), max(0, b.x0)
        rest = b.mask.copy()
        rest[y0 - b.y0:, x0 - b.x0:][counted[y0:b.y0 + h, x0:b.x0 + w] > 0] = 0
        covers = _covers(rest, b.x0, b.y0, k, mat, radius)
        if covers:
            rejected.append(_rejected(b, k, mat, why, covers))
    return stones, rejected, seen_blobs


def _refusal(b: _Blob, radius: float, colour: npt.NDArray[np.float32], glared: Image, k: float
             ) -> tuple[str | None, tuple[list[tuple[float, float]], float] | None]:
    """Why a blob is not stones (None: it may be), and its peel when one was needed to tell.

    A large blob is peeled: stone-sized discs leave much of fingers or a
    sleeve; a ragged cluster of stones is still covered by its discs, and a
    compact one is not ragged. Under a glare, a finger the glare paled to
    nearly the stones' colour, joined to a stone, is covered by discs too:
    but its outline is straight, where touching stones' is arcs of a stone's
    radius.
    """
    why = _not_stones(b, radius, colour, glared)
    if (why is None and not b.split and b.area > STONES.touching_shape[0] * math.pi * radius ** 2
            and _under_glare(b, glared) and _arcs_of(b, radius, k) < STONES.tip_arcs):
        why = "not round stones"
    peeled: tuple[list[tuple[float, float]], float] | None = None
    if why is None and b.area > STONES.peel_area * math.pi * radius ** 2:
        peeled = _peel(b, radius)
        covered = peeled[1]
        big, big_cover, ragged_cover, ragged_solidity = STONES.ragged
        least_arcs, deepest = STONES.cluster_outline
        if ((b.area > big * math.pi * radius ** 2 and covered < big_cover) or (
                covered < ragged_cover and b.area < ragged_solidity * b.hull_area)) and not (
                b.depth <= deepest * radius and _arcs_of(b, radius, k) >= least_arcs):
            # (the greedy peel may leave much of a compact cluster of stones: its outline is still arcs)
            why = "not round stones"
    return why, peeled


def _how_many(b: _Blob, radius: float, colour: npt.NDArray[np.float32], glared: Image,
              k: float) -> tuple[int, str | None]:
    """How many stones of one size a blob holds (its area counts them), or why it holds none.

    Stones a glare paled lose their rims to the cut: touching, they are as
    thick as they look, not as the stones in plain light. Where a glare was
    taken off, a haze of it may cling to the stones or their paled edges be
    lost, and in a cluster in plain light a stone has 0.9-1.2 of a single
    one's area (blur, shared edges): between two counts, the stone-sized
    discs that fit decide (in plain light only when they cover the blob,
    i.e. the greedy peel went right). Touching stones in plain light are
    counted by their own radius when their outline's arcs say it is larger
    (:func:`_own_radius`). The parts cut from a refused blob must also not look like what is left of a
    hand or a glare of the stones' colour.
    """
    n_area = b.area / (math.pi * radius ** 2)
    thick_area, thick_lo, thick_hi = STONES.pale_thick
    if (not b.split and n_area > thick_area and thick_lo * radius <= b.depth < thick_hi * radius
            and _under_glare(b, glared)):
        n_area = b.area / (math.pi * b.depth ** 2)
    elif not b.split and n_area > STONES.touching_shape[0] and not _under_glare(b, glared):
        n_area = b.area / (math.pi * _own_radius(b, radius, k) ** 2)
    n = int(round(n_area))
    if n >= 2 and abs(n_area - n) > STONES.between_counts:
        centres, covered = _peel(b, radius)
        if _under_glare(b, glared) or covered >= STONES.between_cover:
            n = min(max(len(centres), math.floor(n_area)), math.ceil(n_area))
    solidity = b.area / max(b.hull_area, 1e-6)
    whole_solidity, part_solidity = STONES.touching_solidity
    most_parts, least_solidity, deepest = STONES.part_limits
    tip_depth, tip_colour = STONES.fingertip
    thin_depth_areas, thin_counted = STONES.thin
    if n < 1:
        return n, "smaller than a stone"
    if n >= 2 and solidity > (part_solidity if b.split else whole_solidity) and (b.split or not _notched(b, radius)):
        return n, "not round stones"  # touching discs leave notches; a bar or a blob (a finger) does not
    if b.split and (n > most_parts or solidity < least_solidity or b.depth > deepest * radius):
        return n, "not stones"  # what is left of a hand or a glare of the stones' colour
    if b.split and n >= 2 and _peel(b, radius)[1] < STONES.part_cover:
        return n, "not stones"  # a piece of a hand or arm of the stones' colour: discs leave much of it
    if (b.split and b.depth < tip_depth * radius and float(np.abs(b.colour - colour).max()) > tip_colour
            and not (_shaded(b.colour, colour) and _arcs_of(b, radius, k) >= STONES.tip_arcs)):
        # a fingertip of nearly the stones' colour (a stone half hidden is theirs; one behind a fingertip,
        # in the hand's shadow, is theirs made darker, and its free edge an arc of a stone's radius)
        return n, "no stone fits in it"
    if b.split and b.area / (math.pi * b.depth ** 2) > max(thin_depth_areas, thin_counted * n_area):
        return n, "thinner than a stone"  # a finger of the stones' colour
    return n, None


def _own_radius(b: _Blob, radius: float, k: float) -> float:
    """The radius of the stones of a blob of touching stones, from its outline's arcs, if larger than the frame's.

    Cut at the same threshold, stones of more contrast than the single ones the size was learnt from (in
    another light) take in more of their blurred rims: five such stones touching had six single ones' area.
    Their outline is still arcs of their own radius. A smaller one is not taken: the arcs of clusters in the
    singles' own light come out a little under their radius (stretches reaching into the necks), and counted
    by them they read one too many.
    """
    stride = 2  # stretches overlap by far: every other one says as much
    arcs = _arc_radii(b, k, stride)
    near = arcs[np.abs(arcs / radius - 1.0) < STONES.tip_arc_tol]
    contours, _ = cv2.findContours(b.mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours or len(near) * stride < STONES.own_arcs * len(max(contours, key=cv2.contourArea)):
        return radius
    return max(radius, float(np.median(near)))


def _notched(b: _Blob, radius: float) -> bool:
    """Two notches in the outline at least :attr:`StoneParams.notch_r` deep, as touching discs leave.

    Blurred, two small stones touching fill their notches in part, and the
    blob is nearly as solid as a bar; the notches are still there, a bar or a
    finger has none.
    """
    contours, _ = cv2.findContours(b.mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    cnt = max(contours, key=cv2.contourArea)
    hull = cv2.convexHull(cnt, returnPoints=False)
    if len(hull) < 3:
        return False
    try:
        defects = cv2.convexityDefects(cnt, hull)
    except cv2.error:  # a self-touching outline
        return False
    if defects is None:
        return False
    depths = np.sort(defects.reshape(-1, 4)[:, 3] / 256.0)[::-1]
    return len(depths) >= 2 and float(depths[1]) >= STONES.notch_r * radius


def _arcs_of(b: _Blob, radius: float, k: float) -> float:
    """The share of a blob's outline along which a circle of one stone's radius (within 20 %) fits."""
    contours, _ = cv2.findContours(b.mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return 0.0
    arcs = _arc_radii(b, k)
    n = len(max(contours, key=cv2.contourArea))
    return float(np.count_nonzero(np.abs(arcs / radius - 1.0) < STONES.tip_arc_tol)) / max(1, n)


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


def _paled_stones(regions: list[_Region],
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
    ring0, ring1 = STONES.pale_ring_r
    disc, around = _ring_kernel(0.0, STONES.pale_disc_r * radius), _ring_kernel(ring0 * radius, ring1 * radius)
    peak_disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * round(radius) + 1,) * 2)
    out: list[tuple[float, float]] = []
    done = taken.copy()
    paled = np.zeros_like(taken)  # the paled stones found, each with its rim
    pad = int(math.ceil(STONES.pale_pad_r * radius))
    # the image with the glare taken off first, then as seen (a black stone the glare's fit took for felt)
    sources = ((r.box, w, shrink) for r in regions
               for w, shrink in ((r.signed, STONES.pale_shrink), (r.raw, STONES.pale_raw_shrink)) if w is not None)
    for (rx0, ry0, _, _), whole, shrink in sources:
        rh, rw = whole.shape[:2]
        gx, gy, gw, gh = cv2.boundingRect(np.ascontiguousarray(glared[ry0:ry0 + rh, rx0:rx0 + rw]))
        if gw == 0 or gh == 0:
            continue
        # only around the glare (with room for a stone and its ring)
        cx0, cy0 = max(0, gx - pad), max(0, gy - pad)
        cx1, cy1 = min(rw, gx + gw + pad), min(rh, gy + gh + pad)
        signed = np.ascontiguousarray(whole[cy0:cy1, cx0:cx1])
        x0, y0 = rx0 + cx0, ry0 + cy0
        hh, ww = signed.shape[:2]
        glare = glared[y0:y0 + hh, x0:x0 + ww] > 0
        s = np.asarray(cv2.transform(signed, u), np.float32)
        inner = cv2.filter2D(s, -1, disc, borderType=cv2.BORDER_REFLECT)
        outer = cv2.filter2D(s, -1, around, borderType=cv2.BORDER_REFLECT)
        resp = inner - outer
        peaks = (resp > STONES.pale_min) & glare
        px0, py0, pw, ph = cv2.boundingRect(peaks.astype(np.uint8))
        if pw == 0 or ph == 0:
            continue
        # a peak is its disc's largest response: the disc's maximum taken only around the candidates
        m = peak_disc.shape[0] // 2 + 1
        qy, qx = max(0, py0 - m), max(0, px0 - m)
        near = resp[qy:min(hh, py0 + ph + m), qx:min(ww, px0 + pw + m)]
        peaks[qy:qy + near.shape[0], qx:qx + near.shape[1]] &= near >= cv2.dilate(near, peak_disc)
        ys, xs = np.nonzero(peaks)
        for py, px in sorted(zip(ys.tolist(), xs.tolist(), strict=True), key=lambda p: -resp[p[0], p[1]]):
            if done[y0 + py, x0 + px]:
                continue
            found = _paled_stone(s, signed, px, py, float(inner[py, px]), float(outer[py, px]), colour, radius,
                                 paled[y0:y0 + hh, x0:x0 + ww], shrink)
            if found is None:
                continue
            centres, part, (wx0, wy0) = found
            region_done = done[y0:y0 + hh, x0:x0 + ww]
            sub = region_done[wy0:wy0 + part.shape[0], wx0:wx0 + part.shape[1]]
            if np.count_nonzero(sub[part > 0]) > STONES.pale_overlap * np.count_nonzero(part):
                continue  # it overlaps what was counted or refused
            grown = np.asarray(cv2.dilate(part, _rim(radius)), np.uint8)[:sub.shape[0], :sub.shape[1]]
            sub |= grown
            paled[y0 + wy0:y0 + wy0 + grown.shape[0], x0 + wx0:x0 + wx0 + grown.shape[1]] |= grown
            out.extend((x0 + cx, y0 + cy) for cx, cy in centres)
    return out


def _paled_stone(s: npt.NDArray[np.float32], signed: npt.NDArray[np.float32], px: int, py: int,
                 inner: float, outer: float, colour: npt.NDArray[np.float32], radius: float,
                 paled: Image | None = None, shrink: float = STONES.pale_shrink
                 ) -> tuple[list[tuple[float, float]], Image, tuple[int, int]] | None:
    """The stones at a peak of the disc response, cut at half its contrast: their centres, the cut and its origin.

    None unless the cut is one round stone of the frame's size or a few
    touching (counted by area, with the notches touching leaves), of the
    stones' hue, with a sharp edge. The paled stones found already
    (``paled``, 255) are no part of the cut: a weaker stone touching one,
    cut at half its own contrast, took both in and overlapped it.
    """
    hh, ww = s.shape
    half = int(math.ceil(STONES.pale_window_r * radius))
    wx0, wy0 = max(0, px - half), max(0, py - half)
    wx1, wy1 = min(ww, px + half + 1), min(hh, py + half + 1)
    win = s[wy0:wy1, wx0:wx1]
    cut = (win > outer + STONES.pale_cut * (inner - outer)).astype(np.uint8) * 255
    if paled is not None:  # the paled stones found already (this one may touch one): not of this cut
        cut[paled[wy0:wy1, wx0:wx1] > 0] = 0
    # printed lines and specks are thinner than half a stone: an opening takes them off
    cut = np.asarray(cv2.morphologyEx(cut, cv2.MORPH_OPEN, cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (2 * max(1, round(STONES.colour_open_r * radius)) + 1,) * 2)), np.uint8)
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
    least, most, least_circ, least_solidity = STONES.pale_single
    if least <= n_area <= most:
        if circ <= least_circ or solidity <= least_solidity:
            return None
        n = 1
    else:
        n = int(round(n_area / shrink))
        depth = float(cv2.distanceTransform(part, cv2.DIST_L2, 5).max())
        n_lo, n_hi, off, s_lo, s_hi, d_lo, d_hi = STONES.pale_few
        if not (n_lo <= n <= n_hi and abs(n_area / shrink - n) < off and s_lo <= solidity <= s_hi
                and d_lo * radius <= depth <= d_hi * radius):
            return None
    mean = signed[wy0:wy1, wx0:wx1][part > 0].mean(axis=0)
    if _cosine(mean, colour) < STONES.pale_cos:
        return None  # not the stones' hue
    # a sharp edge: just outside the cut the contrast is back to the felt's
    near, far = STONES.edge_ring_px
    ring = (cv2.dilate(part, np.ones((far, far), np.uint8)) > 0) & ~(cv2.dilate(part, np.ones((near, near), np.uint8)) > 0)
    inside = float(np.median(win[part > 0])) - outer
    if inside <= 0 or (float(np.median(win[ring])) - outer) / inside > STONES.soft_edge:
        return None
    if n == 1:
        cx, cy = cents[lab]
        centres = [(float(cx), float(cy))]
    else:
        blob = _Blob(part, 0, 0, float(area), 0.0, 0.0, 0.0, False, np.zeros((*part.shape, 3), np.float32),
                     _colour=np.zeros(3, np.float32))
        centres = _peel(blob, STONES.pale_peel_r * radius, max_stones=n)[0]
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
    near = _farthest_channel(b.signed, colour) < STONES.colour_tol
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * max(1, round(STONES.colour_open_r * radius)) + 1,) * 2)
    sub = np.asarray(cv2.morphologyEx(((b.mask > 0) & near).astype(np.uint8) * 255, cv2.MORPH_OPEN, disc), np.uint8)
    if not sub.any() or np.count_nonzero(sub) > STONES.all_colour * np.count_nonzero(b.mask):
        return []  # all of it has the stones' colour (a hand like them): colour cannot split it
    if taken is not None:
        sub = np.asarray(cv2.morphologyEx(((b.mask > 0) & near & (taken == 0)).astype(np.uint8) * 255,
                                          cv2.MORPH_OPEN, disc), np.uint8)
    # give back the stones' darker rims: a little growth, inside the blob only
    sub = np.asarray(cv2.dilate(sub, _rim(radius)), np.uint8) & b.mask
    parts = _blobs(sub, b.signed, min_area=STONES.min_blob_area * math.pi * radius ** 2)
    for p in parts:
        p.x0 += b.x0
        p.y0 += b.y0
        p.split = True
    return parts


def _rim(radius: float) -> Image:
    """A disc as wide as a stone's darker rim: what a cut of the stones' colour leaves off."""
    d = 2 * max(1, round(STONES.rim_r * radius)) + 1
    return np.asarray(cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (d, d)), np.uint8)


def _disc_parts(b: _Blob, radius: float, colour: npt.NDArray[np.float32]) -> tuple[list[_Blob], Image | None]:
    """The round stones at the edge of a refused blob (stones touching a hand), one by one.

    Eroded by :attr:`StoneParams.disc_erode_r` of a stone's radius, touching stones fall apart into small
    cores (they meet at a point), while a palm and its fingers stay one part.
    Each small core grown back inside the blob is a candidate; only a whole
    round stone is kept (never split again). A stone in full view against
    the hand is tied to it by a neck its soft shadow widens: eroded deeper
    it stands alone; such a stone must also have some of the stones' colour
    and a sharp edge to the felt (:func:`_sticks_out`), a fingertip and a
    blotch of the felt have not.
    """
    if b.area < STONES.disc_min_area * math.pi * radius ** 2:
        return [], None
    parts: list[_Blob] = []
    lo, hi = STONES.whole_area
    got = np.zeros_like(b.mask)
    for erode_r in STONES.disc_erode_r:
        d = 2 * max(1, round(erode_r * radius)) + 1
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (d, d))
        core = np.asarray(cv2.erode(b.mask, disc), np.uint8)
        deeper = erode_r != STONES.disc_erode_r[0]
        if not deeper:
            # a stone lying against a finger or the palm is still tied to it by a thread: cut the threads
            thread = 2 * max(1, round(STONES.disc_thread_r * radius)) + 1
            core = np.asarray(cv2.morphologyEx(core, cv2.MORPH_OPEN, cv2.getStructuringElement(
                cv2.MORPH_ELLIPSE, (thread, thread))), np.uint8)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(core, connectivity=8)
        for i in range(1, n):
            if stats[i, cv2.CC_STAT_AREA] > math.pi * (STONES.disc_core_r * radius) ** 2:
                continue  # a palm, a finger, two stones overlapping: not one stone
            if deeper and got[labels == i].any():
                continue  # a stone already cut out
            one = np.asarray(cv2.dilate((labels == i).astype(np.uint8) * 255, disc), np.uint8) & b.mask
            for p in _blobs(one, b.signed, min_area=lo * math.pi * radius ** 2):
                if p.round_single and p.area <= hi * math.pi * radius ** 2 and (not deeper or _sticks_out(p, b, colour)):
                    parts.append(p)
                    h, w = p.mask.shape
                    got[p.y0:p.y0 + h, p.x0:p.x0 + w] |= p.mask
    taken = np.zeros_like(b.mask)
    for p in parts:
        h, w = p.mask.shape
        taken[p.y0:p.y0 + h, p.x0:p.x0 + w] |= p.mask
        p.x0 += b.x0
        p.y0 += b.y0
        p.split = p.disc = True
    return parts, np.asarray(cv2.dilate(taken, _rim(radius)), np.uint8)


def _sticks_out(p: _Blob, b: _Blob, colour: npt.NDArray[np.float32]) -> bool:
    """A part (crop px of ``b``) has some of the stones' own colour and a stone's sharp edge to the felt.

    A disc the deeper erosion carves out of a fingertip has none of the
    stones' colour (a stone in the hand's shadow keeps its lit rim or
    highlight); one carved out of a blotch of the felt has the blotch around
    it, or at the blotch's edge a soft one.
    """
    near, far = STONES.edge_ring_px
    h, w = p.mask.shape
    part = np.zeros_like(b.mask)
    part[p.y0:p.y0 + h, p.x0:p.x0 + w] = p.mask
    theirs = _farthest_channel(b.signed, colour) < STONES.colour_tol
    if np.count_nonzero(theirs & (part > 0)) < STONES.disc_own * np.count_nonzero(part):
        return False
    ring = (cv2.dilate(part, np.ones((far, far), np.uint8)) > 0) & ~(cv2.dilate(part, np.ones((near, near), np.uint8)) > 0)
    free = ring & (cv2.dilate(b.mask, np.ones((near, near), np.uint8)) == 0)
    norm = float(np.linalg.norm(p.colour))
    if np.count_nonzero(free) < STONES.disc_free * np.count_nonzero(ring) or norm < 1e-6:
        return False
    s = b.signed @ (p.colour / norm)
    return float(np.median(s[free])) <= STONES.soft_edge * float(np.median(s[part > 0]))


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
    step = max(1, round(STONES.glare_step_mm * k))
    sw, sh = max(2, w // step), max(2, h // step)
    p = np.asarray(cv2.resize(image, (sw, sh), interpolation=cv2.INTER_AREA), np.float32)
    m = np.asarray(cv2.resize(felt_map, (sw, sh), interpolation=cv2.INTER_NEAREST), np.float32)  # it is smooth
    c = np.asarray(felt_colour, np.float64) + 1.0
    norm_f = float(np.linalg.norm(c))
    c /= norm_f
    cc, c1, lam = 1.0, float(c.sum()), STONES.glare_pull
    cp = cv2.transform(p, c.reshape(1, 3).astype(np.float32))
    p1 = cv2.transform(p, np.ones((1, 3), np.float32))
    det = cc * (3.0 + lam) - c1 * c1
    alpha = ((3.0 + lam) * cp - c1 * p1) / det
    white = (cc * p1 - c1 * cp) / det
    least_cells = math.pi * (STONES.glare_min_mm * k / step) ** 2
    if np.count_nonzero(white > STONES.glare_min) < least_cells:
        return image, felt_map, None  # too little white added anywhere for a glare as wide as one: most frames
    res = p - alpha[:, :, None] * c.astype(np.float32) - white[:, :, None]
    norm_m = np.sqrt(cv2.transform(m * m, np.ones((1, 3), np.float32)))
    r = np.sqrt(cv2.transform(res * res, np.ones((1, 3), np.float32))) / (norm_m + STONES.glare_noise)
    a_lo, a_hi = STONES.glare_alpha
    felt_like = ((r < STONES.glare_felt_res * colour_t) & (alpha > a_lo * norm_f) & (alpha < a_hi * norm_m)
                 & (white > STONES.glare_white_min * norm_m))
    if known is not None and cv2.countNonZero(known):
        felt_like &= cv2.resize(known, (sw, sh), interpolation=cv2.INTER_AREA) == 0
    # not the edge of anything (a white stone's edge is a blend of white and felt, like a glare)
    felt_like = cv2.erode(felt_like.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    # a glare is broad: white added over a wide patch of felt; a white stone's inside is a small island
    bright = (felt_like & (white > STONES.glare_min)).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(bright, connectivity=8)
    wide = stats[:, cv2.CC_STAT_AREA] >= least_cells
    wide[0] = False
    for i in np.flatnonzero(wide):  # and deep, its holes (stones in it) filled: a chain of white stones is not
        sx, sy, sw_i, sh_i = (int(v) for v in stats[i, :4])
        comp = np.zeros((sh_i + 2, sw_i + 2), np.uint8)
        comp[1:-1, 1:-1][labels[sy:sy + sh_i, sx:sx + sw_i] == i] = 255
        contours, _ = cv2.findContours(comp, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cv2.drawContours(comp, contours, -1, 255, -1)
        if float(cv2.distanceTransform(comp, cv2.DIST_L2, 3).max()) < STONES.glare_depth * STONES.glare_min_mm * k / step:
            wide[i] = False
    fade, pct, most = STONES.glare_fade
    for i in np.flatnonzero(wide):  # and it fades out: a hand or a sleeve is as white all over as at its middle
        w_i = white[labels == i]
        if np.count_nonzero(w_i > fade * float(np.percentile(w_i, pct))) > most * w_i.size:
            wide[i] = False
    if not wide.any():
        return image, felt_map, None  # no glare worth the name here
    felt_like &= ~(bright.astype(bool) & ~wide[labels])
    # what is grey (a black stone a glare turned grey, a white one) fits a glare as white with a little felt
    # (the pull keeps some felt in it): measured without the pull (only as much as the felt is grey: 3 - c1²
    # is 0 for grey felt) none of the felt's light is left in it, and it is no felt to fit the glare on.
    # Taken for felt it dragged the felt's light under it down, and the stone was no darker than that
    lam_m = max(0.0, lam - (3.0 - c1 * c1))
    det_m = cc * (3.0 + lam_m) - c1 * c1
    alpha_m = ((3.0 + lam_m) * cp - c1 * p1) / det_m
    white_m = (cc * p1 - c1 * cp) / det_m
    felt_like &= (alpha_m > a_lo * norm_f) & (alpha_m < a_hi * norm_m) & (white_m > STONES.glare_white_min * norm_m)
    # first from the felt that keeps no more of its colour than the felt model (a glare only takes it away):
    # a stone of nearly the felt's hue and lighter (white on grey felt, yellow on beige) fits the glare's
    # model as felt brighter than its model with little white, and as wide as it is it held the smoothed
    # fields near its own, so it was no outlier of them
    wgt = (felt_like & (alpha <= norm_m)).astype(np.float32)
    s = STONES.glare_smooth_mm * k / step
    den = cv2.GaussianBlur(wgt, (0, 0), s) + 1e-3
    w_s = cv2.GaussianBlur(white * wgt, (0, 0), s) / den
    a_s = cv2.GaussianBlur(alpha * wgt, (0, 0), s) / den
    # once more without what is far brighter or whiter than the felt around it (a stone of the felt's hue), or
    # far darker: where a black stone turned grey blends with the felt at its edge, the cells are the felt's
    # colour dimmed, and they held the felt under the glare down beside it, as dark as the stone
    a_scale, a_off, w_scale, w_off = STONES.glare_outlier
    wgt = (felt_like & (alpha < a_scale * a_s + a_off) & (white < w_scale * w_s + w_off)
           & (alpha > STONES.glare_dark_outlier * a_s)).astype(np.float32)
    den = cv2.GaussianBlur(wgt, (0, 0), s) + 1e-3
    w_s = cv2.GaussianBlur(white * wgt, (0, 0), s) / den
    a_s = cv2.GaussianBlur(alpha * wgt, (0, 0), s) / den
    a_full = cv2.resize(a_s, (w, h), interpolation=cv2.INTER_LINEAR)
    w_full = np.maximum(cv2.resize(w_s, (w, h), interpolation=cv2.INTER_LINEAR), 0.0)
    # only where a glare lies (white added well above the noise): elsewhere the image and felt as they are
    use_all = np.clip((w_full - STONES.glare_ramp * STONES.glare_min) / STONES.glare_min, 0.0, 1.0)
    # where use is 0 the image and the felt come out as they went in and amp is 1: the sums are taken in
    # the box around the glare only (the same values there)
    bx, by, bw, bh = cv2.boundingRect((use_all > 0).astype(np.uint8))
    out_img, felt_seen, amp = image.copy(), felt_map.copy(), np.ones((h, w), np.float32)
    if bw == 0 or bh == 0:
        return out_img, felt_seen, amp
    box = (slice(by, by + bh), slice(bx, bx + bw))
    use = use_all[box][:, :, None]
    img = image[box].astype(np.float32) - use * w_full[box][:, :, None]
    under = np.maximum(a_full[box], 1.0)[:, :, None] * c.astype(np.float32)
    fm = np.ascontiguousarray(felt_map[box])
    fs = np.asarray(fm + use * (under - fm), np.float32)
    # the noise is the same, the felt it is measured against darker: by this much louder
    floor = STONES.glare_amp_floor
    out_img[box] = np.asarray(np.clip(img + 0.5, 0, 255), np.uint8)
    felt_seen[box] = fs
    amp[box] = np.maximum((_norm3(fm) + floor) / (_norm3(fs) + floor), 1.0)
    return out_img, felt_seen, amp


def _norm3(values: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Each pixel's length over its three channels: numpy's norm(axis=2) to the bit, several times faster."""
    return np.asarray(cv2.sqrt(cv2.transform(cv2.multiply(values, values), np.ones((1, 3), np.float32))),
                      np.float32).reshape(values.shape[:2])


def _spread(values: npt.NDArray[np.float32]) -> float:
    """A robust standard deviation (of a blur's residue: slightly under the noise's, hence 1.2)."""
    return STONES.spread_blur * 1.4826 * float(median(np.abs(values - median(values))))


def _thresholds(rectified: Image, felt: Felt) -> tuple[float, float]:
    """Colour and brightness thresholds of a stone pixel, well above the felt's own spread."""
    noise_a, noise_dp = felt.contrast_noise(rectified)
    return (max(STONES.min_colour_t, STONES.noise_sigmas * noise_dp),
            max(STONES.min_light_t, STONES.noise_sigmas * noise_a))


def _not_stones(b: _Blob, radius: float, colour: npt.NDArray[np.float32], glared: Image) -> str | None:
    if b.touches_edge:
        return "too big for a stone"
    if b.depth > STONES.max_depth_r * radius:
        return "too big for a stone"
    if not b.split and _soft_edge(b) > STONES.soft_edge and not _under_glare(b, glared):
        return "no edge: a blotch of the felt"
    # the stones' colour against the felt (log ratios per channel): a patch of light scales it,
    # another thing (a hand, a glare) points elsewhere; a stone where a glare was taken off may
    # still be paler, but it is a stone's shape (elsewhere such a blob is a piece of a hand), and
    # not as pale as a haze of the glare left behind
    least_cos, least_strength = STONES.glared_colour
    plain_cos, plain_strength = STONES.paled_plain
    cos, strength = _cosine(b.colour, colour), float(np.linalg.norm(b.colour)) / max(float(np.linalg.norm(colour)), 1e-6)
    lo, hi = STONES.whole_area
    if not _same_colour(b.colour, colour) and not (
            _stone_shaped(b, radius) and cos >= least_cos and strength > least_strength
            and _under_glare(b, glared)) and not (
            # a glare too faint or too near the felt's colour to be taken off still pales a stone: one whole
            # round stone by itself, of the stones' hue
            not b.split and not b.disc and b.round_single and lo <= b.area / (math.pi * radius ** 2) <= hi
            and cos >= plain_cos and strength > plain_strength):
        if not (b.disc and _shaded(b.colour, colour)):
            return "not the stones' colour"
    return None


def _shaded(a: npt.NDArray[np.float32], colour: npt.NDArray[np.float32]) -> bool:
    """A colour (log ratios to the felt) that is the stones' made darker by a shadow: alike in every channel.

    A channel near black darkens less (the log's offset), hence the tolerance.
    """
    d = a - colour
    shade = float(np.mean(d))
    lo, hi, tol = STONES.shaded
    return lo <= shade <= hi and float(np.abs(d - shade).max()) < tol


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
    near, far = STONES.edge_ring_px
    ring = (cv2.dilate(b.mask, np.ones((far, far), np.uint8)) > 0) & ~(cv2.dilate(b.mask, np.ones((near, near), np.uint8)) > 0)
    inside = b.mask > 0
    if not ring.any() or not inside.any():
        return 0.0
    return float(median(s[ring])) / max(float(median(s[inside])), 1e-6)


def _deep_shadow(signed: npt.NDArray[np.float32], colour: npt.NDArray[np.float32],
                 only_dark: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """What only its darkness made a stone pixel and is not of the stones' hue: a deep shadow.

    A stone in a shadow is the stones' colour made darker: its log ratios to
    the felt are the stones' shifted alike in every channel. A shadow beside a
    red stone darkens the felt in every channel alike, which the stones' hue
    is not.
    """
    out = np.zeros(only_dark.shape, bool)
    ys, xs = np.nonzero(only_dark)
    if len(ys):
        d = signed[ys, xs] - colour
        hue_off = np.abs(d - d.mean(axis=1, keepdims=True)).max(axis=1)
        out[ys, xs] = hue_off >= STONES.colour_tol
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
    return _share(glared, b) > STONES.under_glare


def _cosine(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32]) -> float:
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    return float(np.dot(a, b)) / (na * nb) if na > 1e-6 and nb > 1e-6 else 0.0


def _stone_shaped(b: _Blob, radius: float) -> bool:
    """One round stone of the frame's size, or a few touching (with the notches that leaves)."""
    n = b.area / (math.pi * radius ** 2)
    solidity = b.area / max(b.hull_area, 1e-6)
    lo, hi = STONES.whole_area
    if b.round_single and lo <= n <= hi:
        return True
    n_lo, n_hi, d_lo, d_hi, s_lo, s_hi = STONES.touching_shape
    return n_lo <= n <= n_hi and d_lo * radius <= b.depth <= d_hi * radius and s_lo <= solidity <= s_hi


def _same_colour(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32]) -> bool:
    """Two colours against the felt (log ratios) alike in direction and not too unlike in strength."""
    near, least_cos, lo, hi = STONES.same_colour
    if float(np.abs(a - b).max()) <= near:
        return True
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    return _cosine(a, b) >= least_cos and lo <= na / max(nb, 1e-6) <= hi


def _covers(mask: Image, ox: int, oy: int, k: float, mat: Mat, radius: float) -> tuple[Zone, ...]:
    """The pool and stone zones a large refused blob (a hand, a sleeve) lies over, where it could hide a stone.

    ``mask`` (255: the blob) has its origin at (ox, oy) rectified px. A zone is covered where a stone's
    area or more of the blob lies in it and the blob is thick enough there to hide a stone's middle.
    Stones under it cannot be seen: the count there is what shows, and the reading says so.
    """
    opened = np.asarray(cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (2 * max(1, round(STONES.cover_thick_r * radius)) + 1,) * 2)), np.uint8)
    ys, xs = np.nonzero(opened)
    x = (xs + ox + 0.5) / k
    y = (ys + oy + 0.5) / k
    least = STONES.cover_least * math.pi * radius ** 2
    cx, cy = mat.centre
    out = []
    if np.count_nonzero((x - cx) ** 2 + (y - cy) ** 2 <= mat.pool_radius ** 2) >= least:
        out.append(Zone.POOL)
    for seat in range(4):
        zx0, zy0, zx1, zy1 = mat.stone_zone(seat)
        if np.count_nonzero((x >= zx0) & (x <= zx1) & (y >= zy0) & (y <= zy1)) >= least:
            out.append(Zone.stones(seat))
    return tuple(out)


def _rejected(b: _Blob, k: float, mat: Mat, why: str, covers: tuple[Zone, ...] = ()) -> Rejected:
    bx, by, bw, bh = cv2.boundingRect(b.mask)  # of its pixels
    x0, x1 = (b.x0 + bx) / k, (b.x0 + bx + bw) / k
    y0, y1 = (b.y0 + by) / k, (b.y0 + by + bh) / k
    return Rejected(mat.zone_at((x0 + x1) / 2, (y0 + y1) / 2),
                    (int(x0), int(y0), int(math.ceil(x1)), int(math.ceil(y1))), why, covers)


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
