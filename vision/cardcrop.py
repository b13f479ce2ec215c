"""The canonical card crop: the one image format shared by the card finder and the card model.

A card found on the table (a quadrilateral in the image) is warped to an
upright portrait crop of :data:`CROP_SIZE`. The finder (``vision``) and the
training data (``models``) both go through :func:`warp_card`, so the model
sees at run time exactly what it saw in training. A face-up card can lie
either way up, so a crop may be upside down: the model is trained for both.

The model's input is ``crops``: float32 ``[N, 3, CROP_H, CROP_W]``, RGB in
[0, 1]; its output ``logits``: ``[N, 40]`` in :data:`table.cards.DECK` order.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

CROP_W = 72
CROP_H = 112
CROP_SIZE = (CROP_W, CROP_H)
"""Width and height in pixels (about 1.17 px per mm of a 61.5 x 95 mm card)."""

Quad = npt.NDArray[np.float32]
"""Four (x, y) image points, shape (4, 2)."""

BAND_W = 128
BAND_H = 48
BAND_SHARE = 0.25
"""A card's end band: its top quarter (index, pintas, a corner sign) as ``BAND_H x BAND_W``,
about 2.1 px per mm of a 61.5 x 95 mm card, so that a frame's finer detail is kept."""


def order_quad(quad: npt.ArrayLike) -> Quad:
    """Order four corners clockwise (in image coordinates) starting at a corner of a short side.

    The first edge (corner 0 to 1) is a short side, so the warp comes out
    portrait. Which of the two short sides is "top" is not decided here.
    """
    pts = np.asarray(quad, dtype=np.float32).reshape(4, 2)
    centre = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0])
    pts = pts[np.argsort(angles)]  # clockwise on screen (y grows downwards)
    d01 = float(np.linalg.norm(pts[1] - pts[0]))
    d12 = float(np.linalg.norm(pts[2] - pts[1]))
    if d01 > d12:
        pts = np.roll(pts, -1, axis=0)
    return pts


class CardCrop(np.ndarray):  # type: ignore[type-arg]
    """A crop that remembers the frame and quad it was cut from (for :func:`card_bands`).

    It is an ordinary ``uint8`` image in every other way; any array made from
    it (a slice, a turn, a stack) forgets the frame.
    """

    source: tuple[npt.NDArray[np.uint8], Quad] | None = None

    def __array_finalize__(self, obj: object) -> None:
        self.source = None


def warp_card(image: npt.NDArray[np.uint8], quad: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """Warp the card inside ``quad`` (any corner order) to a ``CROP_H x CROP_W`` BGR crop.

    The crop (a :class:`CardCrop`) keeps a reference to the frame and quad, so
    that the corner model can cut the card's ends from the frame at its own
    resolution (:func:`card_bands`).
    """
    src = order_quad(quad)
    dst = np.array([[0, 0], [CROP_W - 1, 0], [CROP_W - 1, CROP_H - 1], [0, CROP_H - 1]],
                   dtype=np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    crop = np.asarray(cv2.warpPerspective(image, m, (CROP_W, CROP_H), flags=cv2.INTER_AREA,
                                          borderMode=cv2.BORDER_REPLICATE), dtype=np.uint8).view(CardCrop)
    crop.source = (image, src)
    return crop


def _unit_to_image(src: Quad) -> npt.NDArray[np.float64]:
    """Homography from the card's unit square (u across, v down) to the image, for an ordered quad."""
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    return np.asarray(cv2.getPerspectiveTransform(unit, src), np.float64)


def warp_bands(image: npt.NDArray[np.uint8], quad: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """The card's two end bands from the frame itself, ``(2, BAND_H, BAND_W, 3)`` BGR.

    Band 0 is the top quarter of :func:`warp_card`'s crop, band 1 the bottom
    quarter turned half round, so both read the same way (an index in the
    top-left, the pintas along the top): the corner model's two views. Cut
    from the frame, not from the crop, so that a frame finer than the crop
    (more than 1.2 px/mm) keeps its detail.
    """
    h = _unit_to_image(order_quad(quad))
    dst = np.array([[0, 0], [BAND_W - 1, 0], [BAND_W - 1, BAND_H - 1], [0, BAND_H - 1]], np.float32)
    b = BAND_SHARE
    out = np.empty((2, BAND_H, BAND_W, 3), np.uint8)
    for k, corners in enumerate(([[0, 0], [1, 0], [1, b], [0, b]],
                                 [[1, 1], [0, 1], [0, 1 - b], [1, 1 - b]])):
        pts = np.asarray(corners, np.float64)
        src = cv2.perspectiveTransform(pts[None], h)[0].astype(np.float32)
        m = cv2.getPerspectiveTransform(src, dst)
        out[k] = cv2.warpPerspective(image, m, (BAND_W, BAND_H), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_REPLICATE)
    return out


def bands_of_crop(crop: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """The two end bands cut from a ``CROP_H x CROP_W`` crop (when the frame is not at hand)."""
    rows = round(CROP_H * BAND_SHARE)
    top = crop[:rows]
    bottom = np.ascontiguousarray(crop[CROP_H - rows:][::-1, ::-1])
    return np.stack([cv2.resize(x, (BAND_W, BAND_H), interpolation=cv2.INTER_LINEAR)
                     for x in (top, bottom)])


def half_turn(crop: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """The crop turned half round; still the same card of the same frame (its source is kept)."""
    out = np.ascontiguousarray(crop[::-1, ::-1]).view(CardCrop)
    out.source = getattr(crop, "source", None)
    return out


def card_bands(crop: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """The end bands of a crop: from its frame where the crop remembers it, else from the crop."""
    source = getattr(crop, "source", None)
    if source is not None:
        return warp_bands(*source)
    return bands_of_crop(np.asarray(crop))


def to_model_input(crops: list[npt.NDArray[np.uint8]]) -> npt.NDArray[np.float32]:
    """Stack BGR crops into the model's input tensor (RGB, NCHW, float in [0, 1])."""
    if not crops:
        return np.zeros((0, 3, CROP_H, CROP_W), dtype=np.float32)
    batch = np.stack([c[:, :, ::-1] for c in crops]).astype(np.float32) / 255.0
    return np.ascontiguousarray(batch.transpose(0, 3, 1, 2))
