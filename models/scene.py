"""Realistic overhead scenes of the mat: the one renderer for training, tests and the demo table.

A scene is described by a :class:`SceneSpec` (what lies on the mat, how the
camera sees it, the light) and drawn by :func:`render_scene`, which also
returns the truth: where every card, marker and stone lands in the image.
:func:`random_scene` draws a spec with the hard variety (tilt, any rotation,
warm or cold uneven light, shadows, glare, blur, noise, JPEG).

The mat is first drawn from above at a few px per mm (felt, markers, zone
outlines, card shadows, cards, stones, a hand), then seen through a pinhole
camera (a homography), then lit, blurred, noised and JPEG-compressed.

>>> import numpy as np
>>> rng = np.random.default_rng(1)
>>> scene = render_scene(random_scene(rng, px_per_mm=1.2, rotation_deg=0.0), rng)
>>> scene.image.dtype, len(scene.truth_cards)
(dtype('uint8'), 4)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from models.deck import HELD_OUT_STYLES, DeckStyle, deck_faces, random_style
from table.cards import DECK, Card
from vision.learnt import learning_cards
from vision.mat import MARKER_IDS, MARKER_MM, Mat, aruco_dictionary, quarter_turn

Image = npt.NDArray[np.uint8]
BGR = tuple[int, int, int]
Point = tuple[float, float]

EXTRA_KINDS = ("phone", "lighter", "napkin")
"""Non-card objects that may lie in a card zone."""

DEFAULT_STYLE = HELD_OUT_STYLES["clasica"]
"""The deck of a spec that names none: a style the model never saw in training."""


@dataclass(frozen=True)
class CardPlacement:
    """Where one card lies: its centre in mat mm and the turn of its top, in degrees.

    ``angle_deg`` 0 is upright as seen from seat 0 (portrait); positive turns
    clockwise as seen from above (image convention, y down).
    """

    centre: Point
    angle_deg: float


@dataclass(frozen=True)
class Extra:
    """A non-card object in a seat's card zone: ``kind`` is one of :data:`EXTRA_KINDS`."""

    kind: str
    seat: int


@dataclass(frozen=True)
class SceneSpec:
    """Everything a scene shows. Colours are BGR; lengths are mat millimetres."""

    cards: Sequence[Sequence[Card]] = ((), (), (), ())
    placements: Sequence[Sequence[CardPlacement]] | None = None
    """Per seat, one placement per card; None lets :func:`render_scene` place them."""
    across_prob: float = 0.8
    """Chance that a card lies across the seat's edge (portrait to its player) when placed at random."""
    max_turn_deg: float = 20.0
    upside_down_prob: float = 0.5
    deck: DeckStyle | Mapping[Card, Image] = DEFAULT_STYLE
    card_width_mm: float = 61.5
    """Width of a card drawn from a deck of face images (a style gives its own size)."""
    pool_stones: int = 0
    seat_stones: Sequence[int] = (0, 0, 0, 0)
    stone_mm: float = 22.0
    stone_colour: BGR | None = None
    """None picks a colour that stands out from the felt."""
    touching: float = 0.3
    """Chance that each stone is laid touching one already placed."""
    felt: BGR = (40, 110, 30)
    table: BGR = (50, 80, 120)
    felt_margin_mm: float = 30.0
    quiet_mm: float = 12.0
    zone_outlines: bool = True
    mat_side: float = 800.0
    px_per_mm: float = 1.5
    distance_mm: float = 1100.0
    tilt_deg: float = 0.0
    tilt_dir_deg: float = 0.0
    rotation_deg: float = 0.0
    frame: tuple[int, int] | None = None
    """Output (width, height); None fits the play area with ``frame_margin`` around."""
    frame_margin: float = 0.05
    kelvin: float = 4500.0
    gradient: float = 0.0
    shadows: int = 0
    glare: float = 0.0
    glare_at: Point | None = None
    blur: float = 0.0
    noise: float = 0.0
    jpeg_quality: int = 95
    hidden_markers: Sequence[int] = ()
    extras: Sequence[Extra] = ()
    hand_over_pool: bool = False

    def __post_init__(self) -> None:
        cards = tuple(tuple(seat) for seat in self.cards)
        if len(cards) != 4:
            raise ValueError("cards must list the four seats")
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "seat_stones", tuple(int(n) for n in self.seat_stones))
        object.__setattr__(self, "hidden_markers", tuple(int(m) for m in self.hidden_markers))
        object.__setattr__(self, "extras", tuple(self.extras))
        if self.placements is not None:
            pl = tuple(tuple(seat) for seat in self.placements)
            if [len(s) for s in pl] != [len(s) for s in cards]:
                raise ValueError("placements must give one placement per card")
            object.__setattr__(self, "placements", pl)

    @property
    def mat(self) -> Mat:
        return Mat(self.mat_side)

    @property
    def card_mm(self) -> tuple[float, float]:
        if isinstance(self.deck, DeckStyle):
            return self.deck.card_mm
        face = next(iter(self.deck.values()))
        return (self.card_width_mm, self.card_width_mm * face.shape[0] / face.shape[1])


@dataclass(frozen=True)
class CardTruth:
    """A card as drawn: quads are the face's top-left, top-right, bottom-right, bottom-left corners."""

    card: Card
    seat: int
    quad_image: npt.NDArray[np.float32]
    quad_mat: npt.NDArray[np.float32]


@dataclass(frozen=True)
class StoneTruth:
    zone: str
    centre_mat: Point
    centre_image: Point
    diameter_mm: float
    under_hand: bool
    visible: float = 1.0
    """The share of the stone's face a hand leaves in view (1: no hand over it)."""


@dataclass(frozen=True)
class ExtraTruth:
    kind: str
    seat: int
    quad_image: npt.NDArray[np.float32]


@dataclass(frozen=True)
class RenderedScene:
    image: Image
    mat_to_image: npt.NDArray[np.float64]
    """3x3 homography from mat millimetres to image pixels (pixel centres at integers)."""
    cards: list[CardTruth]
    stones: dict[str, Any]
    """``{"pool": n, "seats": [n0, n1, n2, n3]}``: the stones lying in each zone."""
    stone_truth: list[StoneTruth]
    truth_cards: list[list[str]]
    hidden_markers: tuple[int, ...]
    extras: list[ExtraTruth]
    spec: SceneSpec = field(repr=False)

    def marker_corners_image(self, marker_id: int) -> npt.NDArray[np.float32]:
        """Where a marker's four corners (OpenCV order) land in the image."""
        return project(self.mat_to_image, self.spec.mat.marker_corners(marker_id))


