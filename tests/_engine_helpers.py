"""Shared by the engine's tests: build mus-hand/1 records in a few words."""

from __future__ import annotations

from typing import Any

from table.answer import Answer
from table.record import HandRecord
from table.tanteo import score


def record(cards: str, bets: dict[str, list[list[Any]]] | None = None, *, mano: int = 0,
           points: tuple[int, int] = (0, 0), rules: dict[str, Any] | None = None,
           declared: dict[str, list[bool]] | None = None) -> dict[str, Any]:
    """``cards``: four seats separated by ``|``, e.g. ``"12o 3c 1e 4b | 11o ..."``."""
    seats = [s.split() for s in cards.split("|")]
    rec: dict[str, Any] = {"format": "mus-hand/1", "mano": mano, "score": list(points),
                           "cards": seats, "bets": bets or {}}
    if rules is not None:
        rec["rules"] = rules
    if declared is not None:
        rec["declared"] = declared
    return rec


def answer(cards: str, bets: dict[str, list[list[Any]]] | None = None, **kw: Any) -> Answer:
    return score(HandRecord.from_json(record(cards, bets, **kw)))


def passes(mano: int = 0) -> list[list[Any]]:
    """All four pass, in speaking order."""
    return [[(mano + i) % 4, "paso"] for i in range(4)]


SPEC_RECORD: dict[str, Any] = {
    "format": "mus-hand/1",
    "rules": {"reyes": 8, "real": False, "target": 40},
    "mano": 0,
    "score": [0, 0],
    "cards": [["12o", "3c", "1e", "4b"], ["11o", "11c", "7e", "7b"],
              ["5o", "6c", "2b", "10e"], ["10o", "10c", "1o", "12b"]],
    "bets": {
        "grande": [[0, "envido", 2], [1, "no quiero"], [3, "quiero"]],
        "chica": [[0, "paso"], [1, "paso"], [2, "paso"], [3, "paso"]],
        "pares": [],
        "juego": [],
    },
}

SPEC_ANSWER: dict[str, Any] = {
    "score": [3, 9],
    "winner": None,
    "lances": {
        "grande": {"winner": 0, "how": "querido", "stones": 2},
        "chica": {"winner": 0, "how": "paso", "stones": 1},
        "pares": {"winner": 1, "how": "paso", "stones": 4},
        "juego": {"winner": 1, "how": "not bet", "stones": 5},
    },
    "tanteo": [
        {"lance": "grande", "pair": 0, "stones": 2, "why": "dos de envite a grande"},
        {"lance": "chica", "pair": 0, "stones": 1, "why": "una de chica en paso"},
        {"lance": "pares", "pair": 1, "stones": 3, "why": "duples"},
        {"lance": "pares", "pair": 1, "stones": 1, "why": "par del compañero"},
        {"lance": "juego", "pair": 1, "stones": 3, "why": "treinta y una"},
        {"lance": "juego", "pair": 1, "stones": 2, "why": "juego del compañero"},
    ],
}
"""The spec's example answer, word for word (its short whys: ours say them in full)."""
