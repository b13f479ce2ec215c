"""The index model: the rank of a card from its printed corner index alone.

``python -m models.index`` draws index corners (no deck, no scene: a patch
of paper with a frame's corner, a printed number and bits of art, seen
through a camera at 1.1-3.2 px/mm), trains a small network on them with
torch on the CPU, and writes ``models/index.onnx`` (input ``corners``
``[N, 1, 42, 42]`` grey, output ``logits`` ``[N, 10]`` in
:data:`vision.index.RANKS` order). What a Spanish index varies in is what
the drawing varies: type family (every TrueType face Pillow finds and the
Hershey fonts but TRIPLEX, which the held-out style ``clasica`` prints),
weight, width, slant, height 2.8-8.5 mm, ink, inside the frame's corner or
outside it, and the frame line touching it or not. No scanned deck is used,
so a real deck's figure is an honest "never seen" one.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from models.deck import available_ttf_fonts
from vision.ends import PATCH, RANKS, normalise

MM = 8.0
"""Drawing resolution, px per mm, before the camera."""
SIDE_MM = 16.0
"""A patch covers the card's corner this many mm across (at a 61.5 mm card's width)."""
HERSHEY = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
           cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_COMPLEX_SMALL, cv2.FONT_HERSHEY_SCRIPT_SIMPLEX)
"""TRIPLEX is left out: the held-out drawn style ``clasica`` prints its index in it."""


def _glyphs(text: str, rng: np.random.Generator) -> npt.NDArray[np.uint8]:
    """The number as an ink mask in a random face, cropped to its ink (any size; scaled later)."""
    ttfs = available_ttf_fonts()
    if ttfs and rng.random() < 0.65:
        from PIL import Image, ImageDraw, ImageFont

        font = ImageFont.truetype(str(ttfs[int(rng.integers(len(ttfs)))]), 120)
        canvas = Image.new("L", (150 * len(text) + 60, 200), 0)
        spacing = int(rng.integers(-10, 12))  # tight as engraved numbers often are, or apart
        x = 20
        draw = ImageDraw.Draw(canvas)
        for ch in text:
            draw.text((x, 20), ch, fill=255, font=font)
            x += int(draw.textlength(ch, font=font)) + spacing
        mask = np.asarray(canvas, np.uint8)
    else:
        face = int(rng.choice(HERSHEY)) | (cv2.FONT_ITALIC if rng.random() < 0.2 else 0)
        th = int(rng.integers(2, 9))
        (tw, tht), base = cv2.getTextSize(text, face, 4.0, th)
        mask = np.zeros((tht + base + 2 * th + 20, tw + 2 * th + 20), np.uint8)
        cv2.putText(mask, text, (th + 10, tht + th + 10), face, 4.0, 255, th, cv2.LINE_AA)
    if "4" in text and rng.random() < 0.3:  # the open-topped 4 of many decks' faces, no font here has
        mask = _open_four(text, mask, rng)
    if rng.random() < 0.5:  # weight: thinner or bolder strokes
        k = int(rng.integers(1, 4))
        op = cv2.erode if rng.random() < 0.5 else cv2.dilate
        mask = op(mask, np.ones((2 * k + 1, 2 * k + 1), np.uint8))
    if rng.random() < 0.5:
        mask = _reshape(mask, rng)
    ys, xs = np.nonzero(mask > 40)
    if len(ys) == 0:
        return _glyphs(text, rng)
    return np.ascontiguousarray(mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1])


def _open_four(text: str, mask: npt.NDArray[np.uint8], rng: np.random.Generator) -> npt.NDArray[np.uint8]:
    """A 4 drawn as three strokes whose upright stops short of the diagonal (an engraved, open 4)."""
    h = 150
    w = int(h * rng.uniform(0.55, 0.8))
    th = int(rng.integers(6, 22))
    out = np.zeros((h + 2 * th, w + 2 * th), np.uint8)
    bar = int(h * rng.uniform(0.62, 0.78))
    top = (int(w * rng.uniform(0.45, 0.75)) + th, th)
    left = (th, bar + th)
    stem = int(w * rng.uniform(0.6, 0.8)) + th
    cv2.line(out, top, left, 255, th, cv2.LINE_AA)
    cv2.line(out, left, (w + th, bar + th), 255, max(3, int(th * rng.uniform(0.5, 1.0))), cv2.LINE_AA)
    cv2.line(out, (stem, int(h * rng.uniform(0.2, 0.5)) + th), (stem, h + th), 255, th, cv2.LINE_AA)
    if rng.random() < 0.5:  # a foot
        cv2.line(out, (stem - w // 6, h + th), (stem + w // 6, h + th), 255, max(3, th // 2), cv2.LINE_AA)
    return out


def _reshape(mask: npt.NDArray[np.uint8], rng: np.random.Generator) -> npt.NDArray[np.uint8]:
    """The glyph a little unlike its font: bent by a smooth field, and now and then a stroke broken.

    Real decks print numbers in faces no machine has, engraved and worn;
    bending the shapes and breaking a stroke (as worn printing does) keeps
    the model from learning the few fonts it is drawn in.
    """
    h, w = mask.shape
    amp = float(rng.uniform(0.01, 0.04)) * h
    field = rng.normal(0, 1, (2, 4, 4)).astype(np.float32)
    dx = cv2.resize(field[0], (w, h), interpolation=cv2.INTER_CUBIC) * amp
    dy = cv2.resize(field[1], (w, h), interpolation=cv2.INTER_CUBIC) * amp
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    out = cv2.remap(mask, xx + dx, yy + dy, cv2.INTER_LINEAR, borderValue=0)
    if rng.random() < 0.3:
        ys, xs = np.nonzero(out > 128)
        if len(ys):
            r = max(2, int(h * rng.uniform(0.02, 0.05)))
            for _ in range(int(rng.integers(1, 3))):
                i = int(rng.integers(len(ys)))
                cv2.circle(out, (int(xs[i]), int(ys[i])), r, 0, -1)
    return np.asarray(out, np.uint8)


def _ink(rng: np.random.Generator, paper: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """A printing ink: mostly near-black or brown, sometimes a suit's colour, always darker than paper."""
    if rng.random() < 0.7:
        base = rng.uniform(10, 90, 3)
        if rng.random() < 0.5:  # brown
            base = np.array([base[0] * 0.5, base[1] * 0.8, base[2] * 1.2 + 20])
    else:
        base = rng.uniform(0, 200, 3)
        base[int(rng.integers(3))] = rng.uniform(0, 60)
    fade = float(rng.uniform(0.0, 0.45)) if rng.random() < 0.4 else 0.0
    ink = base * (1 - fade) + paper * fade
    if ink.mean() > 0.7 * paper.mean():
        ink = ink * 0.6
    return np.asarray(ink, np.float32)


