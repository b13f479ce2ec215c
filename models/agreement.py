"""The same calls on every CPU: the models' outputs on the same inputs, from one machine to another.

onnxruntime picks its kernels by CPU (x86 with or without VNNI, the Pi's
ARM): a probability near a bar could land on either side of it. This tool
measures how far the reader's decisions move, in three steps, so that the
middle one runs where only numpy and onnxruntime are (another machine, or an
emulated ARM with qemu-user):

``python -m models.agreement dump INPUTS.npz`` renders seeded scenes of the
held-out drawn styles (and of each ``--deck-dir``), at the live camera's and
a still's resolution, and keeps the models' exact inputs: every card crop
cut as the finder cuts it, things that are not cards (blank paper, felt, a
phone, a napkin, a lighter), and the ends reader's corner patches and end
strips at the five looks.

``python models/agreement.py run INPUTS.npz OUT.npz --cards M --index M
--pintas M`` runs the three models on them (numpy and onnxruntime only: this
file imports nothing else at the top) and keeps their logits; ``--no-opt``
turns onnxruntime's graph optimisations off, ``--threads`` sets its threads.

``python -m models.agreement compare A.npz B.npz`` applies the reader's
rules to both (the card model's two views at its bar, the ends' at theirs,
a learnt deck's floor) and counts the decisions that differ, with the
largest change of a probability and how near the bars the inputs come.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

PX = {"live": 1.5, "still": 2.8}
"""The resolutions measured (px per mm at the card): the live camera's and a full-resolution still's."""
LOOKS = 5
"""The ends' first look and the four of the second."""


def _card_input(crops: np.ndarray) -> np.ndarray:
    """``vision.cardcrop.to_model_input`` of BGR crops and their half turns, in numpy alone."""
    x = crops[..., ::-1].astype(np.float32) / np.float32(255.0)
    x = np.ascontiguousarray(x.transpose(0, 3, 1, 2))
    return np.ascontiguousarray(np.concatenate([x, x[:, :, ::-1, ::-1]]))


def _session(path: str, threads: int, optimise: bool) -> Any:
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if not optimise:
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.log_severity_level = 3
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def run(inputs: Path, out: Path, cards: str, index: str, pintas: str, threads: int = 1,
        optimise: bool = True) -> None:
    """The three models' logits on the dumped inputs (and the card model's features), into ``out``."""
    import platform

    import onnxruntime as ort

    z = np.load(inputs)
    crops = z["crops"]
    s = _session(cards, threads, optimise)
    logits, feats = [], []
    names = [o.name for o in s.get_outputs()]
    for i in range(0, len(crops), 64):
        res = s.run(names, {"crops": _card_input(crops[i:i + 64])})
        n = len(crops[i:i + 64])
        lg = np.asarray(res[0], np.float32)
        logits.append(np.stack([lg[:n], lg[n:]], axis=1))
        if len(res) > 1:
            f = np.asarray(res[1], np.float32)
            feats.append(np.stack([f[:n], f[n:]], axis=1))
    result: dict[str, np.ndarray] = {"cards": np.concatenate(logits)}
    if feats:
        result["features"] = np.concatenate(feats).astype(np.float32)
    for key, path, name in (("corners", index, "corners"), ("ends", pintas, "ends")):
        x = z[key][:, :1]  # [N, 1, 2, H, W] uint8: the first look (the second look's cuts are alike)
        m = _session(path, threads, optimise)
        flat = x.reshape(-1, 1, *x.shape[-2:]).astype(np.float32) / np.float32(255)
        out_l = [np.asarray(m.run(["logits"], {name: np.ascontiguousarray(flat[i:i + 256])})[0], np.float32)
                 for i in range(0, len(flat), 256)]
        result[key] = np.concatenate(out_l).reshape(*x.shape[:3], -1)
    result["machine"] = np.array(f"{platform.machine()} onnxruntime {ort.__version__} "
                                 f"threads {threads} {'optimised' if optimise else 'no graph optimisation'}")
    np.savez_compressed(out, **result)


def dump(out: Path, scenes: int, seed: int, deck_dirs: list[Path]) -> int:
    """Render the scenes and keep the models' inputs (see the module's docstring)."""
    from models.dataset import jitter_quad
    from models.deck import HELD_OUT_STYLES, load_deck
    from models.scene import Extra, random_cards, random_scene, render_scene
    from vision.cardcrop import half_turn, warp_card
    from vision.ends import SECOND_LOOK, corner_patches, end_strips, warp_face

    decks: list[tuple[str, Any]] = list(HELD_OUT_STYLES.items())
    for d in deck_dirs:
        faces = load_deck(d)
        if faces is not None:
            decks.append((d.name, faces))
    rng = np.random.default_rng(seed)
    crops, corners, ends, labels, kinds = [], [], [], [], []

    def keep(image: np.ndarray, quad: np.ndarray, label: int, kind: str) -> None:
        crop, face = warp_card(image, quad), warp_face(image, quad)
        if rng.random() < 0.5:
            crop, face = half_turn(crop), np.ascontiguousarray(face[::-1, ::-1])
        crops.append(np.asarray(crop))
        shifts = [(0, 0), *SECOND_LOOK]
        corners.append(np.stack([corner_patches(face, s) for s in shifts]))
        ends.append(np.stack([end_strips(face, s, close=True) for s in shifts]))  # as the reader cuts them
        labels.append(label)
        kinds.append(kind)

    for name, deck in decks:
        for px, k in PX.items():
            for _ in range(scenes):
                extras = tuple(Extra(str(rng.choice(["phone", "napkin", "lighter"])), int(rng.integers(4)))
                               for _ in range(int(rng.integers(0, 2))))
                spec = random_scene(rng, cards=random_cards(rng), deck=deck, px_per_mm=k * rng.uniform(0.93, 1.07),
                                    extras=extras)
                scene = render_scene(spec, rng)
                for t in scene.cards:
                    keep(scene.image, jitter_quad(t.quad_image, rng, 3.0 * k / 1.5), t.card.index, f"{name} {px}")
                for e in scene.extras:
                    keep(scene.image, np.asarray(e.quad_image, np.float32), -1, f"{e.kind} {px}")
    crops.append(np.full((112, 72, 3), 235, np.uint8))
    crops.append(np.zeros((112, 72, 3), np.uint8) + np.array([40, 110, 30], np.uint8))
    for blank in crops[-2:]:
        face = np.asarray(np.resize(blank, (248, 160, 3)), np.uint8)
        corners.append(np.stack([corner_patches(face, (0, 0))] * LOOKS))
        ends.append(np.stack([end_strips(face, (0, 0))] * LOOKS))
        labels.append(-1)
        kinds.append("blank")
    np.savez_compressed(out, crops=np.stack(crops), corners=np.stack(corners), ends=np.stack(ends),
                        labels=np.asarray(labels), kinds=np.asarray(kinds))
    print(f"{out}: {len(crops)} crops ({sum(lab >= 0 for lab in labels)} cards) of {len(decks)} decks")
    return 0


