"""At what height each supported camera sees the whole mat sharply enough to read it.

A pinhole model of each camera (focal length, sensor size, the capture mode the
product uses) looks at the mat of ``docs/mat.md`` from a height ``h``
(lens above the table top), tilted up to 15° off vertical with its optical axis
through the mat centre. Two conditions bound the height:

* the lowest mount: the whole play area, plus each marker's white quiet zone
  and some aiming slack, lies inside the frame, for every tilt up to the limit;
* the highest mount: every point of the play area gets at least the px/mm the
  reading needs (1.2 px per mm of mat, :data:`REQUIRED_PX_PER_MM`), in the
  worst direction, for every tilt up to the limit.

Both are computed conservatively: the field of view is the narrower of the
lens' nominal focal length and its published field of view, the resolution uses
the wider one (barrel distortion spreads a wide lens' edges over fewer pixels).

>>> level = height_range(camera("cm3"), 800, max_tilt_deg=0)
>>> (level.lowest_mm, level.highest_mm)
(1170, 1410)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from table.errors import InvalidInput
from vision.cardcrop import CROP_W
from vision.mat import CARD_MM, MIN_PX_PER_MM

REQUIRED_PX_PER_MM = MIN_PX_PER_MM
"""docs/mat.md: «at least 1.2 px per mm of mat». The card model's crop samples a card
at CROP_W / 61.5 mm = 1.17 px/mm; a camera giving less would make the warp
upsample, inventing nothing the model could use."""

MODEL_PX_PER_MM = CROP_W / CARD_MM[0]
"""How densely the card model's crop (72 × 112 px) samples a 61.5 × 95 mm card."""

INDEX_MM = 4.2
"""Height of a card's corner index (e.g. «12»), measured on the shared scan of the
Fournier 1878 deck (22–23 px on a 330 px-wide scan of a 61.5 mm card). Modern
decks print it a little larger, so this is the hard case."""

QUIET_ZONE_MM = 10.0
"""White border a marker needs around its black square (docs/mat.md), part of which lies outside the play area."""

AIM_SLACK_MM = 25.0
"""Room left on each side for aiming off by 25 mm, or turning the camera by ~3°."""

MAX_TILT_DEG = 15.0
HEAD_CLEARANCE_MM = 900.0
"""Below this the camera is in the face of a seated player leaning over the table."""
CEILING_MM = 1700.0
"""Lens height above a 75 cm table under a 2.5 m ceiling, less the mount."""


@dataclass(frozen=True, slots=True)
class Sensor:
    """An image sensor's full pixel array."""

    name: str
    width_px: int
    height_px: int
    pixel_um: float

    @property
    def width_mm(self) -> float:
        return self.width_px * self.pixel_um / 1000

    @property
    def height_mm(self) -> float:
        return self.height_px * self.pixel_um / 1000


@dataclass(frozen=True, slots=True)
class Lens:
    """A lens: its nominal focal length and, where published, its field of view.

    ``fov_deg`` is (horizontal, vertical) on a format of ``fov_format_mm`` (width,
    height); for a lens only given a diagonal angle, both are None and
    ``diagonal_fov_deg`` is set.
    """

    name: str
    focal_mm: float
    fov_deg: tuple[float, float] | None = None
    fov_format_mm: tuple[float, float] | None = None
    diagonal_fov_deg: float | None = None

    def published_focal_mm(self, sensor: Sensor) -> tuple[float, float]:
        """The focal length (x, y) that the published field of view implies."""
        if self.fov_deg is not None:
            w, h = self.fov_format_mm or (sensor.width_mm, sensor.height_mm)
            return (w / 2 / math.tan(math.radians(self.fov_deg[0]) / 2),
                    h / 2 / math.tan(math.radians(self.fov_deg[1]) / 2))
        if self.diagonal_fov_deg is not None and self.fov_format_mm is not None:
            d = math.hypot(*self.fov_format_mm)
            f = d / 2 / math.tan(math.radians(self.diagonal_fov_deg) / 2)
            return (f, f)
        return (self.focal_mm, self.focal_mm)


