"""The watcher: read once when cards lie in the zones and the picture is still; again only after motion."""

from __future__ import annotations

import numpy as np
import pytest

from firmware.synthetic import SyntheticTable
from firmware.watcher import Watcher, WatchSettings
from table.cards import DECK
from table.errors import InvalidInput
from vision.calibration import calibrate

CARDS = [list(DECK[4 * s:4 * s + 4]) for s in range(4)]


@pytest.fixture(scope="module")
def scenes() -> dict[str, np.ndarray]:
    table = SyntheticTable(5)
    table.moving_frames = 0
    out = {"empty": table.grab().image}  # type: ignore[union-attr]
    table.show(CARDS)
    table.moving_frames = 0
    out["shown"] = table.grab().image  # type: ignore[union-attr]
    table.deal(CARDS)
    out["dealt"] = table.grab().image  # type: ignore[union-attr]
    return out


def test_cards_in_the_zones_are_seen_face_up_or_down(scenes: dict[str, np.ndarray]) -> None:
    w = Watcher()
    cal = calibrate(scenes["empty"])
    assert cal is not None
    assert w.zones_with_cards(scenes["empty"], cal) == 0
    assert w.zones_with_cards(scenes["shown"], cal) == 4
    assert w.zones_with_cards(scenes["dealt"], cal) == 4


def test_read_once_per_still_table_with_cards(scenes: dict[str, np.ndarray]) -> None:
    w = Watcher(WatchSettings(still_frames=3))
    cal = calibrate(scenes["empty"])
    seq = [scenes["empty"]] * 5 + [scenes["shown"]] * 6 + [scenes["empty"], scenes["shown"]] + [scenes["shown"]] * 4
    reads = [i for i, f in enumerate(seq) if w.feed(f, cal).read]
    # the empty table never; the shown cards after three still frames; after the motion, once more
    assert reads == [8, 15]


def test_without_the_mat_it_reads_on_stillness_only_when_told(scenes: dict[str, np.ndarray]) -> None:
    needs_cards, any_still = Watcher(WatchSettings(still_frames=1)), Watcher(WatchSettings(still_frames=1, zones=0))
    assert [needs_cards.feed(scenes["shown"]).read for _ in range(3)] == [False] * 3
    assert [any_still.feed(scenes["shown"]).read for _ in range(3)] == [False, True, False]


def test_rearm_allows_another_read() -> None:
    w = Watcher(WatchSettings(still_frames=1, zones=0))
    f = np.zeros((50, 50, 3), np.uint8)
    assert [w.feed(f).read for _ in range(3)] == [False, True, False]
    w.rearm()
    assert w.feed(f).read


def test_bad_settings_are_refused() -> None:
    with pytest.raises(InvalidInput):
        WatchSettings(still_frames=0)
