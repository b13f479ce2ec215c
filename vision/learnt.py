"""A deck the players bring, learnt from three frames of it under the table's camera.

``docs/mat.md`` ("Learning a deck") lays the 40 cards out in deck order over
three frames, four to a card zone. :func:`learn_deck` finds the cards of each
frame with the reader's own finder, checks the layout (a zone with a card too
many or too few, or a card the model is sure is another, refuses the frame
with a one-line reason naming it and the zone), and keeps, for each card,
what the card model's last layer sees of it: its ``features`` output, over
many variations of the crop (the finder's corner error, both turns, light,
colour, blur, noise, glare). A learnt deck then reads a crop by its nearest
learnt card (:class:`LearntClassifier`, which :class:`vision.reading.TableReader`
takes as its ``classifier=``), with the reader's two-views rule. Cards the
learnt faces leave in doubt between a few (one pinta more, another sign in a
figure's hand) are told apart along the direction the deck's own variations
say separates them (:class:`TellApart`), and by the ends reader; both must agree.

Nothing here needs torch: onnxruntime and numpy, as on the Pi.

>>> [" ".join(map(str, seat)) for seat in learning_cards(0)]
['1o 2o 3o 4o', '5o 6o 7o 10o', '11o 12o 1c 2c', '3c 4c 5c 6c']
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from table.cards import DECK, Card
from table.errors import InvalidInput, MusTableError
from vision import facedown
from vision.calibration import marker_blur_mm
from vision.cardcrop import CROP_H, CROP_W, CardCrop, order_quad, to_model_input, warp_card
from vision.cards import CardObject, card_shaped, find_cards, off_card, quad_error_mm
from vision.classifier import (
    DEFAULT_THRESHOLD,
    ENDS_CHECK_BELOW,
    CardClassifier,
    Prediction,
    call_cards,
)
from vision.ends import (
    CARD_WIDTH_MM,
    MIN_PX_PER_MM,
    EndsModel,
    EndsReading,
    ends_installed,
    face_of,
    px_per_mm_of,
    quad_px_per_mm,
    warp_face,
)
from vision.felt import Felt
from vision.mat import Mat
from vision.reading import TableReader

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float32]

FRAMES = 3
"""A deck is learnt from three frames."""
FORMAT = 1
"""Version of the files a learnt deck is kept in."""
VARIANTS = 16
"""Variations of each card's crop learnt (each also turned half round)."""
SHARPNESS = 80.0
"""How sharply the similarity to the learnt cards turns into a probability (softmax scale)."""
FLOOR = 0.70
"""Similarity of "no learnt card": a crop must beat it clearly to be called (sure needs about
``FLOOR + ln 9 / SHARPNESS`` = 0.73). Blank paper, felt, a phone, a napkin or a lighter reach at
most 0.653 (108 of them against three held-out decks learnt), read cards' crops 0.775 or more in
999 of 1000 (576): both sides far from the bar for any CPU's kernels. At 0.62 (until 2 Dec) a dark
felt crop scored 0.650, 0.005 under the bar, and was sure on another CPU with the 8-bit model."""
ENDS_PLAUSIBLE = 0.05
"""Least learnt probability (in both views) of the card the ends name, for their call to be taken."""
ORDINALS = ("first", "second", "third", "fourth")

MODEL_BACKED = 0.5
"""A card the learnt deck is unsure of but holds at least this likely in both views is read when the card model
alone is sure of it (its own rule, out of the box) and the ends are sure of no other: two readers agree. A face
learnt a little unlike its card (casino's 5b learnt from 2304 x 1296 frames, 0.87 and its 5e 0.12) left it unsure
in every hand; a deck torn between two cards (0.42 each) is not backed so."""


@dataclass(frozen=True)
class TellApart:
    """How a learnt deck tells apart the few cards its faces leave in doubt (:meth:`LearntClassifier.tell_apart`).

    The card model's features are a 96 x 7 x 4 grid over the crop: two cards
    that differ by one pinta or by the sign a figure holds differ in a few of
    its cells, and the plain cosine over all of them dilutes that. Between two
    learnt cards the deck's own variations give the direction that separates
    them best (Fisher's: the difference of their means through the inverse of
    the spread each card's variations show), and a crop's place along it says
    which it is: +1 the first card's mean, -1 the other's.
    """

    candidate: float = 0.005
    """Least learnt probability (in either view) for a card to be in the group in doubt."""
    group: float = DEFAULT_THRESHOLD
    """Least learnt probability of the group together, in both views: sure it is one of them."""
    bar: float = 0.15
    """Least place along each pair's direction, in both views, for the winner over every other of the group.
    Learnt from stills, the true card's least was 0.23 (`cincuenta`, the one held-out deck with groups
    in doubt, 2 x 25 scenes, 115 pairs); none fell below 0."""
    shrink: float = 0.1
    """Ridge added to the variations' spread, as a share of its mean variance (keeps the inverse steady)."""
    min_learnt_px_per_mm: float = MIN_PX_PER_MM
    """Only a deck learnt from frames this fine at the card: a coarser frame (2304 x 1296, 1.45 px/mm)
    blurs what tells one pinta apart, and its directions crossed zero (learnt at 1.45: -0.2 on a true card).
    A deck learnt so has its sure calls from a frame this fine checked by the ends reader instead (those
    :attr:`check_rival` says): where the ends are sure of another card, the card is unknown."""
    check_rival: float = 1e-4
    """A coarse-learnt deck's sure call is checked by the ends only where some other card is at least this
    likely in either view: what the coarse frames blur makes neighbours alike, and a neighbour so alike
    keeps some of the probability (the 12 of bastos some 12 of espadas). Every sure call was checked until
    4 Dec (the ends' two models on 16 faces, 35-55 ms of a still's read): on 150 held-out scenes of the six
    drawn decks, each learnt at 1.45 twice, the ends made none of 2170 sure calls unknown, and 2062 had no
    other card at 1e-4 (the most likely other 2e-11 in the median; the rivals 12b-12e, 10o-10c and such,
    81 of 351 calls of `cincuenta`, none of `clasica` and `moderna`)."""
    resample_above: float = 1.15
    """A crop cut from a frame finer than the learning frames by more than this is cut again as they
    would show it (through their px per mm): the learnt faces then meet what they learnt. Learnt at
    1.45 and read from stills, one card in 355 was sure of its neighbour without it (seed 77), none with."""
    own_blur_px: float = 0.5
    """The blur (sigma, px) a frame's own pixels give the markers' edges (:func:`vision.calibration.marker_blur_mm`
    of frames rendered without blur: 0.33 mm at 1.45 px/mm, 0.17 at 2.9). What a card's learning frame
    measured beyond it is the blur a crop cut again through their px per mm is given before it is compared
    with that card (:meth:`LearntClassifier.blur_px`). Learnt at 1.45 and read from stills (cincuenta, seed
    11506), the 12 of copas of a frame blurred by 1.1 px was nearer the sharper frame's 12 of oros in one
    view in 27 crops of 27 (by 0.03 in cosine), and left unknown in 6; each card met blurred as its own frame
    was, 12c was nearest in both views in all 27 (by 0.014 or more, at least 0.75 likely: the ends' 12c taken)."""
    least_blur_px: float = 0.4
    """Less than this is given no blur: a still's own blur, cut again at 1.45 px/mm, is as much (0-0.6 px)."""
    blur_step_px: float = 0.25
    """Cards whose frames' blurs round to the same multiple of this share one look at the crop (one model call)."""
    most_blur_px: float = 2.0
    """Never more blur than this (sigma, learning frames' px): a frame so blurred teaches little anyway."""
    one_look: bool = True
    """Learn each card of a sharper learning frame a second time, blurred to the blurriest frame's
    blur (:attr:`LearntDeck.features_blurred`), so that a still's crop is blurred once, to that level,
    and met by every card in one model call; without them (or this), one call per distinct blur."""