@dataclass(frozen=True, slots=True)
class CaptureMode:
    """A sensor mode covering the whole array, binned ``binning`` × ``binning``."""

    width_px: int
    height_px: int
    binning: int

    def __str__(self) -> str:
        return f"{self.width_px}×{self.height_px}"


@dataclass(frozen=True, slots=True)
class Camera:
    """A camera, its lens, and the capture mode the product uses with it."""

    key: str
    name: str
    sensor: Sensor
    lens: Lens
    mode: CaptureMode

    @property
    def pitch_mm(self) -> float:
        return self.sensor.pixel_um * self.mode.binning / 1000

    @property
    def coverage_focal_mm(self) -> tuple[float, float]:
        """Longest focal (narrowest view) of nominal and published: what surely fits."""
        px, py = self.lens.published_focal_mm(self.sensor)
        return (max(self.lens.focal_mm, px), max(self.lens.focal_mm, py))

    @property
    def resolution_focal_mm(self) -> float:
        """Shortest focal (fewest px per mm) of nominal and published."""
        return min(self.lens.focal_mm, *self.lens.published_focal_mm(self.sensor))

    @property
    def fov_deg(self) -> tuple[float, float]:
        """The field of view used for coverage (horizontal, vertical)."""
        fx, fy = self.coverage_focal_mm
        return (2 * math.degrees(math.atan(self.sensor.width_mm / 2 / fx)),
                2 * math.degrees(math.atan(self.sensor.height_mm / 2 / fy)))


IMX708 = Sensor("Sony IMX708", 4608, 2592, 1.4)
IMX477 = Sensor("Sony IMX477", 4056, 3040, 1.55)
HALF_INCH_FORMAT = (6.4, 4.8)

CAMERAS: tuple[Camera, ...] = (
    Camera("cm3", "Camera Module 3", IMX708, Lens("4.74 mm (fijo)", 4.74, (66.0, 41.0)),
           CaptureMode(2304, 1296, 2)),
    Camera("cm3-wide", "Camera Module 3 Wide", IMX708, Lens("2.75 mm (fijo)", 2.75, (102.0, 67.0)),
           CaptureMode(2304, 1296, 2)),
    Camera("hq-6mm", "HQ Camera", IMX477,
           Lens("6 mm CS-mount", 6.0, fov_format_mm=HALF_INCH_FORMAT, diagonal_fov_deg=63.0),
           CaptureMode(2028, 1520, 2)),
    Camera("hq-16mm", "HQ Camera", IMX477,
           Lens("16 mm C-mount", 16.0, (21.8, 16.4), HALF_INCH_FORMAT),
           CaptureMode(2028, 1520, 2)),
)


def camera(key: str) -> Camera:
    for c in CAMERAS:
        if c.key == key:
            return c
    raise InvalidInput(f"unknown camera {key!r} (known: {', '.join(c.key for c in CAMERAS)})")


@dataclass(frozen=True, slots=True)
class Pose:
    """A camera ``height_mm`` above the table, its axis ``tilt_deg`` off vertical
    towards ``direction_deg`` (0 = the frame's long side), aimed at the mat centre."""

    height_mm: float
    tilt_deg: float = 0.0
    direction_deg: float = 0.0

    def rotation(self) -> np.ndarray:
        """World-to-camera rotation; world = mat axes (x right, y down) with z into the table."""
        t, d = math.radians(self.tilt_deg), math.radians(self.direction_deg)
        axis = np.array([-math.sin(d), math.cos(d), 0.0])  # tilt about this horizontal axis
        k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
        r_tilt = np.eye(3) + math.sin(t) * k + (1 - math.cos(t)) * (k @ k)  # camera-to-world
        return np.asarray(r_tilt.T)

    def centre(self) -> np.ndarray:
        """Where the lens is (mat centre at the origin, table at z = 0, up is -z)."""
        axis_world = self.rotation().T @ np.array([0.0, 0.0, 1.0])
        return np.asarray(-axis_world * (self.height_mm / axis_world[2]))


