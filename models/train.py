"""Train the card model on crops of rendered scenes and export ``models/cards.onnx``.

``python -m models.train`` (or ``mus-table train``): renders the crop set once
(cached under ``out/``), trains a small CNN on the CPU with two threads,
seeded, printing progress, and exports it to ONNX (opset 17, dynamic batch).
The held-out deck styles are never rendered for training.

torch is imported here only: the product and the tests run without it.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from models.deck import ART_VERSION, load_deck
from table.errors import InvalidInput
from vision.cardcrop import CROP_H, CROP_W
from vision.classifier import default_model_path

MODEL_PATH = default_model_path()
"""Where the reader looks for the model, and where training writes it unless told (``--out``)."""


class IncompleteDeck(InvalidInput):
    """A scanned deck folder given to training without its 40 faces."""


def cache_dir() -> Path:
    """Where rendered crop sets are cached: ``$MUS_TABLE_CACHE``, else ``$XDG_CACHE_HOME/mus-table``.

    Never inside the installed package (``~/.cache/mus-table`` by default).
    """
    env = os.environ.get("MUS_TABLE_CACHE")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mus-table"
CHANNELS = (24, 32, 48, 64, 96)
FEATURES = "features"
"""The model's second output: what its last (linear) layer sees, one row per crop."""


