"""The table's deck: learnt or chosen at the table, kept with the journal, read with after a restart."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from firmware.config import PanelSection, TableConfig, TableSection
from firmware.table_app import build_table
from firmware.table_commands import (
    CommandRefused,
    LearnCancel,
    LearnDeck,
    LearnFrame,
    LearnStart,
    Say,
    UseDeck,
    parse_command,
)
from firmware.table_loop import TableLoop
from models.deck import HELD_OUT_STYLES
from models.scene import learning_scene, render_scene
from table.betting import BetWord
from vision.learnt import LearntClassifier, deck_in_use
from vision.reading import TableReader


def test_a_deck_learnt_at_the_table_is_its_deck_until_changed_and_after_a_restart(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "state"))
    rng = np.random.default_rng(5)
    frames = [render_scene(learning_scene(rng, k, deck=HELD_OUT_STYLES["moderna"]), rng).image for k in range(3)]
    stills = iter([frames[1], *frames])
    loop = TableLoop(reader=TableReader())
    loop.attach_camera(lambda: next(stills))
    # each photo is checked as it is taken (a wrong one says why, in codes) and may be taken again
    learning = loop.submit(LearnFrame(0))["learning"]
    assert {f["code"] for f in learning["faults"]["0"]} == {"learn_wrong_card"}
    assert learning["frame"] == 0  # the same frame is to be laid again
    for k in range(3):
        learning = loop.submit(LearnFrame(k))["learning"]
        assert learning["frame"] == min(k + 1, 2)  # right: the next frame missing is to be laid
    assert learning["faults"] == {} and learning["done"] == [0, 1, 2]
    state = loop.submit(LearnDeck("club"))
    assert state["deck"] == "club" and deck_in_use() == "club"
    assert isinstance(loop.reader, TableReader) and isinstance(loop.reader.classifier, LearntClassifier)
    # a restart (or a power cut): the table built again reads with it, whatever the configuration says
    config = TableConfig(table=TableSection(journal=str(tmp_path / "state" / "journal.sqlite")),
                         panel=PanelSection(enabled=False))
    again = build_table(config, source=None, reader=None)
    try:
        assert again.loop.deck == "club" and again.loop.snapshot()["deck"] == "club"
        assert isinstance(again.loop.reader.classifier, LearntClassifier)  # type: ignore[union-attr]
        # changed at the table: the card model alone, kept too
        with pytest.raises(CommandRefused, match="«otro»"):  # none of that name
            again.loop.submit(UseDeck("otro"))
        assert again.loop.submit(parse_command({"kind": "use_deck", "name": None}))["deck"] is None
    finally:
        again.stop()
    assert deck_in_use() is None
    third = build_table(config, source=None, reader=None)
    try:
        assert third.loop.deck is None and not isinstance(third.loop.reader.classifier,  # type: ignore[union-attr]
                                                          LearntClassifier)
        assert third.loop.submit(UseDeck("club"))["deck"] == "club" and deck_in_use() == "club"
    finally:
        third.stop()


def test_learning_starts_before_the_first_photo_and_no_hand_is_read_meanwhile() -> None:
    loop = TableLoop(reader=TableReader())
    loop.attach_camera(lambda: None)
    state = loop.submit(parse_command({"kind": "learn_start"}))
    assert state["phase"] == "learning" and state["learning"]["frame"] == 0 and state["learning"]["done"] == []
    assert loop.submit(LearnStart(2))["learning"]["frame"] == 2  # another frame shown, nothing else changes
    assert not loop.wants_reading()  # the cards laid out to learn are no hand
    with pytest.raises(CommandRefused, match="aprendiendo"):
        loop.read_now()
    with pytest.raises(CommandRefused, match="aprendiendo"):
        loop.submit(Say(0, BetWord.PASO, None))
    assert loop.submit(LearnCancel())["phase"] == "playing"