def project(cam: Camera, pose: Pose, points_mm: np.ndarray,
            focal_mm: tuple[float, float]) -> np.ndarray:
    """Pixel coordinates (u, v), frame centre at (0, 0), of table points (N, 2) about the mat centre."""
    pts = np.column_stack([points_mm, np.zeros(len(points_mm))])
    pc = (pose.rotation() @ (pts - pose.centre()).T).T
    if np.any(pc[:, 2] <= 0):
        return np.full((len(points_mm), 2), np.inf)
    fx, fy = (f / cam.pitch_mm for f in focal_mm)
    return np.column_stack([fx * pc[:, 0] / pc[:, 2], fy * pc[:, 1] / pc[:, 2]])


def sees_whole_mat(cam: Camera, pose: Pose, side_mm: float, margin_mm: float) -> bool:
    """Whether the play area plus ``margin_mm`` on each side lies inside the frame."""
    half = side_mm / 2 + margin_mm
    corners = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    uv = project(cam, pose, corners, cam.coverage_focal_mm)
    return bool(np.all(np.abs(uv[:, 0]) <= cam.mode.width_px / 2)
                and np.all(np.abs(uv[:, 1]) <= cam.mode.height_px / 2))


def worst_px_per_mm(cam: Camera, pose: Pose, side_mm: float, steps: int = 5) -> float:
    """The fewest pixels per mm of mat, over the play area and every direction on the table."""
    half = side_mm / 2
    grid = np.linspace(-half, half, steps)
    pts = np.array([(x, y) for x in grid for y in grid])
    f = (cam.resolution_focal_mm, cam.resolution_focal_mm)
    e = 0.5
    du = (project(cam, pose, pts + [e, 0], f) - project(cam, pose, pts - [e, 0], f)) / (2 * e)
    dv = (project(cam, pose, pts + [0, e], f) - project(cam, pose, pts - [0, e], f)) / (2 * e)
    if not (np.all(np.isfinite(du)) and np.all(np.isfinite(dv))):
        return 0.0
    # Smallest singular value of each 2x2 Jacobian [du dv], from the eigenvalues of J^T J.
    p, q, r = (du * du).sum(axis=1), (du * dv).sum(axis=1), (dv * dv).sum(axis=1)
    smallest = (p + r) / 2 - np.sqrt(((p - r) / 2) ** 2 + q ** 2)
    return float(np.sqrt(np.clip(smallest, 0.0, None)).min())


def _poses(height: float, max_tilt: float) -> list[Pose]:
    tilts = [0.0] if max_tilt <= 0 else [0.0, max_tilt / 3, 2 * max_tilt / 3, max_tilt]
    return [Pose(height, t, d) for t in tilts for d in (range(0, 360, 45) if t else (0,))]


def _bisect(ok_at, lo: float, hi: float, want_low: bool) -> float | None:  # type: ignore[no-untyped-def]
    """The boundary height between ``lo`` and ``hi`` where ``ok_at`` flips, to 1 mm."""
    if want_low:  # ok for h >= boundary
        if not ok_at(hi):
            return None
        if ok_at(lo):
            return lo
    else:  # ok for h <= boundary
        if not ok_at(lo):
            return None
        if ok_at(hi):
            return hi
    while hi - lo > 1.0:
        mid = (lo + hi) / 2
        if ok_at(mid) == want_low:
            hi = mid
        else:
            lo = mid
    return hi if want_low else lo


@dataclass(frozen=True, slots=True)
class HeightRange:
    """The lens heights (mm above the table) at which ``camera`` reads a mat of ``side_mm``."""

    camera: Camera
    side_mm: float
    max_tilt_deg: float
    lowest_mm: float | None
    highest_mm: float | None
    px_per_mm_at_lowest: float | None

    @property
    def ok(self) -> bool:
        return (self.lowest_mm is not None and self.highest_mm is not None
                and self.lowest_mm <= self.highest_mm)

    @property
    def note(self) -> str:
        if not self.ok:
            return "no height works"
        assert self.lowest_mm is not None and self.highest_mm is not None
        if self.lowest_mm > CEILING_MM:
            return "higher than most ceilings allow"
        if self.highest_mm < HEAD_CLEARANCE_MM:
            return "low: in the players' way"
        return "good"


