"""The felt under the cards and stones: its colour at every point, whatever the light.

The felt may be any colour and the light uneven (a lamp to one side, a
shadow, warm or cold). What is *not* felt is what we look for, so the felt is
modelled first: a smooth colour field estimated from the pixels that look like
felt (normalised convolution: a blur of the felt pixels divided by a blur of
the felt mask), refined twice. The free felt between the zones seeds it, and
the model then follows the light across the zones, between the cards.

:meth:`Felt.distance` then says how far each pixel is from the felt under it
(relative to the felt's brightness), :meth:`Felt.lightness` how much lighter it is.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.mat import MARKER_MM, Mat

Image = npt.NDArray[np.uint8]
FloatImage = npt.NDArray[np.float32]

OBJECT_MM = 130.0
"""Objects narrower than this (cards, stones) are not part of the light; broader ones are."""
MODEL_MM_PER_PX = 4.0
"""Resolution of the felt model (it is smooth: 4 mm per pixel is plenty)."""
LOG_OFFSET = 30.0
"""Added before taking logs, so that dark felt's sensor noise does not look like an object."""
DISTANCE_OFFSET = 40.0
"""Added to the felt's brightness when measuring differences, for the same reason."""

_LOG_LUT = np.log(np.arange(256, dtype=np.float32) + LOG_OFFSET).astype(np.float32)


def log_image(image: Image) -> FloatImage:
    """log(pixel + LOG_OFFSET) of each channel, through a lookup table (fast)."""
    return np.asarray(cv2.LUT(image, _LOG_LUT), dtype=np.float32)


def channel_max(image: FloatImage) -> FloatImage:
    """The largest of the channels at each pixel (numpy's max(axis=2) is several times slower)."""
    if image.ndim == 2:
        return image
    planes = cv2.split(image)
    out = planes[0]
    for p in planes[1:]:
        out = cv2.max(out, p)
    return np.asarray(out, dtype=np.float32)


def _free_felt_mask(mat: Mat, k: float, shape: tuple[int, int]) -> npt.NDArray[np.uint8]:
    """Where only felt should be: outside every zone, the pool and the markers' quiet zones."""
    h, w = shape
    mask = np.full((h, w), 255, np.uint8)
    pad = 8.0 * mat.scale

    def box(x0: float, y0: float, x1: float, y1: float) -> None:
        cv2.rectangle(mask, (int((x0 - pad) * k), int((y0 - pad) * k)),
                      (int(np.ceil((x1 + pad) * k)), int(np.ceil((y1 + pad) * k))), 0, -1)

    for seat in range(4):
        box(*mat.card_zone(seat))
        box(*mat.stone_zone(seat))
    cx, cy = mat.centre
    cv2.circle(mask, (int(cx * k), int(cy * k)), int((mat.pool_radius + pad) * k), 0, -1)
    quiet = MARKER_MM + 15.0
    s = mat.side
    for x0, y0 in ((0.0, 0.0), (s - quiet, 0.0), (0.0, s - quiet), (s - quiet, s - quiet)):
        box(x0, y0, x0 + quiet, y0 + quiet)
    return mask


def _normconv(logs: FloatImage, weight: FloatImage, sigma_px: float) -> tuple[FloatImage, FloatImage]:
    """Blurred weighted logs and blurred weights (normalised convolution's two halves)."""
    ksize = (0, 0)
    num = cv2.GaussianBlur(logs * weight[:, :, None], ksize, sigma_px, borderType=cv2.BORDER_REFLECT)
    den = cv2.GaussianBlur(weight, ksize, sigma_px, borderType=cv2.BORDER_REFLECT)
    return np.asarray(num, np.float32), np.asarray(den, np.float32)