def build_model() -> Any:
    """A small VGG-like CNN: 112x72 RGB crop in, 40 logits out (DECK order)."""
    import torch
    from torch import nn

    def block(cin: int, cout: int, n: int) -> list[nn.Module]:
        layers: list[nn.Module] = []
        for i in range(n):
            layers += [nn.Conv2d(cin if i == 0 else cout, cout, 3, padding=1, bias=False),
                       nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]
        return layers

    c = CHANNELS
    layers = [nn.Conv2d(3, c[0], 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(c[0]),
              nn.ReLU(inplace=True)]                          # 56 x 36
    layers += block(c[0], c[1], 1) + [nn.MaxPool2d(2)]      # 28 x 18
    layers += block(c[1], c[2], 1) + [nn.MaxPool2d(2)]      # 14 x 9
    layers += block(c[2], c[3], 2) + [nn.MaxPool2d(2)]      # 7 x 4
    layers += block(c[3], c[4], 1)
    feat = nn.Sequential(*layers)
    head = nn.Sequential(nn.Flatten(), nn.Dropout(0.3), nn.Linear(c[4] * (CROP_H // 16) * (CROP_W // 16), 40))
    torch.manual_seed(0)
    return nn.Sequential(feat, head)


def to_tensor(crops_bgr: np.ndarray) -> Any:
    """uint8 (N, H, W, 3) BGR -> float32 (N, 3, H, W) RGB in [0, 1], as vision.cardcrop.to_model_input."""
    import torch

    t = torch.from_numpy(np.ascontiguousarray(crops_bgr[..., ::-1]))
    return t.permute(0, 3, 1, 2).float().div_(255.0)


def _uniform(gen: Any, lo: float, hi: float, *shape: int) -> Any:
    """Uniform draws in [lo, hi) from the training's seeded generator."""
    import torch

    return torch.rand(*shape, generator=gen) * (hi - lo) + lo


def augment(x: Any, gen: Any, strong: bool = False, turn: bool = True) -> Any:
    """Light, colour and sensor variation on a batch, plus half turns (cards lie either way up).

    ``turn=False`` leaves the half turns out (the corner model's bands are always upright).
    """
    import torch

    n = x.shape[0]

    def u(lo: float, hi: float, *shape: int) -> Any:
        return _uniform(gen, lo, hi, *shape)

    turned = torch.rand(n, generator=gen) < 0.5
    if turn:
        x[turned] = torch.flip(x[turned], dims=(2, 3))
    x = x * u(0.7, 1.25, n, 1, 1, 1) * u(0.85, 1.15, n, 3, 1, 1)
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = (x - mean) * u(0.75, 1.25, n, 1, 1, 1) + mean
    gray = torch.rand(n, generator=gen) < 0.1
    x[gray] = x[gray].mean(dim=1, keepdim=True).expand(-1, 3, -1, -1)
    shuffle = torch.rand(n, generator=gen) < 0.15
    if shuffle.any():
        perm = torch.randperm(3, generator=gen)
        x[shuffle] = x[shuffle][:, perm]
    x = x + torch.randn(x.shape, generator=gen) * u(0.0, 0.03, n, 1, 1, 1)
    x = x.clamp_(0.0, 1.0)
    return restyle(x, gen) if strong else x


def restyle(x: Any, gen: Any) -> Any:
    """Art-breaking variation: what a card is must survive another maker's colours and print.

    Hue turned about the grey axis, saturation and per-channel gamma changed,
    the print softened, and a patch hidden (a finger, a glare): the model is
    pushed to the shapes, counts, index and pintas all Spanish decks share.
    """
    import math

    import torch
    import torch.nn.functional as F

    n = x.shape[0]

    def u(lo: float, hi: float, *shape: int) -> Any:
        return _uniform(gen, lo, hi, *shape)

    # hue rotation about the grey axis (half of the crops), saturation 0.4-1.5: Rodrigues' formula
    theta = u(-math.pi, math.pi, n) * (torch.rand(n, generator=gen) < 0.5)
    cos, sin = torch.cos(theta)[:, None, None], torch.sin(theta)[:, None, None]
    axis = torch.full((3,), 1.0 / math.sqrt(3.0))
    cross = torch.tensor([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]]) / math.sqrt(3.0)
    rot = cos * torch.eye(3) + (1 - cos) * torch.outer(axis, axis) + sin * cross
    x = torch.einsum("nij,njhw->nihw", rot, x)
    grey = x.mean(dim=1, keepdim=True)
    x = grey + (x - grey) * u(0.4, 1.5, n, 1, 1, 1)
    x = x.clamp(1e-4, 1.0) ** u(0.7, 1.4, n, 3, 1, 1)
    # softened print (a third of the crops)
    soft = torch.rand(n, generator=gen) < 0.33
    if soft.any():
        w = torch.tensor([1.0, 2.0, 1.0])
        kern = (w[:, None] * w[None, :] / 16.0).expand(3, 1, 3, 3).contiguous()
        x[soft] = F.conv2d(F.pad(x[soft], (1, 1, 1, 1), mode="replicate"), kern, groups=3)
    # a small hidden patch (a tenth of the crops)
    hide = torch.nonzero(torch.rand(n, generator=gen) < 0.1).flatten().tolist()
    h, w_ = x.shape[2], x.shape[3]
    for i in hide:
        ph, pw = int(u(8, 24, 1)), int(u(6, 18, 1))
        y0, x0 = int(u(0, h - ph, 1)), int(u(0, w_ - pw, 1))
        x[i, :, y0:y0 + ph, x0:x0 + pw] = torch.rand(3, 1, 1, generator=gen)
    return x.clamp_(0.0, 1.0)


def evaluate_torch(model: Any, crops: np.ndarray, labels: np.ndarray, batch: int = 512) -> tuple[float, float]:
    """Accuracy and mean top probability of a torch model on crops."""
    import torch

    model.eval()
    right, conf = 0, 0.0
    with torch.no_grad():
        for i in range(0, len(crops), batch):
            p = torch.softmax(model(to_tensor(crops[i:i + batch])), dim=1)
            top, arg = p.max(dim=1)
            right += int((arg.numpy() == labels[i:i + batch]).sum())
            conf += float(top.sum())
    model.train()
    return right / len(crops), conf / len(crops)


def export_onnx(model: Any, path: Path) -> None:
    """Write the model as ONNX: input ``crops`` [N,3,112,72], outputs ``logits`` [N,40] and
    ``features`` (what the last layer sees, for learnt decks), opset 17."""
    import torch

    model.eval()
    dummy = torch.zeros(1, 3, CROP_H, CROP_W)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(model, (dummy,), str(path), input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=17,
                      dynamo=False)
    add_features_output(path)


def add_features_output(path: Path) -> None:
    """Give the ONNX model a second output, ``features`` [N, F]: the input of its last layer.

    A learnt deck (:mod:`vision.learnt`) classifies these features against the
    deck's own cards; ``logits`` and the input are left exactly as they were.
    Needs the ``onnx`` package (training only); a model that has the output
    already is left alone.
    """
    import onnx
    from onnx import TensorProto, helper

    model = onnx.load(str(path))
    graph = model.graph
    if any(o.name == FEATURES for o in graph.output):
        return
    last = next(n for n in reversed(graph.node) if n.output[0] == "logits")
    if last.op_type != "Gemm":
        raise ValueError(f"{path}: the logits do not come from a linear layer ({last.op_type})")
    weight = next(t for t in graph.initializer if t.name == last.input[1])
    graph.node.append(helper.make_node("Identity", [last.input[0]], [FEATURES], name="features"))
    graph.output.append(helper.make_tensor_value_info(FEATURES, TensorProto.FLOAT, ["n", int(weight.dims[1])]))
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def train(scenes: int = 4000, epochs: int = 12, seed: int = 1, threads: int = 2, workers: int = 2,
          out: Path = MODEL_PATH, batch: int = 128, lr: float = 3e-3, fournier: bool = True,
          decks: tuple[Path, ...] = (), strong: bool = False, cache: Path | None = None,
          quantized: bool = False) -> dict[str, float]:
    """Render (or load) the crop set, train, export; returns the held-out crop accuracy and minutes.

    ``quantized``: write an 8-bit copy (:mod:`models.quantize`), not the float model the reader ships
    (8-bit kernels differ from CPU to CPU: see the model card, "The same calls on every CPU").

    ``cache`` holds the rendered crops (default :func:`cache_dir`). A deck folder
    without its 40 faces is refused (:class:`IncompleteDeck`) before anything runs.
    """
    check_decks(decks)
    import torch
    from torch import nn

    from models.dataset import build_dataset

    cache = cache or cache_dir()

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    np.random.seed(seed)
    t0 = time.time()
    print(f"rendering {scenes} training scenes (cached in {cache})", file=sys.stderr, flush=True)
    name = f"train_crops_a{ART_VERSION}_s{seed}_n{scenes}" + ("" if fournier else "_nofournier")
    name += "".join(f"_{Path(d).name}" for d in decks)
    crops, labels = build_dataset(cache / f"{name}.npz", scenes, seed, "training", workers=workers,
                                  use_fournier=fournier, deck_dirs=tuple(str(d) for d in decks))
    val_c, val_l = build_dataset(cache / f"heldout_crops_s{seed}.npz", 60, seed + 7919, "held-out",
                                 workers=workers)
    print(f"{len(crops)} training crops, {len(val_c)} held-out crops ({time.time() - t0:.0f} s)",
          file=sys.stderr, flush=True)

    model = build_model()
    n_params = sum(p.numel() for p in model.parameters())
    print(f"model: {n_params} parameters", file=sys.stderr, flush=True)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=5e-4)
    steps_per_epoch = len(crops) // batch
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=epochs * steps_per_epoch,
                                                pct_start=0.15)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.02)
    gen = torch.Generator().manual_seed(seed)
    data = torch.from_numpy(crops)
    targets = torch.from_numpy(labels)
    model.train()
    for epoch in range(epochs):
        perm = torch.randperm(len(crops), generator=gen)
        te, total, right = time.time(), 0.0, 0
        for step in range(steps_per_epoch):
            idx = perm[step * batch:(step + 1) * batch]
            x = augment(to_tensor(data[idx].numpy()), gen, strong)
            y = targets[idx]
            logits = model(x)
            loss = loss_fn(logits, y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item()
            right += int((logits.argmax(1) == y).sum())
            if step % 50 == 0:
                print(f"\r  epoch {epoch + 1}/{epochs} step {step}/{steps_per_epoch} loss {total / (step + 1):.3f}",
                      end="", file=sys.stderr, flush=True)
        acc, conf = evaluate_torch(model, val_c, val_l)
        print(f"\repoch {epoch + 1}/{epochs}: loss {total / steps_per_epoch:.4f}, "
              f"train acc {right / (steps_per_epoch * batch):.4f}, held-out acc {acc:.4f} "
              f"(mean confidence {conf:.3f}), {time.time() - te:.0f} s", file=sys.stderr, flush=True)
    export_onnx(model, out)
    if quantized:
        from models.quantize import quantize

        quantize(out, out)
    acc, _ = evaluate_torch(model, val_c, val_l)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB{', 8-bit' if quantized else ''}) in "
          f"{(time.time() - t0) / 60:.1f} min; held-out crop accuracy {acc:.4f} (float)",
          file=sys.stderr, flush=True)
    return {"heldout_accuracy": acc, "minutes": (time.time() - t0) / 60}


