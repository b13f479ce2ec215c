"""The synthetic table: face-down and face-up cards, stones that follow the score, a live sensor."""

from __future__ import annotations

import numpy as np

from firmware.synthetic import SyntheticTable, card_back
from firmware.table_loop import expected_stones
from table.cards import DECK
from vision.reading import TableReader

CARDS = [list(DECK[4 * s + 1:4 * s + 5]) for s in range(4)]


def test_a_card_back_is_a_margin_and_a_coloured_field() -> None:
    back = card_back(60, 90, colour=(40, 40, 150))
    assert back.shape == (90, 60, 3)
    assert tuple(back[1, 1]) == (235, 235, 235) and back[45, 30, 2] > back[45, 30, 0]


def test_the_table_shows_what_the_players_do() -> None:
    table = SyntheticTable(7)
    reader = TableReader()
    table.deal(CARDS)
    down = reader.read(table.still())  # type: ignore[arg-type]
    assert not any(down.cards)  # face down: nothing read
    table.show(CARDS)
    up = reader.read(table.still())  # type: ignore[arg-type]
    assert [sorted(map(str, s)) for s in up.cards] == [sorted(map(str, s)) for s in CARDS]
    assert list(up.stones.seats) == expected_stones([0, 0], 40)
    table.gather()
    table.set_score([13, 37])
    stones = reader.read(table.still()).stones  # type: ignore[arg-type]
    assert list(stones.seats) == expected_stones([13, 37], 40) == [3, 2, 2, 0]


def test_frames_move_after_a_change_then_lie_still_and_never_repeat_exactly() -> None:
    table = SyntheticTable(2, moving_frames=3)
    table.show(CARDS)
    frames = [table.grab() for _ in range(6)]
    assert all(f is not None for f in frames)
    images = [f.image for f in frames if f is not None]
    moving = [float(np.mean(np.abs(a.astype(int) - b.astype(int)))) for a, b in zip(images, images[1:], strict=False)]
    assert max(moving[:3]) > 1.0 and max(moving[3:]) < 0.01  # hands over the felt, then still
    assert not np.array_equal(images[-1], images[-2])  # but never two identical frames
    table.unplugged = True
    assert table.grab() is None and table.still() is None