TELL_APART = TellApart()
FACE_DOWN = facedown.FaceDownParams()
"""Where a learning frame's card is taken for a back (:mod:`vision.facedown`)."""


class LayoutRefused(InvalidInput):
    """A learning frame not laid out as ``docs/mat.md`` says; the message names the frame and the zone.

    Its code and params say the same for a display: ``learn_no_mat`` (``photo`` 1-3),
    ``learn_count`` (``photo``, ``seat``, ``found``, ``want``, ``odd``: something there is
    not a card), ``learn_face_down`` (``photo``, ``seat``, ``place`` 1-4 the first, ``places``
    all of them), ``learn_card_edge`` (``photo``, ``seat``, ``place`` 1-4 the first, ``places`` all of
    them: a card the finder did not find whole, a shadow taken for its edge; ``why`` «felt»: the felt of
    nearly the paper's colour, :class:`LayoutCheck`) and ``learn_wrong_card``
    (``photo``, ``seat``, ``place`` 1-4, ``seen``, ``want``).
    """


class DeckNotFound(MusTableError):
    """No learnt deck of that name (or its files are damaged)."""

    code = "deck_damaged"


class BadDeckName(InvalidInput):
    """A deck name that cannot name a folder safely."""


def learning_cards(frame: int) -> tuple[tuple[Card, ...], ...]:
    """The cards learning frame ``frame`` (0, 1, 2) holds, per seat, left to right as the seat sees them."""
    if frame not in range(FRAMES):
        raise ValueError(f"a deck is learnt from frames 0, 1 and 2, not {frame}")
    first = 16 * frame
    return tuple(tuple(DECK[first + 4 * s:first + 4 * s + 4]) if first + 4 * s < len(DECK) else ()
                 for s in range(4))


def check_name(name: str) -> str:
    """A deck's name as people write it: 1-40 letters (accents too), digits, spaces, ``-``,
    ``–``, ``—``, ``_``, ``.``, ``'`` or ``&``, starting with a letter or digit; spaces around
    it are dropped and runs of spaces made one. It names the deck's folder, so nothing else is
    taken.

    >>> check_name("fournier-1878")
    'fournier-1878'
    >>> check_name("  Baraja  del club — Ñ ")
    'Baraja del club — Ñ'
    >>> check_name("../otra")
    Traceback (most recent call last):
    ...
    vision.learnt.BadDeckName: deck name '../otra': use 1-40 letters, digits, spaces, '-', '–', '—', '_', '.', "'" or '&'
    """
    name = " ".join(name.split())
    if not re.fullmatch(r"[^\W_][\w .'&\u2013\u2014-]{0,39}", name):
        raise BadDeckName(f"deck name {name!r}: use 1-40 letters, digits, spaces, '-', '–', '—', '_', '.', \"'\" "
                          "or '&'",
                          code="deck_name_bad",
                          params={"name": name})
    return name


def decks_dir() -> Path:
    """Where learnt decks are kept: ``$XDG_DATA_HOME/mus-table/decks`` (``~/.local/share/...``)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "mus-table" / "decks"


def model_digest(path: Path) -> str:
    """A short hash of the model file a deck was learnt with (features of another model do not match)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def features_of(model: CardClassifier, crops: Sequence[Image]) -> tuple[FloatArray, FloatArray]:
    """Normalised features ``[N, F]`` and logits ``[N, 40]`` of BGR crops, in batches of 256."""
    feats, logits = [], []
    for i in range(0, len(crops), 256):
        lg, f = model.logits_and_features(to_model_input(list(crops[i:i + 256])))
        feats.append(_normalise(f))
        logits.append(lg)
    if not feats:
        return np.zeros((0, 1), np.float32), np.zeros((0, len(DECK)), np.float32)
    return np.concatenate(feats), np.concatenate(logits)


def _normalise(f: FloatArray) -> FloatArray:
    """Square root (the features are ReLU outputs, heavy-tailed), then unit length."""
    g = np.sqrt(np.maximum(f, 0.0))
    return np.asarray(g / np.maximum(np.linalg.norm(g, axis=1, keepdims=True), 1e-6), np.float32)


def vary_crop(crop: Image, rng: np.random.Generator) -> Image:
    """The crop as another light, lens and sensor might show it (learning's augmentation)."""
    x = crop.astype(np.float32)
    h, w = x.shape[:2]
    x *= rng.uniform(0.8, 1.2, 3).astype(np.float32)                     # colour of the light
    x *= np.float32(rng.uniform(0.6, 1.3))                                  # brightness
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a = rng.uniform(0, 2 * np.pi)
    ramp = (np.cos(a) * (xx / w - 0.5) + np.sin(a) * (yy / h - 0.5)) * rng.uniform(0, 0.5)
    x *= (1.0 + ramp)[:, :, None]                                           # uneven light
    m = x.mean()
    x = (x - m) * np.float32(rng.uniform(0.7, 1.2)) + m                     # contrast
    if rng.random() < 0.25:                                                 # a glare
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        r = rng.uniform(8, 30)
        x += (rng.uniform(60, 200) * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r)))[:, :, None]
    x = np.clip(x, 0, 255)
    sigma = rng.uniform(0.0, 1.4)
    if sigma > 0.3:
        x = cv2.GaussianBlur(x, (0, 0), sigma)
    if rng.random() < 0.3:                                                  # fewer pixels per mm
        f = rng.uniform(0.6, 0.9)
        small = cv2.resize(x, (max(8, int(w * f)), max(8, int(h * f))), interpolation=cv2.INTER_AREA)
        x = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    x = x + rng.normal(0, rng.uniform(0, 6), x.shape).astype(np.float32)
    out: Image = np.asarray(np.clip(x, 0, 255), np.uint8)
    if rng.random() < 0.5:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(55, 96))])
        if ok:
            out = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
    return out


def jitter_quad(quad: npt.NDArray[np.float32], rng: np.random.Generator, px: float = 3.0) -> npt.NDArray[np.float32]:
    """A quad as the finder might give it: corners a few px off, a little larger or smaller."""
    c = quad.mean(axis=0)
    q = c + (quad - c) * rng.uniform(0.97, 1.04)
    return np.asarray(q + rng.uniform(-px, px, (4, 2)), np.float32)


@dataclass(frozen=True)
class LayoutCard:
    """One card of a learning frame as found: where the order puts it and its quad in the image."""

    card: Card
    frame: int
    seat: int
    position: int
    quad_image: npt.NDArray[np.float32]
    frame_blur_mm: float = 0.0
    """How blurred its frame is at the mat (:func:`vision.calibration.marker_blur_mm`; 0: not measured)."""
    size_mm: tuple[float, float] | None = None
    """Its short and long side as found on the mat (mm; None: not measured)."""


