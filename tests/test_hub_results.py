"""The hub's console narrates a partida with the names its table journaled (``hub.results``)."""

from __future__ import annotations

from pathlib import Path

from _engine_helpers import SPEC_RECORD

from hub.results import partida_view
from hub.store import Store


def _store(tmp_path: Path, names: object) -> Store:
    store = Store(f"sqlite:///{tmp_path}/hub.sqlite")
    body = {"mano": 0, "juegos": 1} | ({} if names is None else {"names": names})
    assert store.add_entry("m", 1, 0, 1, "new_partida", "t0", body)
    assert store.add_entry("m", 2, 1, 1, "confirm", "t1", {"record": SPEC_RECORD, "answer": {}, "seat": 1})
    return store


def test_the_console_says_the_players_by_name(tmp_path: Path) -> None:
    view = partida_view(_store(tmp_path, ["Jon", "Iker", "Ane", "Mikel"]), "m", 1)
    said = view.narration()
    assert view.names == ("Jon", "Iker", "Ane", "Mikel")
    assert "Mano Jon (asiento 1). La pareja de Jon y Ane contra la pareja de Iker y Mikel; van 0 a 0, a 40." in said
    assert any(line.startswith("  Grande: Jon envida dos, Iker no quiere, Mikel quiere.") for line in said)


def test_without_names_or_with_bad_ones_the_console_says_seats_1_to_4(tmp_path: Path) -> None:
    for i, names in enumerate((None, ["Jon"], "Jon", [1, 2, 3, 4])):
        folder = tmp_path / str(i)
        folder.mkdir()
        view = partida_view(_store(folder, names), "m", 1)
        assert view.names == ()
        assert "Mano el asiento 1. La pareja de los asientos 1 y 3 contra la pareja de los asientos 2 y 4; " \
               "van 0 a 0, a 40." in view.narration()
