"""The scene renderer: its truth must agree with its picture and with the mat spec."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from models.deck import HELD_OUT_STYLES
from models.scene import (
    CardPlacement,
    Extra,
    SceneSpec,
    card_corners,
    project,
    random_cards,
    random_scene,
    render_scene,
)
from table.cards import Card
from vision.cardcrop import CROP_H, CROP_W, warp_card
from vision.mat import Mat

SMALL = {"px_per_mm": 1.2, "rotation_deg": 10.0, "tilt_deg": 6.0}


def _detect(image: np.ndarray) -> dict[int, np.ndarray]:
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    corners, ids, _ = det.detectMarkers(image)
    return {} if ids is None else {int(i): c.reshape(4, 2) for c, i in zip(corners, ids.ravel(), strict=True)}


def test_same_seed_same_image_other_seed_other_image() -> None:
    spec = random_scene(np.random.default_rng(3), **SMALL)
    a = render_scene(spec, np.random.default_rng(9))
    b = render_scene(spec, np.random.default_rng(9))
    c = render_scene(spec, np.random.default_rng(10))
    assert np.array_equal(a.image, b.image)
    assert not np.array_equal(a.image, c.image)
    assert random_scene(np.random.default_rng(3), **SMALL) == spec


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_markers_land_where_the_mat_spec_says(seed: int) -> None:
    rng = np.random.default_rng(seed)
    spec = random_scene(rng, hidden_markers=(), hand_over_pool=False, glare=0.0,
                        rotation_deg=float(rng.uniform(0, 360)), px_per_mm=1.2, blur=0.3, noise=2.0)
    scene = render_scene(spec, rng)
    found = _detect(scene.image)
    assert sorted(found) == [0, 1, 2, 3]
    for mid, corners in found.items():
        # OpenCV's corner order is the spec's: first corner top-left seen from seat 0
        expected = scene.marker_corners_image(mid)
        assert np.abs(corners - expected).max() < 2.0, mid
        assert np.allclose(expected, project(scene.mat_to_image, Mat().marker_corners(mid)))


def test_a_hidden_marker_is_not_seen() -> None:
    rng = np.random.default_rng(5)
    scene = render_scene(random_scene(rng, hidden_markers=(2,), **SMALL), rng)
    assert scene.hidden_markers == (2,)
    assert 2 not in _detect(scene.image)
    assert len(_detect(scene.image)) >= 3


@pytest.mark.parametrize("seed", range(6))
def test_cards_lie_in_their_zones_without_overlapping(seed: int) -> None:
    rng = np.random.default_rng(seed)
    spec = random_scene(rng, cards=random_cards(rng), extras=(), **SMALL)
    scene = render_scene(spec, rng)
    mat = Mat()
    assert [len(s) for s in scene.truth_cards] == [4, 4, 4, 4]
    for t in scene.cards:
        cx, cy = t.quad_mat.mean(axis=0)
        assert mat.zone_at(cx, cy) == f"seat {t.seat} cards"
        assert t.quad_mat.min() >= 0 and t.quad_mat.max() <= mat.side
        assert np.allclose(t.quad_image, project(scene.mat_to_image, t.quad_mat), atol=1e-3)
        # the short side is a card's width (61.5 mm nominal, ±15 %)
        side = float(np.linalg.norm(t.quad_mat[1] - t.quad_mat[0]))
        assert 0.85 * 61.5 <= side <= 1.15 * 61.5
    for i, a in enumerate(scene.cards):
        for b in scene.cards[i + 1:]:
            area, _ = cv2.intersectConvexConvex(a.quad_mat, b.quad_mat)
            assert area == 0
    # the face is where the truth says: a bright card, unlike the felt beside it
    for t in scene.cards:
        crop = warp_card(scene.image, t.quad_image)
        assert crop.shape == (CROP_H, CROP_W, 3)


def test_crop_through_the_truth_quad_shows_the_face() -> None:
    rng = np.random.default_rng(1)
    style = HELD_OUT_STYLES["moderna"]
    spec = random_scene(rng, deck=style, felt=(20, 20, 20), stone_colour=(0, 200, 250),
                        gradient=0.0, shadows=0, glare=0.0, kelvin=5000.0, **SMALL)
    scene = render_scene(spec, rng)
    for t in scene.cards:
        crop = warp_card(scene.image, t.quad_image)
        inner = crop[8:-8, 8:-8].reshape(-1, 3).astype(int)
        assert np.median(inner.sum(axis=1)) > 360  # paper, not the black felt (about 60)


def test_across_and_along_the_seat_edge() -> None:
    cards = [[Card.parse("1o"), Card.parse("2o")], [Card.parse("3o")], [], [Card.parse("4o")]]
    for across, long_axis in ((1.0, 1), (0.0, 0)):
        rng = np.random.default_rng(2)
        spec = SceneSpec(cards=cards, across_prob=across, max_turn_deg=0.0, **SMALL)
        scene = render_scene(spec, rng)
        for t in scene.cards:
            span = t.quad_mat.max(axis=0) - t.quad_mat.min(axis=0)
            # seat 0 and 2 edges run along x, seats 1 and 3 along y
            long_is = int(np.argmax(span))
            expected = long_axis if t.seat % 2 == 0 else 1 - long_axis
            assert long_is == expected


def test_turns_stay_within_twenty_degrees() -> None:
    rng = np.random.default_rng(7)
    spec = SceneSpec(cards=random_cards(rng), across_prob=1.0, max_turn_deg=20.0, **SMALL)
    scene = render_scene(spec, rng)
    for t in scene.cards:
        d = t.quad_mat[3] - t.quad_mat[0]  # down the card's long side
        ang = np.degrees(np.arctan2(d[1], d[0])) + 90.0 * t.seat
        turn = (ang - 90.0 + 90.0) % 180.0 - 90.0
        assert abs(turn) <= 20.0 + 1e-6


def test_explicit_placements_and_a_card_seen_twice() -> None:
    c = Card.parse("12o")
    places = [[CardPlacement((300.0, 680.0), 0.0), CardPlacement((450.0, 680.0), 180.0)], [], [], []]
    spec = SceneSpec(cards=[[c, c], [], [], []], placements=places, **SMALL)
    scene = render_scene(spec, np.random.default_rng(0))
    assert scene.truth_cards == [["12o", "12o"], [], [], []]
    assert np.allclose(scene.cards[0].quad_mat, card_corners(places[0][0], spec.card_mm))
    with pytest.raises(ValueError):
        SceneSpec(cards=[[c], [], [], []], placements=[[], [], [], []])


def test_stones_are_counted_by_zone_and_never_stacked() -> None:
    rng = np.random.default_rng(4)
    spec = random_scene(rng, pool_stones=18, seat_stones=(3, 0, 7, 1), touching=0.8, stone_mm=28.0,
                        hand_over_pool=False, **SMALL)
    scene = render_scene(spec, rng)
    assert scene.stones == {"pool": 18, "seats": [3, 0, 7, 1]}
    mat = Mat()
    for s in scene.stone_truth:
        assert mat.zone_at(*s.centre_mat) == s.zone
    pts = scene.stone_truth
    touching = 0
    for i, a in enumerate(pts):
        for b in pts[i + 1:]:
            d = float(np.hypot(a.centre_mat[0] - b.centre_mat[0], a.centre_mat[1] - b.centre_mat[1]))
            assert d >= (a.diameter_mm + b.diameter_mm) / 2
            touching += d < (a.diameter_mm + b.diameter_mm) / 2 + 0.5
    assert touching > 0


def test_extras_and_a_hand_over_the_pool() -> None:
    rng = np.random.default_rng(8)
    spec = random_scene(rng, cards=[[Card.parse("1e")], [], [Card.parse("5b")] * 2, []],
                        extras=(Extra("napkin", 1), Extra("phone", 0)), hand_over_pool=True,
                        pool_stones=10, stone_mm=28.0, **SMALL)
    scene = render_scene(spec, rng)
    mat = Mat()
    kinds = {(e.kind, e.seat) for e in scene.extras}
    assert kinds == {("napkin", 1), ("phone", 0)}
    h_inv = np.linalg.inv(scene.mat_to_image)
    for e in scene.extras:
        cx, cy = project(h_inv, e.quad_image).mean(axis=0)
        assert mat.zone_at(cx, cy) == f"seat {e.seat} cards"
    assert scene.stones["pool"] == 10
    # the hand covers part of the pool, and only the pool: no seat's stone lies under it
    under = [s.zone for s in scene.stone_truth if s.under_hand]
    assert under and set(under) == {"pool"}
    # the share of each stone's face in view: none of it under the hand where its centre is, some of it
    # where the centre shows, and all of it away from the hand
    for s in scene.stone_truth:
        assert (s.visible < 0.5) if s.under_hand else (s.visible > 0.5)
    assert any(s.visible == 0.0 for s in scene.stone_truth) and any(s.visible == 1.0 for s in scene.stone_truth)
    assert all(not s.under_hand and s.visible == 1.0
               for s in render_scene(random_scene(rng, hand_over_pool=False, **SMALL), rng).stone_truth)


def test_a_fixed_frame_size() -> None:
    spec = random_scene(np.random.default_rng(1), frame=(1280, 960), px_per_mm=1.2, rotation_deg=0.0,
                        tilt_deg=0.0)
    scene = render_scene(spec, np.random.default_rng(1))
    assert scene.image.shape == (960, 1280, 3)


def test_unknown_override_is_refused() -> None:
    with pytest.raises(TypeError):
        random_scene(np.random.default_rng(0), colour_of_sky=1)


def test_a_deck_of_face_images() -> None:
    faces = {Card.parse("3c"): np.full((521, 330, 3), 200, np.uint8)}
    spec = SceneSpec(cards=[[Card.parse("3c")], [], [], []], deck=faces, **SMALL)
    scene = render_scene(spec, np.random.default_rng(0))
    side = float(np.linalg.norm(scene.cards[0].quad_mat[1] - scene.cards[0].quad_mat[0]))
    assert side == pytest.approx(61.5, abs=1e-3)
