"""Spanish 40-card decks drawn in code, in many styles, for training and testing the card model.

What every Spanish deck shares, and what these drawings keep in every style:
the printed index in the corners, the number, kind and usual layout of the
suit signs (oros: coins, copas: cups, espadas: swords, bastos: clubs), the
«pintas» (gaps in the border line: none for oros, one for copas, two for
espadas, three for bastos), and a figure for the sota (10), the caballo (11, a
rider on a horse) and the rey (12, crowned). Everything else (colours, line
widths, fonts, pip shapes and sizes, figure drawings, card proportions) varies
with a :class:`DeckStyle`, so that the model learns the shared features rather
than one maker's art.

>>> import numpy as np
>>> from table.cards import Card
>>> face = render_card(Card.parse("5c"), HELD_OUT_STYLES["clasica"])
>>> face.shape
(380, 246, 3)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from table.cards import DECK, Card, Suit

Image = npt.NDArray[np.uint8]
BGR = tuple[int, int, int]

PX_PER_MM = 4.0
"""Resolution of a rendered face: 246 x 380 px for a 61.5 x 95 mm card."""

FOURNIER1878 = Path(__file__).resolve().parent.parent / "data" / "decks" / "fournier1878"
"""Where the scanned 1878 Fournier deck is looked for: ``data/decks/fournier1878`` in the clone (git-ignored, never committed; absent elsewhere)."""

_SUIT_FILE = {Suit.OROS: "oro", Suit.COPAS: "copa", Suit.ESPADAS: "espada", Suit.BASTOS: "basto"}

ART_VERSION = 5
"""Bumped whenever the drawn art changes, so that cached training crops are rendered again."""

PINTAS = {Suit.OROS: 0, Suit.COPAS: 1, Suit.ESPADAS: 2, Suit.BASTOS: 3}
"""Gaps in the border line, by suit: what tells the suit of a card seen by its edge."""

TRAINING_FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_COMPLEX_SMALL,
)
"""Fonts random styles draw from; TRIPLEX is kept for the held-out 'clasica' style only."""


@dataclass(frozen=True, slots=True)
class DeckStyle:
    """How one deck looks. Sizes are in millimetres of the card, colours BGR."""

    name: str = "random"
    card_mm: tuple[float, float] = (61.5, 95.0)
    paper: BGR = (222, 238, 244)
    ink: BGR = (30, 30, 30)
    border_ink: BGR = (40, 40, 40)
    border_inset_mm: float = 7.0
    border_width_mm: float = 0.5
    double_border: bool = False
    pinta_len_mm: float = 5.0
    pinta_gap_mm: float = 2.5
    font: int = cv2.FONT_HERSHEY_SIMPLEX
    italic: bool = False
    index_height_mm: float = 6.0
    index_weight: float = 1.0
    index_coloured: bool = False
    four_indices: bool = False
    oro_colours: tuple[BGR, BGR] = ((40, 180, 230), (20, 110, 170))
    copa_colours: tuple[BGR, BGR] = ((40, 40, 200), (30, 170, 220))
    espada_colours: tuple[BGR, BGR] = ((190, 120, 60), (40, 160, 220))
    basto_colours: tuple[BGR, BGR] = ((50, 130, 60), (40, 90, 150))
    outline: bool = True
    line_mm: float = 0.35
    pip_scale: float = 1.0
    pip_variant: int = 0
    layout_variant: int = 0
    figure_palette: tuple[BGR, BGR, BGR] = ((60, 60, 190), (170, 110, 40), (40, 170, 220))
    skin: BGR = (150, 180, 225)
    figure_variant: int = 0
    figure_mirror: bool = False
    figure_frame: bool = False
    sign_at_corner: bool = True
    shading: float = 0.0
    shade_angle: float = 45.0
    hatch_mm: float = 0.0
    hatch_angle: float = 30.0
    grain: float = 0.0
    ornaments: bool = False
    figure_detail: bool = False
    stick_flip: int = 0
    pip_sizes: tuple[float, ...] | None = None
    ace_tilt: bool = False
    stick_sizes: tuple[float, ...] = (1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)
    index_inside: bool = False
    """Index printed inside the frame line's corner (as the Fournier pattern has it), not outside."""
    pinta_spread: bool = False
    """Pinta gaps spread evenly along the line instead of grouped at its middle."""
    ttf: str = ""
    """A TrueType font (file name, found by Pillow among the machine's fonts) for the index; "" for ``font``.

    Where the machine lacks it, the index is printed in ``font`` instead."""
    index_box: bool = False
    """Each index printed in a ruled box (as casino and plastic decks print them). Held-out only."""
    index_notch: bool = False
    """The frame line steps in around the index in its corner (as Fournier's current pattern
    draws it), the index standing in the notch. Held-out only."""
    wear: float = 0.0
    """0-1: a used old deck: yellowed edges, grimy corners, stains, a crease, faded ink. Held-out only."""
    gloss: float = 0.0
    """0-1: a plastic deck's shine: the scene lays a light streak over about half of its cards. Held-out only."""

    def suit_colours(self, suit: Suit) -> tuple[BGR, BGR]:
        return {Suit.OROS: self.oro_colours, Suit.COPAS: self.copa_colours,
                Suit.ESPADAS: self.espada_colours, Suit.BASTOS: self.basto_colours}[suit]

    @property
    def size_px(self) -> tuple[int, int]:
        """Width and height of a rendered face in pixels."""
        return (round(self.card_mm[0] * PX_PER_MM), round(self.card_mm[1] * PX_PER_MM))


def _jitter(rng: np.random.Generator, colour: BGR, amount: float) -> BGR:
    c = np.clip(np.asarray(colour, float) + rng.normal(0, amount, 3), 0, 255)
    return (int(c[0]), int(c[1]), int(c[2]))


def _hsv(h: float, s: float, v: float) -> BGR:
    px = np.uint8([[[int(h) % 180, int(np.clip(s, 0, 255)), int(np.clip(v, 0, 255))]]])
    b, g, r = cv2.cvtColor(px, cv2.COLOR_HSV2BGR)[0, 0]
    return (int(b), int(g), int(r))


def random_style(rng: np.random.Generator) -> DeckStyle:
    """A deck style drawn at random: what training sees (never one of :data:`HELD_OUT_STYLES`)."""
    w = 61.5 * rng.uniform(0.88, 1.12)
    h = w * (95.0 / 61.5) * rng.uniform(0.9, 1.1)
    paper = _hsv(rng.uniform(10, 30), rng.uniform(0, 60), rng.uniform(215, 255))
    ink = _hsv(rng.uniform(0, 180), rng.uniform(0, 120), rng.uniform(0, 70))

    def pair(h0: float, spread: float, s: tuple[float, float], v: tuple[float, float]) -> tuple[BGR, BGR]:
        a = _hsv(h0 + rng.uniform(-spread, spread), rng.uniform(*s), rng.uniform(*v))
        b = _hsv(rng.uniform(0, 180), rng.uniform(80, 255), rng.uniform(60, 230))
        return (a, b)

    mono = rng.random() < 0.12
    oro = pair(24, 8, (120, 255), (150, 240))
    copa = pair(0 if rng.random() < 0.7 else 170, 10, (120, 255), (120, 220))
    espada = pair(108, 15, (60, 220), (90, 200))
    basto = pair(45 if rng.random() < 0.6 else 15, 25, (100, 255), (60, 180))
    if mono:  # one-ink decks exist: suits told apart by shape only
        c = (ink, ink)
        oro, copa, espada, basto = c, c, c, c
    font = int(rng.choice(TRAINING_FONTS))
    style = DeckStyle(
        name="random",
        card_mm=(float(w), float(h)),
        paper=paper,
        ink=ink,
        border_ink=ink if rng.random() < 0.6 else _hsv(rng.uniform(0, 180), rng.uniform(50, 220), rng.uniform(30, 150)),
        border_inset_mm=float(rng.uniform(4.5, 9.0)),
        border_width_mm=float(rng.uniform(0.25, 1.0)),
        double_border=bool(rng.random() < 0.25),
        pinta_len_mm=float(rng.uniform(3.0, 8.0)),
        pinta_gap_mm=float(rng.uniform(1.5, 3.5)),
        font=font,
        italic=bool(rng.random() < 0.2),
        index_height_mm=float(rng.uniform(4.5, 8.5)),
        index_weight=float(rng.uniform(0.6, 1.8)),
        index_coloured=bool(rng.random() < 0.3),
        four_indices=bool(rng.random() < 0.3),
        oro_colours=oro,
        copa_colours=copa,
        espada_colours=espada,
        basto_colours=basto,
        outline=bool(rng.random() < 0.75),
        line_mm=float(rng.uniform(0.2, 0.6)),
        pip_scale=float(rng.uniform(0.8, 1.15)),
        pip_variant=int(rng.integers(0, 4)),
        layout_variant=int(rng.integers(0, 2)),
        figure_palette=(_hsv(rng.uniform(0, 180), rng.uniform(80, 255), rng.uniform(80, 230)),
                        _hsv(rng.uniform(0, 180), rng.uniform(80, 255), rng.uniform(80, 230)),
                        _hsv(rng.uniform(0, 180), rng.uniform(80, 255), rng.uniform(80, 230))),
        skin=_hsv(rng.uniform(5, 20), rng.uniform(40, 120), rng.uniform(170, 245)),
        figure_variant=int(rng.integers(0, 3)),
        figure_mirror=bool(rng.random() < 0.5),
        figure_frame=bool(rng.random() < 0.25),
        sign_at_corner=bool(rng.random() < 0.5),
        # printed art, as real decks have it: shaded shapes, hatching, paper grain, ornaments
        shading=float(rng.uniform(0.1, 0.45)) if rng.random() < 0.6 else 0.0,
        shade_angle=float(rng.uniform(0, 360)),
        hatch_mm=float(rng.uniform(0.6, 1.4)) if rng.random() < 0.4 else 0.0,
        hatch_angle=float(rng.uniform(0, 180)),
        grain=float(rng.uniform(2, 10)) if rng.random() < 0.6 else 0.0,
        ornaments=bool(rng.random() < 0.6),
        figure_detail=bool(rng.random() < 0.7),
        stick_flip=int(rng.choice(3, p=[0.5, 0.25, 0.25])),
        # sign sizes drawn per count, so that size never tells the count (layouts cap them)
        pip_sizes=(float(rng.uniform(0.45, 0.9)),
                   *(float(rng.uniform(0.2, 0.5)) for _ in range(6))),
        stick_sizes=(1.0, *(float(rng.uniform(0.7, 1.1)) for _ in range(6))),
    )
    return replace(style, ace_tilt=style.layout_variant == 1)


