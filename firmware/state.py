"""The table's whole state, as one typed value; ``to_json()`` is the contract of docs/events.md.

:class:`TableState` is what every event carries. Python code reads its
attributes (``state.phase is Phase.SCORED``, ``state.bets.speaker``,
``state.confirm_by``); the display, the spectators, MQTT and the hub get
:meth:`TableState.to_json`, made here and nowhere else. The game's parts come
from :mod:`table` (the hand, its record and answer, who confirms); what a person
reads comes as message codes and their arguments, each also worded in the
table's language from :mod:`web.strings`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from table.answer import Answer
from table.betting import BetWord, Outcome
from table.cards import Card
from table.errors import Message
from table.game import Game, StonesOff, pair_stones, stones_check
from table.hand import Phase
from table.lances import Lance
from table.record import HandRecord
from table.rules import Rules
from web.strings import say


class FaultKind(StrEnum):
    CAMERA = "camera"
    """No frames: the camera is unplugged, or gives none."""
    FROZEN = "frozen"
    """The same frame over and over."""
    FRAMES = "frames"
    """Frames that cannot be read (wrong size, broken)."""
    DISK = "disk"
    """The journal cannot be written (a full or failing disk): entries wait in memory."""


@dataclass(frozen=True, slots=True)
class Fault:
    """Something wrong that the table says on the display and the LEDs, until it goes."""

    kind: FaultKind
    text: str
    todo: str
    message: Message | None = None
    """The same as a code and its arguments, where the fault was raised with one."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": str(self.kind), "text": self.text, "todo": self.todo}
        msg = self.message or Message(f"fault_{self.kind}", {})
        out.update(code=msg.code, args=dict(msg.args))
        return out


@dataclass(frozen=True, slots=True)
class PairStones:
    """How the table shows a pair's stones: amarracos (5 each) and piedras; «dentro», the
    piedras say how far inside the pair is."""

    amarracos: int
    piedras: int
    dentro: bool

    @classmethod
    def of(cls, points: int, target: int) -> PairStones:
        return cls(*pair_stones(points, target))

    def to_json(self) -> dict[str, Any]:
        return {"amarracos": self.amarracos, "piedras": self.piedras, "dentro": self.dentro}


@dataclass(frozen=True, slots=True)
class Standing:
    """The bet standing now in the lance in play."""

    bettor: int
    total: int
    ordago: bool
    deje: int | None = None
    """What «no quiero» would give the bettor's pair now (``Betting.deje``); None once answered."""


@dataclass(frozen=True)
class BetsState:
    """The lance in play, who speaks and what they may say, and the hand's words so far."""

    lance: Lance | None
    speaker: int | None
    legal: tuple[BetWord, ...]
    asked: tuple[Lance, ...]
    declared: tuple[tuple[bool | None, ...], tuple[bool | None, ...]]
    words: Mapping[str, list[list[object]]]
    outcomes: Mapping[Lance, Outcome]
    standing: Standing | None
    over: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "lance": None if self.lance is None else str(self.lance),
            "speaker": self.speaker,
            "legal": [str(w) for w in self.legal],
            "asked": [str(a) for a in self.asked],
            "declared": {"pares": list(self.declared[0]), "juego": list(self.declared[1])},
            "words": {str(lance): [[str(x) if isinstance(x, StrEnum) else x for x in w] for w in ws]
                      for lance, ws in self.words.items()},
            "outcomes": {str(lance): {"how": str(o.how), "stake": o.stake, "deje": o.deje, "pair": o.pair,
                                      "bettor": o.bettor} for lance, o in self.outcomes.items()},
            "standing": None if self.standing is None else
            {"bettor": self.standing.bettor, "total": self.standing.total, "ordago": self.standing.ordago,
             "deje": self.standing.deje},
            "over": self.over,
        }


@dataclass(frozen=True)
class PartidaState:
    id: int
    juegos: tuple[int, int]
    """Juegos won by each pair in the vaca being played."""
    vacas: tuple[int, int]
    vaca_results: tuple[tuple[int, int], ...]
    over: bool
    winner: int | None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "juegos": list(self.juegos), "vacas": list(self.vacas),
                "vaca_results": [list(v) for v in self.vaca_results], "over": self.over, "winner": self.winner}


