"""The card model behind vision/classifier.py: the committed model loads and reads crops in one batch."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from models.scene import HELD_OUT_STYLES, SceneSpec, render_scene
from table.cards import DECK
from table.errors import MusTableError
from vision.cardcrop import warp_card
from vision.classifier import CardClassifier, ModelNotFound, Prediction, default_model_path, softmax


def test_the_committed_model_is_there_and_small() -> None:
    path = default_model_path()
    assert path.is_file() and path.name == "cards.onnx"
    assert path.stat().st_size <= 5 * 1024 * 1024


def test_a_missing_or_broken_model_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFound, match="not found"):
        CardClassifier(tmp_path / "nothing.onnx")
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    with pytest.raises(MusTableError, match="cannot be loaded"):
        CardClassifier(broken)


def test_softmax_rows_sum_to_one() -> None:
    p = softmax(np.array([[0.0, 1.0, 2.0], [100.0, 0.0, -100.0]], np.float32))
    assert np.allclose(p.sum(axis=1), 1.0) and p[1, 0] == pytest.approx(1.0)


def test_cards_read_from_their_true_quads_both_ways_round() -> None:
    rng = np.random.default_rng(51)
    cards = (tuple(DECK[0:4]), tuple(DECK[12:16]), tuple(DECK[24:28]), tuple(DECK[36:40]))
    scene = render_scene(SceneSpec(cards=cards, deck=HELD_OUT_STYLES["moderna"], px_per_mm=1.4), rng)
    crops = [warp_card(scene.image, t.quad_image) for t in scene.cards]
    clf = CardClassifier(threads=1)
    preds = clf.classify(crops)
    assert len(preds) == 16 and all(isinstance(p, Prediction) for p in preds)
    assert [p.card for p in preds] == [t.card for t in scene.cards]
    assert all(p.sure() for p in preds)
    # upside down, the same cards
    flipped = clf.classify([np.ascontiguousarray(c[::-1, ::-1]) for c in crops])
    assert [p.card for p in flipped] == [t.card for t in scene.cards]
    assert clf.classify([]) == []


def test_a_blank_crop_is_not_a_sure_card() -> None:
    clf = CardClassifier()
    blank = np.full((112, 72, 3), 235, np.uint8)
    felt = np.zeros((112, 72, 3), np.uint8) + np.array([40, 110, 30], np.uint8)
    assert not any(p.sure() for p in clf.classify([blank, felt]))