def corner_style(rng: np.random.Generator, ttf_share: float = 0.6) -> DeckStyle:
    """A random style varied where real decks vary at their corners, for the corner model.

    Real indices are smaller and thinner than most drawn ones (3-4 mm in the
    Fournier pattern), often inside the frame's corner; real pintas are
    longer gaps, often spread along the whole line. The held-out styles are
    never drawn (their fields keep the defaults).
    """
    style = random_style(rng)
    small = rng.random() < 0.5
    inset = float(rng.uniform(3.5, 9.0))
    gap, dash = float(rng.uniform(1.5, 8.0)), float(rng.uniform(3.0, 12.0))
    room = 0.8 * (style.card_mm[0] - 2 * inset)  # three centred gaps must fit the line
    if 3 * gap + 2 * dash > room:
        k = room / (3 * gap + 2 * dash)
        gap, dash = gap * k, dash * k
    ink = style.ink
    if rng.random() < 0.5:  # old printings: a faded, brownish ink
        f = float(rng.uniform(0.2, 0.55))
        ink = tuple(int(a * (1 - f) + b * f) for a, b in zip(ink, style.paper, strict=True))  # type: ignore[assignment]
    serif = (cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_COMPLEX_SMALL)
    font = int(rng.choice(serif)) if rng.random() < 0.4 else style.font
    ttfs = available_ttf_fonts() if ttf_share > 0 else ()
    ttf = str(ttfs[int(rng.integers(len(ttfs)))]) if ttfs and rng.random() < ttf_share else ""
    return replace(
        style,
        ink=ink,
        font=font,
        ttf=ttf,
        index_height_mm=float(rng.uniform(2.8, 4.5) if small else rng.uniform(4.5, 8.5)),
        index_weight=float(rng.uniform(0.25, 0.8) if small else rng.uniform(0.6, 1.8)),
        index_inside=bool(rng.random() < 0.6),
        border_inset_mm=inset,
        border_width_mm=float(rng.uniform(0.15, 1.0)),
        pinta_spread=bool(rng.random() < 0.5),
        pinta_gap_mm=gap,
        pinta_len_mm=dash,
    )


HELD_OUT_STYLES: dict[str, DeckStyle] = {
    # Cream paper, black TRIPLEX index (a font no training style uses), thin border.
    "clasica": DeckStyle(
        name="clasica", card_mm=(61.5, 95.0), paper=(205, 232, 242), ink=(25, 25, 25),
        border_ink=(25, 25, 25), border_inset_mm=6.5, border_width_mm=0.45,
        pinta_len_mm=5.5, pinta_gap_mm=2.5, font=cv2.FONT_HERSHEY_TRIPLEX,
        index_height_mm=6.5, index_weight=1.0, pip_variant=1, layout_variant=0,
        figure_palette=((50, 50, 180), (160, 100, 30), (30, 160, 215)), figure_variant=1,
        sign_at_corner=True),
    # White paper, index in the suit's colour in all four corners, double border, narrow card.
    "moderna": DeckStyle(
        name="moderna", card_mm=(57.0, 88.0), paper=(250, 250, 250), ink=(60, 20, 10),
        border_ink=(120, 60, 20), border_inset_mm=5.5, border_width_mm=0.7, double_border=True,
        pinta_len_mm=4.0, pinta_gap_mm=2.0, font=cv2.FONT_HERSHEY_DUPLEX, italic=True,
        index_height_mm=5.5, index_weight=1.4, index_coloured=True, four_indices=True,
        oro_colours=((20, 200, 250), (10, 90, 200)), copa_colours=((60, 20, 210), (40, 200, 240)),
        espada_colours=((170, 80, 20), (20, 140, 240)), basto_colours=((30, 110, 30), (20, 70, 120)),
        line_mm=0.45, pip_scale=0.95, pip_variant=2, layout_variant=1,
        figure_palette=((120, 40, 160), (40, 140, 60), (20, 120, 230)), figure_variant=2,
        figure_mirror=True, figure_frame=True, sign_at_corner=False),
    # After the Catalan pattern (Comas, Fournier's «catalana»): a smaller card, cream paper, one
    # red-brown ink for lines and index, a small condensed serif index, pintas spread along the
    # line, curved swords, smooth batons, lidded cups and star coins, hatched engraved figures.
    "catalana": DeckStyle(
        name="catalana", card_mm=(58.0, 90.0), paper=(196, 222, 236), ink=(35, 40, 110),
        border_ink=(35, 40, 110), border_inset_mm=5.5, border_width_mm=0.35,
        pinta_len_mm=7.0, pinta_gap_mm=3.0, pinta_spread=True,
        font=cv2.FONT_HERSHEY_TRIPLEX, ttf="DejaVuSerifCondensed-Bold.ttf",
        index_height_mm=4.2, index_weight=0.7,
        oro_colours=((30, 170, 225), (30, 60, 170)), copa_colours=((40, 50, 190), (40, 150, 210)),
        espada_colours=((160, 110, 50), (30, 60, 170)), basto_colours=((40, 100, 150), (30, 60, 110)),
        line_mm=0.3, pip_variant=4, layout_variant=0,
        figure_palette=((40, 40, 170), (140, 90, 40), (40, 150, 200)), figure_variant=0,
        figure_detail=True, sign_at_corner=False, hatch_mm=0.9, hatch_angle=60.0),
    # A plastic casino deck: bright white, flat unoutlined inks, a big narrow bold sans index in a
    # ruled box in all four corners, coloured by suit, and a shine that washes parts of cards out.
    "casino": DeckStyle(
        name="casino", card_mm=(62.0, 94.0), paper=(252, 252, 252), ink=(20, 20, 20),
        border_ink=(20, 20, 20), border_inset_mm=9.0, border_width_mm=0.3,
        pinta_len_mm=4.5, pinta_gap_mm=2.0, font=cv2.FONT_HERSHEY_DUPLEX, ttf="LiberationSansNarrow-Bold.ttf",
        index_height_mm=6.0, index_weight=1.8, index_coloured=True, four_indices=True, index_box=True,
        oro_colours=((0, 200, 255), (0, 120, 230)), copa_colours=((30, 30, 220), (0, 180, 255)),
        espada_colours=((200, 90, 0), (0, 150, 250)), basto_colours=((40, 140, 20), (20, 80, 140)),
        outline=False, line_mm=0.3, pip_scale=1.05, pip_variant=2, layout_variant=1,
        figure_palette=((40, 20, 200), (200, 90, 0), (0, 180, 255)), figure_variant=1,
        figure_frame=True, sign_at_corner=True, gloss=0.6),
    # A worn old deck (a bar's, or a grandparent's): yellowed paper, faded brown ink, a small thin
    # italic index, muted inks, engraving hatches, stains, a crease and grimy corners.
    "antigua": DeckStyle(
        name="antigua", card_mm=(60.0, 93.0), paper=(150, 195, 222), ink=(50, 70, 105),
        border_ink=(50, 70, 105), border_inset_mm=7.5, border_width_mm=0.4,
        pinta_len_mm=6.0, pinta_gap_mm=2.2, font=cv2.FONT_HERSHEY_SCRIPT_COMPLEX,
        ttf="DejaVuSerifCondensed-Italic.ttf", index_height_mm=4.5, index_weight=0.6,
        oro_colours=((70, 160, 200), (60, 110, 150)), copa_colours=((70, 80, 170), (70, 140, 190)),
        espada_colours=((140, 120, 90), (60, 110, 150)), basto_colours=((70, 120, 100), (60, 90, 120)),
        line_mm=0.3, pip_variant=1, layout_variant=0,
        figure_palette=((70, 80, 160), (130, 110, 80), (80, 150, 190)), figure_variant=0,
        figure_detail=True, sign_at_corner=True, hatch_mm=0.9, hatch_angle=60.0, wear=1.0),
    # A modern 50-card deck: the frame line stepping in around a bold condensed sans index in the
    # suit's colour (as Fournier's current pattern), flat modern signs, half-length figures on a panel.
    "cincuenta": DeckStyle(
        name="cincuenta", card_mm=(61.5, 95.0), paper=(244, 248, 250), ink=(20, 20, 20),
        border_ink=(90, 50, 20), border_inset_mm=4.5, border_width_mm=0.6, index_notch=True,
        pinta_len_mm=5.0, pinta_gap_mm=2.5, font=cv2.FONT_HERSHEY_DUPLEX, ttf="DejaVuSansCondensed-Bold.ttf",
        index_height_mm=5.5, index_weight=1.4, index_coloured=True,
        oro_colours=((0, 190, 245), (0, 100, 200)), copa_colours=((50, 20, 200), (0, 170, 250)),
        espada_colours=((190, 100, 20), (0, 140, 240)), basto_colours=((40, 130, 40), (30, 80, 130)),
        line_mm=0.4, pip_variant=5, layout_variant=1,
        figure_palette=((60, 30, 170), (150, 110, 20), (30, 160, 230)), figure_variant=3,
        sign_at_corner=False),
}
"""Named styles never drawn in training: the model's accuracy is measured on these."""

HELD_OUT_TTF_FONTS = (
    "DejaVuSerifCondensed-Bold.ttf", "LiberationSansNarrow-Bold.ttf", "DejaVuSerifCondensed-Italic.ttf",
    "DejaVuSansCondensed-Bold.ttf",
)
"""TrueType faces only held-out styles print their index in (never in :data:`TTF_INDEX_FONTS`)."""
HELD_OUT_HERSHEY = (cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_SCRIPT_COMPLEX)
"""Hershey faces no training style or index corner is drawn in."""
HELD_OUT_PIP_VARIANTS = (4, 5)
"""Sign drawings only held-out styles use (random styles draw 0-3)."""
HELD_OUT_FIGURE_VARIANTS = (3,)
"""Figure drawings only held-out styles use (random styles draw 0-2)."""


