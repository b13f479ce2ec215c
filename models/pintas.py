"""The pinta model: the suit of a card from the breaks in its frame line alone.

``python -m models.pintas`` draws card ends (no deck, no scene: the top of
a card with its frame line broken 0-3 times, an index in the corner and the
top of some art, seen through the same camera as the index model's corners),
trains a small network on them with torch on the CPU, and writes
``models/pintas.onnx`` (input ``ends`` ``[N, 1, 36, 160]`` grey, output
``logits`` ``[N, 5]``: 0, 1, 2, 3 breaks, i.e. oros, copas, espadas,
bastos, and "not a card's end": blank paper, felt, a phone, a card's back). What varies is what varies between makers: the line's inset,
width and ink, the breaks' length (1.5-15 mm) and whether they are grouped
in the middle or spread along the line, a second line inside the first,
the index inside the frame's corner or outside it. No scanned deck is used.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from models.index import MM, Drawn, _glyphs, _ink, camera, draw_in_pool
from vision.ends import END_H, END_W, normalise


def _colour(c: npt.NDArray[np.float32]) -> tuple[float, float, float]:
    return (float(c[0]), float(c[1]), float(c[2]))


def draw_end(breaks: int, rng: np.random.Generator) -> tuple[npt.NDArray[np.uint8], float, int]:
    """The top of one card at ``MM`` px/mm with ``breaks`` pintas, BGR; how far (mm) the quad may miss
    inwards without cutting the line off; and the line's row."""
    wmm = float(rng.uniform(54, 69))
    hmm = END_H / 248 * wmm * float(rng.uniform(1.45, 1.65))
    w, h = int(round(wmm * MM)), int(round(hmm * MM))
    paper = np.array(rng.uniform(170, 255, 3), np.float32)
    paper[0] = min(paper[0], paper[2]) * float(rng.uniform(0.8, 1.0))
    img = np.empty((h, w, 3), np.float32)
    img[:] = paper
    img += rng.normal(0, rng.uniform(0, 6), (h, w, 1)).astype(np.float32)
    ink = _ink(rng, paper)
    ix = float(rng.uniform(2.5, 8.0))
    iy = float(np.clip(ix + rng.uniform(-1.5, 1.5), 2.5, min(8.5, hmm - 3.0)))
    lw = max(1, int(round(rng.uniform(0.15, 1.0) * MM)))
    x0, x1, y0 = int(round(ix * MM)), w - int(round(ix * MM)), int(round(iy * MM))
    below = y0 + lw + int(round(rng.uniform(0.8, 3.0) * MM))  # art begins below this row
    _art_below(img, rng, below, (x0 + lw, x1 - lw))
    segments = _broken(x0, x1, breaks, rng)
    col = _colour(ink)
    for a, b in segments:
        cv2.line(img, (a, y0), (b, y0), col, lw)
    if rng.random() < 0.25:
        _art_over_line(img, rng, y0, lw, segments)
    cv2.line(img, (x0, y0), (x0, h + 5), col, lw)
    cv2.line(img, (x1, y0), (x1, h + 5), col, lw)
    if rng.random() < 0.2:  # a second line inside the first, solid or broken alike
        d = lw + int(round(rng.uniform(0.8, 2.0) * MM))
        lw2 = max(1, lw // 2)
        inner = _broken(x0 + d, x1 - d, breaks, rng) if rng.random() < 0.4 else [(x0 + d, x1 - d)]
        for a, b in inner:
            cv2.line(img, (a, y0 + d), (b, y0 + d), col, lw2)
        cv2.line(img, (x0 + d, y0 + d), (x0 + d, h + 5), col, lw2)
        cv2.line(img, (x1 - d, y0 + d), (x1 - d, h + 5), col, lw2)
    # the index: in the frame's corner on a patch of paper, or outside it; sometimes in both corners
    mask = _glyphs(str(int(rng.choice((1, 2, 3, 4, 5, 6, 7, 10, 11, 12)))), rng).astype(np.float32) / 255
    th = max(6, int(round(rng.uniform(2.8, 8.0) * MM)))
    tw = max(3, min(int(round(mask.shape[1] * th / mask.shape[0])), w // 4))
    mask = cv2.resize(mask, (tw, th), interpolation=cv2.INTER_AREA)
    py = int(rng.integers(4, max(5, y0 // 2 + 1)))
    inside = rng.random() < 0.55 or py + th > y0 - lw - 4  # outside only where it clears the line
    guard = y0 + (lw + 1) // 2 + 1  # an inside index and its paper never reach the outer line
    if inside:
        px, py = x0 + lw + int(rng.integers(2, 14)), guard + int(rng.integers(3, 14))
    else:
        px = int(rng.integers(4, max(5, x0 - tw // 2)))
    spots = [px] + ([w - px - tw] if rng.random() < 0.3 else [])
    index_ink = _ink(rng, paper) if rng.random() < 0.5 else ink
    for sx in spots:
        sx = int(np.clip(sx, 0, w - tw))
        if inside:
            cv2.rectangle(img, (sx - 3, max(guard, py - 3)), (sx + tw + 3, py + th + 3), _colour(paper), -1)
        rows = min(th, h - py)  # a tall index may run off the strip: only its top is seen
        if rows <= 0:
            continue
        roi = img[py:py + rows, sx:sx + tw]
        m = mask[:rows, :, None]
        roi[:] = roi * (1 - m) + index_ink * m
    return np.clip(img, 0, 255).astype(np.uint8), min(ix, iy) - 0.5, y0


def _broken(x0: int, x1: int, breaks: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    """The inked segments of a line from ``x0`` to ``x1`` with ``breaks`` gaps (px at ``MM``).

    Between two breaks and between a break and the corner there is always
    at least 1.5 mm of line, so that the breaks drawn are the breaks seen.
    """
    span = x1 - x0
    if breaks == 0:
        return [(x0, x1)]
    least = 1.5 * MM
    gap = float(rng.uniform(1.5, 15.0)) * MM
    if rng.random() < 0.5:  # spread along the whole line
        step = span / (breaks + 1)
        centres = [x0 + step * (k + 1) + rng.uniform(-0.1, 0.1) * step for k in range(breaks)]
    else:  # grouped about the middle
        dash = float(rng.uniform(1.5, 12.0)) * MM
        total = breaks * gap + (breaks - 1) * dash
        if total > 0.85 * span:
            k = 0.85 * span / total
            gap, dash, total = gap * k, dash * k, total * k
        first = (x0 + x1) / 2 - total / 2 + gap / 2 + rng.uniform(-0.05, 0.05) * span
        centres = [first + k * (gap + dash) for k in range(breaks)]
    room = min([b - a for a, b in zip(centres, centres[1:], strict=False)]
               + [2 * (centres[0] - x0), 2 * (x1 - centres[-1])])
    gap = max(2.0, min(gap, room - least))
    segs, start = [], float(x0)
    for c in centres:
        segs.append((int(round(start)), int(round(c - gap / 2))))
        start = c + gap / 2
    segs.append((int(round(start)), x1))
    return segs


def _art_below(img: npt.NDArray[np.float32], rng: np.random.Generator, top: int, cols: tuple[int, int]) -> None:
    """The tops of a card's signs or figure, kept below the frame line (art never crosses it)."""
    h, w = img.shape[:2]
    if top >= h - 2:
        return
    layer = img.copy()
    for _ in range(int(rng.integers(0, 6))):
        colour = tuple(float(c) for c in rng.uniform(0, 255, 3))
        cx = int(rng.integers(cols[0], max(cols[0] + 1, cols[1])))
        cy = int(rng.integers(top, h + 120))
        axes = (int(rng.integers(8, 160)), int(rng.integers(8, 160)))
        thick = -1 if rng.random() < 0.6 else int(rng.integers(2, 10))
        cv2.ellipse(layer, (cx, cy), axes, float(rng.uniform(0, 180)), 0, 360, colour, thick, cv2.LINE_AA)
    for _ in range(int(rng.integers(0, 8)) if rng.random() < 0.3 else 0):  # small ornaments, dots
        colour = tuple(float(c) for c in rng.uniform(0, 255, 3))
        cv2.circle(layer, (int(rng.integers(cols[0], max(cols[0] + 1, cols[1]))), int(rng.integers(top, h))),
                   int(rng.integers(2, 10)), colour, -1, cv2.LINE_AA)
    keep = np.zeros((h, w), bool)
    keep[top:, cols[0]:cols[1]] = True
    img[keep] = layer[keep]


def _art_over_line(img: npt.NDArray[np.float32], rng: np.random.Generator, y0: int, lw: int,
                   segments: list[tuple[int, int]]) -> None:
    """A piece of art over the frame line where it is inked (an ace's banner, a figure's hat), never in a pinta.

    Some decks let the art cross the line (the 1878 Fournier ace of oros
    does); a pinta is a break in the line with paper in it, so what covers
    the line elsewhere must not count. The art is nearer the line's ink than
    the paper: art as light as paper over the line would be a break.
    """
    h, w = img.shape[:2]
    layer = img.copy()
    paper = img[max(0, y0 - 3 * lw - 4), (segments[0][0] + segments[0][1]) // 2]
    line = img[y0, segments[0][0] + 1]
    colour = _colour(np.asarray(line + (paper - line) * rng.uniform(0.0, 0.4, 3), np.float32))  # nearer the ink
    a, b = segments[int(rng.integers(len(segments)))]
    if b - a < 4 * MM:
        return
    cx = int(rng.integers(a, b))
    half = int(rng.uniform(2, 20) * MM)
    top, bottom = y0 - int(rng.uniform(0.5, 3.0) * MM), y0 + int(rng.uniform(1.0, 6.0) * MM)
    if rng.random() < 0.5:
        cv2.rectangle(layer, (cx - half, top), (cx + half, bottom), colour, -1)
    else:
        cv2.ellipse(layer, (cx, (top + bottom) // 2), (half, max(2, (bottom - top) // 2)), 0, 0, 360, colour, -1,
                    cv2.LINE_AA)
    keep = np.zeros((h, w), bool)
    margin = int(MM)  # a millimetre of inked line at least between the art and a pinta
    keep[:, max(0, a + margin):max(0, b - margin)] = True
    keep[:max(0, top), :] = False
    img[keep] = layer[keep]


def draw_not_an_end(rng: np.random.Generator) -> npt.NDArray[np.uint8]:
    """Something card-shaped that is not a card's face, at ``MM`` px/mm: its end has no broken frame line.

    Blank paper, a napkin's folds, felt, a phone's glass, a card's back
    (a lattice in a frame), art with no frame, or a face whose line is lost.
    """
    w, h = int(round(61.5 * MM)), int(round(END_H / 248 * 95 * MM))
    base = np.array(rng.uniform(20, 255, 3), np.float32)
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    kind = int(rng.integers(0, 5))
    if kind == 1:  # folds and creases
        for _ in range(int(rng.integers(1, 5))):
            y = int(rng.integers(0, h))
            cv2.line(img, (0, y), (w, y + int(rng.integers(-40, 40))), _colour(base * rng.uniform(0.6, 0.9)),
                     int(rng.integers(2, 12)))
    elif kind == 2:  # a card's back: a lattice, maybe in a plain frame
        col = _colour(np.array(rng.uniform(0, 200, 3), np.float32))
        step = int(rng.integers(20, 80))
        for x in range(-h, w + h, step):
            cv2.line(img, (x, 0), (x + h, h), col, int(rng.integers(2, 10)))
            cv2.line(img, (x + h, 0), (x, h), col, int(rng.integers(2, 10)))
        if rng.random() < 0.5:
            e = int(rng.integers(10, 60))
            cv2.rectangle(img, (e, e), (w - e, h + 50), col, int(rng.integers(2, 8)))
    elif kind == 3:  # art with no frame line
        _art_below(img, rng, int(rng.integers(0, h // 2)), (0, w))
    elif kind == 4:  # a phone or a dark object with a bright rim
        img[:] = rng.uniform(5, 50, 3)
        e = int(rng.integers(5, 40))
        cv2.rectangle(img, (e, e), (w - e, h + 50), _colour(np.array(rng.uniform(40, 255, 3), np.float32)), -1)
    img += rng.normal(0, rng.uniform(0, 8), (h, w, 1)).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


NOT_AN_END = 4
"""The pinta model's fifth class: no broken frame line there (not a card's face)."""


def make_ends(n: int, seed: int, none_share: float = 0.15) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """``n`` normalised grey ends ``[n, END_H, END_W]`` and their number of breaks (4: not an end)."""
    rng = np.random.default_rng(seed)
    xs = np.empty((n, END_H, END_W), np.uint8)
    ys = rng.integers(0, 4, n)
    ys[rng.random(n) < none_share] = NOT_AN_END
    for i in range(n):
        if ys[i] == NOT_AN_END:
            xs[i] = normalise(camera(draw_not_an_end(rng), rng, 1.0, (END_W, END_H)))
            continue
        end, margin, _ = draw_end(int(ys[i]), rng)
        xs[i] = normalise(camera(end, rng, margin, (END_W, END_H)))
    return xs, ys.astype(np.int64)


def build_ends(n: int, seed: int, workers: int = 2) -> Drawn:
    """``n`` ends drawn in ``workers`` processes (seeded per chunk: the same set every time)."""
    return draw_in_pool(make_ends, n, seed, 100_019, workers)


def build_model() -> Any:
    import torch.nn as nn

    def block(cin: int, cout: int) -> list[Any]:
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]

    return nn.Sequential(*block(1, 16), nn.MaxPool2d(2),              # 18 x 80
                         *block(16, 32), nn.MaxPool2d(2),             # 9 x 40
                         *block(32, 48), nn.MaxPool2d((3, 2)),        # 3 x 20
                         *block(48, 64), nn.AdaptiveMaxPool2d((1, 20)), nn.Flatten(),
                         nn.Dropout(0.2), nn.Linear(64 * 20, 5))


def main(argv: list[str] | None = None) -> int:
    from models.index import export, fit

    parser = argparse.ArgumentParser(prog="python -m models.pintas", description=__doc__.splitlines()[0])
    parser.add_argument("--ends", type=int, default=60_000)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("pintas.onnx"))
    a = parser.parse_args(argv)
    t0 = time.time()
    x, y = build_ends(a.ends, a.seed, a.threads)
    print(f"{a.ends} ends drawn in {time.time() - t0:.0f} s", flush=True)
    model = fit(build_model(), x, y, a.epochs, a.seed, a.threads)
    export(model, a.out, "ends", (END_H, END_W))
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