def project(h: npt.NDArray[np.float64], pts: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """Apply a homography to (N, 2) points."""
    p = np.asarray(pts, np.float64).reshape(-1, 1, 2)
    return np.asarray(cv2.perspectiveTransform(p, h).reshape(-1, 2), np.float32)


# ---------------------------------------------------------------- random specs

_FELTS: list[BGR] = [(40, 110, 30), (35, 90, 20), (110, 60, 20), (30, 30, 130), (60, 60, 60),
                     (25, 25, 25), (150, 170, 185), (80, 40, 90), (120, 120, 40), (20, 60, 90)]
_STONES: list[BGR] = [(30, 30, 200), (230, 230, 230), (20, 20, 20), (0, 200, 250), (200, 120, 30),
                      (40, 180, 40), (120, 30, 140), (60, 140, 220), (180, 200, 60), (20, 60, 160)]


def contrasting_colour(felt: BGR, rng: np.random.Generator) -> BGR:
    """A stone colour that stands out from the felt (far from it in Lab)."""
    lab = cv2.cvtColor(np.uint8([[felt]]), cv2.COLOR_BGR2LAB)[0, 0].astype(float)
    cands = [c for c in _STONES
             if np.linalg.norm(cv2.cvtColor(np.uint8([[c]]), cv2.COLOR_BGR2LAB)[0, 0].astype(float) - lab) > 70]
    return cands[int(rng.integers(len(cands)))] if cands else (255, 255, 255)


def random_cards(rng: np.random.Generator, full: bool = True) -> tuple[tuple[Card, ...], ...]:
    """Cards of distinct ranks and suits dealt to four seats (4 each when ``full``, else 0-4)."""
    order = rng.permutation(len(DECK))
    counts = [4, 4, 4, 4] if full else [int(rng.integers(0, 5)) for _ in range(4)]
    out, k = [], 0
    for n in counts:
        out.append(tuple(DECK[int(i)] for i in order[k:k + n]))
        k += n
    return tuple(out)


def random_scene(rng: np.random.Generator, **overrides: Any) -> SceneSpec:
    """A spec with the hard variety drawn at random; any field may be fixed by keyword.

    By default the deck is a random style (the training distribution); pass
    ``deck=HELD_OUT_STYLES["clasica"]`` for a style the model never saw.
    """
    names = {f.name for f in fields(SceneSpec)}
    unknown = set(overrides) - names
    if unknown:
        raise TypeError(f"SceneSpec has no field {sorted(unknown)[0]!r}")
    felt = _FELTS[int(rng.integers(len(_FELTS)))]
    felt = tuple(int(v) for v in np.clip(np.asarray(felt) + rng.normal(0, 12, 3), 0, 255))  # type: ignore[assignment]
    hidden: tuple[int, ...] = ()
    if rng.random() < 0.1:
        hidden = (int(rng.integers(4)),)
    extras: tuple[Extra, ...] = ()
    cards = random_cards(rng, full=rng.random() < 0.75)
    stone_mm = float(rng.uniform(15, 30))
    if rng.random() < 0.15:
        free = [s for s in range(4) if len(cards[s]) < 4]
        if free:
            extras = (Extra(EXTRA_KINDS[int(rng.integers(3))], free[int(rng.integers(len(free)))]),)
    spec = SceneSpec(
        cards=cards,
        across_prob=float(rng.uniform(0.5, 1.0)),
        max_turn_deg=20.0,
        deck=random_style(rng),
        pool_stones=int(rng.integers(0, min(24, max_stones("pool", stone_mm)) + 1)),
        seat_stones=tuple(int(rng.integers(0, min(8, max_stones("seat", stone_mm)) + 1)) for _ in range(4)),
        stone_mm=stone_mm,
        stone_colour=contrasting_colour(felt, rng),  # type: ignore[arg-type]
        touching=float(rng.uniform(0, 0.6)),
        felt=felt,  # type: ignore[arg-type]
        table=tuple(int(v) for v in rng.integers(20, 200, 3)),  # type: ignore[arg-type]
        felt_margin_mm=float(rng.uniform(15, 60)),
        quiet_mm=float(rng.uniform(10, 16)),
        zone_outlines=bool(rng.random() < 0.5),
        px_per_mm=float(rng.uniform(1.2, 1.8)),
        distance_mm=float(rng.uniform(800, 1500)),
        tilt_deg=float(rng.uniform(0, 15)),
        tilt_dir_deg=float(rng.uniform(0, 360)),
        rotation_deg=float(rng.uniform(0, 360)),
        frame_margin=float(rng.uniform(0.02, 0.1)),
        kelvin=float(rng.uniform(2700, 6500)),
        gradient=float(rng.uniform(0, 0.5)),
        shadows=int(rng.integers(0, 3)),
        glare=float(rng.uniform(0.3, 0.9)) if rng.random() < 0.3 else 0.0,
        blur=float(rng.uniform(0, 1.2)),
        noise=float(rng.uniform(0, 6)),
        jpeg_quality=int(rng.integers(55, 96)),
        hidden_markers=hidden,
        extras=extras,
        hand_over_pool=bool(rng.random() < 0.1),
    )
    return replace(spec, **overrides)


# ---------------------------------------------------------------- placing cards and stones

def _seat_rotation(seat: int) -> float:
    """The turn (degrees, image convention) that makes a card upright for ``seat``."""
    return -90.0 * seat


def card_corners(place: CardPlacement, size: tuple[float, float]) -> npt.NDArray[np.float64]:
    """The four corners (face TL, TR, BR, BL) of a card of ``size`` mm lying at ``place``."""
    w, h = size
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    a = math.radians(place.angle_deg)
    r = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return np.asarray(local @ r.T + np.asarray(place.centre), np.float64)


def place_row(sizes: Sequence[tuple[float, float]], seat: int, mat: Mat, rng: np.random.Generator,
              across_prob: float = 0.8, max_turn_deg: float = 20.0,
              upside_down_prob: float = 0.5, min_gap_mm: float = 5.0) -> list[CardPlacement]:
    """Lay items of the given (width, height) in a seat's card zone, not overlapping.

    Items go in a row along the seat's edge, each across it (portrait to the
    player) or along it, turned up to ``max_turn_deg``, centres inside the
    zone; none reaches into a stone zone or off the mat.
    """
    x0, y0, x1, y1 = mat.card_zone(0)
    lo = mat.stone_zone(3)[2] + 2.0
    hi = mat.stone_zone(0)[0] - 2.0
    ylo, yhi = mat.stone_zone(0)[1] - 15.0, mat.side - 8.0
    for attempt in range(60):
        shrink = max(0.0, 1.0 - attempt / 30)
        angles, ext = [], []
        for w, h in sizes:
            across = rng.random() < across_prob if attempt < 40 else True
            turn = rng.uniform(-max_turn_deg, max_turn_deg) * shrink
            ang = (0.0 if across else 90.0) + turn + (180.0 if rng.random() < upside_down_prob else 0.0)
            a = math.radians(ang)
            ext.append((abs(w * math.cos(a)) + abs(h * math.sin(a)), abs(w * math.sin(a)) + abs(h * math.cos(a))))
            angles.append(ang)
        total = sum(e[0] for e in ext) + min_gap_mm * max(0, len(sizes) - 1)
        if total > hi - lo or any(e[1] > yhi - ylo for e in ext):
            continue
        slack = (hi - lo) - total
        parts = rng.dirichlet(np.ones(len(sizes) + 1)) * slack
        xs, pos, ok = [], lo, True
        for i, (ex, _) in enumerate(ext):
            pos += parts[i]
            c = pos + ex / 2
            if not x0 <= c <= x1:
                ok = False
            xs.append(c)
            pos += ex + min_gap_mm
        if not ok:
            continue
        out = []
        for (_ex, ey), cx, ang in zip(ext, xs, angles, strict=True):
            cy_lo, cy_hi = max(y0, ylo + ey / 2), min(y1, yhi - ey / 2)
            if cy_lo > cy_hi:
                ok = False
                break
            cy = rng.uniform(cy_lo, cy_hi)
            c = quarter_turn(cx, cy, seat, mat.side / 2)
            out.append(CardPlacement((float(c[0]), float(c[1])), float(ang + _seat_rotation(seat))))
        if ok:
            return out
    raise ValueError(f"cannot lay {len(sizes)} items of these sizes in seat {seat}'s card zone")


_EXTRA_MM = {"phone": (72.0, 148.0), "lighter": (24.0, 78.0), "napkin": (105.0, 105.0)}


def _place_stones(spec: SceneSpec, rng: np.random.Generator) -> list[tuple[str, float, float, float]]:
    """Stone (zone, x, y, diameter) in mat mm: inside their zones, never stacked, some touching."""
    mat = spec.mat
    out: list[tuple[str, float, float, float]] = []
    zones: list[tuple[str, int]] = [("pool", spec.pool_stones)]
    zones += [(f"seat {s} stones", n) for s, n in enumerate(spec.seat_stones)]
    for zone, n in zones:
        placed: list[tuple[float, float, float]] = []
        for _ in range(n):
            d = spec.stone_mm * rng.uniform(0.97, 1.03)
            r = d / 2
            for _try in range(400):
                if placed and rng.random() < spec.touching:
                    px, py, pr = placed[int(rng.integers(len(placed)))]
                    a = rng.uniform(0, 2 * math.pi)
                    x, y = px + (pr + r + 0.2) * math.cos(a), py + (pr + r + 0.2) * math.sin(a)
                elif zone == "pool":
                    a, rr = rng.uniform(0, 2 * math.pi), (mat.pool_radius - r) * math.sqrt(rng.random())
                    x, y = mat.centre[0] + rr * math.cos(a), mat.centre[1] + rr * math.sin(a)
                else:
                    zx0, zy0, zx1, zy1 = mat.stone_zone(int(zone.split()[1]))
                    x, y = rng.uniform(zx0 + r, zx1 - r), rng.uniform(zy0 + r, zy1 - r)
                if zone == "pool":
                    inside = math.hypot(x - mat.centre[0], y - mat.centre[1]) <= mat.pool_radius - r * 0.6
                else:
                    zx0, zy0, zx1, zy1 = mat.stone_zone(int(zone.split()[1]))
                    inside = zx0 + r * 0.6 <= x <= zx1 - r * 0.6 and zy0 + r * 0.6 <= y <= zy1 - r * 0.6
                if inside and all(math.hypot(x - qx, y - qy) >= r + qr + 0.15 for qx, qy, qr in placed):
                    placed.append((x, y, r))
                    break
            else:  # crowded: try every free spot on a fine grid before giving up
                spot = _free_spot(mat, zone, r, placed, rng)
                if spot is None:
                    raise ValueError(f"cannot lay {n} stones of {spec.stone_mm:.0f} mm in {zone}")
                placed.append((spot[0], spot[1], r))
        out += [(zone, x, y, 2 * r) for x, y, r in placed]
    return out


def _free_spot(mat: Mat, zone: str, r: float, placed: list[tuple[float, float, float]],
               rng: np.random.Generator) -> Point | None:
    if zone == "pool":
        c, R = mat.centre, mat.pool_radius - r * 0.6
        x0, y0, x1, y1 = c[0] - R, c[1] - R, c[0] + R, c[1] + R
    else:
        zx0, zy0, zx1, zy1 = mat.stone_zone(int(zone.split()[1]))
        x0, y0, x1, y1 = zx0 + r * 0.6, zy0 + r * 0.6, zx1 - r * 0.6, zy1 - r * 0.6
    xs, ys = np.meshgrid(np.arange(x0, x1, 1.0), np.arange(y0, y1, 1.0))
    pts = np.stack([xs.ravel(), ys.ravel()], 1)
    if zone == "pool":
        pts = pts[np.hypot(pts[:, 0] - mat.centre[0], pts[:, 1] - mat.centre[1]) <= mat.pool_radius - r * 0.6]
    for qx, qy, qr in placed:
        pts = pts[np.hypot(pts[:, 0] - qx, pts[:, 1] - qy) >= r + qr + 0.15]
    if len(pts) == 0:
        return None
    p = pts[int(rng.integers(len(pts)))]
    return (float(p[0]), float(p[1]))


def max_stones(zone: str, stone_mm: float) -> int:
    """How many stones of this size :func:`random_scene` may put in a zone (they always fit)."""
    if zone == "pool":
        return int(0.35 * (2 * 110.0 / stone_mm) ** 2)
    return int(0.4 * (120.0 / stone_mm) ** 2)


# ---------------------------------------------------------------- the camera

def camera_homography(spec: SceneSpec) -> tuple[npt.NDArray[np.float64], tuple[int, int]]:
    """Mat mm -> image px for a pinhole camera over the mat centre, and the frame size."""
    mat = spec.mat
    cx, cy = mat.centre
    ry = math.radians(spec.rotation_deg)
    rz = np.array([[math.cos(ry), -math.sin(ry), 0], [math.sin(ry), math.cos(ry), 0], [0, 0, 1]])
    t = math.radians(spec.tilt_deg)
    ax = np.array([math.cos(math.radians(spec.tilt_dir_deg)), math.sin(math.radians(spec.tilt_dir_deg)), 0.0])
    rt, _ = cv2.Rodrigues(ax * t)
    r = rz @ rt  # world (x right, y down, z into the table) -> camera
    d = spec.distance_mm
    cam = -d * (r.T @ np.array([0.0, 0.0, 1.0]))  # camera centre, looking at the mat centre
    tvec = -r @ cam
    f = spec.px_per_mm * d
    k = np.array([[f, 0, 0], [0, f, 0], [0, 0, 1]])
    shift = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]])
    h = k @ np.column_stack([r[:, 0], r[:, 1], tvec]) @ shift
    s = mat.side
    q = spec.quiet_mm
    corners = project(h, [(-q, -q), (s + q, -q), (s + q, s + q), (-q, s + q)])
    lo, hi = corners.min(axis=0), corners.max(axis=0)
    if spec.frame is None:
        pad = (hi - lo) * spec.frame_margin
        size = (int(math.ceil(hi[0] - lo[0] + 2 * pad[0])), int(math.ceil(hi[1] - lo[1] + 2 * pad[1])))
        off = -lo + pad
    else:
        size = (int(spec.frame[0]), int(spec.frame[1]))
        off = np.array(size, float) / 2 - (lo + hi) / 2
    h = np.array([[1, 0, off[0]], [0, 1, off[1]], [0, 0, 1]]) @ h
    return h / h[2, 2], size


