"""The display's JSON bodies become typed commands, and back; bad bodies are refused in one line."""

from __future__ import annotations

from typing import Any

import pytest

from firmware.table_commands import (
    CommandRefused,
    Confirm,
    Correct,
    LanceOutcome,
    Say,
    parse_command,
)
from table.cards import Card
from table.errors import InvalidInput

GOOD = [
    {"kind": "say", "seat": 0, "word": "paso"},
    {"kind": "say", "seat": 3, "word": "envido", "n": 5},
    {"kind": "unsay"},
    {"kind": "lance", "lance": "grande", "outcome": "no querido", "n": 3, "by": 1},
    {"kind": "lance", "lance": "chica", "outcome": "en paso"},
    {"kind": "declare", "seat": 2, "lance": "juego", "says": False},
    {"kind": "read"},
    {"kind": "correct", "seat": 1, "index": 2, "card": "10b"},
    {"kind": "confirm", "seat": 3},
    {"kind": "confirm", "seat": None},
    {"kind": "undo_hand"},
    {"kind": "new_partida"},
    {"kind": "new_partida", "rules": {"reyes": 4, "real": "rey", "target": 20, "penalties": "mundial",
                                      "deje": True}},
    {"kind": "reopen", "partida": 3},
    {"kind": "learn_start", "k": 1},
    {"kind": "learn_frame", "k": 2},
    {"kind": "learn_deck", "name": "heraclio"},
    {"kind": "learn_cancel"},
]


@pytest.mark.parametrize("body", GOOD)
def test_good_bodies_round_trip(body: dict[str, Any]) -> None:
    assert parse_command(body).to_json() == body


def test_typed_values() -> None:
    assert parse_command({"kind": "say", "seat": 1, "word": "envido"}) == Say(1, "envido", 2)
    assert parse_command({"kind": "correct", "seat": 0, "index": 0, "card": "12o"}) == Correct(0, 0, Card.parse("12o"))
    assert parse_command({"kind": "confirm"}) == Confirm(None)
    assert parse_command({"kind": "lance", "lance": "pares", "outcome": "ordago", "by": 2}) == LanceOutcome(
        "pares", "ordago", None, 2)


@pytest.mark.parametrize(("body", "why"), [
    ([], "objeto"),
    ({"kind": "dance"}, "desconocida"),
    ({"kind": "say", "seat": 4, "word": "paso"}, "asiento 4"),
    ({"kind": "say", "seat": 1, "word": "órdago"}, "palabra"),
    ({"kind": "say", "seat": 1, "word": "paso", "n": 2}, "solo envido"),
    ({"kind": "say", "seat": 1, "word": "envido", "n": 1}, "al menos 2"),
    ({"kind": "lance", "lance": "mus", "outcome": "en paso"}, "lance"),
    ({"kind": "lance", "lance": "grande", "outcome": "tal"}, "final"),
    ({"kind": "declare", "seat": 1, "lance": "grande", "says": True}, "pares o juego"),
    ({"kind": "declare", "seat": 1, "lance": "pares", "says": "sí"}, "true o false"),
    ({"kind": "correct", "seat": 1, "index": 0, "card": "13o"}, "carta"),
    ({"kind": "correct", "seat": 1, "index": 9, "card": "1o"}, "index"),
    ({"kind": "reopen"}, "número de una partida de la mesa \\(1 o más\\), no None"),
    ({"kind": "reopen", "partida": 0}, "no 0"),
    ({"kind": "reopen", "partida": True}, "no True"),
    ({"kind": "learn_frame", "k": 3}, "0, 1 o 2"),
    ({"kind": "learn_deck", "name": ""}, "nombre"),
    ({"kind": "new_partida", "rules": {"target": 35}}, "reglas no válidas: rules.target must be 40, 30 or 20"),
    ({"kind": "new_partida", "rules": {"reales": True}}, "unknown rule"),
])
def test_bad_bodies_are_refused_in_one_line(body: Any, why: str) -> None:
    with pytest.raises(CommandRefused, match=why) as info:
        parse_command(body)
    assert "\n" not in str(info.value) and isinstance(info.value, InvalidInput)