def held_out_traits(style: DeckStyle) -> frozenset[str]:
    """What of ``style`` no training style has: a random or corner style must have none.

    Every held-out style but ``moderna`` (held out by its combination of
    training traits alone) has at least one, so no draw of the training
    distribution can make it.
    """
    traits = set()
    if style.ttf in HELD_OUT_TTF_FONTS:
        traits.add("font")
    if not style.ttf and style.font in HELD_OUT_HERSHEY:
        traits.add("hershey font")
    if style.pip_variant in HELD_OUT_PIP_VARIANTS:
        traits.add("signs")
    if style.figure_variant in HELD_OUT_FIGURE_VARIANTS:
        traits.add("figures")
    for name in ("index_box", "index_notch"):
        if getattr(style, name):
            traits.add(name)
    if style.wear > 0:
        traits.add("wear")
    if style.gloss > 0:
        traits.add("gloss")
    return frozenset(traits)


# ---------------------------------------------------------------- drawing primitives

class _Pen:
    """Draws polygons in card millimetres with anti-aliasing and sub-pixel precision."""

    SHIFT = 4

    def __init__(self, img: Image, style: DeckStyle) -> None:
        self.img = img
        self.style = style
        self.k = PX_PER_MM * (1 << self.SHIFT)

    def _pts(self, pts: npt.ArrayLike) -> npt.NDArray[np.int32]:
        return np.round(np.asarray(pts, float) * self.k).astype(np.int32).reshape(-1, 1, 2)

    def poly(self, pts: npt.ArrayLike, colour: BGR, outline: bool | None = None) -> None:
        p = self._pts(pts)
        cv2.fillPoly(self.img, [p], colour, cv2.LINE_AA, self.SHIFT)
        if self.style.shading or self.style.hatch_mm:
            self._print(p)
        if self.style.outline if outline is None else outline:
            cv2.polylines(self.img, [p], True, self.style.ink, self.thick(), cv2.LINE_AA, self.SHIFT)

    def _print(self, p: npt.NDArray[np.int32]) -> None:
        """Shade a filled shape along the style's light direction and hatch it, as engravings are."""
        st = self.style
        q = p.reshape(-1, 2) >> self.SHIFT
        h, w = self.img.shape[:2]
        x0, y0 = max(0, int(q[:, 0].min())), max(0, int(q[:, 1].min()))
        x1, y1 = min(w, int(q[:, 0].max()) + 2), min(h, int(q[:, 1].max()) + 2)
        if x1 - x0 < 3 or y1 - y0 < 3:
            return
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(mask, [p - np.int32([x0 << self.SHIFT, y0 << self.SHIFT])], 255, cv2.LINE_8, self.SHIFT)
        roi = self.img[y0:y1, x0:x1].astype(np.float32)
        inside = (mask > 0)[:, :, None]
        if st.shading:
            yy, xx = np.mgrid[0:y1 - y0, 0:x1 - x0].astype(np.float32)
            a = math.radians(st.shade_angle)
            t = xx * math.cos(a) + yy * math.sin(a)
            t = (t - t.min()) / max(1.0, float(t.max() - t.min()))
            roi = np.where(inside, roi * (1.0 - st.shading * t)[:, :, None], roi)
        if st.hatch_mm and min(x1 - x0, y1 - y0) > 8:
            lines = np.zeros_like(mask)
            step = max(3, round(st.hatch_mm * PX_PER_MM))
            a = math.radians(st.hatch_angle)
            d = math.hypot(x1 - x0, y1 - y0)
            cx, cy = (x1 - x0) / 2, (y1 - y0) / 2
            for k in range(-int(d / step) - 1, int(d / step) + 2):
                ox, oy = cx - math.sin(a) * k * step, cy + math.cos(a) * k * step
                cv2.line(lines, (round(ox - math.cos(a) * d), round(oy - math.sin(a) * d)),
                         (round(ox + math.cos(a) * d), round(oy + math.sin(a) * d)), 255, 1, cv2.LINE_AA)
            k_ = (lines.astype(np.float32) / 255.0 * 0.45)[:, :, None] * inside
            roi = roi * (1 - k_) + np.asarray(st.ink, np.float32) * k_
        self.img[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)

    def line(self, a: tuple[float, float], b: tuple[float, float], colour: BGR, width_mm: float) -> None:
        cv2.line(self.img, tuple(self._pts(a)[0, 0]), tuple(self._pts(b)[0, 0]), colour,
                 max(1, round(width_mm * PX_PER_MM)), cv2.LINE_AA, self.SHIFT)

    def circle(self, c: tuple[float, float], r: float, colour: BGR, outline: bool | None = None) -> None:
        self.ellipse(c, (r, r), 0.0, colour, outline)

    def ellipse(self, c: tuple[float, float], axes: tuple[float, float], angle: float, colour: BGR,
                outline: bool | None = None) -> None:
        t = np.linspace(0, 2 * math.pi, 36, endpoint=False)
        ca, sa = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        x, y = axes[0] * np.cos(t), axes[1] * np.sin(t)
        self.poly(np.stack([c[0] + ca * x - sa * y, c[1] + sa * x + ca * y], 1), colour, outline)

    def thick(self) -> int:
        return max(1, round(self.style.line_mm * PX_PER_MM))


def _place(local: npt.ArrayLike, cx: float, cy: float, angle: float,
           scale: float | tuple[float, float]) -> npt.NDArray[np.float64]:
    """Turn local shape points (unit size, y down) by ``angle`` degrees, scale and move them."""
    p = np.asarray(local, float) * np.asarray(scale, float)
    ca, sa = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    return np.stack([cx + ca * p[:, 0] - sa * p[:, 1], cy + sa * p[:, 0] + ca * p[:, 1]], 1)


# ---------------------------------------------------------------- suit signs

def _coin(pen: _Pen, cx: float, cy: float, size: float, angle: float, cols: tuple[BGR, BGR], v: int) -> None:
    r = size / 2
    pen.circle((cx, cy), r, cols[0])
    if v == 4:  # an eight-pointed star in a rim (held out)
        pen.circle((cx, cy), r * 0.8, cols[1], outline=False)
        pen.circle((cx, cy), r * 0.72, cols[0], outline=False)
        t = np.radians(angle + np.arange(16) * 22.5)
        rr = np.where(np.arange(16) % 2 == 0, 0.66 * r, 0.3 * r)
        pen.poly(np.stack([cx + rr * np.cos(t), cy + rr * np.sin(t)], 1), cols[1])
    elif v == 5:  # a flat disc with a broad ring (held out)
        pen.circle((cx, cy), r * 0.74, cols[1], outline=False)
        pen.circle((cx, cy), r * 0.5, cols[0], outline=False)
    elif v == 0:
        pen.circle((cx, cy), r * 0.62, cols[1], outline=False)
        pen.circle((cx, cy), r * 0.45, cols[0])
    elif v == 1:  # four-petal flower, as the Fournier oros
        for k in range(4):
            a = math.radians(angle + 45 + 90 * k)
            pen.ellipse((cx + 0.38 * r * math.cos(a), cy + 0.38 * r * math.sin(a)), (0.36 * r, 0.17 * r),
                        math.degrees(a), cols[1])
    elif v == 2:  # sun face
        pen.circle((cx, cy), r * 0.55, cols[1])
        for k in range(12):
            a = math.radians(angle + 30 * k)
            pen.line((cx + 0.6 * r * math.cos(a), cy + 0.6 * r * math.sin(a)),
                     (cx + 0.85 * r * math.cos(a), cy + 0.85 * r * math.sin(a)), cols[1], r * 0.06)
    else:  # ring of dots
        pen.circle((cx, cy), r * 0.7, cols[1], outline=False)
        pen.circle((cx, cy), r * 0.55, cols[0], outline=False)
        pen.circle((cx, cy), r * 0.18, cols[1], outline=False)


_CUP_SHAPES = [
    # goblet: bowl, stem, base (unit height, centred)
    ([(-0.42, -0.5), (0.42, -0.5), (0.36, -0.22), (0.18, -0.06), (-0.18, -0.06), (-0.36, -0.22)],
     [(-0.07, -0.06), (0.07, -0.06), (0.07, 0.3), (-0.07, 0.3)],
     [(-0.3, 0.3), (0.3, 0.3), (0.36, 0.5), (-0.36, 0.5)]),
    # chalice: rounder bowl, knot, wide foot
    ([(-0.4, -0.45), (0.4, -0.45), (0.38, -0.25), (0.25, -0.05), (0.0, 0.02), (-0.25, -0.05), (-0.38, -0.25)],
     [(-0.06, 0.0), (0.06, 0.0), (0.06, 0.32), (-0.06, 0.32)],
     [(-0.18, 0.32), (0.18, 0.32), (0.4, 0.5), (-0.4, 0.5)]),
    # beaker: tall straight bowl, short foot
    ([(-0.32, -0.5), (0.32, -0.5), (0.24, 0.05), (-0.24, 0.05)],
     [(-0.08, 0.05), (0.08, 0.05), (0.08, 0.3), (-0.08, 0.3)],
     [(-0.26, 0.3), (0.26, 0.3), (0.26, 0.5), (-0.26, 0.5)]),
]


_HELD_OUT_CUPS = {
    # lidded chalice: a round bowl under a domed lid and its knob, a knotted stem, a wide foot
    4: ([(-0.36, -0.26), (0.36, -0.26), (0.34, -0.1), (0.2, 0.04), (-0.2, 0.04), (-0.34, -0.1)],
        [(-0.06, 0.04), (0.06, 0.04), (0.1, 0.18), (0.06, 0.3), (-0.06, 0.3), (-0.1, 0.18)],
        [(-0.14, 0.3), (0.14, 0.3), (0.38, 0.5), (-0.38, 0.5)]),
    # a modern flat cup: a wide shallow bowl on a short stem and a flat foot
    5: ([(-0.48, -0.3), (0.48, -0.3), (0.3, 0.05), (-0.3, 0.05)],
        [(-0.05, 0.05), (0.05, 0.05), (0.05, 0.38), (-0.05, 0.38)],
        [(-0.3, 0.38), (0.3, 0.38), (0.3, 0.48), (-0.3, 0.48)]),
}
"""Cups only held-out styles draw (:data:`HELD_OUT_PIP_VARIANTS`)."""


