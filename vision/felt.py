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

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.mat import MARKER_MM, Mat

Image = npt.NDArray[np.uint8]
FloatImage = npt.NDArray[np.float32]

OBJECT_MM = 200.0
"""Window of the felt's first estimate: objects cover less than half of any window this wide."""
MIN_TOLERANCE = 0.05
"""The felt model always trusts a pixel this close to it (log units)."""
TOLERANCE_SIGMAS = (20.0, 15.0, 12.0)
"""Smoothing (mm) of the felt model's successive passes."""
MODEL_MM_PER_PX = 4.0
"""Resolution of the felt model (it is smooth: 4 mm per pixel is plenty)."""
LOG_OFFSET = 30.0
"""Added before taking logs, so that dark felt's sensor noise does not look like an object."""
CONTRAST_OFFSET = 20.0
"""Added to pixel and felt before :meth:`Felt.contrast` splits one against the other."""
DISTANCE_OFFSET = 40.0
"""Added to the felt's brightness when measuring differences, for the same reason."""
BAND_ROWS = 32
"""Rows of an image :meth:`Felt.contrast` and :meth:`Felt.lightness` work through at a time. Each value
is its pixel's own, the same whatever the bands; a band's float copies stay in the processor's cache,
where a whole 960 x 960 mat's took 2.2 times as long (contrast: 25 ms against 11 on a loaded core)."""

_LOG_LUT = np.log(np.arange(256, dtype=np.float32) + LOG_OFFSET).astype(np.float32)


def log_image(image: Image) -> FloatImage:
    """log(pixel + LOG_OFFSET) of each channel, through a lookup table (fast)."""
    return np.asarray(cv2.LUT(image, _LOG_LUT), dtype=np.float32)