def compare(a: Path, b: Path, inputs: Path | None = None) -> dict[str, Any]:
    """How many of the reader's decisions differ between two runs on the same inputs."""
    from vision.classifier import DEFAULT_THRESHOLD, call_cards, softmax
    from vision.ends import ENDS_THRESHOLD, call_ends
    from vision.learnt import FLOOR, SHARPNESS

    ra, rb = np.load(a), np.load(b)

    def probs(r: Any, key: str) -> np.ndarray:
        lg = r[key]
        return softmax(lg.reshape(-1, lg.shape[-1]).astype(np.float32)).reshape(lg.shape)

    out: dict[str, Any] = {"a": str(ra["machine"]), "b": str(rb["machine"])}
    pa, pb = probs(ra, "cards"), probs(rb, "cards")
    ca, cb = call_cards(pa), call_cards(pb)
    out["cards"] = len(ca)
    out["card decisions differ"] = sum((x.card, x.sure()) != (y.card, y.sure())
                                       for x, y in zip(ca, cb, strict=True))
    out["card max |dp|"] = float(np.abs(pa - pb).max())
    gap = np.array([abs(x.probability - DEFAULT_THRESHOLD) for x in ca if x.agreed])
    out["card calls within 0.01 of the bar"] = int((gap < 0.01).sum())
    ka, kb = probs(ra, "corners"), probs(rb, "corners")
    sa, sb = probs(ra, "ends"), probs(rb, "ends")
    out["ends max |dp|"] = float(max(np.abs(ka - kb).max(), np.abs(sa - sb).max()))
    ea, eb = call_ends(ka[:, 0], sa[:, 0]), call_ends(kb[:, 0], sb[:, 0])
    out["ends decisions differ (first look)"] = sum((x.card, x.sure(ENDS_THRESHOLD)) != (y.card, y.sure(ENDS_THRESHOLD))
                                                    for x, y in zip(ea, eb, strict=True))
    if "features" in ra and "features" in rb:
        fa, fb = ra["features"], rb["features"]
        na = np.sqrt(np.maximum(fa, 0))
        nb = np.sqrt(np.maximum(fb, 0))
        na /= np.maximum(np.linalg.norm(na, axis=-1, keepdims=True), 1e-6)
        nb /= np.maximum(np.linalg.norm(nb, axis=-1, keepdims=True), 1e-6)
        out["features max |d cos|"] = float(np.abs((na * nb).sum(-1) - 1).max())
        out["learnt: sharpness x floor"] = SHARPNESS * FLOOR
    if inputs is not None:
        z = np.load(inputs)
        labels = z["labels"]
        for name, calls in (("a", ca), ("b", cb)):
            wrong = sum(c.sure() and lab >= 0 and c.card.index != lab for c, lab in zip(calls, labels, strict=True))
            nonc = sum(c.sure() and lab < 0 for c, lab in zip(calls, labels, strict=True))
            out[f"{name}: wrong cards / things not cards called"] = f"{wrong} / {nonc}"
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models.agreement", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    d = sub.add_parser("dump", help="render scenes and keep the models' inputs")
    d.add_argument("out", type=Path)
    d.add_argument("--scenes", type=int, default=6, help="scenes per deck and resolution")
    d.add_argument("--seed", type=int, default=2024)
    d.add_argument("--deck-dir", type=Path, action="append", default=[])
    r = sub.add_parser("run", help="run the models on dumped inputs (numpy and onnxruntime only)")
    r.add_argument("inputs", type=Path)
    r.add_argument("out", type=Path)
    for m in ("cards", "index", "pintas"):
        r.add_argument(f"--{m}", required=True)
    r.add_argument("--threads", type=int, default=1)
    r.add_argument("--no-opt", action="store_true", help="onnxruntime's graph optimisations off")
    c = sub.add_parser("compare", help="count the decisions that differ between two runs")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    c.add_argument("--inputs", type=Path, default=None, help="the dump, to count wrong calls too")
    a = parser.parse_args(argv)
    if a.what == "dump":
        return dump(a.out, a.scenes, a.seed, a.deck_dir)
    if a.what == "run":
        run(a.inputs, a.out, a.cards, a.index, a.pintas, a.threads, not a.no_opt)
        return 0
    for k, v in compare(a.a, a.b, a.inputs).items():
        print(f"{k}: {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