@dataclass(frozen=True)
class Felt:
    """The felt's colour at every pixel of a rectified mat image."""

    colour_map: FloatImage
    """H x W x 3, the felt's BGR colour under the light at each pixel."""
    colour: tuple[float, float, float]
    """The felt's median BGR colour over the free felt."""

    def distance(self, image: Image, region: tuple[int, int, int, int] | None = None) -> FloatImage:
        """How unlike the felt each pixel is: |pixel - felt| / (|felt| + DISTANCE_OFFSET).

        A shadow the model missed moves this by about its depth; a stone of a
        colour that "stands out" by far more. ``region`` is (x0, y0, x1, y1) px.
        """
        img, felt = _crop(image, self.colour_map, region)
        d = cv2.subtract(img.astype(np.float32), felt)
        sq = cv2.transform(cv2.multiply(d, d), np.ones((1, 3), np.float32))
        norm = cv2.sqrt(cv2.transform(cv2.multiply(felt, felt), np.ones((1, 3), np.float32)))
        return np.asarray(cv2.divide(cv2.sqrt(sq), norm + DISTANCE_OFFSET), np.float32)

    def lightness(self, image: Image, region: tuple[int, int, int, int] | None = None) -> FloatImage:
        """How much lighter than the felt each pixel is: (sum(pixel) - sum(felt)) / (sum(felt) + offset).

        Card paper is lighter than any felt; shadows are darker, so they drop out.
        """
        img, felt = _crop(image, self.colour_map, region)
        ones = np.ones((1, 3), np.float32)
        si = cv2.transform(img.astype(np.float32), ones)
        sf = cv2.transform(felt, ones)
        return np.asarray(cv2.divide(cv2.subtract(si, sf), sf + 3 * DISTANCE_OFFSET), np.float32)


def _crop(image: Image, felt: FloatImage, region: tuple[int, int, int, int] | None
          ) -> tuple[Image, FloatImage]:
    if region is None:
        return image, felt
    x0, y0, x1, y1 = region
    return (np.ascontiguousarray(image[y0:y1, x0:x1]),
            np.ascontiguousarray(felt[y0:y1, x0:x1]))


def estimate_felt(rectified: Image, px_per_mm: float, mat: Mat | None = None,
                  object_mm: float = OBJECT_MM) -> Felt:
    """Model the felt of a rectified top-down mat image (``px_per_mm`` its resolution)."""
    mat = mat or Mat()
    h, w = rectified.shape[:2]
    f = 1.0 / (MODEL_MM_PER_PX * px_per_mm)
    sw, sh = max(8, round(w * f)), max(8, round(h * f))
    small = cv2.resize(rectified, (sw, sh), interpolation=cv2.INTER_AREA)
    k_small = sw / (w / px_per_mm)  # px per mm of the small image
    logs = log_image(np.asarray(small, np.uint8))
    free = _free_felt_mask(mat, k_small, (sh, sw)) > 0
    pixels = logs[free] if free.any() else logs.reshape(-1, 3)
    median = np.median(pixels, axis=0)
    # 1: an opening then a closing with a disc wider than any card removes every
    #    object smaller than that, light or dark, and keeps the light's broad
    #    features: a lamp's gradient, a shadow, a glare
    d = 2 * round(object_mm * k_small / 2) + 1
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (d, d))
    ref = cv2.morphologyEx(cv2.morphologyEx(logs, cv2.MORPH_OPEN, disc), cv2.MORPH_CLOSE, disc)
    ref = np.asarray(cv2.GaussianBlur(ref, (0, 0), 8.0 * k_small), np.float32)
    # 2, 3: the pixels that look like the felt so far, smoothed (normalised convolution)
    model = ref
    prior = 0.03
    for tol, sigma in ((0.3, 20.0), (0.2, 12.0)):
        dev = np.abs(logs - model).max(axis=2)
        weight = (dev < tol).astype(np.float32)
        num, den = _normconv(logs, weight, sigma * k_small)
        model = (num + prior * ref) / (den + prior)[:, :, None]
    linear = np.exp(model) - LOG_OFFSET
    full = cv2.resize(linear.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    colour = np.exp(median) - LOG_OFFSET
    return Felt(np.asarray(full, np.float32),
                (float(colour[0]), float(colour[1]), float(colour[2])))