def check_decks(decks: tuple[Path, ...]) -> None:
    """Refuse, in one line, a scanned deck folder that lacks any of its 40 faces."""
    for d in decks:
        if not Path(d).is_dir():
            raise IncompleteDeck(f"{d}: no such folder")
        if load_deck(d) is None:
            raise IncompleteDeck(f"{d}: not a whole deck (needs the 40 faces "
                                 "{rank}_{oro,copa,espada,basto} as .webp, .png or .jpg)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scenes", type=int, default=4000, help="rendered training scenes (16 crops each)")
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2, help="torch threads")
    parser.add_argument("--workers", type=int, default=2, help="processes rendering scenes")
    parser.add_argument("--out", type=Path, default=MODEL_PATH, help="where to write the ONNX model")
    parser.add_argument("--cache", type=Path, default=None,
                        help="where rendered crops are cached (default $MUS_TABLE_CACHE or "
                             "$XDG_CACHE_HOME/mus-table)")
    parser.add_argument("--deck", dest="decks", type=Path, action="append", default=[],
                        help="also train on a scanned deck: a folder of {rank}_{oro,copa,espada,basto}.webp "
                             "(the best remedy for a deck maker the model reads poorly)")
    parser.add_argument("--strong-augment", dest="strong", action="store_true",
                        help="also turn hues, soften the print and hide patches (did not help transfer "
                             "to a real deck: see the model card)")
    parser.add_argument("--no-fournier", dest="fournier", action="store_false",
                        help="leave the scanned Fournier 1878 deck out of training (to measure on it)")
    parser.add_argument("--int8", dest="quantized", action="store_true",
                        help="write an 8-bit copy (models.quantize), not the float model the reader ships: "
                             "faster, but its calls move between CPUs")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models.train", description=__doc__.splitlines()[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        train(args.scenes, args.epochs, args.seed, args.threads, args.workers, args.out, fournier=args.fournier,
              decks=tuple(args.decks), strong=args.strong, cache=args.cache, quantized=args.quantized)
    except InvalidInput as exc:
        print(f"python -m models.train: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