def _cup(pen: _Pen, cx: float, cy: float, size: float, angle: float, cols: tuple[BGR, BGR], v: int) -> None:
    if v in _HELD_OUT_CUPS:
        bowl, stem, base = _HELD_OUT_CUPS[v]
        pen.poly(_place(stem, cx, cy, angle, size), cols[1])
        pen.poly(_place(base, cx, cy, angle, size), cols[1])
        pen.poly(_place(bowl, cx, cy, angle, size), cols[0])
        if v == 4:
            lid = [(-0.34, -0.28), (-0.28, -0.4), (-0.12, -0.46), (0.12, -0.46), (0.28, -0.4), (0.34, -0.28)]
            pen.poly(_place(lid, cx, cy, angle, size), cols[1])
            k = _place([(0.0, -0.5)], cx, cy, angle, size)[0]
            pen.circle((k[0], k[1]), 0.06 * size, cols[0])
        return
    bowl, stem, base = _CUP_SHAPES[v % len(_CUP_SHAPES)]
    pen.poly(_place(stem, cx, cy, angle, size), cols[1])
    pen.poly(_place(base, cx, cy, angle, size), cols[1])
    pen.poly(_place(bowl, cx, cy, angle, size), cols[0])
    pen.poly(_place([(-0.42, -0.5), (0.42, -0.5), (0.42, -0.44), (-0.42, -0.44)], cx, cy, angle, size), cols[1])
    if v % 2 == 0:
        pen.ellipse(tuple(_place([(0.0, 0.06)], cx, cy, angle, size)[0]), (0.09 * size, 0.06 * size), angle, cols[0])


def _sword(pen: _Pen, cx: float, cy: float, length: float, angle: float, cols: tuple[BGR, BGR], v: int,
           width: float | None = None) -> None:
    sc = (width if width is not None else length, length)
    if v == 4:  # a broad curved sabre, a round pommel and an S-shaped guard (held out)
        blade = [(-0.06, 0.22), (-0.1, 0.0), (-0.1, -0.2), (-0.04, -0.4), (0.06, -0.5), (0.04, -0.36),
                 (0.03, -0.12), (0.07, 0.08), (0.06, 0.22)]
        pen.poly(_place(blade, cx, cy, angle, sc), cols[0])
        guard = [(-0.2, 0.14), (-0.14, 0.22), (0.14, 0.22), (0.2, 0.3), (0.12, 0.27), (-0.12, 0.27)]
        pen.poly(_place(guard, cx, cy, angle, sc), cols[1])
        pen.poly(_place([(-0.04, 0.27), (0.04, 0.27), (0.04, 0.42), (-0.04, 0.42)], cx, cy, angle, sc), cols[1])
        pc = _place([(0.0, 0.46)], cx, cy, angle, sc)[0]
        pen.circle((pc[0], pc[1]), 0.07 * sc[0], cols[0])
        return
    if v == 5:  # a flat broad straight blade with a long cross guard (held out)
        blade = [(-0.08, 0.2), (-0.08, -0.42), (0.0, -0.5), (0.08, -0.42), (0.08, 0.2)]
        pen.poly(_place(blade, cx, cy, angle, sc), cols[0])
        pen.poly(_place([(-0.24, 0.2), (0.24, 0.2), (0.24, 0.26), (-0.24, 0.26)], cx, cy, angle, sc), cols[1])
        pen.poly(_place([(-0.05, 0.26), (0.05, 0.26), (0.05, 0.5), (-0.05, 0.5)], cx, cy, angle, sc), cols[1])
        return
    w = 0.055 if v % 2 == 0 else 0.075
    blade = [(-w, -0.5 + 0.08), (0.0, -0.5), (w, -0.5 + 0.08), (w, 0.22), (-w, 0.22)]
    if v == 3:  # curved blade
        blade = [(-w, 0.22), (-w - 0.03, -0.1), (-0.02, -0.5), (w + 0.02, -0.15), (w, 0.22)]
    pen.poly(_place(blade, cx, cy, angle, sc), cols[0])
    pen.poly(_place([(-0.035, 0.27), (0.035, 0.27), (0.035, 0.44), (-0.035, 0.44)], cx, cy, angle, sc), cols[1])
    guard = [(-0.17, 0.22), (0.17, 0.22), (0.17, 0.27), (-0.17, 0.27)]
    if v == 1:  # swept guard
        guard = [(-0.2, 0.16), (-0.15, 0.22), (0.15, 0.22), (0.2, 0.16), (0.2, 0.28), (-0.2, 0.28)]
    pen.poly(_place(guard, cx, cy, angle, sc), cols[1])
    pc = _place([(0.0, 0.47)], cx, cy, angle, sc)[0]
    pen.circle((pc[0], pc[1]), 0.045 * sc[0], cols[1])


def _club(pen: _Pen, cx: float, cy: float, length: float, angle: float, cols: tuple[BGR, BGR], v: int,
          width: float | None = None) -> None:
    sc = (width if width is not None else length, length)
    if v in HELD_OUT_PIP_VARIANTS:  # held out: a smooth straight baton (4) or a plain tapered stick (5)
        half = 0.07 if v == 4 else 0.06
        body = ([(-half, 0.46), (-half, -0.46), (-half * 0.6, -0.5), (half * 0.6, -0.5), (half, -0.46), (half, 0.46)]
                if v == 4 else [(-0.035, 0.5), (0.035, 0.5), (0.085, -0.42), (0.0, -0.5), (-0.085, -0.42)])
        pen.poly(_place(body, cx, cy, angle, sc), cols[0])
        for ky in ((-0.3, 0.3) if v == 4 else (-0.1,)):
            pen.poly(_place([(-half, ky - 0.03), (half, ky - 0.03), (half, ky + 0.03), (-half, ky + 0.03)],
                            cx, cy, angle, sc), cols[1])
        return
    top, bot = (0.12, 0.045) if v % 2 == 0 else (0.09, 0.06)
    body = [(-bot, 0.5), (bot, 0.5), (top, -0.32), (top * 0.7, -0.45), (0.0, -0.5), (-top * 0.7, -0.45), (-top, -0.32)]
    pen.poly(_place(body, cx, cy, angle, sc), cols[0])
    knots = [(-0.8, -0.15), (0.8, 0.0), (-0.8, 0.18), (0.8, 0.3)] if v < 2 else [(0.0, -0.2), (0.0, 0.1)]
    for kx, ky in knots:
        half = bot + (top - bot) * (0.5 - ky)
        p = _place([(kx * half, ky)], cx, cy, angle, sc)[0]
        pen.circle((p[0], p[1]), 0.03 * sc[0], cols[1])
    if v == 3:
        pen.poly(_place([(-bot, 0.44), (bot, 0.44), (bot, 0.5), (-bot, 0.5)], cx, cy, angle, sc), cols[1])


def draw_sign(pen: _Pen, suit: Suit, cx: float, cy: float, size: float, angle: float = 0.0,
              width: float | None = None) -> None:
    """One suit sign centred at (cx, cy) mm; ``size`` is a coin's or cup's height, a stick's length."""
    style = pen.style
    cols = style.suit_colours(suit)
    v = style.pip_variant
    if suit is Suit.OROS:
        _coin(pen, cx, cy, size, angle, cols, v)
    elif suit is Suit.COPAS:
        _cup(pen, cx, cy, size, angle, cols, v)
    elif suit is Suit.ESPADAS:
        _sword(pen, cx, cy, size, angle, cols, v, width)
    else:
        _club(pen, cx, cy, size, angle, cols, v, width)


# ---------------------------------------------------------------- layouts of pips

_ROUND_LAYOUTS: dict[int, list[list[tuple[float, float]]]] = {
    1: [[(0.5, 0.5)]],
    2: [[(0.5, 0.2), (0.5, 0.8)]],
    3: [[(0.5, 0.16), (0.5, 0.5), (0.5, 0.84)], [(0.28, 0.18), (0.5, 0.5), (0.72, 0.82)]],
    4: [[(0.27, 0.2), (0.73, 0.2), (0.27, 0.8), (0.73, 0.8)]],
    5: [[(0.27, 0.17), (0.73, 0.17), (0.5, 0.5), (0.27, 0.83), (0.73, 0.83)]],
    6: [[(0.27, 0.16), (0.73, 0.16), (0.27, 0.5), (0.73, 0.5), (0.27, 0.84), (0.73, 0.84)]],
    7: [[(0.27, 0.14), (0.73, 0.14), (0.5, 0.33), (0.27, 0.53), (0.73, 0.53), (0.27, 0.86), (0.73, 0.86)],
        [(0.22, 0.16), (0.22, 0.5), (0.22, 0.84), (0.5, 0.5), (0.78, 0.16), (0.78, 0.5), (0.78, 0.84)]],
}

# Sticks (espadas, bastos): (u, v, angle in degrees, relative length).
_STICK_LAYOUTS: dict[int, list[list[tuple[float, float, float, float]]]] = {
    1: [[(0.5, 0.5, 0.0, 0.95)]],
    2: [[(0.5, 0.5, 28.0, 0.95), (0.5, 0.5, -28.0, 0.95)], [(0.35, 0.5, 0.0, 0.9), (0.65, 0.5, 0.0, 0.9)]],
    3: [[(0.25, 0.5, 0.0, 0.9), (0.5, 0.5, 0.0, 0.9), (0.75, 0.5, 0.0, 0.9)],
        [(0.5, 0.5, 28.0, 0.95), (0.5, 0.5, -28.0, 0.95), (0.5, 0.5, 0.0, 0.95)]],
    4: [[(0.3, 0.27, 15.0, 0.45), (0.7, 0.27, -15.0, 0.45), (0.3, 0.73, -15.0, 0.45), (0.7, 0.73, 15.0, 0.45)],
        [(0.5, 0.5, 25.0, 0.95), (0.5, 0.5, -25.0, 0.95), (0.2, 0.5, 0.0, 0.8), (0.8, 0.5, 0.0, 0.8)]],
    5: [[(0.3, 0.22, 12.0, 0.38), (0.7, 0.22, -12.0, 0.38), (0.5, 0.5, 90.0, 0.5),
         (0.3, 0.78, -12.0, 0.38), (0.7, 0.78, 12.0, 0.38)]],
    6: [[(0.22, 0.26, 0.0, 0.42), (0.5, 0.26, 0.0, 0.42), (0.78, 0.26, 0.0, 0.42),
         (0.22, 0.74, 0.0, 0.42), (0.5, 0.74, 0.0, 0.42), (0.78, 0.74, 0.0, 0.42)],
        [(0.3, 0.17, 20.0, 0.3), (0.7, 0.17, -20.0, 0.3), (0.3, 0.5, -20.0, 0.3),
         (0.7, 0.5, 20.0, 0.3), (0.3, 0.83, 20.0, 0.3), (0.7, 0.83, -20.0, 0.3)]],
    7: [[(0.22, 0.22, 0.0, 0.38), (0.5, 0.22, 0.0, 0.38), (0.78, 0.22, 0.0, 0.38), (0.5, 0.5, 90.0, 0.5),
         (0.22, 0.78, 0.0, 0.38), (0.5, 0.78, 0.0, 0.38), (0.78, 0.78, 0.0, 0.38)]],
}