_NOTA = {
    "no height works": "ninguna altura sirve",
    "higher than most ceilings allow": "más alta de lo que permiten casi todos los techos",
    "low: in the players' way": "baja: estorba a los jugadores",
    "good": "bien",
}
""":attr:`HeightRange.note` (kept in English in ``--json``) as the printed table says it."""


def height_range(cam: Camera, side_mm: float, max_tilt_deg: float = MAX_TILT_DEG,
                 required_px_per_mm: float = REQUIRED_PX_PER_MM,
                 margin_mm: float = QUIET_ZONE_MM + AIM_SLACK_MM) -> HeightRange:
    """Lowest and highest lens height for ``cam`` over a mat of side ``side_mm``.

    Heights are rounded inwards to 10 mm (lowest up, highest down).
    """
    if not 100 <= side_mm <= 5000:
        raise InvalidInput(f"mat side {side_mm:g} mm is out of range (100-5000)")
    if not 0 <= max_tilt_deg <= 45:
        raise InvalidInput(f"tilt {max_tilt_deg:g}° is out of range (0-45)")
    lo, hi = 50.0, 20000.0

    def fits(h: float) -> bool:
        return all(sees_whole_mat(cam, p, side_mm, margin_mm) for p in _poses(h, max_tilt_deg))

    def sharp(h: float) -> bool:
        return all(worst_px_per_mm(cam, p, side_mm) >= required_px_per_mm
                   for p in _poses(h, max_tilt_deg))

    low = _bisect(fits, lo, hi, want_low=True)
    # Sharpness only decreases with height once the camera is above every point it
    # looks at; start from the lowest height that fits (below it nothing counts).
    high = None if low is None else _bisect(sharp, low, hi, want_low=False)
    low = None if low is None else math.ceil(low / 10) * 10
    high = None if high is None else math.floor(high / 10) * 10
    px = None
    if low is not None:
        px = min(worst_px_per_mm(cam, p, side_mm) for p in _poses(low, max_tilt_deg))
    return HeightRange(cam, side_mm, max_tilt_deg, low, high, px)


def _metres(r: HeightRange) -> str:
    if not r.ok:
        return "ninguna"
    assert r.lowest_mm is not None and r.highest_mm is not None
    return f"{r.lowest_mm / 1000:.2f}–{r.highest_mm / 1000:.2f} m"


def max_tilt_deg(cam: Camera, side_mm: float, limit_deg: float = 30.0) -> float:
    """The largest tilt (to 0.5°) at which some height still works; 0 if only level works,
    -1 if not even level does."""
    if not height_range(cam, side_mm, 0.0).ok:
        return -1.0
    lo, hi = 0.0, limit_deg
    if height_range(cam, side_mm, hi).ok:
        return hi
    while hi - lo > 0.5:
        mid = (lo + hi) / 2
        if height_range(cam, side_mm, mid).ok:
            lo = mid
        else:
            hi = mid
    return math.floor(lo * 2) / 2


@dataclass(frozen=True, slots=True)
class CameraCheck:
    """One camera's verdict: the level and the tilted height ranges, the largest
    tilt that still works, and what a card gets at the lowest level mount."""

    camera: Camera
    level: HeightRange
    tilted: HeightRange
    max_tilt_deg: float

    @property
    def card_px(self) -> float | None:
        p = self.level.px_per_mm_at_lowest
        return None if p is None else p * CARD_MM[0]

    @property
    def index_px(self) -> float | None:
        p = self.level.px_per_mm_at_lowest
        return None if p is None else p * INDEX_MM

    @property
    def verdict(self) -> str:
        if self.tilted.ok:
            return self.tilted.note
        if self.level.ok:
            note = "" if self.level.note == "good" else f"; {self.level.note}"
            return f"keep within {self.max_tilt_deg:g}° of level{note}"
        return self.level.note

    @property
    def veredicto(self) -> str:
        """:attr:`verdict` in the words of the table a club's technician reads."""
        if self.tilted.ok:
            return _NOTA[self.tilted.note]
        if self.level.ok:
            note = "" if self.level.note == "good" else f"; {_NOTA[self.level.note]}"
            return f"inclinada como mucho {self.max_tilt_deg:g}° de la vertical{note}"
        return _NOTA[self.level.note]

    def as_json(self) -> dict[str, object]:
        c = self.camera
        px = self.level.px_per_mm_at_lowest
        return {
            "camera": c.key, "name": c.name, "lens": c.lens.name,
            "mode": [c.mode.width_px, c.mode.height_px],
            "fov_deg": [round(v, 1) for v in c.fov_deg],
            "level_mm": [self.level.lowest_mm, self.level.highest_mm] if self.level.ok else None,
            "tilted_mm": [self.tilted.lowest_mm, self.tilted.highest_mm] if self.tilted.ok else None,
            "tilt_deg": self.tilted.max_tilt_deg,
            "max_tilt_deg": self.max_tilt_deg,
            "px_per_mm_at_lowest": None if px is None else round(px, 2),
            "card_px_at_lowest": None if self.card_px is None else round(self.card_px),
            "index_px_at_lowest": None if self.index_px is None else round(self.index_px, 1),
            "verdict": self.verdict,
        }