def find_layout(frames: Sequence[Image], mat: Mat | None = None,
                model: CardClassifier | None = None) -> list[LayoutCard]:
    """The 40 cards of the three learning frames, checked against the layout; :class:`LayoutRefused` if not.

    The finder is the reader's own. A card the model is sure (at the reader's
    threshold, both views) is another than the one the order puts there is
    refused as well: the deck is most likely laid out in the wrong order.
    Where nothing checked that call (:class:`LayoutCheck`), it is refused only
    when the card it was called is read as this one in its own place, in any
    frame: two cards swapped.
    """
    if len(frames) != FRAMES:
        raise InvalidInput(f"a deck is learnt from {FRAMES} frames, not {len(frames)}", code="learn_frames_missing")
    mat = mat or Mat()
    model = model or CardClassifier()
    laid = [_frame_layout(k, frame, mat, model) for k, frame in enumerate(frames)]
    for frame in laid:
        if frame.faults:
            raise frame.faults[0]
    # a card read (unchecked) as one of another frame whose own place reads it back: two cards swapped
    calls = {card: p for frame in laid for card, p in frame.calls.items()}
    for frame in laid:
        for seen, want, fault in frame.doubted:
            there = calls.get(seen)
            if there is not None and there.card == want:
                raise fault
    return [card for frame in laid for card in frame.cards]


def frame_faults(k: int, frame: Image, mat: Mat | None = None,
                 model: CardClassifier | None = None) -> list[LayoutRefused]:
    """Everything wrong with learning frame ``k`` as it was taken, zone by zone (empty: it is
    right): the mat not found, a zone with too few or too many cards or something that is not
    a card, a card lying face down (:mod:`vision.facedown`), a card where the deck's order puts
    another. Checked as each photo is taken,
    so a wrong layout is put right before the next one."""
    return _frame_layout(k, frame, mat or Mat(), model or CardClassifier()).faults


@dataclass(frozen=True)
class LayoutCheck:
    """How sure a learning frame's cards must be of being found whole (:func:`_frame_layout`)."""

    agree_mm: float = 6.0
    """Each card found must lie within this of a card the finder finds again at the frame's own card size (the
    median of its cards'), where every card is moved onto where its colour ends. On felt as pale as the paper
    a card may be found 7-60 mm off, on a frame line, or turned across two cards, and its face learnt from that
    crop reads badly ever after. Measured (4 Dec) on 108 learning frames of the six held-out decks (seeds
    17405, 16405, 15405 at 2.9 px/mm; 60601, 61005, 17405 at 1.45): the 101 whose every card was found
    within 2 mm agreed to 0.0 mm; of the 7 with a card 6.7-61 mm off, 5 disagreed by 10-64 mm, one by 7.1 and
    one (a card 7.5 mm off) by 1.5. A frame of seed 5 (antigua at 1.45) found a card 2.5 mm off one way and
    2.9 mm the other: 5.0 apart, both good enough to learn from."""
    unchecked_wrong: int = 3
    """A frame is refused for a card out of the deck's order when the reader stands behind the call
    (:func:`_checked`), when two of its cards are read as each other (a swap), or when at least this many
    of its cards are called other cards unchecked (a frame of other cards). A card model that never saw a
    deck can be sure of the wrong card where the frame is too coarse for the ends to check it: one trained
    without Fournier 1878 called its 4e the 12e at 0.91-0.95 in every 2304 x 1296 frame, and the deck could
    not be learnt at that resolution."""


LAYOUT_CHECK = LayoutCheck()


def _found_at_own_size(objects: Sequence[CardObject], rect: Image | None, felt: Felt | None, k: float,
                       mat: Mat) -> list[npt.NDArray[np.float64]] | None:
    """The cards the finder finds again in a learning frame at its cards' median size (None: nothing to size)."""
    cards = [o for o in objects if o.why is None and o.seat is not None]
    if rect is None or felt is None or not cards:
        return None
    sizes = np.array([o.size for o in cards], np.float64)
    size = (float(np.median(sizes[:, 0])), float(np.median(sizes[:, 1])))
    if not card_shaped(*size):
        return None
    return [o.quad for o in find_cards(rect, felt, k, mat, card_mm=size) if o.why is None]


@dataclass(frozen=True)
class FrameLayout:
    """What one learning frame showed (:func:`_frame_layout`)."""

    cards: list[LayoutCard]
    """Its cards where the layout puts them (those of zones without a fault)."""
    faults: list[LayoutRefused]
    """Everything wrong with it, zone by zone (empty: it is right)."""
    calls: dict[Card, Prediction | None]
    """The card model's call on each card the layout puts in it."""
    doubted: list[tuple[Card, Card, LayoutRefused]]
    """The cards called others that the frame was not refused for (:attr:`LayoutCheck.unchecked_wrong`): the card
    each was called, the card the layout puts there, and the refusal it is if the card it was called lies in
    another frame and is called this one (a swap)."""


