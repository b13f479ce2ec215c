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



def test_the_corner_model_gives_forty_card_logits_from_its_rank_and_suit_heads(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from models.corners import build_model as build_corners
    from models.corners import export
    from vision.cardcrop import BAND_H, BAND_W
    from vision.classifier import CornerModel

    model = build_corners().eval()
    x = torch.rand(3, 3, BAND_H, BAND_W)
    with torch.no_grad():
        logits = model(x)
        rank, suit = model.heads(x)
    assert tuple(logits.shape) == (3, 40)
    p = torch.softmax(logits, dim=1).reshape(3, 4, 10)  # DECK order: suit-major
    assert torch.allclose(p.sum(dim=1), torch.softmax(rank, dim=1), atol=1e-5)
    assert torch.allclose(p.sum(dim=2), torch.softmax(suit, dim=1), atol=1e-5)
    assert sum(q.numel() for q in model.parameters()) * 4 <= 5_000_000
    path = tmp_path / "corners.onnx"
    export(model, path)
    crops = [np.full((CROP_H, CROP_W, 3), 200, np.uint8)] * 5
    assert CornerModel(path).probabilities(crops).shape == (5, 2, 40)


def test_a_lone_card_view_puts_the_card_where_its_quad_says() -> None:
    from models.corners import card_view
    from models.deck import HELD_OUT_STYLES, render_card
    from table.cards import Card

    face = render_card(Card.parse("5c"), HELD_OUT_STYLES["clasica"])
    rng = np.random.default_rng(3)
    for k in (1.2, 3.0):
        img, quad = card_view(face, 61.5, rng, k)
        assert quad.shape == (4, 2) and (quad >= 0).all() and (quad < img.shape[0]).all()
        sides = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
        assert abs(sides[0] / k - 61.5) < 5 and abs(sides[1] / k - 95) < 6


def test_train_command_can_train_the_corner_model_instead() -> None:
    from firmware.commands import train as command

    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    args = parser.parse_args(["--corners", "--corner-decks", "4", "--corner-epochs", "1"])
    assert args.corners and (args.corner_decks, args.corner_epochs) == (4, 1)
    assert not parser.parse_args([]).corners
