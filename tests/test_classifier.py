"""The card model behind vision/classifier.py: the committed model loads and reads crops in one batch."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from models.scene import HELD_OUT_STYLES, SceneSpec, render_scene
from table.cards import DECK, Card
from table.errors import MusTableError
from vision.cardcrop import warp_card
from vision.classifier import (
    CORNER_THRESHOLD,
    DEFAULT_THRESHOLD,
    KERNEL_MARGIN,
    CardClassifier,
    CornerModel,
    ModelNotFound,
    Prediction,
    combine,
    default_corner_model_path,
    default_model_path,
    softmax,
)


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
    # sure with a margin no CPU's kernels cross (a card at 0.894 against the bar flipped on another CPU)
    assert all(p.sure(DEFAULT_THRESHOLD + KERNEL_MARGIN) for p in preds)
    # upside down, the same cards
    flipped = clf.classify([np.ascontiguousarray(c[::-1, ::-1]) for c in crops])
    assert [p.card for p in flipped] == [t.card for t in scene.cards]
    assert all(p.sure(DEFAULT_THRESHOLD + KERNEL_MARGIN) for p in flipped)
    assert clf.classify([]) == []


def test_a_blank_crop_is_not_a_sure_card() -> None:
    clf = CardClassifier()
    blank = np.full((112, 72, 3), 235, np.uint8)
    felt = np.zeros((112, 72, 3), np.uint8) + np.array([40, 110, 30], np.uint8)
    assert all(p.probability < DEFAULT_THRESHOLD - KERNEL_MARGIN for p in clf.classify([blank, felt]))


def _p(card: str, probability: float, agreed: bool = True) -> Prediction:
    return Prediction(Card.parse(card), probability, agreed)


def test_either_model_may_call_a_card_but_never_against_the_other() -> None:
    main = [_p("6o", 0.95), _p("6o", 0.95), _p("6o", 0.4), _p("6o", 0.95, False), _p("6o", 0.4), _p("6o", 0.4)]
    corner = [_p("6o", 0.99), _p("7o", 0.99), _p("7o", 0.99), _p("7o", 0.99), _p("7o", 0.95), _p("7o", 0.99, False)]
    out = combine(main, corner)
    assert [(str(p.card), p.sure()) for p in out] == [
        ("6o", True),    # both sure of it
        ("6o", False),   # both sure, of different cards: neither is trusted
        ("7o", True),    # the main model unsure, the corner model sure
        ("7o", True),    # the main model's views disagree, the corner model sure
        ("6o", False),   # the corner model under its own threshold
        ("6o", False),   # the corner model's two ends disagree
    ]
    assert CORNER_THRESHOLD >= DEFAULT_THRESHOLD


def test_the_main_model_alone_when_asked_or_when_there_is_no_corner_model(tmp_path: Path) -> None:
    assert CardClassifier(corners=False).corners is None
    custom = tmp_path / "cards.onnx"
    custom.write_bytes(default_model_path().read_bytes())
    assert CardClassifier(custom).corners is None  # another main model: no corner model unless given
    with pytest.raises(ModelNotFound, match="corner model not found"):
        CardClassifier(corners=tmp_path / "nothing.onnx")
    with pytest.raises(ModelNotFound, match="not a corner model"):
        CornerModel(default_model_path())


@pytest.mark.skipif(not default_corner_model_path().is_file(), reason="no corner model committed")
def test_the_committed_corner_model_is_small_and_reads_the_ends_of_cards() -> None:
    path = default_corner_model_path()
    assert path.parent == default_model_path().parent and path.stat().st_size <= 5 * 1024 * 1024
    clf = CardClassifier()
    assert clf.corners is not None
    rng = np.random.default_rng(52)
    cards = (tuple(DECK[0:4]), tuple(DECK[12:16]), tuple(DECK[24:28]), tuple(DECK[36:40]))
    scene = render_scene(SceneSpec(cards=cards, deck=HELD_OUT_STYLES["clasica"], px_per_mm=1.6), rng)
    crops = [warp_card(scene.image, t.quad_image) for t in scene.cards]
    p = clf.corners.probabilities(crops)
    assert p.shape == (16, 2, 40) and np.allclose(p.sum(axis=2), 1.0)
    preds = clf.classify(crops)
    assert all(not x.sure() or x.card == t.card for x, t in zip(preds, scene.cards, strict=True))