def _draw_pips(pen: _Pen, suit: Suit, n: int, frame: tuple[float, float, float, float]) -> None:
    x0, y0, x1, y1 = frame
    fw, fh = x1 - x0, y1 - y0
    variant = pen.style.layout_variant
    if suit in (Suit.OROS, Suit.COPAS):
        layouts = _ROUND_LAYOUTS[n]
        pts = layouts[variant % len(layouts)]
        # the sign's size is the style's for this count, not a rule of the count: real decks print
        # small signs on a 2 as on a 7, and a model must count them, not measure them
        if pen.style.pip_sizes is None:  # the held-out styles' sizes, as they always were
            size = fw * (0.8 if n == 1 else 0.5 if suit is Suit.OROS and n == 2 else 0.4 if n <= 3 else 0.34)
        else:
            size = fw * pen.style.pip_sizes[n - 1]
        size *= pen.style.pip_scale
        if len(pts) > 1:  # never touching: smaller than the closest two centres
            c = np.array([(u * fw, v * fh) for u, v in pts])
            dx = np.abs(c[:, None, 0] - c[None, :, 0]) / 0.95
            dy = np.abs(c[:, None, 1] - c[None, :, 1]) / 1.12
            room = np.maximum(dx, dy) + np.eye(len(pts)) * 1e9
            size = min(size, float(room.min()))
        for u, v in pts:
            draw_sign(pen, suit, x0 + u * fw, y0 + v * fh, size)
    else:
        sticks = _STICK_LAYOUTS[n]
        flip = pen.style.stick_flip
        for u, v, ang, rel in sticks[variant % len(sticks)]:
            if n == 1 and pen.style.ace_tilt:  # a lone sword or club laid slanting
                ang, rel = 22.0, 1.0
            if flip == 1 or (flip == 2 and v < 0.5):  # hilts or grips up, as many decks print them
                ang += 180.0
            length = rel * fh * min(1.0, pen.style.pip_scale) * pen.style.stick_sizes[n - 1]
            draw_sign(pen, suit, x0 + u * fw, y0 + v * fh, length, ang,
                      min(length, 0.5 * fw * pen.style.pip_scale))


# ---------------------------------------------------------------- figures

def _draw_figure(pen: _Pen, card: Card, frame: tuple[float, float, float, float]) -> None:
    st = pen.style
    x0, y0, x1, y1 = frame
    fw, fh = x1 - x0, y1 - y0
    m = -1.0 if st.figure_mirror else 1.0
    c1, c2, c3 = st.figure_palette
    fv = st.figure_variant

    def P(u: float, v: float) -> tuple[float, float]:  # frame units -> mm, mirrored
        return (x0 + (0.5 + m * (u - 0.5)) * fw, y0 + v * fh)

    def poly(pts: list[tuple[float, float]], col: BGR) -> None:
        pen.poly([P(u, v) for u, v in pts], col)

    if fv in HELD_OUT_FIGURE_VARIANTS:
        _draw_half_figure(pen, card, P)
        return
    if st.figure_frame:
        pen.poly([P(0.04, 0.03), P(0.96, 0.03), P(0.96, 0.97), P(0.04, 0.97)], st.paper)
    ground = 0.95
    pen.poly([P(0.08, ground - 0.02), P(0.92, ground - 0.02), P(0.92, ground + 0.01), P(0.08, ground + 0.01)],
             c3 if fv != 1 else st.basto_colours[0], outline=False)
    sign_size = fw * 0.32
    if st.figure_detail and card.rank != 11:  # a cloak behind the figure, as real figures wear
        poly([(0.34, 0.27), (0.66, 0.27), (0.86, 0.88), (0.5, 0.92), (0.14, 0.88)], c3 if fv != 2 else c2)
    if card.rank == 11:  # caballo: a rider on a horse
        hx = 0.5
        poly([(hx - 0.3, 0.55), (hx + 0.25, 0.52), (hx + 0.28, 0.7), (hx - 0.3, 0.72)], c2)  # body
        for lx in (-0.26, -0.14, 0.12, 0.22):  # legs
            poly([(hx + lx, 0.68), (hx + lx + 0.06, 0.68), (hx + lx + 0.06 + 0.03 * (fv - 1), ground - 0.02),
                  (hx + lx + 0.03 * (fv - 1), ground - 0.02)], c2)
        poly([(hx + 0.18, 0.55), (hx + 0.28, 0.36), (hx + 0.36, 0.36), (hx + 0.3, 0.6)], c2)  # neck
        pen.ellipse(P(hx + 0.36, 0.38), (0.09 * fw, 0.05 * fh), m * 25.0, c2)  # head
        poly([(hx - 0.3, 0.56), (hx - 0.42, 0.7), (hx - 0.36, 0.74)], c3)  # tail
        poly([(hx - 0.14, 0.52), (hx + 0.1, 0.52), (hx + 0.08, 0.6), (hx - 0.12, 0.6)], c1)  # saddle cloth
        poly([(hx - 0.1, 0.28), (hx + 0.08, 0.28), (hx + 0.06, 0.53), (hx - 0.08, 0.53)], c1)  # rider
        poly([(hx - 0.02, 0.5), (hx + 0.04, 0.5), (hx + 0.04, 0.66), (hx - 0.02, 0.66)], c3)  # leg
        pen.circle(P(hx, 0.22), 0.07 * fw, st.skin)
        poly([(hx - 0.08, 0.17), (hx + 0.08, 0.17), (hx + 0.05, 0.11), (hx - 0.05, 0.11)], c3)  # hat
        hand = (hx - 0.2, 0.3)
    elif card.rank == 12:  # rey: crowned, long robe
        poly([(0.36, 0.28), (0.64, 0.28), (0.76, ground - 0.02), (0.24, ground - 0.02)], c1)  # robe
        poly([(0.3, 0.3), (0.36, 0.28), (0.3, 0.8), (0.22, 0.8)], c2)  # cape
        poly([(0.64, 0.28), (0.7, 0.3), (0.8, 0.8), (0.72, 0.8)], c2)
        poly([(0.44, 0.4), (0.56, 0.4), (0.56, 0.45), (0.44, 0.45)], c3)  # belt
        pen.circle(P(0.5, 0.2), 0.085 * fw, st.skin)
        poly([(0.43, 0.22), (0.57, 0.22), (0.5, 0.33)], st.ink if fv == 0 else c3)  # beard
        crown = [(0.4, 0.13), (0.6, 0.13), (0.62, 0.05), (0.56, 0.09), (0.5, 0.03), (0.44, 0.09), (0.38, 0.05)]
        poly(crown, st.oro_colours[0])
        hand = (0.27, 0.38)
    else:  # sota: a page standing, short tunic, legs
        poly([(0.38, 0.3), (0.62, 0.3), (0.66, 0.62), (0.34, 0.62)], c1)  # tunic
        poly([(0.4, 0.62), (0.47, 0.62), (0.46, ground - 0.02), (0.39, ground - 0.02)], c2)  # legs
        poly([(0.53, 0.62), (0.6, 0.62), (0.61, ground - 0.02), (0.54, ground - 0.02)], c2)
        poly([(0.62, 0.32), (0.7, 0.34), (0.68, 0.55), (0.62, 0.55)], c3)  # arm
        pen.circle(P(0.5, 0.22), 0.08 * fw, st.skin)
        poly([(0.4, 0.18), (0.6, 0.18), (0.58, 0.1), (0.42, 0.1)] if fv != 2 else
             [(0.38, 0.18), (0.62, 0.18), (0.5, 0.08)], c3)  # cap
        hand = (0.28, 0.4)
    if st.figure_detail:  # a patterned garment and a collar
        for k in range(5):
            pen.circle(P(0.44 + 0.03 * (k % 3), 0.34 + 0.05 * k), 0.018 * fw, c3 if k % 2 else st.paper)
        poly([(0.42, 0.27), (0.58, 0.27), (0.55, 0.31), (0.45, 0.31)], st.paper)
    if st.sign_at_corner:
        draw_sign(pen, card.suit, *P(0.2, 0.12), sign_size * (0.8 if card.suit in (Suit.OROS, Suit.COPAS) else 1.2),
                  0.0 if card.suit in (Suit.OROS, Suit.COPAS) else m * 30.0)
    else:
        size = sign_size * (0.8 if card.suit in (Suit.OROS, Suit.COPAS) else 1.6)
        draw_sign(pen, card.suit, *P(*hand), size, 0.0 if card.suit in (Suit.OROS, Suit.COPAS) else m * 20.0)


