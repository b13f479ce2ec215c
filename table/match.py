"""The match around the hands: juegos (chicos), vacas and the partida.

A juego is won by the first pair to reach the target (40 or 30) in a hand; the
score then goes back to 0-0. A vaca is won by the first pair to win ``juegos``
juegos (default 3), a partida by the first to win ``vacas`` vacas (default 1).
``mano`` moves one seat each hand, juego or not.

A whole partida is written as JSON lines, one ``mus-hand/1`` record per hand:
each record's ``mano`` and ``score`` must follow from the hand before.

>>> p = Partida(Rules(), mano=3)
>>> p.next_hand()["mano"], p.next_hand()["score"]
(3, [0, 0])
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from table.answer import Answer
from table.errors import InvalidInput, InvalidPartida
from table.record import FORMAT, HandRecord, loads
from table.rules import Rules
from table.tanteo import score

JUEGO, VACA, PARTIDA = "juego", "vaca", "partida"


@dataclass(slots=True)
class Partida:
    """A partida in progress: feed it each hand's record (:meth:`play`) or answer (:meth:`apply`)."""

    rules: Rules = field(default_factory=Rules)
    mano: int = 0
    juegos: int = 3
    """Juegos that win a vaca."""
    vacas: int = 1
    """Vacas that win the partida."""
    score: list[int] = field(default_factory=lambda: [0, 0])
    won_juegos: list[int] = field(default_factory=lambda: [0, 0])
    """Juegos won in the vaca being played."""
    won_vacas: list[int] = field(default_factory=lambda: [0, 0])
    vaca_results: list[tuple[int, int]] = field(default_factory=list)
    """The juegos of each finished vaca, pair 0's first."""
    hands: int = 0
    winner: int | None = None

    def __post_init__(self) -> None:
        if type(self.mano) is not int or not 0 <= self.mano <= 3:
            raise InvalidPartida(f"mano must be a seat 0-3, not {self.mano!r}")
        for name in ("juegos", "vacas"):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise InvalidPartida(f"{name} must be a whole number of at least 1, not {value!r}")

    @property
    def over(self) -> bool:
        return self.winner is not None

    def next_hand(self) -> dict[str, Any]:
        """The head of the next hand's record: format, rules, mano and score."""
        return {"format": FORMAT, "rules": self.rules.to_json(), "mano": self.mano,
                "score": list(self.score)}

    def play(self, rec: HandRecord) -> tuple[Answer, list[tuple[str, int]]]:
        """Score the next hand, after checking that it follows from the partida so far."""
        if self.over:
            raise InvalidPartida(f"the partida is over (won by pair {self.winner}): no more hands")
        if rec.rules != self.rules:
            raise InvalidPartida(f"the rules changed: {rec.rules.to_json()}, "
                                 f"the partida plays {self.rules.to_json()}")
        if rec.mano != self.mano:
            raise InvalidPartida(f"mano is {rec.mano}, but this hand's mano is seat {self.mano}")
        if list(rec.score) != self.score:
            raise InvalidPartida(f"score is {list(rec.score)}, but the partida stands at {self.score}")
        answer = score(rec)
        return answer, self.apply(answer)

    def apply(self, answer: Answer) -> list[tuple[str, int]]:
        """Move on by one hand; what it won: ``[("juego", pair), ("vaca", pair), ...]``."""
        if self.over:
            raise InvalidPartida(f"the partida is over (won by pair {self.winner}): no more hands")
        self.hands += 1
        self.mano = (self.mano + 1) % 4
        w = answer.winner
        if w is None:
            self.score = list(answer.score)
            return []
        won = [(JUEGO, w)]
        self.score = [0, 0]
        self.won_juegos[w] += 1
        if self.won_juegos[w] >= self.juegos:
            won.append((VACA, w))
            self.vaca_results.append((self.won_juegos[0], self.won_juegos[1]))
            self.won_juegos = [0, 0]
            self.won_vacas[w] += 1
            if self.won_vacas[w] >= self.vacas:
                won.append((PARTIDA, w))
                self.winner = w
        return won


def read_partida(lines: str | bytes | Iterable[str | bytes], juegos: int = 3, vacas: int = 1,
                 ) -> tuple[Partida, list[Answer]]:
    """Replay a partida written as JSON lines of hand records (blank lines skipped).

    The first record sets the rules and the first mano, and starts at 0-0; every
    later one must follow from the hand before. Errors name the line.
    """
    if isinstance(lines, (str, bytes)):
        lines = lines.splitlines()
    partida: Partida | None = None
    answers: list[Answer] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = HandRecord.from_json(loads(line))
            if partida is None:
                if rec.score != (0, 0):
                    raise InvalidPartida(f"a partida starts at [0, 0], not {list(rec.score)}")
                partida = Partida(rec.rules, rec.mano, juegos, vacas)
            answers.append(partida.play(rec)[0])
        except InvalidInput as exc:
            raise InvalidPartida(f"line {number}: {exc}") from None
    if partida is None:
        raise InvalidPartida("the partida has no hands")
    return partida, answers


def write_partida(records: Iterable[HandRecord]) -> str:
    """The partida as JSON lines, one record per hand."""
    return "".join(json.dumps(r.to_json(), ensure_ascii=False) + "\n" for r in records)
