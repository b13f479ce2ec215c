"""The corner model (``models/corners.onnx``): a card read by its ends, as every Spanish deck prints them.

What identifies a card in any Spanish deck lies at its two ends: the corner
index (1-7, 10, 11, 12), the pintas (breaks in the frame line: none for oros,
one for copas, two for espadas, three for bastos) and often a suit sign. The
main model (``cards.onnx``) learns the whole face, and so the art of the decks
it saw; this one sees only the end bands (:func:`vision.cardcrop.warp_bands`,
cut from the frame at about 2.1 px/mm) and answers the rank and the suit with
two heads, exported as one ``logits`` [N, 40] output whose softmax is the
product of the two (so the reader's rules apply unchanged).

``python -m models.corners`` renders scenes of :func:`models.deck.corner_style`
decks (never a scanned deck unless given with ``--deck``, never a held-out
style), trains on the CPU with two threads and exports the ONNX file.
torch is imported only inside the functions that train.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from models.dataset import jitter_quad
from models.deck import ART_VERSION, HELD_OUT_STYLES, corner_style, load_deck, render_card
from models.scene import (
    _FELTS,
    SceneSpec,
    _light,
    _rounded_mask,
    random_cards,
    random_scene,
    render_scene,
)
from models.train import augment, cache_dir, to_tensor
from table.cards import Card
from vision.cardcrop import BAND_H, BAND_W, warp_bands
from vision.classifier import default_corner_model_path

CORNER_ART = 3
"""Bumped when :func:`models.deck.corner_style` changes, so that cached bands are rendered again."""
CHANNELS = (16, 24, 48, 64)


def card_view(face: npt.NDArray[np.uint8], width_mm: float, rng: np.random.Generator,
              px_per_mm: float) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.float32]]:
    """One card on felt as the camera sees it, alone in a small frame, and its quad there.

    Cheaper than a whole scene (:func:`models.scene.render_scene`) by far, with
    the same light (:func:`models.scene._light`: colour, gradient, shadows,
    glare, blur, noise, JPEG); the perspective of a tilted camera is a few
    per cent of the card at most.
    """
    import cv2

    fh, fw = face.shape[:2]
    w_mm, h_mm = width_mm, width_mm * fh / fw
    k = px_per_mm
    side = int(np.ceil(np.hypot(w_mm, h_mm) * k * 1.2)) + 8
    felt = np.asarray(_FELTS[int(rng.integers(len(_FELTS)))], np.float32) + rng.normal(0, 12, 3)
    img = np.empty((side, side, 3), np.float32)
    img[:] = felt
    small = cv2.resize(rng.normal(0, 6, (6, 6)).astype(np.float32), (side, side))
    img += small[:, :, None]
    img = np.clip(img, 0, 255).astype(np.uint8)
    # the card: turned any way, moved a little, corners moved by a tilt
    a = rng.uniform(0, 2 * np.pi)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    local = np.array([[-w_mm, -h_mm], [w_mm, -h_mm], [w_mm, h_mm], [-w_mm, h_mm]]) / 2
    local = local + rng.normal(0, 0.012 * h_mm, (4, 2))
    quad = (local @ rot.T) * k + side / 2 + rng.uniform(-0.05, 0.05, 2) * side
    ks = min(1.0, 1.15 * k / (fw / w_mm))  # drawn a little finer than the camera, as a scene's canvas is
    src_face = cv2.resize(face, (max(8, round(fw * ks)), max(8, round(fh * ks))), interpolation=cv2.INTER_AREA)
    sh, sw = src_face.shape[:2]
    src = np.float32([[-0.5, -0.5], [sw - 0.5, -0.5], [sw - 0.5, sh - 0.5], [-0.5, sh - 0.5]])
    m = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    bright = float(rng.uniform(0.9, 1.05))
    warped = cv2.warpPerspective(src_face, m, (side, side), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE).astype(np.float32) * bright
    mask = cv2.warpPerspective(_rounded_mask(sw, sh, 3.0 * sw / w_mm), m, (side, side),
                               flags=cv2.INTER_LINEAR).astype(np.float32)[:, :, None] / 255.0
    # the card's own shadow on the felt
    off = (rng.uniform(0.5, 2.5) * k, rng.uniform(0.5, 2.5) * k)
    shadow = cv2.warpAffine(mask[:, :, 0], np.float32([[1, 0, off[0]], [0, 1, off[1]]]), (side, side))
    shadow = cv2.GaussianBlur(shadow, (0, 0), 2.0 * k)[:, :, None]
    base = img.astype(np.float32) * (1 - 0.45 * shadow)
    out = np.clip(base * (1 - mask) + warped * mask, 0, 255).astype(np.uint8)
    spec = SceneSpec(kelvin=float(rng.uniform(2700, 6500)), gradient=float(rng.uniform(0, 0.5)),
                     shadows=int(rng.integers(0, 3)) if rng.random() < 0.5 else 0,
                     glare=float(rng.uniform(0.3, 0.9)) if rng.random() < 0.2 else 0.0,
                     blur=float(rng.uniform(0, 1.2)) * k / 1.5, noise=float(rng.uniform(0, 6)),
                     jpeg_quality=int(rng.integers(55, 96)))
    return _light(out, spec, rng, np.eye(3)), quad.astype(np.float32)


def make_views(n_decks: int, rng: np.random.Generator, views: int = 3,
               px_range: tuple[float, float] = (1.2, 3.0), jitter_px: float = 3.0
               ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """End bands and card ids from ``n_decks`` random corner-style decks, ``views`` views of each card."""
    from table.cards import DECK

    bands: list[npt.NDArray[np.uint8]] = []
    labels: list[int] = []
    for _ in range(n_decks):
        style = corner_style(rng)
        for card in DECK:
            face = render_card(card, style, rng)
            for _ in range(views):
                k = float(rng.uniform(*px_range))
                img, quad = card_view(face, style.card_mm[0], rng, k)
                two = warp_bands(img, jitter_quad(quad, rng, jitter_px * k / 1.5))
                bands += [two[0], two[1]]
                labels += [card.index, card.index]
    return np.stack(bands), np.asarray(labels, np.int64)


def _views_worker(args: tuple[int, int, tuple[float, float]]) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    import cv2

    cv2.setNumThreads(1)
    n, seed, px_range = args
    return make_views(n, np.random.default_rng(seed), px_range=px_range)


def build_views(path: Path, n_decks: int, seed: int, workers: int = 2,
                px_range: tuple[float, float] = (1.2, 3.0), chunk: int = 2
                ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """Render (or load from ``path``) the training bands of ``n_decks`` random decks, in seeded chunks."""
    import multiprocessing as mp

    if path.exists():
        with np.load(path) as z:
            return z["bands"], z["labels"]
    jobs = [(min(chunk, n_decks - i), seed * 100019 + i, px_range) for i in range(0, n_decks, chunk)]
    out_b, out_l = [], []
    t0 = time.time()
    with mp.get_context("fork").Pool(workers) as pool:
        for i, (b, lab) in enumerate(pool.imap(_views_worker, jobs)):
            out_b.append(b)
            out_l.append(lab)
            print(f"  rendered {min((i + 1) * chunk, n_decks)}/{n_decks} decks ({time.time() - t0:.0f} s)",
                  file=sys.stderr, flush=True)
    bands, labels = np.concatenate(out_b), np.concatenate(out_l)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, bands=bands, labels=labels)
    return bands, labels


def make_bands(n_scenes: int, rng: np.random.Generator, styles: str = "training",
               scanned: tuple[dict[Card, Any], ...] = (), scanned_share: float = 0.0,
               px_range: tuple[float, float] = (1.2, 3.0), jitter_px: float = 3.0
               ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """End bands ``(N, BAND_H, BAND_W, 3)`` and card ids, two per card, from random scenes.

    The frame's resolution is drawn in ``px_range`` px/mm (the live camera's
    1.2-1.8 and a full-resolution still's more).
    """
    bands: list[npt.NDArray[np.uint8]] = []
    labels: list[int] = []
    held = sorted(HELD_OUT_STYLES)
    for _ in range(n_scenes):
        cards = random_cards(rng)
        flat = {c for seat in cards for c in seat}
        if styles == "held-out":
            style = HELD_OUT_STYLES[held[int(rng.integers(len(held)))]]
            deck: Any = style
            width = style.card_mm[0]
        elif scanned and rng.random() < scanned_share:
            deck = scanned[int(rng.integers(len(scanned)))]
            width = float(rng.uniform(56.0, 68.0))
        else:
            style = corner_style(rng)
            deck = {c: render_card(c, style, rng) for c in flat}
            width = style.card_mm[0]
        spec = random_scene(rng, cards=cards, deck=deck, card_width_mm=width, extras=(),
                            px_per_mm=float(rng.uniform(*px_range)))
        try:
            scene = render_scene(spec, rng)
        except ValueError:  # a crowded layout that does not fit
            continue
        for t in scene.cards:
            two = warp_bands(scene.image, jitter_quad(t.quad_image, rng, jitter_px))
            bands += [two[0], two[1]]
            labels += [t.card.index, t.card.index]
    return np.stack(bands), np.asarray(labels, np.int64)


def _worker(args: tuple[int, int, str, tuple[str, ...], tuple[float, float]]
            ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    import cv2

    cv2.setNumThreads(1)
    n, seed, styles, deck_dirs, px_range = args
    scanned = tuple(d for d in (load_deck(p) for p in deck_dirs) if d is not None)
    return make_bands(n, np.random.default_rng(seed), styles, scanned, 0.15 if scanned else 0.0, px_range)


def build_bands(path: Path, n_scenes: int, seed: int, styles: str = "training", workers: int = 2,
                deck_dirs: tuple[str, ...] = (), px_range: tuple[float, float] = (1.2, 3.0),
                chunk: int = 20) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """Render (or load from ``path``) the band set, in seeded chunks over ``workers`` processes."""
    import multiprocessing as mp

    if path.exists():
        with np.load(path) as z:
            return z["bands"], z["labels"]
    jobs = [(min(chunk, n_scenes - i), seed * 100019 + i, styles, deck_dirs, px_range)
            for i in range(0, n_scenes, chunk)]
    out_b, out_l = [], []
    t0 = time.time()
    with mp.get_context("fork").Pool(workers) as pool:
        for i, (b, lab) in enumerate(pool.imap(_worker, jobs)):
            out_b.append(b)
            out_l.append(lab)
            print(f"  rendered {min((i + 1) * chunk, n_scenes)}/{n_scenes} scenes "
                  f"({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
    bands, labels = np.concatenate(out_b), np.concatenate(out_l)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, bands=bands, labels=labels)
    return bands, labels


def build_model() -> Any:
    """A small CNN on one end band: rank (10) and suit (4) heads, combined into 40 card logits."""
    import torch
    from torch import nn

    def conv(cin: int, cout: int) -> list[nn.Module]:
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    c = CHANNELS

    class Corners(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv2d(3, c[0], 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(c[0]),
                nn.ReLU(inplace=True),                                    # 24 x 64
                *conv(c[0], c[1]), nn.MaxPool2d(2),                       # 12 x 32
                *conv(c[1], c[2]), nn.MaxPool2d(2),                       # 6 x 16
                *conv(c[2], c[3]), nn.Flatten(), nn.Dropout(0.3))
            width = c[3] * (BAND_H // 8) * (BAND_W // 8)
            self.rank = nn.Linear(width, 10)
            self.suit = nn.Linear(width, 4)

        def heads(self, x: Any) -> tuple[Any, Any]:
            f = self.features(x)
            return self.rank(f), self.suit(f)

        def forward(self, x: Any) -> Any:
            """Card logits [N, 40] in DECK order (suit-major): log P(rank) + log P(suit)."""
            r, s = self.heads(x)
            lr, ls = torch.log_softmax(r, dim=1), torch.log_softmax(s, dim=1)
            return (ls[:, :, None] + lr[:, None, :]).reshape(-1, 40)

    torch.manual_seed(0)
    return Corners()


def train(decks_n: int = 120, epochs: int = 3, seed: int = 1, threads: int = 2, workers: int = 2,
          out: Path | None = None, batch: int = 128, lr: float = 3e-3, decks: tuple[Path, ...] = (),
          cache: Path | None = None) -> dict[str, float]:
    """Render (or load) the bands, train both heads, export ONNX; held-out band accuracy and minutes."""
    import torch
    from torch import nn

    out = out or default_corner_model_path()
    cache = cache or cache_dir()
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    t0 = time.time()
    bands, labels = build_views(cache / f"views_c{CORNER_ART}_s{seed}_n{decks_n}.npz", decks_n, seed, workers)
    if decks:  # scanned decks: in whole scenes, as the reader sees them
        name = f"bands_c{CORNER_ART}_a{ART_VERSION}_s{seed}" + "".join(f"_{Path(d).name}" for d in decks)
        extra_b, extra_l = build_bands(cache / f"{name}.npz", 10 * len(decks) * decks_n // 12, seed, "training",
                                       workers, tuple(str(d) for d in decks))
        keep = extra_l >= 0
        bands, labels = np.concatenate([bands, extra_b[keep]]), np.concatenate([labels, extra_l[keep]])
    val_b, val_l = build_bands(cache / f"bands_heldout_c{CORNER_ART}_s{seed}.npz", 20, seed + 7919,
                               "held-out", workers, px_range=(1.2, 1.8))
    print(f"{len(bands)} training bands, {len(val_b)} held-out ({time.time() - t0:.0f} s)",
          file=sys.stderr, flush=True)
    model = build_model()
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=5e-4)
    steps = len(bands) // batch
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=epochs * steps, pct_start=0.15)
    ce = nn.CrossEntropyLoss(label_smoothing=0.02)
    gen = torch.Generator().manual_seed(seed)
    data, targets = torch.from_numpy(bands), torch.from_numpy(labels)
    for epoch in range(epochs):
        model.train()
        perm = torch.randperm(len(bands), generator=gen)
        te, total = time.time(), 0.0
        for step in range(steps):
            idx = perm[step * batch:(step + 1) * batch]
            x = mix_art(augment(to_tensor(data[idx].numpy()), gen, turn=False), gen)
            y = targets[idx]
            r, s = model.heads(x)
            loss = ce(r, y % 10) + ce(s, y // 10)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item()
            if step % 50 == 0:
                print(f"\r  epoch {epoch + 1}/{epochs} step {step}/{steps} loss {total / (step + 1):.3f}",
                      end="", file=sys.stderr, flush=True)
        acc = accuracy(model, val_b, val_l)
        print(f"\repoch {epoch + 1}/{epochs}: loss {total / steps:.4f}, held-out band accuracy {acc:.4f}, "
              f"{time.time() - te:.0f} s", file=sys.stderr, flush=True)
        export(model, out)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB) in {(time.time() - t0) / 60:.1f} min",
          file=sys.stderr, flush=True)
    return {"heldout_accuracy": accuracy(model, val_b, val_l), "minutes": (time.time() - t0) / 60}


def mix_art(x: Any, gen: Any, share: float = 0.3) -> Any:
    """In ``share`` of a batch, the band's art (below the frame line, between the corners) swapped
    for another card's: what names the card must come from the index and the pintas, which every
    deck prints, not from the top of this drawing."""
    import torch

    n, _, h, w = x.shape
    pick = torch.nonzero(torch.rand(n, generator=gen) < share).flatten()
    if len(pick) == 0:
        return x
    donor = pick[torch.randperm(len(pick), generator=gen)]
    y0, x0, x1 = int(h * 0.45), int(w * 0.25), int(w * 0.8)
    x[pick, :, y0:, x0:x1] = x[donor, :, y0:, x0:x1].clone()
    return x


def accuracy(model: Any, bands: npt.NDArray[np.uint8], labels: npt.NDArray[np.int64]) -> float:
    """Top-1 card accuracy of the torch model on single bands."""
    import torch

    model.eval()
    right = 0
    with torch.no_grad():
        for i in range(0, len(bands), 512):
            right += int((model(to_tensor(bands[i:i + 512])).argmax(1).numpy() == labels[i:i + 512]).sum())
    return right / max(1, len(bands))


def export(model: Any, path: Path) -> None:
    """ONNX, opset 17: input ``bands`` [N, 3, BAND_H, BAND_W], output ``logits`` [N, 40]."""
    import torch

    model.eval()
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(model, (torch.zeros(1, 3, BAND_H, BAND_W),), str(path), input_names=["bands"],
                      output_names=["logits"], dynamic_axes={"bands": {0: "n"}, "logits": {0: "n"}},
                      opset_version=17, dynamo=False)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--decks", dest="decks_n", type=int, default=120,
                        help="random corner-style decks rendered (40 cards x 3 views x 2 ends each)")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2, help="torch threads")
    parser.add_argument("--workers", type=int, default=2, help="processes rendering scenes")
    parser.add_argument("--out", type=Path, default=None, help="where to write the ONNX model")
    parser.add_argument("--cache", type=Path, default=None, help="where rendered bands are cached")
    parser.add_argument("--deck", dest="decks", type=Path, action="append", default=[],
                        help="also train on a scanned deck folder (leave out any deck you measure on)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models.corners", description=__doc__.splitlines()[0])
    add_arguments(parser)
    a = parser.parse_args(argv)
    train(a.decks_n, a.epochs, a.seed, a.threads, a.workers, a.out, decks=tuple(a.decks), cache=a.cache)
    return 0


if __name__ == "__main__":
    sys.exit(main())