def draw_corner(rank: int, rng: np.random.Generator) -> tuple[npt.NDArray[np.uint8], float]:
    """One card corner at ``MM`` px/mm, ``SIDE_MM`` across, BGR (paper, frame, index, a bit of art),
    and how far (mm) the index lies from the card's edge."""
    n = int(SIDE_MM * MM)
    paper = np.array(rng.uniform(170, 255, 3), np.float32)
    paper[0] = min(paper[0], paper[2]) * float(rng.uniform(0.8, 1.0))  # paper is white to cream
    img = np.empty((n, n, 3), np.float32)
    img[:] = paper
    img += rng.normal(0, rng.uniform(0, 6), (n, n, 1)).astype(np.float32)  # paper grain
    line_ink = _ink(rng, paper)
    text = str(rank)
    mask = _glyphs(text, rng).astype(np.float32) / 255.0
    hmm = float(np.exp(rng.uniform(np.log(2.8), np.log(8.5))))  # small indices (3.5 mm) as often as large
    hpx = max(6, int(round(hmm * MM)))
    wpx = max(3, int(round(mask.shape[1] * hpx / mask.shape[0] * rng.uniform(0.8, 1.2))))
    wpx = min(wpx, n - 8)
    mask = cv2.resize(mask, (wpx, hpx), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.3:  # slant
        shear = float(rng.uniform(-0.25, 0.25))
        m = np.float32([[1, shear, -shear * hpx / 2], [0, 1, 0]])
        mask = cv2.warpAffine(mask, m, (wpx, hpx))
    inside = rng.random() < 0.55
    frame = rng.random() < 0.9
    lw = max(1, int(round(rng.uniform(0.15, 1.0) * MM)))
    if inside:
        inset = float(rng.uniform(2.5, 7.0))
        pad = float(rng.uniform(0.3, 1.8))
        tx = ty = inset + lw / MM + pad
        tx += float(rng.uniform(-0.3, 0.8))
    else:
        tx, ty = float(rng.uniform(0.6, 3.0)), float(rng.uniform(0.6, 3.5))
        inset = float(max(tx + wpx / MM, ty + hmm) + rng.uniform(0.3, 3.0)) if rng.random() < 0.7 \
            else float(rng.uniform(1.5, 7.0))  # the frame's corner behind the number
    x0, y0 = int(round(tx * MM)), int(round(ty * MM))
    x0, y0 = min(x0, n - wpx - 1), min(y0, n - hpx - 1)
    _art(img, rng, (x0 + wpx, y0 + hpx), paper)
    pad_px = int(rng.integers(2, 6))  # a card's art never covers its index (its frame line may)
    cv2.rectangle(img, (max(0, x0 - pad_px), max(0, y0 - pad_px)), (x0 + wpx + pad_px, y0 + hpx + pad_px),
                  tuple(float(c) for c in paper), -1)
    if frame:
        e = int(round(inset * MM))
        colour = tuple(float(c) for c in line_ink)
        cv2.line(img, (e, e), (n, e), colour, lw)
        cv2.line(img, (e, e), (e, n), colour, lw)
        if rng.random() < 0.25:  # a double border
            d = e + lw + int(rng.integers(4, 14))
            cv2.line(img, (d, d), (n, d), colour, max(1, lw // 2))
            cv2.line(img, (d, d), (d, n), colour, max(1, lw // 2))
        if rng.random() < 0.5 and e + 40 < n - 1:  # a pinta beginning in the patch
            g = int(rng.integers(e + 40, n))
            cv2.line(img, (g, e), (n, e), tuple(float(c) for c in paper), lw + 2)
        if inside or rng.random() < 0.5:  # the index on a patch of paper (else printed over the line)
            pad_px = int(rng.integers(2, 8))
            cv2.rectangle(img, (x0 - pad_px, y0 - pad_px), (x0 + wpx + pad_px, y0 + hpx + pad_px),
                          tuple(float(c) for c in paper), -1)
    ink = _ink(rng, paper) if rng.random() < 0.5 else line_ink
    roi = img[y0:y0 + hpx, x0:x0 + wpx]
    roi[:] = roi * (1 - mask[..., None]) + ink * mask[..., None]
    return np.clip(img, 0, 255).astype(np.uint8), float(min(tx, ty)) - 0.3


def _art(img: npt.NDArray[np.float32], rng: np.random.Generator, clear: tuple[int, int],
         paper: npt.NDArray[np.float32]) -> None:
    """Bits of a card's art below and right of the index (a sign's edge, a figure's hat, ornaments)."""
    n = img.shape[0]
    for _ in range(int(rng.integers(0, 5))):
        colour = tuple(float(c) for c in rng.uniform(0, 255, 3))
        cx = int(rng.integers(clear[0] - 10, n + 40))
        cy = int(rng.integers(clear[1] + 4, n + 40)) if rng.random() < 0.5 else int(rng.integers(0, n + 40))
        if cx < clear[0] and cy < clear[1] + 4:
            continue
        axes = (int(rng.integers(6, 60)), int(rng.integers(6, 60)))
        thick = -1 if rng.random() < 0.6 else int(rng.integers(1, 6))
        cv2.ellipse(img, (cx, cy), axes, float(rng.uniform(0, 180)), 0, 360, colour, thick, cv2.LINE_AA)
        if cx < clear[0] + 8 and cy < clear[1] + 8:  # never over the index
            cv2.rectangle(img, (0, 0), clear, tuple(float(c) for c in paper), -1)


def camera(img: npt.NDArray[np.uint8], rng: np.random.Generator, margin_mm: float = 1.0,
           size: tuple[int, int] = (PATCH, PATCH)) -> npt.NDArray[np.uint8]:
    """A card's corner or end (drawn at ``MM`` px/mm, its top-left the card's) as the table sees it.

    Light, a felt edge where the quad missed, resolution (1.1-3.2 px/mm),
    blur, noise and JPEG; then rectified to ``size`` (w, h) as the reader
    cuts it from the face. The quad never misses by more than ``margin_mm``
    inwards, so what is drawn that far from the edge is never cut off.
    """
    h, w = img.shape[:2]
    out = img.astype(np.float32)
    gain = (rng.uniform(0.55, 1.15) * rng.uniform(0.85, 1.15, 3)).astype(np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    grad = 1 + rng.uniform(-0.25, 0.25) * xx / w + rng.uniform(-0.25, 0.25) * yy / h
    out = out * gain[None, None, :] * grad[..., None].astype(np.float32)
    if rng.random() < 0.15:  # a glare
        cx, cy = float(rng.uniform(0, w)), float(rng.uniform(0, h))
        r = float(rng.uniform(10, 60))
        g = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))
        out = out + (255 - out) * (rng.uniform(0.3, 0.8) * g)[..., None]
    # the finder's error: the quad a little off (felt at an edge), turned, scaled
    felt = rng.uniform(10, 160, 3).astype(np.float32)
    sc = float(rng.uniform(0.88, 1.12))
    ang = float(rng.uniform(-3.5, 3.5)) * (SIDE_MM * MM / max(w, h))
    dx, dy = rng.uniform(-min(2.0, margin_mm), 2.0, 2) * MM
    m = cv2.getRotationMatrix2D((0.0, 0.0), ang, sc)
    m[:, 2] += (dx, dy)
    canvas = np.empty((h, w, 3), np.float32)
    canvas[:] = felt
    out = cv2.warpAffine(np.asarray(out, np.float32), m, (w, h), dst=canvas, borderMode=cv2.BORDER_TRANSPARENT)
    px = float(rng.uniform(1.1, 3.2))
    small = (max(8, int(round(w / MM * px))), max(8, int(round(h / MM * px))))
    out = cv2.resize(np.clip(out, 0, 255), small, interpolation=cv2.INTER_AREA)
    s = float(rng.uniform(0.0, 0.9))
    if s > 0.15:
        out = cv2.GaussianBlur(out, (0, 0), s)
    out = out + rng.normal(0, rng.uniform(0.5, 6.0), out.shape).astype(np.float32)
    out8 = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.8:
        ok, enc = cv2.imencode(".jpg", out8, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(55, 96))])
        out8 = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    return np.asarray(cv2.resize(out8, size, interpolation=cv2.INTER_LINEAR), np.uint8)


def make_patches(n: int, seed: int) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """``n`` normalised grey patches ``[n, PATCH, PATCH]`` and their rank classes."""
    rng = np.random.default_rng(seed)
    xs = np.empty((n, PATCH, PATCH), np.uint8)
    ys = rng.integers(0, len(RANKS), n)
    for i in range(n):
        corner, margin = draw_corner(RANKS[int(ys[i])], rng)
        xs[i] = normalise(camera(corner, rng, margin))
    return xs, ys.astype(np.int64)


Drawn = tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]


def draw_in_pool(make: Callable[[int, int], Drawn], n: int, seed: int, salt: int, workers: int = 2) -> Drawn:
    """``n`` examples drawn by ``make(count, seed)`` in ``workers`` processes, 2 000 at a time.

    Each chunk has its own seed (``seed * salt + start``), so the set is the
    same however many workers draw it.
    """
    from multiprocessing import Pool

    chunk = 2000
    jobs = [(min(chunk, n - i), seed * salt + i) for i in range(0, n, chunk)]
    with Pool(workers) as pool:
        parts = pool.starmap(make, jobs)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def build_patches(n: int, seed: int, workers: int = 2) -> Drawn:
    """``n`` patches drawn in ``workers`` processes (seeded per chunk: the same set every time)."""
    return draw_in_pool(make_patches, n, seed, 100_003, workers)


def build_model() -> Any:
    import torch.nn as nn

    def block(cin: int, cout: int) -> list[Any]:
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]

    return nn.Sequential(*block(1, 16), *block(16, 24), nn.MaxPool2d(2),      # 21
                         *block(24, 48), nn.MaxPool2d(2),                     # 10
                         *block(48, 64), *block(64, 64), nn.MaxPool2d(2),     # 5
                         *block(64, 96), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Dropout(0.2), nn.Linear(96, len(RANKS)))


