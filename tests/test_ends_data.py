"""What the ends reader's models learn from (models/index.py, models/pintas.py): drawn corners and card
ends whose labels are true by construction. No torch needed."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from models.index import MM, _open_four, _reshape, draw_corner, make_patches
from models.pintas import NOT_AN_END, _art_over_line, _broken, draw_end, make_ends
from vision.ends import END_H, END_W, PATCH, RANKS


@given(breaks=st.integers(0, 3), seed=st.integers(0, 10_000),
       x0=st.integers(20, 70), width=st.integers(380, 480))
@settings(max_examples=200, deadline=None)
def test_a_broken_line_has_exactly_its_breaks_inside_its_ends(breaks: int, seed: int, x0: int, width: int) -> None:
    segs = _broken(x0, x0 + width, breaks, np.random.default_rng(seed))
    assert len(segs) == breaks + 1
    assert segs[0][0] == x0 and segs[-1][1] == x0 + width  # the corners are always inked
    gaps = [b[0] - a[1] for a, b in zip(segs, segs[1:], strict=False)]
    assert all(g >= 1 for g in gaps)
    assert all(a < b for a, b in segs)


@given(breaks=st.integers(0, 3), seed=st.integers(0, 10_000))
@settings(max_examples=100, deadline=None)
def test_a_drawn_end_shows_its_breaks_along_the_frame_line(breaks: int, seed: int) -> None:
    img, margin, y = draw_end(breaks, np.random.default_rng(seed))
    assert margin >= 2.0  # the quad may miss inwards by that much and never cut the line off
    grey = img.astype(np.float32).mean(axis=2)
    paper = float(np.median(grey[: max(2, y - 6)]))  # above the frame line: paper (and an index)
    row = grey[y]
    ink = float(np.percentile(row, 2))
    assume(paper - ink > 20)  # a faded ink on dark paper: nothing to count by eye either
    line = row < (paper + ink) / 2
    on = np.flatnonzero(line)
    inner = line[on[0]:on[-1] + 1]
    gaps = int(np.sum(np.diff(inner.astype(np.int8)) == -1))
    assert gaps == breaks


def test_patches_and_ends_are_the_shapes_the_reader_cuts_and_every_class_is_drawn() -> None:
    x, y = make_patches(300, 5)
    assert x.shape == (300, PATCH, PATCH) and x.dtype == np.uint8
    assert set(np.unique(y)) == set(range(len(RANKS)))
    e, k = make_ends(300, 5)
    assert e.shape == (300, END_H, END_W)
    assert set(np.unique(k)) == {0, 1, 2, 3, NOT_AN_END}
    assert 0.05 < float(np.mean(k == NOT_AN_END)) < 0.3


def test_a_drawn_corner_keeps_its_number_clear_of_the_edge() -> None:
    rng = np.random.default_rng(9)
    for rank in RANKS:
        img, margin = draw_corner(rank, rng)
        assert img.shape == (int(16 * MM), int(16 * MM), 3)
        assert margin >= 0.3  # the number lies at least that far from the card's edge (mm)


def test_an_open_four_is_one_stroke_drawing_whose_upright_stops_short_of_the_top() -> None:
    rng = np.random.default_rng(3)
    for _ in range(30):
        m = _open_four("4", np.zeros((1, 1), np.uint8), rng) > 128
        ys, xs = np.nonzero(m)
        assert cv2.connectedComponents(m.astype(np.uint8))[0] == 2  # one piece (and the background)
        h = ys.max() - ys.min()
        low = m[ys.min() + int(0.85 * h):]  # the upright alone, below the bar
        stem = int(np.argmax(low.sum(axis=0)))
        column = np.flatnonzero(m[:, stem])
        run = column[np.flatnonzero(np.diff(column) > 1)[-1] + 1:] if np.any(np.diff(column) > 1) else column
        assert run.min() > ys.min() + 0.15 * h  # open: the upright, from the foot up, stops short of the top


def test_a_reshaped_number_bends_but_keeps_its_ink() -> None:
    rng = np.random.default_rng(4)
    mask = np.zeros((150, 110), np.uint8)
    cv2.putText(mask, "7", (10, 135), cv2.FONT_HERSHEY_SIMPLEX, 5.0, 255, 12, cv2.LINE_AA)
    for _ in range(20):
        out = _reshape(mask, rng)
        assert out.shape == mask.shape and out.dtype == np.uint8
        kept = float((out > 128).sum()) / float((mask > 128).sum())
        assert 0.75 < kept < 1.25
        assert np.mean((out > 128) != (mask > 128)) > 0.002  # bent, not copied


@given(breaks=st.integers(1, 3), seed=st.integers(0, 10_000))
@settings(max_examples=60, deadline=None)
def test_art_over_the_frame_line_never_fills_a_pinta(breaks: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    img = np.full((120, 500, 3), 230, np.float32)
    segs = _broken(40, 460, breaks, rng)
    for a, b in segs:
        cv2.line(img, (a, 30), (b, 30), (40, 40, 40), 4)
    before = img.copy()
    for _ in range(4):
        _art_over_line(img, rng, 30, 4, segs)
    for (_, a), (b, _) in zip(segs, segs[1:], strict=False):  # each gap, its paper untouched
        assert np.array_equal(img[:, a + 1:b], before[:, a + 1:b])
    for a, b in segs:  # and the line under the art is as dark as a line
        assert np.all(img[30, a + 1:b - 1] < 180)
