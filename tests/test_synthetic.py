"""The synthetic table: face-down and face-up cards, stones that follow the score, a live sensor."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware.cli import main
from firmware.journal import Journal
from firmware.state import TableState
from firmware.synthetic import (
    LaidCardsReader,
    LearningLayout,
    SyntheticLearner,
    SyntheticPlayers,
    SyntheticTable,
    card_back,
)
from firmware.table_commands import LearnCancel, LearnStart, Read
from firmware.table_loop import LoopSettings, TableLoop, expected_stones
from table.cards import DECK
from table.hand import Phase
from vision.mat import Mat
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


def _along(x: float, y: float, seat: int) -> float:
    """Left to right as ``seat`` sees it (docs/mat.md: seats counterclockwise from the bottom)."""
    return [x, -y, -x, y][seat]


def test_the_deck_is_laid_out_for_learning_as_the_mat_says_and_the_hand_waits() -> None:
    table = SyntheticTable(4)
    table.show(CARDS)
    for k in range(3):
        table.lay_learning(k)
        spec = table.spec(table.STILL_PX_PER_MM)
        assert [" ".join(map(str, seat)) for seat in spec.cards] == [
            ["1o 2o 3o 4o", "5o 6o 7o 10o", "11o 12o 1c 2c", "3c 4c 5c 6c"],
            ["7c 10c 11c 12c", "1e 2e 3e 4e", "5e 6e 7e 10e", "11e 12e 1b 2b"],
            ["3b 4b 5b 6b", "7b 10b 11b 12b", "", ""]][k]
        assert spec.placements is not None
        for s, places in enumerate(spec.placements):
            along = [_along(*p.centre, s) for p in places]
            assert along == sorted(along)  # each row left to right as its seat sees it
            assert all(str(Mat().zone_at(*p.centre)) == f"seat {s} cards" for p in places)
    wrong = LearningLayout(0, missing=((1, 2),), face_down=((2, 1),))
    table.lay_learning(wrong)
    spec = table.spec(table.STILL_PX_PER_MM)
    assert [len(seat) for seat in spec.cards] == [4, 2, 4, 4]
    assert isinstance(spec.deck, dict)
    back = spec.deck[DECK[9]]  # the 12o, the second of seat 2's row, lies face down
    assert all(np.array_equal(spec.deck[c], back) == (c == DECK[9]) for c in DECK)
    table.deal(CARDS)  # the players go on meanwhile: their hand waits under the deck laid out
    assert table.scene == "learning"
    table.end_learning()
    assert table.scene == "dealt" and table.cards == tuple(tuple(s) for s in CARDS) and table.learning is None


def test_the_learner_lays_what_the_display_asks_and_fixes_a_wrong_frame() -> None:
    table = SyntheticTable(5)
    frames = iter([None])
    loop = TableLoop(reader=TableReader())
    loop.attach_camera(lambda: next(frames))
    wrong = LearningLayout(0, missing=((1, 2),))
    learner = SyntheticLearner(loop, table, (wrong,))
    loop.submit(LearnStart(0))
    assert table.learning == wrong
    loop.submit(LearnStart(2))
    assert table.learning == LearningLayout(2)
    loop.submit(LearnCancel())
    assert table.learning is None and table.scene == "empty"
    assert learner.laid == [wrong, LearningLayout(2)]
    learner.close()


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


# ------------------------------------------------------------------ whole partidas, played by the players


def play_partida(seed: int, journal: Path, *, juegos: int = 3, vacas: int = 1) -> tuple[TableLoop, SyntheticPlayers]:
    """The synthetic players play one whole partida through the loop, with its journal; «leer» is
    pressed once the cards are shown, and the reader reads what was laid (no picture drawn)."""
    synthetic = SyntheticTable(seed)
    loop = TableLoop(LoopSettings(juegos=juegos, vacas=vacas), reader=LaidCardsReader(synthetic),
                     journal=Journal(journal))
    loop.attach_camera(lambda: BLANK)
    players = SyntheticPlayers(loop, synthetic, seed, pause=lambda s: None)
    for _ in range(1000):
        if loop.phase is Phase.OVER:
            break
        players.play_hand(lambda: read(loop))
    return loop, players


BLANK = np.zeros((8, 8, 3), np.uint8)


def read(loop: TableLoop) -> TableState:
    """«leer» pressed: the state after the reading."""
    loop.submit(Read())
    return loop.state()


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32), vacas=st.sampled_from([1, 2]))
def test_the_players_play_any_partida_to_its_end(seed: int, vacas: int, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """No refusal from the first word to «¡Partida para la pareja N!» (3 juegos, or 2 vacas of 3),
    and the journal's export is a partida ``mus-table replay`` takes, to the same result."""
    path = tmp_path / f"j-{seed}-{vacas}.sqlite"
    loop, players = play_partida(seed, path, vacas=vacas)
    state = loop.snapshot()
    assert players.refused == []
    assert state["partida"]["over"] and state["partida"]["winner"] in (0, 1)
    assert max(state["partida"]["vacas"]) == vacas
    hands = loop.hands()
    assert len(hands) == state["hands"] >= 3 * vacas
    exported = path.with_suffix(".jsonl")
    exported.write_text("".join(json.dumps(r) + "\n" for r in Journal(path).export()))
    capsys.readouterr()
    assert main(["replay", str(exported), "--json", "--vacas", str(vacas)]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])["summary"]
    assert (summary["hands"], summary["winner"], summary["over"]) == (len(hands), state["partida"]["winner"], True)
    assert summary["vacas"] == state["partida"]["vacas"]


class Cut(Exception):
    """The power goes (the players and the loop are dropped; the journal stays)."""


def play_until_cut(path: Path, seed: int, cut_at: int, cut_after_read: bool) -> tuple[TableLoop, SyntheticPlayers]:
    """The table started (again) on its journal; the players play until the power goes at their
    ``cut_at``-th pause (after the deal, then after each word), or once «leer» has read."""
    synthetic = SyntheticTable(seed)
    loop = TableLoop(LoopSettings(juegos=1), reader=LaidCardsReader(synthetic), journal=Journal(path))
    loop.attach_camera(lambda: BLANK)
    pauses = [0]

    def pause(_: float) -> None:
        pauses[0] += 1
        if pauses[0] == cut_at:
            raise Cut

    def read_or_cut() -> TableState:
        state = read(loop)
        if cut_after_read:
            raise Cut
        return state

    players = SyntheticPlayers(loop, synthetic, seed, pause=pause)
    try:
        while loop.phase is not Phase.OVER:
            players.play_hand(read_or_cut)
    except Cut:
        pass
    return loop, players


def test_players_started_again_take_up_the_hand_where_it_was(tmp_path: Path) -> None:
    """A table resumed from its journal mid-hand (some words said, or the cards read and not
    confirmed): new players go on with that hand, and the partida is the one played uncut."""
    whole, _ = play_partida(11, tmp_path / "whole.sqlite", juegos=1)
    path = tmp_path / "cut.sqlite"
    restarts = 0
    loop = TableLoop(LoopSettings(juegos=1), journal=Journal(path))
    while loop.phase is not Phase.OVER and restarts < 200:
        loop, players = play_until_cut(path, 11, 1 + restarts % 5, restarts % 3 == 2)
        assert players.refused == []
        restarts += 1
    assert restarts > len(whole.hands())  # cut more than once a hand
    assert loop.phase is Phase.OVER
    assert [h.record.to_json() for h in loop.hands()] == [h.record.to_json() for h in whole.hands()]
