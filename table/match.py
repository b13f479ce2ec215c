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
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from table._show import show
from table.answer import Answer
from table.errors import InvalidInput, InvalidPartida
from table.record import FORMAT, HandRecord, loads
from table.rules import Rules
from table.tanteo import score

JUEGO, VACA, PARTIDA = "juego", "vaca", "partida"
JUEGOS = 3
"""Juegos that win a vaca, by default: «normalmente suele ser a tres juegos»."""
VACAS = 1
"""Vacas that win the partida, by default: a partida of one vaca."""


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


@dataclass(slots=True)
class Partida:
    """A partida in progress: feed it each hand's record (:meth:`play`) or answer (:meth:`apply`)."""

    rules: Rules = field(default_factory=Rules)
    mano: int = 0
    juegos: int = JUEGOS
    """Juegos that win a vaca."""
    vacas: int = VACAS
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
            raise InvalidPartida(f"mano must be a seat 0-3, not {show(self.mano)}", code="record_mano",
                                 params={"value": show(self.mano)})
        for name in ("juegos", "vacas"):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise InvalidPartida(f"{name} must be a whole number of at least 1, not {show(value)}",
                                     code="partida_count", params={"what": name, "value": show(value)})

    @property
    def over(self) -> bool:
        return self.winner is not None

    def next_hand(self) -> dict[str, Any]:
        """The head of the next hand's record: format, rules, mano and score."""
        return {"format": FORMAT, "rules": self.rules.to_json(), "mano": self.mano,
                "score": list(self.score)}

    def play(self, rec: HandRecord) -> tuple[Answer, list[tuple[str, int]]]:
        """Score the next hand, after checking that it follows from the partida so far."""
        self.check(rec)
        answer = score(rec)
        return answer, self.apply(answer)

    def check(self, rec: HandRecord) -> None:
        """Refuse a hand that does not follow: after the end, other rules, mano or score."""
        if self.over:
            raise InvalidPartida(f"the partida is over (won by pair {self.winner}): no more hands",
                                 code="partida_won", params={"pair": self.winner})
        if rec.rules != self.rules:
            ours, theirs = self.rules.to_json(), rec.rules.to_json()
            name = next(k for k in ours if ours[k] != theirs[k])
            raise InvalidPartida(f"rules.{name} should be {_json(ours[name])} as in the hands "
                                 f"before, not {_json(theirs[name])}", code="partida_rules",
                                 params={"rule": name, "want": _json(ours[name]), "value": _json(theirs[name])})
        if rec.mano != self.mano:
            raise _wrong_mano(self.mano, rec.mano)
        if list(rec.score) != self.score:
            after = " (a juego was just won)" if self.hands and self.score == [0, 0] else ""
            raise InvalidPartida(f"score should be {self.score}{after}, not {list(rec.score)}",
                                 code="partida_score", params={"want": str(self.score), "value": str(list(rec.score)),
                                                               "after_juego": bool(after)})

    def apply(self, answer: Answer) -> list[tuple[str, int]]:
        """Move on by one hand; what it won: ``[("juego", pair), ("vaca", pair), ...]``."""
        if self.over:
            raise InvalidPartida(f"the partida is over (won by pair {self.winner}): no more hands",
                                 code="partida_won", params={"pair": self.winner})
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


@dataclass(frozen=True, slots=True)
class Played:
    """One hand of a replayed partida, and where the partida stood after it."""

    hand: int
    """1 for the partida's first hand."""
    line: int
    """The line of the JSON lines it was read from."""
    record: HandRecord
    answer: Answer
    won: tuple[tuple[str, int], ...]
    """What the hand won: ``(("juego", 1), ("vaca", 1))``..., or nothing."""
    score: tuple[int, int]
    """The stones the next hand starts from (0-0 after a juego)."""
    juegos: tuple[int, int]
    """Juegos won in the vaca being played (after a vaca: the juegos it ended at)."""
    vacas: tuple[int, int]


