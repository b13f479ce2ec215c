"""The camera-less table: the truth reader and its players drive the real loop hand after hand."""

from __future__ import annotations

from firmware.table_loop import LoopSettings, TableLoop
from firmware.truth import TruthPlayers, TruthReader
from table.rules import Rules


def test_players_play_whole_partidas_through_the_real_loop() -> None:
    reader = TruthReader()
    loop = TableLoop(LoopSettings(rules=Rules(target=30), juegos=1), reader=reader)
    players = TruthPlayers(loop, reader, seed=3)
    partidas = set()
    for _ in range(40):
        before = loop.snapshot()["hands"]
        state = players.play_hand()
        partidas.add(state["partida"]["id"])
        assert state["phase"] in ("playing", "over")
        assert state["hands"] == before + 1 or state["hands"] == 1  # one hand confirmed (or a new partida's first)
    assert len(partidas) > 1  # partidas are won and new ones started
    steps = sum(1 for _ in players.steps())
    assert steps >= 2  # the reading and the confirmation at least, one command a step
