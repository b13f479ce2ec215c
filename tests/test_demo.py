"""The demo table: rendered frames read by the real pipeline and scored hand after hand."""

from __future__ import annotations

from firmware.cli import main
from firmware.demo import play, table_stones
from table.rules import Rules
from table.tanteo import score
from vision.classifier import NeverSure
from vision.reading import TableReader


def test_stones_on_the_felt_follow_the_score() -> None:
    assert table_stones([0, 0], 40) == (22, (0, 0, 0, 0))
    assert table_stones([12, 7], 40) == (15, (2, 2, 2, 1))
    # dentro: the amarracos go back to the pool, the piedras say how far inside
    assert table_stones([36, 3], 40) == (18, (1, 3, 0, 0))


def test_demo_scores_what_the_camera_read() -> None:
    hands = list(play(2, seed=5, rules=Rules()))
    assert [h.number for h in hands] == [1, 2]
    for h in hands:
        assert score(h.record).score == h.answer.score
        if h.read_ok:
            assert not h.misread
    # the partida carries the score from one hand to the next
    assert list(hands[1].record.score) == (list(hands[0].answer.score) if hands[0].answer.winner is None
                                           else [0, 0])
    assert hands[1].record.mano == (hands[0].record.mano + 1) % 4


def test_an_unsure_reading_is_corrected_by_the_players_never_guessed() -> None:
    hand = next(play(1, seed=2, rules=Rules(), reader_factory=lambda: TableReader(classifier=NeverSure())))
    assert not hand.read_ok
    assert len(hand.misread) == 16 and all("not read" in m for m in hand.misread)
    assert sum(len(seat) for seat in hand.record.cards) == 16


def test_demo_command_prints_the_tanteo(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["demo", "--hands", "1", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "— Mano 1 —" in out and "El tanteo, por su orden:" in out
