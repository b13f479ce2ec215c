"""8-bit copies of the card model and the index model: half the time on one core, but not shipped.

The reader ships the float models: onnxruntime's 8-bit kernels differ from
one CPU to another (x86 with or without VNNI, the Pi's ARM), and a card near
the reader's bar was sure on one and unknown on another (the model card,
"The same calls on every CPU"; ``models.agreement`` measures it).

``python -m models.quantize SRC [DST]`` rewrites an exported card model
(``--index``: an index model) with
onnxruntime's static quantisation (weights int8 per output channel,
activations uint8, ``QOperator`` form that the Pi's onnxruntime runs with its
integer kernels). The activations' ranges are learnt from crops of rendered
training-style scenes, each crop in both views as the reader shows them, so
the ranges are those the reader meets. Input and outputs stay float32
(``crops`` in; ``logits`` and ``features`` out), so nothing else changes;
a deck learnt with the float model is learnt again (its features differ:
:func:`vision.learnt.model_digest`).

The index model's ranges come from corners drawn as its training draws them
(:func:`models.index.make_patches`). The pinta model is not made 8-bit:
onnxruntime runs its row-wise maximum in float, and the copy was twice as
slow as the float model.

Training writes the float models; ``--int8`` (``models.train`` and
``models.index``) writes the quantised copy instead.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import numpy.typing as npt

CALIBRATION_SCENES = 12
"""Rendered scenes (16 cards each, both views: 384 crops) whose activations set the ranges."""
CALIBRATION_SEED = 99


def calibration_batches(scenes: int = CALIBRATION_SCENES, seed: int = CALIBRATION_SEED
                        ) -> list[npt.NDArray[np.float32]]:
    """Model inputs ``[32, 3, H, W]``, one per rendered scene: its sixteen crops and their half turns."""
    from models.dataset import crops_of
    from models.scene import random_cards, random_scene, render_scene
    from vision.classifier import to_model_input

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(scenes):
        scene = render_scene(random_scene(rng, cards=random_cards(rng)), rng)
        crops, _ = crops_of(scene, rng)
        x = to_model_input(crops)
        out.append(np.ascontiguousarray(np.concatenate([x, x[:, :, ::-1, ::-1]]), np.float32))
    return out


def index_batches(patches: int = 384, seed: int = CALIBRATION_SEED) -> list[npt.NDArray[np.float32]]:
    """Index model inputs ``[64, 1, PATCH, PATCH]``: drawn corners, normalised as the reader does."""
    from models.index import make_patches

    xs, _ = make_patches(patches, seed)
    x = xs[:, None].astype(np.float32) / 255
    return [np.ascontiguousarray(x[i:i + 64]) for i in range(0, len(x), 64)]


def is_quantized(path: Path) -> bool:
    """Whether a model file already holds integer convolutions."""
    import onnx

    return any(n.op_type in ("QLinearConv", "ConvInteger") for n in onnx.load(str(path)).graph.node)


def quantize(src: Path, dst: Path, scenes: int = CALIBRATION_SCENES, seed: int = CALIBRATION_SEED) -> None:
    """Write the 8-bit copy of the float card model ``src`` to ``dst`` (which may be ``src``)."""
    quantize_with(src, dst, "crops", calibration_batches(scenes, seed))


def quantize_index(src: Path, dst: Path, seed: int = CALIBRATION_SEED) -> None:
    """Write the 8-bit copy of the float index model ``src`` to ``dst`` (which may be ``src``)."""
    quantize_with(src, dst, "corners", index_batches(seed=seed))


def quantize_with(src: Path, dst: Path, input_name: str, batches: list[npt.NDArray[np.float32]]) -> None:
    """Static 8-bit quantisation of ``src`` into ``dst``, its ranges set by ``batches`` of ``input_name``."""
    # onnxruntime.quantization puts onnxruntime/transformers on sys.path, which has a package
    # called "models" too: everything of this project is imported before it
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class _Reader(CalibrationDataReader):  # type: ignore[misc]
        def __init__(self) -> None:
            self._it: Iterator[npt.NDArray[np.float32]] = iter(batches)

        def get_next(self) -> dict[str, npt.NDArray[np.float32]] | None:
            x = next(self._it, None)
            return None if x is None else {input_name: x}

    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        out = Path(tmp) / "int8.onnx"
        quant_pre_process(str(src), str(pre))
        quantize_static(str(pre), str(out), _Reader(), quant_format=QuantFormat.QOperator,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, per_channel=True)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(out, dst)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models.quantize", description=__doc__.splitlines()[0])
    parser.add_argument("src", type=Path, help="the float model (as models.train --float writes it)")
    parser.add_argument("dst", type=Path, nargs="?", help="where to write the 8-bit model (default: over SRC)")
    parser.add_argument("--scenes", type=int, default=CALIBRATION_SCENES)
    parser.add_argument("--seed", type=int, default=CALIBRATION_SEED)
    parser.add_argument("--index", action="store_true", help="SRC is an index model (models.index)")
    a = parser.parse_args(argv)
    if not a.src.is_file():
        print(f"no model at {a.src}", file=sys.stderr)
        return 2
    if is_quantized(a.src):
        print(f"{a.src} is quantised already", file=sys.stderr)
        return 2
    dst = a.dst or a.src
    if a.index:
        quantize_index(a.src, dst, a.seed)
    else:
        quantize(a.src, dst, a.scenes, a.seed)
    print(f"wrote {dst} ({dst.stat().st_size / 1e6:.2f} MB)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
