"""What the ends reader's models learn from (models/index.py, models/pintas.py): drawn corners and card
ends whose labels are true by construction. No torch needed."""

from __future__ import annotations

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from models.index import MM, draw_corner, make_patches
from models.pintas import NOT_AN_END, _broken, draw_end, make_ends
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