def follow(lines: str | bytes | Iterable[str | bytes], juegos: int = JUEGOS, vacas: int = VACAS,
           ) -> Iterator[tuple[Partida, Played]]:
    """Replay a partida written as JSON lines of hand records (blank lines skipped),
    hand by hand, as a table plays it.

    The first record sets the rules and the first mano, and starts at 0-0; every
    later one must follow from the hand before (:meth:`Partida.check`). The first
    line that does not raises :class:`~table.errors.InvalidPartida` naming it
    (``line 7: mano should be seat 2, not 0``).
    """
    if isinstance(lines, (str, bytes)):
        lines = lines.splitlines()
    partida: Partida | None = None
    ended = 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if partida is not None and partida.over:
            raise InvalidPartida(f"line {number}: the partida ended at line {ended} (won by "
                                 f"pair {partida.winner}): no hand may follow", code="partida_ended",
                                 params={"line": number, "ended": ended, "pair": partida.winner})
        ended = number
        try:
            obj = loads(line)
            if partida is not None:
                _mano_first(partida, obj)
            rec = HandRecord.from_json(obj)
            if partida is None:
                if rec.score != (0, 0):
                    raise InvalidPartida(f"a partida starts at [0, 0], not {list(rec.score)}",
                                         code="partida_start", params={"value": str(list(rec.score))})
                partida = Partida(rec.rules, rec.mano, juegos, vacas)
            before = tuple(partida.won_juegos)
            answer, won = partida.play(rec)
        except InvalidInput as exc:
            raise InvalidPartida(f"line {number}: {exc}", code="at_line",
                                 params={"line": number, "cause": {"code": exc.code, "args": exc.params}}) from None
        if any(what == VACA for what, _ in won):
            w = won[0][1]
            standing = (before[0] + (w == 0), before[1] + (w == 1))
        else:
            standing = (partida.won_juegos[0], partida.won_juegos[1])
        yield partida, Played(partida.hands, number, rec, answer, tuple(won),
                              (partida.score[0], partida.score[1]), standing,
                              (partida.won_vacas[0], partida.won_vacas[1]))
    if partida is None:
        raise InvalidPartida("the partida is empty: it has no hands", code="partida_empty")


def _wrong_mano(want: int, mano: int) -> InvalidPartida:
    return InvalidPartida(f"mano should be seat {want}, not {mano}", code="partida_mano",
                          params={"want": want, "seat": want, "value": mano})


def _mano_first(partida: Partida, obj: Any) -> None:
    """A hand whose mano is not the seat after the last one is refused for that, before its
    words are checked: they follow the wrong mano, and «a bet out of turn» would hide why."""
    mano = obj.get("mano") if isinstance(obj, dict) else None
    if type(mano) is int and 0 <= mano <= 3 and mano != partida.mano and not partida.over:
        raise _wrong_mano(partida.mano, mano)


def replay(lines: str | bytes | Iterable[str | bytes], juegos: int = JUEGOS, vacas: int = VACAS,
           ) -> tuple[Partida, list[Played]]:
    """The whole partida checked and replayed (see :func:`follow`): its end state and each hand."""
    last: Partida | None = None
    played: list[Played] = []
    for partida, step in follow(lines, juegos, vacas):
        last = partida
        played.append(step)
    assert last is not None  # follow() raises on a partida without hands
    return last, played


def read_partida(lines: str | bytes | Iterable[str | bytes], juegos: int = JUEGOS,
                 vacas: int = VACAS) -> tuple[Partida, list[Answer]]:
    """Replay a partida written as JSON lines; its end state and each hand's answer."""
    partida, played = replay(lines, juegos, vacas)
    return partida, [p.answer for p in played]


def write_partida(records: Iterable[HandRecord]) -> str:
    """The partida as JSON lines, one record per hand."""
    return "".join(json.dumps(r.to_json(), ensure_ascii=False) + "\n" for r in records)
