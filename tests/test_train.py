"""The training code: the model's shapes, its input format, the augmentation (tiny, no training)."""

from __future__ import annotations

import argparse

import numpy as np
import pytest

from vision.cardcrop import CROP_H, CROP_W, to_model_input

torch = pytest.importorskip("torch")

from models.train import augment, build_model, export_onnx, to_tensor  # noqa: E402


def test_model_maps_crops_to_forty_logits_and_is_small() -> None:
    model = build_model().eval()
    with torch.no_grad():
        out = model(torch.zeros(3, 3, CROP_H, CROP_W))
    assert tuple(out.shape) == (3, 40)
    n = sum(p.numel() for p in model.parameters())
    assert n * 4 <= 5_000_000  # float32 weights under 5 MB


def test_training_input_is_the_readers_input() -> None:
    rng = np.random.default_rng(0)
    crops = rng.integers(0, 256, (4, CROP_H, CROP_W, 3), dtype=np.uint8)
    assert np.allclose(to_tensor(crops).numpy(), to_model_input(list(crops)))


def test_augment_keeps_shape_and_range_and_is_seeded() -> None:
    x = torch.rand(16, 3, CROP_H, CROP_W)
    a = augment(x.clone(), torch.Generator().manual_seed(1))
    b = augment(x.clone(), torch.Generator().manual_seed(1))
    assert a.shape == x.shape and float(a.min()) >= 0.0 and float(a.max()) <= 1.0
    assert torch.equal(a, b)


def test_strong_augment_changes_colours_but_keeps_shape_range_and_seed() -> None:
    x = torch.rand(64, 3, CROP_H, CROP_W)
    a = augment(x.clone(), torch.Generator().manual_seed(2), strong=True)
    b = augment(x.clone(), torch.Generator().manual_seed(2), strong=True)
    light = augment(x.clone(), torch.Generator().manual_seed(2))
    assert a.shape == x.shape and float(a.min()) >= 0.0 and float(a.max()) <= 1.0
    assert torch.equal(a, b)
    assert not torch.allclose(a, light)


def test_export_has_the_contract_names_and_a_dynamic_batch(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("onnx")
    import onnxruntime as ort

    path = tmp_path / "m.onnx"
    export_onnx(build_model(), path)
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    assert [i.name for i in sess.get_inputs()] == ["crops"]
    assert [o.name for o in sess.get_outputs()] == ["logits", "features"]
    for n in (1, 5):
        out, feats = sess.run(None, {"crops": np.zeros((n, 3, CROP_H, CROP_W), np.float32)})
        assert out.shape == (n, 40) and feats.shape == (n, 2688)


def test_train_command_parses_its_options() -> None:
    from firmware.commands import train as command

    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    args = parser.parse_args(["--scenes", "10", "--epochs", "1", "--seed", "3"])
    assert (args.scenes, args.epochs, args.seed, args.threads) == (10, 1, 3, 2)
    assert not args.strong and parser.parse_args(["--strong-augment"]).strong