def median(values: npt.NDArray[Any]) -> Any:
    """``np.median`` of an array's values, the very same value, several times faster.

    numpy partitions at both middles and at the end (to see a NaN), and a partition at
    several places leaves its fast path: here the upper middle is selected only,
    the lower middle taken as the largest value below it (:func:`_pair`), and the two
    averaged as numpy does. Arrays of another type than float, and NaNs, go to numpy.
    """
    v = np.ravel(values)
    n = v.size
    if v.dtype not in (np.float32, np.float64) or n < 2 or np.isnan(np.max(v)):
        return np.median(v)
    below, middle = _pair(v, n // 2, lower=n % 2 == 0)
    if n % 2:
        return middle
    return (below + middle) / v.dtype.type(2)  # numpy's mean of the two, in their type


def percentile(values: npt.NDArray[Any], q: float) -> Any:
    """``np.percentile(values, q)`` (linear, one ``q`` given as a Python number), the very same value, faster.

    As :func:`median`: the upper of the two values numpy interpolates between and the largest
    below it (:func:`_pair`), and numpy's interpolation done as numpy does it.
    Anything else (another type, a NaN, ``q`` at either end) goes to numpy.
    """
    v = np.ravel(values)
    n = v.size
    if (type(q) not in (int, float) or v.dtype not in (np.float32, np.float64) or n < 2
            or not 0 < q < 100 or np.isnan(np.max(v))):
        return np.percentile(v, q)
    virtual = (n - 1) * np.true_divide(q, 100)
    lo = int(np.floor(virtual))
    if lo >= n - 1:
        return np.percentile(v, q)
    a, b = _pair(v, lo + 1)
    t = float(virtual - lo)
    d = b - a
    return b - d * (1 - t) if t >= 0.5 else a + d * t


BRACKET_FROM = 8192
"""Values from which :func:`_pair` first brackets the ranks it wants by a sample: a partition of all
of a frame's free felt (420 000 gradients, :func:`vision.cards._busy`) took 3.6 ms, bracketed 0.9; under
8 000 values the two cost about the same."""
BRACKET_STEP = 64
"""Every this many values make the sample :func:`_pair` brackets from."""
BRACKET_REACH = 4.0
"""Half the bracket, in standard deviations of the rank the sample puts the wanted values at (4: a
bracket that misses, and sends :func:`_pair` to the whole partition, about once in 15 000 arrays)."""


def _pair(v: npt.NDArray[Any], r: int, lower: bool = True) -> tuple[Any, Any]:
    """The values of rank ``r - 1`` (``None`` unless ``lower``) and ``r`` (0 the smallest) of a 1-D float
    array without NaNs.

    The two are the very values a sort would put there. A large array is first bracketed: from a
    sorted sample, bounds ``lo <= hi`` such that fewer than ``r`` values lie below ``lo`` and more
    than ``r`` at or below ``hi``; the two ranks then lie among the values between the bounds (all
    values below ``lo`` rank before them, all above ``hi`` after), where they are found at ranks
    ``r - 1 - below`` and ``r - below``. Where the sample's bracket misses, the whole array is partitioned.
    """
    n = v.size
    if n >= BRACKET_FROM:
        sample = np.sort(v[::BRACKET_STEP])
        m = sample.size
        at = r * m / n
        reach = BRACKET_REACH * np.sqrt(m * (r / n) * (1 - r / n)) + 1
        lo = sample[max(0, int(at - reach))]
        hi = sample[min(m - 1, int(at + reach) + 1)]
        below = int(np.count_nonzero(v < lo))
        if below < r:
            inside = v[(v >= lo) & (v <= hi)]
            if below + inside.size > r:
                part = np.partition(inside, r - below)
                return part[:r - below].max() if lower else None, part[r - below]
    part = np.partition(v, r)
    return part[:r].max() if lower else None, part[r]


def channel_max(image: FloatImage) -> FloatImage:
    """The largest of the channels at each pixel.

    Pairwise on the channels as strided views: numpy's max(axis=2) is ten times slower and
    OpenCV's split into planes (then its max) five times (every caller's values are distances,
    never NaN: the same values either way).
    """
    if image.ndim == 2:
        return image
    out = image[:, :, 0]
    for c in range(1, image.shape[2]):
        out = np.maximum(out, image[:, :, c])
    return np.ascontiguousarray(out, dtype=np.float32)


def every(image: npt.NDArray[Any], step: int) -> npt.NDArray[Any]:
    """``image[::step, ::step]`` as a contiguous array.

    When the sides are whole multiples of ``step`` a nearest-neighbour resize picks exactly those
    pixels, several times faster than numpy's strided copy of a large image.
    """
    h, w = image.shape[:2]
    if step > 1 and h % step == 0 and w % step == 0 and image.dtype in (np.uint8, np.float32):
        return np.asarray(cv2.resize(image, (w // step, h // step), interpolation=cv2.INTER_NEAREST),
                          image.dtype)
    return np.ascontiguousarray(image[::step, ::step])


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
    free: Image
    """255 where only felt should lie (outside every zone and the markers), at full resolution."""
    _cache: dict[tuple[str, int], object] = field(default_factory=dict, repr=False, compare=False)

    def noise(self, values: FloatImage, step: int = 4) -> float:
        """The spread (robust standard deviation) of a difference image over the free felt."""
        v = every(values, step)[every(self.free, step) > 0]
        if v.size == 0:
            return 0.0
        return float(1.4826 * median(np.abs(v - median(v))))

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

    def contrast(self, image: Image, region: tuple[int, int, int, int] | None = None
                 ) -> tuple[FloatImage, FloatImage]:
        """Each pixel against the felt under it: (brightness ratio, colour difference).

        The pixel is split into a multiple ``a`` of the felt colour (a = 1: as
        bright as the felt, a = 0.6: a shadow 40 % deep) and what is left
        across it, ``|pixel - a felt| / (|felt| + offset)``: a shadow changes
        the first only, a stone of another colour the second.
        """
        img, felt = _crop(image, self.colour_map, region)
        a, dp = by_bands(_contrast, img, felt, 2)
        return a, dp

    def contrast_noise(self, image: Image, step: int = 4) -> tuple[float, float]:
        """The felt's own spread in :meth:`contrast`'s two measures, over the free felt (kept per image)."""
        cached = self._cache.get(("contrast_noise", id(image)))
        if isinstance(cached, tuple):
            return (float(cached[0]), float(cached[1]))
        sub = Felt(every(self.colour_map, step), self.colour, every(self.free, step))
        a, dp = sub.contrast(every(image, step))
        result = (sub.noise(a, 1), sub.noise(dp, 1))
        self._cache[("contrast_noise", id(image))] = result
        return result

    def lightness(self, image: Image, region: tuple[int, int, int, int] | None = None) -> FloatImage:
        """How much lighter than the felt each pixel is: (sum(pixel) - sum(felt)) / (sum(felt) + offset).

        Card paper is lighter than any felt; shadows are darker, so they drop out.
        """
        img, felt = _crop(image, self.colour_map, region)
        return by_bands(_lightness, img, felt, 1)[0]


def _contrast(img: Image, felt: FloatImage) -> tuple[FloatImage, ...]:
    """:meth:`Felt.contrast` of an image (a band of one) and the felt under it."""
    ones = np.ones((1, 3), np.float32)
    # both lifted a little, so that near-black felt does not make the ratio explode
    i = img.astype(np.float32) + np.float32(CONTRAST_OFFSET)
    felt = felt + np.float32(CONTRAST_OFFSET)
    ff = cv2.transform(cv2.multiply(felt, felt), ones)
    a = cv2.divide(cv2.transform(cv2.multiply(i, felt), ones), ff + 1.0)
    perp = cv2.subtract(i, cv2.multiply(felt, cv2.merge([a, a, a])))
    dp = cv2.divide(cv2.sqrt(cv2.transform(cv2.multiply(perp, perp), ones)),
                    cv2.sqrt(ff) + DISTANCE_OFFSET)
    return np.asarray(a, np.float32), np.asarray(dp, np.float32)


def _lightness(img: Image, felt: FloatImage) -> tuple[FloatImage, ...]:
    """:meth:`Felt.lightness` of an image (a band of one) and the felt under it."""
    ones = np.ones((1, 3), np.float32)
    if img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3:
        # the channels' sum of bytes is a whole number under 766: added as floats straight from the
        # bytes it is the same, without a float copy of the whole image (about 1.5 ms a frame)
        b, g, r = cv2.split(img)
        si = cv2.add(cv2.add(b, g, dtype=cv2.CV_32F), r, dtype=cv2.CV_32F)
    else:
        si = cv2.transform(img.astype(np.float32), ones)
    sf = cv2.transform(felt, ones)
    return (np.asarray(cv2.divide(cv2.subtract(si, sf), sf + 3 * DISTANCE_OFFSET), np.float32),)


def by_bands(measure: Callable[[Image, FloatImage], tuple[FloatImage, ...]], img: Image, felt: FloatImage,
             outputs: int, channels: int | None = None) -> tuple[FloatImage, ...]:
    """``measure(img, felt)``, a per-pixel measure of ``outputs`` float32 images (the size of ``img``'s first
    two sides, and a third of ``channels`` when given), taken :data:`BAND_ROWS` rows at a time."""
    h = img.shape[0]
    if h <= BAND_ROWS:
        return measure(img, felt)
    shape = img.shape[:2] if channels is None else (*img.shape[:2], channels)
    out = tuple(np.empty(shape, np.float32) for _ in range(outputs))
    for y in range(0, h, BAND_ROWS):
        for plane, band in zip(out, measure(img[y:y + BAND_ROWS], felt[y:y + BAND_ROWS]), strict=True):
            plane[y:y + BAND_ROWS] = band
    return out


def _crop(image: Image, felt: FloatImage, region: tuple[int, int, int, int] | None
          ) -> tuple[Image, FloatImage]:
    if region is None:
        return image, felt
    x0, y0, x1, y1 = region
    return (np.ascontiguousarray(image[y0:y1, x0:x1]),
            np.ascontiguousarray(felt[y0:y1, x0:x1]))


def _spread(logs: FloatImage, model: FloatImage, free: npt.NDArray[np.bool_]) -> float:
    """Median largest-channel log deviation of the free felt from a model (every other pixel)."""
    f = free[::2, ::2]
    if not f.any():
        return 0.05
    return float(median(channel_max(np.ascontiguousarray(np.abs(logs[::2, ::2] - model[::2, ::2])))[f]))


def _median_log(image: Image, where: npt.NDArray[np.bool_]) -> FloatImage:
    """``np.median(log_image(image)[where], axis=0)``, from each channel's histogram of grey levels.

    The log is increasing, so the middle pixels' logs are the middle logs; the mean of the two
    middle ones is taken in float32 as numpy's median takes it. A sort of every pixel was the
    felt model's largest cost after the resizes.
    """
    values = image[where]
    n = len(values)
    out = np.empty(3, np.float32)
    for ch in range(3):
        cum = np.cumsum(np.bincount(values[:, ch], minlength=256))
        lo = _LOG_LUT[int(np.searchsorted(cum, (n - 1) // 2, side="right"))]
        hi = _LOG_LUT[int(np.searchsorted(cum, n // 2, side="right"))]
        out[ch] = (lo + hi) / np.float32(2.0)
    return out


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
    median = _median_log(np.asarray(small, np.uint8), free if free.any() else np.ones_like(free))
    # 1: a median over a window much larger than a card: the felt covers most
    #    of any such window (cards, stones, a hand are each a minority), so the
    #    median is the felt under the light, broad features (a lamp's gradient,
    #    a shadow, a glare) included
    d = 2 * round(object_mm * k_small / 2) + 1
    ref = log_image(np.asarray(cv2.medianBlur(np.asarray(small, np.uint8), d), np.uint8))
    ref = np.asarray(cv2.GaussianBlur(ref, (0, 0), 8.0 * k_small), np.float32)
    # 2: the pixels near the reference, smoothed (normalised convolution); then
    # 3, 4: again with a tolerance set by how far the felt itself strays from
    #       the model (texture, noise): objects stray further
    prior = 0.03
    model = ref
    # the felt's own spread, judged by its quieter half (the reference is off where the light changes)
    spread = 2.0 * float(percentile(channel_max(np.abs(logs - ref))[free], 25)) if free.any() else 0.05
    for sigma in TOLERANCE_SIGMAS:
        tol = float(np.clip(4.0 * spread, MIN_TOLERANCE, 0.3))
        dev = channel_max(np.abs(logs - model))
        weight = (dev < tol).astype(np.float32)
        num, den = _normconv(logs, weight, sigma * k_small)
        model = (num + prior * ref) / (den + prior)[:, :, None]
        spread = _spread(logs, model, free)
    linear = np.maximum(np.exp(model) - LOG_OFFSET, 0.0)
    full = cv2.resize(linear.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    colour = np.exp(median) - LOG_OFFSET
    return Felt(np.asarray(full, np.float32),
                (float(colour[0]), float(colour[1]), float(colour[2])),
                _free_felt_mask(mat, px_per_mm, (h, w)))