def fit(model: Any, x: npt.NDArray[np.uint8], y: npt.NDArray[np.int64], epochs: int, seed: int = 1,
        threads: int = 2) -> Any:
    """Train ``model`` on grey images ``x`` (uint8) and classes ``y``; return it in eval mode.

    AdamW, one-cycle, batch 128, light label smoothing; contrast and
    brightness varied on the fly.
    """
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    t0 = time.time()
    xt = torch.from_numpy(x).float().div(255.0).unsqueeze(1)
    yt = torch.from_numpy(y)
    n = len(yt)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=5e-4)
    steps = max(1, epochs * (n // 128))
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.02)
    for epoch in range(epochs):
        model.train()
        perm = torch.randperm(n)
        total = 0.0
        for i in range(n // 128):
            idx = perm[i * 128:(i + 1) * 128]
            a = torch.empty(len(idx), 1, 1, 1).uniform_(0.7, 1.3)
            b = torch.empty(len(idx), 1, 1, 1).uniform_(-0.1, 0.1)
            xb = (xt[idx] - 0.5) * a + 0.5 + b
            opt.zero_grad()
            loss = loss_fn(model(xb), yt[idx])
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach())
        print(f"epoch {epoch + 1}/{epochs}: loss {total / max(1, n // 128):.3f} ({time.time() - t0:.0f} s)",
              flush=True)
    model.eval()
    return model


def export(model: Any, path: Path, input_name: str = "corners", shape: tuple[int, int] = (PATCH, PATCH)) -> None:
    """Write ``model`` as ONNX (opset 17, dynamic batch) with one grey input and ``logits``."""
    import torch

    dummy = torch.zeros(2, 1, *shape)
    torch.onnx.export(model, dummy, str(path), input_names=[input_name], output_names=["logits"],
                      dynamic_axes={input_name: {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models.index", description=__doc__.splitlines()[0])
    parser.add_argument("--patches", type=int, default=80_000)
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("index.onnx"))
    parser.add_argument("--int8", dest="quantized", action="store_true",
                        help="write an 8-bit copy (models.quantize), not the float model the reader ships: "
                             "faster, but its calls move between CPUs")
    a = parser.parse_args(argv)
    t0 = time.time()
    x, y = build_patches(a.patches, a.seed, workers=a.threads)
    print(f"{a.patches} patches drawn in {time.time() - t0:.0f} s", flush=True)
    model = fit(build_model(), x, y, a.epochs, a.seed, a.threads)
    export(model, a.out)
    if a.quantized:
        from models.quantize import quantize_index

        quantize_index(a.out, a.out)
    print(f"wrote {a.out}{' (8-bit)' if a.quantized else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