# ---------------------------------------------------------------- drawing

def _lowres_noise(rng: np.random.Generator, shape: tuple[int, int], cells: int, amp: float) -> npt.NDArray[np.float32]:
    small = rng.normal(0, amp, (cells, cells)).astype(np.float32)
    return np.asarray(cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC), np.float32)


def _rounded_mask(w: int, h: int, radius: float) -> Image:
    m = np.zeros((h, w), np.uint8)
    r = max(1, int(radius))
    cv2.rectangle(m, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(m, (0, r), (w - 1, h - 1 - r), 255, -1)
    for x, y in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(m, (x, y), r, 255, -1, cv2.LINE_AA)
    return m


def _paste(canvas: Image, src: Image, mask: Image, dst_quad: npt.NDArray[np.float64]) -> None:
    """Warp ``src`` (with ``mask``) so its corners TL, TR, BR, BL land on ``dst_quad`` (canvas px)."""
    h, w = src.shape[:2]
    x0, y0 = np.floor(dst_quad.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(dst_quad.max(axis=0)).astype(int) + 3
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, canvas.shape[1]), min(y1, canvas.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    srcq = np.float32([[-0.5, -0.5], [w - 0.5, -0.5], [w - 0.5, h - 0.5]])
    m = cv2.getAffineTransform(srcq, np.float32(dst_quad[:3] - [x0, y0]))
    size = (int(x1 - x0), int(y1 - y0))
    warped = cv2.warpAffine(src, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    a = cv2.warpAffine(mask, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    roi = canvas[y0:y1, x0:x1]
    af = (a.astype(np.float32) / 255.0)[:, :, None]
    roi[:] = (roi * (1 - af) + warped * af).astype(np.uint8)


def _marker(marker_id: int, px: int) -> Image:
    return np.asarray(cv2.aruco.generateImageMarker(aruco_dictionary(), marker_id, px), np.uint8)


def _hand_polys(centre: Point, angle: float, rng: np.random.Generator) -> list[npt.NDArray[np.float64]]:
    """A hand (palm, four fingers, thumb) and its forearm, in mat mm; ``angle`` points to the fingers."""
    a = math.radians(angle)
    fwd, side = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    c = np.asarray(centre)
    polys = []
    t = np.linspace(0, 2 * math.pi, 24, endpoint=False)
    palm = c + np.outer(np.cos(t) * 48, fwd) + np.outer(np.sin(t) * 42, side)
    polys.append(palm)
    for i, off in enumerate((-27.0, -9.0, 9.0, 27.0)):
        length = rng.uniform(55, 75) * (0.8 if i in (0,) else 1.0)
        base = c + fwd * 35 + side * off
        tip = base + fwd * length + side * rng.uniform(-6, 6)
        n = np.array([-(tip - base)[1], (tip - base)[0]])
        n = n / np.linalg.norm(n) * 8.5
        polys.append(np.array([base - n, tip - n * 0.8, tip + n * 0.8, base + n]))
    tb = c + side * 40
    tt = tb + fwd * 40 + side * 30
    n = np.array([-(tt - tb)[1], (tt - tb)[0]])
    n = n / np.linalg.norm(n) * 10
    polys.append(np.array([tb - n, tt - n, tt + n, tb + n]))
    arm0, arm1 = c - fwd * 30, c - fwd * 95  # the arm, lifted, fades out of the picture
    polys.append(np.array([arm0 - side * 40, arm1 - side * 50, arm1 + side * 50, arm0 + side * 40]))
    return polys


@dataclass(frozen=True)
class RenderParams:
    """The renderer's fixed numbers, named (lengths in mat mm, colours BGR, shares in 0-1).

    They were tuned by eye and by the reader's figures (``docs/decisions-models.md``);
    changing one changes every rendered scene, so the model's training data too.
    """

    canvas_oversample: float = 1.15
    """The mat is drawn from above at this many times the camera's px per mm (rounded to 0.1, ≥ 1)."""
    canvas_margin_mm: float = 70.0
    """Room drawn around the play area (felt margin, table)."""
    felt_texture: tuple[tuple[int, float], ...] = ((12, 10.0), (40, 4.0))
    """Low-resolution noise added to table and felt: (cells across, amplitude in grey levels)."""
    felt_texture_scale: int = 8
    """The felt is drawn this many times smaller, then scaled up (fast, and smooth)."""
    felt_edge_shade: float = 0.8
    """The felt's edge line, as a share of the felt's colour."""
    outline_white: float = 0.3
    """Zone outlines: the felt's colour mixed with this share of white."""
    outline_width_mm: float = 1.2
    quiet_zone_grey: int = 235
    shadow_offset_mm: tuple[float, float] = (1.5, 2.0)
    shadow_jitter_mm: float = 2.5
    shadow_card: int = 150
    shadow_object: int = 170
    shadow_stone: int = 140
    shadow_stone_offset: float = 0.6
    """Stones are flat: their shadow falls this share of a card's offset."""
    shadow_blur_mm: float = 2.0
    shadow_strength: float = 0.6
    card_corner_mm: float = 3.0
    card_brightness: tuple[float, float] = (0.9, 1.05)
    phone_body: BGR = (25, 25, 25)
    phone_screen_inset_mm: tuple[float, float] = (3.0, 10.0)
    phone_screen_grey: tuple[int, int] = (30, 120)
    phone_corner_mm: float = 8.0
    lighter_cap_mm: float = 12.0
    lighter_cap: BGR = (180, 180, 180)
    lighter_corner_mm: float = 4.0
    napkin_paper: BGR = (238, 240, 242)
    napkin_creases: int = 6
    napkin_crease: BGR = (200, 205, 210)
    napkin_points: int = 9
    napkin_radius: tuple[float, float] = (0.38, 0.5)
    """The napkin's outline: its radius at each point, as a share of its size."""
    stone_rim: float = 0.6
    stone_face: float = 0.88
    stone_highlight_gain: tuple[float, float] = (1.15, 20.0)
    stone_highlight_offset: float = 0.25
    stone_highlight_size: float = 0.3
    hand_turn_deg: float = 10.0
    """The hand comes along a diagonal, turned at most this much."""
    hand_distance_mm: tuple[float, float] = (25.0, 65.0)
    hand_skin: tuple[tuple[float, float], tuple[float, float], tuple[float, float]] = (
        (90.0, 170.0), (120.0, 190.0), (170.0, 240.0))
    hand_shadow_mm: tuple[float, float] = (12.0, 9.0)
    hand_shadow_blur_mm: float = 8.0
    hand_shadow_divisor: float = 500.0
    """The hand's shadow darkens by its blurred mask (0-255) over this."""
    hand_edge_blur_mm: float = 0.8
    hand_shade: tuple[float, float] = (0.85, 0.15)
    """Skin brightness: base plus this share of low-resolution noise."""
    hand_shade_cells: int = 6
    cover_jitter_mm: float = 3.0
    cover_disc_mm: tuple[float, float] = (42.0, 52.0)
    cover_box_half_mm: tuple[float, float] = (38.0, 46.0)
    cover_grey: tuple[int, int] = (20, 230)
    table_beyond_shade: float = 0.8
    """What the camera sees beyond the drawn table: its colour times this."""


RENDER = RenderParams()
"""The parameters every scene is rendered with."""


@dataclass
class _Canvas:
    """The mat drawn from above: an image, its px per mm, and the mm -> px transform."""

    k: float
    margin: float
    n: int
    t: npt.NDArray[np.float64]
    image: Image = field(default_factory=lambda: np.zeros((1, 1, 3), np.uint8))

    @classmethod
    def for_spec(cls, spec: SceneSpec, p: RenderParams) -> _Canvas:
        k = max(1.0, round(spec.px_per_mm * p.canvas_oversample, 1))
        m = p.canvas_margin_mm
        t = np.array([[k, 0, m * k - 0.5], [0, k, m * k - 0.5], [0, 0, 1]])
        return cls(k, m, int(round((spec.mat.side + 2 * m) * k)), t)

    def cv(self, pts: npt.ArrayLike) -> npt.NDArray[np.float64]:
        return np.asarray(project(self.t, pts), np.float64)

    def ipt(self, pt: Point) -> tuple[int, int]:
        q = self.cv([pt])[0]
        return (int(round(q[0])), int(round(q[1])))


def _draw_felt(c: _Canvas, spec: SceneSpec, rng: np.random.Generator, p: RenderParams) -> None:
    """Table and felt with a little texture, and the felt's edge."""
    s, k, n = spec.mat.side, c.k, c.n
    sc = p.felt_texture_scale
    small = max(8, n // sc)
    base = np.empty((small, small, 3), np.float32)
    base[:] = spec.table
    fm = spec.felt_margin_mm
    f0 = int(round((c.margin - fm) * k / sc))
    f1 = int(round((c.margin + s + fm) * k / sc))
    base[f0:f1, f0:f1] = spec.felt
    texture = _lowres_noise(rng, (small, small), *p.felt_texture[0])
    for cells, amp in p.felt_texture[1:]:
        texture = texture + _lowres_noise(rng, (small, small), cells, amp)
    base += texture[:, :, None]
    c.image = cv2.resize(np.clip(base, 0, 255).astype(np.uint8), (n, n), interpolation=cv2.INTER_LINEAR)
    e0, e1 = c.ipt((-fm, -fm)), c.ipt((s + fm, s + fm))
    edge = tuple(int(v) for v in np.clip(np.asarray(spec.felt, float) * p.felt_edge_shade, 0, 255))
    cv2.rectangle(c.image, e0, e1, edge, max(1, int(k)), cv2.LINE_AA)


def _draw_zone_outlines(c: _Canvas, spec: SceneSpec, p: RenderParams) -> None:
    mat = spec.mat
    w = p.outline_white
    col = tuple(int(v) for v in np.clip(np.asarray(spec.felt, float) * (1 - w) + 255 * w, 0, 255))
    lw = max(1, int(round(p.outline_width_mm * c.k)))
    for seat in range(4):
        for r in (mat.card_zone(seat), mat.stone_zone(seat)):
            cv2.rectangle(c.image, c.ipt((r[0], r[1])), c.ipt((r[2], r[3])), col, lw, cv2.LINE_AA)
    cv2.circle(c.image, c.ipt(mat.centre), int(round(mat.pool_radius * c.k)), col, lw, cv2.LINE_AA)


def _draw_markers(c: _Canvas, spec: SceneSpec, p: RenderParams) -> None:
    """The four markers, each on its white quiet zone."""
    q, k = spec.quiet_mm, c.k
    mpx = int(round(MARKER_MM * k))
    grey = p.quiet_zone_grey
    for mid in MARKER_IDS:
        x0, y0 = spec.mat.marker_corners(mid)[0]
        cv2.rectangle(c.image, c.ipt((x0 - q, y0 - q)), c.ipt((x0 + MARKER_MM + q, y0 + MARKER_MM + q)),
                      (grey, grey, grey), -1)
        mk = cv2.cvtColor(_marker(mid, mpx), cv2.COLOR_GRAY2BGR)
        ex, ey = (x0 + c.margin) * k, (y0 + c.margin) * k  # pixel edges
        _paste(c.image, mk, np.full(mk.shape[:2], 255, np.uint8),
               np.array([[ex - 0.5, ey - 0.5], [ex + mpx - 0.5, ey - 0.5], [ex + mpx - 0.5, ey + mpx - 0.5]]))


def _lay_out(spec: SceneSpec, rng: np.random.Generator
             ) -> tuple[list[list[CardPlacement]], list[tuple[Extra, CardPlacement]]]:
    """Where each seat's cards lie (the spec's placements, or a random row) and where the extras lie."""
    mat, card_size = spec.mat, spec.card_mm
    placements: list[list[CardPlacement]] = []
    extra_places: list[tuple[Extra, CardPlacement]] = []
    for seat in range(4):
        seat_extras = [e for e in spec.extras if e.seat == seat]
        sizes = [card_size] * len(spec.cards[seat]) + [_EXTRA_MM[e.kind] for e in seat_extras]
        if spec.placements is not None:
            given = list(spec.placements[seat])
            rest = place_row(sizes, seat, mat, rng, spec.across_prob, spec.max_turn_deg,
                             spec.upside_down_prob) if seat_extras else []
            placements.append(given)
            extra_places += list(zip(seat_extras, rest[len(given):], strict=True))
        else:
            placed = place_row(sizes, seat, mat, rng, spec.across_prob, spec.max_turn_deg,
                               spec.upside_down_prob) if sizes else []
            order = rng.permutation(len(placed)) if placed else []
            placed = [placed[int(i)] for i in order]
            placements.append(placed[:len(spec.cards[seat])])
            extra_places += list(zip(seat_extras, placed[len(spec.cards[seat]):], strict=True))
    return placements, extra_places


def _draw_shadows(c: _Canvas, card_size: tuple[float, float], placements: list[list[CardPlacement]],
                  extra_places: list[tuple[Extra, CardPlacement]], stones: list[tuple[str, float, float, float]],
                  rng: np.random.Generator, p: RenderParams) -> None:
    """Soft shadows of everything lying on the felt."""
    k, n = c.k, c.n
    shadow = np.zeros((n, n), np.uint8)
    j = p.shadow_jitter_mm
    sh_off = np.array(rng.uniform(-j, j, 2)) + list(p.shadow_offset_mm)
    for seat_places in placements:
        for pl in seat_places:
            cv2.fillPoly(shadow, [np.round(c.cv(card_corners(pl, card_size) + sh_off)).astype(np.int32)],
                         p.shadow_card)
    for ex, pl in extra_places:
        if ex.kind == "napkin":  # irregular and thin: no hard-edged shadow
            continue
        cv2.fillPoly(shadow, [np.round(c.cv(card_corners(pl, _EXTRA_MM[ex.kind]) + sh_off)).astype(np.int32)],
                     p.shadow_object)
    f = p.shadow_stone_offset
    for _, x, y, d in stones:
        cv2.circle(shadow, c.ipt((x + sh_off[0] * f, y + sh_off[1] * f)), int(round(d / 2 * k)), p.shadow_stone, -1)
    shadow = cv2.GaussianBlur(shadow, (0, 0), p.shadow_blur_mm * k)
    keep = cv2.cvtColor(cv2.subtract(np.full_like(shadow, 255), cv2.multiply(shadow, p.shadow_strength)),
                        cv2.COLOR_GRAY2BGR)
    c.image = cv2.multiply(c.image, keep, scale=1 / 255.0)


def _draw_cards(c: _Canvas, spec: SceneSpec, placements: list[list[CardPlacement]],
                h_img: npt.NDArray[np.float64], rng: np.random.Generator, p: RenderParams) -> list[CardTruth]:
    card_size, k = spec.card_mm, c.k
    faces = deck_faces(spec.deck) if isinstance(spec.deck, DeckStyle) else spec.deck
    cw, ch = max(4, int(round(card_size[0] * k))), max(4, int(round(card_size[1] * k)))
    mask = _rounded_mask(cw, ch, p.card_corner_mm * k)
    truths: list[CardTruth] = []
    for seat in range(4):
        for card, pl in zip(spec.cards[seat], placements[seat], strict=True):
            face = cv2.resize(faces[card], (cw, ch), interpolation=cv2.INTER_AREA)
            face = cv2.convertScaleAbs(face, alpha=float(rng.uniform(*p.card_brightness)))
            if isinstance(spec.deck, DeckStyle) and spec.deck.gloss > 0 and rng.random() < 0.5:
                face = _shine(face, spec.deck.gloss, rng)
            qm = card_corners(pl, card_size)
            _paste(c.image, face, mask, c.cv(qm))
            truths.append(CardTruth(card, seat, project(h_img, qm), qm.astype(np.float32)))
    return truths


def _shine(face: Image, gloss: float, rng: np.random.Generator) -> Image:
    """A plastic card's shine: a soft light streak across it, as a lamp shows in a glossy face."""
    h, w = face.shape[:2]
    t = float(rng.uniform(0, np.pi))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d = (xx - w * float(rng.uniform(0.2, 0.8))) * np.cos(t) + (yy - h * float(rng.uniform(0.2, 0.8))) * np.sin(t)
    a = gloss * float(rng.uniform(0.4, 1.0)) * np.exp(-(d / (w * float(rng.uniform(0.08, 0.2)))) ** 2)
    out = face.astype(np.float32) * (1 - a[:, :, None]) + 255.0 * a[:, :, None]
    return np.clip(out, 0, 255).astype(np.uint8)


def _extra_image(kind: str, k: float, rng: np.random.Generator, p: RenderParams) -> tuple[Image, Image]:
    """A phone, a lighter or a crumpled napkin seen from above, and its mask."""
    size = _EXTRA_MM[kind]
    ew, eh = int(round(size[0] * k)), int(round(size[1] * k))
    obj = np.empty((eh, ew, 3), np.uint8)
    if kind == "phone":
        obj[:] = p.phone_body
        ix, iy = p.phone_screen_inset_mm
        cv2.rectangle(obj, (int(ix * k), int(iy * k)), (ew - int(ix * k), eh - int(iy * k)),
                      tuple(int(v) for v in rng.integers(*p.phone_screen_grey, 3)), -1)
        emask = _rounded_mask(ew, eh, p.phone_corner_mm * k)
    elif kind == "lighter":
        obj[:] = tuple(int(v) for v in rng.integers(0, 255, 3))
        cv2.rectangle(obj, (0, 0), (ew, int(p.lighter_cap_mm * k)), p.lighter_cap, -1)
        emask = _rounded_mask(ew, eh, p.lighter_corner_mm * k)
    else:  # a crumpled paper napkin
        obj[:] = p.napkin_paper
        for _ in range(p.napkin_creases):
            p1 = tuple(int(v) for v in rng.integers(0, min(ew, eh), 2))
            p2 = tuple(int(v) for v in rng.integers(0, min(ew, eh), 2))
            cv2.line(obj, p1, p2, p.napkin_crease, max(1, int(k)), cv2.LINE_AA)
        emask = np.zeros((eh, ew), np.uint8)
        t = np.linspace(0, 2 * math.pi, p.napkin_points, endpoint=False)
        rad = rng.uniform(*p.napkin_radius, p.napkin_points)
        pts = np.stack([ew / 2 + rad * ew * np.cos(t), eh / 2 + rad * eh * np.sin(t)], 1)
        cv2.fillPoly(emask, [pts.astype(np.int32)], 255, cv2.LINE_AA)
    return obj, emask


def _draw_extras(c: _Canvas, extra_places: list[tuple[Extra, CardPlacement]], h_img: npt.NDArray[np.float64],
                 rng: np.random.Generator, p: RenderParams) -> list[ExtraTruth]:
    extra_truth: list[ExtraTruth] = []
    for ex, pl in extra_places:
        qm = card_corners(pl, _EXTRA_MM[ex.kind])
        obj, emask = _extra_image(ex.kind, c.k, rng, p)
        _paste(c.image, obj, emask, c.cv(qm))
        extra_truth.append(ExtraTruth(ex.kind, ex.seat, project(h_img, qm)))
    return extra_truth


def _draw_stones(c: _Canvas, stones: list[tuple[str, float, float, float]], stone_col: BGR,
                 p: RenderParams) -> None:
    """Flat discs with a rim and a little shading."""
    rim = tuple(int(v * p.stone_rim) for v in stone_col)
    gain, lift = p.stone_highlight_gain
    hi_col = tuple(int(min(255, v * gain + lift)) for v in stone_col)
    off, size = p.stone_highlight_offset, p.stone_highlight_size
    for _, x, y, d in stones:
        ctr, rr = c.ipt((x, y)), d / 2 * c.k
        cv2.circle(c.image, ctr, int(round(rr)), rim, -1, cv2.LINE_AA)
        cv2.circle(c.image, ctr, max(1, int(round(rr * p.stone_face))), stone_col, -1, cv2.LINE_AA)
        cv2.circle(c.image, (ctr[0] - int(rr * off), ctr[1] - int(rr * off)), max(1, int(rr * size)), hi_col, -1,
                   cv2.LINE_AA)


def _draw_hand(c: _Canvas, mat: Mat, rng: np.random.Generator, p: RenderParams) -> Image:
    """A hand over the pool, fingers to the centre along a diagonal (where no card zone lies); its mask."""
    k, n = c.k, c.n
    ang = 45.0 + 90.0 * int(rng.integers(4)) + rng.uniform(-p.hand_turn_deg, p.hand_turn_deg)
    back = math.radians(ang + 180.0)
    dist = rng.uniform(*p.hand_distance_mm)
    centre = (mat.centre[0] + dist * math.cos(back), mat.centre[1] + dist * math.sin(back))
    polys = _hand_polys(centre, ang, rng)
    hand_mask = np.zeros((n, n), np.uint8)
    for poly in polys:
        cv2.fillPoly(hand_mask, [np.round(c.cv(poly)).astype(np.int32)], 255, cv2.LINE_AA)
    skin = np.array([rng.uniform(*p.hand_skin[0]), rng.uniform(*p.hand_skin[1]), rng.uniform(*p.hand_skin[2])],
                    np.float32)
    dx, dy = p.hand_shadow_mm
    sh = cv2.GaussianBlur(np.roll(hand_mask, (int(dx * k), int(dy * k)), (0, 1)), (0, 0), p.hand_shadow_blur_mm * k)
    f = c.image.astype(np.float32) * (1 - sh[:, :, None] / p.hand_shadow_divisor)
    a = (cv2.GaussianBlur(hand_mask, (0, 0), p.hand_edge_blur_mm * k).astype(np.float32) / 255.0)[:, :, None]
    base, var = p.hand_shade
    shade = base + var * _lowres_noise(rng, (n, n), p.hand_shade_cells, 1.0)[:, :, None]
    c.image[:] = np.clip(f * (1 - a) + skin * shade * a, 0, 255).astype(np.uint8)
    return hand_mask


def _cover_markers(c: _Canvas, spec: SceneSpec, rng: np.random.Generator, p: RenderParams) -> None:
    """Hidden markers: a cup or a box lies on each, fully over its black square."""
    j = p.cover_jitter_mm
    for mid in spec.hidden_markers:
        x0, y0 = spec.mat.marker_corners(mid)[0]
        ctr = (x0 + MARKER_MM / 2 + rng.uniform(-j, j), y0 + MARKER_MM / 2 + rng.uniform(-j, j))
        col = tuple(int(v) for v in rng.integers(*p.cover_grey, 3))
        if rng.random() < 0.5:
            cv2.circle(c.image, c.ipt(ctr), int(round(rng.uniform(*p.cover_disc_mm) * c.k)), col, -1, cv2.LINE_AA)
        else:
            half = rng.uniform(*p.cover_box_half_mm)
            cv2.rectangle(c.image, c.ipt((ctr[0] - half, ctr[1] - half)), c.ipt((ctr[0] + half, ctr[1] + half)),
                          col, -1)


def _stone_truth(c: _Canvas, spec: SceneSpec, stones: list[tuple[str, float, float, float]],
                 hand_mask: Image, h_img: npt.NDArray[np.float64]) -> list[StoneTruth]:
    n = c.n
    out = []
    for zone, x, y, d in stones:
        under, visible = False, 1.0
        if spec.hand_over_pool:
            px = c.ipt((x, y))
            under = bool(hand_mask[min(max(px[1], 0), n - 1), min(max(px[0], 0), n - 1)] > 127)
            r = int(math.ceil(d / 2 * c.k))
            x0, y0 = max(0, px[0] - r), max(0, px[1] - r)
            disc = np.zeros((2 * r + 1, 2 * r + 1), np.uint8)
            cv2.circle(disc, (r, r), int(round(d / 2 * c.k)), 255, -1)
            disc = disc[y0 - (px[1] - r):, x0 - (px[0] - r):]
            hand = hand_mask[y0:y0 + disc.shape[0], x0:x0 + disc.shape[1]]
            disc = disc[:hand.shape[0], :hand.shape[1]] > 0
            visible = 1.0 - float(np.count_nonzero(hand[disc] > 127)) / max(1, int(np.count_nonzero(disc)))
        ci = project(h_img, [(x, y)])[0]
        out.append(StoneTruth(zone, (x, y), (float(ci[0]), float(ci[1])), d, under, visible))
    return out


def render_scene(spec: SceneSpec, rng: np.random.Generator, params: RenderParams = RENDER) -> RenderedScene:
    """Draw the scene of ``spec`` as the camera sees it, with its truth; same rng seed, same image.

    The stages, in order (each draws from ``rng`` in turn): felt, zone
    outlines, markers, lay-out of cards and extras, stones' places, shadows,
    cards, extras, stones, a hand, covered markers; then the camera's view
    and its light (:func:`_light`).
    """
    p = params
    h_img, frame = camera_homography(spec)
    c = _Canvas.for_spec(spec, p)
    _draw_felt(c, spec, rng, p)
    if spec.zone_outlines:
        _draw_zone_outlines(c, spec, p)
    _draw_markers(c, spec, p)
    placements, extra_places = _lay_out(spec, rng)
    stones = _place_stones(spec, rng)
    stone_col = spec.stone_colour if spec.stone_colour is not None else contrasting_colour(spec.felt, rng)
    _draw_shadows(c, spec.card_mm, placements, extra_places, stones, rng, p)
    truths = _draw_cards(c, spec, placements, h_img, rng, p)
    extra_truth = _draw_extras(c, extra_places, h_img, rng, p)
    _draw_stones(c, stones, stone_col, p)
    hand_mask = _draw_hand(c, spec.mat, rng, p) if spec.hand_over_pool else np.zeros((1, 1), np.uint8)
    _cover_markers(c, spec, rng, p)

    # the camera
    warp = h_img @ np.linalg.inv(c.t)
    img = cv2.warpPerspective(c.image, warp, frame, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                              borderValue=tuple(int(v * p.table_beyond_shade) for v in spec.table))
    img = _light(img, spec, rng, h_img)

    stone_truth = _stone_truth(c, spec, stones, hand_mask, h_img)
    counts = {"pool": sum(1 for t in stone_truth if t.zone == "pool"),
              "seats": [sum(1 for t in stone_truth if t.zone == f"seat {s_} stones") for s_ in range(4)]}
    return RenderedScene(
        image=img, mat_to_image=h_img, cards=truths, stones=counts, stone_truth=stone_truth,
        truth_cards=[[str(c_) for c_ in spec.cards[s_]] for s_ in range(4)],
        hidden_markers=tuple(spec.hidden_markers), extras=extra_truth, spec=spec)


def _kelvin_gains(kelvin: float) -> npt.NDArray[np.float32]:
    """BGR gains of a light's colour temperature, relative to 5000 K (2700 K warm, 6500 K cold)."""
    t = float(np.clip((kelvin - 2700.0) / (6500.0 - 2700.0), 0, 1))
    warm, cold = np.array([0.72, 0.9, 1.05]), np.array([1.06, 1.0, 0.9])
    return np.asarray(warm * (1 - t) + cold * t, np.float32)


def _light(img: Image, spec: SceneSpec, rng: np.random.Generator, h_img: npt.NDArray[np.float64]) -> Image:
    h, w = img.shape[:2]
    sh, sw = max(2, h // 8), max(2, w // 8)
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    a = rng.uniform(0, 2 * math.pi)
    ramp = (xx / sw - 0.5) * math.cos(a) + (yy / sh - 0.5) * math.sin(a)
    gain = 1.0 - spec.gradient * (ramp + 0.5) + rng.uniform(-0.05, 0.05)
    vign = 1.0 - 0.15 * (((xx / sw - 0.5) ** 2 + (yy / sh - 0.5) ** 2) * 2)
    gain = gain * vign
    shadow = np.zeros((sh, sw), np.float32)
    for _ in range(spec.shadows):
        c = (rng.uniform(0, sw), rng.uniform(0, sh))
        axes = (rng.uniform(0.15, 0.5) * sw, rng.uniform(0.08, 0.3) * sh)
        cv2.ellipse(shadow, (int(c[0]), int(c[1])), (int(axes[0]), int(axes[1])), rng.uniform(0, 180), 0, 360,
                    float(rng.uniform(0.2, 0.45)), -1)
    if spec.shadows:
        shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, sw / 40))
    gain = gain * (1 - shadow)
    glare = np.zeros((sh, sw), np.float32)
    if spec.glare > 0:
        if spec.glare_at is not None:
            g = project(h_img, [spec.glare_at])[0] / 8
        else:
            g = np.array([rng.uniform(0.15, 0.85) * sw, rng.uniform(0.15, 0.85) * sh])
        rad = rng.uniform(0.03, 0.09) * max(sw, sh)
        glare = np.exp(-(((xx - g[0]) ** 2 + (yy - g[1]) ** 2) / (2 * rad ** 2))) * spec.glare
    a_map = (gain * (1 - glare))[:, :, None] * _kelvin_gains(spec.kelvin)
    a_full = cv2.resize(a_map.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    f = cv2.multiply(img, a_full, dtype=cv2.CV_32F)
    if spec.glare > 0:
        g_full = cv2.resize((glare * 255.0).astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
        f = cv2.add(f, cv2.merge([g_full, g_full, g_full]))
    out = cv2.convertScaleAbs(f)
    if spec.blur > 0.05:
        out = cv2.GaussianBlur(out, (0, 0), spec.blur)
    if spec.noise > 0:
        cv2.setRNGSeed(int(rng.integers(2**31 - 1)))
        noise = np.empty((h, w), np.int16)
        cv2.randn(noise, 0, spec.noise)
        out = cv2.add(out, cv2.merge([noise, noise, noise]), dtype=cv2.CV_8U)
    if spec.jpeg_quality < 100:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(spec.jpeg_quality)])
        if ok:
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return np.asarray(out, np.uint8)


# ---------------------------------------------------------------- learning a deck

def learning_scene(rng: np.random.Generator, frame: int, **overrides: Any) -> SceneSpec:
    """A random scene of frame ``frame`` of a deck's learning: its cards in order, upright or upside down.

    The cards are :func:`vision.learnt.learning_cards` (``docs/mat.md``, "Learning a deck").

    The light, felt and camera vary as in :func:`random_scene` (no hand, no
    hidden marker, no objects); any field may be fixed by keyword (``deck=``).
    """
    cards = learning_cards(frame)
    fixed = {"hand_over_pool": False, "hidden_markers": (), "extras": (), "across_prob": 1.0,
             "max_turn_deg": 6.0}
    spec = random_scene(rng, cards=cards, **{**fixed, **overrides})
    placements = tuple(
        tuple(place_row([spec.card_mm] * len(seat), s, spec.mat, rng, 1.0, spec.max_turn_deg,
                        spec.upside_down_prob)) if seat else ()
        for s, seat in enumerate(cards))
    return replace(spec, placements=placements)


# ---------------------------------------------------------------- cards a finder may miss

HARD_CASES = ("line", "tilted", "pale", "stone")
"""Tables that have made a finder drop cards: cards over a zone's printed line, tilted 12 degrees,
on a felt almost as pale as their paper, and beside a seat's stones."""


def hard_scene(rng: np.random.Generator, case: str, **overrides: Any) -> SceneSpec:
    """A scene of sixteen cards laid as ``case`` (one of :data:`HARD_CASES`) at every seat.

    ``line``: in each zone one card over its inner line, one over its outer
    line and one over a side line (their centres inside the zone); ``tilted``:
    every card turned 12 degrees one way or the other; ``pale``: a felt nearly
    the colour of the cards' paper; ``stone``: a card at the zone's end next to
    the seat's stone zone, full of large stones that touch. The rest varies as
    in :func:`random_scene`.
    """
    if case not in HARD_CASES:
        raise ValueError(f"no hard case {case!r} (known: {', '.join(HARD_CASES)})")
    spec = random_scene(rng, cards=random_cards(rng), extras=(), hidden_markers=(), hand_over_pool=False,
                        **overrides)
    w, h = spec.card_mm
    x0, y0, x1, y1 = spec.mat.card_zone(0)
    gap = 4.0
    xs = [x0 + w / 2 + 2 + i * (w + gap) for i in range(4)]
    ys = [(y0 + y1) / 2] * 4
    angles = [0.0] * 4
    extra: dict[str, Any] = {}
    if case == "line":
        xs = [x0 + 8.0 + i * (w + gap) for i in range(4)]            # the first over the left line
        ys = [y0 + 6.0, y1 - 6.0, (y0 + y1) / 2, y0 + h / 2 - 3.0]     # over the inner, the outer line
    elif case == "tilted":
        angles = [12.0 * float(rng.choice([-1, 1])) for _ in range(4)]
        xs = [x0 + w / 2 + 12 + i * (w + 14.0) for i in range(4)]
    elif case == "pale":
        paper = float(rng.uniform(185, 215))
        extra["felt"] = tuple(int(np.clip(paper + rng.normal(0, 8), 0, 255)) for _ in range(3))
        extra["stone_colour"] = (40, 40, 160)
    else:
        xs = [x1 - w / 2 - 1.0 - (3 - i) * (w + gap) for i in range(4)]
        extra.update(seat_stones=(8, 8, 8, 8), stone_mm=28.0, touching=0.6)
    placements = []
    for seat in range(4):
        row = []
        for x, y, a in zip(xs, ys, angles, strict=True):
            flip = 180.0 if rng.random() < spec.upside_down_prob else 0.0
            c = quarter_turn(x, y, seat, spec.mat.side / 2)
            row.append(CardPlacement((float(c[0]), float(c[1])), a + flip + _seat_rotation(seat)))
        placements.append(tuple(row))
    return replace(spec, placements=tuple(placements), **{**extra, **overrides})