def _frame_layout(k: int, frame: Image, mat: Mat,
                  model: CardClassifier, check: LayoutCheck = LAYOUT_CHECK) -> FrameLayout:
    """What learning frame ``k`` shows: its cards where the layout puts them, every fault found, each call."""
    reader = TableReader(mat, classifier=model)
    reading = reader.read(frame)
    cal = reader.detail.calibration
    if cal is None or reading.stale:
        return FrameLayout([], [LayoutRefused(f"frame {k}: the mat is not found (fewer than three markers seen)",
                                              code="learn_no_mat", params={"photo": k + 1})], {}, [])
    ends = _ends_of(model)
    blur = marker_blur_mm(frame, cal) or 0.0
    objects = reader.detail.objects
    rect, felt = reader.detail.rectified, reader.detail.felt
    preds = dict(zip((id(o) for o in objects), reader.detail.predictions, strict=True))
    found: list[LayoutCard] = []
    faults: list[LayoutRefused] = []
    sized = _found_at_own_size(objects, rect, felt, reader.px_per_mm, mat)
    laid: list[tuple[int, list[tuple[CardObject, Card, npt.NDArray[np.float32]]]]] = []
    """Each zone found right so far: its seat; its cards, the card each should be, its quad in the frame."""
    for s, expected in enumerate(learning_cards(k)):
        zone = f"seat {s} cards"
        cards = sorted((o for o in objects if o.seat == s and o.why is None),
                       key=lambda o: _along_seat(o.centre, s, mat))
        odd = [o for o in objects if o.seat == s and o.why is not None]
        if len(cards) != len(expected):
            what = f"{len(cards)} card{'s' * (len(cards) != 1)} found where {len(expected)} belong"
            if odd and len(cards) < len(expected):
                what += f" (and something that is not a card: {odd[0].why})"
            faults.append(LayoutRefused(f"frame {k}, zone {zone}: {what}", code="learn_count",
                                        params={"photo": k + 1, "seat": s, "found": len(cards),
                                                "want": len(expected),
                                                "odd": bool(odd and len(cards) < len(expected))}))
            continue
        quads = [np.asarray(cal.to_image(o.quad), np.float32) for o in cards]
        down = [i + 1 for i, side in enumerate(facedown.sides([warp_face(frame, q) for q in quads], ends))
                if side.down(FACE_DOWN)] if ends is not None else []
        if down:
            faces = "s" * (len(down) > 1)
            faults.append(LayoutRefused(f"frame {k}, zone {zone}: card{faces} {', '.join(map(str, down))} "
                                        f"lie{'s' * (not faces)} face down", code="learn_face_down",
                                        params={"photo": k + 1, "seat": s, "place": down[0], "places": down}))
            continue
        off = [i + 1 for i, bad in enumerate(off_card([o.quad for o in cards], rect, felt, reader.px_per_mm))
               if bad] if rect is not None and felt is not None else []
        if off:
            # a card learnt from a crop off its card (6-20 mm onto its shadow) reads its deck badly ever after
            many = "s" * (len(off) > 1)
            faults.append(LayoutRefused(f"frame {k}, zone {zone}: card{many} {', '.join(map(str, off))} "
                                        "not found whole (a shadow taken for an edge)", code="learn_card_edge",
                                        params={"photo": k + 1, "seat": s, "place": off[0], "places": off}))
            continue
        unsure = [i + 1 for i, o in enumerate(cards) if sized is not None
                  and min((quad_error_mm(o.quad, q) for q in sized), default=np.inf) > check.agree_mm]
        if unsure:
            many = "s" * (len(unsure) > 1)
            faults.append(LayoutRefused(f"frame {k}, zone {zone}: card{many} {', '.join(map(str, unsure))} "
                                        "not found whole (the felt nearly the paper's colour)", code="learn_card_edge",
                                        params={"photo": k + 1, "seat": s, "place": unsure[0], "places": unsure,
                                                "why": "felt"}))
            continue
        laid.append((s, [(o, card, quads[i]) for i, (o, card) in enumerate(zip(cards, expected, strict=True))]))
    calls = {card: preds.get(id(o)) for _, seat in laid for o, card, _ in seat}
    wrong = {(s, i): p for s, seat in laid for i, (o, card, _) in enumerate(seat)
             if (p := preds.get(id(o))) is not None and p.sure(DEFAULT_THRESHOLD) and p.card != card}
    quads_laid = {(s, i): quad for s, seat in laid for i, (_, _, quad) in enumerate(seat)}
    unchecked = sum(not _checked(p, quads_laid[key], model) for key, p in wrong.items())
    doubted: list[tuple[Card, Card, LayoutRefused]] = []
    for s, seat in laid:
        for i, (_, card, quad) in enumerate(seat):
            p = wrong.get((s, i))
            if p is None:
                continue
            there = calls.get(p.card)
            swapped = there is not None and there.card == card
            fault = LayoutRefused(f"frame {k}, zone seat {s} cards: the {ORDINALS[i]} card is {p.card}, "
                                  f"where the deck's order puts {card}", code="learn_wrong_card",
                                  params={"photo": k + 1, "seat": s, "place": i + 1, "seen": str(p.card),
                                          "want": str(card)})
            if _checked(p, quad, model) or swapped or unchecked >= check.unchecked_wrong:
                faults.append(fault)
                break
            doubted.append((p.card, card, fault))
        else:
            found += [LayoutCard(card, k, s, i, quad, blur, o.size) for i, (o, card, quad) in enumerate(seat)]
    faults.sort(key=lambda f: int(f.params.get("seat", 0)))  # zone by zone, as the display says them
    return FrameLayout(found, faults, calls, doubted)


def _checked(p: Prediction, quad: npt.NDArray[np.float32], model: CardClassifier) -> bool:
    """Whether the reader stands behind a sure call: sure beyond :data:`ENDS_CHECK_BELOW`, or from a
    frame fine enough for the model's ends reader to have checked it (:meth:`CardClassifier.classify`)."""
    if p.probability >= ENDS_CHECK_BELOW:
        return True
    return getattr(model, "ends", None) is not None and quad_px_per_mm(quad) >= MIN_PX_PER_MM


def _ends_of(model: CardClassifier) -> EndsModel | None:
    """The ends reader that tells a back from a face: the card model's own, else one of its own
    where the models are installed (``None`` where they are not: nothing to tell it by)."""
    ends = getattr(model, "ends", None)
    if isinstance(ends, EndsModel):
        return ends
    return EndsModel() if ends_installed() else None


def _along_seat(centre: tuple[float, float], seat: int, mat: Mat) -> float:
    """Position along a seat's edge, left to right as its player sees it."""
    x, y = centre
    c = mat.side / 2
    return [x - c, -(y - c), -(x - c), y - c][seat]