def _draw_half_figure(pen: _Pen, card: Card, P: Callable[[float, float], tuple[float, float]]) -> None:
    """A half-length figure on a tinted panel, its suit's sign held large in front (held out).

    Modern decks draw their figures so: the sota bare-headed under a cap, the
    caballo's rider beside his horse's head, the rey crowned and bearded.
    """
    st = pen.style
    c1, c2, c3 = st.figure_palette
    tint: BGR = tuple(int(0.25 * a + 0.75 * b) for a, b in zip(c3, st.paper, strict=True))  # type: ignore[assignment]
    (ax, y0), (bx, y1) = P(0.0, 0.0), P(1.0, 1.0)
    x0, x1 = min(ax, bx), max(ax, bx)
    fw = x1 - x0
    lft, t, r, b = x0 + 0.03 * fw, y0 + 0.02 * (y1 - y0), x1 - 0.03 * fw, y1 - 0.02 * (y1 - y0)
    if st.index_notch:  # the panel keeps clear of the notches the frame line makes for the index
        nw, nh = _notch_mm(st)
        cx, cy = st.border_inset_mm + nw + 0.8, st.border_inset_mm + nh + 0.8
        w_mm, h_mm = st.card_mm
        pen.poly([(cx, t), (r, t), (r, h_mm - cy), (w_mm - cx, h_mm - cy), (w_mm - cx, b), (lft, b), (lft, cy),
                  (cx, cy)], tint)
    else:
        pen.poly([(lft, t), (r, t), (r, b), (lft, b)], tint)

    def poly(pts: list[tuple[float, float]], col: BGR) -> None:
        pen.poly([P(u, v) for u, v in pts], col)

    if card.rank == 11:  # the horse's head and neck rising at the left
        poly([(0.04, 0.98), (0.08, 0.5), (0.16, 0.3), (0.3, 0.22), (0.4, 0.28), (0.36, 0.4), (0.26, 0.42),
              (0.3, 0.98)], c2)
        poly([(0.22, 0.24), (0.25, 0.14), (0.29, 0.23)], c2)  # ear
        pen.circle(P(0.3, 0.3), 0.025 * fw, st.ink)  # eye
        poly([(0.12, 0.5), (0.22, 0.5), (0.24, 0.56), (0.1, 0.56)], c1)  # bridle
    # shoulders and chest
    poly([(0.2, 0.98), (0.26, 0.56), (0.4, 0.47), (0.6, 0.47), (0.74, 0.56), (0.8, 0.98)],
         c3 if card.rank == 11 else c1)
    if card.rank == 12:  # a cloak over the shoulders
        poly([(0.18, 0.98), (0.24, 0.55), (0.38, 0.47), (0.3, 0.98)], c2)
        poly([(0.82, 0.98), (0.76, 0.55), (0.62, 0.47), (0.7, 0.98)], c2)
    head_y = 0.34 if card.rank == 11 else 0.32
    head_x = 0.58 if card.rank == 11 else 0.5
    pen.circle(P(head_x, head_y), 0.13 * fw, st.skin)
    if card.rank == 10:  # a cap with a feather
        poly([(head_x - 0.15, head_y - 0.06), (head_x + 0.15, head_y - 0.06), (head_x + 0.1, head_y - 0.15),
              (head_x - 0.1, head_y - 0.15)], c2)
        poly([(head_x + 0.1, head_y - 0.14), (head_x + 0.26, head_y - 0.24), (head_x + 0.13, head_y - 0.1)], c3)
    elif card.rank == 11:  # a brimmed hat
        pen.ellipse(P(head_x, head_y - 0.08), (0.2 * fw, 0.025 * abs(y1 - y0)), 0.0, c1)
        poly([(head_x - 0.09, head_y - 0.09), (head_x + 0.09, head_y - 0.09), (head_x + 0.07, head_y - 0.17),
              (head_x - 0.07, head_y - 0.17)], c1)
    else:  # crowned and bearded
        poly([(head_x - 0.12, head_y - 0.1), (head_x + 0.12, head_y - 0.1), (head_x + 0.14, head_y - 0.2),
              (head_x + 0.07, head_y - 0.15), (head_x, head_y - 0.23), (head_x - 0.07, head_y - 0.15),
              (head_x - 0.14, head_y - 0.2)], st.oro_colours[0])
        poly([(head_x - 0.1, head_y + 0.03), (head_x + 0.1, head_y + 0.03), (head_x, head_y + 0.16)], st.ink)
    size = fw * (0.34 if card.suit in (Suit.OROS, Suit.COPAS) else 0.62)
    angle = 0.0 if card.suit in (Suit.OROS, Suit.COPAS) else 25.0
    draw_sign(pen, card.suit, *P(0.52, 0.74), size, angle)


# ---------------------------------------------------------------- border, pintas and index

def _notch_mm(style: DeckStyle) -> tuple[float, float]:
    """Width and height of the step the frame line makes around an index (``index_notch``)."""
    return (style.index_height_mm * 1.3 + 2.0, style.index_height_mm + 2.4)


def _draw_border(pen: _Pen, suit: Suit, w: float, h: float) -> tuple[float, float, float, float]:
    st = pen.style
    i = st.border_inset_mm
    x0, y0, x1, y1 = i, i, w - i, h - i
    gaps = PINTAS[suit]
    bw = st.border_width_mm
    nw, nh = _notch_mm(st) if st.index_notch else (0.0, 0.0)
    pen.line((x0, y0 + nh), (x0, y1), st.border_ink, bw)
    pen.line((x1, y0), (x1, y1 - nh), st.border_ink, bw)
    if st.index_notch:  # the line steps in around the index, top left and bottom right
        pen.line((x0, y0 + nh), (x0 + nw, y0 + nh), st.border_ink, bw)
        pen.line((x0 + nw, y0 + nh), (x0 + nw, y0), st.border_ink, bw)
        pen.line((x1, y1 - nh), (x1 - nw, y1 - nh), st.border_ink, bw)
        pen.line((x1 - nw, y1 - nh), (x1 - nw, y1), st.border_ink, bw)
    # top and bottom lines broken by the pintas: `gaps` gaps of paper, centred
    gap, dash = st.pinta_gap_mm, st.pinta_len_mm
    span = gaps * gap + (gaps - 1) * dash if gaps else 0.0
    for y in (y0, y1):
        if st.pinta_spread:  # gaps centred at equal steps along the whole line
            cuts = [x0 + (x1 - x0) * (k + 1) / (gaps + 1) - gap / 2 for k in range(gaps)]
        else:
            cuts = [(x0 + x1) / 2 - span / 2 + k * (gap + dash) for k in range(gaps)]
        start = x0 + (nw if y == y0 else 0.0)
        for pos in cuts:
            pen.line((start, y), (pos, y), st.border_ink, bw)
            start = pos + gap
        pen.line((start, y), (x1 - (nw if y == y1 else 0.0), y), st.border_ink, bw)
    if st.double_border:
        d = 1.2
        cv2.rectangle(pen.img, (round((x0 + d) * PX_PER_MM), round((y0 + d) * PX_PER_MM)),
                      (round((x1 - d) * PX_PER_MM), round((y1 - d) * PX_PER_MM)), st.border_ink,
                      max(1, round(bw * 0.6 * PX_PER_MM)), cv2.LINE_AA)
    pad = 1.8 + (1.2 if st.double_border else 0.0)
    return (x0 + pad, y0 + pad, x1 - pad, y1 - pad)


TTF_INDEX_FONTS = (
    "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf", "DejaVuSerif-Italic.ttf", "DejaVuSerifCondensed.ttf",
    "DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansCondensed.ttf", "DejaVuSans-ExtraLight.ttf",
    "DejaVuSansMono.ttf", "LiberationSerif-Regular.ttf", "LiberationSerif-Bold.ttf",
    "LiberationSerif-Italic.ttf", "LiberationSans-Regular.ttf", "LiberationSans-Bold.ttf",
    "LiberationSansNarrow-Regular.ttf", "LiberationMono-Regular.ttf",
)
"""TrueType fonts the corner model's decks may print their indices in, where the machine has them."""


@lru_cache(maxsize=1)
def available_ttf_fonts() -> tuple[str, ...]:
    """Those of :data:`TTF_INDEX_FONTS` that Pillow finds on this machine (none without Pillow)."""
    try:
        from PIL import ImageFont
    except ImportError:
        return ()
    found = []
    for name in TTF_INDEX_FONTS:
        try:
            ImageFont.truetype(name, 20)
        except OSError:
            continue
        found.append(name)
    return tuple(found)


def _ttf_mask(text: str, name: str) -> Image:
    from PIL import Image as PILImage
    from PIL import ImageDraw, ImageFont

    font = ImageFont.truetype(name, 160)
    canvas = PILImage.new("L", (200 * len(text) + 40, 260), 0)
    ImageDraw.Draw(canvas).text((20, 20), text, fill=255, font=font)
    return np.asarray(canvas, np.uint8)


