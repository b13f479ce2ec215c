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


def warp_card(image: npt.NDArray[np.uint8], quad: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """Warp the card inside ``quad`` (any corner order) to a ``CROP_H x CROP_W`` BGR crop."""
    src = order_quad(quad)
    dst = np.array([[0, 0], [CROP_W - 1, 0], [CROP_W - 1, CROP_H - 1], [0, CROP_H - 1]],
                   dtype=np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    return np.asarray(cv2.warpPerspective(image, m, (CROP_W, CROP_H), flags=cv2.INTER_AREA,
                                          borderMode=cv2.BORDER_REPLICATE), dtype=np.uint8)


def to_model_input(crops: list[npt.NDArray[np.uint8]]) -> npt.NDArray[np.float32]:
    """Stack BGR crops into the model's input tensor (RGB, NCHW, float in [0, 1])."""
    if not crops:
        return np.zeros((0, 3, CROP_H, CROP_W), dtype=np.float32)
    batch = np.stack([c[:, :, ::-1] for c in crops]).astype(np.float32) / 255.0
    return np.ascontiguousarray(batch.transpose(0, 3, 1, 2))