@dataclass(frozen=True, eq=False)
class LearntDeck:
    """What was learnt of a deck: one crop per card and the features of its variations.

    ``crops[i]`` is card ``DECK[i]`` as the learning frames showed it;
    ``features`` ``[M, F]`` (unit rows) and ``labels`` ``[M]`` (indices in
    DECK) are the learnt variations; ``model`` is the digest of the model file
    they came from.
    """

    crops: npt.NDArray[np.uint8]
    features: FloatArray
    labels: npt.NDArray[np.int64]
    model: str
    px_per_mm: float = 0.0
    """How fine the learning frames were at the cards (median; 0: not known, a deck kept before it was)."""
    blur_mm: tuple[float, ...] = ()
    """How blurred each card's learning frame was at the mat (sigma, mm; :func:`vision.calibration.marker_blur_mm`),
    in DECK order; empty: not known (a deck kept before it was).

    Every learnt variation of a card is as blurred as its frame or more (:func:`vary_crop` only
    blurs): a crop from a finer frame is compared with each card blurred as that card's frame was
    (:meth:`LearntClassifier.blur_px`)."""
    features_blurred: FloatArray | None = None
    """Features ``[M', F]`` of variations of the cards of the sharper learning frames, cut from their frame
    blurred to the blurriest frame's blur (:attr:`TellApart.one_look`); ``None``: the frames were as
    blurred (or a deck kept before them)."""
    labels_blurred: npt.NDArray[np.int64] | None = None
    """Their cards (indices in DECK), ``[M']``."""
    card_mm: tuple[float, float] | None = None
    """The deck's card size (short, long side, mm; the median of the learning frames' cards, found whole on
    contrasting felt); None: not known (a deck kept before it was). The finder fits the cards of a frame to it
    (:func:`vision.cards.find_cards`): on felt as pale as the paper the frame's own cards may all be cut small."""

    def classifier(self, model: CardClassifier | None = None) -> LearntClassifier:
        """The classifier that reads this deck (``TableReader(classifier=...)``)."""
        return LearntClassifier(self, model or CardClassifier())

    def save(self, folder: Path) -> None:
        """Write the deck into ``folder`` (made anew: written beside it, then moved into place)."""
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
        try:
            arrays = {"crops": self.crops, "features": self.features.astype(np.float16), "labels": self.labels}
            if self.features_blurred is not None and self.labels_blurred is not None:
                arrays.update(features_blurred=self.features_blurred.astype(np.float16),
                              labels_blurred=self.labels_blurred)
            np.savez_compressed(tmp / "deck.npz", **arrays)  # type: ignore[arg-type]
            (tmp / "deck.json").write_text(json.dumps(
                {"format": FORMAT, "cards": len(DECK), "model": self.model,
                 "variants": int(len(self.labels) // len(DECK)), "px_per_mm": round(self.px_per_mm, 3),
                 "blur_mm": [round(b, 3) for b in self.blur_mm],
                 **({"card_mm": [round(x, 2) for x in self.card_mm]} if self.card_mm is not None else {})},
                indent=1) + "\n")
            if folder.exists():
                shutil.rmtree(folder)
            tmp.rename(folder)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise

    @classmethod
    def load(cls, folder: Path) -> LearntDeck:
        """The deck kept in ``folder``; :class:`DeckNotFound` when it is missing or damaged."""
        try:
            meta = json.loads((folder / "deck.json").read_text())
            with np.load(folder / "deck.npz") as z:
                crops, feats, labels = z["crops"], z["features"].astype(np.float32), z["labels"]
                fb = z["features_blurred"].astype(np.float32) if "features_blurred" in z.files else None
                lb = np.asarray(z["labels_blurred"], np.int64) if "labels_blurred" in z.files else None
        except (OSError, ValueError, KeyError) as exc:
            raise DeckNotFound(f"no learnt deck in {folder} ({type(exc).__name__})") from exc
        if meta.get("format") != FORMAT or crops.shape != (len(DECK), *crops.shape[1:]) \
                or len(feats) != len(labels) or set(labels.tolist()) != set(range(len(DECK))):
            raise DeckNotFound(f"the learnt deck in {folder} is damaged or of another version")
        if fb is None or lb is None or len(fb) != len(lb) or fb.shape[1:] != feats.shape[1:] \
                or not set(lb.tolist()) <= set(range(len(DECK))):
            fb, lb = None, None  # none kept (or damaged): a still's crops take one look per blur
        return cls(np.asarray(crops, np.uint8), feats, np.asarray(labels, np.int64), str(meta["model"]),
                   float(meta.get("px_per_mm", 0.0)), _blurs(meta.get("blur_mm")), fb, lb,
                   _card_size(meta.get("card_mm")))


class LearntClassifier:
    """Reads crops against a learnt deck: the nearest learnt variation of each card, both views.

    Each crop and its half-turned view are compared (cosine of the model's
    features) with every learnt variation; a card's score is its best match,
    and ``softmax(sharpness * score)`` its probability, with :data:`FLOOR` as
    the score of a 41st class, "none of them", so that something unlike every
    learnt card is never sure. :func:`call_cards` then applies the reader's
    rule: both views agree, both sure enough.
    """

    def __init__(self, deck: LearntDeck, model: CardClassifier, sharpness: float = SHARPNESS,
                 floor: float = FLOOR, tell: TellApart = TELL_APART) -> None:
        if deck.model != model_digest(model.path):
            raise DeckNotFound(f"this deck was learnt with another card model than {model.path}: "
                               "learn it again")
        self.deck = deck
        self.model = model
        self.sharpness = sharpness
        self.floor = floor
        self.tell = tell
        self._stack = _Stack.of(deck.features, deck.labels)
        self._spread: _Spread | None = None
        self._one_look = self._blurred_variations()

    @property
    def card_mm(self) -> tuple[float, float] | None:
        """The deck's card size (:attr:`LearntDeck.card_mm`): the reader fits the cards it finds to it."""
        return self.deck.card_mm

    def _blurred_variations(self) -> _Stack | None:
        """The sharper frames' cards learnt blurred to the blurriest frame's blur, where every card not
        of the blurriest frame has them; else ``None`` (one look per blur)."""
        fb, lb = self.deck.features_blurred, self.deck.labels_blurred
        if not self.tell.one_look or fb is None or lb is None or not len(lb):
            return None
        blur = self.blur_px()
        if not set(np.flatnonzero(blur != blur.max()).tolist()) <= set(lb.tolist()):
            return None  # learnt with other blur steps than these: as if none were kept
        return _Stack.of(fb, lb)

    def _features(self, crops: Sequence[Image]) -> FloatArray:
        """Normalised features ``[N, 2, F]`` of the crops and their half-turned views."""
        n = len(crops)
        both = list(crops) + [np.ascontiguousarray(c[::-1, ::-1]) for c in crops]
        feats, _ = features_of(self.model, both)
        return np.stack([feats[:n], feats[n:]], axis=1)

    def _scores_of(self, feats: FloatArray, learnt: _Stack | None = None) -> FloatArray:
        """Best similarity to each card ``[N, 2, 40]`` of features ``[N, 2, F]``, against the deck's variations
        or ``learnt`` (-1 to a card it has none of): one product with every variation, each card's best."""
        n = len(feats)
        stack = learnt or self._stack
        sim = feats.reshape(2 * n, -1) @ stack.features.T                  # [2N, M]
        best = np.full((2 * n, len(DECK)), -1.0, np.float32)
        if stack.each:
            best[:, stack.cards] = sim.reshape(2 * n, len(stack.cards), stack.each).max(axis=2)
        else:  # cards learnt from unlike numbers of variations (a deck kept otherwise)
            for k, c in enumerate(stack.cards):
                best[:, c] = sim[:, stack.labels == k].max(axis=1)
        return best.reshape(n, 2, len(DECK))

    def scores(self, crops: Sequence[Image]) -> FloatArray:
        """Best similarity to each card ``[N, 2, 40]``: the crop, then its half-turned view."""
        return self._looks(crops)[0]

    def _looks(self, crops: Sequence[Image]) -> tuple[FloatArray, dict[float, FloatArray]]:
        """Best similarity to each card ``[N, 2, 40]``, each card's of the crop as its own learning frame
        would have shown it (:meth:`as_learnt` with the card's :meth:`blur_px`), and the features
        ``[N, 2, F]`` of each look, by its blur (one model call a look)."""
        blur = self.blur_px()
        coarse = [self._coarse(c) for c in crops]  # cut once, blurred for each look
        looks = sorted(set(blur.tolist())) if any(c is not None for c in coarse) else [0.0]
        if len(looks) > 1 and self._one_look is not None:
            # one look, as blurred as the blurriest frame: the other cards met by their variations so blurred
            most = looks[-1]
            f = self._features([c if k is None else self._blurred(k, most, c)
                                for c, k in zip(crops, coarse, strict=True)])
            own = blur == most
            scores = self._scores_of(f)
            scores[:, :, ~own] = self._scores_of(f, self._one_look)[:, :, ~own]
            return scores, {most: f}
        feats: dict[float, FloatArray] = {}
        scores = np.zeros((len(crops), 2, len(DECK)), np.float32)
        for b in looks:
            feats[b] = self._features([c if k is None else self._blurred(k, b, c)
                                       for c, k in zip(crops, coarse, strict=True)])
            cards = blur == b if len(looks) > 1 else np.ones(len(DECK), bool)
            scores[:, :, cards] = self._scores_of(feats[b])[:, :, cards]
        return scores, feats

    def looks(self, px_per_mm: float) -> int:
        """How many model calls a batch of crops cut from a frame of ``px_per_mm`` takes (:meth:`_looks`)."""
        if self.deck.px_per_mm <= 0 or px_per_mm <= self.deck.px_per_mm * self.tell.resample_above \
                or self._one_look is not None:
            return 1
        return len(set(self.blur_px().tolist()))

    def warm_up(self) -> None:
        """Make now what the first crops left in doubt would (the variations' spread, about a second)."""
        self._learnt_spread()

    def blur_px(self) -> npt.NDArray[np.float64]:
        """The blur (sigma, learning frames' px) each card's crop is given when cut again through their px per mm
        (``[40]``): what its learning frame measured beyond its own pixels' (:attr:`TellApart.own_blur_px`),
        in steps of :attr:`TellApart.blur_step_px`; none where the deck does not know it."""
        if len(self.deck.blur_mm) != len(DECK):
            return np.zeros(len(DECK))
        return rounded_blur_px(beyond_own_blur_px(self.deck.blur_mm, self.deck.px_per_mm, self.tell), self.tell)

    def as_learnt(self, crop: Image, blur_px: float = 0.0) -> Image:
        """The crop as the learning frames would have shown it: cut again through their px per mm when
        its frame is finer (by :attr:`TellApart.resample_above`), and blurred by ``blur_px`` (sigma, their
        px) as a blurred learning frame was; else the crop itself.

        A still's card is four times the pixels of a 2304 x 1296 frame's, and
        its crop (72 px across either way) is sharper and aliased otherwise:
        what the deck learnt from the coarser frames then looks less like it.
        """
        coarse = self._coarse(crop)
        return crop if coarse is None else self._blurred(coarse, blur_px, crop)

    def _coarse(self, crop: Image) -> Image | None:
        """The card of a crop cut again through the learning frames' px per mm; ``None`` where its frame is
        not finer than theirs by :attr:`TellApart.resample_above` (or the crop forgot its frame)."""
        source = getattr(crop, "source", None)
        fine = px_per_mm_of(crop)
        learnt = self.deck.px_per_mm
        if source is None or learnt <= 0 or fine <= learnt * self.tell.resample_above:
            return None
        image, quad = source
        w = max(CROP_W, round(fine * CARD_WIDTH_MM))
        h = round(w * CROP_H / CROP_W)
        dst = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
        m = cv2.getPerspectiveTransform(order_quad(quad), dst)
        card = cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        lw = max(CROP_W // 2, round(learnt * CARD_WIDTH_MM))
        return np.asarray(cv2.resize(card, (lw, round(lw * CROP_H / CROP_W)), interpolation=cv2.INTER_AREA),
                          np.uint8)

    @staticmethod
    def _blurred(coarse: Image, blur_px: float, crop: Image) -> Image:
        """A crop of the coarse card blurred by ``blur_px`` (its px), remembering ``crop``'s frame."""
        if blur_px > 0:
            coarse = np.asarray(cv2.GaussianBlur(coarse, (0, 0), blur_px), np.uint8)
        out = np.asarray(cv2.resize(coarse, (CROP_W, CROP_H), interpolation=cv2.INTER_LINEAR), np.uint8).view(CardCrop)
        out.source = getattr(crop, "source", None)
        return out

    def _probabilities_of(self, scores: FloatArray) -> npt.NDArray[np.float64]:
        s = scores.astype(np.float64)
        z = np.concatenate([s, np.full((*s.shape[:2], 1), self.floor)], axis=2) * self.sharpness
        z -= z.max(axis=2, keepdims=True)
        e = np.exp(z)
        return np.asarray((e / e.sum(axis=2, keepdims=True))[:, :, :len(DECK)], np.float64)

    def probabilities(self, crops: Sequence[Image]) -> npt.NDArray[np.float64]:
        """Class probabilities ``[N, 2, 40]`` of BGR crops, both views ("none" takes the rest)."""
        return self._probabilities_of(self.scores(crops))

    def _learnt_spread(self) -> _Spread:
        """The learnt variations' means and spread (made once, when first asked: about a second)."""
        if self._spread is None:
            x = self.deck.features.astype(np.float64)
            # the variations are kept as laid, then half turned: one mean for each way round
            cls = self.deck.labels * 2 + (np.arange(len(x)) % 2)
            means = np.zeros((2 * len(DECK), x.shape[1]))
            np.add.at(means, cls, x)
            means /= np.maximum(np.bincount(cls, minlength=2 * len(DECK)), 1)[:, None]
            xc = x - means[cls]
            var, u = np.linalg.eigh(xc @ xc.T / len(x))
            keep = var > 1e-9 * max(float(var.max()), 1e-30)
            dirs = (u[:, keep].T @ xc) / np.sqrt(var[keep] * len(x))[:, None]
            ridge = self.tell.shrink * float(var[keep].sum()) / x.shape[1]
            self._spread = _Spread(means, dirs, var[keep], ridge)
        return self._spread

    def group(self, p: npt.NDArray[np.float64]) -> list[int]:
        """The cards (indices in DECK) at least :attr:`TellApart.candidate` likely in either view of ``p`` ``[2, 40]``."""
        return [c for c in range(len(DECK)) if float(p[:, c].max()) >= self.tell.candidate]

    def tell_apart(self, feats: FloatArray, p: npt.NDArray[np.float64]) -> Card | None:
        """The card of a group the learnt faces are sure of, told apart within it; ``None`` if not told.

        ``feats`` ``[2, F]`` are one crop's features (both views), ``p`` ``[2, 40]``
        its learnt probabilities. The group (:meth:`group`) must be
        :attr:`TellApart.group` likely together, in both views; the winner
        must lie at least :attr:`TellApart.bar` towards itself from every
        other card of the group, in both views (:meth:`placements`).
        """
        group = self.group(p)
        if len(group) < 2 or float(p[:, group].sum(axis=1).min()) < self.tell.group:
            return None
        for a in group:
            if all(min(self.placements(feats, a, r)) >= self.tell.bar for r in group if r != a):
                return DECK[a]
        return None

    def _rivalled(self, p: npt.NDArray[np.float64], card: Card) -> bool:
        """Whether some card other than ``card`` is at least :attr:`TellApart.check_rival` likely in either
        view of ``p`` ``[2, 40]`` (a coarse-learnt deck's sure call the ends then check)."""
        return bool(np.delete(p, card.index, axis=1).max() >= self.tell.check_rival)

    def placements(self, feats: FloatArray, a: int, r: int) -> tuple[float, float]:
        """Where each view of a crop ``[2, F]`` lies between learnt cards ``a`` (+1, its mean) and ``r``
        (-1) along the direction that best tells them apart: the difference of their means through the
        inverse of the variations' spread about their own cards' means (Fisher's)."""
        sp = self._learnt_spread()
        out = []
        for f in np.asarray(feats, np.float64):
            # each card the way round nearest this view
            ma = sp.means[2 * a + int(f @ sp.means[2 * a + 1] > f @ sp.means[2 * a])]
            mr = sp.means[2 * r + int(f @ sp.means[2 * r + 1] > f @ sp.means[2 * r])]
            d = ma - mr
            w = d / sp.ridge + sp.dirs.T @ ((sp.dirs @ d) * (1.0 / (sp.var + sp.ridge) - 1.0 / sp.ridge))
            out.append(float(2.0 * (f - (ma + mr) / 2) @ w / max(float(d @ w), 1e-12)))
        return out[0], out[1]

    def classify(self, crops: list[Image]) -> list[Prediction]:
        """One prediction per crop (the reader's ``Classifier``).

        A card the learnt deck is not sure of, cut from a frame fine enough
        for the ends (a full-resolution still), is asked of two more readers:
        the learnt faces told apart within the few cards they leave in doubt
        (:meth:`tell_apart`, for a deck learnt from frames as fine), and the
        ends reader (the printed index and the pintas, :mod:`vision.ends`):
        cards that differ by one pinta or by their index (6 and 7, 11 and 12
        of a suit) look alike to the learnt faces as a whole. The ends' call
        is taken only when the learnt deck itself holds it likely, in both
        views (:data:`ENDS_PLAUSIBLE`). Where both name a card they must
        name the same; where they differ the card stays unknown. A deck
        learnt from frames too coarse to tell them apart has its sure calls
        from such a frame that another card rivals (:meth:`_rivalled`)
        checked by the ends too: the ends sure of another card make it
        unknown. Every crop is first seen as the learning frames
        would have shown it, for each card as that card's frame was blurred
        (:meth:`as_learnt`, :meth:`blur_px`).
        """
        if not crops:
            return []
        scores, looks = self._looks(crops)
        p = self._probabilities_of(scores)
        blur = self.blur_px()
        calls = call_cards(p)
        fine = [px_per_mm_of(c) >= MIN_PX_PER_MM for c in crops]
        unsure = [i for i, c in enumerate(calls) if not c.sure() and fine[i]]
        coarse_deck = self.deck.px_per_mm < self.tell.min_learnt_px_per_mm
        checked = [i for i, c in enumerate(calls) if c.sure() and fine[i] and self._rivalled(p[i], c.card)] \
            if coarse_deck else []
        ends = self.model.ends
        asked = unsure + checked
        if not asked:
            return calls
        told: dict[int, Card] = {}
        if not coarse_deck:
            for i in unsure:
                # the crop as the frame of the card most likely in both views showed it
                card = self.tell_apart(looks[float(blur[int(np.argmax(p[i].prod(axis=0)))])][i]
                                       if len(looks) > 1 else next(iter(looks.values()))[i], p[i])
                if card is not None:
                    told[i] = card
        # the cut guard (:class:`vision.ends.CutGuard`) only ever takes a sure rank back: a checked card's
        # is looked at beyond its quad only where it would make the card unknown (the ends sure of another)
        frames = [getattr(crops[i], "source", None) for i in unsure] + [None] * len(checked)
        readings: list[EndsReading | None] = list(ends.read([face_of(crops[i]) for i in asked],
                                                            self.model.ends_threshold, frames)) \
            if ends is not None else [None] * len(asked)
        if ends is not None:
            doubted = {j: r for j, (i, r) in enumerate(zip(checked, readings[len(unsure):], strict=True),
                                                       len(unsure))
                       if r is not None and r.sure(self.model.ends_threshold) and r.card != calls[i].card}
            if doubted:
                guarded = ends.guard_cuts(list(doubted.values()),
                                          [getattr(crops[asked[j]], "source", None) for j in doubted],
                                          self.model.ends_threshold)
                for j, looked in zip(doubted, guarded, strict=True):
                    readings[j] = looked
        for i, r in zip(checked, readings[len(unsure):], strict=True):
            if r is not None and r.sure(self.model.ends_threshold) and r.card != calls[i].card:
                # the ends are sure of another card: unknown, never a card two readers disagree on
                calls[i] = Prediction(calls[i].card, min(calls[i].probability, 1.0 - r.probability), True)
        left: list[int] = []  # unsure still, though the learnt deck leans to one card in both views
        for i, r in zip(unsure, readings[:len(unsure)], strict=True):
            by_ends = r if r is not None and r.sure(self.model.ends_threshold) \
                and float(p[i, :, r.card.index].min()) >= ENDS_PLAUSIBLE else None
            card = told.get(i)
            if card is not None and by_ends is not None and by_ends.card != card:
                continue  # two readers, two cards: unknown
            if card is not None:  # as sure as the learnt deck is of the group it is told apart in
                mass = float(p[i][:, self.group(p[i])].sum(axis=1).min())
                calls[i] = Prediction(card, max(mass, DEFAULT_THRESHOLD), True)
            elif by_ends is not None:
                calls[i] = Prediction(by_ends.card, max(by_ends.probability, DEFAULT_THRESHOLD), True)
            elif calls[i].agreed and float(p[i, :, calls[i].card.index].min()) >= MODEL_BACKED \
                    and not (r is not None and r.sure(self.model.ends_threshold) and r.card != calls[i].card):
                left.append(i)
        if left:
            # a face learnt a little unlike its card as this frame shows it (a 5b a suit's sign away from its 5e,
            # learnt from a 2304 x 1296 frame) leaves that card unsure in every hand, though the card model
            # alone reads it: where the model alone is sure (its own rule, out of the box) of the card the learnt
            # deck holds likeliest in both views, and the ends are sure of no other, two readers agree
            alone = self.model.classify([crops[i] for i in left])
            for i, a in zip(left, alone, strict=True):
                if a.sure() and a.card == calls[i].card:
                    calls[i] = Prediction(a.card, a.probability, True)
        return calls


def _card_size(kept: object) -> tuple[float, float] | None:
    """A kept deck's ``card_mm``: short and long side, card-shaped, else not known (a deck kept before it was)."""
    if not isinstance(kept, list) or len(kept) != 2 or not all(isinstance(x, (int, float)) for x in kept):
        return None
    short, long = float(kept[0]), float(kept[1])
    return (short, long) if card_shaped(short, long) else None


def _blurs(kept: object) -> tuple[float, ...]:
    """A kept deck's ``blur_mm``: one number a card, else not known (``()``: a deck kept before it was)."""
    if not isinstance(kept, list) or len(kept) != len(DECK) \
            or not all(isinstance(b, (int, float)) and b >= 0 for b in kept):
        return ()
    return tuple(float(b) for b in kept)


@dataclass(frozen=True, eq=False)
class _Stack:
    """Learnt variations grouped by card, to score a crop against all of them in one product:
    ``features`` ``[M, F]`` in card order, ``cards`` the cards (indices in DECK) in that order,
    ``labels`` ``[M]`` each row's place in ``cards``, ``each`` the rows every card has (0: unlike numbers)."""

    features: FloatArray
    cards: npt.NDArray[np.int64]
    labels: npt.NDArray[np.int64]
    each: int

    @classmethod
    def of(cls, features: FloatArray, labels: npt.NDArray[np.int64]) -> _Stack:
        order = np.argsort(labels, kind="stable")
        cards, place, counts = np.unique(labels[order], return_inverse=True, return_counts=True)
        each = int(counts[0]) if len(counts) and int(counts.min()) == int(counts.max()) else 0
        return cls(np.ascontiguousarray(features[order], np.float32), np.asarray(cards, np.int64),
                   np.asarray(place, np.int64), each)


@dataclass(frozen=True)
class _Spread:
    """A learnt deck's variations about their cards: each card's mean as laid and half turned
    ``[80, F]``, the main directions of the spread about them ``[K, F]`` (unit), their variances
    ``[K]``, and the ridge added to every direction."""

    means: npt.NDArray[np.float64]
    dirs: npt.NDArray[np.float64]
    var: npt.NDArray[np.float64]
    ridge: float


def beyond_own_blur_px(blur_mm: Sequence[float], px_per_mm: float,
                       tell: TellApart = TELL_APART) -> npt.NDArray[np.float64]:
    """Each card's learning frame's blur beyond its own pixels' (sigma, learning frames' px; ``[40]``),
    unrounded: 0 under :attr:`TellApart.least_blur_px`, at most :attr:`TellApart.most_blur_px`."""
    measured = np.asarray(blur_mm, np.float64) * px_per_mm
    beyond = np.minimum(tell.most_blur_px, np.sqrt(np.maximum(0.0, measured ** 2 - tell.own_blur_px ** 2)))
    beyond[beyond < tell.least_blur_px] = 0.0
    return np.asarray(beyond, np.float64)


def rounded_blur_px(beyond: npt.NDArray[np.float64], tell: TellApart = TELL_APART) -> npt.NDArray[np.float64]:
    """:func:`beyond_own_blur_px` in steps of :attr:`TellApart.blur_step_px` (the blurs a crop is given)."""
    return np.asarray(np.round(beyond / tell.blur_step_px) * tell.blur_step_px, np.float64)


def learn_deck(frames: Sequence[Image], mat: Mat | None = None, model: CardClassifier | None = None,
               variants: int = VARIANTS, seed: int = 0, tell: TellApart = TELL_APART) -> LearntDeck:
    """Learn a deck from its three learning frames (BGR images); :class:`LayoutRefused` if one is wrong.

    Where the frames are not all as blurred (:attr:`TellApart.one_look`), the cards of the sharper ones
    are learnt again from their frame blurred to the blurriest frame's blur (:attr:`LearntDeck.features_blurred`).
    """
    model = model or CardClassifier()
    layout = find_layout(frames, mat, model)
    rng = np.random.default_rng(seed)
    crops: list[Image] = [np.zeros((0,), np.uint8)] * len(DECK)
    variations: list[Image] = []
    labels: list[int] = []
    for lc in layout:
        crops[lc.card.index] = warp_card(frames[lc.frame], lc.quad_image)
        _vary(frames[lc.frame], lc, variants, rng, variations, labels)
    fine = float(np.median([px_per_mm_of(crops[lc.card.index]) for lc in layout]))
    blur = {lc.card.index: lc.frame_blur_mm for lc in layout}
    blur_mm = tuple(blur[i] for i in range(len(DECK)))
    extra: list[Image] = []
    extra_labels: list[int] = []
    if tell.one_look:
        beyond = beyond_own_blur_px(blur_mm, fine, tell)
        level = rounded_blur_px(beyond, tell)
        most = float(level.max())
        blurred: dict[int, Image] = {}
        for lc in layout:
            if level[lc.card.index] == most:
                continue  # learnt at that blur already
            add = float(np.sqrt(max(0.0, most ** 2 - float(beyond[lc.card.index]) ** 2)))
            if lc.frame not in blurred:  # the frame as the blurriest one showed the mat (its own px)
                blurred[lc.frame] = np.asarray(cv2.GaussianBlur(frames[lc.frame], (0, 0), add), np.uint8)
            _vary(blurred[lc.frame], lc, variants, rng, extra, extra_labels)
    feats, _ = features_of(model, variations + extra)
    return LearntDeck(np.stack(crops), feats[:len(variations)], np.asarray(labels, np.int64),
                      model_digest(model.path), fine, blur_mm,
                      feats[len(variations):] if extra else None,
                      np.asarray(extra_labels, np.int64) if extra else None, card_size(layout))


def card_size(layout: Sequence[LayoutCard]) -> tuple[float, float] | None:
    """The deck's card size (short, long side, mm): the median of its learning frames' cards (None: not measured)."""
    sizes = np.array([lc.size_mm for lc in layout if lc.size_mm is not None], np.float64).reshape(-1, 2)
    if not len(sizes):
        return None
    short, long = (float(x) for x in np.median(sizes, axis=0))
    return (short, long) if card_shaped(short, long) else None


def _vary(frame: Image, lc: LayoutCard, variants: int, rng: np.random.Generator,
          variations: list[Image], labels: list[int]) -> None:
    """Append ``variants`` variations of card ``lc`` cut from ``frame`` (each also half turned) and their labels."""
    for v in range(variants):
        crop = warp_card(frame, jitter_quad(lc.quad_image, rng) if v else lc.quad_image)
        if v:
            crop = vary_crop(crop, rng)
        variations += [crop, np.ascontiguousarray(crop[::-1, ::-1])]
        labels += [lc.card.index] * 2


def save_deck(name: str, deck: LearntDeck, root: Path | None = None) -> Path:
    """Keep ``deck`` as ``name`` under :func:`decks_dir` (replacing one of that name)."""
    folder = (root or decks_dir()) / check_name(name)
    deck.save(folder)
    return folder


def load_deck(name: str, root: Path | None = None) -> LearntDeck:
    """The learnt deck called ``name``; :class:`DeckNotFound` when there is none."""
    folder = (root or decks_dir()) / check_name(name)
    if not (folder / "deck.json").is_file():
        raise DeckNotFound(f"no learnt deck called {name!r} (mus-table deck list)", code="deck_not_found",
                           params={"name": name})
    return LearntDeck.load(folder)


def list_decks(root: Path | None = None) -> list[str]:
    """Names of the learnt decks, sorted."""
    base = root or decks_dir()
    if not base.is_dir():
        return []
    return sorted(p.name for p in base.iterdir() if (p / "deck.json").is_file() and not p.name.startswith("."))


def remove_deck(name: str, root: Path | None = None) -> None:
    """Forget the learnt deck ``name`` (and stop using it); :class:`DeckNotFound` when there is none."""
    folder = (root or decks_dir()) / check_name(name)
    if not (folder / "deck.json").is_file():
        raise DeckNotFound(f"no learnt deck called {name!r}", code="deck_not_found", params={"name": name})
    if deck_in_use(root) == name:
        use_deck(None, root)
    shutil.rmtree(folder)


IN_USE = ".in-use"
"""The file, among the learnt decks, that names the deck in use (no deck's name starts with a dot)."""


def deck_in_use(root: Path | None = None) -> str | None:
    """The name of the table's deck in use, ``None`` for the card model alone.

    It is the last deck learnt or chosen (:func:`use_deck`), kept beside the
    decks (on the Pi, in the state directory with the journal), so that a
    restart or a power cut reads with it again. A name whose deck has since
    gone, or a damaged file, is the card model alone.
    """
    path = (root or decks_dir()) / IN_USE
    try:
        name = json.loads(path.read_text())["deck"]
        if name is None:
            return None
        check_name(name)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return str(name) if ((root or decks_dir()) / name / "deck.json").is_file() else None


def use_deck(name: str | None, root: Path | None = None) -> None:
    """Make ``name`` the deck in use (``None``: the card model alone); :class:`DeckNotFound` if none.

    Written beside the decks, then moved into place and synced, so that a power
    cut leaves the old choice or the new one, never half of either.
    """
    base = root or decks_dir()
    name = check_name(name) if name is not None else None
    if name is not None and not (base / name / "deck.json").is_file():
        raise DeckNotFound(f"no learnt deck called {name!r} (mus-table deck list)", code="deck_not_found",
                           params={"name": name})
    base.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f"{IN_USE}.", dir=base)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(json.dumps({"deck": name}) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, base / IN_USE)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    try:
        dir_fd = os.open(base, os.O_RDONLY)
    except OSError:  # pragma: no cover - a folder that cannot be opened cannot be synced either
        return
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
