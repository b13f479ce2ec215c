"""Whether a card of a learning frame lies face down: its back learnt as a card would misread hands.

A learning frame (``docs/mat.md``, "Learning a deck") holds four cards to a
zone, every one face up. A card laid face down keeps the zone's count right,
so the count alone never tells; and a deck no model has seen is just what is
being learnt, so the card model cannot be asked either. Two things every
Spanish deck's face has, and its back has not, are asked instead, of the
face rectified from the frame itself (:func:`vision.ends.warp_face`):

- **pintas**: a face's two ends carry the frame line with its breaks; the
  ends reader's pinta model (``models/pintas.onnx``) has a class for "no
  card's end there", which a patterned back takes in both views;
- **paper**: a face is printed on paper that shows all round its art (the
  margin, and the paper between the pips and about the figure); a back's
  pattern covers its field from margin to margin. The share of the card's
  field whose colour is far from its lightest colour (a face's paper, a
  back's white margin) says how much of it is covered; a back printed to its
  edge has no paper to compare, and is left to the pintas.

A card is face down when either says so (the pintas in both ends), or both
think it likely. The
numbers are measured over every deck style the renderer draws, the held-out
ones and the scanned Fournier 1878 deck, at both resolutions learning runs,
against the backs of ``models.deck.BACK_DESIGNS`` (``python -m
models.evaluate_facedown``; the model card's figures are in ``docs/mat.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.ends import CARD_WIDTH_MM, FACE_W, EndsModel

Image = npt.NDArray[np.uint8]

NOT_AN_END = 4
"""The pinta model's class for "not a card's end" (:data:`vision.ends.SUITS_BY_BREAKS`)."""


@dataclass(frozen=True, slots=True)
class FaceDownParams:
    """Where a card is taken for a back. Measured in ``docs/mat.md`` ("A card face down")."""

    no_end: float = 0.80
    """Least probability of "no card's end" in both views of the pinta model, alone (faces measured:
    at most 0.66, a 6 of bastos blurred at 1.45 px/mm; backs with a pattern at least 0.70, so these
    are left to the sum of the two)."""
    covered: float = 0.80
    """Least share of the field far in colour from the paper, alone (faces measured: at most 0.63;
    striped backs at least 0.88)."""
    together: float = 1.2
    """Least sum of the two: a back that each says is likely, neither surely (faces measured:
    at most 0.97, before the lightness was weighed half; backs with a pattern inside a margin
    about 1.3 and more)."""
    colour_distance: float = 30.0
    """How far (OpenCV's 8-bit CIE Lab units) from the paper a pixel must be to count as covered."""
    lightness_weight: float = 0.5
    """Lightness counts half in that distance: light falling unevenly across a card (40 levels from
    one end to the other) darkens its paper without colouring it."""
    paper_percentile: float = 90.0
    """The paper is the colour of the lightest pixels, those above this percentile of lightness: a
    face's paper, a back's white margin (a back printed to its edge is left to the pintas)."""
    field_inset_mm: float = 2.0
    """The field whose cover is measured: the card less this much all round (the finder's quad
    may be a millimetre off)."""


@dataclass(frozen=True, slots=True)
class Side:
    """What one card's face looks like: how sure the pintas are there is no card's end, and how covered it is."""

    no_end: float
    covered: float

    def down(self, params: FaceDownParams) -> bool:
        return (self.no_end >= params.no_end or self.covered >= params.covered
                or self.no_end + self.covered >= params.together)


def covered(face: Image, params: FaceDownParams = FaceDownParams()) -> float:
    """Share of a rectified face's field whose colour is far from its paper (its lightest tenth)."""
    lab = cv2.cvtColor(face, cv2.COLOR_BGR2LAB).astype(np.float32)
    h, w = lab.shape[:2]
    light = lab[:, :, 0]
    paper = np.median(lab[light >= np.percentile(light, params.paper_percentile)], axis=0)
    c = int(round(params.field_inset_mm * FACE_W / CARD_WIDTH_MM))
    diff = (lab[c:h - c, c:w - c] - paper) * np.array([params.lightness_weight, 1.0, 1.0], np.float32)
    return float((np.linalg.norm(diff, axis=2) > params.colour_distance).mean())


def sides(faces: Sequence[Image], ends: EndsModel, params: FaceDownParams = FaceDownParams()) -> list[Side]:
    """What each rectified face (:func:`vision.ends.warp_face`) looks like, one pinta-model call for all."""
    if not faces:
        return []
    _, suits = ends.probabilities(list(faces))
    return [Side(float(suits[i, :, NOT_AN_END].min()), covered(f, params)) for i, f in enumerate(faces)]