def _index_image(text: str, style: DeckStyle, colour: BGR, paper: BGR) -> tuple[Image, Image]:
    """The printed index as a small image and its ink mask, ``index_height_mm`` high."""
    font = style.font | (cv2.FONT_ITALIC if style.italic else 0)
    scale = 4.0
    th = max(1, round(scale * 1.6 * style.index_weight))
    canvas = None
    if style.ttf:
        try:
            canvas = _ttf_mask(text, style.ttf)
        except (OSError, ImportError):  # not on this machine: ``font`` prints it
            canvas = None
    if canvas is None:
        (tw, tht), base = cv2.getTextSize(text, font, scale, th)
        canvas = np.zeros((tht + base + 2 * th + 4, tw + 2 * th + 4), np.uint8)
        cv2.putText(canvas, text, (th + 2, tht + th + 2), font, scale, 255, th, cv2.LINE_AA)
    ys, xs = np.nonzero(canvas)
    canvas = canvas[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    hpx = max(6, round(style.index_height_mm * PX_PER_MM))
    wpx = max(3, round(canvas.shape[1] * hpx / canvas.shape[0]))
    mask = cv2.resize(canvas, (wpx, hpx), interpolation=cv2.INTER_AREA)
    img = np.empty((hpx, wpx, 3), np.uint8)
    img[:] = colour
    return img, mask


def _stamp(dst: Image, src: Image, mask: Image, x: int, y: int) -> None:
    h, w = mask.shape
    x = int(np.clip(x, 0, dst.shape[1] - w))
    y = int(np.clip(y, 0, dst.shape[0] - h))
    roi = dst[y:y + h, x:x + w]
    a = (mask.astype(np.float32) / 255.0)[:, :, None]
    roi[:] = (roi * (1 - a) + src * a).astype(np.uint8)


def _draw_indices(img: Image, card: Card, style: DeckStyle) -> None:
    colour = style.suit_colours(card.suit)[0] if style.index_coloured else style.ink
    if style.index_coloured and sum(colour) > 560:  # too pale on paper: use the darker colour
        colour = style.suit_colours(card.suit)[1]
    ink, mask = _index_image(str(card.rank), style, colour, style.paper)
    h, w = img.shape[:2]
    inset = style.border_inset_mm
    mx = round(max(0.8, (inset - mask.shape[1] / PX_PER_MM) / 2) * PX_PER_MM)
    my = round(max(1.0, inset * 0.35) * PX_PER_MM)
    if style.index_inside:  # in the frame's corner, on a patch of paper
        mx = my = round((inset + style.border_width_mm + 0.9) * PX_PER_MM)
        pad = round(0.6 * PX_PER_MM)
        for x, y in ((mx, my), (w - mx - mask.shape[1], h - my - mask.shape[0])):
            cv2.rectangle(img, (x - pad, y - pad), (x + mask.shape[1] + pad, y + mask.shape[0] + pad),
                          style.paper, -1)
    if style.index_notch:  # centred in the notch the frame line makes
        nw, nh = _notch_mm(style)
        mx = round((inset + (nw - style.border_width_mm) / 2) * PX_PER_MM - mask.shape[1] / 2)
        my = round((inset + (nh - style.border_width_mm) / 2) * PX_PER_MM - mask.shape[0] / 2)
    spots = [(mx, my, False), (w - mx - mask.shape[1], h - my - mask.shape[0], True)]
    if style.four_indices:
        spots += [(w - mx - mask.shape[1], my, False), (mx, h - my - mask.shape[0], True)]
    for x, y, turned in spots:
        if style.index_box:  # a thin ruled box round the index
            pad = round(0.8 * PX_PER_MM)
            cv2.rectangle(img, (x - pad, y - pad), (x + mask.shape[1] + pad, y + mask.shape[0] + pad),
                          style.border_ink, max(1, round(0.25 * PX_PER_MM)), cv2.LINE_AA)
        if turned:
            _stamp(img, ink[::-1, ::-1], mask[::-1, ::-1], x, y)
        else:
            _stamp(img, ink, mask, x, y)


# ---------------------------------------------------------------- the card

def render_card(card: Card, style: DeckStyle, rng: np.random.Generator | None = None) -> Image:
    """Draw one card face, upright, as a BGR image of ``style.size_px``.

    With an ``rng``, the face gets a little wear: uneven paper tone, faded ink.
    """
    wpx, hpx = style.size_px
    w, h = wpx / PX_PER_MM, hpx / PX_PER_MM
    img = np.empty((hpx, wpx, 3), np.uint8)
    img[:] = style.paper
    pen = _Pen(img, style)
    frame = _draw_border(pen, card.suit, w, h)
    if card.rank == 1 and style.ornaments:
        _draw_ornaments(pen, card.suit, frame)
    if card.rank <= 7:
        _draw_pips(pen, card.suit, card.rank, frame)
        if card.rank == 1 and style.ornaments and card.suit in (Suit.ESPADAS, Suit.BASTOS):
            _draw_ribbon(pen, frame)
    else:
        _draw_figure(pen, card, frame)
    _draw_indices(img, card, style)
    if style.wear > 0:
        img = _worn(img, card, style.wear)
    if rng is not None:
        img = _wear(img, rng)
        if style.grain:
            img = _grain(img, style.grain, rng)
    return img


def _grain(img: Image, amount: float, rng: np.random.Generator) -> Image:
    """Paper grain and a print whose inks are a pixel out of register."""
    f = img.astype(np.float32)
    f += rng.normal(0.0, amount, img.shape[:2])[:, :, None]
    if rng.random() < 0.5:
        ch = int(rng.integers(3))
        f[:, :, ch] = np.roll(f[:, :, ch], (int(rng.integers(-2, 3)), int(rng.integers(-2, 3))), axis=(0, 1))
    return np.clip(f, 0, 255).astype(np.uint8)


def _draw_ornaments(pen: _Pen, suit: Suit, frame: tuple[float, float, float, float]) -> None:
    """The ace's flourishes: a banner with lettering above and below, leaves around the sign."""
    st = pen.style
    x0, y0, x1, y1 = frame
    fw, fh = x1 - x0, y1 - y0
    leaf = st.basto_colours[0] if suit is not Suit.BASTOS else st.figure_palette[1]
    for k in range(8):
        a = math.radians(200 + k * 18)
        for side in (-1, 1):
            cx = x0 + fw / 2 + side * 0.42 * fw * math.cos(a)
            cy = y0 + fh * 0.55 - 0.3 * fh * math.sin(a)
            pen.ellipse((cx, cy), (0.07 * fw, 0.03 * fh), side * (40 + k * 12), leaf)
    for yb in (0.06, 0.9):
        band = [(x0 + 0.15 * fw, y0 + (yb - 0.04) * fh), (x0 + 0.85 * fw, y0 + (yb - 0.04) * fh),
                (x0 + 0.92 * fw, y0 + yb * fh), (x0 + 0.85 * fw, y0 + (yb + 0.04) * fh),
                (x0 + 0.15 * fw, y0 + (yb + 0.04) * fh), (x0 + 0.08 * fw, y0 + yb * fh)]
        pen.poly(band, st.figure_palette[0])
        x = x0 + 0.22 * fw
        while x < x0 + 0.76 * fw:  # lettering: short strokes of ink
            wl = fw * (0.025 + 0.02 * ((x * 7.3) % 1.0))
            pen.line((x, y0 + yb * fh), (x + wl, y0 + yb * fh), st.paper, 0.9)
            x += wl + fw * 0.025


def _draw_ribbon(pen: _Pen, frame: tuple[float, float, float, float]) -> None:
    """A ribbon wound round the ace's sword or club."""
    x0, y0, x1, y1 = frame
    fw, fh = x1 - x0, y1 - y0
    col = pen.style.figure_palette[0]
    for v in (0.35, 0.55):
        pen.poly([(x0 + 0.25 * fw, y0 + v * fh), (x0 + 0.75 * fw, y0 + (v - 0.08) * fh),
                  (x0 + 0.75 * fw, y0 + (v - 0.03) * fh), (x0 + 0.25 * fw, y0 + (v + 0.05) * fh)], col)


def _wear(img: Image, rng: np.random.Generator) -> Image:
    h, w = img.shape[:2]
    f = img.astype(np.float32)
    fade = rng.uniform(0.0, 0.25)
    f = f * (1 - fade) + 235.0 * fade
    g = cv2.resize(rng.normal(1.0, 0.04, (4, 3)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    f *= g[:, :, None]
    return np.clip(f, 0, 255).astype(np.uint8)


def _worn(img: Image, card: Card, amount: float) -> Image:
    """A card of a deck long in use, the same each time it is drawn: yellowed towards its edges,
    grimy corners, two or three stains, a crease, and its inks faded towards the paper."""
    rng = np.random.default_rng(7919 + card.index)
    h, w = img.shape[:2]
    f = img.astype(np.float32)
    paper = np.median(f[h // 3:h // 3 + 20, 3:12].reshape(-1, 3), axis=0)
    f = f * (1 - 0.18 * amount) + paper * 0.18 * amount  # faded ink
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    edge = np.minimum(np.minimum(xx, w - 1 - xx), np.minimum(yy, h - 1 - yy)) / (0.12 * w)
    yellow = np.clip(1.0 - edge, 0, 1) * 0.14 * amount  # yellowed, browner, towards the edges
    f *= (1 - yellow[:, :, None] * np.float32([0.9, 0.45, 0.2]))
    for cx, cy in ((0, 0), (w, 0), (0, h), (w, h)):  # grime where thumbs hold it
        d = np.hypot(xx - cx, yy - cy) / (0.22 * w)
        f *= (1 - 0.16 * amount * np.clip(1 - d, 0, 1) ** 2)[:, :, None]
    for _ in range(int(rng.integers(2, 4))):  # stains: soft brownish blots
        cx, cy = rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h
        rx, ry = rng.uniform(0.05, 0.16) * w, rng.uniform(0.04, 0.12) * w
        d = ((xx - cx) / rx) ** 2 + ((yy - cy) / ry) ** 2
        a = np.exp(-d * 1.5) * float(rng.uniform(0.08, 0.2)) * amount
        f = f * (1 - a[:, :, None]) + np.float32([60, 110, 150]) * a[:, :, None]
    t = rng.uniform(0, np.pi)  # a crease: a light line beside a dark one
    nx, ny = np.cos(t), np.sin(t)
    dist = (xx - w / 2 - rng.uniform(-0.3, 0.3) * w) * nx + (yy - h / 2 - rng.uniform(-0.3, 0.3) * h) * ny
    f *= (1 - 0.12 * amount * np.exp(-((dist - 1.5) / 1.2) ** 2))[:, :, None]
    f += (25 * amount * np.exp(-((dist + 1.5) / 1.2) ** 2))[:, :, None]
    return np.clip(f, 0, 255).astype(np.uint8)


@lru_cache(maxsize=64)
def deck_faces(style: DeckStyle) -> dict[Card, Image]:
    """All 40 faces of a style (cached: scenes reuse them)."""
    return {card: render_card(card, style) for card in DECK}


def load_deck(folder: Path | str) -> dict[Card, Image] | None:
    """A scanned deck as faces (``{rank}_{oro,copa,espada,basto}`` .webp, .png or .jpg), or None.

    None where the folder is absent or a face is missing or unreadable.
    """
    root = Path(folder)
    if not root.is_dir():
        return None
    faces: dict[Card, Image] = {}
    for card in DECK:
        stem = f"{card.rank}_{_SUIT_FILE[card.suit]}"
        img = None
        for ext in (".webp", ".png", ".jpg", ".jpeg"):
            if (root / (stem + ext)).is_file():
                img = cv2.imread(str(root / (stem + ext)), cv2.IMREAD_COLOR)
                break
        if img is None:
            return None
        faces[card] = img
    return faces


def load_fournier1878(folder: Path | str | None = None) -> dict[Card, Image] | None:
    """The scanned 1878 Fournier deck as faces, or None where the folder is absent or incomplete."""
    return load_deck(folder if folder is not None else FOURNIER1878)


def restyle_faces(faces: dict[Card, Image], rng: np.random.Generator) -> dict[Card, Image]:
    """A scanned deck varied like another print run: hue and tone shifted, sometimes re-indexed.

    Re-drawing the corner index in a random font keeps the model from learning
    one maker's digits.
    """
    shift = int(rng.integers(-12, 13))
    sat = float(rng.uniform(0.7, 1.2))
    val = float(rng.uniform(0.85, 1.1))
    style = random_style(rng)
    reindex = rng.random() < 0.5
    redraw = rng.random() < REDRAWN_SHARE
    reink = rng.random() < 0.5
    levels = int(rng.integers(4, 8))
    out: dict[Card, Image] = {}
    for card, face in faces.items():
        hsv = cv2.cvtColor(face, cv2.COLOR_BGR2HSV).astype(np.float32)
        hsv[:, :, 0] = (hsv[:, :, 0] + shift) % 180
        hsv[:, :, 1] = np.clip(hsv[:, :, 1] * sat, 0, 255)
        hsv[:, :, 2] = np.clip(hsv[:, :, 2] * val, 0, 255)
        img = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)
        if redraw:  # as another maker might draw the same deck: its indices must be re-printed too
            if reink:
                img = _reink(img, levels)
            img = _reindex(_vary_art(_blank_indices(img), rng), card, style)
        elif reindex:
            img = _reindex(img, card, style)
        out[card] = img
    return out


ART_BOX = (0.07, 0.05, 0.93, 0.95)
"""The part of a scanned face (x0, y0, x1, y1 as shares) inside its frame line and pintas."""
REDRAWN_SHARE = 0.6
"""Share of restyled scanned decks whose art is also redrawn (:func:`_vary_art`)."""


def _index_boxes(w: int, h: int) -> tuple[tuple[int, int, int, int], tuple[int, int, int, int]]:
    """Where a scanned face's two corner indices lie: (x0, y0, x1, y1) px, top left and bottom right."""
    bw, bh = int(w * 0.17), int(h * 0.1)
    return (2, 2, bw, bh), (w - bw, h - bh, w - 3, h - 3)


def _paper_of(face: Image) -> tuple[int, int, int]:
    """A scanned face's paper colour: the median of a strip at its left edge, a third of the way down."""
    h = face.shape[0]
    b, g, r = (int(v) for v in np.median(face[h // 3:h // 3 + 20, 5:20].reshape(-1, 3), axis=0))
    return (b, g, r)


def _blank_indices(face: Image) -> Image:
    """The face with its corner indices painted over in its paper's colour."""
    h, w = face.shape[:2]
    img = face.copy()
    paper = _paper_of(face)
    for x0, y0, x1, y1 in _index_boxes(w, h):
        cv2.rectangle(img, (x0, y0), (x1, y1), paper, -1)
    return img


def _reink(face: Image, levels: int) -> Image:
    """The face printed with fewer inks and darker outlines (smoothed, posterised, edges inked).

    Another printing of a pattern differs in its inks as much as in its
    drawing. (The measure, :func:`redrawn_deck`, re-inks by another method,
    :func:`cv2.stylization`, so that it stays out of training.)
    """
    smooth = cv2.bilateralFilter(face, 7, 50, 7)
    step = 256.0 / levels
    poster = (np.floor(smooth.astype(np.float32) / step) * step + step / 2).clip(0, 255)
    grey = cv2.cvtColor(smooth, cv2.COLOR_BGR2GRAY)
    edges = cv2.Canny(grey, 60, 140)
    edges = cv2.dilate(edges, np.ones((2, 2), np.uint8)) > 0
    poster[edges] *= 0.35
    return np.asarray(poster, np.uint8)


def _vary_art(face: Image, rng: np.random.Generator) -> Image:
    """The same card as another maker might draw it: its art mirrored, smaller, moved.

    A model that saw one scanned deck as printed learns that deck's drawings
    (with its art mirrored, the 1878 Fournier deck read 50 % right instead of
    99 %); varying the art's geometry keeps it to what such decks share (the
    signs' look and number, the figures' kind). The frame line and its pintas
    stay put; nothing leaves the frame.
    """
    h, w = face.shape[:2]
    x0, y0, x1, y1 = (round(ART_BOX[0] * w), round(ART_BOX[1] * h), round(ART_BOX[2] * w), round(ART_BOX[3] * h))
    art = face[y0:y1, x0:x1]
    if rng.random() < 0.5:
        art = art[:, ::-1]
    ah, aw = art.shape[:2]
    scale = float(rng.uniform(0.8, 1.0))
    dx = float(rng.uniform(-1.0, 1.0)) * (1 - scale) * aw / 2
    dy = float(rng.uniform(-1.0, 1.0)) * (1 - scale) * ah / 2
    m = np.array([[scale, 0.0, (1 - scale) * aw / 2 + dx], [0.0, scale, (1 - scale) * ah / 2 + dy]], np.float32)
    b, g, r = _paper_of(face)
    moved = cv2.warpAffine(np.ascontiguousarray(art), m, (aw, ah), flags=cv2.INTER_AREA,
                           borderMode=cv2.BORDER_CONSTANT, borderValue=(b, g, r))
    out = face.copy()
    out[y0:y1, x0:x1] = moved
    return out


def redrawn_deck(faces: Mapping[Card, Image], seed: int = 0) -> dict[Card, Image]:
    """A scanned deck as another maker might print the same pattern, to measure a model with (never to train).

    Its art is re-inked (:func:`cv2.stylization`: flat colours, dark outlines,
    which no training deck has), mirrored, smaller or moved as in
    :func:`_vary_art`, and its indices are re-printed in the held-out
    ``clasica`` style's font. A model that learnt the deck's own drawings
    reads this far worse than the deck itself.
    """
    rng = np.random.default_rng(seed)
    style = HELD_OUT_STYLES["clasica"]
    out: dict[Card, Image] = {}
    for card in sorted(faces, key=lambda c: c.index):
        inked = np.asarray(cv2.stylization(faces[card], sigma_s=30, sigma_r=0.3), np.uint8)
        out[card] = _reindex(_vary_art(_blank_indices(inked), rng), card, style)
    return out


def _reindex(face: Image, card: Card, style: DeckStyle) -> Image:
    """Paint over the corner indices of a scanned face and print new ones."""
    h, w = face.shape[:2]
    img = _blank_indices(face)
    (_, _, bw, bh), _ = _index_boxes(w, h)
    k = w / (style.card_mm[0] * PX_PER_MM)
    small = replace(style, index_height_mm=style.index_height_mm * 0.9 * k, four_indices=False,
                    paper=_paper_of(face))
    ink, mask = _index_image(str(card.rank), small, small.ink, small.paper)
    mh, mw = mask.shape
    mw = min(mw, bw - 6)
    mh = min(mh, bh - 6)
    ink, mask = ink[:mh, :mw], cv2.resize(mask, (mw, mh))
    _stamp(img, ink, mask, 6, 6)
    _stamp(img, ink[::-1, ::-1], mask[::-1, ::-1], w - 6 - mw, h - 6 - mh)
    return img


BACK_COLOURS: tuple[BGR, ...] = ((40, 40, 160), (140, 60, 20), (40, 110, 40), (30, 30, 30), (40, 80, 120),
                                 (120, 40, 110))
"""Inks of the card backs drawn here: red, blue, green, black, brown, purple (BGR)."""
BACK_DESIGNS = ("lattice", "medallion", "bleed", "stripes", "pale")
"""The backs :func:`render_back` draws: a lattice on a field inside a white margin (most Spanish
decks), a field of dots round a white oval with a maker's mark, a field printed to the edge, fine
stripes inside a thin frame, and a pale back (paper with a thin coloured frame and a sparse motif,
nearly as light as a face)."""


def render_back(design: str, colour: BGR, card_mm: tuple[float, float] = (61.5, 95.0)) -> Image:
    """A card's back in one of :data:`BACK_DESIGNS`, at :data:`PX_PER_MM` (to draw cards lying face down).

    >>> render_back("medallion", BACK_COLOURS[1]).shape
    (380, 246, 3)
    """
    w, h = round(card_mm[0] * PX_PER_MM), round(card_mm[1] * PX_PER_MM)
    paper = (236, 240, 242)
    img = np.full((h, w, 3), paper, np.uint8)
    light = tuple(min(255, c + 70) for c in colour)
    k = PX_PER_MM
    if design == "pale":
        m = int(4 * k)
        cv2.rectangle(img, (m, m), (w - 1 - m, h - 1 - m), colour, max(1, int(0.6 * k)), cv2.LINE_AA)
        for y in range(int(12 * k), h - int(10 * k), int(14 * k)):
            for x in range(int(12 * k), w - int(10 * k), int(14 * k)):
                cv2.circle(img, (x, y), int(1.5 * k), light, -1, cv2.LINE_AA)
        cv2.ellipse(img, (w // 2, h // 2), (int(12 * k), int(17 * k)), 0, 0, 360, colour, max(1, int(0.5 * k)),
                    cv2.LINE_AA)
        return img
    m = 0 if design == "bleed" else int((3.0 if design != "stripes" else 2.0) * k)
    cv2.rectangle(img, (m, m), (w - 1 - m, h - 1 - m), colour, -1)
    if design == "lattice":
        step = int(5 * k)
        for t in range(-h, w + h, step):
            cv2.line(img, (t, 0), (t + h, h), light, max(1, int(0.4 * k)), cv2.LINE_AA)
            cv2.line(img, (t, h), (t + h, 0), light, max(1, int(0.4 * k)), cv2.LINE_AA)
    elif design == "medallion":
        for y in range(m + int(2 * k), h - m, int(3 * k)):
            for x in range(m + int(2 * k) + (y // int(3 * k)) % 2 * int(1.5 * k), w - m, int(3 * k)):
                cv2.circle(img, (x, y), int(0.6 * k), light, -1, cv2.LINE_AA)
        cv2.ellipse(img, (w // 2, h // 2), (int(16 * k), int(24 * k)), 0, 0, 360, paper, -1, cv2.LINE_AA)
        cv2.putText(img, "HF", (w // 2 - int(9 * k), h // 2 + int(5 * k)), cv2.FONT_HERSHEY_TRIPLEX,
                    1.6 * k / 4, colour, max(1, int(0.8 * k)), cv2.LINE_AA)
    elif design == "bleed":
        step = int(4 * k)
        for t in range(-h, w + h, step):
            cv2.line(img, (t, 0), (t + h, h), light, max(1, int(0.3 * k)), cv2.LINE_AA)
        cv2.circle(img, (w // 2, h // 2), int(14 * k), light, max(1, int(0.8 * k)), cv2.LINE_AA)
    elif design == "stripes":
        for y in range(m, h - m, int(1.6 * k)):
            cv2.line(img, (m, y), (w - 1 - m, y), light, max(1, int(0.3 * k)))
        cv2.rectangle(img, (m + int(3 * k), m + int(3 * k)), (w - 1 - m - int(3 * k), h - 1 - m - int(3 * k)),
                      paper, max(1, int(0.5 * k)))
    else:
        raise ValueError(f"no card back {design!r} (known: {', '.join(BACK_DESIGNS)})")
    img[:m] = paper
    img[h - m:] = paper
    img[:, :m] = paper
    img[:, w - m:] = paper
    return img