def full_resolution(cam: Camera) -> Camera:
    """The same camera capturing the sensor's whole array, unbinned (a slower still)."""
    mode = CaptureMode(cam.sensor.width_px, cam.sensor.height_px, 1)
    return Camera(cam.key + "-full", cam.name, cam.sensor, cam.lens, mode)


def check(cam: Camera, side_mm: float = 800.0, tilt_deg: float = MAX_TILT_DEG) -> CameraCheck:
    return CameraCheck(cam, height_range(cam, side_mm, 0.0), height_range(cam, side_mm, tilt_deg),
                       max_tilt_deg(cam, side_mm))


def check_all(side_mm: float = 800.0, tilt_deg: float = MAX_TILT_DEG,
              full_res: bool = False) -> list[CameraCheck]:
    cams = [full_resolution(c) for c in CAMERAS] if full_res else list(CAMERAS)
    return [check(c, side_mm, tilt_deg) for c in cams]


def markdown_table(checks: list[CameraCheck]) -> str:
    """The table that ``mus-table camera-check`` prints and hardware/README.md holds."""
    tilt = checks[0].tilted.max_tilt_deg if checks else MAX_TILT_DEG
    side = checks[0].level.side_mm if checks else 800.0
    lines = [
        f"Tapete de {side:g} mm. Alturas: de la lente sobre el tablero de la mesa. Mínima: la imagen abarca "
        f"la zona de juego y {QUIET_ZONE_MM + AIM_SLACK_MM:g} mm por cada lado; máxima: ≥ {REQUIRED_PX_PER_MM} "
        "px/mm en toda la zona de juego, en la peor dirección.",
        "",
        f"| Cámara | Objetivo | Modo de captura | Campo usado (H × V) | Nivelada | Inclinada ≤ {tilt:g}° "
        "| Inclinación máx. | px/mm a la mínima | px de carta / índice a la mínima | Veredicto |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for ch in checks:
        c = ch.camera
        h, v = c.fov_deg
        px = ch.level.px_per_mm_at_lowest
        px_s = "—" if px is None else f"{px:.2f}"
        card = "—" if ch.card_px is None or ch.index_px is None else \
            f"{ch.card_px:.0f} / {ch.index_px:.1f}"
        mt = "—" if ch.max_tilt_deg < 0 else f"{ch.max_tilt_deg:g}°"
        lines.append(f"| {c.name} | {c.lens.name} | {c.mode} | {h:.1f}° × {v:.1f}° "
                     f"| {_metres(ch.level)} | {_metres(ch.tilted)} | {mt} | {px_s} | {card} "
                     f"| {ch.veredicto} |")
    return "\n".join(lines) + "\n"


def ground_sample(cam: Camera, height_mm: float) -> float:
    """px per mm straight below a level camera: focal length over pixel pitch over height."""
    if height_mm <= 0:
        raise InvalidInput(f"height must be positive, not {height_mm:g} mm")
    return cam.resolution_focal_mm / cam.pitch_mm / height_mm