@dataclass(frozen=True)
class TableState:
    """The table's whole state (docs/events.md)."""

    seq: int
    table: str
    phase: Phase
    rules: Rules
    juegos: int
    """Juegos that win a vaca (``format.juegos``)."""
    vacas: int
    partida: PartidaState
    score: tuple[int, int]
    """Both pairs' stones before the hand in play."""
    stones: tuple[PairStones, PairStones]
    piedras: tuple[int, int]
    mano: int
    hand_no: int
    hands: int
    bets: BetsState
    reading: Mapping[str, Any] | None
    """The last reading, as ``mus-table read --json`` prints it."""
    cards: tuple[tuple[Card, ...], ...] | None
    corrected: bool
    problems: tuple[Message, ...]
    record: HandRecord | None
    answer: Answer | None
    hand_score: tuple[int, int]
    """The score the hand in play started from (the tanteo's running score starts there)."""
    confirm_by: tuple[int, ...]
    stones_check: tuple[StonesOff, ...]
    faults: tuple[Fault, ...]
    pending_entries: int
    learning: Mapping[str, Any] | None
    last_hand: Answer | None
    judge: Mapping[str, Any] | None = None
    """The table's call to the juez and its answer (docs/hub.md), or None."""
    names: tuple[str, ...] = ()
    """The players' names by seat, given at the start of the partida (empty: none)."""
    deck: str | None = None
    """The learnt deck the table reads with («Baraja: …»), None for the card model alone."""
    lang: str = field(default="es", compare=False)

    @classmethod
    def of(cls, game: Game, *, seq: int, table: str, phase: Phase, piedras: tuple[int, int],
           check_stones: bool, reading: Mapping[str, Any] | None, faults: tuple[Fault, ...],
           pending: int, learning: Mapping[str, Any] | None,
           judge: Mapping[str, Any] | None = None, deck: str | None = None) -> TableState:
        p, h = game.partida, game.hand
        betting = h.betting
        bets = BetsState(h.lance, h.speaker, h.legal, h.asked, h.declared, h.words_by_lance, h.outcomes,
                         None if betting is None or betting.bettor is None else
                         Standing(betting.bettor, betting.total, betting.ordago, betting.deje), h.bets_over)
        target = p.rules.target
        return cls(
            seq=seq, table=table, phase=phase, rules=p.rules, juegos=p.juegos, vacas=p.vacas,
            partida=PartidaState(game.partida_id, (p.won_juegos[0], p.won_juegos[1]),
                                 (p.won_vacas[0], p.won_vacas[1]),
                                 tuple((a, b) for a, b in p.vaca_results), p.over, p.winner),
            score=(p.score[0], p.score[1]),
            stones=(PairStones.of(p.score[0], target), PairStones.of(p.score[1], target)),
            piedras=piedras, mano=h.mano, hand_no=p.hands + 1, hands=p.hands, bets=bets,
            reading=reading, cards=h.cards, corrected=h.corrected, problems=h.problems,
            record=h.record, answer=h.answer, hand_score=h.score, confirm_by=h.confirm_by,
            stones_check=stones_check(h, target, piedras) if check_stones else (),
            faults=faults, pending_entries=pending, learning=learning,
            last_hand=game.confirmed[-1].answer if game.confirmed else None, judge=judge, names=game.names,
            deck=deck)

    def at_seq(self, seq: int) -> TableState:
        """The same state under the number of the event that carries it."""
        return replace(self, seq=seq)

    def to_json(self) -> dict[str, Any]:
        """The state as docs/events.md describes it (plain JSON values only)."""
        lang = self.lang
        answer = self.answer
        tanteo: list[dict[str, Any]] = []
        if answer is not None:
            run = list(self.hand_score)
            for e in answer.tanteo:
                run[e.pair] += e.stones
                tanteo.append({**e.to_json(), "text": e.why, "score": list(run), "counted": True})
            for e in answer.not_counted:
                tanteo.append({**e.to_json(), "text": e.why, "score": None, "counted": False})
        return {
            "seq": self.seq,
            "table": self.table,
            "phase": str(self.phase),
            "rules": self.rules.to_json(),
            "format": {"juegos": self.juegos, "vacas": self.vacas},
            "partida": self.partida.to_json(),
            "score": list(self.score),
            "target": self.rules.target,
            "stones": [s.to_json() for s in self.stones],
            "piedras": list(self.piedras),
            "mano": self.mano,
            "hand_no": self.hand_no,
            "bets": self.bets.to_json(),
            "reading": None if self.reading is None else dict(self.reading),
            "cards": None if self.cards is None else [[str(c) for c in seat] for seat in self.cards],
            "corrected": self.corrected,
            "problems": [say(m.code, m.args, lang) for m in self.problems],
            "problem_codes": [m.to_json() for m in self.problems],
            "record": self.record.to_json() if self.record is not None else None,
            "answer": answer.to_json() if answer is not None else None,
            "tanteo": tanteo,
            "won_at": answer.won_at.to_json() if answer is not None and answer.won_at is not None else None,
            "not_counted": [e.to_json() for e in answer.not_counted] if answer is not None else [],
            "confirm_by": list(self.confirm_by),
            "stones_check": [{"seat": s.seat, "expected": s.expected, "seen": s.seen, "diff": s.diff,
                              "text": say(s.message.code, s.message.args, lang), **s.message.to_json()}
                             for s in self.stones_check],
            "faults": [f.to_json() for f in self.faults],
            "pending_entries": self.pending_entries,
            "learning": None if self.learning is None else dict(self.learning),
            "deck": self.deck,
            "hands": self.hands,
            "last_hand": self.last_hand.to_json() if self.last_hand is not None else None,
            "judge": None if self.judge is None else dict(self.judge),
            "names": list(self.names) if any(self.names) else None,
        }
